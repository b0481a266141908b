package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.onosproject.net.DeviceId;
import org.onosproject.net.group.Group;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault suite: three long-lived groups (TREE, AUTO, BITMAP; two tenants) carry numbered streams while a
 * link, a switch, a host or a switch's tables fail and come back on the real Open vSwitch fabric. For every
 * scenario and receiver it counts packets lost, duplicates and strays, the time from the fault (and from the
 * repair) until delivery is whole again, and compares each group's state and unreachable list with the truth.
 * It ends with the line {@code faults: scenarios=S passed=P duplicates=D strays=T silent=Q max_reroute_ms=M} and
 * writes the full report to {@code tools/lab/target/faults/report.json}.
 */
class FaultSuiteOvsIT {
    /**
     * The lab's flow and group audit periods (ONOS's statistics polls): the lab's defaults, or ONOS's own (5 s and
     * 10 s) with {@code -Dmcast4ai.faults.auditMs=5000 -Dmcast4ai.faults.groupAuditMs=10000}.
     */
    private static final long AUDIT_MS = Long.getLong("mcast4ai.faults.auditMs", new Lab.Settings().auditMs);
    private static final long GROUP_AUDIT_MS = Long.getLong("mcast4ai.faults.groupAuditMs",
            new Lab.Settings().groupAuditMs);

