package org.mcast4ai.engine.bitmap;

import java.util.Arrays;
import java.util.Objects;

/**
 * Encodes and decodes the mcast4ai bitmap header for one fabric geometry. The byte layout is specified in
 * {@code models/header/README.md}; in short, a 6-byte common part (version and encoding, hop limit, total
 * length, inner EtherType) followed by the body of the encoding. Multi-byte fields are big-endian; in a
 * bitmap, item {@code i} is bit {@code 0x80 >>> (i % 8)} of byte {@code i / 8}.
 */
public final class HeaderCodec {
    /** Header format version. */
    public static final int VERSION = 1;
    /** Bytes of the common part. */
    public static final int COMMON_BYTES = 6;
    /** Inner EtherType stamped by default (IPv6). */
    public static final int ETHERTYPE_IPV6 = 0x86DD;
    /** Bytes of a pod section's length field. */
    static final int SECTION_LENGTH_BYTES = 2;

    private final FabricGeometry g;

    /** @param geometry the fabric's coordinate space */
    public HeaderCodec(FabricGeometry geometry) {
        this.g = Objects.requireNonNull(geometry);
    }

    /** @return the geometry */
    public FabricGeometry geometry() {
        return g;
    }

    /**
     * Bytes a header would take, without encoding it.
     *
     * @param h the header
     * @return its encoded length
     */
    public int size(BitmapHeader h) {
        if (h.isEmpty() && (h.encoding() == Encoding.LEAF || h.encoding() == Encoding.POD)) {
            return COMMON_BYTES;
        }
        switch (h.encoding()) {
            case LIST:
                return COMMON_BYTES + 2 * h.size();
            case LEAF:
                return COMMON_BYTES + 2 + (isFullLeaf(h, 0, h.size()) ? 0 : g.slotBitmapBytes());
            case POD:
                return COMMON_BYTES + 2 + sectionBytes(h, 0, h.size());
            case FABRIC:
                int n = COMMON_BYTES + g.podBitmapBytes();
                int i = 0;
                while (i < h.size()) {
                    int end = podEnd(h, i);
                    n += sectionBytes(h, i, end);
                    i = end;
                }
                return n;
            default:
                throw new IllegalStateException("unknown encoding " + h.encoding());
        }
    }

    /**
     * @param h the header
     * @return its bytes
     * @throws IllegalArgumentException if its receivers do not fit its encoding or the geometry
     */
    public byte[] encode(BitmapHeader h) {
        for (int i = 0; i < h.size(); i++) {
            if (!g.isValid(h.bit(i))) {
                throw new IllegalArgumentException("bit index " + h.bit(i) + " outside " + g);
            }
        }
        checkScope(h);
        int len = size(h);
        if (len > 0xFFFF) {
            throw new IllegalArgumentException("header too long: " + len + " bytes");
        }
        byte[] out = new byte[len];
        out[0] = (byte) ((VERSION << 4) | h.encoding().code());
        out[1] = (byte) h.ttl();
        putShort(out, 2, len);
        putShort(out, 4, ETHERTYPE_IPV6);
        int p = COMMON_BYTES;
        switch (h.encoding()) {
            case LIST:
                for (int i = 0; i < h.size(); i++) {
                    putShort(out, p, h.bit(i));
                    p += 2;
                }
                break;
            case LEAF:
                if (!h.isEmpty()) {
                    putShort(out, p, h.bit(0) - g.slotOf(h.bit(0)));
                    if (!isFullLeaf(h, 0, h.size())) {
                        writeSlots(out, p + 2, h, 0, h.size());
                    }
                }
                break;
            case POD:
                if (!h.isEmpty()) {
                    putShort(out, p, g.podOf(h.bit(0)));
                    writeSection(out, p + 2, h, 0, h.size());
                }
                break;
            case FABRIC:
                int pos = p + g.podBitmapBytes();
                int i = 0;
                while (i < h.size()) {
                    int end = podEnd(h, i);
                    setBit(out, p, g.podOf(h.bit(i)));
                    pos = writeSection(out, pos, h, i, end);
                    i = end;
                }
                break;
            default:
                throw new IllegalStateException("unknown encoding " + h.encoding());
        }
        return out;
    }

