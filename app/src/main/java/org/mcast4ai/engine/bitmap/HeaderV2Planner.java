package org.mcast4ai.engine.bitmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Chooses the sections of version 2 headers for a receiver set (sender side), and cuts the set at leaf
 * boundaries into packets when one header would exceed the budget. Per pod, whole racks go as RACK entries or,
 * two or more when no larger, as one POD entry; per leaf, the other receivers go as HOST entries or one LEAF
 * entry, whichever is smaller, unless the leaves of one block save more than the block's own two bytes by taking
 * one byte per receiver in a BLOCK section. A packet also holds no more sections of a kind than the switches parse
 * ({@link Limits}); the set is cut where it would. Pure.
 */
public final class HeaderV2Planner {
    /** Header budget per packet, as for version 1: the first switch parses all of it. */
    public static final int DEFAULT_MAX_BYTES = 384;

    /**
     * The sections a switch's parser holds per packet: per kind at most so many sections, and optionally one
     * section per block (a parser that checks that every BLOCK section's block is above the one before).
     */
    public static final class Limits {
        /** What the header spec allows: any number of sections; several sections of one block. */
        public static final Limits NONE = new Limits(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE,
                Integer.MAX_VALUE, Integer.MAX_VALUE, false);
        /**
         * What {@code models/p4/mcast4ai.p4} parses: 4 HOST, 2 RACK, 1 LEAF, 2 POD, 4 BLOCK of distinct blocks
         * (chosen for the k=48 targets: whole racks in one packet, 1,024 random receivers in at most 8).
         */
        public static final Limits P4 = new Limits(4, 2, 1, 2, 4, true);

        final int host;
        final int rack;
        final int leaf;
        final int pod;
        final int block;
        final boolean oneSectionPerBlock;

        /**
         * @param host               HOST sections per packet
         * @param rack               RACK sections
         * @param leaf               LEAF sections
         * @param pod                POD sections
         * @param block              BLOCK sections
         * @param oneSectionPerBlock true if a block may have only one section (at most 31 entries)
         */
        public Limits(int host, int rack, int leaf, int pod, int block, boolean oneSectionPerBlock) {
            if (host < 1 || rack < 1 || leaf < 1 || pod < 1 || block < 1) {
                throw new IllegalArgumentException("every kind needs at least one section: a leaf must fit");
            }
            this.host = host;
            this.rack = rack;
            this.leaf = leaf;
            this.pod = pod;
            this.block = block;
            this.oneSectionPerBlock = oneSectionPerBlock;
        }

        /**
         * @param h a header
         * @return true if a switch with these limits parses it
         */
        public boolean admits(HeaderV2 h) {
            int[] n = new int[HeaderV2.Kind.values().length];
            int lastBlock = -1;
            for (HeaderV2.Section s : h.sections()) {
                n[s.kind().ordinal()]++;
                if (s.kind() == HeaderV2.Kind.BLOCK) {
                    if (oneSectionPerBlock && s.block() == lastBlock) {
                        return false;
                    }
                    lastBlock = s.block();
                }
            }
            return n[HeaderV2.Kind.HOST.ordinal()] <= host && n[HeaderV2.Kind.RACK.ordinal()] <= rack
                    && n[HeaderV2.Kind.LEAF.ordinal()] <= leaf && n[HeaderV2.Kind.POD.ordinal()] <= pod
                    && n[HeaderV2.Kind.BLOCK.ordinal()] <= block;
        }

        @Override
        public String toString() {
            return this == NONE ? "unlimited" : "HOST " + host + ", RACK " + rack + ", LEAF " + leaf + ", POD " + pod
                    + ", BLOCK " + block + (oneSectionPerBlock ? " (one per block)" : "");
        }
    }

    private final FabricGeometry g;
    private final HeaderV2Codec codec;
    private final int maxBytes;
    private final Limits limits;

    /**
     * @param geometry the fabric's coordinate space
     * @param maxBytes header budget per packet
     */
    public HeaderV2Planner(FabricGeometry geometry, int maxBytes) {
        this(geometry, maxBytes, Limits.P4);
    }

