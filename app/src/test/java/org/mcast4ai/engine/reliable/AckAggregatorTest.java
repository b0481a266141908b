package org.mcast4ai.engine.reliable;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the known-answer vectors ({@link AggregationVectorsTest}) do not state: refused joins, the counters, the
 * serial arithmetic itself.
 */
class AckAggregatorTest {
    private static final long MS = 1_000_000L;
    private static final long A = AckAggregator.key(0x0a000002, 0x11);
    private static final long B = AckAggregator.key(0x0a000003, 0x12);
    private static final long STRANGER = AckAggregator.key(0x0a000009, 0x11);

    private static AckAggregator twoReceivers(Recorder out) {
        AckAggregator agg = new AckAggregator(100, new AckAggregator.Config(true, 100 * MS, 50 * MS, 10 * MS),
                out, 1);
        agg.addReceiver(A, 100, 0);
        agg.addReceiver(B, 100, 0);
        return agg;
    }

    @Test
    void aJoinBeforeTheAcknowledgedPsnOrPastTheNextOneIsRefused() {
        Recorder out = new Recorder();
        AckAggregator agg = twoReceivers(out);
        for (int p = 100; p <= 104; p++) {
            agg.onData(p, 0);
        }
        agg.onAck(A, 104, 0, 0, 1);
        agg.onAck(B, 102, 0, 0, 1);
        long c = AckAggregator.key(0x0a000004, 0x13);
        assertThrows(IllegalArgumentException.class, () -> agg.addReceiver(c, 102, 2), "data the sender freed");
        assertThrows(IllegalArgumentException.class, () -> agg.addReceiver(c, 106, 2), "not sent yet");
        assertThrows(IllegalArgumentException.class, () -> agg.addReceiver(A, 105, 2), "already a receiver");
        agg.addReceiver(c, 103, 2);
        assertEquals(3, agg.receivers());
        assertTrue(agg.removeReceiver(c, 3));
        assertFalse(agg.removeReceiver(c, 3));
    }

    @Test
    void countersCountEveryPacketOnce() {
        Recorder out = new Recorder();
        AckAggregator agg = twoReceivers(out);
        for (int p = 100; p <= 109; p++) {
            agg.onData(p, 0);
        }
        agg.onAck(A, 105, 0, 0, 1);
        agg.onAck(B, 105, 0, 0, 1);
        agg.onAck(A, 109, 0, 0, 1);
        agg.onAck(A, 110, 0, 0, 1);
        agg.onAck(STRANGER, 105, 0, 0, 1);
        agg.onNak(B, 107, AckAggregator.NAK_SEQUENCE, 0, 2);
        agg.onNak(B, 107, AckAggregator.NAK_SEQUENCE, 0, 2);
        agg.onCnp(A, 3);
        agg.onCnp(B, 3);
        assertEquals(List.of("ack 105 msn 0 credit 0", "drop BEYOND_SENT", "drop NON_MEMBER",
                "nak 107 msn 0 syndrome 60", "drop NAK_REPEATED", "cnp", "drop CNP_RATE"), out.take());
        assertEquals(4, agg.acksIn(), "the stranger's ACK is not counted as in");
        assertEquals(1, agg.acksOut());
        assertEquals(2, agg.naksIn());
        assertEquals(1, agg.naksOut());
        assertEquals(2, agg.cnpsIn());
        assertEquals(1, agg.cnpsOut());
        assertEquals(1, agg.dropped(AggregationOutput.Drop.BEYOND_SENT));
        assertEquals(1, agg.dropped(AggregationOutput.Drop.NON_MEMBER));
        assertEquals(106, agg.acknowledged(), "the NAK for 107 acknowledged 106");
        assertEquals(110, agg.nextPsn());
    }

    @Test
    void serialArithmeticTakesTheNearestValue() {
        assertEquals(1, Psn.distance(0, Psn.MASK));
        assertEquals(-1, Psn.distance(Psn.MASK, Psn.MODULUS));
        assertEquals(Psn.MODULUS + 5, Psn.extend(5, Psn.MODULUS - 3));
        assertEquals(Psn.MODULUS - 3, Psn.extend(Psn.MASK - 2, Psn.MODULUS + 5));
        assertEquals(Psn.HALF - 1, Psn.distance((int) (Psn.HALF - 1), 0), "the furthest still ahead");
        assertEquals(-Psn.HALF, Psn.distance((int) Psn.HALF, 0), "half way round is behind");
        assertEquals(7, Psn.wire(3 * Psn.MODULUS + 7));
    }
}