    /**
     * @param bytes a header (trailing bytes after its length are ignored)
     * @return the decoded header
     * @throws IllegalArgumentException with the reason if the bytes are not a valid header
     */
    public BitmapHeader decode(byte[] bytes) {
        if (bytes == null || bytes.length < COMMON_BYTES) {
            throw new IllegalArgumentException("header shorter than " + COMMON_BYTES + " bytes");
        }
        if ((bytes[0] & 0xFF) >>> 4 != VERSION) {
            throw new IllegalArgumentException("unsupported header version " + ((bytes[0] & 0xFF) >>> 4));
        }
        Encoding enc = Encoding.ofCode(bytes[0] & 0x0F);
        if (enc == null) {
            throw new IllegalArgumentException("unknown encoding code " + (bytes[0] & 0x0F));
        }
        int ttl = bytes[1] & 0xFF;
        int len = getShort(bytes, 2);
        if (len < COMMON_BYTES || len > bytes.length) {
            throw new IllegalArgumentException("header length " + len + " outside 6.." + bytes.length);
        }
        Reader r = new Reader(bytes, COMMON_BYTES, len);
        int[] bits;
        switch (enc) {
            case LIST:
                if ((len - COMMON_BYTES) % 2 != 0) {
                    throw new IllegalArgumentException("odd LIST body length " + (len - COMMON_BYTES));
                }
                bits = new int[(len - COMMON_BYTES) / 2];
                for (int i = 0; i < bits.length; i++) {
                    bits[i] = r.u16();
                    if (!g.isValid(bits[i]) || (i > 0 && bits[i] <= bits[i - 1])) {
                        throw new IllegalArgumentException("LIST entry " + i + " invalid or out of order");
                    }
                }
                break;
            case LEAF:
                bits = len == COMMON_BYTES ? new int[0] : readLeaf(r, len);
                break;
            case POD:
                bits = len == COMMON_BYTES ? new int[0] : readSection(r, r.podNumber(), new IntList());
                break;
            case FABRIC:
                int podMap = r.skip(g.podBitmapBytes());
                IntList acc = new IntList();
                for (int pod = 0; pod < g.pods(); pod++) {
                    if (isSet(bytes, podMap, pod)) {
                        readSection(r, pod, acc);
                    }
                }
                bits = acc.toArray();
                break;
            default:
                throw new IllegalStateException("unknown encoding " + enc);
        }
        if (r.pos != len) {
            throw new IllegalArgumentException("header length " + len + " but body ends at " + r.pos);
        }
        return new BitmapHeader(enc, ttl, bits);
    }

    private int[] readLeaf(Reader r, int len) {
        int prefix = r.u16();
        if (!g.isValid(prefix) || g.slotOf(prefix) != 0) {
            throw new IllegalArgumentException("LEAF prefix " + prefix + " is not a leaf of " + g);
        }
        IntList acc = new IntList();
        if (r.pos == len) {
            for (int s = 0; s < g.slotsPerLeaf(); s++) {
                acc.add(prefix + s);
            }
        } else {
            readSlots(r, prefix, acc);
        }
        return acc.toArray();
    }

    private int[] readSection(Reader r, int pod, IntList acc) {
        int start = r.pos;
        int declared = r.u16();
        int present = r.skip(g.leafBitmapBytes());
        int full = r.skip(g.leafBitmapBytes());
        for (int leaf = 0; leaf < g.leavesPerPod(); leaf++) {
            boolean p = isSet(r.bytes, present, leaf);
            boolean f = isSet(r.bytes, full, leaf);
            if (f && !p) {
                throw new IllegalArgumentException("pod " + pod + " leaf " + leaf + " full but not present");
            }
            if (!p) {
                continue;
            }
            int prefix = g.bit(pod, leaf, 0);
            if (f) {
                for (int s = 0; s < g.slotsPerLeaf(); s++) {
                    acc.add(prefix + s);
                }
            } else {
                readSlots(r, prefix, acc);
            }
        }
        if (r.pos - start != declared) {
            throw new IllegalArgumentException("pod " + pod + " section length " + declared + " but "
                    + (r.pos - start) + " bytes");
        }
        return acc.toArray();
    }

    private void readSlots(Reader r, int prefix, IntList acc) {
        int at = r.skip(g.slotBitmapBytes());
        int before = acc.size;
        for (int s = 0; s < g.slotsPerLeaf(); s++) {
            if (isSet(r.bytes, at, s)) {
                acc.add(prefix + s);
            }
        }
        if (acc.size == before) {
            throw new IllegalArgumentException("empty slot bitmap for leaf prefix " + prefix);
        }
    }

