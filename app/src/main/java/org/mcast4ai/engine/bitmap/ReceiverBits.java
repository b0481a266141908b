package org.mcast4ai.engine.bitmap;

import java.util.Arrays;

/** Receivers given as host indices turned into their bit indices, ascending and distinct (both planners). */
final class ReceiverBits {
    // below this, sorting beats walking a 65,536-bit map
    private static final int SORT_BELOW = 256;

    private ReceiverBits() {
    }

    /**
     * @param hostBits  per host index, its bit index or -1
     * @param receivers receiver host indices
     * @return their bit indices, ascending and distinct, hosts without one left out
     */
    static int[] of(int[] hostBits, int[] receivers) {
        if (receivers.length < SORT_BELOW) {
            return sortedDistinct(hostBits, receivers);
        }
        long[] words = new long[(1 << FabricGeometry.INDEX_BITS) / 64];
        int n = 0;
        for (int r : receivers) {
            int b = hostBits[r];
            if (b >= 0 && (words[b >>> 6] & (1L << b)) == 0) {
                words[b >>> 6] |= 1L << b;
                n++;
            }
        }
        int[] bits = new int[n];
        int k = 0;
        for (int w = 0; w < words.length && k < n; w++) {
            for (long x = words[w]; x != 0; x &= x - 1) {
                bits[k++] = (w << 6) | Long.numberOfTrailingZeros(x);
            }
        }
        return bits;
    }

    private static int[] sortedDistinct(int[] hostBits, int[] receivers) {
        int[] bits = new int[receivers.length];
        int n = 0;
        for (int r : receivers) {
            if (hostBits[r] >= 0) {
                bits[n++] = hostBits[r];
            }
        }
        Arrays.sort(bits, 0, n);
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (k == 0 || bits[k - 1] != bits[i]) {
                bits[k++] = bits[i];
            }
        }
        return k == bits.length ? bits : Arrays.copyOf(bits, k);
    }
}
