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
 * receiver shares, receivers that die at random times, and a partition that cuts every receiver off for longer
 * than the stall timeout. Only a receiver that is dead is ever evicted, a partition alone evicts nobody, the group
 * never runs out of active receivers, and the transfer ends once the dead are out.
 */
class StallRuleTest {
    private static final long MS = 1_000_000L;
    private static final long STALL = 100 * MS;
    private static final int START = Psn.MASK - 40;   // across the wrap
    private static final int PACKETS = 400;

    private static void run(long seed) {
        Random rnd = new Random(seed);
        int n = 1 + rnd.nextInt(8);
        Recorder out = new Recorder(k -> Long.toString(k));
        AckAggregator agg = new AckAggregator(START, new AckAggregator.Config(true, STALL, 0, 0), out, n);
        long[] got = new long[n + 1];
        long[] deadFrom = new long[n + 1];
        for (int k = 1; k <= n; k++) {
            agg.addReceiver(k, START, 0);
            got[k] = START - 1L;
            // about a third of the receivers die, at any time
            deadFrom[k] = rnd.nextInt(3) == 0 ? rnd.nextInt(2000) * MS : Long.MAX_VALUE;
        }
        boolean partitioned = rnd.nextBoolean();
        long cutFrom = (200 + rnd.nextInt(800)) * MS;
        long cutTo = cutFrom + (150 + rnd.nextInt(400)) * MS;
        long sent = START;          // next PSN to send, extended
        long acked = START - 1L;    // what the sender holds as acknowledged, extended
        long lastProgress = 0;
        Set<String> stalled = new HashSet<>();
        for (long t = 0; t < 6000 * MS && acked < START + PACKETS - 1L; t += MS) {
            boolean cut = partitioned && t >= cutFrom && t < cutTo;
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
                if (cut || rnd.nextInt(20) == 0) {
                    continue;
                }
                for (int k = 1; k <= n; k++) {
                    if (t >= deadFrom[k]) {
                        continue;
                    }
                    if (p == got[k] + 1) {
                        got[k] = p;
                    }
                    agg.onAck(k, Psn.wire(got[k]), 0, 0, t);
                }
            }
            if (t % (10 * MS) == 0) {
                agg.tick(t);
            }
            for (String line : out.take()) {
                if (line.startsWith("stalled ")) {
                    String who = line.substring(8);
                    int k = Integer.parseInt(who);
                    assertTrue(t >= deadFrom[k], "seed " + seed + ": receiver " + k + " alive but evicted at "
                            + t / MS + " ms" + (cut ? " (partition)" : ""));
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
        int alive = 0;
        for (int k = 1; k <= n; k++) {
            alive += deadFrom[k] == Long.MAX_VALUE ? 1 : 0;
        }
        if (alive > 0) {
            assertEquals(START + PACKETS - 1L, acked, "seed " + seed + ": the transfer ends once the dead are out");
        }
        if (alive == n) {
            assertEquals(Set.of(), stalled, "seed " + seed + ": nobody dead, nobody evicted");
        }
    }

    @Test
    void onlyTheDeadAreEvictedAndAPartitionEvictsNobody() {
        for (long seed = 0; seed < 400; seed++) {
            run(seed);
        }
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
        assertEquals(List.of(), out.take());
        assertEquals(2, agg.commonStalls());
        assertEquals(0, agg.stalls());
        for (long k = 1; k <= 3; k++) {
            assertFalse(agg.isStalled(k));
        }
    }
}
