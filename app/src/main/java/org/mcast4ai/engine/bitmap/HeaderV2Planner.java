package org.mcast4ai.engine.bitmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Chooses the sections of version 2 headers for a receiver set (sender side), and cuts the set at leaf
 * boundaries into packets when one header would exceed the budget. Per pod, whole racks go as RACK entries or,
 * when cheaper, as one POD entry; per leaf, the other receivers go as HOST entries or one LEAF entry, whichever
 * is smaller, unless the leaves of one block save more than the block's own two bytes by taking one byte per
 * receiver in a BLOCK section. Pure.
 */
public final class HeaderV2Planner {
    /** Header budget per packet, as for version 1: the first switch parses all of it. */
    public static final int DEFAULT_MAX_BYTES = 384;

    private final FabricGeometry g;
    private final HeaderV2Codec codec;
    private final int maxBytes;

    /**
     * @param geometry the fabric's coordinate space
     * @param maxBytes header budget per packet
     */
    public HeaderV2Planner(FabricGeometry geometry, int maxBytes) {
        this.g = Objects.requireNonNull(geometry);
        this.codec = new HeaderV2Codec(geometry);
        if (maxBytes < HeaderV2Codec.FIXED_BYTES + 3 * HeaderV2Codec.SECTION_BYTES + codec.entryBytes(
                HeaderV2.Kind.LEAF)) {
            throw new IllegalArgumentException("budget " + maxBytes + " B does not hold one leaf");
        }
        this.maxBytes = maxBytes;
    }

    /** @param geometry the fabric's coordinate space */
    public HeaderV2Planner(FabricGeometry geometry) {
        this(geometry, DEFAULT_MAX_BYTES);
    }

    /** @return the codec of the geometry */
    public HeaderV2Codec codec() {
        return codec;
    }

    /**
     * @param hostBits  per host index, its bit index or -1 ({@link BitIndexTable#hostBits})
     * @param receivers receiver host indices
     * @param entropy   the flow entropy to stamp
     * @return one header per packet, in bit index order; empty if no receiver has a bit index
     */
    public List<HeaderV2> planHosts(int[] hostBits, int[] receivers, int entropy) {
        int[] bits = Arrays.stream(receivers).map(r -> hostBits[r]).filter(b -> b >= 0).sorted().distinct()
                .toArray();
        return plan(bits, entropy);
    }

    /**
     * @param bits    receiver bit indices, ascending and distinct
     * @param entropy the flow entropy to stamp
     * @return one header per packet, in bit index order
     */
    public List<HeaderV2> plan(int[] bits, int entropy) {
        for (int b : bits) {
            if (!g.isValid(b)) {
                throw new IllegalArgumentException("bit index " + b + " outside " + g);
            }
        }
        // leaf boundaries: a set is cut only between leaves
        List<Integer> starts = new ArrayList<>();
        for (int i = 0; i < bits.length; i++) {
            if (i == 0 || bits[i] >>> g.slotBits() != bits[i - 1] >>> g.slotBits()) {
                starts.add(i);
            }
        }
        starts.add(bits.length);
        List<HeaderV2> sets = new ArrayList<>();
        int from = 0;
        while (from < starts.size() - 1) {
            // the cheapest encoding never shrinks when a leaf is added, so the largest fitting run is found by
            // bisection over the number of leaves
            int lo = from + 1;
            int hi = starts.size() - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (codec.size(one(bits, starts.get(from), starts.get(mid), entropy)) <= maxBytes) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            sets.add(one(bits, starts.get(from), starts.get(lo), entropy));
            from = lo;
        }
        return sets;
    }

