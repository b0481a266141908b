package org.mcast4ai.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.P2mpGroupId;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** mcast4ai-aggregation: the virtual peer, the receivers and the aggregation point's counters. */
class AggregationCommandTest extends CommandTestBase {

    private long createReliable() throws ReflectiveOperationException {
        GroupCreateCommand c = new GroupCreateCommand();
        c.tenant = "t1";
        c.name = "rc";
        c.source = "10.0.0.1";
        c.qpn = 51;
        c.receivers = List.of("10.0.0.3#18", "10.0.0.8#19");
        c.reliability = "ACK_AGGREGATION";
        return run(c, true).json().get("id").asLong();
    }

    @Test
    void showsThePeerTheReceiversAndTheCounters() throws Exception {
        long id = createReliable();
        groups.reportAggregation(P2mpGroupId.of(id), new AggregationReport("h1", 0,
                Map.of("acksIn", 40L, "acksOut", 9L, "dropNonMember", 1L), Set.of("10.0.0.8"), Map.of(), 10, 9,
                Map.of("10.0.0.3", 9, "10.0.0.8", 0xFFFFFE)));
        AggregationCommand c = new AggregationCommand();
        c.id = Long.toString(id);
        String out = run(c).out;
        assertTrue(out.contains("virtual peer 10.254."), out);
        assertTrue(out.contains("receiver 10.0.0.3 ip 10.0.0.3 qpn 18 slot 0 peer qpn 1048576"), out);
        assertTrue(out.contains("receiver 10.0.0.8 ip 10.0.0.8 qpn 19 slot 1 peer qpn 1048577") && out.contains(
                "STALLED"), out);
        assertTrue(out.contains("report from h1: acksIn=40 acksOut=9 reAcks=0"), out);
        assertTrue(out.contains("dropNonMember=1"), out);
        assertTrue(out.contains("receiver 10.0.0.3 acknowledged PSN 9, lag 0\n"), out);
        // 24-bit PSN space: 0xFFFFFE is 11 behind PSN 9
        assertTrue(out.contains("receiver 10.0.0.8 acknowledged PSN 16777214, lag 11 STALLED"), out);
        JsonNode j = run(c, true).json();
        assertEquals(9, j.get("report").get("counters").get("acksOut").asInt());
    }

    @Test
    void aGroupWithoutAggregationIsOneErrorLine() throws Exception {
        long id = create("t1", "a", "10.0.0.2");
        AggregationCommand c = new AggregationCommand();
        c.id = Long.toString(id);
        assertOneErrorLine(run(c), "not ACK_AGGREGATION");
        c.id = "999";
        assertOneErrorLine(run(c), "no group 999");
    }
}
