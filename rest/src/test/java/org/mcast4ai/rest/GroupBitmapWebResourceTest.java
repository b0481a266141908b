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
                + "'source':'10.0.0.1','receivers':['10.0.0.3',{'host':'10.0.0.8','qpn':4242}],'mode':'BITMAP'}");
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
        // the QPN the request gave, so a sender addressing a subset knows which queue pair each bit reaches
        assertEquals(4242, b.get("receivers").get(1).get("qpn").asInt(), b.toString());
        assertTrue(b.get("receivers").get(0).path("qpn").isMissingNode(), b.toString());
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

    @Test
    void planOfABitmapGroupNamesItsStampAndTheStaticTables() throws Exception {
        RestServer.Reply created = call("POST", "groups", "{'tenant':'t1','name':'b','source':'10.0.0.1',"
                + "'receivers':['10.0.0.3','10.0.0.8'],'mode':'BITMAP'}");
        long id = created.json().get("id").asLong();
        JsonNode plan = call("GET", "groups/" + id + "/plan", null).json();
        assertEquals("BITMAP", plan.get("mode").asText(), plan.toString());
        assertEquals(0, plan.get("devices").size(), "no per-device tree");
        JsonNode stamp = plan.get("bitmap").get("stamp");
        JsonNode bitmap = call("GET", "groups/" + id + "/bitmap", null).json();
        assertEquals(bitmap.get("groupBits").asText(), stamp.get("groupBits").asText());
        assertEquals(bitmap.get("stampMac").asText(), stamp.get("stampMac").asText());
        assertTrue(stamp.get("switchStamped").asBoolean());
        assertTrue(stamp.get("uplink").asText().startsWith("spread slot"), stamp.toString());
        JsonNode tables = plan.get("bitmap").get("staticTables");
        assertTrue(tables.get("inPlace").asBoolean(), tables.toString());
        assertEquals(6, tables.get("devices").size(), "2 spines and 4 leaves: " + tables);
        assertEquals(0, plan.get("bitmap").get("transitEntries").asInt());

        long tree = createTree("t", "10.0.0.2");
        JsonNode treePlan = call("GET", "groups/" + tree + "/plan", null).json();
        assertEquals("TREE", treePlan.get("mode").asText());
        assertTrue(treePlan.path("bitmap").isMissingNode());
        assertTrue(treePlan.get("devices").size() > 0);
    }
}