    /**
     * @param bits    receiver bit indices, ascending
     * @param a       first index into bits
     * @param b       end index (exclusive)
     * @param entropy the flow entropy to stamp
     * @return the cheapest single header for bits[a, b)
     */
    HeaderV2 one(int[] bits, int a, int b, int entropy) {
        int slotBits = g.slotBits();
        int hostBytes = codec.entryBytes(HeaderV2.Kind.HOST);
        int leafBytes = codec.entryBytes(HeaderV2.Kind.LEAF);
        TreeMap<Integer, List<Integer>> fullByPod = new TreeMap<>();
        TreeMap<Integer, List<int[]>> partialByBlock = new TreeMap<>();
        int i = a;
        while (i < b) {
            int leaf = bits[i] >>> slotBits;
            int j = i;
            while (j < b && bits[j] >>> slotBits == leaf) {
                j++;
            }
            if (j - i == g.slotsPerLeaf()) {
                fullByPod.computeIfAbsent(g.podOf(bits[i]), x -> new ArrayList<>()).add(leaf << slotBits);
            } else {
                partialByBlock.computeIfAbsent(bits[i] >>> 8, x -> new ArrayList<>())
                        .add(Arrays.copyOfRange(bits, i, j));
            }
            i = j;
        }
        Entries host = new Entries();
        Entries rack = new Entries();
        Entries leafs = new Entries();
        Entries pod = new Entries();
        List<HeaderV2.Section> blocks = new ArrayList<>();
        for (Map.Entry<Integer, List<Integer>> e : fullByPod.entrySet()) {
            List<Integer> racks = e.getValue();
            if (racks.size() * codec.entryBytes(HeaderV2.Kind.RACK) > codec.entryBytes(HeaderV2.Kind.POD)) {
                long mask = 0;
                for (int prefix : racks) {
                    mask |= 1L << g.leafOf(prefix);
                }
                pod.add(e.getKey(), mask);
            } else {
                racks.forEach(r -> rack.add(r, 0));
            }
        }
        for (Map.Entry<Integer, List<int[]>> e : partialByBlock.entrySet()) {
            int saving = 0;
            for (int[] leaf : e.getValue()) {
                saving += Math.max(0, Math.min(leaf.length * hostBytes, leafBytes) - leaf.length);
            }
            boolean block = saving > 2;
            Entries inBlock = new Entries();
            for (int[] leaf : e.getValue()) {
                if (block && leaf.length < Math.min(leaf.length * hostBytes, leafBytes)) {
                    for (int bit : leaf) {
                        inBlock.add(bit & 0xFF, 0);
                    }
                } else if (leaf.length * hostBytes <= leafBytes) {
                    for (int bit : leaf) {
                        host.add(bit, 0);
                    }
                } else {
                    long mask = 0;
                    for (int bit : leaf) {
                        mask |= 1L << g.slotOf(bit);
                    }
                    leafs.add(leaf[0] >>> slotBits << slotBits, mask);
                }
            }
            inBlock.into(HeaderV2.Kind.BLOCK, e.getKey(), blocks);
        }
        List<HeaderV2.Section> sections = new ArrayList<>();
        host.into(HeaderV2.Kind.HOST, 0, sections);
        rack.into(HeaderV2.Kind.RACK, 0, sections);
        leafs.into(HeaderV2.Kind.LEAF, 0, sections);
        pod.into(HeaderV2.Kind.POD, 0, sections);
        sections.addAll(blocks);
        return new HeaderV2(HeaderV2.DEFAULT_HOP_LIMIT, entropy, false, sections);
    }

    /** Entries of one kind, cut into sections of at most 31. */
    private static final class Entries {
        private int[] keys = new int[8];
        private long[] masks = new long[8];
        private int n;

        void add(int key, long mask) {
            if (n == keys.length) {
                keys = Arrays.copyOf(keys, 2 * n);
                masks = Arrays.copyOf(masks, 2 * n);
            }
            keys[n] = key;
            masks[n++] = mask;
        }

        void into(HeaderV2.Kind kind, int block, List<HeaderV2.Section> out) {
            for (int i = 0; i < n; i += HeaderV2.MAX_ENTRIES) {
                int to = Math.min(n, i + HeaderV2.MAX_ENTRIES);
                out.add(new HeaderV2.Section(kind, block, Arrays.copyOfRange(keys, i, to),
                        Arrays.copyOfRange(masks, i, to)));
            }
        }
    }
}
