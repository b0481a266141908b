package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.impl.HostedManager;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Starts a real HTTP server per test over a fresh real group manager (20 hosts {@code 10.0.0.1} ...; at most 8
 * receivers per group, 3 groups per tenant, 14 addresses; switches that acknowledge at once).
 */
abstract class RestTestBase {
    static final String REQUEST = "{'tenant':'t1','name':'g1','jobId':'job-1','source':'10.0.0.1',"
            + "'receivers':['10.0.0.2',{'host':'10.0.0.3','qpn':18}],'mode':'AUTO'}";

    HostedManager hosted;
    P2mpGroupAdminService groups;
    RestServer server;

    @BeforeEach
    void startServer() throws Exception {
        hosted = HostedManager.withHosts(20, "maxReceiversPerGroup", "8", "maxGroupsPerTenant", "3",
                "addressPool", "239.1.0.0/28");
        groups = hosted.service();
        server = new RestServer(groups);
    }

    @AfterEach
    void stopServer() {
        server.stop();
        hosted.close();
    }

    RestServer.Reply call(String method, String path, String body) throws IOException, InterruptedException {
        return server.call(method, path, body);
    }

    /** Creates a group and returns its id. */
    long create(String tenant, String name, String job, String... receivers) throws Exception {
        StringBuilder rs = new StringBuilder();
        for (String r : receivers) {
            rs.append(rs.length() == 0 ? "" : ",").append('\'').append(r).append('\'');
        }
        RestServer.Reply r = call("POST", "groups", "{'tenant':'" + tenant + "','name':'" + name + "','jobId':'"
                + job + "','source':'10.0.0.1','receivers':[" + rs + "]}");
        assertEquals(201, r.status, r.toString());
        return r.json().get("id").asLong();
    }

    /** Creates a TREE group of tenant t1 from 10.0.0.1 and returns its id. */
    long createTree(String name, String... receivers) throws Exception {
        StringBuilder rs = new StringBuilder();
        for (String r : receivers) {
            rs.append(rs.length() == 0 ? "" : ",").append('\'').append(r).append('\'');
        }
        RestServer.Reply r = call("POST", "groups", "{'tenant':'t1','name':'" + name + "','source':'10.0.0.1',"
                + "'receivers':[" + rs + "],'mode':'TREE'}");
        assertEquals(201, r.status, r.toString());
        return r.json().get("id").asLong();
    }

    P2mpGroup stored(long id) {
        return groups.getGroup(P2mpGroupId.of(id)).orElseThrow();
    }

    /** Asserts a JSON error reply with the status, a message with the fragments, and no stack trace. */
    static void assertError(RestServer.Reply r, int status, String... fragments) {
        assertEquals(status, r.status, r.toString());
        JsonNode n = r.json();
        assertTrue(n.has("code") && n.has("message"), "not the error shape: " + r);
        assertEquals(status, n.get("code").asInt(), r.body);
        String message = n.get("message").asText();
        for (String f : fragments) {
            assertTrue(message.contains(f), "message '" + message + "' should mention '" + f + "'");
        }
        assertFalse(r.body.contains("\tat ") || r.body.contains("Exception:"), "stack trace leaked: " + r.body);
    }
}
