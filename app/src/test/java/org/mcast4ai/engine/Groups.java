package org.mcast4ai.engine;

import java.util.Random;

/** Random groups for tests: a source host and distinct receivers other than the source. */
final class Groups {
    private Groups() {
    }

    /**
     * @param f      the snapshot (at least two hosts)
     * @param source the source host
     * @param count  wanted receivers (capped at the hosts available)
     * @param rnd    random source
     * @return distinct receivers, source excluded
     */
    static int[] receivers(FabricSnapshot f, int source, int count, Random rnd) {
        int h = f.hostCount();
        int[] perm = new int[h];
        for (int i = 0; i < h; i++) {
            perm[i] = i;
        }
        for (int i = h - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        int n = Math.min(count, h - 1);
        int[] out = new int[n];
        int k = 0;
        for (int i = 0; k < n; i++) {
            if (perm[i] != source) {
                out[k++] = perm[i];
            }
        }
        return out;
    }

    /**
     * @param f         the snapshot
     * @param source    source host
     * @param receivers receiver hosts
     * @return distinct switches of the source and the receivers, the source leaf first
     */
    static int[] terminals(FabricSnapshot f, int source, int[] receivers) {
        boolean[] seen = new boolean[f.switchCount()];
        int[] out = new int[receivers.length + 1];
        int n = 0;
        out[n++] = f.hostSwitch(source);
        seen[f.hostSwitch(source)] = true;
        for (int r : receivers) {
            int sw = f.hostSwitch(r);
            if (!seen[sw]) {
                seen[sw] = true;
                out[n++] = sw;
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }
}
