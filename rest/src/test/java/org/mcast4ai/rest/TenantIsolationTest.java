package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Per-tenant authorization over real HTTP: alice holds tenant t1, bob tenant t2, vera is an ONOS viewer, onos
 * the administrator. Every refused call leaves every group as it was.
 */
class TenantIsolationTest extends RestTestBase {
    private static final String ALICE = "mcast4ai-tenant,mcast4ai-tenant-t1";
    private static final String BOB = "mcast4ai-tenant,mcast4ai-tenant-t2";
    private static final String VIEWER = "viewer";

    private RestServer.Reply alice(String method, String path, String body) throws Exception {
        return server.callAs("alice", ALICE, method, path, body);
    }

    private RestServer.Reply bob(String method, String path, String body) throws Exception {
        return server.callAs("bob", BOB, method, path, body);
    }

    private long aliceGroup() throws Exception {
        RestServer.Reply r = alice("POST", "groups", REQUEST);
        assertEquals(201, r.status, r.toString());
        return r.json().get("id").asLong();
    }

    private static List<Long> ids(RestServer.Reply r) {
        assertEquals(200, r.status, r.toString());
        List<Long> ids = new ArrayList<>();
        r.json().get("groups").forEach(g -> ids.add(g.get("id").asLong()));
        return ids;
    }

    @Test
    void aTenantNeitherSeesNorChangesAnotherTenantsGroup() throws Exception {
        long id = aliceGroup();
        JsonNode before = call("GET", "groups/" + id, null).json();
        RestServer.Reply unknown = bob("GET", "groups/999", null);

        // bob's answer for alice's group is the answer for a group that does not exist
        for (String[] c : new String[][]{
                {"GET", "groups/" + id, null},
                {"GET", "groups/" + id + "/plan", null},
                {"GET", "groups/" + id + "/bitmap", null},
                {"POST", "groups/" + id + "/receivers", "{'receivers':['10.0.0.9']}"},
                {"DELETE", "groups/" + id + "/receivers", "{'receivers':['10.0.0.2']}"},
                {"DELETE", "groups/" + id + "/receivers?host=10.0.0.2", null},
                {"POST", "groups/" + id + "/recompile", null},
                {"DELETE", "groups/" + id, null},
                {"DELETE", "groups/" + id + "?purge=true", null}}) {
            RestServer.Reply r = bob(c[0], c[1], c[2]);
            assertError(r, 404, "no group " + id);
            assertEquals(unknown.json().get("message").asText().replace("999", Long.toString(id)),
                    r.json().get("message").asText(), c[0] + " " + c[1]);
        }
        assertEquals(List.of(), ids(bob("GET", "groups", null)));
        assertEquals(List.of(), ids(bob("GET", "groups?jobId=job-1", null)));
        assertError(bob("GET", "groups?tenant=t1", null), 403, "bob", "tenant 't1'", "mcast4ai-tenant-t1");
        assertError(bob("POST", "groups", REQUEST), 403, "tenant", "'t1'", "mcast4ai-tenant-t1");
        assertEquals(before, call("GET", "groups/" + id, null).json());
        assertEquals(1, groups.groupCount());
    }

    @Test
    void aTenantUsesItsOwnGroups() throws Exception {
        long id = aliceGroup();
        assertEquals(List.of(id), ids(alice("GET", "groups?tenant=t1", null)));
        assertEquals(200, alice("GET", "groups/" + id + "/bitmap", null).status);
        assertEquals(200, alice("POST", "groups/" + id + "/receivers", "{'receivers':['10.0.0.9']}").status);
        assertEquals(200, alice("POST", "groups/" + id + "/recompile", null).status);
        long other = create("t2", "g2", "j2", "10.0.0.4");
        assertEquals(List.of(id), ids(alice("GET", "groups", null)), "t2's group is not listed for alice");
        assertEquals(List.of(other), ids(bob("GET", "groups", null)));
        RestServer.Reply purged = alice("DELETE", "groups/" + id + "?purge=true", null);
        assertEquals(204, purged.status, purged.toString());
    }

    @Test
    void aViewerReadsEveryTenantAndChangesNone() throws Exception {
        long id = aliceGroup();
        JsonNode before = call("GET", "groups/" + id, null).json();
        assertEquals(List.of(id), ids(server.callAs("vera", VIEWER, "GET", "groups?tenant=t1", null)));
        assertEquals(200, server.callAs("vera", VIEWER, "GET", "groups/" + id + "/plan", null).status);
        assertEquals(200, server.callAs("vera", VIEWER, "GET", "reconcile", null).status);
        assertError(server.callAs("vera", VIEWER, "DELETE", "groups/" + id, null), 403, "vera",
                "may read but not change", "mcast4ai-tenant-t1");
        assertError(server.callAs("vera", VIEWER, "POST", "groups/" + id + "/receivers",
                "{'receivers':['10.0.0.9']}"), 403, "vera");
        assertError(server.callAs("vera", VIEWER, "POST", "groups", REQUEST.replace("g1", "g9")), 403, "tenant");
        assertEquals(before, call("GET", "groups/" + id, null).json());
    }

    @Test
    void fabricWideCountersNeedAnOperator() throws Exception {
        assertError(alice("GET", "reconcile", null), 403, "alice", "admin", "viewer");
        assertEquals(200, call("GET", "reconcile", null).status);
    }

    @Test
    void aCallerWithoutTenantRolesMayDoNothing() throws Exception {
        long id = aliceGroup();
        // admitted (a tenant user) but holding no tenant
        RestServer.Reply list = server.callAs("carol", "mcast4ai-tenant", "GET", "groups", null);
        assertEquals(List.of(), ids(list));
        assertError(server.callAs("carol", "mcast4ai-tenant", "GET", "groups/" + id, null), 404);
        assertError(server.callAs("carol", "", "POST", "groups", REQUEST.replace("g1", "g9")), 403);
        // no user at all (ONOS's realm refuses these before the resource; the resource refuses them too)
        assertError(server.callAs("", "admin", "DELETE", "groups/" + id, null), 404);
        assertEquals(1, groups.groupCount());
        assertEquals("INSTALLED", stored(id).state().name());
    }

    @Test
    void aTenantMayNotSendToOrFromAnotherTenantsHosts() throws Exception {
        hosted.configure("hostTenants", "t1=10.0.0.1,10.0.0.2,10.0.0.3;t2=10.0.0.9");
        RestServer.Reply steal = bob("POST", "groups", "{'tenant':'t2','name':'b','source':'10.0.0.9',"
                + "'receivers':['10.0.0.2']}");
        assertError(steal, 403, "receiver 10.0.0.2", "tenant t1", "hostTenants");
        RestServer.Reply spoof = bob("POST", "groups", "{'tenant':'t2','name':'b','source':'10.0.0.1',"
                + "'receivers':['10.0.0.4']}");
        assertError(spoof, 403, "source 10.0.0.1", "tenant t1");
        assertEquals(201, bob("POST", "groups", "{'tenant':'t2','name':'b','source':'10.0.0.9',"
                + "'receivers':['10.0.0.4']}").status, "its own and unowned hosts");
        long id = aliceGroup();
        assertEquals(200, alice("POST", "groups/" + id + "/receivers", "{'receivers':['10.0.0.5']}").status);
        assertError(alice("POST", "groups/" + id + "/receivers", "{'receivers':['10.0.0.9']}"), 403,
                "receiver 10.0.0.9", "tenant t2");
    }
}
