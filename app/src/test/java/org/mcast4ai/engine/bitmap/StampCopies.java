package org.mcast4ai.engine.bitmap;

import org.mcast4ai.impl.p4.P4StampPlanner;

import java.util.ArrayList;
import java.util.List;

/**
 * A group's stamp at its source leaf in the known-answer vectors: the sender's plain IPv4 RoCEv2 packet to the
 * group's address, the leaf's entries as {@link P4StampPlanner} writes them, and the headers the copies carry.
 */
final class StampCopies {
    /** The group's number, multicast group and address (232.0.77.42). */
    static final int NUMBER = 77;
    static final byte[] ADDRESS = {(byte) 232, 0, 77, 42};
    /** The UDP source port the sender's packets carry: the flow entropy the stamped copies take. */
    static final int SPORT = 0xC0DE;

    private StampCopies() {
    }

    /**
     * @param headers the stamped headers (entropy 0)
     * @return the headers the copies carry: the flow's entropy in place of 0
     */
    static List<HeaderV2> sent(HeaderV2Codec codec, List<byte[]> headers) {
        List<HeaderV2> out = new ArrayList<>();
        for (byte[] b : headers) {
            HeaderV2 h = codec.decode(b);
            out.add(new HeaderV2(h.hopLimit(), SPORT, true, h.sections()));
        }
        return out;
    }

    /**
     * The source leaf's stamp entries, as the replay writes them: replicas numbered from 1 (as ONOS numbers a
     * port's replicas in some releases), header entries for numbers 0 to n.
     */
    static String json(long port, List<byte[]> headers) {
        StringBuilder replicas = new StringBuilder();
        StringBuilder entries = new StringBuilder();
        int n = headers.size();
        for (int r = 0; r <= n; r++) {
            if (r > 0) {
                replicas.append(r == 1 ? "" : ", ").append(r);
            }
            P4StampPlanner.Pieces p = P4StampPlanner.pieces(headers.get(r % n));
            entries.append(r == 0 ? "" : ",\n").append("          {\"packet\": ").append(r).append(", \"n32\": ")
                    .append(p.n32).append(", \"head0\": \"").append(KnownAnswersTest.hex(p.head0))
                    .append("\", \"head1\": \"").append(KnownAnswersTest.hex(p.head1)).append("\", \"tail_len\": ")
                    .append(p.tailLen).append(", \"tail\": \"").append(KnownAnswersTest.hex(p.tail)).append("\"}");
        }
        return ",\n      \"stamps\": [{\"port\": " + port + ", \"dst\": \"" + KnownAnswersTest.hex(ADDRESS)
                + "\", \"group\": " + NUMBER + ", \"mgrp\": " + (P4StampPlanner.MGRP_BASE + NUMBER)
                + ", \"replicas\": [" + replicas + "],\n        \"headers\": [\n" + entries + "]}]";
    }

    /**
     * 10.0.0.1 sends a RoCEv2 SEND ONLY (IPv4, UDP from {@link #SPORT} to 4791, BTH, 32 bytes, an ICRC the
     * switches never read) to the group's address, with a valid IPv4 checksum.
     *
     * @param to the destination address
     */
    static byte[] inner(byte[] to) {
        byte[] payload = "mcast4ai stamp vector: a send...".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int udpLen = 8 + 12 + payload.length + 4;
        byte[] p = new byte[20 + udpLen];
        p[0] = 0x45;
        p[2] = (byte) ((20 + udpLen) >>> 8);
        p[3] = (byte) (20 + udpLen);
        p[6] = 0x40;
        p[8] = 64;
        p[9] = 17;
        p[12] = 10;
        p[15] = 1;
        System.arraycopy(to, 0, p, 16, 4);
        long sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((p[i] & 0xFF) << 8) | (p[i + 1] & 0xFF);
        }
        while (sum >>> 16 != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        p[10] = (byte) (~sum >>> 8);
        p[11] = (byte) ~sum;
        p[20] = (byte) (SPORT >>> 8);
        p[21] = (byte) SPORT;
        p[22] = (byte) (4791 >>> 8);
        p[23] = (byte) 4791;
        p[24] = (byte) (udpLen >>> 8);
        p[25] = (byte) udpLen;
        p[28] = 0x04;
        p[30] = (byte) 0xFF;
        p[31] = (byte) 0xFF;
        p[35] = 0x2a;
        p[36] = (byte) 0x80;
        System.arraycopy(payload, 0, p, 40, payload.length);
        p[p.length - 4] = 0x5a;
        p[p.length - 1] = (byte) 0xa5;
        return p;
    }
}