    /**
     * @param geometry the fabric's coordinate space
     * @param maxBytes header budget per packet
     * @param limits   the sections a packet may hold
     */
    public HeaderV2Planner(FabricGeometry geometry, int maxBytes, Limits limits) {
        this.limits = Objects.requireNonNull(limits);
        this.g = Objects.requireNonNull(geometry);
        this.codec = new HeaderV2Codec(geometry);
        if (maxBytes < HeaderV2Codec.FIXED_BYTES + 3 * HeaderV2Codec.SECTION_BYTES + codec.entryBytes(
                HeaderV2.Kind.LEAF)) {
            throw new IllegalArgumentException("budget " + maxBytes + " B does not hold one leaf");
        }
        this.maxBytes = maxBytes;
    }

    /** @param geometry the fabric's coordinate space; the default budget and the P4 program's limits */
    public HeaderV2Planner(FabricGeometry geometry) {
        this(geometry, DEFAULT_MAX_BYTES);
    }

    /** @return the sections a packet may hold */
    public Limits limits() {
        return limits;
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
        return plan(ReceiverBits.of(hostBits, receivers), entropy);
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
        // no receiver costs more than 2 bytes plus its share of a section header: small sets fit at once
        if (HeaderV2Codec.FIXED_BYTES + 8 + 3 * bits.length <= maxBytes) {
            List<HeaderV2> one = new ArrayList<>(1);
            if (bits.length == 0) {
                return one;
            }
            HeaderV2 h = one(bits, 0, bits.length, entropy);
            if (limits.admits(h)) {
                one.add(checked(h));
                return one;
            }
        }
        // one pass: a leaf joins the current set while the set's exact size stays within the budget (the
        // cheapest encoding never shrinks when a leaf is added, so this is the largest fitting run)
        List<HeaderV2> sets = new ArrayList<>();
        Estimate size = new Estimate();
        int setStart = 0;
        int i = 0;
        while (i < bits.length) {
            int j = i + 1;
            while (j < bits.length && bits[j] >>> g.slotBits() == bits[i] >>> g.slotBits()) {
                j++;
            }
            int before = size.bytes();
            size.add(bits[i], j - i);
            if ((size.bytes() > maxBytes || !size.fits()) && i > setStart) {
                sets.add(checked(one(bits, setStart, i, entropy), before));
                setStart = i;
                size = new Estimate();
                size.add(bits[i], j - i);
            }
            i = j;
        }
        if (setStart < bits.length) {
            sets.add(checked(one(bits, setStart, bits.length, entropy), size.bytes()));
        }
        return sets;
    }

    private HeaderV2 checked(HeaderV2 h) {
        if (codec.size(h) > maxBytes) {
            throw new IllegalStateException("planned " + codec.size(h) + " B over the budget of " + maxBytes);
        }
        if (!limits.admits(h)) {
            throw new IllegalStateException("planned sections beyond " + limits + ": " + h);
        }
        return h;
    }

    private HeaderV2 checked(HeaderV2 h, int estimated) {
        if (codec.size(h) != estimated) {
            throw new IllegalStateException("built " + codec.size(h) + " B where the running size said " + estimated);
        }
        return checked(h);
    }

    // The choices, shared by the running size and the builder so that the two cannot drift apart.

    /**
     * @return true if a pod's two or more whole racks cost no more as one POD entry than as RACK entries (the
     *         spec's rule: at k=48 two racks are 4 B either way, and one entry leaves the RACK section's slots to
     *         the pods that have a single rack)
     */
    private boolean racksAsPod(int racks) {
        return racks >= 2 && racks * codec.entryBytes(HeaderV2.Kind.RACK) >= codec.entryBytes(HeaderV2.Kind.POD);
    }

    /** @return true if a partial leaf outside a BLOCK section goes as HOST entries (else as one LEAF entry) */
    private boolean asHosts(int receivers) {
        return receivers * codec.entryBytes(HeaderV2.Kind.HOST) <= codec.entryBytes(HeaderV2.Kind.LEAF);
    }

    /** @return bytes a partial leaf saves in a BLOCK section (1 byte per receiver); it joins one only if positive */
    private int blockSaving(int receivers) {
        int alone = asHosts(receivers) ? receivers * codec.entryBytes(HeaderV2.Kind.HOST)
                : codec.entryBytes(HeaderV2.Kind.LEAF);
        return Math.max(0, alone - receivers);
    }