    private static LabHarness.RunningLab running;
    private static final Map<String, FaultGroup> GROUPS = new LinkedHashMap<>();
    private static final List<Map<String, Object>> REPORT = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        Lab.Settings settings = new Lab.Settings();
        Path state = LabHarness.root().resolve("tools/lab/target/faults/store.bin");
        Files.createDirectories(state.getParent());
        Files.deleteIfExists(state);
        settings.stateFile = state;
        settings.auditMs = AUDIT_MS;
        settings.groupAuditMs = GROUP_AUDIT_MS;
        running = LabHarness.RunningLab.start("faults", 300_000, settings);
        add(new FaultGroup("t1-tree", "TREE", "h1", List.of("h3", "h5", "h7")), "t1");
        add(new FaultGroup("t2-auto", "AUTO", "h4", List.of("h2", "h6", "h8")), "t2");
        add(new FaultGroup("t1-bitmap", "BITMAP", "h6", List.of("h1", "h7")), "t1");
        for (FaultGroup g : GROUPS.values()) {
            JsonNode s = running.rest.await(g.id, 30_000);
            assertEquals("INSTALLED", s.path("state").asText(), s.toString());
        }
    }

    private static void add(FaultGroup g, String tenant) throws Exception {
        StringBuilder receivers = new StringBuilder("[");
        for (String m : g.members) {
            receivers.append(receivers.length() > 1 ? "," : "").append('"').append(host(m).ip()).append('"');
        }
        receivers.append(']');
        JsonNode created = running.rest.call("POST", "groups", "{\"tenant\":\"" + tenant + "\",\"name\":\"" + g.name
                + "\",\"jobId\":\"faults\",\"source\":\"" + host(g.source).ip() + "\",\"receivers\":" + receivers
                + ",\"mode\":\"" + g.mode + "\"}", 201);
        g.id = created.path("id").asLong();
        g.address = created.path("address").asText();
        GROUPS.put(g.name, g);
    }

    private static LabFabric.Host host(String name) {
        return running.lab.fabric().host(name).orElseThrow();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (!REPORT.isEmpty()) {
                Path dir = LabHarness.root().resolve("tools/lab/target/faults");
                Files.createDirectories(dir);
                Files.writeString(dir.resolve("report.json"),
                        LabHarness.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(REPORT));
            }
        } finally {
            if (running != null) {
                running.close();
            }
        }
    }

    private static void fabric(String... args) {
        List<String> cmd = new ArrayList<>(List.of(LabHarness.root().resolve("tools/lab/fabric").toString()));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--fabric", running.fabricFile.toString()));
        LabHarness.Run r = LabHarness.run(cmd, 60);
        assertEquals(0, r.code, String.join(" ", args) + ": " + r.out);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("at_ms=(\\d+)").matcher(r.out);
        if (m.find()) {
            changedAt = Long.parseLong(m.group(1));
        }
    }

    /** When the last fabric command began its change (the tool's own start-up is not part of an outage). */
    private static volatile long changedAt;

    private static void ofctl(String... args) {
        List<String> cmd = new ArrayList<>(List.of("ovs-ofctl", "-O", "OpenFlow13"));
        cmd.addAll(List.of(args));
        LabHarness.Run r = LabHarness.run(cmd, 30);
        assertEquals(0, r.code, String.join(" ", args) + ": " + r.out);
    }

    private static String spineOf(FaultGroup g, String leaf) throws Exception {
        String leafId = running.lab.fabric().switches().stream().filter(s -> s.name().equals(leaf)).findFirst()
                .orElseThrow().deviceId();
        for (JsonNode l : running.rest.call("GET", "groups/" + g.id + "/plan", null, 200).path("links")) {
            if (l.path("src").path("device").asText().equals(leafId)) {
                String d = l.path("dst").path("device").asText();
                return running.lab.fabric().switchById(d).orElseThrow().name();
            }
        }
        return "spine1";
    }

    private static String spineTo(FaultGroup g, String leaf) throws Exception {
        String leafId = running.lab.fabric().switches().stream().filter(s -> s.name().equals(leaf)).findFirst()
                .orElseThrow().deviceId();
        for (JsonNode l : running.rest.call("GET", "groups/" + g.id + "/plan", null, 200).path("links")) {
            if (l.path("dst").path("device").asText().equals(leafId)) {
                return running.lab.fabric().switchById(l.path("src").path("device").asText()).orElseThrow().name();
            }
        }
        return "spine1";
    }

    /** One scenario: the fault, its repair, and which members of which group cannot be reached meanwhile. */
    @Test
    void faultsWithTraffic() throws Exception {
        FaultGroup tree = GROUPS.get("t1-tree");
        List<FaultScenario> scenarios = new ArrayList<>();
        // first a fault the fabric cannot route around: the controller's first reroute after it started runs on a
        // cold JVM (0.5-1.1 s on the 2-core lab, against 0.3-0.6 s warm), and a controller in service is warm;
        // max_reroute_ms is taken over the routable faults that follow, and this one is judged all the same
        scenarios.add(new FaultScenario("receiver leaf",
                () -> fabric("fail-switch", "leaf4"), () -> fabric("restore-switch", "leaf4"))
                .cut("t1-tree", "h7").cut("t2-auto", "h8").cut("t1-bitmap", "h7"));
        String treeSpine = spineOf(tree, "leaf1");
        scenarios.add(new FaultScenario("spine link (source leaf uplink of the TREE group)",
                () -> fabric("fail-link", "leaf1", treeSpine), () -> fabric("restore-link", "leaf1", treeSpine)));
        String rxSpine = spineTo(tree, "leaf3");
        scenarios.add(new FaultScenario("receiver-leaf link",
                () -> fabric("fail-link", "leaf3", rxSpine), () -> fabric("restore-link", "leaf3", rxSpine)));
        scenarios.add(new FaultScenario("spine switch",
                () -> fabric("fail-switch", "spine1"), () -> fabric("restore-switch", "spine1")));
        scenarios.add(new FaultScenario("source leaf",
                () -> fabric("fail-switch", "leaf1"), () -> fabric("restore-switch", "leaf1"))
                .sourceGone("t1-tree").cut("t2-auto", "h2").cut("t1-bitmap", "h1"));
        scenarios.add(new FaultScenario("host removal",
                () -> fabric("fail-host", "h5"), () -> fabric("restore-host", "h5")).cut("t1-tree", "h5"));
        // a position the fabric never had needs a new egress group on its leaf, which ONOS (and the lab) confirms
        // only on its group poll: the BITMAP group is whole within one audit period, not 0.5 s
        scenarios.add(new FaultScenario("host move to a new port",
                () -> fabric("move-host", "h7", "leaf2", "9"), () -> fabric("restore-host", "h7"))
                .repairedWithin(GROUP_AUDIT_MS + FaultScenario.REROUTE_TARGET_MS));
        // flows deleted around the lab come back on FLOW_REMOVED, as FlowRuleManager re-applies them; over
        // ovs-ofctl processes nothing is heard and the audit repairs them
        scenarios.add(new FaultScenario("one group's rules deleted out of band",
                () -> ofctl("del-flows", "m4leaf3", "ip,nw_dst=" + tree.address), () -> { })
                .repairedWithin(Ofctl.labUsesProcesses() ? AUDIT_MS + FaultScenario.REROUTE_TARGET_MS
                        : FaultScenario.REROUTE_TARGET_MS));
        scenarios.add(new FaultScenario("a whole bridge's flows and groups deleted",
                () -> {
                    ofctl("del-flows", "m4leaf4");
                    ofctl("del-groups", "m4leaf4");
                }, () -> { }).repairedWithin(Math.max(AUDIT_MS, GROUP_AUDIT_MS) + FaultScenario.REROUTE_TARGET_MS));

        // the lab runner stops (its store kept in a file, as ONOS keeps its store) and starts again with an empty flow
        // store, as ONOS does after a restart: the switches keep forwarding meanwhile, the app sends its entries
        // again before the lab's first audit would purge them, and new groups never reuse an id or an address
        scenarios.add(new FaultScenario("controller restart", () -> running.stopRunner(), () -> {
            try {
                running.startRunner();
                checkNoReuseAfterRestart();
            } catch (Exception e) {
                throw new AssertionError("restart failed", e);
            }
        }).controllerDown());

        // a scheduler's churn beside the long-lived groups: a third tenant's groups created, INSTALLED, withdrawn and
        // purged one after another over REST for 60 s; the long-lived groups must not lose a packet
        FaultChurn churn = new FaultChurn(running);
        FaultScenario churning = new FaultScenario("60 s of churn beside the long-lived groups", churn::start,
                churn::stop)
                .lasting(63, 61_500);
        churn.scenario = churning;
        scenarios.add(churning);

        int passed = 0;
        long duplicates = 0;
        long strays = 0;
        int silent = 0;
        long maxReroute = 0;
        String only = System.getProperty("mcast4ai.faults.only", "");
        scenarios.removeIf(s -> java.util.Arrays.stream(only.split(",")).noneMatch(s.name::contains));
        for (FaultScenario s : scenarios) {
            Map<String, Object> r = run(s);
            REPORT.add(r);
            duplicates += (long) r.get("duplicates");
            strays += (long) r.get("strays");
            silent += (int) r.get("silent");
            if (s.routable && s.targetMs == FaultScenario.REROUTE_TARGET_MS) {
                maxReroute = Math.max(maxReroute, (long) r.get("rerouteMs"));
            }
            if ((boolean) r.get("passed")) {
                passed++;
            }
            System.out.println("faults: " + r.get("summary"));
        }
        String line = String.format("faults: scenarios=%d passed=%d duplicates=%d strays=%d silent=%d "
                + "max_reroute_ms=%d", scenarios.size(), passed, duplicates, strays, silent, maxReroute);
        System.out.println(line);
        Map<String, Object> total = new LinkedHashMap<>();
        total.put("summary", line);
        REPORT.add(total);
        assertEquals(0, strays, "no copy may reach a host outside its group: " + line);
        assertEquals(0, duplicates, line);
        assertEquals(0, silent, line);
        // the report holds every scenario to the targets; CI fails on anything but a reroute slower than the
        // target and within twice it (a loaded 2-core machine)
        List<String> hard = new ArrayList<>();
        REPORT.stream().filter(m -> m.containsKey("hardProblems"))
                .forEach(m -> ((List<?>) m.get("hardProblems")).forEach(p -> hard.add(m.get("scenario") + ": " + p)));
        assertEquals(List.of(), hard, line);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> run(FaultScenario s) throws Exception {
        // a scenario starts from every group INSTALLED; one that is not is this scenario's problem too (a
        // previous fault not repaired), not silently carried on
        List<String> unsettled = awaitSettled(15_000);
        Path out = LabHarness.root().resolve("tools/lab/target/faults/stream.json");
        Files.createDirectories(out.getParent());
        Files.deleteIfExists(out);
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/python3",
                LabHarness.root().resolve("tools/traffic/stream.py").toString(),
                "--fabric", running.fabricFile.toString(), "--rate", Double.toString(FaultJudge.RATE),
                "--duration", Double.toString(s.seconds), "--out", out.toString()));
        for (FaultGroup g : GROUPS.values()) {
            cmd.addAll(List.of("--group", g.id + ":" + g.source + ":" + g.address + ":" + String.join(",", g.members)));
        }
        Process stream = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(LabHarness.root().resolve("tools/lab/target/faults/stream.log").toFile()).start();
        long t0 = System.currentTimeMillis();
        Thread.sleep(s.faultAtMs);
        long faultAt = System.currentTimeMillis();
        changedAt = 0;
        s.fault.run();
        faultAt = Math.max(faultAt, changedAt);
        System.out.println(java.time.Instant.ofEpochMilli(faultAt) + " fault: " + s.name);
        Thread.sleep(s.restoreAtMs - s.faultAtMs - 500);
        Map<String, JsonNode> during = new LinkedHashMap<>();
        for (FaultGroup g : GROUPS.values()) {
            during.put(g.name, s.controllerDown ? null : running.rest.call("GET", "groups/" + g.id, null, 200));
        }
        Thread.sleep(Math.max(0, t0 + s.restoreAtMs - System.currentTimeMillis()));
        long restoreAt = System.currentTimeMillis();
        changedAt = 0;
        s.restore.run();
        restoreAt = Math.max(restoreAt, changedAt);
        System.out.println(java.time.Instant.ofEpochMilli(restoreAt) + " restore: " + s.name);
        StateSampler states = new StateSampler(GROUPS.values());
        states.start();
        boolean streamed = stream.waitFor(120, java.util.concurrent.TimeUnit.SECONDS);
        states.stop();
        if (!streamed || stream.exitValue() != 0) {
            stream.destroyForcibly();
            throw new AssertionError("stream.py failed: " + Files.readString(out.resolveSibling("stream.log")));
        }
        Map<String, JsonNode> after = new LinkedHashMap<>();
        for (FaultGroup g : GROUPS.values()) {
            after.put(g.name, running.rest.call("GET", "groups/" + g.id, null, 200));
        }
        Map<String, Object> judged = FaultJudge.judge(s, GROUPS, running.lab.fabric(),
                LabHarness.MAPPER.readTree(Files.readString(out)), faultAt, restoreAt, during, after,
                states.installedSince());
        if (!s.note.isEmpty()) {
            judged.put("note", s.note);
            judged.put("summary", judged.get("summary") + " (" + s.note + ")");
        }
        for (String p : s.own) {
            judged.put("passed", false);
            ((List<String>) judged.get("hardProblems")).add(p);
            judged.put("summary", judged.get("summary") + "\n    " + p);
        }
        if (!(boolean) judged.get("passed")) {
            dumpSwitches(s.name);
        }
        if (!unsettled.isEmpty()) {
            judged.put("passed", false);
            ((List<String>) judged.get("hardProblems")).add("not INSTALLED before the scenario: " + unsettled);
            judged.put("summary", judged.get("summary") + "\n    not INSTALLED before the scenario: " + unsettled);
        }
        return judged;
    }

    // Each group's state every 100 ms from the restore to the end of the stream: when a group says INSTALLED for
    // good, which the judge holds its delivery to
    private static final class StateSampler {
        private final java.util.Collection<FaultGroup> groups;
        private final Map<String, Long> since = new java.util.concurrent.ConcurrentHashMap<>();
        private volatile boolean stopped;
        private Thread thread;

        StateSampler(java.util.Collection<FaultGroup> groups) {
            this.groups = groups;
        }

        void start() {
            thread = new Thread(() -> {
                while (!stopped) {
                    for (FaultGroup g : groups) {
                        String state;
                        try {
                            state = running.rest.call("GET", "groups/" + g.id, null, 200).path("state").asText();
                        } catch (Exception | AssertionError e) {
                            state = "UNKNOWN"; // the controller restarting
                        }
                        if ("INSTALLED".equals(state)) {
                            since.putIfAbsent(g.name, System.currentTimeMillis());
                        } else {
                            since.remove(g.name);
                        }
                    }
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "fault-state-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            stopped = true;
            thread.join(5_000);
        }

        // the moment from which each group said INSTALLED until the end (absent: not INSTALLED at the end)
        Map<String, Long> installedSince() {
            return Map.copyOf(since);
        }
    }

    // What the switches and ONOS's (the lab's) group store hold when a scenario failed, for its diagnosis:
    // tools/lab/target/faults/<scenario>.switches.txt
    private static void dumpSwitches(String scenario) throws Exception {
        StringBuilder out = new StringBuilder();
        for (LabFabric.Switch sw : running.lab.fabric().switches()) {
            String bridge = sw.bridge();
            out.append("== ").append(bridge).append(' ').append(sw.deviceId()).append('\n');
            for (Group g : running.lab.groups().getGroups(DeviceId.deviceId(sw.deviceId()))) {
                out.append("store group 0x").append(Integer.toHexString(g.id().id())).append(' ')
                        .append(g.state()).append(' ').append(g.buckets().buckets().size()).append(" bucket(s)\n");
            }
            out.append(LabHarness.run(List.of("ovs-ofctl", "-O", "OpenFlow13", "dump-groups", bridge), 30).out);
            out.append(LabHarness.run(List.of("ovs-ofctl", "-O", "OpenFlow13", "--no-stats", "dump-flows", bridge),
                    30).out);
        }
        Path file = LabHarness.root().resolve("tools/lab/target/faults/"
                + scenario.replaceAll("[^A-Za-z0-9]+", "-") + ".switches.txt");
        Files.writeString(file, out.toString());
        System.out.println("faults: switch state after the failed scenario in " + file);
    }

    /** After a restart: a new group gets an id and an address no group that may still be on a switch has. */
    private static void checkNoReuseAfterRestart() throws Exception {
        JsonNode all = running.rest.call("GET", "groups", null, 200);
        Set<Long> ids = new TreeSet<>();
        Set<String> addresses = new TreeSet<>();
        all.path("groups").forEach(g -> {
            ids.add(g.path("id").asLong());
            addresses.add(g.path("address").asText());
        });
        for (FaultGroup g : GROUPS.values()) {
            assertTrue(ids.contains(g.id), "group " + g.id + " survives the restart: " + all);
        }
        JsonNode fresh = running.rest.call("POST", "groups", "{\"tenant\":\"t2\",\"name\":\"after-restart\","
                + "\"jobId\":\"faults\",\"source\":\"" + host("h8").ip() + "\",\"receivers\":[\""
                + host("h5").ip() + "\"],\"mode\":\"TREE\"}", 201);
        long id = fresh.path("id").asLong();
        assertTrue(ids.stream().allMatch(x -> x < id), "a new id after the restart: " + id + " vs " + ids);
        assertTrue(!addresses.contains(fresh.path("address").asText()), "a new address: " + fresh);
        running.rest.await(id, 15_000);
        if (running.rest.status("DELETE", "groups/" + id + "?purge=true", null, 202, 204) == 202) {
            running.rest.await(id, 15_000);
            running.rest.call("DELETE", "groups/" + id + "?purge=true", null, 204);
        }
    }

    private static List<String> awaitSettled(long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        List<String> unsettled = new ArrayList<>();
        while (System.currentTimeMillis() < deadline) {
            unsettled.clear();
            for (FaultGroup g : GROUPS.values()) {
                JsonNode now = running.rest.call("GET", "groups/" + g.id, null, 200);
                if (!"INSTALLED".equals(now.path("state").asText())) {
                    unsettled.add(g.name + " " + now.path("state").asText() + ": " + now.path("reason").asText());
                }
            }
            if (unsettled.isEmpty()) {
                Thread.sleep(300);
                return unsettled;
            }
            Thread.sleep(200);
        }
        return unsettled;
    }


}
