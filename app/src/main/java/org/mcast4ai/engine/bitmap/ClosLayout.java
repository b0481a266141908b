package org.mcast4ai.engine.bitmap;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;

import java.util.Arrays;

/**
 * The Clos structure read from a snapshot: whether the fabric has a super-spine tier, and which leaves and
 * spines form a pod (the components joined by leaf-spine links). Used to place leaves into pods when bit
 * indices are allocated and to build the static switch tables.
 */
final class ClosLayout {
    private final boolean threeTier;
    private final int[] component;   // per switch: pod component (leaves and spines), -1 for super-spines
    private final int components;

    private ClosLayout(boolean threeTier, int[] component, int components) {
        this.threeTier = threeTier;
        this.component = component;
        this.components = components;
    }

    static ClosLayout of(FabricSnapshot fabric) {
        int s = fabric.switchCount();
        boolean threeTier = false;
        int[] parent = new int[s];
        for (int i = 0; i < s; i++) {
            parent[i] = i;
            threeTier |= fabric.role(i) == Role.SUPER_SPINE;
        }
        for (int u = 0; u < s; u++) {
            if (fabric.role(u) != Role.LEAF) {
                continue;
            }
            for (int e = fabric.linkStart(u); e < fabric.linkStart(u + 1); e++) {
                int v = fabric.linkTo(e);
                if (fabric.role(v) == Role.SPINE) {
                    parent[find(parent, u)] = find(parent, v);
                }
            }
        }
        int[] component = new int[s];
        Arrays.fill(component, -1);
        int[] id = new int[s];
        Arrays.fill(id, -1);
        int n = 0;
        for (int i = 0; i < s; i++) {
            if (fabric.role(i) == Role.SUPER_SPINE) {
                continue;
            }
            int r = find(parent, i);
            if (id[r] < 0) {
                id[r] = n++;
            }
            component[i] = id[r];
        }
        return new ClosLayout(threeTier, component, n);
    }

    private static int find(int[] parent, int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    boolean threeTier() {
        return threeTier;
    }

    /**
     * @param sw switch index
     * @return its pod component, or -1 for a super-spine
     */
    int component(int sw) {
        return component[sw];
    }

    int components() {
        return components;
    }

    /**
     * The tight geometry of a snapshot: its pods, the most leaves in a pod and the most hosts on a leaf.
     *
     * @param fabric the snapshot
     * @return the geometry
     */
    static FabricGeometry geometryOf(FabricSnapshot fabric) {
        ClosLayout layout = of(fabric);
        int[] leavesPer = new int[Math.max(1, layout.components)];
        int leaves = 0;
        int slots = 1;
        for (int sw = 0; sw < fabric.switchCount(); sw++) {
            if (fabric.role(sw) == Role.LEAF) {
                leaves++;
                leavesPer[layout.component(sw)]++;
                slots = Math.max(slots, fabric.hostStart(sw + 1) - fabric.hostStart(sw));
            }
        }
        if (!layout.threeTier) {
            return FabricGeometry.leafSpine(leaves, slots);
        }
        int pods = 0;
        int maxLeaves = 1;
        for (int c : leavesPer) {
            if (c > 0) {
                pods++;
                maxLeaves = Math.max(maxLeaves, c);
            }
        }
        return new FabricGeometry(true, Math.max(1, pods), maxLeaves, slots);
    }
}
