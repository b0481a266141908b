package org.mcast4ai.engine.bitmap;

import org.mcast4ai.engine.reliable.Icrc;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A stock NIC's UD SEND to an IPv6 subset address for the known-answer vectors, what its source leaf turns it
 * into (the group's address as destination, the ICRC computed afresh over the result, not updated as the
 * program does) and the subset entry the leaf holds.
 */
final class SubsetCopies {
    /** The fabric's subset prefix and the group's number. */
    static final int PREFIX = 0xfd4c;
    static final int GROUP = 77;
    /** The group's address: what every copy carries (the receivers' QPs are attached to it). */
    static final byte[] GROUP_ADDRESS = {(byte) 0xff, 0x3e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x4d, 0, 0x2a};
    /** The UDP source port: the header's flow entropy. */
    static final int SOURCE_PORT = 0xC04D;

    private SubsetCopies() {
    }

    /**
     * fd00::1 sends a UD SEND ONLY (DETH, 32-byte payload) to the multicast QPN at an address; valid ICRC, UDP
     * checksum 0.
     *
     * @param dst the destination address
     * @return the IPv6 packet
     */
    static byte[] send(byte[] dst) {
        byte[] payload = "mcast4ai subset vector: top-K...".getBytes(StandardCharsets.US_ASCII);
        int deth = 8;
        int udpLen = 8 + Icrc.BTH_BYTES + deth + payload.length + 4;
        byte[] p = new byte[14 + 40 + udpLen];
        int ip = 14;
        p[12] = (byte) 0x86;
        p[13] = (byte) 0xDD;
        p[ip] = 0x60;
        p[ip + 4] = (byte) (udpLen >>> 8);
        p[ip + 5] = (byte) udpLen;
        p[ip + 6] = 17;
        p[ip + 7] = 64;
        p[ip + 8] = (byte) 0xfd;
        p[ip + 23] = 1;
        System.arraycopy(dst, 0, p, ip + 24, 16);
        int udp = ip + 40;
        p[udp] = (byte) (SOURCE_PORT >>> 8);
        p[udp + 1] = (byte) SOURCE_PORT;
        p[udp + 2] = (byte) (Icrc.ROCE_PORT >>> 8);
        p[udp + 3] = (byte) Icrc.ROCE_PORT;
        p[udp + 4] = (byte) (udpLen >>> 8);
        p[udp + 5] = (byte) udpLen;
        int bth = udp + 8;
        p[bth] = 0x64;
        p[bth + 2] = (byte) 0xFF;
        p[bth + 3] = (byte) 0xFF;
        p[bth + 5] = (byte) 0xFF;
        p[bth + 6] = (byte) 0xFF;
        p[bth + 7] = (byte) 0xFF;
        p[bth + 10] = 0x0A;
        p[bth + 11] = (byte) 0xBC;
        int d = bth + Icrc.BTH_BYTES;
        p[d] = (byte) 0x80;
        p[d + 1] = 0x01;
        p[d + 7] = 0x11;
        System.arraycopy(payload, 0, p, d + deth, payload.length);
        Icrc.write(p, ip, Icrc.compute(p, ip));
        return Arrays.copyOfRange(p, 14, p.length);
    }

    /** @return the packet as its source leaf sends it on: to the group's address, its ICRC computed afresh */
    static byte[] expanded(byte[] sent) {
        byte[] p = new byte[14 + sent.length];
        System.arraycopy(sent, 0, p, 14, sent.length);
        System.arraycopy(GROUP_ADDRESS, 0, p, 14 + 24, 16);
        p[14 + 40 + 6] = 0;
        p[14 + 40 + 7] = 0;
        Icrc.write(p, 14, Icrc.compute(p, 14));
        return Arrays.copyOfRange(p, 14, p.length);
    }

    /** @return the source leaf's subset entry for the sender's port as a JSON member (with a leading comma) */
    static String json(SubsetExpansion e, long port) {
        return ",\n      \"subsets\": [{\"port\": " + port + ", \"prefix\": " + PREFIX + ", \"group\": " + GROUP
                + ", \"members\": " + e.members() + ",\n        \"lo\": \"" + KnownAnswersTest.hex(e.rankParam(false))
                + "\",\n        \"hi\": \"" + KnownAnswersTest.hex(e.rankParam(true)) + "\",\n        \"address\": \""
                + KnownAnswersTest.hex(GROUP_ADDRESS) + "\"}]";
    }

    /** A rank-list subset address of the fabric's prefix with these raw 12-bit entries, unused ones 0xFFF. */
    static byte[] listAddress(int group, int... entries) {
        byte[] a = address(group);
        for (int i = 0; i < SubsetEncoder.MAX_LIST_RANKS; i++) {
            int v = i < entries.length ? entries[i] : 0xFFF;
            for (int k = 0; k < 12; k++) {
                if ((v & (0x800 >>> k)) != 0) {
                    int bit = 32 + 12 * i + k;
                    a[bit / 8] |= (byte) (0x80 >>> (bit % 8));
                }
            }
        }
        return a;
    }

    /** A rank-bitmap subset address: rank r at bit 0x80 >>> r % 8 of byte 4 + r / 8. */
    static byte[] bitmapAddress(int group, int... ranks) {
        byte[] a = address(group);
        a[2] |= (byte) 0x80;
        for (int r : ranks) {
            a[4 + r / 8] |= (byte) (0x80 >>> (r % 8));
        }
        return a;
    }

    static byte[] address(int group) {
        byte[] a = new byte[16];
        a[0] = (byte) (SubsetCopies.PREFIX >>> 8);
        a[1] = (byte) SubsetCopies.PREFIX;
        a[2] = (byte) (group >>> 8);
        a[3] = (byte) group;
        return a;
    }
}
