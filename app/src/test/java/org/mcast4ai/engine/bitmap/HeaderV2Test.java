package org.mcast4ai.engine.bitmap;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricSnapshot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Version 2 of the header: bytes as specified, the planner's choices, and delivery through the switch rule. */
class HeaderV2Test {
    private static final FabricGeometry K8 = FabricGeometry.fatTree(8);

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(s.length() == 0 ? "" : " ").append(String.format("%02X", x & 0xFF));
        }
        return s.toString();
    }

    @Test
    void theSpecExamplesByteForByte() {
        HeaderV2Planner planner = new HeaderV2Planner(K8);
        HeaderV2Codec codec = planner.codec();
        // two receivers (2,1,3) and (5,0,0): one HOST section
        List<HeaderV2> two = planner.plan(new int[]{K8.bit(2, 1, 3), K8.bit(5, 0, 0)}, 0x1234);
        assertEquals("28 00 12 34 22 00 27 00 50 00", hex(codec.encode(two.get(0))));
        // pod 1: leaves 0 and 2 whole racks, leaf 3 slots 1 and 3; pod 6 leaf 1 whole: RACK, LEAF, POD
        int[] racks = concat(rack(1, 0), rack(1, 2), new int[]{K8.bit(1, 3, 1), K8.bit(1, 3, 3)},
                rack(6, 1));
        HeaderV2 h = planner.plan(racks, 7).get(0);
        assertEquals("28 00 00 07 41 00 64 61 00 1C 50 81 01 A0 00", hex(codec.encode(h)));
        assertArrayEquals(racks, h.receivers(K8));
        // four single receivers in one block of 256 bit indices, on four leaves: one BLOCK section
        int[] spread = {K8.bit(0, 0, 1), K8.bit(0, 1, 2), K8.bit(0, 2, 3), K8.bit(0, 3, 0)};
        assertEquals("28 00 00 00 A4 00 01 06 0B 0C 00", hex(codec.encode(planner.plan(spread, 0).get(0))));
        assertEquals(h, codec.decode(codec.encode(h)));
    }

    private static int[] rack(int pod, int leaf) {
        int[] r = new int[K8.slotsPerLeaf()];
        for (int s = 0; s < r.length; s++) {
            r[s] = K8.bit(pod, leaf, s);
        }
        return r;
    }

    private static int[] concat(int[]... parts) {
        return Arrays.stream(parts).flatMapToInt(Arrays::stream).sorted().toArray();
    }

    @Test
    void badBytesAreRefusedWithTheReason() {
        HeaderV2Codec codec = new HeaderV2Codec(K8);
        assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[]{0x18, 0, 0, 0, 0}));
        assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[]{0x28, 0, 0, 0, 0x22, 0, 1}));
        assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[]{0x28, 0, 0, 0, (byte) 0xE1, 0, 0}));
        assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[]{0x28, 0, 0, 0, 0x20, 0}));
        // out of kind order: a RACK section before a HOST section; BLOCK sections out of block order
        assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[]{0x28, 0, 0, 0, 0x41, 0, 4, 0x21,
            0, 1, 0}));
        assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[]{0x28, 0, 0, 0, (byte) 0xA1, 1, 0,
            (byte) 0xA1, 0, 0, 0}));
    }

    @Test
    void whatTheSpecRefusesIsRefusedWithTheReason() {
        // k=8: 8 pods x 4 leaves x 4 slots (3+2+2 bits); the fixed part 28 00 00 00
        refused(K8, "slot bits set", 0x41, 0x00, 0x0E);          // RACK prefix (0,3,2): would name the whole leaf
        refused(K8, "slot bits set", 0x61, 0x00, 0x0D, 0x80);    // LEAF prefix with slot 1
        refused(K8, "empty slot bitmap", 0x61, 0x00, 0x0C, 0x00);
        refused(K8, "slot bitmap names slot 4 of 4", 0x61, 0x00, 0x0C, 0x08);
        refused(K8, "outside", 0x21, 0x00, 0x80);                 // HOST: pod 8 of 8
        refused(K8, "outside", 0x21, 0x01, 0x00);                 // HOST: beyond 7 bits
        refused(K8, "outside", 0xA1, 0x00, 0x80);                 // BLOCK 0, low byte 0x80: pod 8
        refused(K8, "outside", 0x41, 0x00, 0x80);                 // RACK of pod 8
        refused(K8, "pod 8 beyond", 0x81, 0x08, 0x80);
        refused(K8, "empty leaf bitmap", 0x81, 0x01, 0x00);
        refused(K8, "leaf bitmap names leaf 4 of 4", 0x81, 0x01, 0x08);
        // a leaf-spine whose slots fill their field exactly: 20 leaves x 16 slots, virtual pods of 32 leaves
        FabricGeometry ls = FabricGeometry.leafSpine(20, 16);
        refused(ls, "outside", 0x21, 0x01, 0x40);                 // leaf 20 of 20
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new HeaderV2Codec(K8).decode(new byte[]{0x28, 0x01, 0, 0, 0x21, 0, 1, 0}));
        assertTrue(e.getMessage().contains("reserved bits"), e.getMessage());
        // and what it allows still decodes: the hop limit 0 is a switch's to drop, not the decoder's
        assertEquals(1, new HeaderV2Codec(K8).decode(new byte[]{0x20, (byte) 0x80, 0, 0, 0x21, 0, 1, 0})
                .sections().size());
    }

    private static void refused(FabricGeometry g, String why, int... section) {
        byte[] h = new byte[4 + section.length + 1];
        h[0] = 0x28;
        for (int i = 0; i < section.length; i++) {
            h[4 + i] = (byte) section[i];
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new HeaderV2Codec(g)
                .decode(h), () -> "accepted " + hex(h));
        assertTrue(e.getMessage().contains(why), hex(h) + ": " + e.getMessage());
    }

    /**
     * Valid headers with one or two bits flipped: whatever the decoder accepts names only positions of the
     * geometry and is the one encoding of its receivers that the codec writes back byte for byte, so no switch
     * that follows the spec can be made to copy to a host the header's writer did not name.
     */
    @Test
    void whatTheDecoderAcceptsIsCanonicalAndInsideTheGeometry() {
        Random rnd = new Random(37);
        int accepted = 0;
        int refused = 0;
        for (int trial = 0; trial < 20_000; trial++) {
            FabricGeometry g = new FabricGeometry[]{K8, FabricGeometry.fatTree(4), FabricGeometry.leafSpine(20, 12),
                FabricGeometry.fatTree(48)}[trial % 4];
            HeaderV2Planner planner = new HeaderV2Planner(g, HeaderV2Planner.DEFAULT_MAX_BYTES,
                    HeaderV2Planner.Limits.NONE);
            int[] bits = pick(g, 1 + rnd.nextInt(12), 3, rnd);
            byte[] b = planner.codec().encode(planner.plan(bits, rnd.nextInt(1 << 16)).get(0));
            for (int flips = 1 + rnd.nextInt(2); flips > 0; flips--) {
                int at = 1 + rnd.nextInt(b.length - 1);
                b[at] ^= (byte) (1 << rnd.nextInt(8));
            }
            HeaderV2 h;
            try {
                h = planner.codec().decode(b);
            } catch (IllegalArgumentException e) {
                refused++;
                continue;
            }
            accepted++;
            for (int r : h.receivers(g)) {
                assertTrue(g.isValid(r), "position " + r + " from " + hex(b));
            }
            byte[] again = planner.codec().encode(h);
            assertArrayEquals(Arrays.copyOf(b, again.length), again, "re-encoded " + hex(b));
        }
        assertTrue(accepted > 1_000 && refused > 1_000, "the flips reach both: " + accepted + " accepted, "
                + refused + " refused");
    }

    /**
     * @return at least n (or every) positions at random, ascending; one pick in {@code rackOdds} brings its
     *         whole rack
     */
    private static int[] pick(FabricGeometry g, int n, int rackOdds, Random rnd) {
        Set<Integer> picked = new HashSet<>();
        while (picked.size() < Math.min(n, g.capacity())) {
            int b = g.bit(rnd.nextInt(g.pods()), rnd.nextInt(g.leavesPerPod()), rnd.nextInt(g.slotsPerLeaf()));
            picked.add(b);
            if (rnd.nextInt(rackOdds) == 0) {
                for (int s = 0; s < g.slotsPerLeaf(); s++) {
                    picked.add(b >>> g.slotBits() << g.slotBits() | s);
                }
            }
        }
        return picked.stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    @Test
    void twoWholeRacksOfAPodGoAsOnePodEntryAtK48() {
        FabricGeometry g = FabricGeometry.fatTree(48);
        HeaderV2Planner planner = new HeaderV2Planner(g, HeaderV2Planner.DEFAULT_MAX_BYTES,
                HeaderV2Planner.Limits.NONE);
        int[] bits = new int[3 * g.slotsPerLeaf()];
        int n = 0;
        for (int[] rack : new int[][]{{5, 1}, {5, 7}, {9, 3}}) {
            for (int s = 0; s < g.slotsPerLeaf(); s++) {
                bits[n++] = g.bit(rack[0], rack[1], s);
            }
        }
        HeaderV2 h = planner.plan(bits, 0).get(0);
        // the lone rack of pod 9 as RACK (2 B), the two of pod 5 as one POD entry (4 B, as two RACK entries)
        assertEquals("[RACK[" + g.bit(9, 3, 0) + "], POD[5]]", h.sections().toString());
        assertEquals(4 + 1 + (1 + 2) + (1 + 4), planner.codec().size(h));
    }

    @Test
    void randomHeadersRoundTripAndTrimToExactlyTheKeptLeaves() {
        Random rnd = new Random(2);
        for (int trial = 0; trial < 500; trial++) {
            FabricGeometry g = rnd.nextBoolean() ? FabricGeometry.fatTree(new int[]{4, 8, 16, 48}[rnd.nextInt(4)])
                    : FabricGeometry.leafSpine(2 + rnd.nextInt(200), 1 + rnd.nextInt(48));
            HeaderV2Planner planner = new HeaderV2Planner(g, 64 + rnd.nextInt(400),
                    rnd.nextBoolean() ? HeaderV2Planner.Limits.P4 : HeaderV2Planner.Limits.NONE);
            int[] bits = pick(g, 1 + rnd.nextInt(300), 4, rnd);
            List<HeaderV2> sets = planner.plan(bits, rnd.nextInt(1 << 16));
            List<Integer> all = new ArrayList<>();
            for (HeaderV2 h : sets) {
                byte[] wire = planner.codec().encode(h);
                assertTrue(wire.length <= 64 + 400, "within budget");
                assertEquals(planner.codec().size(h), wire.length);
                assertEquals(h, planner.codec().decode(wire));
                assertTrue(planner.limits().admits(h), "within " + planner.limits() + ": " + h);
                int[] r = h.receivers(g);
                Arrays.stream(r).forEach(all::add);
                int keepMod = 2 + rnd.nextInt(3);
                HeaderV2 t = h.trim(g, leaf -> leaf % keepMod == 0);
                int[] expected = Arrays.stream(r).filter(b -> (b >>> g.slotBits()) % keepMod == 0).toArray();
                assertArrayEquals(expected, t.receivers(g), "trim keeps exactly the kept leaves' receivers");
                assertEquals(h.hopLimit() - 1, t.hopLimit());
            }
            assertArrayEquals(bits, all.stream().mapToInt(Integer::intValue).toArray(),
                    "the sets partition the receivers, in order");
        }
    }

    @Test
    void aSetIsCutWhereItWouldHoldMoreSectionsThanTheSwitchesParse() {
        // one receiver on each of 128 leaves, one leaf per block (a pod of 32 leaves of 8 slots is 256 bits):
        // HOST entries only, 5 sections' worth
        FabricGeometry g = FabricGeometry.leafSpine(4096, 8);
        int[] bits = new int[128];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = g.bit(i, 0, 1);
        }
        HeaderV2Planner spec = new HeaderV2Planner(g, HeaderV2Planner.DEFAULT_MAX_BYTES, HeaderV2Planner.Limits.NONE);
        List<HeaderV2> one = spec.plan(bits, 0);
        assertEquals(1, one.size());
        assertEquals(5, one.get(0).sections().size(), "the spec alone would send 5 HOST sections");
        List<HeaderV2> p4 = new HeaderV2Planner(g).plan(bits, 0);
        assertEquals(2, p4.size(), "124 HOST entries fit in the program's four sections");
        assertEquals(124, p4.get(0).receivers(g).length);
        for (HeaderV2 h : p4) {
            assertTrue(HeaderV2Planner.Limits.P4.admits(h), h.toString());
        }
        assertThrows(IllegalArgumentException.class, () -> new HeaderV2Planner.Limits(2, 0, 1, 1, 4, true));
    }

    @Test
    void everyReceiverExactlyOnceThroughTheSwitchRuleWithAndWithoutFailures() {
        Random rnd = new Random(20261202);
        for (int trial = 0; trial < 300; trial++) {
            FabricSnapshot whole = ReplicationPropertyTest.randomFabric(rnd);
            BitIndexTable bits = BitIndexTable.forFabric(whole);
            int source = rnd.nextInt(whole.hostCount());
            FabricSnapshot f = whole;
            String fault = "nothing";
            if (trial % 2 == 1) {
                fault = FailureSafeReplicationTest.fault(whole, source, rnd);
                f = FailureSafeReplicationTest.fail(whole, fault);
            }
            ReplicationSimulator sim = new ReplicationSimulator(f, SwitchTables.build(f, bits));
            int n = 1 + rnd.nextInt(whole.hostCount() - 1);
            int[] group = new int[][]{Groups.random(whole, n, source, rnd), Groups.rackPacked(whole, n, source),
                    Groups.randomRacks(whole, n, source, rnd)}[rnd.nextInt(3)];
            HeaderV2Planner planner = new HeaderV2Planner(bits.geometry(), new int[]{32, 64, 384}[rnd.nextInt(3)]);
            List<HeaderV2> sets = planner.planHosts(bits.hostBits(whole), group, rnd.nextInt(1 << 16));
            boolean[] reach = FailureSafeReplicationTest.reachable(f, source, group);
            ReplicationSimulator.Replication r = sim.simulate(source, sets, 1000);
            String what = "trial " + trial + " " + whole + " without " + fault + ", " + group.length
                    + " receivers in " + sets.size() + " sets";
            int lost = 0;
            boolean[] expected = new boolean[f.hostCount()];
            for (int i = 0; i < group.length; i++) {
                expected[group[i]] = reach[i];
                lost += reach[i] ? 0 : 1;
            }
            for (int h = 0; h < f.hostCount(); h++) {
                assertEquals(expected[h] ? 1 : 0, r.copiesAt(h), f.hostName(h) + ": " + what);
            }
            assertEquals(0, r.revisits(), what);
            assertEquals(lost, r.dropped(), what);
            if (sets.size() == 1 && lost == 0 && f == whole) {
                assertEquals(Groups.optimumLinks(f, source, group), r.linksUsed(), "minimum links: " + what);
            }
        }
    }
}
