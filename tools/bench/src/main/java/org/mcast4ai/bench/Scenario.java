package org.mcast4ai.bench;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;

import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;

/** One benchmark case: a fat tree, a source and a receiver set, rack-packed or random. */
final class Scenario {
    final int k;
    final int receiversWanted;
    final boolean rackPacked;
    final boolean spreadRacks;
    final int source;
    final int[] receivers;

    private Scenario(int k, int n, boolean rackPacked, int source, int[] receivers) {
        this(k, n, rackPacked, false, source, receivers);
    }

    private Scenario(int k, int n, boolean rackPacked, boolean spreadRacks, int source, int[] receivers) {
        this.k = k;
        this.receiversWanted = n;
        this.rackPacked = rackPacked;
        this.spreadRacks = spreadRacks;
        this.source = source;
        this.receivers = receivers;
    }

    /**
     * Whole racks in leaf order, skipping the source's leaf; the source is the fabric's last host.
     *
     * @param k fat tree radix (for the report)
     * @param f fabric
     * @param n receivers wanted
     * @return the scenario
     */
    static Scenario rackPacked(int k, FabricSnapshot f, int n) {
        int source = f.hostCount() - 1;
        int[] out = new int[n];
        int c = 0;
        for (int sw = 0; sw < f.switchCount() && c < n; sw++) {
            if (f.role(sw) == Role.LEAF && sw != f.hostSwitch(source)) {
                for (int i = f.hostStart(sw); i < f.hostStart(sw + 1) && c < n; i++) {
                    out[c++] = f.hostAt(i);
                }
            }
        }
        return new Scenario(k, n, true, source, Arrays.copyOf(out, c));
    }

    /**
     * Receivers drawn uniformly from all hosts but the source (seeded).
     *
     * @param k    fat tree radix (for the report)
     * @param f    fabric
     * @param n    receivers wanted
     * @param seed random seed
     * @return the scenario
     */
    static Scenario random(int k, FabricSnapshot f, int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int source = rnd.nextInt(f.hostCount());
        BitSet picked = new BitSet();
        int[] out = new int[n];
        int c = 0;
        while (c < n) {
            int h = rnd.nextInt(f.hostCount());
            if (h != source && !picked.get(h)) {
                picked.set(h);
                out[c++] = h;
            }
        }
        return new Scenario(k, n, false, source, out);
    }

    /**
     * Whole racks drawn at random over the fabric, the last one cut to make n (a scheduler placing a job
     * wherever racks are free); seeded.
     *
     * @param k    fat tree radix (for the report)
     * @param f    fabric
     * @param n    receivers wanted
     * @param seed random seed
     * @return the scenario
     */
    static Scenario spreadRacks(int k, FabricSnapshot f, int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int source = rnd.nextInt(f.hostCount());
        int[] leaves = new int[f.switchCount()];
        int m = 0;
        for (int sw = 0; sw < f.switchCount(); sw++) {
            if (f.role(sw) == Role.LEAF && sw != f.hostSwitch(source)) {
                leaves[m++] = sw;
            }
        }
        int[] out = new int[n];
        int c = 0;
        for (int i = 0; i < m && c < n; i++) {
            int j = i + rnd.nextInt(m - i);
            int sw = leaves[j];
            leaves[j] = leaves[i];
            for (int h = f.hostStart(sw); h < f.hostStart(sw + 1) && c < n; h++) {
                out[c++] = f.hostAt(h);
            }
        }
        return new Scenario(k, n, false, true, source, Arrays.copyOf(out, c));
    }

    String shape() {
        return rackPacked ? "rack" : spreadRacks ? "spread" : "random";
    }
}
