package org.mcast4ai.engine.bitmap;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HeaderCodecTest {
    private static final FabricGeometry K8 = FabricGeometry.fatTree(8);   // 8 pods, 4 leaves, 4 slots
    private final HeaderCodec codec = new HeaderCodec(K8);

    @Test
    void listBytesAreTheSpecExample() {
        // pod 2, leaf 1, slot 3 = 2<<4 | 1<<2 | 3 = 0x27 ; pod 5 leaf 0 slot 0 = 0x50
        byte[] b = codec.encode(BitmapHeader.of(Encoding.LIST, 0x50, 0x27));
        assertArrayEquals(bytes(0x11, 8, 0, 10, 0x86, 0xDD, 0x00, 0x27, 0x00, 0x50), b);
    }

    @Test
    void fabricBytesAreTheSpecExample() {
        // pod 1: leaf 0 whole rack (4 slots), leaf 2 slots 1 and 3; pod 6: leaf 3 slot 0
        int[] bits = {K8.bit(1, 0, 0), K8.bit(1, 0, 1), K8.bit(1, 0, 2), K8.bit(1, 0, 3),
            K8.bit(1, 2, 1), K8.bit(1, 2, 3), K8.bit(6, 3, 0)};
        byte[] b = codec.encode(BitmapHeader.of(Encoding.FABRIC, bits));
        assertArrayEquals(bytes(0x12, 8, 0, 17, 0x86, 0xDD,
                0x42,                         // pod bitmap: pods 1 and 6
                0, 5, 0xA0, 0x80, 0x50,       // pod 1: length 5, present {0,2}, full {0}, leaf 2 slots {1,3}
                0, 5, 0x10, 0x00, 0x80), b);  // pod 6: length 5, present {3}, full {}, leaf 3 slots {0}
    }

    @Test
    void leafAndPodBytesAreTheSpecExample() {
        byte[] whole = codec.encode(BitmapHeader.of(Encoding.LEAF, K8.bit(3, 1, 0), K8.bit(3, 1, 1),
                K8.bit(3, 1, 2), K8.bit(3, 1, 3)));
        assertArrayEquals(bytes(0x14, 8, 0, 8, 0x86, 0xDD, 0x00, 0x34), whole, "whole rack: no slot bitmap");
        byte[] pod = codec.encode(BitmapHeader.of(Encoding.POD, K8.bit(3, 1, 2)));
        assertArrayEquals(bytes(0x13, 8, 0, 13, 0x86, 0xDD, 0, 3, 0, 5, 0x40, 0x00, 0x20), pod);
    }

    @Test
    void everyEncodingRoundTripsAndSizeMatches() {
        Random rnd = new Random(7);
        FabricGeometry[] geometries = {K8, FabricGeometry.fatTree(48), FabricGeometry.leafSpine(1024, 48),
            new FabricGeometry(true, 5, 3, 7)};
        for (FabricGeometry g : geometries) {
            HeaderCodec c = new HeaderCodec(g);
            for (int trial = 0; trial < 300; trial++) {
                int[] bits = randomBits(g, rnd, 1 + rnd.nextInt(200), rnd.nextInt(3));
                for (Encoding e : Encoding.values()) {
                    int[] scoped = scope(g, e, bits);
                    BitmapHeader h = BitmapHeader.of(e, scoped);
                    byte[] b = c.encode(h);
                    assertEquals(c.size(h), b.length);
                    assertEquals(h, c.decode(b), g + " " + e);
                    byte[] padded = Arrays.copyOf(b, b.length + 9);
                    assertEquals(h, c.decode(padded), "payload after the header is ignored");
                }
            }
        }
    }

    @Test
    void emptyHeadersRoundTrip() {
        for (Encoding e : Encoding.values()) {
            BitmapHeader h = BitmapHeader.of(e);
            assertEquals(h, codec.decode(codec.encode(h)));
        }
    }

    @Test
    void badBytesGetAClearError() {
        byte[] good = codec.encode(BitmapHeader.of(Encoding.FABRIC, K8.bit(1, 2, 3), K8.bit(4, 0, 0)));
        assertError("shorter", new byte[3]);
        byte[] v2 = good.clone();
        v2[0] = 0x22;
        assertError("version", v2);
        byte[] enc = good.clone();
        enc[0] = 0x19;
        assertError("encoding", enc);
        assertError("length", Arrays.copyOf(good, good.length - 1));
        byte[] section = good.clone();
        section[8] = 9; // first pod section's declared length
        assertError("section length", section);
        byte[] list = codec.encode(BitmapHeader.of(Encoding.LIST, 5, 9));
        list[7] = 9;
        list[9] = 5;
        assertError("out of order", list);
        assertThrows(IllegalArgumentException.class,
                () -> codec.encode(BitmapHeader.of(Encoding.POD, K8.bit(1, 0, 0), K8.bit(2, 0, 0))));
        assertThrows(IllegalArgumentException.class, () -> codec.encode(BitmapHeader.of(Encoding.LIST, 0xFFFF)));
    }

    @Test
    void slicingNarrowsHierarchicalHeadersAndKeepsLists() {
        BitmapHeader fab = BitmapHeader.of(Encoding.FABRIC, K8.bit(1, 0, 0), K8.bit(1, 2, 1), K8.bit(6, 3, 0));
        BitmapHeader pod1 = fab.slice(K8.bit(1, 0, 0), K8.bit(2, 0, 0), Encoding.POD);
        assertEquals(Encoding.POD, pod1.encoding());
        assertArrayEquals(new int[]{K8.bit(1, 0, 0), K8.bit(1, 2, 1)}, pod1.bits());
        assertEquals(BitmapHeader.DEFAULT_TTL - 1, pod1.ttl());
        BitmapHeader leaf = pod1.slice(K8.bit(1, 2, 0), K8.bit(1, 3, 0), Encoding.LEAF);
        assertEquals(Encoding.LEAF, leaf.encoding());
        BitmapHeader up = fab.without(K8.bit(1, 0, 0), K8.bit(1, 1, 0));
        assertEquals(Encoding.FABRIC, up.encoding());
        assertArrayEquals(new int[]{K8.bit(1, 2, 1), K8.bit(6, 3, 0)}, up.bits());
        BitmapHeader list = BitmapHeader.of(Encoding.LIST, 3, 40, 90).slice(32, 64, Encoding.POD);
        assertEquals(Encoding.LIST, list.encoding());
        assertArrayEquals(new int[]{40}, list.bits());
    }

    private void assertError(String expected, byte[] bytes) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> codec.decode(bytes));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    static int[] randomBits(FabricGeometry g, Random rnd, int n, int mode) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            int pod = rnd.nextInt(mode == 0 ? g.pods() : Math.min(g.pods(), 2));
            int leaf = rnd.nextInt(mode == 1 ? Math.min(2, g.leavesPerPod()) : g.leavesPerPod());
            out[i] = g.bit(pod, leaf, rnd.nextInt(g.slotsPerLeaf()));
        }
        if (mode == 2) {
            // add whole racks
            int pod = rnd.nextInt(g.pods());
            int leaf = rnd.nextInt(g.leavesPerPod());
            int[] rack = new int[g.slotsPerLeaf()];
            for (int s = 0; s < rack.length; s++) {
                rack[s] = g.bit(pod, leaf, s);
            }
            int[] both = Arrays.copyOf(out, n + rack.length);
            System.arraycopy(rack, 0, both, n, rack.length);
            return both;
        }
        return out;
    }

    private static int[] scope(FabricGeometry g, Encoding e, int[] bits) {
        if (e == Encoding.POD) {
            int pod = g.podOf(bits[0]);
            return Arrays.stream(bits).filter(b -> g.podOf(b) == pod).toArray();
        }
        if (e == Encoding.LEAF) {
            int leaf = bits[0] >>> g.slotBits();
            return Arrays.stream(bits).filter(b -> b >>> g.slotBits() == leaf).toArray();
        }
        return bits;
    }

    private static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }
}
