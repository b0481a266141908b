package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.ReplicationMode;
import org.onlab.packet.IpAddress;
import org.onosproject.codec.JsonCodec;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mcast4ai.codec.Fixtures.json;

class P2mpGroupCodecTest {
    private final Mcast4aiCodecContext context = new Mcast4aiCodecContext();
    private final JsonCodec<P2mpGroup> codec = context.codec(P2mpGroup.class);

    private static P2mpGroup group() {
        return P2mpGroup.submitted(P2mpGroupId.of(7), Fixtures.request(), IpAddress.valueOf("239.255.0.7"), 1000)
                .withState(GroupState.COMPILING, 1001, "")
                .withEffectiveMode(ReplicationMode.TREE, "requested")
                .withUnreachable(Set.of(Endpoint.of("10.0.0.3", 18)))
                .withState(GroupState.DEGRADED, 1005, "1 receiver unreachable");
    }

    @Test
    void encodesEveryField() {
        P2mpGroup g = group();
        ObjectNode n = codec.encode(g, context);
        List<String> fields = new ArrayList<>();
        n.fieldNames().forEachRemaining(fields::add);
        assertEquals(List.of("id", "tenant", "name", "jobId", "source", "receivers", "mode", "effectiveMode",
                "modeReason", "reliability", "priority", "address", "state", "reason", "failure", "history",
                "unreachable",
                "version"), fields);
        assertEquals(7, n.get("id").asLong());
        assertEquals("tenant-a", n.get("tenant").asText());
        assertEquals("allgather-0", n.get("name").asText());
        assertEquals("slurm-42", n.get("jobId").asText());
        assertEquals(json("{'host':'00:00:00:00:00:01/None','qpn':17}"), n.get("source"));
        assertEquals(2, n.get("receivers").size());
        assertEquals("TREE", n.get("mode").asText());
        assertEquals("TREE", n.get("effectiveMode").asText());
        assertEquals("requested", n.get("modeReason").asText());
        assertEquals("NONE", n.get("reliability").asText());
        assertEquals(41000, n.get("priority").asInt());
        assertEquals("239.255.0.7", n.get("address").asText());
        assertEquals("DEGRADED", n.get("state").asText());
        assertEquals("1 receiver unreachable", n.get("reason").asText());
        assertEquals(json("{'u':[{'host':'10.0.0.3','qpn':18}]}").get("u"), n.get("unreachable"));
        assertEquals(g.version(), n.get("version").asLong());
    }

    @Test
    void historyIsOldestFirst() {
        JsonNode h = codec.encode(group(), context).get("history");
        assertEquals(3, h.size());
        assertEquals("SUBMITTED", h.get(0).get("state").asText());
        assertEquals(1000, h.get(0).get("timeMillis").asLong());
        assertEquals("COMPILING", h.get(1).get("state").asText());
        assertEquals("DEGRADED", h.get(2).get("state").asText());
        assertEquals("1 receiver unreachable", h.get(2).get("reason").asText());
    }

    @Test
    void encodesListsInOrder() {
        P2mpGroup a = group();
        P2mpGroup b = P2mpGroup.submitted(P2mpGroupId.of(9), Fixtures.request(), IpAddress.valueOf("239.255.0.9"), 1);
        JsonNode array = codec.encode(List.of(a, b), context);
        assertEquals(7, array.get(0).get("id").asLong());
        assertEquals(9, array.get(1).get("id").asLong());
        assertEquals("SUBMITTED", array.get(1).get("state").asText());
    }
}
