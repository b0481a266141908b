package org.mcast4ai.engine;

import java.lang.ref.WeakReference;
import java.util.Arrays;

/**
 * What the tree computer needs to know about a snapshot's Clos structure, computed once per snapshot:
 * whether the roles are Clos-consistent (hosts only on leaves; links only leaf-spine and
 * spine-super-spine) and the pods (groups of leaves and spines connected by leaf-spine links).
 */
final class ClosIndex {
    private static volatile ClosIndex last;

    private final WeakReference<FabricSnapshot> snapshot;
    private final boolean clos;
    private final int[] pod;
    private final int podCount;
    private final boolean[] hasSpineParent;

    private ClosIndex(FabricSnapshot f) {
        snapshot = new WeakReference<>(f);
        int s = f.switchCount();
        boolean ok = true;
        for (int h = 0; h < f.hostCount() && ok; h++) {
            ok = f.role(f.hostSwitch(h)) == Role.LEAF;
        }
        int[] parent = new int[s];
        for (int i = 0; i < s; i++) {
            parent[i] = i;
        }
        hasSpineParent = new boolean[s];
        for (int u = 0; u < s && ok; u++) {
            Role ru = f.role(u);
            for (int e = f.linkStart(u); e < f.linkStart(u + 1); e++) {
                int v = f.linkTo(e);
                Role rv = f.role(v);
                boolean leafSpine = ru == Role.LEAF && rv == Role.SPINE || ru == Role.SPINE && rv == Role.LEAF;
                boolean spineSuper = ru == Role.SPINE && rv == Role.SUPER_SPINE
                        || ru == Role.SUPER_SPINE && rv == Role.SPINE;
                if (!leafSpine && !spineSuper) {
                    ok = false;
                    break;
                }
                if (leafSpine) {
                    union(parent, u, v);
                    if (rv == Role.LEAF) {
                        hasSpineParent[v] = true;
                    }
                }
            }
        }
        clos = ok;
        pod = new int[s];
        Arrays.fill(pod, -1);
        int[] podOfRoot = new int[s];
        Arrays.fill(podOfRoot, -1);
        int n = 0;
        for (int i = 0; i < s; i++) {
            if (f.role(i) != Role.SUPER_SPINE) {
                int r = find(parent, i);
                if (podOfRoot[r] < 0) {
                    podOfRoot[r] = n++;
                }
                pod[i] = podOfRoot[r];
            }
        }
        podCount = n;
    }

    private static int find(int[] parent, int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    private static void union(int[] parent, int a, int b) {
        int ra = find(parent, a);
        int rb = find(parent, b);
        if (ra != rb) {
            parent[Math.max(ra, rb)] = Math.min(ra, rb);
        }
    }

    /**
     * Returns the index of a snapshot, reusing the last one computed when it is for the same snapshot.
     *
     * @param f the snapshot
     * @return its index
     */
    static ClosIndex of(FabricSnapshot f) {
        ClosIndex c = last;
        if (c != null && c.snapshot.get() == f) {
            return c;
        }
        c = new ClosIndex(f);
        last = c;
        return c;
    }

    /** @return true if roles and links form a leaf-spine or multi-tier Clos */
    boolean isClos() {
        return clos;
    }

    /**
     * @param sw a leaf or spine
     * @return its pod, -1 for super-spines
     */
    int pod(int sw) {
        return pod[sw];
    }

    /** @return number of pods */
    int podCount() {
        return podCount;
    }

    /**
     * @param leaf a leaf
     * @return true if some spine has a link down to it
     */
    boolean hasSpineParent(int leaf) {
        return hasSpineParent[leaf];
    }
}
