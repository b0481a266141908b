package org.mcast4ai.engine;

/**
 * The shortest-path Steiner heuristic of Takahashi and Matsuyama: repeatedly attach the target switch
 * nearest to the current tree (in links) by a shortest path. On undirected graphs the tree has at most
 * 2(1 - 1/l) times the optimal number of links (l = leaves of the optimal tree). It grows whatever tree it
 * is given, so it also finishes trees that the Clos builder could not complete after failures.
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
        int remaining = 0;
        for (int i = 0; i < w.targetCount; i++) {
            if (!tree.contains(w.targetList[i])) {
                remaining++;
            }
        }
        int[] queue = w.queue;
        Marks visit = w.visit;
        int s = f.switchCount();
        while (remaining > 0) {
            visit.reset(s);
            int head = 0;
            int tail = 0;
            for (int i = 0; i < tree.size(); i++) {
                int sw = tree.switchAt(i);
                visit.set(sw, -1);
                queue[tail++] = sw;
            }
            int found = -1;
            while (head < tail && found < 0) {
                int u = queue[head++];
                for (int e = f.linkStart(u); e < f.linkStart(u + 1); e++) {
                    int v = f.linkTo(e);
                    if (visit.has(v)) {
                        continue;
                    }
                    visit.set(v, e);
                    if (w.targets.has(v)) {
                        found = v;
                        break;
                    }
                    queue[tail++] = v;
                }
            }
            if (found < 0) {
                return; // the rest is unreachable
            }
            attach(f, w, found);
            remaining--;
        }
    }

    /** Adds the BFS path from the tree to {@code v}, tree side first. No node on it but v is a target. */
    private static void attach(FabricSnapshot f, Workspace w, int v) {
        int[] path = w.path;
        int n = 0;
        int x = v;
        while (!w.tree.contains(x)) {
            path[n++] = w.visit.get(x);
            x = fromOf(f, path[n - 1]);
        }
        for (int i = n - 1; i >= 0; i--) {
            int link = path[i];
            w.tree.add(f.linkTo(link), x, link);
            x = f.linkTo(link);
        }
    }

    // the switch a directed link leaves from: the one whose CSR range holds it
    static int fromOf(FabricSnapshot f, int link) {
        int lo = 0;
        int hi = f.switchCount() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (f.linkStart(mid) <= link) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
