package org.mcast4ai.bench;

import org.mcast4ai.engine.FabricSnapshot;

import java.util.SplittableRandom;

/**
 * The baselines the engine is compared with, computed over the same snapshot:
 * <ul>
 *   <li>unicast: one shortest path per receiver, the equal-cost choice hashed per receiver;</li>
 *   <li>Trellis: trellis-control's {@code McastHandler.getPath}, re-implemented: for each egress leaf in
 *       turn, all shortest paths from the source leaf are scored by how many of their hops already carry the
 *       group (a next objective on the hop's device containing the hop's port), and one of the best is
 *       picked at random (any path at random when none shares a hop); every switch on the result holds a
 *       next objective (group) and a forwarding objective (flow) for the group;</li>
 *   <li>flat BIER (RFC 8279/8296): BFR-ids in host order, one packet per set identifier touched, a 12-byte
 *       BIER header plus the bitstring, replicated along the shortest-path tree of each set.</li>
 * </ul>
 * Like the engine, which works on the snapshot's precomputed indices, the baselines get their topology state
 * once: the shortest-path distances from a source switch (what a router's FIB or a BFR's BIFT holds) are
 * computed on first use and kept, and the per-call scratch marks are reused, so a call costs the group's own
 * work, not a breadth-first search and a clear of every link.
 */
final class Baselines {
    /** BIER header bytes before the bitstring (RFC 8296). */
    static final int BIER_FIXED_BYTES = 12;

    private final FabricSnapshot f;
    private final int[] reverse;   // directed link u->v to v->u
    private final int[][] distFrom;
    // a link (switch) is marked in the current call when its mark equals the call's stamp
    private final int[] linkMark;
    private final int[] switchMark;
    private final int[] egressMark;
    private int stamp;

    /** @param fabric the snapshot; the reverse-link index is topology state, built once */
    Baselines(FabricSnapshot fabric) {
        this.f = fabric;
        distFrom = new int[fabric.switchCount()][];
        linkMark = new int[fabric.linkCount()];
        switchMark = new int[fabric.switchCount()];
        egressMark = new int[fabric.switchCount()];
        reverse = new int[fabric.linkCount()];
        for (int u = 0; u < fabric.switchCount(); u++) {
            for (int e = fabric.linkStart(u); e < fabric.linkStart(u + 1); e++) {
                reverse[e] = fabric.findLink(fabric.linkTo(e), u);
            }
        }
    }

    /** What a baseline needs for one group. */
    static final class Result {
        int linksUsed;       // distinct directed switch-to-switch links
        long linkCopies;     // copies over switch-to-switch links
        int stateSwitches;   // switches holding per-group state
        int sets;            // packets the source sends (BIER)
        int headerBytes;     // per packet (BIER)
    }

    /**
     * @param root the source switch
     * @return hops from {@code root} to every switch, -1 if unreachable (computed once per root)
     */
    int[] dist(int root) {
        int[] d = distFrom[root];
        if (d == null) {
            d = bfs(root);
            distFrom[root] = d;
        }
        return d;
    }

    // a fresh stamp for the marks; n consecutive values are reserved (BIER: one per set)
    private int stamps(int n) {
        if (stamp > Integer.MAX_VALUE - n - 1) {
            java.util.Arrays.fill(linkMark, 0);
            java.util.Arrays.fill(switchMark, 0);
            java.util.Arrays.fill(egressMark, 0);
            stamp = 0;
        }
        int first = stamp + 1;
        stamp += n;
        return first;
    }

    int[] bfs(int root) {
        int s = f.switchCount();
        int[] dist = new int[s];
        java.util.Arrays.fill(dist, -1);
        int[] queue = new int[s];
        int head = 0;
        int tail = 0;
        dist[root] = 0;
        queue[tail++] = root;
        while (head < tail) {
            int u = queue[head++];
            for (int e = f.linkStart(u); e < f.linkStart(u + 1); e++) {
                int v = f.linkTo(e);
                if (dist[v] < 0) {
                    dist[v] = dist[u] + 1;
                    queue[tail++] = v;
                }
            }
        }
        return dist;
    }

    Result unicast(int source, int[] receivers) {
        int root = f.hostSwitch(source);
        int[] dist = dist(root);
        int mark = stamps(1);
        Result r = new Result();
        for (int rcv : receivers) {
            int v = f.hostSwitch(rcv);
            long hash = mix(rcv);
            while (v != root && dist[v] > 0) {
                int candidates = 0;
                for (int e = f.linkStart(v); e < f.linkStart(v + 1); e++) {
                    candidates += dist[f.linkTo(e)] == dist[v] - 1 ? 1 : 0;
                }
                int pick = (int) Math.floorMod(hash, (long) candidates);
                hash = mix(hash);
                for (int e = f.linkStart(v); e < f.linkStart(v + 1); e++) {
                    if (dist[f.linkTo(e)] == dist[v] - 1 && pick-- == 0) {
                        int l = reverse[e];
                        r.linkCopies++;
                        if (linkMark[l] != mark) {
                            linkMark[l] = mark;
                            r.linksUsed++;
                        }
                        v = f.linkTo(e);
                        break;
                    }
                }
            }
        }
        return r;
    }

