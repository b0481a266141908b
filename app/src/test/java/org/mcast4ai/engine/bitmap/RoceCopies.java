package org.mcast4ai.engine.bitmap;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.reliable.EdgeRewrite;
import org.mcast4ai.engine.reliable.Icrc;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A reliable group's data packet for the known-answer vectors: a RoCEv2 SEND from the sender's RC QP to the
 * group's virtual peer (VP), with a valid ICRC, and the receivers' rewrites the receiver leaves hold.
 */
final class RoceCopies {
    /** The VP's QPN the sender's QP is connected to. */
    static final int VP_QPN = 0x000123;

    private RoceCopies() {
    }

    /** The packet inside the header and the rewrites at the receivers' ports. */
    static final class Edge {
        private final boolean ipv4;
        private final byte[] inner;
        private final byte[] vp;
        private final Map<Long, EdgeRewrite.Receiver> at;

        Edge(boolean ipv4, byte[] inner, byte[] vp, Map<Long, EdgeRewrite.Receiver> at) {
            this.ipv4 = ipv4;
            this.inner = inner;
            this.vp = vp;
            this.at = at;
        }

        boolean ipv4() {
            return ipv4;
        }

        byte[] inner() {
            return inner.clone();
        }

        /** @return the frame as it leaves the switch's port: rewritten if a receiver's rewrite is there */
        byte[] atPort(int sw, long port, byte[] frame) {
            EdgeRewrite.Receiver r = at.get(key(sw, port));
            if (r == null) {
                return frame;
            }
            byte[] out = EdgeRewrite.apply(frame, r);
            if (Icrc.compute(out, 14) != Icrc.carried(out, 14)) {
                throw new IllegalStateException("a rewritten copy's ICRC is not its bytes'");
            }
            return out;
        }

        /** @return the switch's rewrites as a JSON member (with a leading comma), or nothing */
        String json(int sw) {
            List<String> out = new ArrayList<>();
            at.forEach((k, r) -> {
                if (k >>> 32 == sw) {
                    out.add("{\"port\": " + (k & 0xFFFFFFFFL) + ", \"dst\": \"" + KnownAnswersTest.hex(vp)
                            + "\", \"mac\": \"" + KnownAnswersTest.hex(r.mac()) + "\", \"ip\": \""
                            + KnownAnswersTest.hex(r.ip()) + "\", \"qpn\": " + r.qpn() + ", \"vp\": \""
                            + KnownAnswersTest.hex(r.vp()) + "\"}");
                }
            });
            return out.isEmpty() ? "" : ",\n      \"rewrites\": [" + String.join(", ", out) + "]";
        }
    }

    /**
     * @param f         the fabric
     * @param ipv4      IPv4 inside (else IPv6)
     * @param receivers the group's receivers; each but the last gets a rewrite at its port (the last is a plain
     *                  receiver and gets the copy as it is)
     * @return the edge
     */
    static Edge edge(FabricSnapshot f, boolean ipv4, String... receivers) {
        byte[] vp = ipv4 ? new byte[]{10, 0, 0, 100} : address6(0x100);
        Map<Long, EdgeRewrite.Receiver> at = new LinkedHashMap<>();
        for (int i = 0; i + 1 < receivers.length; i++) {
            int h = f.hostIndex(receivers[i]);
            int n = 1 + i;
            byte[] ip = ipv4 ? new byte[]{10, 0, 1, (byte) n} : address6(0x1_0000 + n);
            at.put(key(f.hostSwitch(h), f.hostPort(h)), new EdgeRewrite.Receiver(
                    new byte[]{2, 0, 0, 0, 1, (byte) n}, ip, 0x000200 + n, vp));
        }
        return new Edge(ipv4, send(ipv4, vp), vp, at);
    }

    private static long key(int sw, long port) {
        return (long) sw << 32 | port;
    }

    /** fd00::1 (IPv6) or 10.0.0.1 sends a SEND ONLY with a 48-byte payload to the VP's QPN; UDP checksum 0. */
    private static byte[] send(boolean ipv4, byte[] vp) {
        byte[] payload = "mcast4ai reliable vector: one SEND to the VP....".getBytes(StandardCharsets.US_ASCII);
        int ipLen = ipv4 ? 20 : 40;
        int udpLen = 8 + Icrc.BTH_BYTES + payload.length + 4;
        byte[] p = new byte[14 + ipLen + udpLen];
        int ip = 14;
        if (ipv4) {
            p[12] = 0x08;
            p[ip] = 0x45;
            p[ip + 1] = 0x02;
            p[ip + 2] = (byte) ((ipLen + udpLen) >>> 8);
            p[ip + 3] = (byte) (ipLen + udpLen);
            p[ip + 6] = 0x40;
            p[ip + 8] = 64;
            p[ip + 9] = 17;
            System.arraycopy(new byte[]{10, 0, 0, 1}, 0, p, ip + 12, 4);
            System.arraycopy(vp, 0, p, ip + 16, 4);
            EdgeRewrite.ipv4Checksum(p, ip);
        } else {
            p[12] = (byte) 0x86;
            p[13] = (byte) 0xDD;
            p[ip] = 0x60;
            p[ip + 1] = 0x20;
            p[ip + 4] = (byte) (udpLen >>> 8);
            p[ip + 5] = (byte) udpLen;
            p[ip + 6] = 17;
            p[ip + 7] = 64;
            System.arraycopy(address6(1), 0, p, ip + 8, 16);
            System.arraycopy(vp, 0, p, ip + 24, 16);
        }
        int udp = ip + ipLen;
        p[udp] = (byte) 0xC0;
        p[udp + 1] = 0x77;
        p[udp + 2] = (byte) (Icrc.ROCE_PORT >>> 8);
        p[udp + 3] = (byte) Icrc.ROCE_PORT;
        p[udp + 4] = (byte) (udpLen >>> 8);
        p[udp + 5] = (byte) udpLen;
        int bth = udp + 8;
        p[bth] = 0x04;
        p[bth + 2] = (byte) 0xFF;
        p[bth + 3] = (byte) 0xFF;
        p[bth + 5] = (byte) (VP_QPN >>> 16);
        p[bth + 6] = (byte) (VP_QPN >>> 8);
        p[bth + 7] = (byte) VP_QPN;
        p[bth + 8] = (byte) 0x80;
        p[bth + 10] = 0x0A;
        p[bth + 11] = (byte) 0xBC;
        System.arraycopy(payload, 0, p, bth + Icrc.BTH_BYTES, payload.length);
        Icrc.write(p, ip, Icrc.compute(p, ip));
        return Arrays.copyOfRange(p, 14, p.length);
    }

    private static byte[] address6(int low) {
        byte[] a = new byte[16];
        a[0] = (byte) 0xfd;
        a[13] = (byte) (low >>> 16);
        a[14] = (byte) (low >>> 8);
        a[15] = (byte) low;
        return a;
    }
}
