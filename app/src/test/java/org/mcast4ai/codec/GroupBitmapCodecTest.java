package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.impl.bitmap.EthSrcBitmap;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GroupBitmapCodecTest {

    @Test
    void encodesReceiversInOrderWithBitsAndTheStamp() {
        Map<Endpoint, Integer> bits = new LinkedHashMap<>();
        bits.put(Endpoint.of("00:00:00:00:04:02/None", 18), 7);
        bits.put(Endpoint.of("00:00:00:00:02:01/None"), 2);
        GroupBitmap b = new GroupBitmap(P2mpGroupId.of(7), GroupBitmap.CARRIER_ETH_SRC, bits, 0x84L,
                EthSrcBitmap.stamp(0x84L).toString());
        ObjectNode n = GroupBitmapCodec.encode(b);
        assertEquals(List.of("groupId", "mode", "carrier", "receivers", "groupBits", "stampMac"),
                fieldNames(n));
        assertEquals(7, n.get("groupId").asLong());
        assertEquals("BITMAP", n.get("mode").asText());
        assertEquals("eth_src", n.get("carrier").asText());
        assertEquals("00:00:00:00:04:02/None", n.get("receivers").get(0).get("host").asText());
        assertEquals(7, n.get("receivers").get(0).get("bit").asInt());
        assertEquals(18, n.get("receivers").get(0).get("qpn").asInt());
        assertTrue(n.get("receivers").get(1).path("qpn").isMissingNode());
        assertEquals(2, n.get("receivers").get(1).get("bit").asInt());
        assertEquals("0x84", n.get("groupBits").asText());
        assertEquals(EthSrcBitmap.stamp(0x84L).toString(), n.get("stampMac").asText());
    }

    private static List<String> fieldNames(ObjectNode n) {
        List<String> names = new ArrayList<>();
        n.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
