package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.ReplicationMode;
import org.onosproject.codec.JsonCodec;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mcast4ai.codec.Fixtures.assertInvalid;
import static org.mcast4ai.codec.Fixtures.json;

class P2mpGroupRequestCodecTest {
    private final Mcast4aiCodecContext context = new Mcast4aiCodecContext();
    private final JsonCodec<P2mpGroupRequest> codec = context.codec(P2mpGroupRequest.class);

    private P2mpGroupRequest decode(String text) {
        return codec.decode(json(text), context);
    }

    @Test
    void encodesEveryField() {
        assertEquals(json("{'tenant':'tenant-a','name':'allgather-0','jobId':'slurm-42',"
                        + "'source':{'host':'00:00:00:00:00:01/None','qpn':17},"
                        + "'receivers':[{'host':'10.0.0.2'},{'host':'10.0.0.3','qpn':18}],"
                        + "'mode':'TREE','reliability':'NONE','priority':41000}"),
                codec.encode(Fixtures.request(), context));
    }

    @Test
    void roundTrips() {
        P2mpGroupRequest r = Fixtures.request();
        assertEquals(r, codec.decode(codec.encode(r, context), context));
    }

    @Test
    void appliesDefaultsAndAcceptsHostStrings() {
        P2mpGroupRequest r = decode(
                "{'tenant':'t','name':'g','source':'10.0.0.1','receivers':['10.0.0.2','10.0.0.3']}");
        assertEquals("", r.jobId());
        assertEquals(ReplicationMode.AUTO, r.mode());
        assertEquals(Reliability.NONE, r.reliability());
        assertEquals(P2mpGroupRequest.DEFAULT_PRIORITY, r.priority());
        assertEquals(Endpoint.of("10.0.0.1"), r.source());
        assertEquals(List.of(Endpoint.of("10.0.0.2"), Endpoint.of("10.0.0.3")), List.copyOf(r.receivers()));
    }

    @Test
    void acceptsEnumValuesInAnyCase() {
        P2mpGroupRequest r = decode("{'tenant':'t','name':'g','source':'a','receivers':['b'],'mode':'tree'}");
        assertEquals(ReplicationMode.TREE, r.mode());
    }

    @Test
    void namesTheMissingField() {
        assertInvalid(() -> decode("{'name':'g','source':'a','receivers':['b']}"), "\"tenant\"");
        assertInvalid(() -> decode("{'tenant':'t','source':'a','receivers':['b']}"), "\"name\"");
        assertInvalid(() -> decode("{'tenant':'t','name':'g','receivers':['b']}"), "\"source\"");
        assertInvalid(() -> decode("{'tenant':'t','name':'g','source':'a'}"), "\"receivers\"");
    }

    @Test
    void refusesUnknownFieldsSoTyposAreCaught() {
        assertInvalid(() -> decode("{'tenant':'t','name':'g','source':'a','receivers':['b'],'recievers':['c']}"),
                "unknown field \"recievers\"", "receivers");
    }

    @Test
    void refusesMalformedValues() {
        String base = "{'tenant':'t','name':'g','source':'a',";
        assertInvalid(() -> decode(base + "'receivers':[]}"), "must not be empty");
        assertInvalid(() -> decode(base + "'receivers':'b'}"), "must be an array");
        assertInvalid(() -> decode(base + "'receivers':['b', 3]}"), "receivers[1]");
        assertInvalid(() -> decode(base + "'receivers':['b','b']}"), "more than once");
        assertInvalid(() -> decode(base + "'receivers':['a']}"), "also listed as a receiver");
        assertInvalid(() -> decode(base + "'receivers':['b'],'mode':'STAR'}"), "STAR", "TREE", "BITMAP");
        assertInvalid(() -> decode(base + "'receivers':['b'],'reliability':'RC'}"), "RC", "ACK_AGGREGATION");
        assertInvalid(() -> decode(base + "'receivers':['b'],'priority':'high'}"), "\"priority\"", "integer");
        assertInvalid(() -> decode(base + "'receivers':['b'],'priority':70000}"), "priority must be between");
        assertInvalid(() -> decode(base + "'receivers':['b'],'jobId':42}"), "\"jobId\"", "string");
        assertInvalid(() -> decode("{'tenant':'bad tenant','name':'g','source':'a','receivers':['b']}"),
                "tenant", "'bad tenant'");
    }

    @Test
    void refusesNonObjectBody() {
        ObjectNode holder = json("{'x':[1,2]}");
        assertInvalid(() -> P2mpGroupRequestCodec.decodeEndpoints(holder.get("x"), "receivers"), "receivers[0]");
    }
}
