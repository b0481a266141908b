package org.mcast4ai.engine.reliable;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The receiver-edge rewrite and the ICRC arithmetic it rests on, on random RoCEv2 frames. */
class EdgeRewriteTest {
    private static final long SEED = Long.getLong("mcast4ai.edge.seed", System.nanoTime());

    /** A frame scapy built (IPv4, its ICRC e176719d on the wire): the masked layout matches another tool's. */
    @Test
    void icrcMatchesAKnownAnswer() {
        byte[] f = unhex("02000000000b02000000000108004512004e00074000211144be0a0000010a0000c8c12312b7003a00000a00ffff"
                + "000001230000abcd7061796c6f616420666f72207468652049435243206b6e6f776e20616e7377657221e176719d");
        assertEquals(Icrc.carried(f, 14), Icrc.compute(f, 14));
        assertEquals(0x9d7176e1, Icrc.carried(f, 14));
    }

    @Test
    void shiftIsTheCrcOfZeroBytes() {
        Random rnd = new Random(SEED);
        for (int t = 0; t < 200; t++) {
            byte[] m = new byte[1 + rnd.nextInt(64)];
            rnd.nextBytes(m);
            int zeros = rnd.nextInt(5000);
            assertEquals(Icrc.linear(Arrays.copyOf(m, m.length + zeros)), Icrc.shift(Icrc.linear(m), zeros),
                    "seed " + SEED);
        }
        // split as the switch applies it: the low six bits' matrix, then the high bits'
        int n = 4133;
        int s = 0x12345678;
        assertEquals(Icrc.shift(s, n), Icrc.apply(Icrc.shiftColumns(n & ~63), Icrc.apply(Icrc.shiftColumns(n & 63),
                s)));
    }

    @Test
    void aRewrittenCopyCarriesTheIcrcItsBytesCallFor() {
        Random rnd = new Random(SEED);
        for (int t = 0; t < 300; t++) {
            boolean v4 = rnd.nextBoolean();
            byte[] in = roce(rnd, v4, rnd.nextInt(4097));
            EdgeRewrite.Receiver r = receiver(rnd, v4);
            byte[] out = EdgeRewrite.apply(in, r);
            assertEquals(Icrc.compute(out, 14), Icrc.carried(out, 14), "seed " + SEED + " case " + t);
            assertArrayEquals(r.mac(), Arrays.copyOf(out, 6));
            int ip = 14;
            int len = v4 ? 4 : 16;
            int src = ip + (v4 ? 12 : 8);
            assertArrayEquals(r.vp(), Arrays.copyOfRange(out, src, src + len));
            assertArrayEquals(r.ip(), Arrays.copyOfRange(out, src + len, src + 2 * len));
            int udp = Icrc.udp(out, ip);
            assertEquals(r.qpn(), (out[udp + 13] & 0xFF) << 16 | (out[udp + 14] & 0xFF) << 8 | (out[udp + 15] & 0xFF));
            assertEquals(0, out[udp + 6] | out[udp + 7]);
            if (v4) {
                assertEquals(0, ipv4Sum(out, ip), "IPv4 header checksum");
            }
            // nothing else changed: the payload, the PSN, the other header fields
            byte[] back = in.clone();
            System.arraycopy(out, 0, back, 0, 6);
            System.arraycopy(out, src, back, src, 2 * len);
            System.arraycopy(out, udp + 13, back, udp + 13, 3);
            back[udp + 6] = 0;
            back[udp + 7] = 0;
            if (v4) {
                back[ip + 10] = out[ip + 10];
                back[ip + 11] = out[ip + 11];
            }
            int at = Icrc.at(out, ip);
            System.arraycopy(out, at, back, at, 4);
            assertArrayEquals(back, out);
        }
    }

    @Test
    void aDamagedCopyStaysDamaged() {
        Random rnd = new Random(SEED);
        for (int t = 0; t < 100; t++) {
            boolean v4 = rnd.nextBoolean();
            byte[] in = roce(rnd, v4, 1 + rnd.nextInt(2000));
            int at = Icrc.at(in, 14);
            int hit = at - 1 - rnd.nextInt(at - 14 - (v4 ? 20 : 40) - 20);
            in[hit] ^= (byte) (1 << rnd.nextInt(8));
            int error = Icrc.carried(in, 14) ^ Icrc.compute(in, 14);
            assertNotEquals(0, error);
            byte[] out = EdgeRewrite.apply(in, receiver(rnd, v4));
            assertEquals(error, Icrc.carried(out, 14) ^ Icrc.compute(out, 14), "seed " + SEED);
        }
    }

    @Test
    void refusesWhatItCannotRewrite() {
        Random rnd = new Random(SEED);
        byte[] v6 = roce(rnd, false, 10);
        assertThrows(IllegalArgumentException.class, () -> EdgeRewrite.apply(v6, receiver(rnd, true)));
        byte[] other = v6.clone();
        other[14 + 40 + 3] = 1;
        assertThrows(IllegalArgumentException.class, () -> EdgeRewrite.apply(other, receiver(rnd, false)));
        assertThrows(IllegalArgumentException.class, () -> new EdgeRewrite.Receiver(new byte[6], new byte[4],
                1 << 24, new byte[4]));
        assertThrows(IllegalArgumentException.class, () -> new EdgeRewrite.Receiver(new byte[6], new byte[4], 1,
                new byte[16]));
    }

    /** A random RoCEv2 frame with a valid ICRC: random addresses, masked fields, BTH and payload. */
    static byte[] roce(Random rnd, boolean v4, int payload) {
        int ipLen = v4 ? 20 : 40;
        int udpLen = 8 + Icrc.BTH_BYTES + payload + 4;
        byte[] f = new byte[14 + ipLen + udpLen];
        rnd.nextBytes(f);
        f[12] = (byte) (v4 ? 0x08 : 0x86);
        f[13] = (byte) (v4 ? 0x00 : 0xDD);
        int ip = 14;
        if (v4) {
            f[ip] = 0x45;
            f[ip + 2] = (byte) ((ipLen + udpLen) >>> 8);
            f[ip + 3] = (byte) (ipLen + udpLen);
            f[ip + 9] = 17;
        } else {
            f[ip] = (byte) (0x60 | (f[ip] & 0x0F));
            f[ip + 4] = (byte) (udpLen >>> 8);
            f[ip + 5] = (byte) udpLen;
            f[ip + 6] = 17;
        }
        int udp = ip + ipLen;
        f[udp + 2] = (byte) (Icrc.ROCE_PORT >>> 8);
        f[udp + 3] = (byte) Icrc.ROCE_PORT;
        f[udp + 4] = (byte) (udpLen >>> 8);
        f[udp + 5] = (byte) udpLen;
        Icrc.write(f, ip, Icrc.compute(f, ip));
        return f;
    }

    static EdgeRewrite.Receiver receiver(Random rnd, boolean v4) {
        byte[] mac = new byte[6];
        byte[] ip = new byte[v4 ? 4 : 16];
        byte[] vp = new byte[ip.length];
        rnd.nextBytes(mac);
        rnd.nextBytes(ip);
        rnd.nextBytes(vp);
        return new EdgeRewrite.Receiver(mac, ip, rnd.nextInt(1 << 24), vp);
    }

    private static int ipv4Sum(byte[] b, int ip) {
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += (b[ip + i] & 0xFF) << 8 | (b[ip + i + 1] & 0xFF);
        }
        while (sum >>> 16 != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }

    private static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }
}
