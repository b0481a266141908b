package org.mcast4ai.bench;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.FabricTreeComputer;
import org.mcast4ai.engine.MulticastTree;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One churn scenario: {@code threads} clients each run {@code n / threads} group cycles against the hosted
 * service. A cycle is submit, wait for INSTALLED, withdraw, wait for WITHDRAWN, purge. With {@code window}
 * 1 a client runs its cycles one after another; with a larger window it submits {@code window} groups,
 * waits for all of them, withdraws all, waits, and purges all (the installer pipeline stays busy).
 * Per-op latency is the time a group spent in its cycle's waits and calls: submit call to INSTALLED seen,
 * plus withdraw call to WITHDRAWN seen, plus the purge call.
 */
final class ChurnRun {

    /** Group shapes: a source and receivers (host ids), drawn once per scenario. */
    static final class Shapes {
        final List<Endpoint> sources = new ArrayList<>();
        final List<List<Endpoint>> receivers = new ArrayList<>();
        final int[] sourceIndex;
        final int[][] receiverIndex;

        Shapes(ChurnFabric fabric, int size, int count, long seed) {
            Random random = new Random(seed);
            int hosts = fabric.hostIds.size();
            if (size >= hosts) {
                throw new IllegalArgumentException(fabric.name + " has " + hosts + " hosts: no group of " + size
                        + " receivers plus a source");
            }
            sourceIndex = new int[count];
            receiverIndex = new int[count][];
            FabricSnapshot snap = fabric.snapshot;
            for (int i = 0; i < count; i++) {
                int[] pick = sample(random, hosts, size + 1);
                sources.add(Endpoint.of(fabric.hostIds.get(pick[0])));
                sourceIndex[i] = snap.hostIndex(fabric.hostIds.get(pick[0]));
                List<Endpoint> rs = new ArrayList<>();
                receiverIndex[i] = new int[size];
                for (int j = 1; j <= size; j++) {
                    rs.add(Endpoint.of(fabric.hostIds.get(pick[j])));
                    receiverIndex[i][j - 1] = snap.hostIndex(fabric.hostIds.get(pick[j]));
                }
                receivers.add(rs);
            }
        }

        int count() {
            return sources.size();
        }

        private static int[] sample(Random random, int n, int k) {
            int[] all = new int[n];
            for (int i = 0; i < n; i++) {
                all[i] = i;
            }
            for (int i = 0; i < k; i++) {
                int j = i + random.nextInt(n - i);
                int t = all[i];
                all[i] = all[j];
                all[j] = t;
            }
            return Arrays.copyOf(all, k);
        }
    }

    /** What a scenario measured. */
    static final class Result {
        final int ops;
        final double seconds;
        final long[] latencyNs;
        /** CPU time of the whole process during the run (all threads: clients, installer, events, GC, JIT). */
        final long processCpuNs;
        /** CPU time of the client threads (submit, withdraw, purge calls and waiting). */
        final long clientCpuNs;

        Result(int ops, double seconds, long[] latencyNs, long processCpuNs, long clientCpuNs) {
            this.ops = ops;
            this.seconds = seconds;
            this.latencyNs = latencyNs;
            this.processCpuNs = processCpuNs;
            this.clientCpuNs = clientCpuNs;
            Arrays.sort(latencyNs);
        }

        double opsPerSecond() {
            return ops / seconds;
        }

        double cpuUsPerOp() {
            return processCpuNs / 1000.0 / ops;
        }

        double percentileUs(double p) {
            if (latencyNs.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.min(latencyNs.length - 1, Math.ceil(p * latencyNs.length) - 1);
            return latencyNs[Math.max(0, i)] / 1000.0;
        }
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static int serial;

    static long processCpu() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean
                ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() : 0;
    }

    private ChurnRun() {
    }

