package org.mcast4ai.bench;

import org.mcast4ai.api.ReplicationMode;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Group churn benchmark (issue 3: 20,000 or more group create+withdraw per second through the service, the
 * in-memory store and the compiler, switch I/O excluded). Hosts the real group store and manager on ONOS
 * service doubles ({@link ChurnHost}) over generated fabrics and measures full group cycles (submit to
 * INSTALLED, withdraw to WITHDRAWN, purge) per second, with 1 and 2 client threads, one group at a time per
 * client and in waves; next to it, in the same run, the compile alone on the same fabric and group shapes.
 *
 * <p>Usage: {@code ChurnBench [--quick] [--n N] [--fabrics leafspine:4,16,16;fattree:8] [--sizes 8,64]
 * [--threads 1,2] [--windows 1,64] [--lanes 0,1,2] [--modes tree,auto,bitmap] [--profile]}. Lanes are the
 * manager's installer threads (0: one per core); modes are the groups' requested replication mode.
 */
public final class ChurnBench {

    private ChurnBench() {
    }

    /** Parsed command line. */
    private static final class Options {
        boolean quick;
        boolean profile;
        int n = 20_000;
        List<String> fabrics = List.of("leafspine:4,16,16", "fattree:8");
        List<Integer> sizes = List.of(8, 64);
        List<Integer> threads = List.of(1, 2);
        List<Integer> windows = List.of(1, 64);
        List<Integer> lanes = List.of(0);
        List<ReplicationMode> modes = List.of(ReplicationMode.TREE);
    }

