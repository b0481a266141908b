package org.mcast4ai.engine.bitmap;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** Receiver sets for tests: random or packed into whole racks, and the optimum tree size on Clos fabrics. */
final class Groups {
    private Groups() {
    }

    static int[] random(FabricSnapshot f, int n, int source, Random rnd) {
        Set<Integer> picked = new HashSet<>();
        while (picked.size() < Math.min(n, f.hostCount() - 1)) {
            int h = rnd.nextInt(f.hostCount());
            if (h != source) {
                picked.add(h);
            }
        }
        return picked.stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    /**
     * n receivers in whole racks drawn at random over the fabric (a scheduler placing a job wherever racks are
     * free): random leaves other than the source's, every host of each, the last rack cut to make n.
     */
    static int[] randomRacks(FabricSnapshot f, int n, int source, Random rnd) {
        List<Integer> leaves = new ArrayList<>();
        for (int sw = 0; sw < f.switchCount(); sw++) {
            if (f.role(sw) == Role.LEAF && sw != f.hostSwitch(source)) {
                leaves.add(sw);
            }
        }
        Collections.shuffle(leaves, rnd);
        int[] out = new int[n];
        int k = 0;
        for (int i = 0; i < leaves.size() && k < n; i++) {
            int sw = leaves.get(i);
            for (int j = f.hostStart(sw); j < f.hostStart(sw + 1) && k < n; j++) {
                out[k++] = f.hostAt(j);
            }
        }
        int[] r = Arrays.copyOf(out, k);
        Arrays.sort(r);
        return r;
    }

    /** The first n hosts in leaf order, skipping the source's leaf: whole racks, then part of one. */
    static int[] rackPacked(FabricSnapshot f, int n, int source) {
        int[] out = new int[n];
        int k = 0;
        for (int sw = 0; sw < f.switchCount() && k < n; sw++) {
            if (f.role(sw) != Role.LEAF || sw == f.hostSwitch(source)) {
                continue;
            }
            for (int i = f.hostStart(sw); i < f.hostStart(sw + 1) && k < n; i++) {
                out[k++] = f.hostAt(i);
            }
        }
        return Arrays.copyOf(out, k);
    }

    /**
     * Fewest switch-to-switch links a tree from the source's leaf to the receivers' leaves needs on a fat tree
     * or leaf-spine: one link into every other receiver leaf, one into every other pod, one up from the
     * source leaf, and one spine to super-spine if another pod is reached.
     */
    static int optimumLinks(FabricSnapshot f, int source, int[] receivers) {
        ClosLayout layout = ClosLayout.of(f);
        int srcLeaf = f.hostSwitch(source);
        Set<Integer> leaves = new HashSet<>();
        Set<Integer> pods = new HashSet<>();
        for (int r : receivers) {
            int leaf = f.hostSwitch(r);
            if (leaf != srcLeaf) {
                leaves.add(leaf);
                if (layout.threeTier() && layout.component(leaf) != layout.component(srcLeaf)) {
                    pods.add(layout.component(leaf));
                }
            }
        }
        return leaves.size() + (leaves.isEmpty() ? 0 : 1) + (pods.isEmpty() ? 0 : 1 + pods.size());
    }
}
