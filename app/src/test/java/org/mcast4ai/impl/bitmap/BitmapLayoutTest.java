package org.mcast4ai.impl.bitmap;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BitmapLayoutTest {

    @Test
    void leafSpineReachSets() {
        BitmapLayout l = BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 2));
        assertTrue(l.fits());
        assertEquals(0xFFL, l.allBits());
        assertEquals(0, l.bitOfHost(BitmapFabrics.host(1, 1)));
        assertEquals(7, l.bitOfHost(BitmapFabrics.host(4, 2)));
        BitmapLayout.SwitchPorts leaf2 = l.switchPorts(BitmapFabrics.leaf(2));
        assertArrayEquals(new long[]{1, 2}, leaf2.downPorts());
        assertEquals(1L << 2, leaf2.downReach(0));
        assertEquals(1L << 3, leaf2.downReach(1));
        assertTrue(leaf2.downIsHost(0));
        assertArrayEquals(new long[]{3, 4}, leaf2.upPorts());
        assertEquals(0xF3L, leaf2.upReach(), "bits outside the rack");
        BitmapLayout.SwitchPorts spine = l.switchPorts(BitmapFabrics.spine(1));
        assertArrayEquals(new long[]{1, 2, 3, 4}, spine.downPorts());
        assertEquals(0x0CL, spine.downReach(1));
        assertFalse(spine.downIsHost(1));
        assertEquals(0, spine.upReach(), "a 2-tier spine never sends up");
        assertArrayEquals(new long[]{1, 2, 3, 4}, spine.fromBelow());
    }

    @Test
    void fatTreeReachSets() {
        FabricSnapshot ft = FabricGenerators.fatTree(4);
        BitmapLayout l = BitmapLayout.of(ft);
        assertTrue(l.fits());
        assertEquals(16, Long.bitCount(l.allBits()));
        BitmapLayout.SwitchPorts agg = l.switchPorts("agg1-1");
        assertEquals(2, agg.downPorts().length);
        assertEquals(4, Long.bitCount(agg.subtree()));
        assertEquals(12, Long.bitCount(agg.upReach()));
        assertEquals(2, agg.upPorts().length);
        BitmapLayout.SwitchPorts core = l.switchPorts("core1-1");
        assertEquals(4, core.downPorts().length);
        long union = 0;
        for (int i = 0; i < 4; i++) {
            assertEquals(4, Long.bitCount(core.downReach(i)), "one pod per core port");
            assertEquals(0, union & core.downReach(i), "disjoint");
            union |= core.downReach(i);
        }
        assertEquals(l.allBits(), union);
    }

    @Test
    void capacityIsFortySixPositions() {
        assertTrue(BitmapLayout.of(BitmapFabrics.leafSpine(2, 23, 2)).fits());
        BitmapLayout big = BitmapLayout.of(BitmapFabrics.leafSpine(2, 12, 4));
        assertFalse(big.fits());
        String why = big.whyNot().orElseThrow();
        assertTrue(why.contains("48 receiver positions") && why.contains("46"), why);
        assertFalse(BitmapLayout.of(FabricGenerators.fatTree(6)).fits(), "54 hosts");
    }

    @Test
    void givenIndicesAreUsedDirectlyWhenTheyFit() {
        FabricSnapshot f = BitmapFabrics.leafSpine(2, 2, 2);
        Map<String, Integer> idx = new HashMap<>();
        idx.put(BitmapLayout.positionKey(BitmapFabrics.leaf(1), 1), 0);
        idx.put(BitmapLayout.positionKey(BitmapFabrics.leaf(1), 2), 1);
        idx.put(BitmapLayout.positionKey(BitmapFabrics.leaf(2), 1), 4);
        idx.put(BitmapLayout.positionKey(BitmapFabrics.leaf(2), 2), 5);
        BitmapLayout direct = BitmapLayout.of(f, idx);
        assertFalse(direct.compacted());
        assertEquals(5, direct.bitOfHost(BitmapFabrics.host(2, 2)));
        idx.put(BitmapLayout.positionKey(BitmapFabrics.leaf(2), 2), 900);
        BitmapLayout dense = BitmapLayout.of(f, idx);
        assertTrue(dense.compacted());
        assertEquals(3, dense.bitOfHost(BitmapFabrics.host(2, 2)));
        idx.remove(BitmapLayout.positionKey(BitmapFabrics.leaf(2), 2));
        BitmapLayout missing = BitmapLayout.of(f, idx);
        assertFalse(missing.fits());
        assertEquals(-1, missing.bitOfHost(BitmapFabrics.host(2, 2)));
    }
}
