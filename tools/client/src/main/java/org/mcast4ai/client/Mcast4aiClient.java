package org.mcast4ai.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The mcast4ai REST API for job schedulers: create a group and wait until it delivers, change its receivers,
 * read it and its bit map, withdraw and purge it. One instance per controller address and user; thread-safe.
 * Every refusal is a {@link ClientException} carrying the API's status and message.
 */
public final class Mcast4aiClient {
    /** The API's path under an ONOS instance's web port. */
    public static final String PATH = "/onos/mcast4ai/";
    /** ONOS's web port. */
    public static final int PORT = 8181;

    private final ObjectMapper mapper = new ObjectMapper();
    private final HttpClient http;
    private final URI base;
    private final String authorization;
    private final Duration timeout;

    private Mcast4aiClient(URI base, String user, String password, Duration timeout) {
        this.base = base;
        this.authorization = "Basic " + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    /**
     * @param onos     {@code HOST}, {@code HOST:PORT} or the API's URL ({@code http://HOST:8181/onos/mcast4ai})
     * @param user     ONOS web user
     * @param password its password
     * @param timeout  how long one HTTP call may take
     * @return a client
     * @throws IllegalArgumentException if the address is not one of these forms
     */
    public static Mcast4aiClient connect(String onos, String user, String password, Duration timeout) {
        return new Mcast4aiClient(baseUri(onos), user, password, timeout);
    }

    /**
     * @param onos {@code HOST}, {@code HOST:PORT} or a URL
     * @return the API's base URI, ending with a slash
     * @throws IllegalArgumentException if it is none of these
     */
    static URI baseUri(String onos) {
        String s = onos.strip();
        if (!s.startsWith("http://") && !s.startsWith("https://")) {
            boolean bareIpv6 = s.indexOf(':') != s.lastIndexOf(':') && !s.startsWith("[");
            String hostPort = bareIpv6 ? "[" + s + "]" : s;
            s = "http://" + hostPort + (hostPort.matches(".*:\\d+$") ? "" : ":" + PORT) + PATH;
        }
        URI u;
        try {
            u = URI.create(s.endsWith("/") ? s : s + "/");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + onos + "' is not HOST, HOST:PORT or a URL");
        }
        if (u.getHost() == null) {
            throw new IllegalArgumentException("'" + onos + "' names no host");
        }
        return u;
    }

    /** @return the API's base URI */
    public URI base() {
        return base;
    }

    /**
     * Creates a group.
     *
     * @param spec what to create
     * @return the group as the API answered (its id, address and state)
     * @throws ClientException if the API refuses it
     */
    public JsonNode create(GroupSpec spec) throws ClientException {
        return call("POST", "groups", spec.toJson(mapper));
    }

    /**
     * @param id group id
     * @return the group
     * @throws ClientException 404 for an unknown group
     */
    public JsonNode group(long id) throws ClientException {
        return call("GET", "groups/" + id, null);
    }

    /**
     * @param filters any of tenant, name, jobId, state
     * @return the groups the caller may read that match every filter
     * @throws ClientException if a filter is refused
     */
    public List<JsonNode> groups(Map<String, String> filters) throws ClientException {
        StringBuilder q = new StringBuilder();
        for (Map.Entry<String, String> f : filters.entrySet()) {
            q.append(q.length() == 0 ? "?" : "&").append(f.getKey()).append('=')
                    .append(URLEncoder.encode(f.getValue(), StandardCharsets.UTF_8));
        }
        List<JsonNode> out = new ArrayList<>();
        call("GET", "groups" + q, null).path("groups").forEach(out::add);
        return out;
    }

