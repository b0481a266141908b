package org.mcast4ai.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's side of {@code ebpf/ack_agg.h}: control frames laid out as {@code struct agg_ctrl} (packed, little
 * endian but for addresses), and map entries read as bpftool formats them from the program's BTF.
 */
class ControlFrameTest {

    @Test
    void aConfigFrameIsStructAggCtrlAfterAnEthernetHeader() throws Exception {
        byte[] f = new ControlFrame(ControlFrame.CONFIG, 7, 0x0102030405060708L)
                .member(Aggregator.ip("10.254.0.7"), 0, 0xABCDEF)
                .config(true, Aggregator.ip("10.77.1.1"), 51, Aggregator.mac("02:00:00:00:01:01"),
                        Aggregator.mac("02:6d:34:fe:00:07"), 500_000_000L, 50_000L, 10_000_000L,
                        Aggregator.ip("239.77.0.7"))
                .bytes();
        assertEquals(14 + 76, f.length);
        ByteBuffer b = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals((short) 0x88B5, ByteBuffer.wrap(f).getShort(12));
        assertEquals(ControlFrame.CONFIG, f[14]);
        assertEquals(1, f[15]);
        assertEquals(7, b.getInt(18));
        assertEquals(0x0102030405060708L, b.getLong(22));
        assertEquals(10, f[30] & 0xff);                  // VP address in network order
        assertEquals(7, f[33] & 0xff);
        assertEquals(0xABCDEF, b.getInt(38));
        assertEquals(77, f[43] & 0xff);                  // sender address
        assertEquals(51, b.getInt(46));
        assertEquals(0x01, f[55] & 0xff);                // sender MAC's last byte
        assertEquals(0x6d, f[57] & 0xff);                // VP MAC
        assertEquals(500_000_000L, b.getLong(62));
        assertEquals(50_000L, b.getLong(70));
        assertEquals(10_000_000L, b.getLong(78));
        assertEquals(239, f[86] & 0xff);                 // group address, the last field
    }

    @Test
    void anEvictFrameNamesItsReceiver() throws Exception {
        byte[] f = new ControlFrame(ControlFrame.EVICT, 3, 42L).member(Aggregator.ip("10.0.0.4"), 1048579, 0).bytes();
        ByteBuffer b = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(5, f[14]);
        assertEquals(3, b.getInt(18));
        assertEquals(42L, b.getLong(22));
        assertEquals(4, f[33] & 0xff);
        assertEquals(1048579, b.getInt(34));
    }

    @Test
    void aMapEntryIsReadByItsFieldNames() throws Exception {
        // as `bpftool -j map lookup` formats struct agg_group (addresses are __u32 in network order)
        String json = "{'configured':1,'token':9,'vp_ip':" + Integer.toUnsignedString(Integer.reverseBytes(
                Aggregator.ip("10.254.0.7"))) + ",'sender_ip':0,'sender_qpn':51,'group_ip':0,'sent_next':100,"
                + "'ack_out':90,'count':3,'c':{'acks_in':12,'acks_out':4,'reacks':1,'naks_in':0,'naks_out':0,"
                + "'cnps_in':0,'cnps_out':0,'stalls':1,'common_stalls':3,'drops':[0,2,1,0,0,0,4,0]},'rx':["
                + "{'used':1,'ip':0,'qpn':1048576,'stalled':0,'acked':95},{'used':0},"
                + "{'used':1,'ip':0,'qpn':1048578,'stalled':1,'acked':90}]}";
        Installed g = Installed.of(new ObjectMapper().readTree(json.replace('\'', '"')));
        assertTrue(g.configured);
        assertEquals(Aggregator.ip("10.254.0.7"), g.vpIp);
        assertEquals(2L, g.counters.get("dropNonMember"));
        assertEquals(1L, g.counters.get("dropBeyondSent"));
        assertEquals(1L, g.counters.get("reAcks"));
        assertEquals(4L, g.counters.get("dropBadIcrc"));
        assertEquals(3L, g.counters.get("commonStalls"));
        assertFalse(g.counters.containsKey(null), "event 5 is a stall, not a drop");
        assertEquals(2, g.slots.size());
        assertFalse(g.slots.containsKey(1));
        assertTrue(g.slots.get(2).stalled);
        assertEquals(1048576, g.slots.get(0).qpn);
    }
}
