package org.mcast4ai.engine.bitmap;

import java.util.Arrays;
import java.util.Objects;

/**
 * A decoded header: its encoding, its hop limit and the receiver bit indices it carries (ascending,
 * distinct). Immutable. The trim operations are the only changes a switch makes to a header; they never
 * change a LIST into another encoding, and they narrow the others along the hierarchy
 * (FABRIC to POD or LEAF, POD to LEAF) so each copy carries exactly what its neighbour is responsible for.
 */
public final class BitmapHeader {
    /** Hop limit the sender stamps; a Clos path has at most 5 switch hops. */
    public static final int DEFAULT_TTL = 8;

    private final Encoding encoding;
    private final int ttl;
    private final int[] bits;

    /**
     * @param encoding the encoding
     * @param ttl      hop limit 0..255
     * @param bits     receiver bit indices, ascending and distinct (not copied: callers hand over ownership)
     */
    BitmapHeader(Encoding encoding, int ttl, int[] bits) {
        this.encoding = Objects.requireNonNull(encoding);
        this.ttl = ttl;
        this.bits = bits;
    }

    /**
     * @param encoding the encoding
     * @param bits     receiver bit indices (any order, duplicates removed)
     * @return a header with the default hop limit
     */
    public static BitmapHeader of(Encoding encoding, int... bits) {
        int[] b = Arrays.stream(bits).distinct().sorted().toArray();
        return new BitmapHeader(encoding, DEFAULT_TTL, b);
    }

    /** @return the encoding */
    public Encoding encoding() {
        return encoding;
    }

    /** @return the hop limit */
    public int ttl() {
        return ttl;
    }

    /** @return number of receivers carried */
    public int size() {
        return bits.length;
    }

    /** @return true if it carries no receiver */
    public boolean isEmpty() {
        return bits.length == 0;
    }

    /**
     * @param i position 0..size()-1
     * @return the i-th bit index in ascending order
     */
    public int bit(int i) {
        return bits[i];
    }

    /** @return the bit indices, ascending (a copy) */
    public int[] bits() {
        return bits.clone();
    }

    /**
     * The copy for a neighbour responsible for bit indices {@code [lo, hi)}.
     *
     * @param lo    first bit index of the neighbour's range
     * @param hi    end (exclusive) of the range
     * @param scope encoding a hierarchical header narrows to (POD for a pod, LEAF for a leaf)
     * @return the trimmed header with the hop limit decremented (possibly empty)
     */
    public BitmapHeader slice(int lo, int hi, Encoding scope) {
        int a = lowerBound(lo);
        int b = lowerBound(hi);
        Encoding enc = encoding == Encoding.LIST ? Encoding.LIST : narrower(scope);
        return new BitmapHeader(enc, ttl - 1, Arrays.copyOfRange(bits, a, b));
    }

    /**
     * The copy that goes up: everything outside {@code [lo, hi)}, same encoding.
     *
     * @param lo first bit index the switch delivers itself
     * @param hi end (exclusive)
     * @return the trimmed header with the hop limit decremented (possibly empty)
     */
    public BitmapHeader without(int lo, int hi) {
        int a = lowerBound(lo);
        int b = lowerBound(hi);
        int[] rest = new int[bits.length - (b - a)];
        System.arraycopy(bits, 0, rest, 0, a);
        System.arraycopy(bits, b, rest, a, bits.length - b);
        return new BitmapHeader(encoding, ttl - 1, rest);
    }

    /**
     * Part of this copy for one of several equal-cost ports: same encoding and hop limit.
     *
     * @param part bit indices, a subset of this header's, ascending (handed over)
     * @return the header
     */
    BitmapHeader subset(int[] part) {
        return new BitmapHeader(encoding, ttl, part);
    }

    /**
     * The copy that goes up with some receivers of this header: same encoding, hop limit decremented.
     *
     * @param part bit indices, a subset of this header's, ascending (handed over)
     * @return the header
     */
    BitmapHeader rest(int[] part) {
        return new BitmapHeader(encoding, ttl - 1, part);
    }

    private Encoding narrower(Encoding scope) {
        return scope.ordinal() > encoding.ordinal() ? scope : encoding;
    }

    private int lowerBound(int key) {
        int lo = 0;
        int hi = bits.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (bits[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof BitmapHeader)) {
            return false;
        }
        BitmapHeader h = (BitmapHeader) o;
        return encoding == h.encoding && ttl == h.ttl && Arrays.equals(bits, h.bits);
    }

    @Override
    public int hashCode() {
        return 31 * Objects.hash(encoding, ttl) + Arrays.hashCode(bits);
    }

    @Override
    public String toString() {
        return "BitmapHeader{" + encoding + ", ttl=" + ttl + ", receivers=" + bits.length + "}";
    }
}
