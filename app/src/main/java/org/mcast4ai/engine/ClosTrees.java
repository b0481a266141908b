package org.mcast4ai.engine;

/**
 * Minimum trees on leaf-spine and fat-tree (3-tier Clos) fabrics. A tree goes up only as far as it must:
 * receivers on the source leaf need no link, receivers in the source's pod one spine, receivers in other
 * pods one spine of the source pod, one super-spine and one spine per receiving pod. On an intact Clos that
 * is the minimum number of links: every receiver leaf, every receiving pod and each layer crossed needs at
 * least one link of its own.
 *
 * <p>Among equal-cost choices, the group's spread key picks where to start, so groups from one leaf use
 * different spines and super-spines. When a failed link keeps the preferred choice from covering every
 * receiver leaf, the next candidates are tried; if none covers all, the best one is kept and the
 * {@link SteinerGrower} attaches the rest by a second branch.
 */
final class ClosTrees {
    /**
     * Bound on the (spine, super-spine) pairs evaluated for one tree; only reached after failures. When
     * scattered link failures leave no pair covering every receiver leaf, searching further rarely pays:
     * the Steiner pass reaches a missed leaf in two links (via another spine of its pod).
     */
    static final int MAX_EVALUATIONS = 32;

    private ClosTrees() {
    }

    /**
     * Grows the tree in the workspace (holding only the source leaf) over the Clos layers.
     *
     * @param f         the snapshot (Clos-consistent)
     * @param idx       its index
     * @param w         the workspace with the root and the targets
     * @param spreadKey the group's spread key
     */
    static void build(FabricSnapshot f, ClosIndex idx, Workspace w, long spreadKey) {
        if (w.targetCount == 0) {
            return;
        }
        int root = w.tree.switchAt(0);
        int slots = partition(idx, w, root);
        int total = 0;
        for (int i = 0; i < slots; i++) {
            total += w.slotCount[i];
        }
        int m = 0;
        for (int e = f.linkStart(root); e < f.linkStart(root + 1); e++) {
            if (f.role(f.linkTo(e)) == Role.SPINE) {
                w.candidates[m++] = e;
            }
        }
        if (total == 0 || m == 0) {
            return;
        }
        long h = mix(spreadKey);
        int start = (int) Long.remainderUnsigned(h, m);
        int coreRot = (int) ((h >>> 20) & 0x3fffffff);
        int spineRot = (int) ((h >>> 40) & 0xffffff);
        boolean remote = slots > 1;

        int bestUp = -1;
        int bestCore = -1;
        int bestCount = 0;
        int evaluations = 0;
        search:
        for (int round = 0; ; round++) {
            boolean more = false;
            for (int i = 0; i < m; i++) {
                int up = w.candidates[(start + i) % m];
                int s = f.linkTo(up);
                int coreLink = -1;
                if (remote) {
                    int nc = countUp(f, s);
                    if (round < nc) {
                        coreLink = nthUp(f, s, (coreRot + round) % nc);
                        more |= round + 1 < nc;
                    } else if (round > 0) {
                        continue;
                    }
                }
                int count = countBelow(f, w, s, 0);
                if (coreLink >= 0) {
                    count += coverRemote(f, idx, w, f.linkTo(coreLink), slots, spineRot);
                }
                if (count > bestCount) {
                    bestCount = count;
                    bestUp = up;
                    bestCore = coreLink;
                    if (coreLink >= 0) {
                        System.arraycopy(w.slotBestLink, 1, w.slotChosenLink, 1, slots - 1);
                    }
                }
                if (count == total || ++evaluations >= MAX_EVALUATIONS) {
                    break search;
                }
            }
            if (!more) {
                break;
            }
        }
        if (bestCount > 0) {
            addBest(f, w, root, bestUp, bestCore, slots);
        }
    }

    /** Adds the chosen spine, its leaves, and if it covers anything the super-spine and remote pods. */
    private static void addBest(FabricSnapshot f, Workspace w, int root, int up, int coreLink, int slots) {
        int s = f.linkTo(up);
        w.tree.add(s, root, up);
        addBelow(f, w, s, 0);
        boolean remote = false;
        for (int slot = 1; slot < slots && coreLink >= 0; slot++) {
            remote |= w.slotChosenLink[slot] >= 0;
        }
        if (!remote) {
            return;
        }
        int c = f.linkTo(coreLink);
        w.tree.add(c, s, coreLink);
        for (int slot = 1; slot < slots; slot++) {
            int link = w.slotChosenLink[slot];
            if (link >= 0) {
                int x = f.linkTo(link);
                w.tree.add(x, c, link);
                addBelow(f, w, x, slot);
            }
        }
    }

