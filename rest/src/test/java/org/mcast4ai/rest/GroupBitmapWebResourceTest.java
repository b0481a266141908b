package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        assertEquals("10.0.0.3", b.get("receivers").get(0).get("host").asText());
        assertEquals(2, b.get("receivers").get(0).get("bit").asInt());
        assertEquals("10.0.0.8", b.get("receivers").get(1).get("host").asText());
        assertEquals(7, b.get("receivers").get(1).get("bit").asInt());
        assertEquals("0x84", b.get("groupBits").asText());
        assertEquals("02:00:00:00:00:84", b.get("stampMac").asText());
    }

    @Test
    void treeGroupIs409WithTheReasonAndUnknownIs404() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2");
        assertError(call("GET", "groups/" + id + "/bitmap", null), 409, "not BITMAP");
        assertError(call("GET", "groups/99/bitmap", null), 404);
        assertError(call("GET", "groups/x/bitmap", null), 400);
    }
}
