package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The lab's REST API under load, on the lab runner in-process: GET of one group and create+withdraw+purge
 * cycles (TREE groups of two receivers, the switches programmed for real), one client and 16 at once, each
 * client on its own keep-alive connection. Whether the server sets TCP_NODELAY is the JVM's
 * {@code sun.net.httpserver.nodelay} ({@code tools/lab/bench-rest} runs both in one invocation).
 *
 * <p>{@code java -cp mcast4ai-lab.jar org.mcast4ai.lab.RestBench --fabric F [--seconds S]}</p>
 */
public final class RestBench {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    // how often a client asks for a group's state while it waits (a scheduler would, 16 at a time)
    private static final long POLL_MS = 10;

    private final URI base;
    private final LabFabric fabric;

    private RestBench(URI base, LabFabric fabric) {
        this.base = base;
        this.fabric = fabric;
    }

    /**
     * @param args {@code --fabric F [--seconds S]}
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        String fabricFile = null;
        double seconds = 5;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--fabric")) {
                fabricFile = args[i + 1];
            } else if (args[i].equals("--seconds")) {
                seconds = Double.parseDouble(args[i + 1]);
            }
        }
        if (fabricFile == null) {
            System.err.println("usage: RestBench --fabric FABRIC.json [--seconds 5]");
            System.exit(2);
        }
        LabFabric fabric = LabFabric.read(Path.of(fabricFile));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (Lab lab = Lab.start(fabric, Ofctl.lab(), port, Lab.COMPONENTS)) {
            new RestBench(lab.base(), fabric).run(seconds);
        }
    }

    private void run(double seconds) throws Exception {
        String nodelay = System.getProperty("sun.net.httpserver.nodelay", "true");
        long id = create(HttpClient.newHttpClient(), "probe");
        for (int clients : new int[]{1, 16}) {
            Result get = load(clients, seconds, (c, n) -> {
                call(c, "GET", "groups/" + id, null, 200);
            });
            Result churn = load(clients, seconds, (c, n) -> {
                long g = create(c, "c" + Thread.currentThread().getId() + "-" + n);
                call(c, "DELETE", "groups/" + g, null, 200);
                awaitWithdrawn(c, g);
                call(c, "DELETE", "groups/" + g + "?purge=true", null, 204);
            });
            System.out.printf(Locale.ROOT, "bench-rest: nodelay=%s clients=%2d | GET %7.0f/s p50 %6.2f ms p99 %6.2f ms"
                    + " | create+withdraw+purge %6.1f/s p50 %6.1f ms p99 %6.1f ms%n", nodelay, clients,
                    get.perSecond, get.p50, get.p99, churn.perSecond, churn.p50, churn.p99);
        }
    }

    /** One client's unit of work. */
    private interface Work {
        void run(HttpClient client, long n) throws Exception;
    }

    /** Rate and latency of one load. */
    private static final class Result {
        double perSecond;
        double p50;
        double p99;
    }

    private Result load(int clients, double seconds, Work work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        AtomicLong done = new AtomicLong();
        long end = System.nanoTime() + (long) (seconds * 1e9);
        List<Future<?>> futures = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            futures.add(pool.submit(() -> {
                // its own client: its own keep-alive connection
                HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                long n = 0;
                while (System.nanoTime() < end) {
                    long s = System.nanoTime();
                    work.run(c, n++);
                    latencies.add((System.nanoTime() - s) / 1e6);
                    done.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        List<Double> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        Result r = new Result();
        r.perSecond = done.get() / wall;
        r.p50 = sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
        r.p99 = sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, (int) (sorted.size() * 0.99)));
        return r;
    }

    private long create(HttpClient c, String name) throws Exception {
        List<LabFabric.Host> hosts = fabric.hosts();
        String body = "{\"tenant\":\"bench\",\"name\":\"" + name + "\",\"source\":\"" + hosts.get(0).ip()
                + "\",\"receivers\":[\"" + hosts.get(3).ip() + "\",\"" + hosts.get(5).ip() + "\"],\"mode\":\"TREE\"}";
        long id = call(c, "POST", "groups", body, 201).path("id").asLong();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!"INSTALLED".equals(call(c, "GET", "groups/" + id, null, 200).path("state").asText())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("group " + id + " not INSTALLED within 30 s");
            }
            Thread.sleep(POLL_MS);
        }
        return id;
    }

    private void awaitWithdrawn(HttpClient c, long id) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!"WITHDRAWN".equals(call(c, "GET", "groups/" + id, null, 200).path("state").asText())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("group " + id + " not WITHDRAWN within 30 s");
            }
            Thread.sleep(POLL_MS);
        }
    }

    private JsonNode call(HttpClient c, String method, String path, String body, int expect) throws Exception {
        HttpResponse<String> r = c.send(LabHttp.request(base, method, path, body, LabRealm.defaultAdmin(),
                Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != expect) {
            throw new IllegalStateException(method + " " + path + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body().isEmpty() ? MAPPER.createObjectNode() : MAPPER.readTree(r.body());
    }
}
