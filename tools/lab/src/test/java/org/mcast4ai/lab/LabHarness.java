package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assertions;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Test support for the real Open vSwitch lab: commands, the fabric script, REST calls over real
 * HTTP and the packet checker.
 */
final class LabHarness {

    static final ObjectMapper MAPPER = new ObjectMapper();
    static final Set<String> SETTLED = Set.of("INSTALLED", "DEGRADED", "FAILED", "WITHDRAWN");

    private LabHarness() {
    }

    /** Repository root (set by surefire, or found from the working directory). */
    static Path root() {
        String p = System.getProperty("mcast4ai.root");
        if (p != null) {
            return Path.of(p).toAbsolutePath().normalize();
        }
        Path cwd = Path.of("").toAbsolutePath();
        return Files.exists(cwd.resolve("tools/lab/fabric")) ? cwd : cwd.resolve("../..").normalize();
    }

    /** Result of a command. */
    static final class Run {
        final int code;
        final String out;

        Run(int code, String out) {
            this.code = code;
            this.out = out;
        }
    }

    static Run run(List<String> cmd, long timeoutSeconds) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Run(-1, "timed out: " + cmd);
            }
            return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Run(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Run(-1, "interrupted");
        }
    }

    static boolean isRoot() {
        Run r = run(List.of("id", "-u"), 5);
        return r.code == 0 && r.out.trim().equals("0");
    }

    static boolean ovsRunning() {
        return run(List.of("ovs-vsctl", "--timeout=5", "show"), 10).code == 0;
    }

    /**
     * The lab is one machine-wide resource ({@code fabric up} removes any previous lab): wait a while
     * for a lab someone else is using (m4 bridges) to go away before building ours.
     */
    static void waitForNoOtherLab(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            Run r = run(List.of("ovs-vsctl", "--timeout=5", "list-br"), 10);
            if (r.code != 0 || r.out.lines().noneMatch(b -> b.startsWith("m4"))) {
                return;
            }
            Thread.sleep(1000);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Flow entries of a bridge (dump-flows lines that are flows). */
    static List<String> flows(String bridge) {
        Run r = run(List.of("ovs-ofctl", "-O", "OpenFlow13", "dump-flows", bridge), 10);
        if (r.code != 0) {
            throw new AssertionError("dump-flows " + bridge + " failed: " + r.out);
        }
        List<String> flows = new ArrayList<>();
        for (String line : r.out.split("\n")) {
            if (line.contains("cookie=")) {
                flows.add(line.trim());
            }
        }
        return flows;
    }

    /** A tiny REST client over java.net.http. */
    static final class Rest {
        private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        private final URI base;

        Rest(URI base) {
            this.base = base;
        }

        JsonNode call(String method, String path, String body, int expectStatus) throws Exception {
            HttpResponse<String> r = send(method, path, body);
            if (r.statusCode() != expectStatus) {
                throw new AssertionError(method + " " + path + " -> " + r.statusCode() + " " + r.body());
            }
            return r.body().isBlank() ? MAPPER.createObjectNode() : MAPPER.readTree(r.body());
        }

        // the status of a call that may answer any of several codes
        int status(String method, String path, String body, int... accepted) throws Exception {
            HttpResponse<String> r = send(method, path, body);
            for (int a : accepted) {
                if (r.statusCode() == a) {
                    return a;
                }
            }
            throw new AssertionError(method + " " + path + " -> " + r.statusCode() + " " + r.body());
        }

        private HttpResponse<String> send(String method, String path, String body) throws Exception {
            HttpRequest request = LabHttp.request(base, method, path, body, LabRealm.defaultAdmin(),
                    Duration.ofSeconds(20)).header("Accept", "application/json").build();
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        }

        JsonNode await(long id, long timeoutMs) throws Exception {
            long deadline = System.currentTimeMillis() + timeoutMs;
            JsonNode g;
            do {
                g = call("GET", "groups/" + id, null, 200);
                if (SETTLED.contains(g.path("state").asText())) {
                    return g;
                }
                Thread.sleep(5);
            } while (System.currentTimeMillis() < deadline);
            throw new AssertionError("group " + id + " did not settle: " + g);
        }
    }

    static String hostsJson(List<String> hosts) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < hosts.size(); i++) {
            sb.append(i == 0 ? "" : ",").append("{\"host\":\"").append(hosts.get(i)).append("\"}");
        }
        return sb.append(']').toString();
    }

    static String groupJson(String name, String source, List<String> receivers) {
        return "{\"tenant\":\"lab\",\"name\":\"" + name + "\",\"jobId\":\"job-it\",\"source\":{\"host\":\""
                + source + "\"},\"receivers\":" + hostsJson(receivers) + ",\"mode\":\"TREE\"}";
    }

    /** Sends real RoCEv2 packets with tools/traffic/deliver.py and returns its summary line. */
    static JsonNode deliver(Path fabricFile, String source, String group, List<String> members, int count)
            throws IOException {
        return deliver(fabricFile, source, group, members, count, null);
    }

    /**
     * Like {@link #deliver(Path, String, String, List, int)}, with the sender's Ethernet source address set
     * (a BITMAP subset stamp).
     *
     * @param fabricFile fabric description
     * @param source     sending host
     * @param group      group address
     * @param members    hosts that should receive
     * @param count      packets
     * @param srcMac     Ethernet source to send with, or null for the host's own
     * @return the summary line, with the per-host counts under {@code hosts}
     * @throws IOException if the output is not JSON
     */
    static JsonNode deliver(Path fabricFile, String source, String group, List<String> members, int count,
                            String srcMac) throws IOException {
        Path script = root().resolve("tools/traffic/deliver.py");
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/python3", script.toString(), "--fabric",
                fabricFile.toString(), "--source", source, "--group", group, "--members", String.join(",", members),
                "--count", Integer.toString(count)));
        if (srcMac != null) {
            cmd.addAll(List.of("--src-mac", srcMac));
        }
        Run r = run(cmd, 120);
        String[] lines = r.out.trim().split("\n");
        if (r.code != 0 || lines.length < 2) {
            throw new AssertionError("deliver.py failed (" + r.code + "): " + r.out);
        }
        JsonNode summary = MAPPER.readTree(lines[lines.length - 1]);
        JsonNode perHost = MAPPER.readTree(lines[lines.length - 2]);
        ((com.fasterxml.jackson.databind.node.ObjectNode) summary).set("hosts", perHost);
        return summary;
    }

    /**
     * @param summary   a {@link #deliver} summary
     * @param receivers how many hosts should have received
     */
    static void assertExactlyOnce(JsonNode summary, int receivers) {
        Assertions.assertEquals(receivers, summary.path("receivers").asInt(), summary.toString());
        Assertions.assertEquals(receivers, summary.path("delivered").asInt(), summary.toString());
        Assertions.assertEquals(0, summary.path("duplicates").asInt(), summary.toString());
        Assertions.assertEquals(0, summary.path("strays").asInt(), summary.toString());
    }

    /**
     * The default lab fabric brought up from {@code tools/lab/fabric} and the lab runner on it, for one test
     * class; {@link #close()} stops the runner and tears the fabric down, also after a failed start.
     */
    static final class RunningLab implements AutoCloseable {
        final Path fabricFile;
        private boolean fabricUp;
        Lab lab;
        Rest rest;
        Lab.Settings settings;

        private RunningLab(Path fabricFile) {
            this.fabricFile = fabricFile;
        }

        /**
         * Waits for any other lab to go, brings the fabric up and starts the runner; skips (JUnit assumption)
         * when not root or Open vSwitch cannot run here.
         *
         * @param dirName folder under tools/lab/target for the fabric description
         * @param waitMs  how long to wait for another lab
         * @return the running lab
         * @throws Exception if the fabric or the runner cannot start
         */
        static RunningLab start(String dirName, long waitMs) throws Exception {
            return start(dirName, waitMs, new Lab.Settings());
        }

        /**
         * Like {@link #start(String, long)}, with the lab's settings (poll periods, a store kept in a file).
         *
         * @param dirName  folder under tools/lab/target for the fabric description
         * @param waitMs   how long to wait for another lab
         * @param settings the lab's settings
         * @return the running lab
         * @throws Exception if the fabric or the runner cannot start
         */
        static RunningLab start(String dirName, long waitMs, Lab.Settings settings) throws Exception {
            org.junit.jupiter.api.Assumptions.assumeTrue(isRoot(), "the Open vSwitch lab needs root");
            Path dir = root().resolve("tools/lab/target").resolve(dirName);
            Files.createDirectories(dir);
            RunningLab l = new RunningLab(dir.resolve("fabric.json"));
            waitForNoOtherLab(waitMs);
            Run r = run(List.of(root().resolve("tools/lab/fabric").toString(), "up",
                                "--out", l.fabricFile.toString()), 300);
            l.fabricUp = true;
            try {
                if (r.code != 0) {
                    org.junit.jupiter.api.Assumptions.assumeTrue(ovsRunning(),
                            "Open vSwitch cannot start here: " + r.out);
                    throw new AssertionError("fabric up failed: " + r.out);
                }
                l.settings = settings;
                l.lab = Lab.start(LabFabric.read(l.fabricFile), Ofctl.lab(), freePort(), Lab.COMPONENTS, settings);
                l.rest = new Rest(l.lab.base());
                return l;
            } catch (Exception | Error e) {
                l.close();
                throw e;
            }
        }

        /** Stops the lab runner (the switches keep what they hold; the store stays in its file, if any). */
        void stopRunner() {
            if (lab != null) {
                lab.close();
                lab = null;
            }
        }

        /**
         * Starts the lab runner again on the same fabric and settings, on a new port.
         *
         * @throws Exception if it cannot start
         */
        void startRunner() throws Exception {
            lab = Lab.start(LabFabric.read(fabricFile), Ofctl.lab(), freePort(), Lab.COMPONENTS, settings);
            rest = new Rest(lab.base());
        }

        @Override
        public void close() {
            try {
                if (lab != null) {
                    lab.close();
                }
            } finally {
                if (fabricUp) {
                    fabricUp = false;
                    run(List.of(root().resolve("tools/lab/fabric").toString(), "down",
                                "--fabric", fabricFile.toString()), 120);
                }
            }
        }
    }
}
