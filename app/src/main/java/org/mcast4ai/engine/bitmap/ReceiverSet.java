package org.mcast4ai.engine.bitmap;

import java.util.Arrays;

/**
 * The receivers one copy of a packet carries, as a switch reads them from its header: the hop limit and the
 * receiver bit indices (ascending, distinct). Immutable. The trims are the only changes a switch makes: the
 * copy for a neighbour keeps the receivers of its range, the copy up the rest, each with the hop limit one
 * lower ({@link SwitchLogic}); the version 2 codec then writes each copy's header by selecting entries.
 */
public final class ReceiverSet {
    /** Hop limit the sender stamps; a Clos path has at most 5 switch hops. */
    public static final int DEFAULT_TTL = 8;

    private final int ttl;
    private final int[] bits;

    /**
     * @param ttl  hop limit 0..255
     * @param bits receiver bit indices, ascending and distinct (not copied: callers hand over ownership)
     */
    ReceiverSet(int ttl, int[] bits) {
        this.ttl = ttl;
        this.bits = bits;
    }

    /**
     * @param bits receiver bit indices (any order, duplicates removed)
     * @return a set with the default hop limit
     */
    public static ReceiverSet of(int... bits) {
        return new ReceiverSet(DEFAULT_TTL, Arrays.stream(bits).distinct().sorted().toArray());
    }

    /**
     * @param ttl  hop limit 0..255
     * @param bits receiver bit indices (any order, duplicates removed)
     * @return the set
     */
    public static ReceiverSet of(int ttl, int[] bits) {
        return new ReceiverSet(ttl, Arrays.stream(bits).distinct().sorted().toArray());
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
     * @param lo first bit index of the neighbour's range
     * @param hi end (exclusive) of the range
     * @return the trimmed set with the hop limit decremented (possibly empty)
     */
    public ReceiverSet slice(int lo, int hi) {
        return new ReceiverSet(ttl - 1, Arrays.copyOfRange(bits, lowerBound(lo), lowerBound(hi)));
    }

    /**
     * The copy that goes up: everything outside {@code [lo, hi)}.
     *
     * @param lo first bit index the switch delivers itself
     * @param hi end (exclusive)
     * @return the trimmed set with the hop limit decremented (possibly empty)
     */
    public ReceiverSet without(int lo, int hi) {
        int a = lowerBound(lo);
        int b = lowerBound(hi);
        int[] rest = new int[bits.length - (b - a)];
        System.arraycopy(bits, 0, rest, 0, a);
        System.arraycopy(bits, b, rest, a, bits.length - b);
        return new ReceiverSet(ttl - 1, rest);
    }

    /**
     * Part of this copy for one of several equal-cost ports: same hop limit.
     *
     * @param part bit indices, a subset of this set's, ascending (handed over)
     * @return the set
     */
    ReceiverSet subset(int[] part) {
        return new ReceiverSet(ttl, part);
    }

    /**
     * The copy that goes up with some receivers of this set: hop limit decremented.
     *
     * @param part bit indices, a subset of this set's, ascending (handed over)
     * @return the set
     */
    ReceiverSet rest(int[] part) {
        return new ReceiverSet(ttl - 1, part);
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
        if (!(o instanceof ReceiverSet)) {
            return false;
        }
        ReceiverSet h = (ReceiverSet) o;
        return ttl == h.ttl && Arrays.equals(bits, h.bits);
    }

    @Override
    public int hashCode() {
        return 31 * ttl + Arrays.hashCode(bits);
    }

    @Override
    public String toString() {
        return "ReceiverSet{ttl=" + ttl + ", receivers=" + bits.length + "}";
    }
}
