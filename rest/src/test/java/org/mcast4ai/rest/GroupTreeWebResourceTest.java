package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GET groups/{id}/tree} over real HTTP against the real group service. */
class GroupTreeWebResourceTest extends RestTestBase {

    private static Set<String> texts(JsonNode array) {
        Set<String> s = new HashSet<>();
        array.forEach(n -> s.add(n.isTextual() ? n.asText() : n.toString()));
        return s;
    }

    @Test
    void aTreeGroupsTreeNamesEveryDeviceLinkAndPath() throws Exception {
        long id = createTree("t", "10.0.0.3", "10.0.0.8");
        RestServer.Reply r = call("GET", "groups/" + id + "/tree", null);
        assertEquals(200, r.status, r.toString());
        JsonNode t = r.json();
        assertEquals(id, t.get("id").asLong());
        assertEquals("TREE", t.get("mode").asText());
        assertEquals(0, t.get("unreachable").size(), t.toString());
        Set<String> reached = new HashSet<>();
        t.get("paths").forEach(p -> reached.add(p.get("receiver").asText()));
        assertEquals(Set.of("10.0.0.3", "10.0.0.8"), reached);
        JsonNode first = t.get("devices").get(0);
        assertTrue(texts(first.get("roles")).contains("INGRESS"), first.toString());
        String ingress = first.get("deviceId").asText();
        t.get("paths").forEach(p -> assertEquals(ingress, p.get("devices").get(0).asText(), p.toString()));
        assertTrue(t.get("links").size() > 0, t.toString());
    }

    @Test
    void aBitmapGroupsTreeSaysWhatCarriesItAndWhatEachSwitchServes() throws Exception {
        RestServer.Reply created = call("POST", "groups", "{'tenant':'t1','name':'b','source':'10.0.0.1',"
                + "'receivers':['10.0.0.3','10.0.0.8'],'mode':'BITMAP'}");
        long id = created.json().get("id").asLong();
        JsonNode t = call("GET", "groups/" + id + "/tree", null).json();
        assertEquals("BITMAP", t.get("mode").asText(), t.toString());
        assertTrue(t.get("carrier").asText().startsWith("Ethernet-source stamp"), t.toString());
        assertEquals(2, t.get("paths").size(), t.toString());
        t.get("devices").forEach(d -> assertTrue(d.get("serves").asText().startsWith("stamp bits"), d.toString()));
    }

    @Test
    void unknownIs404AndABadIdIs400() throws Exception {
        assertError(call("GET", "groups/99/tree", null), 404);
        assertError(call("GET", "groups/x/tree", null), 400);
    }
}