    /**
     * @param tenant a tenant
     * @param name   a group name
     * @return the tenant's group of that name, if there is one
     * @throws ClientException if the API refuses the query
     */
    public Optional<JsonNode> find(String tenant, String name) throws ClientException {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("tenant", tenant);
        f.put("name", name);
        List<JsonNode> found = groups(f);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    /**
     * Adds receivers; adding a member again changes nothing.
     *
     * @param id        group id
     * @param receivers endpoints
     * @return the group
     * @throws ClientException if refused
     */
    public JsonNode addReceivers(long id, List<String> receivers) throws ClientException {
        return call("POST", "groups/" + id + "/receivers", receiverBody(receivers));
    }

    /**
     * Removes receivers; removing one that is not there changes nothing.
     *
     * @param id        group id
     * @param receivers endpoints
     * @return the group
     * @throws ClientException if refused
     */
    public JsonNode removeReceivers(long id, List<String> receivers) throws ClientException {
        return call("DELETE", "groups/" + id + "/receivers", receiverBody(receivers));
    }

    private ObjectNode receiverBody(List<String> receivers) {
        ObjectNode body = mapper.createObjectNode();
        ArrayNode rs = body.putArray("receivers");
        receivers.forEach(r -> rs.add(Endpoints.json(mapper, r)));
        return body;
    }

    /**
     * @param id a BITMAP group
     * @return its bit map and stamp
     * @throws ClientException 409 if the group is not installed as BITMAP
     */
    public JsonNode bitmap(long id) throws ClientException {
        return call("GET", "groups/" + id + "/bitmap", null);
    }

    /**
     * @param id group id
     * @return what is installed for it
     * @throws ClientException if refused
     */
    public JsonNode plan(long id) throws ClientException {
        return call("GET", "groups/" + id + "/plan", null);
    }

    /**
     * The aggregation contexts of live ACK_AGGREGATION groups, what an aggregation agent configures.
     *
     * @param source only groups whose sender is this host (name, IP or MAC); null for all the caller may read
     * @return the contexts
     * @throws ClientException if refused
     */
    public List<JsonNode> aggregations(String source) throws ClientException {
        JsonNode r = call("GET", "aggregation" + (source == null ? ""
                : "?source=" + java.net.URLEncoder.encode(source, java.nio.charset.StandardCharsets.UTF_8)), null);
        List<JsonNode> out = new ArrayList<>();
        r.path("groups").forEach(out::add);
        return out;
    }

    /**
     * @param id an ACK_AGGREGATION group
     * @return its aggregation context, with the aggregation point's last report
     * @throws ClientException if refused
     */
    public JsonNode aggregation(long id) throws ClientException {
        return call("GET", "aggregation/" + id, null);
    }

    /**
     * Reports an aggregation point's counters, stalled receivers and join PSNs for a group.
     *
     * @param id     group id
     * @param report the report ({@code {"agent", "counters", "stalled", "joinPsn", "sentNext", "acked"}})
     * @throws ClientException if refused
     */
    public void reportAggregation(long id, JsonNode report) throws ClientException {
        call("POST", "aggregation/" + id, report);
    }

    /**
     * @param id group id
     * @return the group, being installed again against the current fabric
     * @throws ClientException if refused
     */
    public JsonNode recompile(long id) throws ClientException {
        return call("POST", "groups/" + id + "/recompile", null);
    }

    /**
     * Withdraws a group; its record stays until purged.
     *
     * @param id group id
     * @return the group
     * @throws ClientException if refused
     */
    public JsonNode withdraw(long id) throws ClientException {
        return call("DELETE", "groups/" + id, null);
    }

    /**
     * Withdraws a group and removes its record, freeing its name and address: repeats the call while the
     * withdrawal is in progress.
     *
     * @param id   group id
     * @param wait how long the withdrawal may take
     * @throws ClientException if refused or not done in time
     */
    public void purge(long id, Duration wait) throws ClientException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            HttpResponse<String> r = send("DELETE", "groups/" + id + "?purge=true", null);
            if (r.statusCode() == 204) {
                return;
            }
            check(r);
            if (System.nanoTime() > deadline) {
                throw new ClientException(ClientException.Reason.TIMEOUT, 0, "group " + id + " is still "
                        + parse(r).path("state").asText() + " after " + wait.toSeconds() + " s");
            }
            sleep();
        }
    }

    /**
     * Waits until a group is INSTALLED.
     *
     * @param id             group id
     * @param wait           how long to wait
     * @param allowDegraded  whether DEGRADED (some receivers unreachable) counts as done
     * @return the group
     * @throws ClientException FAILED with the group's reason, DEGRADED with the unreachable receivers, TIMEOUT
     *                         with the state it was in
     */
    public JsonNode awaitInstalled(long id, Duration wait, boolean allowDegraded) throws ClientException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            JsonNode g = group(id);
            String state = g.path("state").asText();
            if (state.equals("INSTALLED") || state.equals("DEGRADED") && allowDegraded) {
                return g;
            }
            if (state.equals("FAILED") || state.equals("WITHDRAWN") || state.equals("WITHDRAWING")) {
                throw new ClientException(ClientException.Reason.FAILED, 0, "group " + id + " is " + state
                        + (g.path("reason").asText().isEmpty() ? "" : ": " + g.path("reason").asText()));
            }
            if (state.equals("DEGRADED")) {
                List<String> unreachable = new ArrayList<>();
                g.path("unreachable").forEach(u -> unreachable.add(u.isTextual() ? u.asText()
                        : u.path("host").asText()));
                throw new ClientException(ClientException.Reason.DEGRADED, 0, "group " + id + " is DEGRADED: "
                        + unreachable.size() + " receivers unreachable " + unreachable);
            }
            if (System.nanoTime() > deadline) {
                throw new ClientException(ClientException.Reason.TIMEOUT, 0, "group " + id + " is still "
                        + state + " after " + wait.toSeconds() + " s");
            }
            sleep();
        }
    }

    private static void sleep() throws ClientException {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException(ClientException.Reason.TIMEOUT, 0, "interrupted");
        }
    }

    private JsonNode call(String method, String path, JsonNode body) throws ClientException {
        HttpResponse<String> r = send(method, path, body);
        check(r);
        return parse(r);
    }

    private JsonNode parse(HttpResponse<String> r) throws ClientException {
        if (r.body().isBlank()) {
            return mapper.createObjectNode();
        }
        try {
            return mapper.readTree(r.body());
        } catch (IOException e) {
            throw new ClientException(ClientException.Reason.UNREACHABLE, r.statusCode(),
                    "not the mcast4ai API at " + base + ": the answer is not JSON");
        }
    }

    private void check(HttpResponse<String> r) throws ClientException {
        int status = r.statusCode();
        if (status < 400) {
            return;
        }
        String message;
        try {
            message = mapper.readTree(r.body()).path("message").asText("");
        } catch (IOException e) {
            message = "";
        }
        if (message.isEmpty()) {
            message = status == 401 ? "wrong or missing credentials" : status == 404
                    ? "not found (is the mcast4ai app active at " + base + "?)" : "HTTP " + status;
        }
        throw new ClientException(ClientException.Reason.REFUSED, status, message);
    }

    private HttpResponse<String> send(String method, String path, JsonNode body) throws ClientException {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout)
                .header("Authorization", authorization).header("Accept", "application/json");
        if (body != null) {
            b.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new ClientException(ClientException.Reason.UNREACHABLE, 0, "cannot reach " + base + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException(ClientException.Reason.UNREACHABLE, 0, "interrupted");
        }
    }
}