    private void checkScope(BitmapHeader h) {
        if (h.isEmpty()) {
            return;
        }
        int first = h.bit(0);
        int last = h.bit(h.size() - 1);
        if (h.encoding() == Encoding.POD && g.podOf(first) != g.podOf(last)) {
            throw new IllegalArgumentException("POD header spans pods " + g.podOf(first) + ".." + g.podOf(last));
        }
        if (h.encoding() == Encoding.LEAF && first - g.slotOf(first) != last - g.slotOf(last)) {
            throw new IllegalArgumentException("LEAF header spans more than one leaf");
        }
    }

    private int podEnd(BitmapHeader h, int i) {
        int pod = g.podOf(h.bit(i));
        int j = i + 1;
        while (j < h.size() && g.podOf(h.bit(j)) == pod) {
            j++;
        }
        return j;
    }

    private int leafEnd(BitmapHeader h, int i, int end) {
        int leaf = h.bit(i) >>> g.slotBits();
        int j = i + 1;
        while (j < end && h.bit(j) >>> g.slotBits() == leaf) {
            j++;
        }
        return j;
    }

    private boolean isFullLeaf(BitmapHeader h, int from, int to) {
        return to - from == g.slotsPerLeaf();
    }

    private int sectionBytes(BitmapHeader h, int from, int to) {
        int n = SECTION_LENGTH_BYTES + 2 * g.leafBitmapBytes();
        int i = from;
        while (i < to) {
            int end = leafEnd(h, i, to);
            if (!isFullLeaf(h, i, end)) {
                n += g.slotBitmapBytes();
            }
            i = end;
        }
        return n;
    }

    private int writeSection(byte[] out, int pos, BitmapHeader h, int from, int to) {
        int start = pos;
        int present = pos + SECTION_LENGTH_BYTES;
        int full = present + g.leafBitmapBytes();
        pos = full + g.leafBitmapBytes();
        int i = from;
        while (i < to) {
            int end = leafEnd(h, i, to);
            int leaf = g.leafOf(h.bit(i));
            setBit(out, present, leaf);
            if (isFullLeaf(h, i, end)) {
                setBit(out, full, leaf);
            } else {
                writeSlots(out, pos, h, i, end);
                pos += g.slotBitmapBytes();
            }
            i = end;
        }
        putShort(out, start, pos - start);
        return pos;
    }

    private void writeSlots(byte[] out, int pos, BitmapHeader h, int from, int to) {
        for (int i = from; i < to; i++) {
            setBit(out, pos, g.slotOf(h.bit(i)));
        }
    }

    private static void setBit(byte[] b, int base, int i) {
        b[base + (i >>> 3)] |= (byte) (0x80 >>> (i & 7));
    }

    private static boolean isSet(byte[] b, int base, int i) {
        return (b[base + (i >>> 3)] & (0x80 >>> (i & 7))) != 0;
    }

    private static void putShort(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }

    private static int getShort(byte[] b, int at) {
        return ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
    }

    /** Bounds-checked cursor over a header body. */
    private final class Reader {
        private final byte[] bytes;
        private final int limit;
        private int pos;

        Reader(byte[] bytes, int pos, int limit) {
            this.bytes = bytes;
            this.pos = pos;
            this.limit = limit;
        }

        int skip(int n) {
            if (pos + n > limit) {
                throw new IllegalArgumentException("header truncated at byte " + pos + " (length " + limit + ")");
            }
            int at = pos;
            pos += n;
            return at;
        }

        int u16() {
            return getShort(bytes, skip(2));
        }

        int podNumber() {
            int pod = u16();
            if (pod >= g.pods()) {
                throw new IllegalArgumentException("POD number " + pod + " outside " + g);
            }
            return pod;
        }
    }

    /** Growable int array for the decoder. */
    private static final class IntList {
        private int[] a = new int[16];
        private int size;

        void add(int v) {
            if (size == a.length) {
                a = Arrays.copyOf(a, size * 2);
            }
            a[size++] = v;
        }

        int[] toArray() {
            return Arrays.copyOf(a, size);
        }
    }
}
