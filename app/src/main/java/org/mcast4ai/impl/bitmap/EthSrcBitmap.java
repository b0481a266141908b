package org.mcast4ai.impl.bitmap;

import org.onlab.packet.MacAddress;

/**
 * How a receiver set is written into an Ethernet source address: 46 usable bits, with the
 * individual/group bit (bit 0 of the first octet) always 0 and the locally-administered bit (bit 1 of the
 * first octet) always 1, so a stamped frame never carries a multicast or a vendor (OUI) source address.
 *
 * <p>Receiver bit {@code i} (0..45) is bit {@code i} of the 48-bit address read as a big-endian number for
 * {@code i < 40} and bit {@code i + 2} above (skipping the two fixed bits): bit 0 is
 * {@code 02:00:00:00:00:01}, bit 39 is {@code 02:00:80:00:00:00}, bit 40 is {@code 06:00:00:00:00:00}.
 * The sender-side encoder must use the same mapping.
 */
public final class EthSrcBitmap {
    /** Receiver bits one address carries. */
    public static final int CAPACITY = 46;
    /** The two fixed bits (I/G and U/L of the first octet). */
    public static final long FIXED_MASK = 0x03L << 40;
    /** Their values: unicast, locally administered. */
    public static final long FIXED_VALUE = 0x02L << 40;
    /** The 46 bits that carry receivers. */
    public static final long USABLE_MASK = 0xFFFF_FFFF_FFFFL & ~FIXED_MASK;

    private EthSrcBitmap() {
    }

    /**
     * @param bit receiver bit 0..45
     * @return its position in the 48-bit address
     */
    public static long addressBit(int bit) {
        if (bit < 0 || bit >= CAPACITY) {
            throw new IllegalArgumentException("receiver bit " + bit + " is outside 0.." + (CAPACITY - 1));
        }
        return 1L << (bit < 40 ? bit : bit + 2);
    }

    /**
     * @param bits receiver bits as a set (bit i of the long = receiver bit i), only bits 0..45
     * @return the 48-bit address value without the fixed bits
     */
    public static long spread(long bits) {
        if ((bits & ~((1L << CAPACITY) - 1)) != 0) {
            throw new IllegalArgumentException("receiver bits beyond " + (CAPACITY - 1) + ": 0x"
                    + Long.toHexString(bits));
        }
        return (bits & ((1L << 40) - 1)) | ((bits >>> 40) << 42);
    }

    /**
     * @param address a 48-bit address value
     * @return the receiver bits it carries
     */
    public static long gather(long address) {
        return (address & ((1L << 40) - 1)) | (((address >>> 42) & 0x3F) << 40);
    }

    /**
     * @param bits receiver set
     * @return the stamped source address
     */
    public static MacAddress stamp(long bits) {
        return MacAddress.valueOf(FIXED_VALUE | spread(bits));
    }

    /**
     * @param bit receiver bit
     * @return the single-bit value and mask of a match on that bit
     */
    public static MacAddress single(int bit) {
        return MacAddress.valueOf(addressBit(bit));
    }

    /**
     * The masked match that accepts exactly the stamped addresses whose receivers all lie in {@code allowed}:
     * the fixed bits must hold their values and every bit outside {@code allowed} must be 0.
     *
     * @param allowed receiver set
     * @return {value, mask}
     */
    public static MacAddress[] subsetOf(long allowed) {
        long mask = FIXED_MASK | (USABLE_MASK & ~spread(allowed));
        return new MacAddress[]{MacAddress.valueOf(FIXED_VALUE), MacAddress.valueOf(mask)};
    }
}
