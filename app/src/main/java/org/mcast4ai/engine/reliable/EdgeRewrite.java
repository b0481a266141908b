package org.mcast4ai.engine.reliable;

/**
 * The per-receiver rewrite at a receiver's leaf, as the P4 egress does it: a group's RoCEv2 copy arrives
 * addressed to the virtual peer (VP) with the VP's QPN, and leaves as the packet an unmodified RC responder
 * accepts: the receiver's MAC, IP and QPN, the VP as source, UDP checksum 0 (RoCEv2 receivers ignore it, annex
 * A17.4.2), a new IPv4 header checksum, and the ICRC updated incrementally.
 *
 * <p>The ICRC is not computed again over the packet: it is the carried one XOR the CRC of the rewritten fields'
 * difference shifted over the bytes after them ({@link Icrc}). So a copy whose payload was damaged on the way
 * still fails the receiver's check: the edge never makes a damaged packet valid. Only the source addresses, the
 * destination address and the QPN enter the difference; the other rewritten fields are masked in the ICRC.
 * Pure.
 */
public final class EdgeRewrite {
    /** Bytes from the ICRC's start (eight bytes of ones, then the IPv6 header) to the end of the BTH's QPN. */
    public static final int PREFIX_V6 = 8 + 40 + 8 + 8;
    /** The same with an IPv4 header. */
    public static final int PREFIX_V4 = 8 + 20 + 8 + 8;

    private EdgeRewrite() {
    }

    /** The receiver a copy is rewritten for. */
    public static final class Receiver {
        private final byte[] mac;
        private final byte[] ip;
        private final int qpn;
        private final byte[] vp;

        /**
         * @param mac the receiver's MAC (6 bytes)
         * @param ip  its address (4 or 16 bytes, as the copy's)
         * @param qpn its QP number (24 bits)
         * @param vp  the virtual peer's address its QP is connected to (as long as {@code ip})
         */
        public Receiver(byte[] mac, byte[] ip, int qpn, byte[] vp) {
            if (mac.length != 6) {
                throw new IllegalArgumentException("mac must be 6 bytes: " + mac.length);
            }
            if (ip.length != 4 && ip.length != 16 || vp.length != ip.length) {
                throw new IllegalArgumentException("ip and vp must both be 4 or 16 bytes: " + ip.length + ", "
                        + vp.length);
            }
            if ((qpn & ~0xFFFFFF) != 0) {
                throw new IllegalArgumentException("qpn must fit 24 bits: " + qpn);
            }
            this.mac = mac.clone();
            this.ip = ip.clone();
            this.qpn = qpn;
            this.vp = vp.clone();
        }

        /** @return the MAC */
        public byte[] mac() {
            return mac.clone();
        }

        /** @return the address */
        public byte[] ip() {
            return ip.clone();
        }

        /** @return the QP number */
        public int qpn() {
            return qpn;
        }

        /** @return the virtual peer's address */
        public byte[] vp() {
            return vp.clone();
        }
    }

    /**
     * @param frame an Ethernet frame (no VLAN tag) carrying a RoCEv2 packet ({@link Icrc#isRoce} at 14) of the
     *              receiver's IP version
     * @param r     the receiver
     * @return the rewritten frame (a new array)
     * @throws IllegalArgumentException if the frame is not such a packet
     */
    public static byte[] apply(byte[] frame, Receiver r) {
        int ip = 14;
        if (!Icrc.isRoce(frame, ip)) {
            throw new IllegalArgumentException("not a RoCEv2 packet");
        }
        boolean v4 = (frame[ip] & 0xFF) >>> 4 == 4;
        if (v4 != (r.ip.length == 4)) {
            throw new IllegalArgumentException("the receiver's address is not of the packet's IP version");
        }
        int udp = Icrc.udp(frame, ip);
        int src = ip + (v4 ? 12 : 8);
        int len = r.ip.length;
        int qpnAt = udp + 8 + 5;
        // the difference, laid out as the ICRC's message from its start to the QPN's end
        byte[] delta = new byte[v4 ? PREFIX_V4 : PREFIX_V6];
        int base = 8 - ip;
        for (int i = 0; i < len; i++) {
            delta[base + src + i] = (byte) (frame[src + i] ^ r.vp[i]);
            delta[base + src + len + i] = (byte) (frame[src + len + i] ^ r.ip[i]);
        }
        for (int i = 0; i < 3; i++) {
            delta[base + qpnAt + i] = (byte) (frame[qpnAt + i] ^ (r.qpn >>> (8 * (2 - i))));
        }
        byte[] out = frame.clone();
        System.arraycopy(r.mac, 0, out, 0, 6);
        System.arraycopy(r.vp, 0, out, src, len);
        System.arraycopy(r.ip, 0, out, src + len, len);
        for (int i = 0; i < 3; i++) {
            out[qpnAt + i] = (byte) (r.qpn >>> (8 * (2 - i)));
        }
        out[udp + 6] = 0;
        out[udp + 7] = 0;
        if (v4) {
            ipv4Checksum(out, ip);
        }
        int tail = Icrc.at(frame, ip) - (qpnAt + 3);
        Icrc.write(out, ip, Icrc.carried(frame, ip) ^ Icrc.shift(Icrc.linear(delta), tail));
        return out;
    }

    /**
     * @param frame an Ethernet frame carrying a RoCEv2 packet
     * @return the bytes after the QPN up to the ICRC, which the shift must cover (the UDP length minus 20)
     */
    public static int tail(byte[] frame) {
        int udp = Icrc.udp(frame, 14);
        return ((frame[udp + 4] & 0xFF) << 8 | (frame[udp + 5] & 0xFF)) - 20;
    }

    /**
     * Writes an IPv4 header's checksum.
     *
     * @param b  the bytes
     * @param ip where the (20-byte) header starts
     */
    public static void ipv4Checksum(byte[] b, int ip) {
        b[ip + 10] = 0;
        b[ip + 11] = 0;
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += (b[ip + i] & 0xFF) << 8 | (b[ip + i + 1] & 0xFF);
        }
        while (sum >>> 16 != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        b[ip + 10] = (byte) (~sum >>> 8);
        b[ip + 11] = (byte) ~sum;
    }
}
