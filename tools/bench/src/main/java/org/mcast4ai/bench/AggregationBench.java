package org.mcast4ai.bench;

import org.mcast4ai.engine.reliable.AckAggregator;
import org.mcast4ai.engine.reliable.AggregationOutput;
import org.mcast4ai.engine.reliable.Psn;

import java.util.Arrays;
import java.util.Random;

/**
 * ACKs per second through the ACK-aggregation state machine on one thread, against a baseline in the same run
 * that scans every receiver on every ACK (what a first prototype does). The trace: a sender with a window of
 * PSNs in flight and N receivers acknowledging every PSN (or every fourth) at their own pace, their ACKs
 * interleaved by arrival time, the PSN starting just below the 24-bit wrap.
 *
 * <p>{@code tools/bench/aggregation [--n 32,1024,4096] [--ack-every 1,4] [--seconds 3]}
 */
public final class AggregationBench {
    private static final long MS = 1_000_000L;
    private static final int DATA = -1;
    private static final int START = Psn.MASK - 1000;

    private AggregationBench() {
    }

    /** A trace: receiver index per event, or {@link #DATA} for the sender's packet; the PSN. */
    static final class Trace {
        final int[] who;
        final int[] psn;
        final long[] keys;
        final int acks;

        Trace(int[] who, int[] psn, long[] keys, int acks) {
            this.who = who;
            this.psn = psn;
            this.keys = keys;
            this.acks = acks;
        }
    }

    static Trace trace(int n, int ackEvery, int targetAcks, long seed) {
        Random rnd = new Random(seed);
        int psns = Math.max(64, targetAcks * ackEvery / n);
        int window = 256;
        // each receiver's ACK for PSN p arrives at p + its lag + noise (lags up to a window)
        double[] lag = new double[n];
        for (int r = 0; r < n; r++) {
            lag[r] = rnd.nextDouble() * window * 0.5;
        }
        int acks = 0;
        int events = psns + n * (psns / ackEvery + 1);
        long[] order = new long[events];
        int e = 0;
        for (int p = 0; p < psns; p++) {
            order[e++] = sortKey(p - 0.5, DATA, p);
        }
        for (int r = 0; r < n; r++) {
            int shift = rnd.nextInt(ackEvery);
            for (int p = shift; p < psns; p += ackEvery) {
                order[e++] = sortKey(p + lag[r] + rnd.nextDouble() * 2, r, p);
                acks++;
            }
        }
        order = Arrays.copyOf(order, e);
        Arrays.sort(order);
        int[] who = new int[e];
        int[] psn = new int[e];
        for (int i = 0; i < e; i++) {
            long k = order[i];
            int r = (int) ((k >>> 24) & 0x1FFF) - 1;
            who[i] = r;
            psn[i] = Psn.wire(START + (k & 0xFFFFFF));
        }
        long[] keys = new long[n];
        for (int r = 0; r < n; r++) {
            keys[r] = AckAggregator.key(0x0a000000 + r + 2, 0x100 + r);
        }
        return new Trace(who, psn, keys, acks);
    }

    // time (27 bits, in 1/64 PSN), then receiver + 1 (13 bits), then the PSN offset (24 bits)
    private static long sortKey(double time, int receiver, int p) {
        long t = (long) ((time + 1) * 64);
        return t << 37 | (long) (receiver + 1) << 24 | p;
    }

    /** Counts what reaches the sender. */
    static final class Counting implements AggregationOutput {
        long acks;
        long last;

        @Override
        public void ack(int psn, int msn, int credit) {
            acks++;
            last = psn;
        }

        @Override
        public void nak(int psn, int msn, int syndrome) {
        }

        @Override
        public void cnp() {
        }

        @Override
        public void dropped(Drop why, long source) {
        }

        @Override
        public void stalled(long receiver) {
        }
    }

    static long replay(Trace t) {
        Counting out = new Counting();
        AckAggregator agg = new AckAggregator(START, new AckAggregator.Config(true, 1000 * MS, 0, 0), out,
                t.keys.length);
        for (long k : t.keys) {
            agg.addReceiver(k, START, 0);
        }
        int[] who = t.who;
        int[] psn = t.psn;
        long[] keys = t.keys;
        for (int i = 0; i < who.length; i++) {
            int w = who[i];
            if (w == DATA) {
                agg.onData(psn[i], i);
            } else {
                agg.onAck(keys[w], psn[i], 0, 0, i);
            }
        }
        return out.acks << 24 | out.last;
    }

    /**
     * The baseline: every ACK scans every receiver for the minimum (no lookup table: receivers by index).
     *
     * @param t the trace
     * @return the aggregated ACKs (high bits) and the last PSN acknowledged (low 24 bits)
     */
    static long replayScanning(Trace t) {
        int n = t.keys.length;
        long[] acked = new long[n];
        Arrays.fill(acked, START - 1L);
        long sentNext = START;
        long ackOut = START - 1L;
        long acks = 0;
        int[] who = t.who;
        int[] psn = t.psn;
        for (int i = 0; i < who.length; i++) {
            int w = who[i];
            if (w == DATA) {
                long p = Psn.extend(psn[i], sentNext);
                if (p >= sentNext) {
                    sentNext = p + 1;
                }
                continue;
            }
            long p = Psn.extend(psn[i], acked[w]);
            if (p >= sentNext || p <= acked[w]) {
                continue;
            }
            acked[w] = p;
            long m = Long.MAX_VALUE;
            for (int r = 0; r < n; r++) {
                m = Math.min(m, acked[r]);
            }
            if (m > ackOut) {
                ackOut = m;
                acks++;
            }
        }
        return acks << 24 | Psn.wire(ackOut);
    }

    /**
     * Runs the benchmark.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) {
        int[] ns = {32, 1024, 4096};
        int[] every = {1, 4};
        long seconds = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--n":
                    ns = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                    break;
                case "--ack-every":
                    every = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                    break;
                case "--seconds":
                    seconds = Long.parseLong(args[++i]);
                    break;
                default:
                    System.err.println("aggregation: unknown argument " + args[i]);
                    System.exit(2);
            }
        }
        System.out.printf("aggregation: one thread; trace of about 2M ACKs per row, PSNs from %d across the "
                + "wrap; median of runs, CPU time%n", START);
        for (int n : ns) {
            for (int e : every) {
                Trace t = trace(n, e, 2_000_000, 20261201L + n);
                long ours = replay(t);
                long base = replayScanning(t);
                if (ours != base) {
                    throw new IllegalStateException("the two disagree on the trace: " + ours + " vs " + base);
                }
                Median.Timing spec = Median.measure(() -> replay(t), 5, seconds * 1_000_000_000L);
                Median.Timing scan = Median.measure(() -> replayScanning(t), 5, seconds * 1_000_000_000L);
                double specNs = (double) spec.cpuNs / t.acks;
                double scanNs = (double) scan.cpuNs / t.acks;
                System.out.printf("aggregation: N=%-5d ack_every=%d acks=%,d aggregated=%,d | spec %6.1f ns/ack "
                                + "%6.1fM acks/s | scan-all baseline %7.1f ns/ack %6.1fM acks/s | %.1fx%n", n, e,
                        t.acks, ours >>> 24, specNs, 1e3 / specNs, scanNs, 1e3 / scanNs, scanNs / specNs);
            }
        }
        Median.consume(0);
    }
}
