package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/** Creates and withdraws groups of tenant t3 one after another until stopped. */
final class FaultChurn {
    private final LabHarness.RunningLab running;

    FaultChurn(LabHarness.RunningLab running) {
        this.running = running;
    }

    FaultScenario scenario;
    private volatile boolean stopping;
    private Thread thread;
    int cycles;

    void start() {
        stopping = false;
        thread = new Thread(this::loop, "fault-suite-churn");
        thread.start();
    }

    void stop() {
        stopping = true;
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        scenario.note = cycles + " create+withdraw cycles of tenant t3 over REST";
    }

    private void loop() {
        java.util.Random rnd = new java.util.Random(7);
        List<LabFabric.Host> hosts = running.lab.fabric().hosts();
        while (!stopping) {
            LabFabric.Host src = hosts.get(rnd.nextInt(hosts.size()));
            List<String> rs = new ArrayList<>();
            for (LabFabric.Host h : hosts) {
                if (h != src && rnd.nextInt(3) == 0) {
                    rs.add('"' + h.ip() + '"');
                }
            }
            if (rs.isEmpty()) {
                continue;
            }
            String mode = cycles % 2 == 0 ? "TREE" : "AUTO";
            try {
                JsonNode g = running.rest.call("POST", "groups", "{\"tenant\":\"t3\",\"name\":\"churn-" + cycles
                        + "\",\"jobId\":\"churn\",\"source\":\"" + src.ip() + "\",\"receivers\":["
                        + String.join(",", rs) + "],\"mode\":\"" + mode + "\"}", 201);
                long id = g.path("id").asLong();
                JsonNode installed = running.rest.await(id, 15_000);
                if (!"INSTALLED".equals(installed.path("state").asText())) {
                    scenario.own.add("churn group " + id + " " + installed.path("state").asText() + ": "
                            + installed.path("reason").asText());
                }
                // 204 when the withdrawal was acknowledged before the answer (purged at once), else 202 and again
                if (running.rest.status("DELETE", "groups/" + id + "?purge=true", null, 202, 204) == 202) {
                    JsonNode withdrawn = running.rest.await(id, 15_000);
                    if (!"WITHDRAWN".equals(withdrawn.path("state").asText())) {
                        scenario.own.add("churn group " + id + " " + withdrawn.path("state").asText());
                    }
                    running.rest.call("DELETE", "groups/" + id + "?purge=true", null, 204);
                }
                cycles++;
            } catch (Exception | AssertionError e) {
                scenario.own.add("churn: " + e.getMessage());
                if (scenario.own.size() > 20) {
                    return;
                }
            }
        }
    }
}
