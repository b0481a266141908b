package org.mcast4ai.engine;

/**
 * The shortest-path Steiner heuristic of Takahashi and Matsuyama: repeatedly attach the target switch
 * nearest to the current tree (in links) by a shortest path. On undirected graphs the tree has at most
 * 2(1 - 1/l) times the optimal number of links (l = leaves of the optimal tree). It grows whatever tree it
 * is given, so it also finishes trees that the Clos builder could not complete after failures.
 *
 * <p>Distances to the tree are kept up to date incrementally: one breadth-first search at the start, then
 * after each attachment a search from the new tree switches that only visits switches that got closer.
 * Targets wait in buckets by distance.
 */
final class SteinerGrower {
    private SteinerGrower() {
    }

    /**
     * Attaches every reachable target not yet on the tree.
     *
     * @param f the snapshot
     * @param w the workspace holding the tree and the targets
     */
    static void grow(FabricSnapshot f, Workspace w) {
        TreeAssembly tree = w.tree;
        boolean pending = false;
        for (int i = 0; i < w.targetCount && !pending; i++) {
            pending = !tree.contains(w.targetList[i]);
        }
        if (!pending) {
            return;
        }
        int s = f.switchCount();
        Marks dist = w.visit;
        dist.reset(s);
        w.bucketHead.reset(s + 1);
        w.entries = 0;
        int tail = 0;
        for (int i = 0; i < tree.size(); i++) {
            int sw = tree.switchAt(i);
            dist.set(sw, 0);
            w.queue[tail++] = sw;
        }
        int min = relax(f, w, tail, s);
        while (true) {
            int t = -1;
            for (; min <= s && t < 0; min++) {
                t = popValid(w, min);
                if (t >= 0) {
                    break;
                }
            }
            if (t < 0) {
                return; // the rest is unreachable
            }
            int added = attach(f, w, t);
            min = Math.min(min, relax(f, w, added, s));
        }
    }

    /**
     * Breadth-first search from the first {@code n} switches of the queue (all at their final distance),
     * lowering distances and queuing improved targets.
     *
     * @return the smallest distance of a target queued, or more than the switch count if none
     */
    private static int relax(FabricSnapshot f, Workspace w, int n, int s) {
        Marks dist = w.visit;
        int[] queue = w.queue;
        int head = 0;
        int tail = n;
        int min = s + 1;
        while (head < tail) {
            int u = queue[head++];
            int du = dist.get(u) + 1;
            for (int e = f.linkStart(u); e < f.linkStart(u + 1); e++) {
                int v = f.linkTo(e);
                if (dist.has(v) && dist.get(v) <= du) {
                    continue;
                }
                dist.set(v, du);
                w.parentLink[v] = e;
                w.parentSwitch[v] = u;
                queue[tail++] = v;
                if (w.targets.has(v) && !w.tree.contains(v)) {
                    push(w, v, du);
                    min = Math.min(min, du);
                }
            }
        }
        return min;
    }

    /**
     * Adds the path from the tree to {@code t}, tree side first, and queues its new switches.
     *
     * @return the number of switches added (placed at the start of the queue)
     */
    private static int attach(FabricSnapshot f, Workspace w, int t) {
        int n = 0;
        int x = t;
        while (!w.tree.contains(x)) {
            w.path[n++] = x;
            x = w.parentSwitch[x];
        }
        for (int i = n - 1; i >= 0; i--) {
            int v = w.path[i];
            w.tree.add(v, w.parentSwitch[v], w.parentLink[v]);
            w.visit.set(v, 0);
            w.queue[n - 1 - i] = v;
        }
        return n;
    }

    private static void push(Workspace w, int target, int d) {
        if (w.entries == w.entryTarget.length) {
            w.growEntries();
        }
        int e = w.entries++;
        w.entryTarget[e] = target;
        w.entryNext[e] = w.bucketHead.has(d) ? w.bucketHead.get(d) : -1;
        w.bucketHead.set(d, e);
    }

    /** Pops targets of bucket d until one is still at distance d and off the tree; -1 if none. */
    private static int popValid(Workspace w, int d) {
        while (w.bucketHead.has(d)) {
            int e = w.bucketHead.get(d);
            if (w.entryNext[e] < 0) {
                w.bucketHead.clear(d);
            } else {
                w.bucketHead.set(d, w.entryNext[e]);
            }
            int t = w.entryTarget[e];
            if (!w.tree.contains(t) && w.visit.get(t) == d) {
                return t;
            }
        }
        return -1;
    }
}