    /**
     * Groups the target leaves by pod: slot 0 is the source pod, slots 1.. the other pods with targets.
     * Leaves that no spine links down to are left out (the Steiner pass will try them).
     *
     * @return the number of slots
     */
    private static int partition(ClosIndex idx, Workspace w, int root) {
        w.slotOfPod.reset(idx.podCount());
        w.slotOfPod.set(idx.pod(root), 0);
        w.slotCount[0] = 0;
        int slots = 1;
        for (int i = 0; i < w.targetCount; i++) {
            int t = w.targetList[i];
            if (!idx.hasSpineParent(t)) {
                continue;
            }
            int p = idx.pod(t);
            int slot;
            if (w.slotOfPod.has(p)) {
                slot = w.slotOfPod.get(p);
            } else {
                slot = slots++;
                w.slotOfPod.set(p, slot);
                w.slotCount[slot] = 0;
            }
            w.slotCount[slot]++;
        }
        int sum = 0;
        for (int i = 0; i < slots; i++) {
            w.slotStart[i] = sum;
            w.slotFill[i] = sum;
            sum += w.slotCount[i];
        }
        for (int i = 0; i < w.targetCount; i++) {
            int t = w.targetList[i];
            if (idx.hasSpineParent(t)) {
                int slot = w.slotOfPod.get(idx.pod(t));
                w.slotLeaves[w.slotFill[slot]++] = t;
            }
        }
        return slots;
    }

    /**
     * For each remote slot, picks the child spine of super-spine {@code c} that reaches most of the slot's
     * leaves (recorded in slotBestLink / slotBestCount).
     *
     * @return the number of remote leaves covered through {@code c}
     */
    private static int coverRemote(FabricSnapshot f, ClosIndex idx, Workspace w, int c, int slots, int rot) {
        for (int slot = 1; slot < slots; slot++) {
            w.slotBestLink[slot] = -1;
            w.slotBestCount[slot] = 0;
        }
        int first = f.linkStart(c);
        int deg = f.linkStart(c + 1) - first;
        int off = deg == 0 ? 0 : rot % deg;
        for (int j = 0; j < deg; j++) {
            int e = first + (off + j) % deg;
            int p = idx.pod(f.linkTo(e));
            if (p < 0 || !w.slotOfPod.has(p)) {
                continue;
            }
            int slot = w.slotOfPod.get(p);
            if (slot == 0 || w.slotBestCount[slot] == w.slotCount[slot]) {
                continue;
            }
            int n = countBelow(f, w, f.linkTo(e), slot);
            if (n > w.slotBestCount[slot]) {
                w.slotBestCount[slot] = n;
                w.slotBestLink[slot] = e;
            }
        }
        int covered = 0;
        for (int slot = 1; slot < slots; slot++) {
            covered += w.slotBestCount[slot];
        }
        return covered;
    }

    /** Marks the leaves spine {@code x} links down to and counts those of the slot. */
    private static int countBelow(FabricSnapshot f, Workspace w, int x, int slot) {
        markBelow(f, w, x);
        int n = 0;
        int end = w.slotStart[slot] + w.slotCount[slot];
        for (int i = w.slotStart[slot]; i < end; i++) {
            if (w.down.has(w.slotLeaves[i])) {
                n++;
            }
        }
        return n;
    }

    private static void addBelow(FabricSnapshot f, Workspace w, int x, int slot) {
        markBelow(f, w, x);
        int end = w.slotStart[slot] + w.slotCount[slot];
        for (int i = w.slotStart[slot]; i < end; i++) {
            int leaf = w.slotLeaves[i];
            if (w.down.has(leaf) && !w.tree.contains(leaf)) {
                w.tree.add(leaf, x, w.down.get(leaf));
            }
        }
    }

    private static void markBelow(FabricSnapshot f, Workspace w, int x) {
        w.down.reset(f.switchCount());
        for (int e = f.linkStart(x); e < f.linkStart(x + 1); e++) {
            int v = f.linkTo(e);
            if (!w.down.has(v)) {
                w.down.set(v, e);
            }
        }
    }

    private static int countUp(FabricSnapshot f, int s) {
        int n = 0;
        for (int e = f.linkStart(s); e < f.linkStart(s + 1); e++) {
            if (f.role(f.linkTo(e)) == Role.SUPER_SPINE) {
                n++;
            }
        }
        return n;
    }

    private static int nthUp(FabricSnapshot f, int s, int nth) {
        int n = 0;
        for (int e = f.linkStart(s); e < f.linkStart(s + 1); e++) {
            if (f.role(f.linkTo(e)) == Role.SUPER_SPINE && n++ == nth) {
                return e;
            }
        }
        return -1;
    }

    // SplitMix64 finaliser: spreads nearby keys (group ids) over unrelated choices
    static long mix(long key) {
        long z = key + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
