package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.onosproject.net.flow.FlowRule;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every endpoint over real HTTP, on the success paths and their not-found paths. */
class GroupsWebResourceTest extends RestTestBase {

    private static List<Long> ids(JsonNode list) {
        List<Long> ids = new ArrayList<>();
        list.get("groups").forEach(g -> ids.add(g.get("id").asLong()));
        return ids;
    }

    @Test
    void createReturns201WithLocationAndTheGroup() throws Exception {
        RestServer.Reply r = call("POST", "groups", REQUEST);
        assertEquals(201, r.status, r.toString());
        JsonNode g = r.json();
        long id = g.get("id").asLong();
        assertTrue(r.header("Location").orElseThrow().endsWith("/groups/" + id), r.header("Location").toString());
        assertEquals("t1", g.get("tenant").asText());
        assertEquals("job-1", g.get("jobId").asText());
        assertEquals("AUTO", g.get("mode").asText());
        // the switches answer at once here, so the 201 already carries the decided mode and the outcome
        assertEquals("BITMAP", g.get("effectiveMode").asText(), g.toString());
        assertEquals("INSTALLED", g.get("state").asText());
        assertEquals("239.1.0." + id, g.get("address").asText());
        assertEquals(18, g.get("receivers").get(1).get("qpn").asInt());
        assertEquals(1, groups.groupCount());
    }

