package org.mcast4ai.impl.bitmap;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.ReplicationMode;
import org.onlab.packet.IpAddress;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BitmapChoiceTest {
    private final BitmapStamp.Result fits = BitmapStamp.compile(BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 2)),
            BitmapFabrics.host(1, 1), List.of(BitmapFabrics.host(2, 1)), IpAddress.valueOf("239.1.1.1"), 100, 0);
    private final BitmapStamp.Result tooBig = BitmapStamp.compile(
            BitmapLayout.of(BitmapFabrics.leafSpine(2, 12, 4)), BitmapFabrics.host(1, 1),
            List.of(BitmapFabrics.host(2, 1)), IpAddress.valueOf("239.1.1.1"), 100, 0);

    @Test
    void autoChoosesBitmapWhenItFitsAndSaysWhy() {
        BitmapChoice c = BitmapChoice.decide(ReplicationMode.AUTO, true, fits);
        assertEquals(ReplicationMode.BITMAP, c.mode());
        assertTrue(c.reason().startsWith("AUTO chose BITMAP"), c.reason());
        assertNull(c.failure());
    }

    @Test
    void autoFallsBackToTreeWithTheReason() {
        BitmapChoice big = BitmapChoice.decide(ReplicationMode.AUTO, true, tooBig);
        assertEquals(ReplicationMode.TREE, big.mode());
        assertTrue(big.reason().contains("48 receiver positions"), big.reason());
        BitmapChoice p4 = BitmapChoice.decide(ReplicationMode.AUTO, false, fits);
        assertEquals(ReplicationMode.TREE, p4.mode());
        assertTrue(p4.reason().contains("OpenFlow"), p4.reason());
    }

    @Test
    void bitmapRequestsFailInsteadOfFallingBack() {
        BitmapChoice c = BitmapChoice.decide(ReplicationMode.BITMAP, true, tooBig);
        assertEquals(ReplicationMode.BITMAP, c.mode());
        assertTrue(c.failure().contains("46"), c.failure());
        assertNull(BitmapChoice.decide(ReplicationMode.BITMAP, true, fits).failure());
        assertEquals(ReplicationMode.TREE, BitmapChoice.decide(ReplicationMode.TREE, true, fits).mode());
    }
}
