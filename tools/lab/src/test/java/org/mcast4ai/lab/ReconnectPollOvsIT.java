package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A switch that comes back empty is polled one second after it connects, as ONOS's OpenFlow providers start their
 * statistics polls, whatever the poll period: with the periodic polls a minute apart, the returned leaf holds its
 * flows and egress groups again within seconds.
 */
@Tag("ovs")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReconnectPollOvsIT {
    private LabHarness.RunningLab running;

    @BeforeAll
    void up() throws Exception {
        Lab.Settings settings = new Lab.Settings();
        settings.auditMs = 60_000;
        settings.groupAuditMs = 60_000;
        running = LabHarness.RunningLab.start("reconnect-it", 180_000, settings);
    }

    @AfterAll
    void down() {
        if (running != null) {
            running.close();
        }
    }

    private void fabric(String... args) {
        List<String> cmd = new ArrayList<>(List.of(LabHarness.root().resolve("tools/lab/fabric").toString()));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--fabric", running.fabricFile.toString()));
        LabHarness.Run r = LabHarness.run(cmd, 60);
        assertEquals(0, r.code, String.join(" ", args) + ": " + r.out);
    }

    private static int groups(String bridge) {
        LabHarness.Run r = LabHarness.run(List.of("ovs-ofctl", "-O", "OpenFlow13", "dump-groups", bridge), 10);
        return (int) r.out.lines().filter(l -> l.contains("group_id=")).count();
    }

    @Test
    void aLeafBackEmptyHoldsItsTablesAgainWithinSeconds() throws Exception {
        String ip = running.lab.fabric().host("h8").orElseThrow().ip();
        JsonNode created = running.rest.call("POST", "groups", "{\"tenant\":\"lab\",\"name\":\"rc\",\"jobId\":\"rc\","
                + "\"source\":{\"host\":\"" + running.lab.fabric().host("h1").orElseThrow().ip() + "\"},"
                + "\"receivers\":[{\"host\":\"" + ip + "\"}],\"mode\":\"BITMAP\"}", 201);
        JsonNode g = running.rest.await(created.path("id").asLong(), 30_000);
        assertEquals("INSTALLED", g.path("state").asText(), g.toString());
        int flows = LabHarness.flows("m4leaf4").size();
        int groups = groups("m4leaf4");
        assertTrue(flows > 0 && groups > 0, "leaf4 holds static tables: " + flows + " flows, " + groups + " groups");

        fabric("fail-switch", "leaf4");
        Thread.sleep(1000);
        long back = System.nanoTime();
        fabric("restore-switch", "leaf4");
        long deadline = back + 15_000_000_000L;
        while ((LabHarness.flows("m4leaf4").size() < flows || groups("m4leaf4") < groups)
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        long ms = (System.nanoTime() - back) / 1_000_000;
        System.out.println("reconnect: leaf4 back with " + LabHarness.flows("m4leaf4").size() + " flows and "
                + groups("m4leaf4") + " groups " + ms + " ms after it was restored (periodic polls 60 s apart)");
        assertEquals(groups, groups("m4leaf4"), "egress groups back");
        assertEquals(flows, LabHarness.flows("m4leaf4").size(), "flows back");
        assertTrue(ms < 10_000, "back in " + ms + " ms");
    }
}
