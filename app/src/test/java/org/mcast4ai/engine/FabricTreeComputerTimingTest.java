package org.mcast4ai.engine;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Prints how long large trees take (no timed assertion: a shared test machine is no benchmark). Each
 * case also checks the tree, so the timing is of correct work.
 */
class FabricTreeComputerTimingTest {

    @Test
    void printLargeFatTreeTimings() {
        time(48, 1024, false);
        time(48, 1024, true);
        time(64, 4096, false);
        time(64, 4096, true);
    }

    private static void time(int k, int receiverCount, boolean packed) {
        FabricSnapshot f = FabricGenerators.fatTree(k);
        Random rnd = new Random(k);
        FabricTreeComputer computer = new FabricTreeComputer();
        int groups = 8;
        int[] sources = new int[groups];
        int[][] receivers = new int[groups][];
        for (int g = 0; g < groups; g++) {
            sources[g] = rnd.nextInt(f.hostCount());
            receivers[g] = packed ? racks(f, sources[g], receiverCount, rnd)
                    : Groups.receivers(f, sources[g], receiverCount, rnd);
        }
        for (int g = 0; g < groups; g++) {
            MulticastTree t = computer.compute(f, sources[g], receivers[g], g);
            TreeChecker.assertDelivers(f, t, sources[g], receivers[g]);
            assertEquals(0, t.unreachable().length);
        }
        int rounds = 1000;
        long[] nanos = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            int g = i % groups;
            long t0 = System.nanoTime();
            computer.compute(f, sources[g], receivers[g], i);
            nanos[i] = System.nanoTime() - t0;
        }
        long[] measured = Arrays.copyOfRange(nanos, rounds / 2, rounds);
        Arrays.sort(measured);
        System.out.printf("fat tree k=%d, %d receivers (%s): p50 %.1f us, p99 %.1f us%n", k, receiverCount,
                          packed ? "whole racks" : "random hosts", measured[measured.length / 2] / 1e3,
                          measured[measured.length * 99 / 100] / 1e3);
    }

    /** Receivers filling whole leaves (racks), chosen at random, source excluded. */
    private static int[] racks(FabricSnapshot f, int source, int count, Random rnd) {
        int[] out = new int[count];
        int n = 0;
        boolean[] used = new boolean[f.switchCount()];
        while (n < count) {
            int leaf = f.hostSwitch(rnd.nextInt(f.hostCount()));
            if (used[leaf]) {
                continue;
            }
            used[leaf] = true;
            for (int k = f.hostStart(leaf); k < f.hostStart(leaf + 1) && n < count; k++) {
                if (f.hostAt(k) != source) {
                    out[n++] = f.hostAt(k);
                }
            }
        }
        return out;
    }
}
