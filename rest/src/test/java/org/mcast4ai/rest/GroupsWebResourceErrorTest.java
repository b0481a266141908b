package org.mcast4ai.rest;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.P2mpGroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Refused requests: right status, one JSON error shape, clear message, and nothing changed. */
class GroupsWebResourceErrorTest extends RestTestBase {

    private void assertUnchanged(long id, P2mpGroup before) {
        assertEquals(before, stored(id), "a refused request must leave the group as it was");
    }

    @Test
    void malformedJsonIs400WithWhereItBroke() throws Exception {
        assertError(call("POST", "groups", "{'tenant': 't1', "), 400, "malformed JSON", "line 1");
        assertError(call("POST", "groups", "{'tenant' 't1'}"), 400, "malformed JSON");
        assertError(call("POST", "groups", REQUEST + " trailing"), 400, "malformed JSON");
        assertError(call("POST", "groups", "{'tenant':'t1','tenant':'t2'}"), 400, "malformed JSON", "tenant");
        assertEquals(0, groups.groupCount());
    }

    @Test
    void bodyMustBeAnObject() throws Exception {
        assertError(call("POST", "groups", "[1,2]"), 400, "must be a JSON object", "array");
        assertError(call("POST", "groups", ""), 400, "body is empty");
        assertError(call("POST", "groups", "null"), 400, "JSON object");
    }

    @Test
    void unknownFieldsAreRefused() throws Exception {
        assertError(call("POST", "groups", REQUEST.replace("'receivers'", "'recievers'")), 400,
                "unknown field \"recievers\"");
        long id = create("t1", "g2", "j", "10.0.0.2");
        P2mpGroup before = stored(id);
        assertError(call("POST", "groups/" + id + "/receivers", "{'receivers':['10.0.0.4'],'mode':'TREE'}"),
                400, "unknown field \"mode\"");
        assertError(call("POST", "groups/" + id + "/receivers", "{'receivers':[{'host':'10.0.0.4','qp':1}]}"),
                400, "unknown field \"qp\"");
        assertUnchanged(id, before);
        assertEquals(1, groups.groupCount());
    }

    @Test
    void invalidRequestsAre400() throws Exception {
        assertError(call("POST", "groups", "{'tenant':'t1','name':'g','source':'10.0.0.1'}"), 400, "receivers");
        assertError(call("POST", "groups", REQUEST.replace("'10.0.0.2'", "'10.0.0.1'")), 400,
                "also listed as a receiver");
        assertError(call("POST", "groups", REQUEST.replace("'10.0.0.2'", "'10.0.0.99'")), 400,
                "unknown host 10.0.0.99");
        assertError(call("POST", "groups", REQUEST.replace("'AUTO'", "'STAR'")), 400, "STAR", "TREE");
        assertError(call("POST", "groups", REQUEST.replace("'qpn':18", "'qpn':-1")), 400, "qpn");
        assertError(call("POST", "groups", REQUEST.replace("'t1'", "'bad tenant'")), 400, "tenant");
        assertEquals(0, groups.groupCount());
    }

    @Test
    void badIdAndBadStateAre400() throws Exception {
        assertError(call("GET", "groups/abc", null), 400, "positive integer", "abc");
        assertError(call("GET", "groups/0", null), 400, "positive integer");
        assertError(call("GET", "groups?state=DONE", null), 400, "DONE", "INSTALLED");
    }

    @Test
    void duplicateKeyIs409AndLeavesTheFirstGroupAlone() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2");
        P2mpGroup before = stored(id);
        assertError(call("POST", "groups", REQUEST), 409, "already exists");
        assertUnchanged(id, before);
        assertEquals(1, groups.groupCount());
    }

    @Test
    void limitsAre409() throws Exception {
        create("t1", "a", "j", "10.0.0.2");
        create("t1", "b", "j", "10.0.0.2");
        create("t1", "c", "j", "10.0.0.2");
        assertError(call("POST", "groups", REQUEST.replace("'g1'", "'d'")), 409, "tenant t1");
        assertError(call("POST", "groups", "{'tenant':'t2','name':'big','source':'10.0.0.1','receivers':["
                + "'10.0.0.2','10.0.0.3','10.0.0.4','10.0.0.5','10.0.0.6','10.0.0.7','10.0.0.8','10.0.0.9',"
                + "'10.0.0.10']}"), 409, "at most 8 receivers");
        assertEquals(3, groups.groupCount());
    }

    @Test
    void receiverChangesThatBreakTheContractChangeNothing() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2", "10.0.0.3");
        P2mpGroup before = stored(id);
        String receivers = "groups/" + id + "/receivers";
        assertError(call("POST", receivers, "{'receivers':['10.0.0.2']}"), 400, "already a receiver");
        assertError(call("POST", receivers, "{'receivers':['10.0.0.4','10.0.0.4']}"), 400, "more than once");
        assertError(call("POST", receivers, "{'receivers':['10.0.0.1']}"), 400, "source");
        assertError(call("POST", receivers, "{'receivers':['10.0.0.4','10.0.0.99']}"), 400, "unknown host");
        assertError(call("POST", receivers, "{'receivers':[]}"), 400, "non-empty");
        assertError(call("DELETE", receivers, "{'receivers':['10.0.0.2','10.0.0.3']}"), 400,
                "withdraw the group instead");
        assertError(call("DELETE", receivers, "{'receivers':['10.0.0.7']}"), 400, "not a receiver");
        assertError(call("DELETE", receivers + "?host=10.0.0.2", "{'receivers':['10.0.0.3']}"), 400, "not both");
        assertError(call("DELETE", receivers, null), 400, "no receivers to remove");
        assertUnchanged(id, before);
    }

    @Test
    void changingAWithdrawnGroupIs409() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2", "10.0.0.3");
        call("DELETE", "groups/" + id, null);
        P2mpGroup before = stored(id);
        assertError(call("POST", "groups/" + id + "/receivers", "{'receivers':['10.0.0.4']}"), 409, "WITHDRAWN");
        assertError(call("DELETE", "groups/" + id + "/receivers?host=10.0.0.2", null), 409, "WITHDRAWN");
        assertError(call("POST", "groups/" + id + "/recompile", null), 409, "WITHDRAWN");
        assertUnchanged(id, before);
    }

    @Test
    void wrongContentTypeAndUnknownPathsAreJsonErrors() throws Exception {
        RestServer.Reply r = server.call("POST", "groups", "tenant=t1", "application/x-www-form-urlencoded");
        assertError(r, 415, "Content-Type: application/json");
        assertError(call("GET", "nothing-here", null), 404);
        RestServer.Reply put = call("PUT", "groups/1", "{}");
        assertError(put, 405);
        assertTrue(put.header("Allow").orElse("").contains("GET"), put.raw.headers().toString());
    }
}