    /** @return true if a block's savings pay for its section header and block byte */
    private static boolean blockPays(int saving) {
        return saving > HeaderV2Codec.SECTION_BYTES + 1;
    }

    /**
     * @param saving   what the block's leaves save in it
     * @param entries  its receivers in it
     * @param earlier  the BLOCK sections of the earlier blocks of the packet
     * @return true if the block goes as a BLOCK section: it pays, and the switches parse one more (else its
     *         leaves take HOST and LEAF entries, so that a packet holds more receivers than its BLOCK sections
     *         alone allow: fewer packets first, then fewer bytes)
     */
    private boolean asBlock(int saving, int entries, int earlier) {
        int n = sections(entries);
        return blockPays(saving) && (long) earlier + n <= limits.block && (n == 1 || !limits.oneSectionPerBlock);
    }

    /** @return the sections so many entries of one kind take */
    private static int sections(int entries) {
        return (entries + HeaderV2.MAX_ENTRIES - 1) / HeaderV2.MAX_ENTRIES;
    }

    /**
     * The exact size of the header {@link #one} builds, kept up to date leaf by leaf: the same choices per pod
     * (racks) and per block (partial leaves), all additive but the section headers.
     */
    private final class Estimate {
        private final int leafBytes = codec.entryBytes(HeaderV2.Kind.LEAF);
        private final int podBytes = codec.entryBytes(HeaderV2.Kind.POD);
        private final Map<Integer, int[]> pods = new HashMap<>();
        private final Map<Integer, int[]> blocks = new HashMap<>();
        private int hosts;
        private int racks;
        private int leaves;
        private int podEntries;
        private int blockBytes;
        private int blockSections;
        private int sharedBlocks;

        void add(int first, int count) {
            if (count == g.slotsPerLeaf()) {
                int[] p = pods.computeIfAbsent(g.podOf(first), x -> new int[1]);
                rack(p, -1);
                p[0]++;
                rack(p, 1);
                return;
            }
            // per block: saving, receivers that would go in it, HOST/LEAF entries of the leaves that would and
            // would not join it, and whether it went as a BLOCK section
            int[] b = blocks.computeIfAbsent(first >>> 8, x -> new int[7]);
            block(b, -1);
            boolean host = asHosts(count);
            int saving = blockSaving(count);
            if (saving > 0) {
                b[0] += saving;
                b[1] += count;
                b[2] += host ? count : 0;
                b[3] += host ? 0 : 1;
            } else {
                b[4] += host ? count : 0;
                b[5] += host ? 0 : 1;
            }
            block(b, 1);
        }

        private void rack(int[] p, int sign) {
            if (p[0] == 0) {
                return;
            }
            if (racksAsPod(p[0])) {
                podEntries += sign;
            } else {
                racks += sign * p[0];
            }
        }

        private void block(int[] b, int sign) {
            hosts += sign * b[4];
            leaves += sign * b[5];
            // only the last block is ever re-evaluated, so blockSections is then the earlier blocks' alone
            boolean asBlock = sign < 0 ? b[6] == 1 : asBlock(b[0], b[1], blockSections);
            if (sign > 0) {
                b[6] = asBlock ? 1 : 0;
            }
            if (asBlock) {
                int n = sections(b[1]);
                blockBytes += sign * (b[1] + 2 * n);
                blockSections += sign * n;
                sharedBlocks += n > 1 ? sign : 0;
            } else {
                hosts += sign * b[2];
                leaves += sign * b[3];
            }
        }

        int bytes() {
            return HeaderV2Codec.FIXED_BYTES + HeaderV2Codec.SECTION_BYTES + 2 * hosts + 2 * racks
                    + leafBytes * leaves + podBytes * podEntries + sections(hosts) + sections(racks)
                    + sections(leaves) + sections(podEntries) + blockBytes;
        }

        /** @return true if the header {@link #one} builds holds no more sections than the limits */
        boolean fits() {
            return sections(hosts) <= limits.host && sections(racks) <= limits.rack
                    && sections(leaves) <= limits.leaf && sections(podEntries) <= limits.pod
                    && blockSections <= limits.block && (!limits.oneSectionPerBlock || sharedBlocks == 0);
        }

    }

