package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.P2mpGroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        assertError(call("POST", receivers, "{'receivers':['10.0.0.4','10.0.0.4']}"), 400, "more than once");
        assertError(call("POST", receivers, "{'receivers':['10.0.0.1']}"), 400, "source");
        assertError(call("POST", receivers, "{'receivers':['10.0.0.4','10.0.0.99']}"), 400, "unknown host");
        assertError(call("POST", receivers, "{'receivers':[]}"), 400, "non-empty");
        assertError(call("DELETE", receivers, "{'receivers':['10.0.0.2','10.0.0.3']}"), 400,
                "withdraw the group instead");
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

    @Test
    void idsAreCanonicalDecimalOnly() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2");
        assertEquals(1, id);
        for (String bad : new String[]{"01", "+1", "1%20", "%201", "1%00", "1e0", "0x1", "99999999999999999999"}) {
            assertError(call("GET", "groups/" + bad, null), 400, "canonical decimal");
            assertError(call("DELETE", "groups/" + bad + "?purge=true", null), 400, "canonical decimal");
        }
        assertEquals("INSTALLED", stored(id).state().name(), "nothing purged group 1");
    }

    @Test
    void booleansAreTrueOrFalseAndUnknownQueryParametersAre400() throws Exception {
        long id = create("t1", "g1", "job-1", "10.0.0.2");
        P2mpGroup before = stored(id);
        assertError(call("DELETE", "groups/" + id + "?purge=yes", null), 400, "purge", "true or false");
        assertError(call("DELETE", "groups/" + id + "?purge=1", null), 400, "purge");
        assertError(call("DELETE", "groups/" + id + "?force=true", null), 400, "force", "purge");
        assertUnchanged(id, before);
        // a misspelt filter must not select every group (filter-then-withdraw would withdraw them all)
        assertError(call("GET", "groups?jobid=job-1", null), 400, "jobid", "tenant, name, job, jobId, state");
        assertError(call("GET", "groups/" + id + "?verbose=1", null), 400, "verbose", "takes none");
        create("t1", "g2", "job-2", "10.0.0.3");
        JsonNode byJob = call("GET", "groups?jobId=job-1", null).json();
        assertEquals(1, byJob.get("groups").size(), byJob.toString());
        assertError(call("GET", "groups?jobId=a&job=b", null), 400, "once");
    }

    @Test
    void jobIdsHaveACharsetAndALengthAndTheListStaysStrictJson() throws Exception {
        for (String bad : new String[]{"\\ud800", "a\\u0000b", "a\\r\\nb", "x".repeat(129), "a b", "a\\\"b"}) {
            RestServer.Reply r = call("POST", "groups", REQUEST.replace("'job-1'", "\"" + bad + "\""));
            assertError(r, 400, "jobId", "128 characters");
            assertFalse(r.body.chars().anyMatch(c -> c < 0x20 || Character.isSurrogate((char) c)),
                    "the refusal quotes the input printably: " + r.body);
        }
        assertEquals(0, groups.groupCount());
        assertEquals(201, call("POST", "groups", REQUEST.replace("'job-1'", "'12345_7'")).status);
        // strict JSON: every string of the list is valid UTF-16 (no lone surrogate)
        String list = call("GET", "groups", null).body;
        assertFalse(list.chars().anyMatch(c -> Character.isSurrogate((char) c)), list);
    }

    @Test
    void qpnZeroOneAndNullAreRefused() throws Exception {
        assertError(call("POST", "groups", REQUEST.replace("'qpn':18", "'qpn':0")), 400, "qpn", "between 2");
        assertError(call("POST", "groups", REQUEST.replace("'qpn':18", "'qpn':1")), 400, "qpn", "between 2");
        assertError(call("POST", "groups", REQUEST.replace("'qpn':18", "'qpn':null")), 400, "qpn", "left out");
        assertEquals(0, groups.groupCount());
    }

    @Test
    void deepAndHugeBodiesAre400NotAServerError() throws Exception {
        String deep = "[".repeat(10_000) + "]".repeat(10_000);
        assertError(call("POST", "groups", deep), 400, "deeper than");
        assertError(call("POST", "groups/1/receivers", "{'receivers':" + deep + "}"), 400, "deeper than");
        String huge = "{'tenant':'t1','name':'g','jobId':'" + "j".repeat(1 << 20) + "'}";
        assertError(call("POST", "groups", huge), 400, "larger than");
        assertEquals(0, groups.groupCount());
    }

    @Test
    void receiverChangesAreIdempotentAndAQpnChangesInPlace() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2", "10.0.0.3");
        String receivers = "groups/" + id + "/receivers";
        P2mpGroup before = stored(id);
        // a retried add or remove succeeds and writes nothing
        assertEquals(200, call("POST", receivers, "{'receivers':['10.0.0.2']}").status);
        assertEquals(200, call("DELETE", receivers, "{'receivers':['10.0.0.7']}").status);
        assertEquals(200, call("DELETE", receivers + "?host=10.0.0.7", null).status);
        assertUnchanged(id, before);
        // the same host with a QPN: the member's QPN changes, it is not a second member
        RestServer.Reply r = call("POST", receivers, "{'receivers':[{'host':'10.0.0.3','qpn':21}]}");
        assertEquals(200, r.status, r.toString());
        assertEquals(2, r.json().get("receivers").size(), r.body);
        assertTrue(stored(id).request().receivers().contains(org.mcast4ai.api.Endpoint.of("10.0.0.3", 21)));
    }

    @Test
    void aTakenNameNamesTheGroupThatHoldsItAndTheWayOut() throws Exception {
        long id = create("t1", "g1", "j", "10.0.0.2");
        assertError(call("POST", "groups", REQUEST), 409, "already exists: group " + id, "INSTALLED",
                "withdraw and purge it (DELETE groups/" + id + "?purge=true)");
        call("DELETE", "groups/" + id, null);
        assertError(call("POST", "groups", REQUEST), 409, "WITHDRAWN", "purge it (DELETE groups/" + id);
    }

    @Test
    void aBitMapOnlyForAnInstalledBitmapGroup() throws Exception {
        hosted.flows().autoAck(false);
        RestServer.Reply created = call("POST", "groups", "{'tenant':'t1','name':'b','source':'10.0.0.1',"
                + "'receivers':['10.0.0.3'],'mode':'BITMAP'}");
        long id = created.json().get("id").asLong();
        // its stamp is not acknowledged: no usable-looking map
        assertError(call("GET", "groups/" + id + "/bitmap", null), 409, "INSTALLING", "INSTALLED or DEGRADED");
        hosted.flows().ackAll();
        assertEquals(200, call("GET", "groups/" + id + "/bitmap", null).status);
    }
}
