package org.mcast4ai.engine.bitmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Chooses, per group or per packet, the cheapest encoding of a receiver set and splits sets whose cheapest
 * encoding exceeds the header budget into several sets (one packet each), cut at leaf boundaries in bit
 * index order so each set stays compact. Pure and stateless; the hot path allocates only its result.
 */
public final class HeaderPlanner {
    /**
     * Default header budget in bytes. RoCEv2 with a 4,096-byte path MTU in 9,000-byte jumbo frames leaves
     * room to spare, so the frame size is not what binds; the switch parser is. Keeping the header within
     * 384 bytes leaves 128 bytes of a 512-byte parse window for Ethernet, IPv6, UDP, BTH and RETH (90 bytes).
     */
    public static final int DEFAULT_MAX_BYTES = 384;
    /** The smallest budget accepted: any single leaf fits (a LEAF header is at most 16 bytes). */
    public static final int MIN_MAX_BYTES = 64;

    /** Groups smaller than this are sorted; larger ones go through a 65,536-bit set. */

    private final HeaderCodec codec;
    private final FabricGeometry g;
    private final int maxBytes;

    /**
     * @param geometry the fabric's coordinate space
     * @param maxBytes header budget per packet (at least {@link #MIN_MAX_BYTES})
     */
    public HeaderPlanner(FabricGeometry geometry, int maxBytes) {
        if (maxBytes < MIN_MAX_BYTES) {
            throw new IllegalArgumentException("header budget " + maxBytes + " below " + MIN_MAX_BYTES);
        }
        this.g = Objects.requireNonNull(geometry);
        this.codec = new HeaderCodec(geometry);
        this.maxBytes = maxBytes;
    }

    /** @param geometry the fabric's coordinate space, with the default budget */
    public HeaderPlanner(FabricGeometry geometry) {
        this(geometry, DEFAULT_MAX_BYTES);
    }

    /** @return the codec of this geometry */
    public HeaderCodec codec() {
        return codec;
    }

    /** @return the header budget in bytes */
    public int maxBytes() {
        return maxBytes;
    }

    /**
     * Plans the headers of a group given as host indices.
     *
     * @param hostBits  per host index, its bit index or -1 ({@link BitIndexTable#hostBits})
     * @param receivers receiver host indices
     * @return one header per set (packet), in bit index order; empty if no receiver has a bit index
     */
    public List<BitmapHeader> planHosts(int[] hostBits, int[] receivers) {
        return planSorted(ReceiverBits.of(hostBits, receivers));
    }

    /**
     * @param bits receiver bit indices (any order; duplicates removed)
     * @return one header per set (packet), in bit index order
     */
    public List<BitmapHeader> plan(int... bits) {
        return planSorted(Arrays.stream(bits).distinct().sorted().toArray());
    }

    private List<BitmapHeader> planSorted(int[] bits) {
        for (int b : bits) {
            if (!g.isValid(b)) {
                throw new IllegalArgumentException("bit index " + b + " outside " + g);
            }
        }
        List<BitmapHeader> sets = new ArrayList<>(1);
        if (bits.length == 0) {
            return sets;
        }
        Cost cost = new Cost();
        int setStart = 0;
        int i = 0;
        while (i < bits.length) {
            int end = i + 1;
            while (end < bits.length && bits[end] >>> g.slotBits() == bits[i] >>> g.slotBits()) {
                end++;
            }
            if (!cost.fitsWith(bits[i], end - i) && i > setStart) {
                sets.add(best(Arrays.copyOfRange(bits, setStart, i)));
                setStart = i;
                cost = new Cost();
            }
            cost.add(bits[i], end - i);
            i = end;
        }
        sets.add(best(Arrays.copyOfRange(bits, setStart, bits.length)));
        return sets;
    }

    /**
     * The cheapest single encoding of one set.
     *
     * @param sortedBits ascending distinct bit indices (ownership passes to the header)
     * @return the header
     */
    BitmapHeader best(int[] sortedBits) {
        BitmapHeader bestHeader = new BitmapHeader(Encoding.LIST, BitmapHeader.DEFAULT_TTL, sortedBits);
        int bestSize = codec.size(bestHeader);
        int first = sortedBits[0];
        int last = sortedBits[sortedBits.length - 1];
        Encoding[] candidates = first >>> g.slotBits() == last >>> g.slotBits()
                ? new Encoding[]{Encoding.LEAF}
                : g.podOf(first) == g.podOf(last) ? new Encoding[]{Encoding.POD} : new Encoding[]{Encoding.FABRIC};
        for (Encoding e : candidates) {
            BitmapHeader h = new BitmapHeader(e, BitmapHeader.DEFAULT_TTL, sortedBits);
            int size = codec.size(h);
            if (size < bestSize) {
                bestHeader = h;
                bestSize = size;
            }
        }
        return bestHeader;
    }

    /** Running sizes of the LIST and FABRIC encodings of a set grown leaf by leaf. */
    private final class Cost {
        private int receivers;
        private int pods;
        private int partialLeaves;
        private int lastPod = -1;

        boolean fitsWith(int leafBit, int count) {
            int list = HeaderCodec.COMMON_BYTES + 2 * (receivers + count);
            int newPods = pods + (g.podOf(leafBit) != lastPod ? 1 : 0);
            int partial = partialLeaves + (count < g.slotsPerLeaf() ? 1 : 0);
            int fabric = HeaderCodec.COMMON_BYTES + g.podBitmapBytes()
                    + newPods * (HeaderCodec.SECTION_LENGTH_BYTES + 2 * g.leafBitmapBytes())
                    + partial * g.slotBitmapBytes();
            return Math.min(list, fabric) <= maxBytes;
        }

        void add(int leafBit, int count) {
            receivers += count;
            if (g.podOf(leafBit) != lastPod) {
                pods++;
                lastPod = g.podOf(leafBit);
            }
            if (count < g.slotsPerLeaf()) {
                partialLeaves++;
            }
        }
    }
}