    /**
     * @param bits    receiver bit indices, ascending
     * @param a       first index into bits
     * @param b       end index (exclusive)
     * @param entropy the flow entropy to stamp
     * @return the cheapest single header for bits[a, b)
     */
    HeaderV2 one(int[] bits, int a, int b, int entropy) {
        Builder out = new Builder();
        int i = a;
        while (i < b) {
            int j = i + 1;
            while (j < b && bits[j] >>> g.slotBits() == bits[i] >>> g.slotBits()) {
                j++;
            }
            out.leaf(bits, i, j);
            i = j;
        }
        return out.build(entropy);
    }

    /**
     * Builds one header leaf by leaf in bit index order: whole racks are collected per pod and the other
     * leaves per block, each decided when its pod or block ends (both are contiguous in that order).
     */
    private final class Builder {
        private final Entries host = new Entries();
        private final Entries rack = new Entries();
        private final Entries leafs = new Entries();
        private final Entries pod = new Entries();
        private final List<HeaderV2.Section> blocks = new ArrayList<>();
        private final int[] podRacks = new int[g.leavesPerPod()];
        private int racksInPod;
        private int currentPod = -1;
        private int[] bits;
        private final int[] partialFrom = new int[1 << Math.max(0, 8 - g.slotBits())];
        private final int[] partialTo = new int[partialFrom.length];
        private int partials;
        private int currentBlock = -1;

        void leaf(int[] all, int from, int to) {
            bits = all;
            if (to - from == g.slotsPerLeaf()) {
                int p = g.podOf(all[from]);
                if (p != currentPod) {
                    flushPod();
                    currentPod = p;
                }
                podRacks[racksInPod++] = all[from];
            } else {
                int blk = all[from] >>> 8;
                if (blk != currentBlock) {
                    flushBlock();
                    currentBlock = blk;
                }
                partialFrom[partials] = from;
                partialTo[partials++] = to;
            }
        }

        private void flushPod() {
            if (racksAsPod(racksInPod)) {
                long mask = 0;
                for (int r = 0; r < racksInPod; r++) {
                    mask |= 1L << g.leafOf(podRacks[r]);
                }
                pod.add(currentPod, mask);
            } else {
                for (int r = 0; r < racksInPod; r++) {
                    rack.add(podRacks[r], 0);
                }
            }
            racksInPod = 0;
        }

        private void flushBlock() {
            int saving = 0;
            for (int l = 0; l < partials; l++) {
                int m = partialTo[l] - partialFrom[l];
                saving += blockSaving(m);
            }
            int entries = 0;
            for (int l = 0; l < partials; l++) {
                int m = partialTo[l] - partialFrom[l];
                entries += blockSaving(m) > 0 ? m : 0;
            }
            boolean asBlock = asBlock(saving, entries, blocks.size());
            Entries inBlock = new Entries();
            for (int l = 0; l < partials; l++) {
                int from = partialFrom[l];
                int to = partialTo[l];
                int m = to - from;
                if (asBlock && blockSaving(m) > 0) {
                    for (int x = from; x < to; x++) {
                        inBlock.add(bits[x] & 0xFF, 0);
                    }
                } else if (asHosts(m)) {
                    for (int x = from; x < to; x++) {
                        host.add(bits[x], 0);
                    }
                } else {
                    long mask = 0;
                    for (int x = from; x < to; x++) {
                        mask |= 1L << g.slotOf(bits[x]);
                    }
                    leafs.add(bits[from] >>> g.slotBits() << g.slotBits(), mask);
                }
            }
            inBlock.into(HeaderV2.Kind.BLOCK, currentBlock, blocks);
            partials = 0;
        }

        HeaderV2 build(int entropy) {
            flushPod();
            flushBlock();
            List<HeaderV2.Section> sections = new ArrayList<>();
            host.into(HeaderV2.Kind.HOST, 0, sections);
            rack.into(HeaderV2.Kind.RACK, 0, sections);
            leafs.into(HeaderV2.Kind.LEAF, 0, sections);
            pod.into(HeaderV2.Kind.POD, 0, sections);
            sections.addAll(blocks);
            return new HeaderV2(HeaderV2.DEFAULT_HOP_LIMIT, entropy, false, sections);
        }
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
