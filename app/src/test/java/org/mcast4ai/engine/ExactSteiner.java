package org.mcast4ai.engine;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The exact minimum Steiner tree (in links) by the Dreyfus-Wagner dynamic program, over the undirected
 * switch graph. Exponential in the number of terminals: for small test fabrics only.
 */
final class ExactSteiner {
    private ExactSteiner() {
    }

    /**
     * @param f         the snapshot (links treated as undirected)
     * @param terminals distinct switch indices, all connected
     * @return the fewest links of a tree spanning all terminals
     */
    static int minLinks(FabricSnapshot f, int[] terminals) {
        int n = f.switchCount();
        int k = terminals.length;
        if (k <= 1) {
            return 0;
        }
        int[][] d = new int[n][];
        for (int s = 0; s < n; s++) {
            d[s] = bfs(f, s);
        }
        int inf = Integer.MAX_VALUE / 4;
        int full = (1 << k) - 1;
        int[][] dp = new int[full + 1][n];
        for (int[] row : dp) {
            Arrays.fill(row, inf);
        }
        for (int i = 0; i < k; i++) {
            for (int v = 0; v < n; v++) {
                dp[1 << i][v] = d[terminals[i]][v];
            }
        }
        for (int mask = 1; mask <= full; mask++) {
            if (Integer.bitCount(mask) < 2) {
                continue;
            }
            int[] row = dp[mask];
            for (int sub = (mask - 1) & mask; sub > 0; sub = (sub - 1) & mask) {
                if ((sub & Integer.lowestOneBit(mask)) == 0) {
                    continue; // each split once
                }
                int[] a = dp[sub];
                int[] b = dp[mask ^ sub];
                for (int v = 0; v < n; v++) {
                    row[v] = Math.min(row[v], a[v] + b[v]);
                }
            }
            int[] relaxed = row.clone();
            for (int v = 0; v < n; v++) {
                for (int u = 0; u < n; u++) {
                    relaxed[v] = Math.min(relaxed[v], row[u] + d[u][v]);
                }
            }
            dp[mask] = relaxed;
        }
        return dp[full][terminals[0]];
    }

    private static int[] bfs(FabricSnapshot f, int s) {
        int[] dist = new int[f.switchCount()];
        Arrays.fill(dist, Integer.MAX_VALUE / 4);
        dist[s] = 0;
        ArrayDeque<Integer> q = new ArrayDeque<>();
        q.add(s);
        while (!q.isEmpty()) {
            int u = q.poll();
            for (int e = f.linkStart(u); e < f.linkStart(u + 1); e++) {
                int v = f.linkTo(e);
                if (dist[v] > dist[u] + 1) {
                    dist[v] = dist[u] + 1;
                    q.add(v);
                }
            }
        }
        return dist;
    }
}
