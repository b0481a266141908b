package org.mcast4ai.engine.bitmap;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Bytes of a version 2 header for one fabric geometry ({@code models/header/README.md}): a 4-byte fixed
 * part (version and hop limit, flags, flow entropy), then sections in kind order (BLOCK sections by block),
 * each a 1-byte section header (kind in bits 7-5, entry count 1..31 in bits 4-0) and its entries, then a 0
 * byte. Every entry of a kind has the
 * same size, fixed by the geometry, so a parser advances by constants and selects on the kind and count.
 */
public final class HeaderV2Codec {
    /** Header format version. */
    public static final int VERSION = 2;
    /** Bytes of the fixed part. */
    public static final int FIXED_BYTES = 4;
    /** Bytes of a section header, and of the end marker. */
    public static final int SECTION_BYTES = 1;

    private final FabricGeometry g;

    /** @param geometry the fabric's coordinate space */
    public HeaderV2Codec(FabricGeometry geometry) {
        this.g = Objects.requireNonNull(geometry);
        if (g.slotsPerLeaf() > 64 || g.leavesPerPod() > 64 || g.pods() > 256) {
            throw new IllegalArgumentException("header v2 addresses at most 256 pods of 64 leaves of 64 slots: " + g);
        }
    }

    /** @return the geometry */
    public FabricGeometry geometry() {
        return g;
    }

    /**
     * @param kind a section kind
     * @return bytes of one of its entries in this geometry
     */
    public int entryBytes(HeaderV2.Kind kind) {
        switch (kind) {
            case HOST:
            case RACK:
                return 2;
            case LEAF:
                return 2 + g.slotBitmapBytes();
            case POD:
                return 1 + g.leafBitmapBytes();
            default:
                return 1;
        }
    }

    /**
     * @param h a header
     * @return its encoded length
     */
    public int size(HeaderV2 h) {
        int n = FIXED_BYTES + SECTION_BYTES;
        for (HeaderV2.Section s : h.sections()) {
            n += SECTION_BYTES + (s.kind() == HeaderV2.Kind.BLOCK ? 1 : 0) + s.size() * entryBytes(s.kind());
        }
        return n;
    }

