package org.mcast4ai.engine.reliable;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random interleavings of data, retransmissions, ACKs (in order, reordered, duplicated, coalesced), NAKs, joins
 * and leaves, with PSNs starting anywhere (often just below the wrap), against a brute-force reference: every
 * receiver's acknowledged PSN as an unbounded number, the minimum found by a full scan after every event.
 */
class AckAggregatorPropertyTest {
    private static final AckAggregator.Config CONFIG = new AckAggregator.Config(true, Long.MAX_VALUE / 4, 0, 0);

    /** The rules stated as plainly as possible, on numbers that never wrap. */
    private static final class Reference {
        final Map<Long, Long> acked = new HashMap<>();
        long sentNext;
        long ackOut;
        long nakOut = Long.MIN_VALUE;
        boolean retransmitted;
        boolean reack;

        Reference(long start) {
            sentNext = start;
            ackOut = start - 1;
        }

        long min() {
            long m = Long.MAX_VALUE;
            for (long a : acked.values()) {
                m = Math.min(m, a);
            }
            return m;
        }
    }

    private static void run(long seed, int receivers, int events) {
        Random rnd = new Random(seed);
        long start = rnd.nextBoolean() ? Psn.MODULUS - 1 - rnd.nextInt(200) : rnd.nextInt(Psn.MASK);
        Recorder out = new Recorder();
        AckAggregator agg = new AckAggregator(Psn.wire(start), CONFIG, out, receivers);
        Reference ref = new Reference(start);
        List<Long> keys = new ArrayList<>();
        int nextKey = 1;
        for (int i = 0; i < receivers; i++) {
            long k = nextKey++;
            keys.add(k);
            agg.addReceiver(k, Psn.wire(start), 0);
            ref.acked.put(k, start - 1);
        }
        int acks = 0;
        int naks = 0;
        for (int e = 0; e < events; e++) {
            int what = rnd.nextInt(100);
            long before = ref.ackOut;
            String step;
            if (what < 25 || keys.isEmpty()) {
                // new data, sometimes a burst; or a retransmission from the acknowledged point
                if (rnd.nextInt(10) == 0 && ref.sentNext > ref.ackOut + 1) {
                    long p = ref.ackOut + 1 + rnd.nextInt((int) Math.min(5, ref.sentNext - ref.ackOut - 1));
                    agg.onData(Psn.wire(p), e);
                    ref.retransmitted = true;
                    ref.reack = true;
                    step = "retransmit " + p;
                } else {
                    int n = 1 + rnd.nextInt(8);
                    for (int i = 0; i < n; i++) {
                        agg.onData(Psn.wire(ref.sentNext++), e);
                    }
                    step = "data to " + (ref.sentNext - 1);
                }
                out.take();
                assertEquals(before, ref.ackOut, step);
                continue;
            }
            if (what < 30 && keys.size() < receivers * 2) {
                long k = nextKey++;
                long join = ref.ackOut + 1 + (long) rnd.nextInt((int) (ref.sentNext - ref.ackOut));
                agg.addReceiver(k, Psn.wire(join), e);
                ref.acked.put(k, join - 1);
                keys.add(k);
                assertEquals(List.of(), out.take(), "a join sends nothing");
                continue;
            }
            long k = keys.get(rnd.nextInt(keys.size()));
            long mine = ref.acked.get(k);
            if (what < 34 && keys.size() > 1) {
                agg.removeReceiver(k, e);
                ref.acked.remove(k);
                keys.remove(k);
                step = "leave " + k;
            } else if (what < 40 && mine + 1 < ref.sentNext) {
                // a sequence error: the receiver expects something between what it has and what was sent
                long expected = mine + 1 + rnd.nextInt((int) Math.min(4, ref.sentNext - mine - 1));
                agg.onNak(k, Psn.wire(expected), AckAggregator.NAK_SEQUENCE, 0, e);
                ref.acked.put(k, Math.max(mine, expected - 1));
                long resend = ref.min() + 1;
                List<String> lines = out.take();
                if (resend == ref.nakOut && !ref.retransmitted) {
                    assertEquals(List.of("drop NAK_REPEATED"), lines, "repeated NAK, seed " + seed);
                } else {
                    assertEquals(List.of("nak " + Psn.wire(resend) + " msn 0 syndrome 60"), lines,
                            "NAK passed on once with the PSN after the minimum, seed " + seed + " event " + e);
                    ref.nakOut = resend;
                    ref.retransmitted = false;
                    ref.ackOut = Math.max(ref.ackOut, resend - 1);
                    naks++;
                }
                continue;
            } else {
                // an ACK: usually ahead (coalescing any number), sometimes old, duplicated or beyond the data
                long p;
                int kind = rnd.nextInt(10);
                if (kind == 0) {
                    p = mine - rnd.nextInt(3);
                } else if (kind == 1) {
                    p = ref.sentNext + rnd.nextInt(3);
                } else {
                    p = mine + 1 + rnd.nextInt((int) Math.max(1, Math.min(64, ref.sentNext - mine - 1)));
                }
                agg.onAck(k, Psn.wire(p), 0, 0, e);
                step = "ack " + k + " " + p;
                List<String> lines = out.take();
                if (p >= ref.sentNext) {
                    assertEquals(List.of("drop BEYOND_SENT"), lines, step);
                    continue;
                }
                if (p <= mine) {
                    if (ref.reack) {
                        // the one re-ACK after a retransmission repeats what the sender has
                        assertEquals(List.of("ack " + Psn.wire(ref.ackOut) + " msn 0 credit 0"), lines, step);
                        ref.reack = false;
                    } else {
                        assertEquals(List.of(), lines, step);
                    }
                    continue;
                }
                ref.acked.put(k, p);
                acks++;
                checkAck(ref, lines, step + ", seed " + seed + " event " + e);
                continue;
            }
            checkAck(ref, out.take(), step + ", seed " + seed + " event " + e);
        }
        assertTrue(acks + naks > 0);
        assertEquals(Psn.wire(ref.ackOut), agg.acknowledged(), "seed " + seed);
    }

    /** One ACK exactly when the reference minimum advanced past what the sender has, with that minimum. */
    private static void checkAck(Reference ref, List<String> lines, String step) {
        long m = ref.min();
        if (m > ref.ackOut) {
            assertEquals(List.of("ack " + Psn.wire(m) + " msn 0 credit 0"), lines, step);
            ref.ackOut = m;
            ref.reack = false;
        } else {
            assertEquals(List.of(), lines, step);
        }
    }

    @Test
    void thousandsOfRandomInterleavingsAgreeWithTheReference() {
        int runs = 0;
        for (int n : new int[]{1, 2, 3, 5, 8, 32}) {
            for (int seed = 0; seed < 500; seed++) {
                run(seed * 7919L + n, n, 400);
                runs++;
            }
        }
        assertEquals(3000, runs);
    }

    @Test
    void largeGroupsAgreeWithTheReference() {
        for (int n : new int[]{256, 1024, 4096}) {
            for (int seed = 0; seed < 3; seed++) {
                run(seed * 104729L + n, n, 20 * n);
            }
        }
    }
}
