package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Measures the lab: group setup latency from the REST POST to INSTALLED over N groups created one
 * after another (client-side wall time and the group's own state history), and the flow and group
 * table entries per switch with 1, 100 and 1,000 TREE groups of random sources and receivers (created
 * in waves of 25, each wave installed before the next).
 *
 * <p>{@code java -cp mcast4ai-lab.jar org.mcast4ai.lab.SetupBench --fabric F [--base URL] [--out DIR]
 * [--joined-batches N]}: without {@code --base} it starts the lab in-process on a free port, programming up to
 * N queued flow batches together (1: one by one, the baseline).</p>
 */
public final class SetupBench {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int WAVE = 25;
    private static final Set<String> SETTLED = Set.of("INSTALLED", "DEGRADED", "FAILED", "WITHDRAWN");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;
    private final LabFabric fabric;
    private final Random random = new Random(42);
    private int seq;

    private SetupBench(URI base, LabFabric fabric) {
        this.base = base;
        this.fabric = fabric;
    }

    /**
     * Runs the measurements.
     *
     * @param args command line
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i], args[i + 1]);
        }
        if (!opts.containsKey("--fabric")) {
            System.err.println("usage: SetupBench --fabric FABRIC.json [--base URL] [--out DIR] "
                                       + "[--latency-groups 100] [--counts 1,100,1000]");
            System.exit(2);
        }
        LabFabric fabric = LabFabric.read(Path.of(opts.get("--fabric")));
        Path out = Path.of(opts.getOrDefault("--out", "tools/lab/out"));
        int latencyGroups = Integer.parseInt(opts.getOrDefault("--latency-groups", "100"));
        int[] counts = Arrays.stream(opts.getOrDefault("--counts", "1,100,1000").split(","))
                .mapToInt(Integer::parseInt).toArray();
        Lab lab = null;
        URI base;
        if (opts.containsKey("--base")) {
            base = URI.create(opts.get("--base").replaceAll("/?$", "/"));
        } else {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Lab.Settings settings = new Lab.Settings();
            settings.joinedBatches = Integer.parseInt(opts.getOrDefault("--joined-batches", "512"));
            lab = Lab.start(fabric, Ofctl.lab(), port, Lab.COMPONENTS, settings);
            base = lab.base();
        }
        try {
            ObjectNode report = new SetupBench(base, fabric).run(latencyGroups, counts);
            Files.createDirectories(out);
            Path file = out.resolve("bench-setup.json");
            Files.writeString(file, MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(report) + "\n");
            System.out.println("bench-setup: wrote " + file);
        } finally {
            if (lab != null) {
                lab.close();
            }
        }
    }

    private ObjectNode run(int latencyGroups, int[] counts) throws Exception {
        ObjectNode report = MAPPER.createObjectNode();
        report.put("fabric", fabric.name());
        staticFlows = settledFlows();
        report.put("staticFlows", staticFlows);
        report.set("latency", latency(latencyGroups));
        ArrayNode tables = report.putArray("tables");
        List<Long> live = new ArrayList<>();
        for (int target : counts) {
            List<Long> created = new ArrayList<>();
            long t0 = System.nanoTime();
            int failed = 0;
            while (live.size() + created.size() < target) {
                // waves, so that no group waits behind hundreds of others for its switches
                List<Long> wave = new ArrayList<>();
                while (wave.size() < WAVE && live.size() + created.size() + wave.size() < target) {
                    wave.add(create().path("id").asLong());
                }
                for (long id : wave) {
                    failed += "INSTALLED".equals(await(id).path("state").asText()) ? 0 : 1;
                }
                created.addAll(wave);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            live.addAll(created);
            ObjectNode t = entries();
            t.put("groups", target);
            t.put("notInstalled", failed);
            t.put("secondsToInstallBatch", Math.round(seconds * 100) / 100.0);
            tables.add(t);
            System.out.printf("bench-setup: %5d TREE groups (%d not INSTALLED, %.2f s for %d new): "
                                      + "flows sum %d max/switch %d, groups sum %d; per switch %s%n",
                              target, failed, seconds, created.size(), t.path("flowsSum").asInt(),
                              t.path("flowsMax").asInt(), t.path("groupsSum").asInt(), t.path("flows"));
        }
        report.put("flowsAfterWithdrawAll", withdrawAll(live));
        return report;
    }

    // flows the switches hold with no group: the static BITMAP tables the app pushes when it starts
    private int staticFlows;

    /** @return the switches' flow count once two reads 500 ms apart agree (at most 30 s) */
    private int settledFlows() throws InterruptedException {
        int last = -1;
        for (int i = 0; i < 60; i++) {
            int now = entries().path("flowsSum").asInt();
            if (now == last) {
                return now;
            }
            last = now;
            Thread.sleep(500);
        }
        return last;
    }

    /** Withdraws groups and waits until the switches hold no group's flow; returns the group flows left. */
    private int withdrawAll(List<Long> ids) throws Exception {
        for (long id : ids) {
            call("DELETE", "groups/" + id, null);
        }
        long deadline = System.currentTimeMillis() + 600_000;
        int left = entries().path("flowsSum").asInt() - staticFlows;
        while (left > 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(500);
            left = entries().path("flowsSum").asInt() - staticFlows;
        }
        return left;
    }

    private ObjectNode latency(int n) throws Exception {
        List<Double> client = new ArrayList<>();
        List<Long> server = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        int failed = 0;
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            JsonNode g = create();
            long id = g.path("id").asLong();
            g = await(id);
            double ms = (System.nanoTime() - t0) / 1e6;
            ids.add(id);
            if (!"INSTALLED".equals(g.path("state").asText())) {
                failed++;
                continue;
            }
            client.add(ms);
            long submitted = -1;
            long installed = -1;
            for (JsonNode h : g.path("history")) {
                if (submitted < 0 && "SUBMITTED".equals(h.path("state").asText())) {
                    submitted = h.path("timeMillis").asLong();
                }
                if ("INSTALLED".equals(h.path("state").asText())) {
                    installed = h.path("timeMillis").asLong();
                }
            }
            server.add(installed - submitted);
        }
        withdrawAll(ids);
        Collections.sort(client);
        Collections.sort(server);
        ObjectNode l = MAPPER.createObjectNode();
        l.put("groups", n);
        l.put("notInstalled", failed);
        l.put("clientP50Ms", round(pct(client, 50)));
        l.put("clientP99Ms", round(pct(client, 99)));
        l.put("clientMaxMs", round(client.isEmpty() ? 0 : client.get(client.size() - 1)));
        l.put("historyP50Ms", server.isEmpty() ? 0 : pctLong(server, 50));
        l.put("historyP99Ms", server.isEmpty() ? 0 : pctLong(server, 99));
        System.out.printf("bench-setup: setup latency over %d groups (POST -> INSTALLED): client p50 %.1f ms, "
                                  + "p99 %.1f ms, max %.1f ms; state history SUBMITTED->INSTALLED p50 %d ms, "
                                  + "p99 %d ms; %d not INSTALLED%n",
                          n, pct(client, 50), pct(client, 99), client.isEmpty() ? 0 : client.get(client.size() - 1),
                          l.path("historyP50Ms").asLong(), l.path("historyP99Ms").asLong(), failed);
        return l;
    }

    private static double pct(List<Double> sorted, int p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }

    private static long pctLong(List<Long> sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private JsonNode create() throws Exception {
        List<LabFabric.Host> hosts = new ArrayList<>(fabric.hosts());
        Collections.shuffle(hosts, random);
        LabFabric.Host source = hosts.get(0);
        int receivers = 1 + random.nextInt(hosts.size() - 1);
        ObjectNode body = MAPPER.createObjectNode();
        body.put("tenant", "bench");
        body.put("name", "g" + (++seq));
        body.put("jobId", "bench");
        body.putObject("source").put("host", source.ip());
        ArrayNode rx = body.putArray("receivers");
        hosts.subList(1, 1 + receivers).forEach(h -> rx.addObject().put("host", h.ip()));
        body.put("mode", "TREE");
        return call("POST", "groups", body.toString());
    }

    private JsonNode await(long id) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            JsonNode g = call("GET", "groups/" + id, null);
            if (SETTLED.contains(g.path("state").asText()) || System.currentTimeMillis() > deadline) {
                return g;
            }
            Thread.sleep(1);
        }
    }

    private JsonNode call(String method, String path, String body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(LabHttp.request(base, method, path, body, LabRealm.defaultAdmin(),
                Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new IOException(method + " " + path + " -> " + r.statusCode() + " " + r.body());
        }
        return MAPPER.readTree(r.body());
    }

    /** Flow and group entries per switch, read from the switches themselves. */
    private ObjectNode entries() {
        ObjectNode t = MAPPER.createObjectNode();
        ObjectNode flows = t.putObject("flows");
        ObjectNode groups = t.putObject("groupEntries");
        int sum = 0;
        int max = 0;
        int gsum = 0;
        for (LabFabric.Switch s : fabric.switches()) {
            int f = count(Ofctl.lab().run(List.of("dump-flows", s.bridge()), null), "cookie=");
            int g = count(Ofctl.lab().run(List.of("dump-groups", s.bridge()), null), "group_id=");
            flows.put(s.name(), f);
            groups.put(s.name(), g);
            sum += f;
            max = Math.max(max, f);
            gsum += g;
        }
        t.put("flowsSum", sum);
        t.put("flowsMax", max);
        t.put("groupsSum", gsum);
        return t;
    }

    private static int count(Ofctl.Result r, String marker) {
        if (!r.ok()) {
            throw new IllegalStateException("ovs-ofctl failed: " + r.errors());
        }
        return (int) r.output().lines().filter(l -> l.contains(marker)).count();
    }
}
