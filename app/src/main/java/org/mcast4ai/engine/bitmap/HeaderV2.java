package org.mcast4ai.engine.bitmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Version 2 of the bitmap header, as sections of fixed-size entries (layout in
 * {@code models/header/README.md}, bytes in {@link HeaderV2Codec}). Each entry names one host, one leaf or one
 * pod's whole racks, and each BLOCK section one block of 256 bit indices, so a copy is trimmed by dropping
 * entries and sections and by masking bitmap fields, never by re-encoding. Immutable.
 */
public final class HeaderV2 {
    /** Hop limit a sender stamps (4 bits on the wire; a Clos path has at most 5 switch hops). */
    public static final int DEFAULT_HOP_LIMIT = 8;
    /** Entries one section holds at most (a 5-bit count). */
    public static final int MAX_ENTRIES = 31;

    /** Section kinds, with their code on the wire. */
    public enum Kind {
        /** Single receivers: 2-byte bit indices. */
        HOST(1),
        /** Whole racks: 2-byte leaf prefixes (every host of the leaf). */
        RACK(2),
        /** Part of a rack: 2-byte leaf prefix and a slot bitmap. */
        LEAF(3),
        /** Whole racks of one pod: 1-byte pod number and a leaf bitmap. */
        POD(4),
        /** Receivers of one block of 256 bit indices: the block byte, then 1 byte per receiver. */
        BLOCK(5);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        /** @return the 3-bit code */
        public int code() {
            return code;
        }

        static Kind ofCode(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown section kind " + code);
        }
    }

    /**
     * One section: a kind and its entries. {@code keys}: HOST bit indices, RACK and LEAF leaf prefixes, POD pod
     * numbers, BLOCK the low bytes; {@code masks}: LEAF slot bitmaps and POD leaf bitmaps (bit i = slot or leaf
     * i), else zero; {@code block}: the block of a BLOCK section, else 0.
     */
    public static final class Section {
        private final Kind kind;
        private final int block;
        private final int[] keys;
        private final long[] masks;

        /**
         * @param kind  the kind
         * @param block the block (BLOCK only)
         * @param keys  entry keys (handed over)
         * @param masks entry masks, same length (handed over)
         */
        public Section(Kind kind, int block, int[] keys, long[] masks) {
            this.kind = Objects.requireNonNull(kind);
            this.block = block;
            this.keys = keys;
            this.masks = masks;
            if (keys.length != masks.length || keys.length == 0 || keys.length > MAX_ENTRIES) {
                throw new IllegalArgumentException("a section has 1 to " + MAX_ENTRIES
                        + " entries, each with a key and a mask");
            }
        }

        /** @return the kind */
        public Kind kind() {
            return kind;
        }

        /** @return the block of a BLOCK section */
        public int block() {
            return block;
        }

        /** @return number of entries */
        public int size() {
            return keys.length;
        }

        /**
         * @param i entry
         * @return its key
         */
        public int key(int i) {
            return keys[i];
        }

