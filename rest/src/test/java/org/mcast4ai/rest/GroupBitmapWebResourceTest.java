package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GET groups/{id}/bitmap} over real HTTP: the bit map of a BITMAP group, 409 for a TREE group. */
class GroupBitmapWebResourceTest extends RestTestBase {

    @Test
    void bitmapGroupReturnsReceiverBitsAndTheStamp() throws Exception {
        RestServer.Reply created = call("POST", "groups", "{'tenant':'t1','name':'b','jobId':'j',"
                + "'source':'10.0.0.1','receivers':['10.0.0.3','10.0.0.8'],'mode':'BITMAP'}");
        assertEquals(201, created.status, created.toString());
        long id = created.json().get("id").asLong();

        RestServer.Reply r = call("GET", "groups/" + id + "/bitmap", null);
        assertEquals(200, r.status, r.toString());
        JsonNode b = r.json();
        assertEquals(id, b.get("groupId").asLong());
        assertEquals("BITMAP", b.get("mode").asText());
        assertEquals("eth_src", b.get("carrier").asText());
        assertEquals("10.0.0.3", b.get("receivers").get(0).get("host").asText(), b.toString());
        assertEquals("10.0.0.8", b.get("receivers").get(1).get("host").asText(), b.toString());
        int bit3 = b.get("receivers").get(0).get("bit").asInt();
        int bit8 = b.get("receivers").get(1).get("bit").asInt();
        assertTrue(bit3 != bit8 && bit3 >= 0 && bit8 >= 0, b.toString());
        long bits = (1L << bit3) | (1L << bit8);
        assertEquals("0x" + Long.toHexString(bits), b.get("groupBits").asText());
        // the stamp is the locally administered unicast address carrying the bits (46 of them)
        assertEquals(String.format("%012x", 0x020000000000L | bits), b.get("stampMac").asText().replace(":", ""));
    }

    @Test
    void treeGroupIs409WithTheReasonAndUnknownIs404() throws Exception {
        long id = createTree("g1", "10.0.0.2");
        assertError(call("GET", "groups/" + id + "/bitmap", null), 409, "not BITMAP");
        assertError(call("GET", "groups/99/bitmap", null), 404);
        assertError(call("GET", "groups/x/bitmap", null), 400);
    }
}
