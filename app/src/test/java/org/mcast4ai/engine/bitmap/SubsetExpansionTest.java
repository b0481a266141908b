package org.mcast4ai.engine.bitmap;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SubsetExpansionTest {
    private final FabricGeometry g = FabricGeometry.fatTree(48);

    /** Random groups on k=48 and random subsets: what the encoder addresses is what the expansion names. */
    @Test
    void expandsWhatTheEncoderAddressed() {
        Random rnd = new Random(48);
        for (int trial = 0; trial < 300; trial++) {
            int members = 1 + rnd.nextInt(SubsetExpansion.MAX_MEMBERS);
            Map<String, Integer> bitMap = new HashMap<>();
            TreeSet<Integer> used = new TreeSet<>();
            while (used.size() < members) {
                int b = g.bit(rnd.nextInt(g.pods()), rnd.nextInt(g.leavesPerPod()), rnd.nextInt(g.slotsPerLeaf()));
                if (used.add(b)) {
                    bitMap.put("h" + used.size(), b);
                }
            }
            SubsetEncoder enc = new SubsetEncoder(new HeaderV2Planner(g), bitMap);
            SubsetExpansion exp = SubsetExpansion.of(bitMap);
            boolean list = rnd.nextBoolean() || members > SubsetEncoder.BITMAP_RANKS;
            int limit = list ? members : Math.min(members, SubsetEncoder.BITMAP_RANKS);
            int k = 1 + rnd.nextInt(list ? Math.min(SubsetEncoder.MAX_LIST_RANKS, limit)
                    : Math.min(SubsetExpansion.MAX_RANKS, limit));
            int[] ranks = rnd.ints(0, limit).distinct().limit(k).toArray();
            byte[] address = enc.address(0xfd4c, trial, ranks);
            int entropy = rnd.nextInt(0x10000);
            HeaderV2 h = exp.expand(address, entropy).header();
            int[] want = Arrays.stream(ranks).map(enc::bitOfRank).sorted().toArray();
            assertArrayEquals(want, h.receivers(g), "trial " + trial);
            assertEquals(entropy, h.entropy());
            assertEquals(HeaderV2.DEFAULT_HOP_LIMIT, h.hopLimit());
            for (HeaderV2.Section s : h.sections()) {
                assertEquals(HeaderV2.Kind.HOST, s.kind());
            }
            assertEquals((want.length + HeaderV2.MAX_ENTRIES - 1) / HeaderV2.MAX_ENTRIES, h.sections().size());
            assertArrayEquals(h.sections().toArray(), new HeaderV2Codec(g).decode(new HeaderV2Codec(g).encode(h))
                    .sections().toArray(), "the expanded header encodes");
        }
    }

    @Test
    void refusesWhatTheProgramDrops() {
        SubsetExpansion exp = new SubsetExpansion(new int[]{3, 9, 12, 40, 41, 70, 71, 200});
        assertEquals(SubsetExpansion.Refusal.BAD_RANK, exp.expand(list(2, 8), 0).refusal(), "rank 8 of 8");
        assertEquals(SubsetExpansion.Refusal.BAD_RANK, exp.expand(list(3, 1), 0).refusal(), "unordered");
        assertEquals(SubsetExpansion.Refusal.BAD_RANK, exp.expand(list(2, 2), 0).refusal(), "repeated");
        assertEquals(SubsetExpansion.Refusal.BAD_RANK, exp.expand(list(0xFFF, 1), 0).refusal(), "gap");
        assertEquals(SubsetExpansion.Refusal.BAD_RANK, exp.expand(list(), 0).refusal(), "empty");
        byte[] bitmap = new byte[16];
        bitmap[2] = (byte) 0x80;
        assertEquals(SubsetExpansion.Refusal.BAD_RANK, exp.expand(bitmap, 0).refusal(), "empty bitmap");
        bitmap[4 + 1] = 0x40;                       // rank 9
        assertEquals(SubsetExpansion.Refusal.BAD_RANK, exp.expand(bitmap, 0).refusal(), "bitmap rank 9 of 8");
        bitmap[5] = 0;
        bitmap[4] = (byte) 0x81;                    // ranks 0 and 7
        HeaderV2 h = exp.expand(bitmap, 7).header();
        assertArrayEquals(new int[]{3, 200}, h.receivers(g));
        assertNull(exp.expand(bitmap, 7).refusal());

        int[] many = new int[80];
        Arrays.setAll(many, i -> 2 * i);
        SubsetExpansion big = new SubsetExpansion(many);
        byte[] all = new byte[16];
        all[2] = (byte) 0x80;
        for (int r = 0; r < 63; r++) {
            all[4 + r / 8] |= (byte) (0x80 >>> (r % 8));
        }
        assertEquals(SubsetExpansion.Refusal.TOO_MANY, big.expand(all, 0).refusal());
        all[4 + 62 / 8] &= (byte) ~(0x80 >>> (62 % 8));
        assertEquals(2, big.expand(all, 0).header().sections().size(), "62 ranks: two HOST sections");
    }

    @Test
    void rankParametersPutRankRAtBits16r() {
        int[] bits = new int[200];
        Arrays.setAll(bits, i -> 1000 + i);
        SubsetExpansion exp = new SubsetExpansion(bits);
        byte[] lo = exp.rankParam(false);
        byte[] hi = exp.rankParam(true);
        assertEquals(SubsetExpansion.PARAM_BYTES, lo.length);
        assertEquals(1000, (lo[254] & 0xFF) << 8 | lo[255] & 0xFF, "rank 0 in the last two bytes");
        assertEquals(1127, (lo[0] & 0xFF) << 8 | lo[1] & 0xFF, "rank 127 in the first two");
        assertEquals(1128, (hi[254] & 0xFF) << 8 | hi[255] & 0xFF, "rank 128");
        assertEquals(0, hi[0] | hi[1], "rank 255 absent");
        assertThrows(IllegalArgumentException.class, () -> new SubsetExpansion(new int[257]));
        assertThrows(IllegalArgumentException.class, () -> new SubsetExpansion(new int[]{5, 5}));
    }

    private static byte[] list(int... entries) {
        return SubsetCopies.listAddress(SubsetCopies.GROUP, entries);
    }
}