        /**
         * @param i entry
         * @return its mask
         */
        public long mask(int i) {
            return masks[i];
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Section)) {
                return false;
            }
            Section s = (Section) o;
            return kind == s.kind && block == s.block && Arrays.equals(keys, s.keys) && Arrays.equals(masks, s.masks);
        }

        @Override
        public int hashCode() {
            return Objects.hash(kind, block, Arrays.hashCode(keys), Arrays.hashCode(masks));
        }

        @Override
        public String toString() {
            return kind + (kind == Kind.BLOCK ? "@" + block : "") + Arrays.toString(keys);
        }
    }

    private final int hopLimit;
    private final int entropy;
    private final boolean ipv4;
    private final List<Section> sections;

    /**
     * @param hopLimit hop limit 0..15
     * @param entropy  16-bit flow entropy
     * @param ipv4     true if the inner packet is IPv4 (else IPv6)
     * @param sections the sections, in wire order
     */
    public HeaderV2(int hopLimit, int entropy, boolean ipv4, List<Section> sections) {
        if (hopLimit < 0 || hopLimit > 15) {
            throw new IllegalArgumentException("hop limit " + hopLimit + " outside 0..15");
        }
        this.hopLimit = hopLimit;
        this.entropy = entropy & 0xFFFF;
        this.ipv4 = ipv4;
        this.sections = Collections.unmodifiableList(new ArrayList<>(sections));
    }

    /** @return the hop limit */
    public int hopLimit() {
        return hopLimit;
    }

    /** @return the flow entropy */
    public int entropy() {
        return entropy;
    }

    /** @return true if the inner packet is IPv4 */
    public boolean ipv4() {
        return ipv4;
    }

    /** @return the sections in wire order */
    public List<Section> sections() {
        return sections;
    }

    /**
     * @param g the geometry
     * @return the receivers' bit indices, ascending and distinct
     */
    public int[] receivers(FabricGeometry g) {
        int n = 0;
        int[] out = new int[16];
        for (Section s : sections) {
            for (int i = 0; i < s.size(); i++) {
                int k = s.key(i);
                switch (s.kind) {
                    case HOST:
                        out = add(out, n++, k);
                        break;
                    case BLOCK:
                        out = add(out, n++, (s.block << 8) | k);
                        break;
                    case RACK:
                        for (int slot = 0; slot < g.slotsPerLeaf(); slot++) {
                            out = add(out, n++, k | slot);
                        }
                        break;
                    case LEAF:
                        for (long m = s.mask(i); m != 0; m &= m - 1) {
                            out = add(out, n++, k | Long.numberOfTrailingZeros(m));
                        }
                        break;
                    default:
                        for (long m = s.mask(i); m != 0; m &= m - 1) {
                            int base = g.bit(k, Long.numberOfTrailingZeros(m), 0);
                            for (int slot = 0; slot < g.slotsPerLeaf(); slot++) {
                                out = add(out, n++, base | slot);
                            }
                        }
                        break;
                }
            }
        }
        int[] r = Arrays.copyOf(out, n);
        Arrays.sort(r);
        return Arrays.stream(r).distinct().toArray();
    }

    private static int[] add(int[] a, int n, int x) {
        int[] b = n == a.length ? Arrays.copyOf(a, 2 * n) : a;
        b[n] = x;
        return b;
    }

    /**
     * The copy for a neighbour: only the entries of the leaves it keeps, bitmaps masked to them, empty
     * sections left out, the hop limit decremented. Entries are selected, never re-encoded.
     *
     * @param g    the geometry
     * @param keep given a leaf number (bit index shifted right by the slot bits), true to keep its receivers
     * @return the trimmed header
     */
    public HeaderV2 trim(FabricGeometry g, IntPredicate keep) {
        List<Section> out = new ArrayList<>(sections.size());
        int shift = g.slotBits();
        for (Section s : sections) {
            int[] keys = new int[s.size()];
            long[] masks = new long[s.size()];
            int n = 0;
            for (int i = 0; i < s.size(); i++) {
                int k = s.key(i);
                long m = s.mask(i);
                boolean kept;
                switch (s.kind) {
                    case HOST:
                    case RACK:
                    case LEAF:
                        kept = keep.test(k >>> shift);
                        break;
                    case BLOCK:
                        kept = keep.test(((s.block << 8) | k) >>> shift);
                        break;
                    default:
                        long left = 0;
                        for (long x = m; x != 0; x &= x - 1) {
                            int leaf = Long.numberOfTrailingZeros(x);
                            if (keep.test(g.bit(k, leaf, 0) >>> shift)) {
                                left |= 1L << leaf;
                            }
                        }
                        m = left;
                        kept = left != 0;
                        break;
                }
                if (kept) {
                    keys[n] = k;
                    masks[n++] = m;
                }
            }
            if (n > 0) {
                out.add(new Section(s.kind, s.block, Arrays.copyOf(keys, n), Arrays.copyOf(masks, n)));
            }
        }
        return new HeaderV2(Math.max(0, hopLimit - 1), entropy, ipv4, out);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof HeaderV2)) {
            return false;
        }
        HeaderV2 h = (HeaderV2) o;
        return hopLimit == h.hopLimit && entropy == h.entropy && ipv4 == h.ipv4 && sections.equals(h.sections);
    }

    @Override
    public int hashCode() {
        return Objects.hash(hopLimit, entropy, ipv4, sections);
    }

    @Override
    public String toString() {
        return "HeaderV2{hop=" + hopLimit + ", entropy=" + entropy + ", " + sections + "}";
    }
}
