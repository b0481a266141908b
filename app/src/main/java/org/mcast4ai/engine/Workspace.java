package org.mcast4ai.engine;

/**
 * Per-thread scratch state for tree computation, sized to the largest snapshot seen and reused, so that
 * computing a tree allocates little beyond its result.
 */
final class Workspace {
    /** The tree being built. */
    final TreeAssembly tree = new TreeAssembly();
    /** Switch to 1 when it holds a receiver and is not the root. */
    final Marks targets = new Marks();
    /** BFS: switch to the link it was reached by. */
    final Marks visit = new Marks();
    /** Leaf to the link that reaches it from the spine under evaluation. */
    final Marks down = new Marks();
    /** Pod to its slot (slot 0 is the source pod). */
    final Marks slotOfPod = new Marks();

    /** Receiver switches other than the root, distinct, in receiver order. */
    int[] targetList = new int[0];
    int targetCount;
    /** BFS queue. */
    int[] queue = new int[0];
    /** Candidate links (root up-links). */
    int[] candidates = new int[0];
    /** A path being attached, as switches. */
    int[] path = new int[0];
    /** Steiner search: per switch, the link and switch it is reached from (valid where visit is marked). */
    int[] parentLink = new int[0];
    int[] parentSwitch = new int[0];
    /** Steiner search: buckets of targets by distance, as linked lists of entries. */
    final Marks bucketHead = new Marks();
    int[] entryTarget = new int[64];
    int[] entryNext = new int[64];
    int entries;
    /** Per slot: number of receiver leaves, their start in slotLeaves, best link and count for a core. */
    int[] slotCount = new int[0];
    int[] slotStart = new int[0];
    int[] slotFill = new int[0];
    int[] slotBestLink = new int[0];
    int[] slotBestCount = new int[0];
    int[] slotChosenLink = new int[0];
    int[] slotLeaves = new int[0];

    /**
     * Prepares for a computation on {@code fabric} rooted at {@code root}.
     *
     * @param fabric the snapshot
     * @param root   the source leaf
     * @param pods   number of pods of the snapshot
     */
    void reset(FabricSnapshot fabric, int root, int pods) {
        int s = fabric.switchCount();
        tree.reset(fabric, root);
        targets.reset(s);
        if (targetList.length < s) {
            targetList = new int[s];
            queue = new int[s];
            candidates = new int[s];
            path = new int[s];
            parentLink = new int[s];
            parentSwitch = new int[s];
            slotLeaves = new int[s];
        }
        if (slotCount.length < pods + 1) {
            int n = pods + 1;
            slotCount = new int[n];
            slotStart = new int[n];
            slotFill = new int[n];
            slotBestLink = new int[n];
            slotBestCount = new int[n];
            slotChosenLink = new int[n];
        }
        targetCount = 0;
    }

    void growEntries() {
        entryTarget = java.util.Arrays.copyOf(entryTarget, entryTarget.length * 2);
        entryNext = java.util.Arrays.copyOf(entryNext, entryNext.length * 2);
    }

    /**
     * Records the switches of the receivers as targets.
     *
     * @param fabric    the snapshot
     * @param receivers receiver hosts
     */
    void collectTargets(FabricSnapshot fabric, int[] receivers) {
        for (int r : receivers) {
            int sw = fabric.hostSwitch(r);
            if (!tree.contains(sw) && !targets.has(sw)) {
                targets.set(sw, 1);
                targetList[targetCount++] = sw;
            }
        }
    }
}