    /**
     * Runs the benchmark.
     *
     * @param args command line (see the class comment)
     * @throws Exception if a scenario fails
     */
    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("churn: " + e.getMessage());
            System.err.println("usage: churn [--quick] [--n N] [--fabrics leafspine:S,L,H;fattree:K] [--sizes 8,64]"
                                       + " [--threads 1,2] [--windows 1,64] [--lanes 0,1,2] [--modes tree,auto,bitmap]"
                                       + " [--profile]");
            System.exit(2);
            return;
        }
        int warm = o.quick ? 2_000 : 10_000;
        System.out.printf(Locale.ROOT, "churn: %s, N=%d cycles per row after %d warm-up cycles, %d cores, "
                + "load average %.2f at start%n", o.quick ? "quick" : "full", o.n, warm,
                Runtime.getRuntime().availableProcessors(), load());
        System.out.println("churn: cycle = submit -> INSTALLED -> withdraw -> WITHDRAWN -> purge; manager with its "
                + "own installer lanes (lanes 0: one per core), states awaited by a listener; flow batches and groups "
                + "acked at once");
        System.out.printf(Locale.ROOT, "%-20s %6s %5s %4s %3s %6s | %9s %9s %9s %8s %8s | %9s %7s %7s | %6s %6s%n",
                "fabric", "mode", "lanes", "recv", "thr", "window", "cycles/s", "p50 µs", "p99 µs", "cpu µs", "client",
                "compile/s", "p50 µs", "p99 µs", "ratio", "cpu x");
        for (String spec : o.fabrics) {
            ChurnFabric fabric = ChurnFabric.parse(spec);
            long[] acked = new long[2];
            for (int size : o.sizes) {
                ChurnRun.Shapes shapes = new ChurnRun.Shapes(fabric, size, 1024, 7L * size + spec.hashCode());
                ChurnRun.compileOnly(fabric.snapshot, shapes, warm * 4);
                ChurnRun.Result compile = ChurnRun.compileOnly(fabric.snapshot, shapes, Math.max(o.n, 50_000));
                for (ReplicationMode mode : o.modes) {
                    // warm-up: the whole path, both ways of waiting, on every lane count measured, until the rate
                    // settles (the JIT settles late: with a fixed warm-up the first row measured ran 2-3x slow)
                    try {
                        for (int lanes : o.lanes) {
                            try (ChurnHost host = new ChurnHost(fabric, lanes)) {
                                ChurnRun.churn(host, shapes, warm / 2, 1, 1, mode);
                                ChurnRun.churn(host, shapes, warm / 2, 2, 64, mode);
                                settle(host, shapes, warm, mode);
                                count(host, acked);
                            }
                        }
                    } catch (IllegalStateException e) {
                        System.out.printf(Locale.ROOT, "%-20s %6s: not measured: %s%n", fabric.name,
                                mode.name().toLowerCase(Locale.ROOT), e.getMessage());
                        continue;
                    }
                    for (int lanes : o.lanes) {
                        for (int window : o.windows) {
                            for (int t : o.threads) {
                                ChurnRun.Result r;
                                // a fresh store per row, settled before it is measured
                                try (ChurnHost host = new ChurnHost(fabric, lanes)) {
                                    // a fresh host runs slow for a while even after the warm-up: settle it too
                                    settle(host, shapes, o.quick ? 2_000 : 4_000, mode);
                                    r = ChurnRun.churn(host, shapes, o.n, t, window, mode);
                                    count(host, acked);
                                }
                                System.out.printf(Locale.ROOT,
                                        "%-20s %6s %5d %4d %3d %6d | %9.0f %9.1f %9.1f %8.1f %8.1f | %9.0f %7.1f "
                                                + "%7.1f | %5.0fx %5.0fx%n",
                                        fabric.name, mode.name().toLowerCase(Locale.ROOT), lanes, size, t, window,
                                        r.opsPerSecond(), r.percentileUs(0.5), r.percentileUs(0.99), r.cpuUsPerOp(),
                                        r.clientCpuNs / 1000.0 / r.ops, compile.opsPerSecond(),
                                        compile.percentileUs(0.5), compile.percentileUs(0.99),
                                        compile.opsPerSecond() / r.opsPerSecond(),
                                        r.cpuUsPerOp() / compile.cpuUsPerOp());
                            }
                        }
                    }
                }
            }
            if (o.profile) {
                profile(fabric, o);
            }
            System.out.printf(Locale.ROOT, "churn: %s: %d flow batches, %d rule operations acknowledged%n",
                    fabric.name, acked[0], acked[1]);
        }
        System.out.printf(Locale.ROOT, "churn: load average %.2f at the end%n", load());
        System.exit(0);
    }

    /**
     * Runs waves of the row's shape until two in a row agree within 10 % (at most 12 waves).
     *
     * @param host   hosted service
     * @param shapes group shapes
     * @param warm   cycles per wave
     * @param mode   replication mode
     * @throws InterruptedException if interrupted
     */
    private static void settle(ChurnHost host, ChurnRun.Shapes shapes, int warm, ReplicationMode mode)
            throws InterruptedException {
        double previous = 0;
        for (int i = 0; i < 12; i++) {
            double rate = ChurnRun.churn(host, shapes, warm / 2, 1, 64, mode).opsPerSecond();
            if (System.getenv("CHURN_TRACE") != null) {
                System.out.printf(Locale.ROOT, "churn: settling %s: %.0f cycles/s%n", mode, rate);
            }
            if (previous > 0 && Math.abs(rate - previous) < 0.1 * previous) {
                return;
            }
            previous = rate;
        }
    }

    private static void count(ChurnHost host, long[] acked) {
        acked[0] += host.flows.batchCount();
        acked[1] += host.flows.ruleCount();
    }

    private static void profile(ChurnFabric fabric, Options o) throws InterruptedException {
        int size = o.sizes.get(o.sizes.size() - 1);
        ReplicationMode mode = o.modes.get(0);
        ChurnRun.Shapes shapes = new ChurnRun.Shapes(fabric, size, 1024, 11);
        for (int window : o.windows) {
            ChurnRun.Result r;
            ChurnProfiler p;
            try (ChurnHost host = new ChurnHost(fabric, o.lanes.get(0))) {
                settle(host, shapes, o.quick ? 2_000 : 4_000, mode);
                p = new ChurnProfiler(2000);
                try {
                    r = ChurnRun.churn(host, shapes, o.n, 1, window, mode);
                } finally {
                    p.close();
                }
            }
            System.out.printf(Locale.ROOT, "profile: %s, %s, %d receivers, 1 thread, window %d: %.0f cycles/s "
                    + "(stacks sampled every 2 ms)%n%s%s", fabric.name, mode, size, window, r.opsPerSecond(),
                    p.cpuBreakdown(r.ops, r.clientCpuNs, r.processCpuNs), p.report(12));
        }
    }

    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static Options parse(String[] args) {
        Options o = new Options();
        boolean nSet = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick":
                    o.quick = true;
                    break;
                case "--profile":
                    o.profile = true;
                    break;
                case "--n":
                    o.n = positive(value(args, ++i, a), a);
                    nSet = true;
                    break;
                case "--fabrics":
                    o.fabrics = List.of(value(args, ++i, a).split(";"));
                    o.fabrics.forEach(ChurnFabric::parse);
                    break;
                case "--sizes":
                    o.sizes = ints(value(args, ++i, a), a);
                    break;
                case "--threads":
                    o.threads = ints(value(args, ++i, a), a);
                    break;
                case "--windows":
                    o.windows = ints(value(args, ++i, a), a);
                    break;
                case "--lanes":
                    o.lanes = new ArrayList<>();
                    for (String p : value(args, ++i, a).split(",")) {
                        o.lanes.add(number(p, a, 0));
                    }
                    break;
                case "--modes":
                    o.modes = new ArrayList<>();
                    for (String p : value(args, ++i, a).split(",")) {
                        try {
                            o.modes.add(ReplicationMode.valueOf(p.trim().toUpperCase(Locale.ROOT)));
                        } catch (IllegalArgumentException e) {
                            throw new IllegalArgumentException("--modes takes tree, auto or bitmap: " + p, e);
                        }
                    }
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (o.quick && !nSet) {
            o.n = 4_000;
        }
        if (o.quick && o.fabrics.size() > 1 && !List.of(args).contains("--fabrics")) {
            o.fabrics = List.of("leafspine:4,16,16");
        }
        return o;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int positive(String s, String option) {
        return number(s, option, 1);
    }

    private static int number(String s, String option, int min) {
        try {
            int v = Integer.parseInt(s.trim());
            if (v < min) {
                throw new IllegalArgumentException(option + " must be at least " + min + ": " + s);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " wants a number: " + s, e);
        }
    }

    private static List<Integer> ints(String s, String option) {
        List<Integer> out = new ArrayList<>();
        for (String p : s.split(",")) {
            out.add(positive(p, option));
        }
        return out;
    }
}
