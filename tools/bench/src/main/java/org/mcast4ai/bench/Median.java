package org.mcast4ai.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * Measures the median time of a task on the calling thread, after a warm-up: both wall time and the
 * thread's CPU time. On a shared machine the CPU time is the robust figure (time the thread was descheduled
 * does not count); on an idle machine both agree. Short tasks are repeated inside a sample so every sample
 * lasts at least {@link #MIN_SAMPLE_NS}, and the figures are per run.
 */
final class Median {
    private static final long MIN_SAMPLE_NS = 50_000;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static long sink;

    private Median() {
    }

    /** A task to time; returns a value so the JIT cannot drop the work. */
    interface Task {
        long run();
    }

    /** Median nanoseconds per run. */
    static final class Timing {
        final long wallNs;
        final long cpuNs;

        Timing(long wallNs, long cpuNs) {
            this.wallNs = wallNs;
            this.cpuNs = cpuNs;
        }
    }

    /**
     * @param task     the task
     * @param minRuns  measured samples at least
     * @param budgetNs keep sampling until this much time has passed (after minRuns)
     * @return median wall and CPU nanoseconds per run
     */
    static Timing measure(Task task, int minRuns, long budgetNs) {
        long warmEnd = System.nanoTime() + budgetNs / 2;
        int warm = 0;
        long warmNs = Long.MAX_VALUE;
        while (warm < Math.max(1, minRuns / 2) || System.nanoTime() < warmEnd) {
            long t0 = System.nanoTime();
            sink += task.run();
            warmNs = Math.min(warmNs, System.nanoTime() - t0);   // the fastest run: preemption only adds
            warm++;
        }
        int reps = (int) Math.max(1, Math.min(10_000, MIN_SAMPLE_NS / Math.max(1, warmNs)));
        long[] wall = new long[Math.max(minRuns, 16)];
        long[] cpu = new long[wall.length];
        int n = 0;
        long end = System.nanoTime() + budgetNs;
        while (n < minRuns || (System.nanoTime() < end && n < 20_000)) {
            long c0 = THREADS.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            for (int i = 0; i < reps; i++) {
                sink += task.run();
            }
            long t = System.nanoTime() - t0;
            long c = THREADS.getCurrentThreadCpuTime() - c0;
            if (n == wall.length) {
                wall = Arrays.copyOf(wall, n * 2);
                cpu = Arrays.copyOf(cpu, n * 2);
            }
            wall[n] = t / reps;
            cpu[n] = c / reps;
            n++;
        }
        return new Timing(median(wall, n), median(cpu, n));
    }

    private static long median(long[] a, int n) {
        long[] s = Arrays.copyOf(a, n);
        Arrays.sort(s);
        return s[n / 2];
    }

    /** @param value a result to keep observable */
    static void consume(long value) {
        sink += value;
    }

    /** @return a value depending on every run, so the work is observable */
    static long sink() {
        return sink;
    }
}