    /**
     * @param h a header
     * @return its bytes
     */
    public byte[] encode(HeaderV2 h) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(size(h));
        out.write((VERSION << 4) | h.hopLimit());
        out.write(h.ipv4() ? 0x80 : 0);
        out.write(h.entropy() >>> 8);
        out.write(h.entropy() & 0xFF);
        for (HeaderV2.Section s : h.sections()) {
            out.write((s.kind().code() << 5) | s.size());
            if (s.kind() == HeaderV2.Kind.BLOCK) {
                out.write(s.block());
            }
            for (int i = 0; i < s.size(); i++) {
                int k = s.key(i);
                switch (s.kind()) {
                    case HOST:
                    case RACK:
                        out.write(k >>> 8);
                        out.write(k & 0xFF);
                        break;
                    case LEAF:
                        out.write(k >>> 8);
                        out.write(k & 0xFF);
                        bitmap(out, s.mask(i), g.slotBitmapBytes());
                        break;
                    case POD:
                        out.write(k);
                        bitmap(out, s.mask(i), g.leafBitmapBytes());
                        break;
                    default:
                        out.write(k);
                        break;
                }
            }
        }
        out.write(0);
        return out.toByteArray();
    }

    // item i is bit 0x80 >>> (i % 8) of byte i / 8, as in version 1
    private static void bitmap(ByteArrayOutputStream out, long mask, int bytes) {
        for (int b = 0; b < bytes; b++) {
            int v = 0;
            for (int j = 0; j < 8; j++) {
                if ((mask & (1L << (8 * b + j))) != 0) {
                    v |= 0x80 >>> j;
                }
            }
            out.write(v);
        }
    }

    private static long bitmap(byte[] in, int at, int bytes) {
        long mask = 0;
        for (int b = 0; b < bytes; b++) {
            for (int j = 0; j < 8; j++) {
                if ((in[at + b] & (0x80 >>> j)) != 0) {
                    mask |= 1L << (8 * b + j);
                }
            }
        }
        return mask;
    }

    /**
     * @param in the bytes of a header (anything after its end marker is ignored)
     * @return the header
     * @throws IllegalArgumentException if the bytes are not a version 2 header of this geometry, with the reason:
     *                                  reserved bits set, a section out of order or empty, an entry naming a
     *                                  position, leaf or pod the geometry lacks, a leaf prefix with slot bits set,
     *                                  an empty bitmap, a header cut short
     */
    public HeaderV2 decode(byte[] in) {
        if (in.length < FIXED_BYTES + SECTION_BYTES || (in[0] & 0xFF) >>> 4 != VERSION) {
            throw new IllegalArgumentException("not a version 2 header");
        }
        int hop = in[0] & 0x0F;
        if ((in[1] & 0x7F) != 0) {
            throw new IllegalArgumentException("reserved bits of byte 1 set: " + String.format("0x%02X", in[1] & 0x7F));
        }
        boolean ipv4 = (in[1] & 0x80) != 0;
        int entropy = ((in[2] & 0xFF) << 8) | (in[3] & 0xFF);
        List<HeaderV2.Section> sections = new ArrayList<>();
        int at = FIXED_BYTES;
        int lastKind = 0;
        int lastBlock = -1;
        while (true) {
            need(in, at, 1);
            int sh = in[at++] & 0xFF;
            if (sh == 0) {
                break;
            }
            HeaderV2.Kind kind = HeaderV2.Kind.ofCode(sh >>> 5);
            int count = sh & 0x1F;
            if (count == 0) {
                throw new IllegalArgumentException("empty section at byte " + (at - 1));
            }
            // kinds in order (a switch's deparser emits them in that order): HOST, RACK, LEAF, POD, BLOCK
            if (kind.code() < lastKind) {
                throw new IllegalArgumentException("section kind " + kind + " after a later kind at byte " + (at - 1));
            }
            lastKind = kind.code();
            int block = 0;
            if (kind == HeaderV2.Kind.BLOCK) {
                need(in, at, 1);
                block = in[at++] & 0xFF;
                if (block < lastBlock) {
                    throw new IllegalArgumentException("block " + block + " after block " + lastBlock);
                }
                lastBlock = block;
            }
            int size = entryBytes(kind);
            need(in, at, count * size);
            int[] keys = new int[count];
            long[] masks = new long[count];
            for (int i = 0; i < count; i++, at += size) {
                switch (kind) {
                    case HOST:
                    case RACK:
                        keys[i] = ((in[at] & 0xFF) << 8) | (in[at + 1] & 0xFF);
                        break;
                    case LEAF:
                        keys[i] = ((in[at] & 0xFF) << 8) | (in[at + 1] & 0xFF);
                        masks[i] = bitmap(in, at + 2, g.slotBitmapBytes());
                        break;
                    case POD:
                        keys[i] = in[at] & 0xFF;
                        masks[i] = bitmap(in, at + 1, g.leafBitmapBytes());
                        break;
                    default:
                        keys[i] = in[at] & 0xFF;
                        break;
                }
                String refused = refusal(kind, block, keys[i], masks[i]);
                if (refused != null) {
                    throw new IllegalArgumentException(kind + " entry at byte " + at + ": " + refused);
                }
            }
            sections.add(new HeaderV2.Section(kind, block, keys, masks));
        }
        return new HeaderV2(hop, entropy, ipv4, sections);
    }

    /**
     * What the spec refuses in an entry of this geometry (section 2.2), each of which would otherwise draw a copy
     * nobody asked for: a position, leaf or pod beyond the geometry's counts, a leaf prefix with slot bits set, a
     * bitmap naming slots or leaves the geometry lacks, or naming none.
     *
     * @return the reason, or null if the entry is valid
     */
    private String refusal(HeaderV2.Kind kind, int block, int key, long mask) {
        switch (kind) {
            case HOST:
                return g.isValid(key) ? null : position(key);
            case BLOCK:
                return g.isValid((block << 8) | key) ? null : position((block << 8) | key);
            case RACK:
            case LEAF:
                if (g.slotOf(key) != 0) {
                    return String.format("leaf prefix 0x%04X has slot bits set", key);
                }
                if (!g.isValid(key)) {
                    return position(key);
                }
                if (kind == HeaderV2.Kind.LEAF) {
                    return bitmapRefusal("slot", mask, g.slotsPerLeaf());
                }
                return null;
            default:
                if (key >= g.pods()) {
                    return "pod " + key + " beyond the geometry's " + g.pods() + " pods";
                }
                return bitmapRefusal("leaf", mask, g.leavesPerPod());
        }
    }

    private String position(int bit) {
        return String.format("bit index 0x%04X (pod %d, leaf %d, slot %d) outside ", bit, g.podOf(bit),
                g.leafOf(bit), g.slotOf(bit)) + g;
    }

    private static String bitmapRefusal(String what, long mask, int count) {
        if (mask == 0) {
            return "empty " + what + " bitmap";
        }
        if (count < 64 && mask >>> count != 0) {
            return what + " bitmap names " + what + " " + (63 - Long.numberOfLeadingZeros(mask)) + " of " + count;
        }
        return null;
    }

    private static void need(byte[] in, int at, int n) {
        if (at + n > in.length) {
            throw new IllegalArgumentException("header truncated at byte " + at);
        }
    }
}
