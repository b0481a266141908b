package org.mcast4ai.impl.bitmap;

import org.junit.jupiter.api.Test;
import org.onlab.packet.MacAddress;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EthSrcBitmapTest {

    @Test
    void everyStampIsUnicastAndLocallyAdministered() {
        Random r = new Random(7);
        for (int i = 0; i < 1000; i++) {
            long bits = r.nextLong() & ((1L << 46) - 1);
            MacAddress mac = EthSrcBitmap.stamp(bits);
            assertFalse(mac.isMulticast(), mac.toString());
            assertTrue((mac.toBytes()[0] & 0x02) != 0, mac.toString());
            assertEquals(bits, EthSrcBitmap.gather(mac.toLong()));
        }
    }

    @Test
    void bitsSkipTheTwoFixedBits() {
        assertEquals("02:00:00:00:00:01", EthSrcBitmap.stamp(1L).toString());
        assertEquals("02:80:00:00:00:00", EthSrcBitmap.stamp(1L << 39).toString());
        assertEquals("06:00:00:00:00:00", EthSrcBitmap.stamp(1L << 40).toString());
        assertEquals("82:00:00:00:00:00", EthSrcBitmap.stamp(1L << 45).toString());
        assertThrows(IllegalArgumentException.class, () -> EthSrcBitmap.stamp(1L << 46));
        assertThrows(IllegalArgumentException.class, () -> EthSrcBitmap.addressBit(46));
    }

    @Test
    void subsetMatchAcceptsExactlyTheSubsets() {
        long group = 0b1011_0110L;
        MacAddress[] m = EthSrcBitmap.subsetOf(group);
        assertEquals(0, m[0].toLong() & ~m[1].toLong(), "value within mask");
        for (long s = 0; s < 256; s++) {
            boolean accepted = (EthSrcBitmap.stamp(s).toLong() & m[1].toLong()) == m[0].toLong();
            assertEquals((s & ~group) == 0, accepted, "subset " + Long.toBinaryString(s));
        }
        // a multicast or vendor-administered source never passes
        assertFalse((MacAddress.valueOf("01:00:00:00:00:02").toLong() & m[1].toLong()) == m[0].toLong());
        assertFalse((MacAddress.valueOf("00:00:00:00:00:02").toLong() & m[1].toLong()) == m[0].toLong());
    }
}
