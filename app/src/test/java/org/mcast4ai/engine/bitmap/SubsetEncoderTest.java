package org.mcast4ai.engine.bitmap;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SubsetEncoderTest {
    private final FabricGeometry g = FabricGeometry.fatTree(48);
    private final Map<String, Integer> bitMap = Map.of(
            "h-a", g.bit(3, 1, 2), "h-b", g.bit(0, 5, 0), "h-c", g.bit(40, 23, 23), "h-d", g.bit(3, 1, 7));
    private final SubsetEncoder enc = new SubsetEncoder(new HeaderV2Planner(g), bitMap);

    @Test
    void ranksFollowBitIndexOrder() {
        assertEquals(0, enc.rank("h-b"));
        assertEquals(1, enc.rank("h-a"));
        assertEquals(2, enc.rank("h-d"));
        assertEquals(3, enc.rank("h-c"));
        assertArrayEquals(new int[]{1, 3}, enc.ranks(List.of("h-c", "h-a")));
        assertThrows(IllegalArgumentException.class, () -> enc.rank("h-zz"));
    }

    @Test
    void headerCarriesExactlyTheSubset() {
        List<HeaderV2> h = enc.headers(0x1234, 1, 3);
        assertEquals(1, h.size());
        assertArrayEquals(new int[]{g.bit(3, 1, 2), g.bit(40, 23, 23)}, h.get(0).receivers(g));
        assertEquals(0x1234, h.get(0).entropy());
    }

    @Test
    void rankListAddressRoundTrips() {
        byte[] a = enc.address(0xfd4c, 77, 3, 0, 2);
        assertEquals((byte) 0xfd, a[0]);
        assertEquals((byte) 0x4c, a[1]);
        assertEquals(77, SubsetEncoder.groupOf(a));
        assertEquals(0, a[2] & 0x80, "rank list form");
        assertArrayEquals(new int[]{0, 2, 3}, SubsetEncoder.ranksOf(a));
        // entries: 0x000, 0x002, 0x003, then 0xFFF
        assertEquals(0x00, a[4]);
        assertEquals(0x00, a[5]);
        assertEquals(0x02, a[6]);
        assertEquals(0x00, a[7]);
        assertEquals(0x3F, a[8]);
    }

    @Test
    void outOfRangeRanksAreRefusedClearly() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> enc.headers(0, 4));
        assertTrue(e.getMessage().contains("rank 4"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> enc.address(0xfd4c, 40000, 1));
    }
}
