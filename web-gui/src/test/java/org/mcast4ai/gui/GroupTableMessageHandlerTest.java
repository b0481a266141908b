package org.mcast4ai.gui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.ReplicationMode;
import org.onlab.packet.IpAddress;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Drives the handler the way the GUI does: a table request in, one response message out. */
class GroupTableMessageHandlerTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void rowsShowEachGroupsKeyJobReceiverCountModeAndState() {
        P2mpGroup installed = group(10, "tenant-a", "allreduce", "job-7", 3, ReplicationMode.TREE)
                .withState(GroupState.COMPILING, 2, "")
                .withState(GroupState.INSTALLED, 3, "");
        P2mpGroup submitted = group(2, "tenant-b", "bcast", "", 1, ReplicationMode.AUTO);

        JsonNode rows = request(List.of(installed, submitted), Map.of()).get(GroupTableMessageHandler.ROWS);

        assertEquals(2, rows.size());
        // Sorted by id by default, numerically: 2 before 10.
        assertRow(rows.get(0), "2", "tenant-b", "bcast", "", "1", "AUTO", "SUBMITTED", "239.1.0.2");
        assertRow(rows.get(1), "10", "tenant-a", "allreduce", "job-7", "3", "TREE", "INSTALLED", "239.1.0.10");
    }

    @Test
    void theGuiCanSortByAnotherColumn() {
        P2mpGroup few = group(1, "t", "few", "j", 2, ReplicationMode.TREE);
        P2mpGroup many = group(2, "t", "many", "j", 12, ReplicationMode.TREE);
        P2mpGroup some = group(3, "t", "some", "j", 5, ReplicationMode.TREE);

        JsonNode rows = request(List.of(few, many, some), Map.of("firstCol", "receivers", "firstDir", "desc"))
                .get(GroupTableMessageHandler.ROWS);

        assertEquals("many", rows.get(0).get("name").asText());
        assertEquals("some", rows.get(1).get("name").asText());
        assertEquals("few", rows.get(2).get("name").asText());
    }

    @Test
    void noGroupsGivesNoRowsAndAMessage() {
        ObjectNode response = request(List.of(), Map.of());

        assertEquals(0, response.get(GroupTableMessageHandler.ROWS).size());
        assertEquals("No multicast groups", response.get("annots").get("no_rows_msg").asText());
    }

    private ObjectNode request(List<P2mpGroup> groups, Map<String, String> payload) {
        GroupTableMessageHandler handler = new GroupTableMessageHandler(new FixedGroupService(groups));
        RecordingConnection connection = new RecordingConnection(GroupsUiComponent.GROUPS_VIEW);
        handler.init(connection, null);

        ObjectNode message = MAPPER.createObjectNode();
        message.put("event", GroupTableMessageHandler.DATA_REQUEST);
        ObjectNode body = message.putObject("payload");
        payload.forEach(body::put);
        handler.process(message);

        List<ObjectNode> sent = connection.sent();
        assertEquals(1, sent.size(), "one response per request");
        ObjectNode response = sent.get(0);
        assertEquals(GroupTableMessageHandler.DATA_RESPONSE, response.get("event").asText());
        return (ObjectNode) response.get("payload");
    }

    private static void assertRow(JsonNode row, String... expected) {
        String[] columns = {"id", "tenant", "name", "job", "receivers", "mode", "state", "address"};
        for (int i = 0; i < columns.length; i++) {
            assertEquals(expected[i], row.get(columns[i]).asText(), columns[i]);
        }
    }

    private static P2mpGroup group(long id, String tenant, String name, String job, int receivers,
                                   ReplicationMode mode) {
        P2mpGroupRequest.Builder b = P2mpGroupRequest.builder()
                .key(GroupKey.of(tenant, name))
                .jobId(job)
                .mode(mode)
                .source(Endpoint.of("10.0.0.1"));
        for (int r = 0; r < receivers; r++) {
            b.addReceiver(Endpoint.of("10.0.1." + (r + 1)));
        }
        return P2mpGroup.submitted(P2mpGroupId.of(id), b.build(), IpAddress.valueOf("239.1.0." + id), 1);
    }
}
