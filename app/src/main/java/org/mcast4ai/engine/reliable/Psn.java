package org.mcast4ai.engine.reliable;

/**
 * 24-bit packet sequence numbers. On the wire a PSN wraps at 2^24; inside the aggregator every PSN is
 * extended to a 64-bit count that does not wrap, by taking the value nearest a reference (serial number
 * arithmetic: a PSN at most 2^23 - 1 ahead of the reference is ahead, anything else behind).
 */
public final class Psn {
    /** PSNs are 24 bits. */
    public static final int BITS = 24;
    /** Number of distinct PSNs. */
    public static final long MODULUS = 1L << BITS;
    /** Mask of a wire PSN. */
    public static final int MASK = (int) (MODULUS - 1);
    /** Half the space: the furthest ahead a PSN may be and still count as ahead. */
    public static final long HALF = MODULUS >> 1;

    private Psn() {
    }

    /**
     * @param extended an extended PSN
     * @return its 24-bit wire value
     */
    public static int wire(long extended) {
        return (int) (extended & MASK);
    }

    /**
     * Signed distance from {@code reference} to {@code wire} in serial arithmetic.
     *
     * @param wire      a 24-bit PSN
     * @param reference an extended PSN
     * @return how far ahead (positive) or behind (negative) the PSN is, in [-2^23, 2^23)
     */
    public static long distance(int wire, long reference) {
        long d = (wire - reference) & MASK;
        return d >= HALF ? d - MODULUS : d;
    }

    /**
     * @param wire      a 24-bit PSN
     * @param reference an extended PSN
     * @return the extended PSN nearest the reference that has this wire value
     */
    public static long extend(int wire, long reference) {
        return reference + distance(wire, reference);
    }
}
