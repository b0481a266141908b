package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.testing.InMemoryGroupService;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Starts a real HTTP server per test over a fresh in-memory group service. */
abstract class RestTestBase {
    static final String REQUEST = "{'tenant':'t1','name':'g1','jobId':'job-1','source':'10.0.0.1',"
            + "'receivers':['10.0.0.2',{'host':'10.0.0.3','qpn':18}],'mode':'AUTO'}";

    InMemoryGroupService groups;
    RestServer server;

    @BeforeEach
    void startServer() throws Exception {
        groups = InMemoryGroupService.withHosts();
        server = new RestServer(groups);
    }

    @AfterEach
    void stopServer() {
        server.stop();
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
