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
 */
final class Baselines {
    /** BIER header bytes before the bitstring (RFC 8296). */
    static final int BIER_FIXED_BYTES = 12;

    private final FabricSnapshot f;
    private final int[] reverse;   // directed link u->v to v->u

    /** @param fabric the snapshot; the reverse-link index is topology state, built once */
    Baselines(FabricSnapshot fabric) {
        this.f = fabric;
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
        int[] dist = bfs(root);
        boolean[] used = new boolean[f.linkCount()];
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
                        if (!used[l]) {
                            used[l] = true;
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
        int[] dist = bfs(root);
        boolean[] inTree = new boolean[f.linkCount()];
        boolean[] egressDone = new boolean[f.switchCount()];
        boolean[] stateAt = new boolean[f.switchCount()];
        PathSearch search = new PathSearch(dist, inTree, root, new SplittableRandom(seed));
        Result r = new Result();
        stateAt[root] = true;
        for (int rcv : receivers) {
            int leaf = f.hostSwitch(rcv);
            stateAt[leaf] = true;
            if (leaf == root || egressDone[leaf] || dist[leaf] < 0) {
                continue;
            }
            egressDone[leaf] = true;
            search.best = -1;
            search.ties = 0;
            search.walk(leaf, 0, 0);
            for (int i = 0; i < search.bestLength; i++) {
                int l = search.bestPath[i];
                if (!inTree[l]) {
                    inTree[l] = true;
                    r.linksUsed++;
                    stateAt[f.linkTo(l)] = true;
                }
            }
        }
        r.linkCopies = r.linksUsed;
        for (boolean b : stateAt) {
            r.stateSwitches += b ? 1 : 0;
        }
        return r;
    }

    /** Depth-first enumeration of every shortest path, walking back from the egress leaf to the source. */
    private final class PathSearch {
        private final int[] dist;
        private final boolean[] inTree;
        private final int root;
        private final SplittableRandom rnd;
        private final int[] path = new int[64];
        private final int[] bestPath = new int[64];
        private int bestLength;
        private int best;
        private int ties;

        PathSearch(int[] dist, boolean[] inTree, int root, SplittableRandom rnd) {
            this.dist = dist;
            this.inTree = inTree;
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
                    walk(u, depth + 1, score + (inTree[l] ? 1 : 0));
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
        int[] dist = bfs(root);
        int sets = (f.hostCount() + bsl - 1) / bsl;
        boolean[][] used = new boolean[sets][];
        Result r = new Result();
        r.headerBytes = BIER_FIXED_BYTES + bsl / 8;
        for (int rcv : receivers) {
            int si = rcv / bsl;
            if (used[si] == null) {
                used[si] = new boolean[f.linkCount()];
                r.sets++;
            }
            // F-BM replication along the shortest-path tree: the same equal-cost choice for every bit
            int v = f.hostSwitch(rcv);
            while (v != root && dist[v] > 0) {
                for (int e = f.linkStart(v); e < f.linkStart(v + 1); e++) {
                    if (dist[f.linkTo(e)] == dist[v] - 1) {
                        int l = reverse[e];
                        if (!used[si][l]) {
                            used[si][l] = true;
                            r.linkCopies++;
                        }
                        v = f.linkTo(e);
                        break;
                    }
                }
            }
        }
        return r;
    }

    private static long mix(long x) {
        x += 0x9E3779B97F4A7C15L;
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }
}
