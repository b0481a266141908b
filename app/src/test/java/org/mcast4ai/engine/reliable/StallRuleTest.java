package org.mcast4ai.engine.reliable;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stall rule under simulated transfers: a go-back-N sender with a retransmission timeout, losses every
 * receiver shares, receivers that coalesce their ACKs (so they stand at different PSNs when a cut comes), receivers
 * that die at random times, and partitions longer than the stall timeout: one that cuts every receiver off, and one
 * that cuts all but the receiver on the sender's leaf. Only a dead receiver is ever evicted, a partition alone
 * evicts nobody, the group never runs out of active receivers, and the transfer ends unless the dead it still waits
 * for are half of its active receivers or more (then only the controller's eviction ends it).
 */
class StallRuleTest {
    private static final long MS = 1_000_000L;
    private static final long STALL = 100 * MS;
    private static final int START = Psn.MASK - 40;   // across the wrap
    private static final int PACKETS = 400;

    /** What one simulated transfer came to. */
    private static final class Outcome {
        final boolean ended;
        final int evicted;

        Outcome(boolean ended, int evicted) {
            this.ended = ended;
            this.evicted = evicted;
        }
    }

    private static Outcome run(long seed) {
        Random rnd = new Random(seed);
        int n = 1 + rnd.nextInt(12);
        Recorder out = new Recorder(k -> Long.toString(k));
        AckAggregator agg = new AckAggregator(START, new AckAggregator.Config(true, STALL, 0, 0), out, n);
        long[] got = new long[n + 1];
        long[] deadFrom = new long[n + 1];
        int dead = 0;
        for (int k = 1; k <= n; k++) {
            agg.addReceiver(k, START, 0);
            got[k] = START - 1L;
            // about a third of the receivers die, at any time
            deadFrom[k] = rnd.nextInt(3) == 0 ? rnd.nextInt(2000) * MS : Long.MAX_VALUE;
            dead += deadFrom[k] == Long.MAX_VALUE ? 0 : 1;
        }
        // 0: no partition; 1: every receiver cut off; 2: all but receiver 1, the one on the sender's leaf
        int partition = rnd.nextInt(3);
        long cutFrom = (200 + rnd.nextInt(800)) * MS;
        long cutTo = cutFrom + (150 + rnd.nextInt(400)) * MS;
        long sent = START;          // next PSN to send, extended
        long acked = START - 1L;    // what the sender holds as acknowledged, extended
        long lastProgress = 0;
        Set<String> stalled = new HashSet<>();
        long t = 0;
        for (; t < 8000 * MS && acked < START + PACKETS - 1L; t += MS) {
            boolean cutNow = partition != 0 && t >= cutFrom && t < cutTo;
            List<Long> burst = new ArrayList<>();
            if (t - lastProgress > 50 * MS && sent > acked + 1) {
                // the sender's timeout: everything from the first unacknowledged PSN again
                for (long p = acked + 1; p < sent; p++) {
                    burst.add(p);
                }
                lastProgress = t;
            } else if (sent < START + PACKETS && sent - acked < 32) {
                burst.add(sent++);
            }
            for (long p : burst) {
                agg.onData(Psn.wire(p), t);
                // a loss every receiver shares
                if (rnd.nextInt(20) == 0) {
                    continue;
                }
                for (int k = 1; k <= n; k++) {
                    if (t >= deadFrom[k] || cutNow && (partition == 1 || k > 1)) {
                        continue;
                    }
                    if (p == got[k] + 1) {
                        got[k] = p;
                    }
                    // ACKs coalesced: one in three new packets, and every duplicate
                    if (p < got[k] || rnd.nextInt(3) == 0 || p == sent - 1) {
                        agg.onAck(k, Psn.wire(got[k]), 0, 0, t);
                    }
                }
            }
            if (t % (10 * MS) == 0) {
                agg.tick(t);
            }
            for (String line : out.take()) {
                if (line.startsWith("stalled ")) {
                    String who = line.substring(8);
                    int k = Integer.parseInt(who);
                    assertTrue(t >= deadFrom[k], "seed " + seed + ": receiver " + k + " of " + n + " alive but "
                            + "evicted at " + t / MS + " ms" + (cutNow ? " (partition " + partition + ")" : ""));
                    stalled.add(who);
                } else if (line.startsWith("ack ")) {
                    long a = Psn.extend(Integer.parseInt(line.split(" ")[1]), acked);
                    if (a > acked) {
                        acked = a;
                        lastProgress = t;
                    }
                }
            }
            assertTrue(stalled.size() < n, "seed " + seed + ": no receiver left");
        }
        boolean ended = acked == START + PACKETS - 1L;
        int waitedFor = 0;
        for (int k = 1; k <= n; k++) {
            waitedFor += deadFrom[k] != Long.MAX_VALUE && !stalled.contains(Integer.toString(k)) ? 1 : 0;
        }
        int active = n - stalled.size();
        if (!ended) {
            assertTrue(2 * waitedFor >= active, "seed " + seed + ": " + waitedFor + " dead of " + active
                    + " active receivers hold the transfer back; fewer than half must be evicted");
        }
        if (dead == 0) {
            assertTrue(ended, "seed " + seed + ": nobody dead, the transfer ends");
            assertEquals(Set.of(), stalled, "seed " + seed + ": nobody dead, nobody evicted");
        }
        return new Outcome(ended, stalled.size());
    }

    @Test
    void onlyTheDeadAreEvictedAndAPartitionEvictsNobody() {
        int endedAfterEvicting = 0;
        int heldByDead = 0;
        for (long seed = 0; seed < 400; seed++) {
            Outcome o = run(seed);
            endedAfterEvicting += o.ended && o.evicted > 0 ? 1 : 0;
            heldByDead += o.ended ? 0 : 1;
        }
        // both sides of the rule are reached: the dead evicted and the transfer ended, and dead ones that were
        // too many to tell from a partition left for the controller
        assertTrue(endedAfterEvicting > 50, "transfers that ended once the dead were evicted: " + endedAfterEvicting);
        assertTrue(heldByDead > 5, "transfers held by dead receivers half of the group or more: " + heldByDead);
    }

    @Test
    void aCommonStallEvictsNobodyAndIsCounted() {
        Recorder out = new Recorder();
        AckAggregator agg = new AckAggregator(100, new AckAggregator.Config(true, STALL, 0, 0), out, 3);
        for (long k = 1; k <= 3; k++) {
            agg.addReceiver(k, 100, 0);
        }
        for (int p = 100; p < 110; p++) {
            agg.onData(p, 0);
        }
        for (long k = 1; k <= 3; k++) {
            agg.onAck(k, 104, 0, 0, MS);
        }
        out.take();
        agg.tick(200 * MS);
        agg.tick(400 * MS);
        agg.tick(600 * MS);
        assertEquals(List.of(), out.take());
        assertEquals(3, agg.commonStalls());
        assertEquals(0, agg.stalls());
        for (long k = 1; k <= 3; k++) {
            assertFalse(agg.isStalled(k));
        }
    }
}