    /**
     * Runs a churn scenario with groups of a replication mode.
     *
     * @param host    hosted service
     * @param shapes  group shapes, used round robin
     * @param n       cycles in all
     * @param threads client threads
     * @param window  groups a client keeps in one wave (1: one at a time)
     * @param mode    the groups' requested mode
     * @return throughput and latencies
     * @throws InterruptedException if interrupted
     */
    static Result churn(ChurnHost host, Shapes shapes, int n, int threads, int window, ReplicationMode mode)
            throws InterruptedException {
        int per = n / threads;
        long[] latency = new long[per * threads];
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        AtomicReference<Throwable> error = new AtomicReference<>();
        LongAdder clientCpu = new LongAdder();
        int run = ++serial;
        List<Thread> clients = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int client = t;
            Thread th = new Thread(() -> {
                try {
                    start.await();
                    String prefix = "r" + run + "-c" + client + "-";
                    String tenant = "churn" + client;
                    for (int i = 0; i < per; i += window) {
                        int w = Math.min(window, per - i);
                        wave(host, shapes, tenant, prefix, client * per + i, w, latency, client * per + i, mode);
                    }
                    clientCpu.add(THREADS.getCurrentThreadCpuTime());
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                }
            }, "churn-client-" + t);
            clients.add(th);
            th.start();
        }
        try {
            start.await();
        } catch (java.util.concurrent.BrokenBarrierException e) {
            throw new IllegalStateException(e);
        }
        long c0 = processCpu();
        long t0 = System.nanoTime();
        for (Thread th : clients) {
            th.join();
        }
        long t1 = System.nanoTime();
        long c1 = processCpu();
        if (error.get() != null) {
            throw new IllegalStateException("churn client failed: " + error.get(), error.get());
        }
        return new Result(per * threads, (t1 - t0) / 1e9, latency, c1 - c0, clientCpu.sum());
    }

    private static void wave(ChurnHost host, Shapes shapes, String tenant, String prefix, int first, int w,
                             long[] latency, int at, ReplicationMode mode) {
        String[] names = new String[w];
        ChurnHost.Waiter[] waiters = new ChurnHost.Waiter[w];
        P2mpGroup[] groups = new P2mpGroup[w];
        long[] submitted = new long[w];
        long[] withdrawn = new long[w];
        for (int j = 0; j < w; j++) {
            int shape = (first + j) % shapes.count();
            names[j] = prefix + (first + j);
            waiters[j] = host.expect(names[j]);
            P2mpGroupRequest request = P2mpGroupRequest.builder()
                    .key(GroupKey.of(tenant, names[j])).jobId("churn")
                    .source(shapes.sources.get(shape)).receivers(shapes.receivers.get(shape))
                    .mode(mode).build();
            submitted[j] = System.nanoTime();
            groups[j] = host.service.submit(request);
        }
        for (int j = 0; j < w; j++) {
            waiters[j].awaitInstalled();
        }
        for (int j = 0; j < w; j++) {
            withdrawn[j] = System.nanoTime();
            host.service.withdraw(groups[j].id());
        }
        for (int j = 0; j < w; j++) {
            waiters[j].awaitWithdrawn();
            long p0 = System.nanoTime();
            host.service.purge(groups[j].id());
            long p1 = System.nanoTime();
            host.forget(names[j]);
            latency[at + j] = (waiters[j].installedAt - submitted[j]) + (waiters[j].withdrawnAt - withdrawn[j])
                    + (p1 - p0);
        }
    }

    /**
     * The compile-only baseline: {@link FabricTreeComputer} on the manager's snapshot of the same fabric, the
     * same group shapes, one thread.
     *
     * @param snapshot fabric snapshot
     * @param shapes   group shapes
     * @param n        compiles
     * @return throughput and per-compile latencies
     */
    static Result compileOnly(FabricSnapshot snapshot, Shapes shapes, int n) {
        FabricTreeComputer trees = new FabricTreeComputer();
        long[] latency = new long[n];
        long sink = 0;
        long c0 = THREADS.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            int s = i % shapes.count();
            long a = System.nanoTime();
            MulticastTree tree = trees.compute(snapshot, shapes.sourceIndex[s], shapes.receiverIndex[s], i);
            latency[i] = System.nanoTime() - a;
            sink += tree.size();
        }
        long t1 = System.nanoTime();
        long c1 = THREADS.getCurrentThreadCpuTime();
        if (sink == 42) {
            System.out.print("");
        }
        return new Result(n, (t1 - t0) / 1e9, latency, c1 - c0, c1 - c0);
    }
}
