package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

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
    private static final double RATE = 150;
    private static final double SECONDS = 7.0;
    private static final long FAULT_AT_MS = 1500;
    private static final long RESTORE_AT_MS = 4000;
    /** Delivery must be whole again this long before the stream ends. */
    private static final long SETTLE_MS = 1500;
    private static final long REROUTE_TARGET_MS = 500;
    /** The lab's audit period (ONOS's statistics polls). */
    private static final long AUDIT_MS = new Lab.Settings().auditMs;

    private static LabHarness.RunningLab running;
    private static final Map<String, Group> GROUPS = new LinkedHashMap<>();
    private static final List<Map<String, Object>> REPORT = new ArrayList<>();

    /** A group under test. */
    static final class Group {
        final String name;
        final String mode;
        final String source;
        final List<String> members;
        long id;
        String address;

        Group(String name, String mode, String source, List<String> members) {
            this.name = name;
            this.mode = mode;
            this.source = source;
            this.members = members;
        }
    }

    @BeforeAll
    static void start() throws Exception {
        Lab.Settings settings = new Lab.Settings();
        Path state = LabHarness.root().resolve("tools/lab/target/faults/store.bin");
        Files.createDirectories(state.getParent());
        Files.deleteIfExists(state);
        settings.stateFile = state;
        running = LabHarness.RunningLab.start("faults", 300_000, settings);
        add(new Group("t1-tree", "TREE", "h1", List.of("h3", "h5", "h7")), "t1");
        add(new Group("t2-auto", "AUTO", "h4", List.of("h2", "h6", "h8")), "t2");
        add(new Group("t1-bitmap", "BITMAP", "h6", List.of("h1", "h7")), "t1");
        for (Group g : GROUPS.values()) {
            JsonNode s = running.rest.await(g.id, 30_000);
            assertEquals("INSTALLED", s.path("state").asText(), s.toString());
        }
    }

    private static void add(Group g, String tenant) throws Exception {
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
    }

    private static void ofctl(String... args) {
        List<String> cmd = new ArrayList<>(List.of("ovs-ofctl", "-O", "OpenFlow13"));
        cmd.addAll(List.of(args));
        LabHarness.Run r = LabHarness.run(cmd, 30);
        assertEquals(0, r.code, String.join(" ", args) + ": " + r.out);
    }

    private static String spineOf(Group g, String leaf) throws Exception {
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

    private static String spineTo(Group g, String leaf) throws Exception {
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
    private static final class Scenario {
        final String name;
        final Runnable fault;
        final Runnable restore;
        final Map<String, Set<String>> unreachable = new LinkedHashMap<>();
        // source of the group gone: the group cannot deliver and must not say INSTALLED
        final Set<String> sourceGone = new TreeSet<>();
        boolean routable = true;
        // the controller is down during the fault: nothing to ask it
        boolean controllerDown;
        // state deleted around the app: repaired by the audit, not rerouted
        long targetMs = REROUTE_TARGET_MS;
        double seconds = SECONDS;
        long faultAtMs = FAULT_AT_MS;
        long restoreAtMs = RESTORE_AT_MS;
        // problems the fault itself found (the churn's own groups)
        final List<String> own = new java.util.concurrent.CopyOnWriteArrayList<>();
        // what the fault did, for the report
        volatile String note = "";

        Scenario lasting(double streamSeconds, long restoreAt) {
            seconds = streamSeconds;
            restoreAtMs = restoreAt;
            return this;
        }

        Scenario(String name, Runnable fault, Runnable restore) {
            this.name = name;
            this.fault = fault;
            this.restore = restore;
        }

        Scenario cut(String group, String... members) {
            unreachable.put(group, Set.of(members));
            routable = false;
            return this;
        }

        Scenario controllerDown() {
            controllerDown = true;
            return this;
        }

        Scenario repairedWithin(long ms) {
            targetMs = ms;
            return this;
        }

        Scenario sourceGone(String group) {
            sourceGone.add(group);
            routable = false;
            return this;
        }
    }

    @Test
    void faultsWithTraffic() throws Exception {
        Group tree = GROUPS.get("t1-tree");
        List<Scenario> scenarios = new ArrayList<>();
        String treeSpine = spineOf(tree, "leaf1");
        scenarios.add(new Scenario("spine link (source leaf uplink of the TREE group)",
                () -> fabric("fail-link", "leaf1", treeSpine), () -> fabric("restore-link", "leaf1", treeSpine)));
        String rxSpine = spineTo(tree, "leaf3");
        scenarios.add(new Scenario("receiver-leaf link",
                () -> fabric("fail-link", "leaf3", rxSpine), () -> fabric("restore-link", "leaf3", rxSpine)));
        scenarios.add(new Scenario("spine switch",
                () -> fabric("fail-switch", "spine1"), () -> fabric("restore-switch", "spine1")));
        scenarios.add(new Scenario("source leaf",
                () -> fabric("fail-switch", "leaf1"), () -> fabric("restore-switch", "leaf1"))
                .sourceGone("t1-tree").cut("t2-auto", "h2").cut("t1-bitmap", "h1"));
        scenarios.add(new Scenario("receiver leaf",
                () -> fabric("fail-switch", "leaf4"), () -> fabric("restore-switch", "leaf4"))
                .cut("t1-tree", "h7").cut("t2-auto", "h8").cut("t1-bitmap", "h7"));
        scenarios.add(new Scenario("host removal",
                () -> fabric("fail-host", "h5"), () -> fabric("restore-host", "h5")).cut("t1-tree", "h5"));
        // a position the fabric never had needs a new egress group on its leaf, which ONOS (and the lab) confirms
        // only on its group poll: the BITMAP group is whole within one audit period, not 0.5 s
        scenarios.add(new Scenario("host move to a new port",
                () -> fabric("move-host", "h7", "leaf2", "9"), () -> fabric("restore-host", "h7"))
                .repairedWithin(AUDIT_MS + REROUTE_TARGET_MS));
        scenarios.add(new Scenario("one group's rules deleted out of band",
                () -> ofctl("del-flows", "m4leaf3", "ip,nw_dst=" + tree.address), () -> { })
                .repairedWithin(AUDIT_MS + REROUTE_TARGET_MS));
        scenarios.add(new Scenario("a whole bridge's flows and groups deleted",
                () -> {
                    ofctl("del-flows", "m4leaf4");
                    ofctl("del-groups", "m4leaf4");
                }, () -> { }).repairedWithin(AUDIT_MS + REROUTE_TARGET_MS));

        // the lab runner stops (its store kept in a file, as ONOS keeps its store) and starts again with an empty flow
        // store, as ONOS does after a restart: the switches keep forwarding meanwhile, the app sends its entries
        // again before the lab's first audit would purge them, and new groups never reuse an id or an address
        scenarios.add(new Scenario("controller restart", () -> running.stopRunner(), () -> {
            try {
                running.startRunner();
                checkNoReuseAfterRestart();
            } catch (Exception e) {
                throw new AssertionError("restart failed", e);
            }
        }).controllerDown());

        // a scheduler's churn beside the long-lived groups: a third tenant's groups created, INSTALLED, withdrawn and
        // purged one after another over REST for 60 s; the long-lived groups must not lose a packet
        Churn churn = new Churn();
        Scenario churning = new Scenario("60 s of churn beside the long-lived groups", churn::start, churn::stop)
                .lasting(63, 61_500);
        churn.scenario = churning;
        scenarios.add(churning);

        int passed = 0;
        long duplicates = 0;
        long strays = 0;
        int silent = 0;
        long maxReroute = 0;
        for (Scenario s : scenarios) {
            Map<String, Object> r = run(s);
            REPORT.add(r);
            duplicates += (long) r.get("duplicates");
            strays += (long) r.get("strays");
            silent += (int) r.get("silent");
            if (s.routable && s.targetMs == REROUTE_TARGET_MS) {
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
    private Map<String, Object> run(Scenario s) throws Exception {
        // a scenario starts from every group INSTALLED; one that is not is this scenario's problem too (a
        // previous fault not repaired), not silently carried on
        List<String> unsettled = awaitSettled(15_000);
        Path out = LabHarness.root().resolve("tools/lab/target/faults/stream.json");
        Files.createDirectories(out.getParent());
        Files.deleteIfExists(out);
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/python3",
                LabHarness.root().resolve("tools/traffic/stream.py").toString(),
                "--fabric", running.fabricFile.toString(), "--rate", Double.toString(RATE),
                "--duration", Double.toString(s.seconds), "--out", out.toString()));
        for (Group g : GROUPS.values()) {
            cmd.addAll(List.of("--group", g.id + ":" + g.source + ":" + g.address + ":" + String.join(",", g.members)));
        }
        Process stream = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(LabHarness.root().resolve("tools/lab/target/faults/stream.log").toFile()).start();
        long t0 = System.currentTimeMillis();
        Thread.sleep(s.faultAtMs);
        long faultAt = System.currentTimeMillis();
        s.fault.run();
        Thread.sleep(s.restoreAtMs - s.faultAtMs - 500);
        Map<String, JsonNode> during = new LinkedHashMap<>();
        for (Group g : GROUPS.values()) {
            during.put(g.name, s.controllerDown ? null : running.rest.call("GET", "groups/" + g.id, null, 200));
        }
        Thread.sleep(Math.max(0, t0 + s.restoreAtMs - System.currentTimeMillis()));
        long restoreAt = System.currentTimeMillis();
        s.restore.run();
        if (!stream.waitFor(120, java.util.concurrent.TimeUnit.SECONDS) || stream.exitValue() != 0) {
            stream.destroyForcibly();
            throw new AssertionError("stream.py failed: " + Files.readString(out.resolveSibling("stream.log")));
        }
        Map<String, JsonNode> after = new LinkedHashMap<>();
        for (Group g : GROUPS.values()) {
            after.put(g.name, running.rest.call("GET", "groups/" + g.id, null, 200));
        }
        Map<String, Object> judged = judge(s, LabHarness.MAPPER.readTree(Files.readString(out)), faultAt, restoreAt,
                during, after);
        if (!s.note.isEmpty()) {
            judged.put("note", s.note);
            judged.put("summary", judged.get("summary") + " (" + s.note + ")");
        }
        for (String p : s.own) {
            judged.put("passed", false);
            ((List<String>) judged.get("hardProblems")).add(p);
            judged.put("summary", judged.get("summary") + "\n    " + p);
        }
        if (!unsettled.isEmpty()) {
            judged.put("passed", false);
            ((List<String>) judged.get("hardProblems")).add("not INSTALLED before the scenario: " + unsettled);
            judged.put("summary", judged.get("summary") + "\n    not INSTALLED before the scenario: " + unsettled);
        }
        return judged;
    }

    /** Creates and withdraws groups of tenant t3 one after another until stopped. */
    private static final class Churn {
        Scenario scenario;
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
                    running.rest.call("DELETE", "groups/" + id + "?purge=true", null, 202);
                    JsonNode withdrawn = running.rest.await(id, 15_000);
                    if (!"WITHDRAWN".equals(withdrawn.path("state").asText())) {
                        scenario.own.add("churn group " + id + " " + withdrawn.path("state").asText());
                    }
                    running.rest.call("DELETE", "groups/" + id + "?purge=true", null, 204);
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

    /** After a restart: a new group gets an id and an address no group that may still be on a switch has. */
    private static void checkNoReuseAfterRestart() throws Exception {
        JsonNode all = running.rest.call("GET", "groups", null, 200);
        Set<Long> ids = new TreeSet<>();
        Set<String> addresses = new TreeSet<>();
        all.path("groups").forEach(g -> {
            ids.add(g.path("id").asLong());
            addresses.add(g.path("address").asText());
        });
        for (Group g : GROUPS.values()) {
            assertTrue(ids.contains(g.id), "group " + g.id + " survives the restart: " + all);
        }
        JsonNode fresh = running.rest.call("POST", "groups", "{\"tenant\":\"t2\",\"name\":\"after-restart\","
                + "\"jobId\":\"faults\",\"source\":\"" + host("h8").ip() + "\",\"receivers\":[\""
                + host("h5").ip() + "\"],\"mode\":\"TREE\"}", 201);
        long id = fresh.path("id").asLong();
        assertTrue(ids.stream().allMatch(x -> x < id), "a new id after the restart: " + id + " vs " + ids);
        assertTrue(!addresses.contains(fresh.path("address").asText()), "a new address: " + fresh);
        running.rest.await(id, 15_000);
        running.rest.call("DELETE", "groups/" + id + "?purge=true", null, 202);
        running.rest.await(id, 15_000);
        running.rest.call("DELETE", "groups/" + id + "?purge=true", null, 204);
    }

    private static List<String> awaitSettled(long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        List<String> unsettled = new ArrayList<>();
        while (System.currentTimeMillis() < deadline) {
            unsettled.clear();
            for (Group g : GROUPS.values()) {
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

    private Map<String, Object> judge(Scenario s, JsonNode stream, long faultAt, long restoreAt,
                                      Map<String, JsonNode> during, Map<String, JsonNode> after) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scenario", s.name);
        long dups = 0;
        long strayCount = 0;
        int silent = 0;
        long reroute = 0;
        boolean passed = true;
        Map<String, Object> groups = new LinkedHashMap<>();
        List<String> hard = new ArrayList<>();
        for (Group g : GROUPS.values()) {
            JsonNode gs = stream.path("groups").path(Long.toString(g.id));
            JsonNode sent = gs.path("sent");
            double end = sent.get(sent.size() - 1).asDouble() * 1000;
            Set<String> cut = s.unreachable.getOrDefault(g.name, Set.of());
            boolean sourceGone = s.sourceGone.contains(g.name);
            Map<String, Object> gr = new LinkedHashMap<>();
            List<String> problems = new ArrayList<>();
            long groupReroute = 0;
            java.util.Iterator<String> hosts = stream.path("hosts").fieldNames();
            while (hosts.hasNext()) {
                String h = hosts.next();
                JsonNode e = stream.path("hosts").path(h).path(Long.toString(g.id));
                dups += e.path("duplicates").asLong();
                if (e.path("duplicates").asLong() > 0) {
                    problems.add(h + " got " + e.path("duplicates").asLong() + " duplicates");
                }
                if (!e.path("member").asBoolean()) {
                    strayCount += e.path("received").asLong();
                    if (e.path("received").asLong() > 0) {
                        long first = e.path("strays").path(0).path(0).asLong();
                        long at = Math.round(sent.get((int) first).asDouble() * 1000);
                        problems.add(h + " (not a member) got " + e.path("received").asLong() + " strays, the first "
                                + (at - faultAt) + " ms after the fault (restore at +" + (restoreAt - faultAt) + ")");
                    }
                    continue;
                }
                long lost = 0;
                double lastLossAfterFault = -1;
                double lastLossAfterRestore = -1;
                for (JsonNode range : e.path("missing")) {
                    for (long q = range.get(0).asLong(); q <= range.get(1).asLong(); q++) {
                        lost++;
                        double t = sent.get((int) q).asDouble() * 1000;
                        if (t >= faultAt && t < restoreAt) {
                            lastLossAfterFault = Math.max(lastLossAfterFault, t);
                        } else if (t >= restoreAt) {
                            lastLossAfterRestore = Math.max(lastLossAfterRestore, t);
                        }
                    }
                }
                Map<String, Object> hr = new LinkedHashMap<>();
                hr.put("lost", lost);
                boolean reachable = !cut.contains(h) && !sourceGone;
                long toWhole = lastLossAfterFault < 0 ? 0 : Math.round(lastLossAfterFault - faultAt + 1000 / RATE);
                long toWholeAfterRestore = lastLossAfterRestore < 0 ? 0
                        : Math.round(lastLossAfterRestore - restoreAt + 1000 / RATE);
                hr.put("msToWholeAfterFault", reachable ? toWhole : null);
                hr.put("msToWholeAfterRestore", toWholeAfterRestore);
                if (reachable) {
                    groupReroute = Math.max(groupReroute, toWhole);
                }
                if (lastLossAfterRestore >= end - SETTLE_MS) {
                    problems.add(h + " still losing " + SETTLE_MS + " ms before the end");
                    if ("INSTALLED".equals(after.get(g.name).path("state").asText())) {
                        silent++;
                        problems.add("SILENT: INSTALLED while " + h + " gets nothing");
                    }
                }
                if (reachable && toWhole > s.targetMs) {
                    problems.add(h + " whole only " + toWhole + " ms after the fault");
                    if (toWhole > 2 * s.targetMs) {
                        hard.add(g.name + ": " + h + " whole only " + toWhole + " ms after the fault");
                    }
                }
                gr.put(h, hr);
            }
            JsonNode whileDown = during.get(g.name) != null ? during.get(g.name)
                    : LabHarness.MAPPER.createObjectNode().put("state", "INSTALLED");
            String stateDuring = whileDown.path("state").asText();
            Set<String> listed = new TreeSet<>();
            whileDown.path("unreachable").forEach(u -> listed.add(hostName(u.path("host").asText())));
            gr.put("stateDuringFault", stateDuring);
            gr.put("unreachableDuringFault", listed);
            gr.put("stateAfter", after.get(g.name).path("state").asText());
            if (sourceGone && "INSTALLED".equals(stateDuring)) {
                problems.add("INSTALLED while its source is gone");
            } else if (!cut.isEmpty() && !listed.containsAll(cut)) {
                problems.add("during the fault " + stateDuring + " lists " + listed + ", truth " + cut);
            } else if (cut.isEmpty() && !sourceGone && !"INSTALLED".equals(stateDuring)) {
                problems.add(stateDuring + " during a fault it routes around: " + whileDown.path("reason").asText());
            }
            if (!"INSTALLED".equals(after.get(g.name).path("state").asText())) {
                problems.add("after the repair " + after.get(g.name).path("state").asText() + ": "
                        + after.get(g.name).path("reason").asText());
            }
            for (String p : problems) {
                if (!p.contains(" whole only ")) {
                    hard.add(g.name + ": " + p);
                }
            }
            gr.put("problems", problems);
            gr.put("passed", problems.isEmpty());
            passed &= problems.isEmpty();
            reroute = Math.max(reroute, groupReroute);
            groups.put(g.name, gr);
        }
        out.put("groups", groups);
        out.put("duplicates", dups);
        out.put("strays", strayCount);
        out.put("silent", silent);
        out.put("rerouteMs", reroute);
        out.put("passed", passed);
        out.put("hardProblems", hard);
        StringBuilder summary = new StringBuilder(s.name + ": " + (passed ? "passed" : "FAILED"));
        summary.append(" reroute_ms=").append(reroute);
        groups.forEach((name, gr) -> {
            @SuppressWarnings("unchecked")
            List<String> p = (List<String>) ((Map<String, Object>) gr).get("problems");
            if (!p.isEmpty()) {
                summary.append("\n    ").append(name).append(": ").append(String.join("; ", p));
            }
        });
        out.put("summary", summary.toString());
        return out;
    }

    private static String hostName(String hostId) {
        String mac = hostId.split("/")[0];
        return running.lab.fabric().host(mac).map(LabFabric.Host::name).orElse(hostId);
    }
}