    Result trellis(int source, int[] receivers, long seed) {
        int root = f.hostSwitch(source);
        int[] dist = dist(root);
        int mark = stamps(1);
        PathSearch search = new PathSearch(dist, mark, root, new SplittableRandom(seed));
        Result r = new Result();
        state(root, mark, r);
        for (int rcv : receivers) {
            int leaf = f.hostSwitch(rcv);
            state(leaf, mark, r);
            if (leaf == root || egressMark[leaf] == mark || dist[leaf] < 0) {
                continue;
            }
            egressMark[leaf] = mark;
            search.best = -1;
            search.ties = 0;
            search.walk(leaf, 0, 0);
            for (int i = 0; i < search.bestLength; i++) {
                int l = search.bestPath[i];
                if (linkMark[l] != mark) {
                    linkMark[l] = mark;
                    r.linksUsed++;
                    state(f.linkTo(l), mark, r);
                }
            }
        }
        r.linkCopies = r.linksUsed;
        return r;
    }

    // a switch that holds the group's next and forwarding objectives
    private void state(int sw, int mark, Result r) {
        if (switchMark[sw] != mark) {
            switchMark[sw] = mark;
            r.stateSwitches++;
        }
    }

    /** Depth-first enumeration of every shortest path, walking back from the egress leaf to the source. */
    private final class PathSearch {
        private final int[] dist;
        private final int mark;
        private final int root;
        private final SplittableRandom rnd;
        private final int[] path = new int[64];
        private final int[] bestPath = new int[64];
        private int bestLength;
        private int best;
        private int ties;

        PathSearch(int[] dist, int mark, int root, SplittableRandom rnd) {
            this.dist = dist;
            this.mark = mark;
            this.root = root;
            this.rnd = rnd;
        }

        void walk(int v, int depth, int score) {
            if (v == root) {
                if (score > best) {
                    best = score;
                    ties = 1;
                    keep(depth);
                } else if (score == best && rnd.nextInt(++ties) == 0) {
                    keep(depth);
                }
                return;
            }
            for (int e = f.linkStart(v); e < f.linkStart(v + 1); e++) {
                int u = f.linkTo(e);
                if (dist[u] == dist[v] - 1) {
                    int l = reverse[e];
                    path[depth] = l;
                    walk(u, depth + 1, score + (linkMark[l] == mark ? 1 : 0));
                }
            }
        }

        private void keep(int depth) {
            System.arraycopy(path, 0, bestPath, 0, depth);
            bestLength = depth;
        }
    }

    Result bier(int source, int[] receivers, int bsl) {
        int root = f.hostSwitch(source);
        int[] dist = dist(root);
        int sets = (f.hostCount() + bsl - 1) / bsl;
        Result r = new Result();
        r.headerBytes = BIER_FIXED_BYTES + bsl / 8;
        // one packet per set: its receivers are taken together (a counting sort by set), so that one mark per
        // set is enough for the links its packet crosses
        if (setStart.length < sets + 1) {
            setStart = new int[sets + 1];
        }
        java.util.Arrays.fill(setStart, 0, sets + 1, 0);
        for (int rcv : receivers) {
            setStart[rcv / bsl + 1]++;
        }
        for (int si = 0; si < sets; si++) {
            setStart[si + 1] += setStart[si];
        }
        if (bySet.length < receivers.length) {
            bySet = new int[receivers.length];
        }
        for (int rcv : receivers) {
            bySet[setStart[rcv / bsl]++] = rcv;
        }
        // setStart[si] is now where set si + 1 begins
        int from = 0;
        for (int si = 0; si < sets; si++) {
            int to = setStart[si];
            if (to == from) {
                continue;
            }
            r.sets++;
            int mark = stamps(1);
            for (int i = from; i < to; i++) {
                // F-BM replication along the shortest-path tree: the same equal-cost choice for every bit
                int v = f.hostSwitch(bySet[i]);
                while (v != root && dist[v] > 0) {
                    for (int e = f.linkStart(v); e < f.linkStart(v + 1); e++) {
                        if (dist[f.linkTo(e)] == dist[v] - 1) {
                            int l = reverse[e];
                            if (linkMark[l] != mark) {
                                linkMark[l] = mark;
                                r.linkCopies++;
                            }
                            v = f.linkTo(e);
                            break;
                        }
                    }
                }
            }
            from = to;
        }
        return r;
    }

    private int[] setStart = new int[0];
    private int[] bySet = new int[0];

    private static long mix(long x) {
        x += 0x9E3779B97F4A7C15L;
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }
}