    @Test
    void getReturnsTheStoredGroup() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2");
        RestServer.Reply r = call("GET", "groups/" + id, null);
        assertEquals(200, r.status, r.toString());
        assertEquals(id, r.json().get("id").asLong());
        assertEquals(stored(id).version(), r.json().get("version").asLong());
        assertEquals("SUBMITTED", r.json().get("history").get(0).get("state").asText());
    }

    @Test
    void listFiltersByTenantJobAndState() throws Exception {
        long a = create("t1", "a", "j1", "10.0.0.2");
        long b = create("t1", "b", "j2", "10.0.0.3");
        long c = create("t2", "c", "j1", "10.0.0.4");
        call("DELETE", "groups/" + b, null);

        assertEquals(List.of(a, b, c), ids(call("GET", "groups", null).json()));
        assertEquals(List.of(a, b), ids(call("GET", "groups?tenant=t1", null).json()));
        assertEquals(List.of(a, c), ids(call("GET", "groups?job=j1", null).json()));
        assertEquals(List.of(b), ids(call("GET", "groups?state=withdrawn", null).json()));
        assertEquals(List.of(a), ids(call("GET", "groups?tenant=t1&job=j1&state=INSTALLED", null).json()));
        assertEquals(List.of(), ids(call("GET", "groups?tenant=nobody", null).json()));
    }

    @Test
    void withdrawKeepsTheRecordUntilPurged() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2");
        RestServer.Reply r = call("DELETE", "groups/" + id, null);
        assertEquals(200, r.status, r.toString());
        assertEquals("WITHDRAWN", r.json().get("state").asText(), "the switches acknowledged at once");
        assertEquals("WITHDRAWN", call("GET", "groups/" + id, null).json().get("state").asText());
        assertEquals(0, call("GET", "groups/" + id + "/plan", null).json().get("devices").size());

        assertEquals(204, call("DELETE", "groups/" + id + "?purge=true", null).status);
        assertEquals(404, call("GET", "groups/" + id, null).status);
        assertEquals(201, call("POST", "groups", REQUEST.replace("'g1'", "'g1'")).status, "the key is free again");
    }

    @Test
    void purgeWithdrawsALiveGroupFirst() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2");
        assertEquals(204, call("DELETE", "groups/" + id + "?purge=true", null).status);
        assertEquals(0, groups.groupCount());
    }

    @Test
    void purgeOfAGroupStillWithdrawingIs202ThenSucceedsOnceWithdrawn() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2");
        hosted.flows().autoAck(false);
        RestServer.Reply r = call("DELETE", "groups/" + id + "?purge=true", null);
        assertEquals(202, r.status, r.toString());
        assertEquals("WITHDRAWING", r.json().get("state").asText());
        assertEquals(1, groups.groupCount());
        hosted.flows().ackAll();
        assertEquals(204, call("DELETE", "groups/" + id + "?purge=true", null).status);
        assertEquals(0, groups.groupCount());
    }

    @Test
    void findsAGroupByTenantAndName() throws Exception {
        create("t1", "a", "j", "10.0.0.2");
        long b = create("t1", "b", "j", "10.0.0.3");
        create("t2", "b", "j", "10.0.0.4");
        assertEquals(List.of(b), ids(call("GET", "groups?tenant=t1&name=b", null).json()));
        assertEquals(List.of(), ids(call("GET", "groups?tenant=t1&name=zz", null).json()));
        assertError(call("GET", "groups?name=b", null), 400, "needs a tenant");
    }

    @Test
    void purgeWithdrawsAFailedGroupFirst() throws Exception {
        hosted.flows().autoAck(false);
        long id = createTree("g1", "10.0.0.2");
        FlowRule refused = hosted.flows().lastBatch().stages().get(0).iterator().next().rule();
        hosted.flows().fail(refused.deviceId());
        hosted.flows().autoAck(true);
        hosted.flows().ackAll();
        JsonNode failed = call("GET", "groups/" + id, null).json();
        assertEquals("FAILED", failed.get("state").asText(), failed.toString());
        assertTrue(failed.get("reason").asText().contains(refused.deviceId() + " rejected"), failed.toString());
        assertEquals(204, call("DELETE", "groups/" + id + "?purge=true", null).status);
        assertEquals(0, groups.groupCount());
    }

    @Test
    void addReceiversUpdatesGroupAndPlan() throws Exception {
        long id = createTree("g1", "10.0.0.2");
        RestServer.Reply r = call("POST", "groups/" + id + "/receivers",
                "{'receivers':['10.0.0.4',{'host':'10.0.0.5','qpn':7}]}");
        assertEquals(200, r.status, r.toString());
        assertEquals(3, r.json().get("receivers").size());
        assertEquals(Set.of(Endpoint.of("10.0.0.2"), Endpoint.of("10.0.0.4"), Endpoint.of("10.0.0.5", 7)),
                stored(id).request().receivers());
        JsonNode plan = call("GET", "groups/" + id + "/plan", null).json();
        // TREE from leaf 1: host 5 is on leaf 1, host 2 on leaf 2, host 4 on leaf 4, one spine between
        assertEquals(4, plan.get("devices").size(), plan.toString());
    }

    @Test
    void removeReceiversByBody() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2", "10.0.0.3", "10.0.0.4");
        RestServer.Reply r = call("DELETE", "groups/" + id + "/receivers", "{'receivers':['10.0.0.3']}");
        assertEquals(200, r.status, r.toString());
        assertEquals(Set.of(Endpoint.of("10.0.0.2"), Endpoint.of("10.0.0.4")), stored(id).request().receivers());
    }

    @Test
    void removeReceiversByHostQueryMatchesAnyQpn() throws Exception {
        long id = call("POST", "groups", REQUEST).json().get("id").asLong();
        RestServer.Reply r = call("DELETE", "groups/" + id + "/receivers?host=10.0.0.3", null);
        assertEquals(200, r.status, r.toString());
        assertEquals(Set.of(Endpoint.of("10.0.0.2")), stored(id).request().receivers());
    }

    @Test
    void removeSeveralHostsByQuery() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2", "10.0.0.3", "10.0.0.4");
        RestServer.Reply r = call("DELETE", "groups/" + id + "/receivers?host=10.0.0.2&host=10.0.0.4", null);
        assertEquals(200, r.status, r.toString());
        assertEquals(Set.of(Endpoint.of("10.0.0.3")), stored(id).request().receivers());
    }

    @Test
    void planListsDevicesAndLinks() throws Exception {
        // hosts 1 and 5 are on leaf 1 (ports 11 and 15), host 2 on leaf 2
        long id = createTree("g1", "10.0.0.5", "10.0.0.2");
        JsonNode plan = call("GET", "groups/" + id + "/plan", null).json();
        JsonNode leaf = null;
        for (JsonNode d : plan.get("devices")) {
            leaf = "of:0000000000000201".equals(d.get("deviceId").asText()) ? d : leaf;
        }
        assertTrue(leaf != null, plan.toString());
        assertEquals(11, leaf.get("inPort").asLong());
        assertEquals(2, leaf.get("outPorts").size(), "one uplink and the local receiver: " + plan);
        assertEquals(15L, leaf.get("outPorts").get(1).asLong(), plan.toString());
        assertEquals(3, plan.get("devices").size(), "source leaf, one spine, receiver leaf");
        assertEquals(2, plan.get("links").size(), plan.toString());
        assertEquals("of:0000000000000202", plan.get("links").get(1).get("dst").get("device").asText(),
                plan.toString());
    }

    @Test
    void recompileReinstalls() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2");
        int before = stored(id).history().size();
        RestServer.Reply r = call("POST", "groups/" + id + "/recompile", null);
        assertEquals(200, r.status, r.toString());
        assertEquals("INSTALLED", r.json().get("state").asText());
        assertTrue(r.json().get("history").size() > before);
    }

    @Test
    void unknownGroupIs404OnEveryGroupPath() throws Exception {
        assertError(call("GET", "groups/42", null), 404, "no group 42");
        assertError(call("DELETE", "groups/42", null), 404, "no group 42");
        assertError(call("DELETE", "groups/42?purge=true", null), 404, "no group 42");
        assertError(call("GET", "groups/42/plan", null), 404, "no group 42");
        assertError(call("POST", "groups/42/recompile", null), 404, "no group 42");
        assertError(call("POST", "groups/42/receivers", "{'receivers':['10.0.0.2']}"), 404, "no group 42");
        assertError(call("DELETE", "groups/42/receivers?host=10.0.0.2", null), 404, "no group 42");
    }
}
