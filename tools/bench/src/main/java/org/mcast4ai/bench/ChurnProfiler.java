package org.mcast4ai.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A simple sampling profiler: every few milliseconds it takes the stacks of the threads that do the churn
 * work (clients, the manager's installer, the event dispatcher) and counts, per thread kind, whether the
 * thread was running or waiting and, when running, the first mcast4ai frame (inclusive: where the time
 * of our code goes, callees included) and the top frame (exclusive).
 */
final class ChurnProfiler implements AutoCloseable {

    private static final String[] KINDS = {"churn-client", "installer", "events", "timer"};

    private final Map<String, Map<String, Integer>> inclusive = new HashMap<>();
    private final Map<String, Map<String, Integer>> exclusive = new HashMap<>();
    private final Map<String, int[]> runWait = new HashMap<>();
    private final Thread sampler;
    private final Map<String, Long> cpuStart;
    private Map<String, Long> cpuEnd;
    private volatile boolean running = true;

    ChurnProfiler(long periodMicros) {
        cpuStart = cpuByKind();
        sampler = new Thread(() -> {
            while (running) {
                sample();
                try {
                    Thread.sleep(periodMicros / 1000, (int) (periodMicros % 1000) * 1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "churn-profiler");
        sampler.setDaemon(true);
        sampler.start();
    }

    private void sample() {
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            String kind = kind(e.getKey().getName());
            if (kind == null) {
                continue;
            }
            StackTraceElement[] st = e.getValue();
            boolean waiting = st.length > 0 && waiting(st[0]);
            synchronized (this) {
                int[] rw = runWait.computeIfAbsent(kind, k -> new int[2]);
                rw[waiting ? 1 : 0]++;
                if (waiting || st.length == 0) {
                    continue;
                }
                exclusive.computeIfAbsent(kind, k -> new HashMap<>()).merge(frame(st[0]), 1, Integer::sum);
                String ours = null;
                // the deepest mcast4ai frame (first from the top) is the most specific
                for (StackTraceElement f : st) {
                    if (ours(f.getClassName())) {
                        ours = frame(f);
                        break;
                    }
                }
                inclusive.computeIfAbsent(kind, k -> new HashMap<>())
                        .merge(ours == null ? "(outside mcast4ai) " + frame(st[Math.min(st.length - 1, 3)]) : ours,
                               1, Integer::sum);
            }
        }
    }

    /** CPU time of the live threads of each kind (clients end before the report: they count their own). */
    private static Map<String, Long> cpuByKind() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Long> cpu = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String kind = kind(t.getName());
            cpu.merge(kind != null ? kind : "other:" + t.getName().replaceAll("[0-9]+", "N"),
                      Math.max(0, mx.getThreadCpuTime(t.getId())), Long::sum);
        }
        return cpu;
    }

    /**
     * @param ops          cycles measured
     * @param clientCpuNs  CPU time of the client threads
     * @param processCpuNs CPU time of the process
     * @return CPU µs per cycle by thread kind
     */
    String cpuBreakdown(int ops, long clientCpuNs, long processCpuNs) {
        StringBuilder sb = new StringBuilder("  CPU µs per cycle:");
        long named = clientCpuNs;
        sb.append(String.format(Locale.ROOT, " clients %.1f", clientCpuNs / 1000.0 / ops));
        for (String kind : KINDS) {
            if (kind.equals("churn-client")) {
                continue;
            }
            long d = cpuEnd.getOrDefault(kind, 0L) - cpuStart.getOrDefault(kind, 0L);
            named += d;
            sb.append(String.format(Locale.ROOT, ", %s %.1f", kind, d / 1000.0 / ops));
        }
        for (Map.Entry<String, Long> e : cpuEnd.entrySet()) {
            long d = e.getValue() - cpuStart.getOrDefault(e.getKey(), 0L);
            if (e.getKey().startsWith("other:") && d / 1000.0 / ops >= 1.0) {
                named += d;
                sb.append(String.format(Locale.ROOT, ", %s %.1f", e.getKey().substring(6), d / 1000.0 / ops));
            }
        }
        sb.append(String.format(Locale.ROOT, ", rest of the process (GC, JIT) %.1f, process %.1f%n",
                                (processCpuNs - named) / 1000.0 / ops, processCpuNs / 1000.0 / ops));
        return sb.toString();
    }

    private static boolean ours(String c) {
        return c.startsWith("org.mcast4ai.") && !c.startsWith("org.mcast4ai.bench")
                && !c.startsWith("org.mcast4ai.lab");
    }

    private static boolean waiting(StackTraceElement top) {
        String m = top.getClassName() + "." + top.getMethodName();
        return m.startsWith("jdk.internal.misc.Unsafe.park") || m.equals("java.lang.Thread.sleep")
                || m.equals("java.lang.Object.wait") || m.startsWith("java.lang.Thread.sleep");
    }

    private static String kind(String thread) {
        for (String k : KINDS) {
            if (thread.contains(k)) {
                return k;
            }
        }
        return null;
    }

    private static String frame(StackTraceElement f) {
        String c = f.getClassName();
        return c.substring(c.lastIndexOf('.') + 1) + "." + f.getMethodName();
    }

    /**
     * @param top entries per thread kind
     * @return the report
     */
    synchronized String report(int top) {
        StringBuilder sb = new StringBuilder();
        for (String kind : KINDS) {
            int[] rw = runWait.get(kind);
            if (rw == null) {
                continue;
            }
            int total = rw[0] + rw[1];
            sb.append(String.format(Locale.ROOT, "  %s threads: %d samples, running %.0f%%, parked/waiting %.0f%%%n",
                                    kind, total, 100.0 * rw[0] / total, 100.0 * rw[1] / total));
            append(sb, "deepest mcast4ai frame (inclusive)", inclusive.get(kind), rw[0], top);
            append(sb, "top frame (exclusive)", exclusive.get(kind), rw[0], top);
        }
        return sb.toString();
    }

    private static void append(StringBuilder sb, String title, Map<String, Integer> counts, int running, int top) {
        if (counts == null || running == 0) {
            return;
        }
        sb.append("    ").append(title).append(", % of running samples:\n");
        List<Map.Entry<String, Integer>> list = new ArrayList<>(counts.entrySet());
        list.sort((a, b) -> b.getValue() - a.getValue());
        for (int i = 0; i < Math.min(top, list.size()); i++) {
            sb.append(String.format(Locale.ROOT, "      %5.1f%%  %s%n",
                                    100.0 * list.get(i).getValue() / running, list.get(i).getKey()));
        }
    }

    @Override
    public void close() {
        cpuEnd = cpuByKind();
        running = false;
        sampler.interrupt();
    }
}
