package org.mcast4ai.bench;

import java.util.Arrays;

/** Measures the median wall time of a task on the calling thread, after a warm-up. */
final class Median {
    private Median() {
    }

    /** A task to time; returns a value so the JIT cannot drop the work. */
    interface Task {
        long run();
    }

    private static long sink;

    /**
     * @param task      the task
     * @param minRuns   measured runs at least
     * @param budgetNs  stop measuring once this much time has passed (after minRuns)
     * @return median nanoseconds per run
     */
    static long nanos(Task task, int minRuns, long budgetNs) {
        long warmEnd = System.nanoTime() + budgetNs / 2;
        int warm = 0;
        while (warm < Math.max(1, minRuns / 2) || System.nanoTime() < warmEnd) {
            sink += task.run();
            warm++;
        }
        long[] samples = new long[Math.max(minRuns, 16)];
        int n = 0;
        long end = System.nanoTime() + budgetNs;
        while (n < minRuns || (System.nanoTime() < end && n < 100_000)) {
            long t0 = System.nanoTime();
            sink += task.run();
            long t = System.nanoTime() - t0;
            if (n == samples.length) {
                samples = Arrays.copyOf(samples, n * 2);
            }
            samples[n++] = t;
        }
        long[] s = Arrays.copyOf(samples, n);
        Arrays.sort(s);
        return s[n / 2];
    }

    /** @return a value depending on every run, so the work is observable */
    static long sink() {
        return sink;
    }
}
