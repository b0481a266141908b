package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.P4FabricStatus;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The P4 fabric's status over real HTTP: what it shows, who may read it. */
class P4FabricWebResourceTest extends RestTestBase {

    @Test
    void showsTheSwitchesThatAreNotInPlaceYet() throws Exception {
        server.p4Status = new P4FabricStatus(true, List.of("device:leaf1", "device:spine1"), 7, 1_764_000_000_000L,
                6, 2, 1, null, List.of("device:spine1"), List.of("device:spine1"), "org.mcast4ai.p4.bmv2");
        RestServer.Reply r = call("GET", "p4-fabric", null);
        assertEquals(200, r.status, r.toString());
        JsonNode n = r.json();
        assertTrue(n.get("writer").asBoolean());
        assertEquals(2, n.get("switches").size());
        assertEquals(7, n.get("runs").asLong());
        assertEquals(6, n.get("rulesWritten").asInt());
        assertEquals("device:spine1", n.get("unacknowledged").get(0).asText());
        assertEquals("device:spine1", n.get("joining").get(0).asText());
        assertTrue(n.get("problem").isNull(), r.body);
        assertEquals("org.mcast4ai.p4.bmv2", n.get("pipeconf").asText());

        server.p4Status = new P4FabricStatus(true, List.of("device:leaf1"), 8, 1, 0, 0, 0,
                "switch device:leaf1: 25 uplinks, the program holds 24");
        n = call("GET", "p4-fabric", null).json();
        assertEquals("switch device:leaf1: 25 uplinks, the program holds 24", n.get("problem").asText());
        assertEquals(0, n.get("joining").size());
        assertEquals(0, n.get("unacknowledged").size());
        assertTrue(n.get("pipeconf").isNull(), "no build while they cannot be planned");
    }

    @Test
    void viewersReadTenantsDoNotAndNoQueryIsTaken() throws Exception {
        assertEquals(200, server.callAs("vera", "viewer", "GET", "p4-fabric", null).status);
        assertError(server.callAs("bob", "mcast4ai-tenant,mcast4ai-tenant-t2", "GET", "p4-fabric", null), 403);
        assertError(call("GET", "p4-fabric?switch=leaf1", null), 400, "switch");
    }
}
