package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.GroupState;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The aggregation resource over real HTTP against the real group manager: contexts, reports and refusals. */
class AggregationWebResourceTest extends RestTestBase {
    private static final String RELIABLE = "{'tenant':'t1','name':'rc','source':{'host':'10.0.0.1','qpn':51},"
            + "'receivers':[{'host':'10.0.0.2','qpn':18},{'host':'10.0.0.9','qpn':19}],"
            + "'reliability':'ACK_AGGREGATION'}";

    private long reliable() throws Exception {
        RestServer.Reply r = call("POST", "groups", RELIABLE);
        assertEquals(201, r.status, r.toString());
        JsonNode vp = r.json().get("virtualPeer");
        assertTrue(vp.get("ip").asText().startsWith("10.254."), r.body);
        assertEquals(2, vp.get("peerQpns").size(), r.body);
        return r.json().get("id").asLong();
    }

    @Test
    void anAgentReadsItsSourcesContextsAndReports() throws Exception {
        long id = reliable();
        long plain = create("t1", "plain", "job-1", "10.0.0.2");
        RestServer.Reply list = call("GET", "aggregation?source=10.0.0.1", null);
        assertEquals(200, list.status, list.toString());
        assertEquals(1, list.json().get("groups").size(), "only ACK_AGGREGATION groups: " + list.body);
        JsonNode c = list.json().get("groups").get(0);
        assertEquals(id, c.get("groupId").asLong());
        assertEquals(51, c.get("sender").get("qpn").asInt());
        assertEquals("10.0.0.9", c.get("receivers").get(1).get("ip").asText());
        assertEquals(0, call("GET", "aggregation?source=10.0.0.5", null).json().get("groups").size());

        RestServer.Reply posted = call("POST", "aggregation/" + id, "{'agent':'h1','counters':{'acksIn':12,"
                + "'acksOut':5},'stalled':['10.0.0.9'],'joinPsn':{'10.0.0.2':7,'10.0.0.9':7},'sentNext':9,'acked':8}");
        assertEquals(204, posted.status, posted.toString());
        JsonNode got = call("GET", "aggregation/" + id, null).json();
        assertEquals(5, got.get("report").get("counters").get("acksOut").asInt(), got.toString());
        assertEquals(7, got.get("receivers").get(0).get("joinPsn").asInt());
        assertTrue(got.get("receivers").get(1).get("stalled").asBoolean());
        assertEquals(GroupState.DEGRADED, stored(id).state(), stored(id).reason());

        assertError(call("GET", "aggregation/" + plain, null), 409, "NONE", "not ACK_AGGREGATION");
        assertError(call("GET", "aggregation/999", null), 404, "no group 999");
        assertError(call("GET", "aggregation?sourc=1", null), 400, "sourc");
    }

    @Test
    void aMalformedReportIsRefusedByFieldAndChangesNothing() throws Exception {
        long id = reliable();
        String before = call("GET", "aggregation/" + id, null).body;
        assertError(call("POST", "aggregation/" + id, "{'agent':'h1','counters':{'acksInn':1}}"), 400, "acksInn");
        assertError(call("POST", "aggregation/" + id, "{'agent':'h1','counters':{'acksIn':-1}}"), 400, "acksIn",
                "negative");
        assertError(call("POST", "aggregation/" + id, "{'agent':'h1','joinPsn':{'10.0.0.2':16777216}}"), 400,
                "joinPsn", "PSN");
        assertError(call("POST", "aggregation/" + id, "{'counters':{}}"), 400, "agent");
        assertError(call("POST", "aggregation/" + id, "{'agent':'h1','stalled':['10.0.0.7']}"), 400,
                "10.0.0.7", "not a receiver");
        assertError(call("POST", "aggregation/" + id, "[1,2]"), 400);
        assertEquals(before, call("GET", "aggregation/" + id, null).body);
        assertEquals(GroupState.INSTALLING, stored(id).state(), "still waiting for its aggregation point");
        assertTrue(stored(id).reason().startsWith("waiting for the aggregation point beside 10.0.0.1"),
                stored(id).reason());
    }

    @Test
    void readersOnlyRead() throws Exception {
        long id = reliable();
        assertError(server.callAs("vera", "viewer", "POST", "aggregation/" + id, "{'agent':'h1'}"), 403);
        assertError(server.callAs("bob", "mcast4ai-tenant,mcast4ai-tenant-t2", "GET", "aggregation/" + id, null),
                404, "no group " + id);
        assertEquals(0, server.callAs("bob", "mcast4ai-tenant,mcast4ai-tenant-t2", "GET", "aggregation", null)
                .json().get("groups").size());
        assertEquals(200, server.callAs("vera", "viewer", "GET", "aggregation/" + id, null).status);
    }
}
