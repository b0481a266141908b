package org.mcast4ai.engine.reliable;

import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC (IBTA annex A17): CRC-32 (IEEE 802.3, as {@link CRC32} computes it) over eight bytes
 * of ones, the IP header with its variant fields as ones (IPv4: type of service, TTL and header checksum; IPv6:
 * traffic class, flow label and hop limit), the UDP header with its checksum as ones, the BTH with its reserved
 * byte 4 as ones, and everything after up to the ICRC, which is the UDP payload's last four bytes, least
 * significant byte first.
 *
 * <p>Also the linear algebra an incremental update needs: CRC-32 is affine, so for two messages of one length
 * {@code crc(a) ^ crc(b) = lin(a ^ b)}, where {@code lin} is the CRC with no initial value and no final
 * inversion, and {@code lin(m + n zero bytes)} is {@link #shift(int, int) shift(lin(m), n)}, a 32x32 matrix over
 * GF(2) applied to {@code lin(m)}. A switch that rewrites a few fields near the start updates the ICRC from
 * the XOR of old and new fields without reading the payload. Pure.
 */
public final class Icrc {
    /** The reflected polynomial. */
    public static final int POLY = 0xEDB88320;
    /** RoCEv2's UDP destination port. */
    public static final int ROCE_PORT = 4791;
    /** Bytes of the BTH. */
    public static final int BTH_BYTES = 12;

    private Icrc() {
    }

    /**
     * @param packet the bytes
     * @param ip     where the IP header starts
     * @return true if an IPv4 (without options) or IPv6 packet carries UDP to port 4791 long enough for a BTH and
     *         an ICRC, and the bytes hold all of it
     */
    public static boolean isRoce(byte[] packet, int ip) {
        if (packet.length < ip + 1) {
            return false;
        }
        int version = (packet[ip] & 0xFF) >>> 4;
        int udp;
        if (version == 4) {
            if ((packet[ip] & 0x0F) != 5 || packet.length < ip + 28 || (packet[ip + 9] & 0xFF) != 17) {
                return false;
            }
            udp = ip + 20;
        } else if (version == 6) {
            if (packet.length < ip + 48 || (packet[ip + 6] & 0xFF) != 17) {
                return false;
            }
            udp = ip + 40;
        } else {
            return false;
        }
        int udpLen = u16(packet, udp + 4);
        return u16(packet, udp + 2) == ROCE_PORT && udpLen >= 8 + BTH_BYTES + 4 && packet.length >= udp + udpLen;
    }

    /**
     * @param packet a RoCEv2 packet ({@link #isRoce})
     * @param ip     where its IP header starts
     * @return where its UDP header starts
     */
    public static int udp(byte[] packet, int ip) {
        return ip + (((packet[ip] & 0xFF) >>> 4) == 4 ? 20 : 40);
    }

    /**
     * @param packet a RoCEv2 packet ({@link #isRoce})
     * @param ip     where its IP header starts
     * @return where its ICRC starts
     */
    public static int at(byte[] packet, int ip) {
        int udp = udp(packet, ip);
        return udp + u16(packet, udp + 4) - 4;
    }

    /**
     * @param packet a RoCEv2 packet ({@link #isRoce})
     * @param ip     where its IP header starts
     * @return the ICRC its bytes call for (as {@link CRC32} returns it)
     */
    public static int compute(byte[] packet, int ip) {
        int udp = udp(packet, ip);
        int end = at(packet, ip);
        byte[] m = new byte[8 + end - ip];
        java.util.Arrays.fill(m, 0, 8, (byte) 0xFF);
        System.arraycopy(packet, ip, m, 8, end - ip);
        int i = 8;
        if (udp - ip == 20) {
            m[i + 1] = (byte) 0xFF;
            m[i + 8] = (byte) 0xFF;
            m[i + 10] = (byte) 0xFF;
            m[i + 11] = (byte) 0xFF;
        } else {
            m[i] |= 0x0F;
            m[i + 1] = (byte) 0xFF;
            m[i + 2] = (byte) 0xFF;
            m[i + 3] = (byte) 0xFF;
            m[i + 7] = (byte) 0xFF;
        }
        int u = 8 + udp - ip;
        m[u + 6] = (byte) 0xFF;
        m[u + 7] = (byte) 0xFF;
        m[u + 8 + 4] = (byte) 0xFF;
        CRC32 crc = new CRC32();
        crc.update(m);
        return (int) crc.getValue();
    }

    /**
     * @param packet a RoCEv2 packet ({@link #isRoce})
     * @param ip     where its IP header starts
     * @return the ICRC it carries
     */
    public static int carried(byte[] packet, int ip) {
        int at = at(packet, ip);
        return (packet[at] & 0xFF) | (packet[at + 1] & 0xFF) << 8 | (packet[at + 2] & 0xFF) << 16
                | (packet[at + 3] & 0xFF) << 24;
    }

    /**
     * @param packet a RoCEv2 packet ({@link #isRoce})
     * @param ip     where its IP header starts
     * @param icrc   the ICRC to write
     */
    public static void write(byte[] packet, int ip, int icrc) {
        int at = at(packet, ip);
        for (int b = 0; b < 4; b++) {
            packet[at + b] = (byte) (icrc >>> (8 * b));
        }
    }

    /**
     * @param message bytes
     * @return their CRC with no initial value and no final inversion
     */
    public static int linear(byte[] message) {
        CRC32 a = new CRC32();
        a.update(message);
        CRC32 zero = new CRC32();
        zero.update(new byte[message.length]);
        return (int) (a.getValue() ^ zero.getValue());
    }

    /**
     * @param state a linear CRC state
     * @param zeros how many zero bytes follow
     * @return the state after them
     */
    public static int shift(int state, int zeros) {
        return apply(shiftColumns(zeros), state);
    }

    /**
     * The matrix of {@code zeros} zero bytes: column i is the state bit i becomes.
     *
     * @param zeros how many zero bytes
     * @return its 32 columns
     */
    public static int[] shiftColumns(int zeros) {
        if (zeros < 0) {
            throw new IllegalArgumentException("zeros must be at least 0: " + zeros);
        }
        int[] cols = new int[32];
        for (int i = 0; i < 32; i++) {
            cols[i] = 1 << i;
        }
        int[] step = byteColumns();
        // square-and-multiply: the columns of zeros bytes, from those of one byte
        int[] power = step;
        for (int n = zeros; n != 0; n >>>= 1) {
            if ((n & 1) != 0) {
                cols = compose(power, cols);
            }
            power = compose(power, power);
        }
        return cols;
    }

    /**
     * @param cols  a matrix by its columns
     * @param state a vector
     * @return the matrix times the vector
     */
    public static int apply(int[] cols, int state) {
        int out = 0;
        for (int i = 0; i < 32; i++) {
            if ((state >>> i & 1) != 0) {
                out ^= cols[i];
            }
        }
        return out;
    }

    // a after b
    private static int[] compose(int[] a, int[] b) {
        int[] out = new int[32];
        for (int i = 0; i < 32; i++) {
            out[i] = apply(a, b[i]);
        }
        return out;
    }

    private static int[] byteColumns() {
        int[] cols = new int[32];
        for (int i = 0; i < 32; i++) {
            int c = 1 << i;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ POLY : c >>> 1;
            }
            cols[i] = c;
        }
        return cols;
    }

    private static int u16(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | (b[at + 1] & 0xFF);
    }
}
