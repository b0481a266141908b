package org.mcast4ai.lab;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Random requests over every endpoint of the REST API, as random callers (the administrator, two tenant users,
 * no credentials, a wrong password), bounded in count. Each answer is checked: never a 5xx, never past the
 * deadline, never a stack trace; a refused request changes no group (what was asked for it, or whether it is
 * live: states and versions move on their own while switches answer); a tenant user's request never changes,
 * shows or lists another tenant's group; the group list always parses as strict JSON.
 *
 * <p>{@code java -cp mcast4ai-lab.jar org.mcast4ai.lab.RestFuzz --base URL --hosts SRC,H2,... [--count N]
 * [--seed S] [--admin USER:PW] [--tenant T=USER:PW]...} prints one line
 * {@code rest-fuzz: requests=N accepted=A refused=R 5xx=F hangs=H changed_by_refusal=X cross_tenant=C} and exits
 * non-zero if any check failed.
 */
public final class RestFuzz {
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final List<String> METHODS = List.of("GET", "POST", "DELETE", "PUT");
    private static final List<String> IDS = List.of("1", "2", "3", "4", "99", "0", "01", "+1", "-1", "1%00", "%20",
            "abc", "99999999999999999999", "1.0", "%F0%9F%98%80", "1;2");
    private static final List<String> TAILS = List.of("", "/receivers", "/plan", "/bitmap", "/recompile", "/x");
    private static final List<String> QUERIES = List.of("", "?purge=true", "?purge=false", "?purge=yes",
            "?tenant=t1", "?tenant=t1&name=g1", "?tenant=t2", "?jobId=j", "?job=j&jobId=j", "?state=INSTALLED",
            "?state=DONE", "?host=H2", "?host=H3&host=10.255.255.254", "?x=1", "?purge", "?tenant=%00");
    private static final List<String> VALUES = List.of("null", "true", "0", "-1", "1", "2", "16777216",
            "1e400", "99999999999999999999999", "\"\"", "\" \"", "\"H2\"", "\"10.255.255.254\"", "\"\\u0000\"",
            "\"\\ud800\"", "\"a\\r\\nb\"", "[]", "{}", "[\"H3\"]", "[{\"host\":\"H4\",\"qpn\":0}]",
            "{\"host\":null}", "\"TREE\"", "\"BITMAP\"", "\"AUTO\"", "\"STAR\"", "\"ACK_AGGREGATION\"");
    private static final List<String> FIELDS = List.of("tenant", "name", "jobId", "source", "receivers", "mode",
            "reliability", "priority", "host", "qpn", "x");

    /** Who sends a request: credentials and the tenant it holds (null: the administrator or nobody). */
    public static final class Caller {
        final String name;
        final String authorization;
        final String tenant;

        /**
         * @param name          for messages
         * @param authorization the Authorization header, or null
         * @param tenant        the one tenant the caller holds, or null for the administrator and non-users
         */
        public Caller(String name, String authorization, String tenant) {
            this.name = name;
            this.authorization = authorization;
            this.tenant = tenant;
        }
    }

    /** What a run found. */
    public static final class Result {
        /** Requests sent. */
        public int requests;
        /** Answered 2xx or 3xx. */
        public int accepted;
        /** Answered 4xx. */
        public int refused;
        /** Answered 5xx. */
        public int serverErrors;
        /** Not answered within the deadline. */
        public int hangs;
        /** Refused but a group changed. */
        public int changedByRefusal;
        /** A tenant user changed, saw or listed another tenant's group. */
        public int crossTenant;
        /** Answers that leaked a stack trace or a list that is not strict JSON. */
        public int malformed;
        /** The first problems, for the message. */
        public final List<String> problems = new ArrayList<>();

        /** @return whether every check held */
        public boolean clean() {
            return serverErrors == 0 && hangs == 0 && changedByRefusal == 0 && crossTenant == 0 && malformed == 0;
        }

        @Override
        public String toString() {
            return String.format("rest-fuzz: requests=%d accepted=%d refused=%d 5xx=%d hangs=%d "
                            + "changed_by_refusal=%d cross_tenant=%d malformed=%d", requests, accepted, refused,
                    serverErrors, hangs, changedByRefusal, crossTenant, malformed);
        }
    }

    private final URI base;
    private final Caller admin;
    private final List<Caller> callers;
    private final List<String> hosts;
    private final Random rnd;
    private final Duration deadline;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * @param base     the API's base URI (ends with a slash)
     * @param admin    the administrator, who reads the groups between requests
     * @param callers  who sends the random requests
     * @param hosts    fabric hosts: the source first, then at least three more
     * @param seed     random seed
     * @param deadline how long one request may take before it counts as a hang
     */
    public RestFuzz(URI base, Caller admin, List<Caller> callers, List<String> hosts, long seed, Duration deadline) {
        if (hosts.size() < 4) {
            throw new IllegalArgumentException("the fuzz needs a source and three more hosts");
        }
        this.base = base;
        this.admin = admin;
        this.callers = List.copyOf(callers);
        this.hosts = List.copyOf(hosts);
        this.rnd = new Random(seed);
        this.deadline = deadline;
    }

    private <T> T pick(List<T> l) {
        return l.get(rnd.nextInt(l.size()));
    }

    private String withHosts(String s) {
        return s.replace("H2", hosts.get(1)).replace("H3", hosts.get(2)).replace("H4", hosts.get(3));
    }

    private String body() {
        switch (rnd.nextInt(8)) {
            case 0:
                return null;
            case 1:
                return "";
            case 2:
                return "[".repeat(rnd.nextInt(20_000)) + "]";
            case 3:
                StringBuilder junk = new StringBuilder();
                for (int i = rnd.nextInt(200); i > 0; i--) {
                    junk.append((char) rnd.nextInt(0x3000));
                }
                return junk.toString();
            default:
                // a valid request with some fields replaced, dropped or added
                StringBuilder b = new StringBuilder("{");
                Map<String, String> fields = new TreeMap<>(Map.of("tenant", "\"t" + rnd.nextInt(3) + "\"",
                        "name", "\"g" + rnd.nextInt(5) + "\"", "jobId", "\"j\"", "source",
                        "\"" + hosts.get(0) + "\"", "receivers",
                        "[\"" + hosts.get(1 + rnd.nextInt(hosts.size() - 1)) + "\"]"));
                for (int i = rnd.nextInt(4); i > 0; i--) {
                    String f = pick(FIELDS);
                    if (rnd.nextInt(3) == 0) {
                        fields.remove(f);
                    } else {
                        fields.put(f, withHosts(pick(VALUES)));
                    }
                }
                fields.forEach((k, v) -> b.append(b.length() > 1 ? "," : "").append('"').append(k).append("\":")
                        .append(v));
                return b.append('}').toString();
        }
    }

    /**
     * A group as the administrator sees it: its tenant, what was asked for it and whether it is live. States
     * and versions move on their own while switches answer, so they are not what a request changed.
     */
    private static final class Seen {
        private static final List<String> ASKED = List.of("tenant", "name", "jobId", "source", "receivers", "mode",
                "reliability", "priority");
        final String tenant;
        final String asked;

        Seen(JsonNode group) {
            this.tenant = group.path("tenant").asText();
            StringBuilder b = new StringBuilder();
            ASKED.forEach(f -> b.append(group.path(f)).append('|'));
            String state = group.path("state").asText();
            this.asked = b.append(state.equals("WITHDRAWING") || state.equals("WITHDRAWN") ? "withdrawn" : "live")
                    .toString();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Seen && ((Seen) o).asked.equals(asked);
        }

        @Override
        public int hashCode() {
            return asked.hashCode();
        }
    }

    private Map<Long, Seen> groups(Result result) throws IOException, InterruptedException {
        HttpResponse<String> r = send(admin, "GET", "groups", null);
        Map<Long, Seen> out = new TreeMap<>();
        JsonNode list;
        try {
            list = STRICT.readTree(r.body());
        } catch (IOException e) {
            problem(result, "the group list is not strict JSON: " + e.getMessage());
            result.malformed++;
            return out;
        }
        if (r.body().chars().anyMatch(c -> Character.isSurrogate((char) c))) {
            problem(result, "the group list carries a lone surrogate");
            result.malformed++;
        }
        list.path("groups").forEach(g -> out.put(g.path("id").asLong(), new Seen(g)));
        return out;
    }

    private HttpResponse<String> send(Caller c, String method, String path, String body)
            throws IOException, InterruptedException {
        return http.send(LabHttp.request(base, method, path, body, c.authorization, deadline).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void problem(Result r, String what) {
        if (r.problems.size() < 10) {
            r.problems.add(what);
        }
    }

    /**
     * Sends the requests and checks every answer.
     *
     * @param requests how many
     * @return what was found
     * @throws IOException          if the administrator's reads fail
     * @throws InterruptedException if interrupted
     */
    public Result run(int requests) throws IOException, InterruptedException {
        Result result = new Result();
        Map<Long, Seen> before = groups(result);
        for (int i = 0; i < requests; i++) {
            Caller caller = pick(callers);
            String method = pick(METHODS);
            List<Long> ids = new ArrayList<>(before.keySet());
            String id = !ids.isEmpty() && rnd.nextInt(3) == 0 ? Long.toString(pick(ids)) : pick(IDS);
            String path = rnd.nextInt(10) == 0 ? pick(List.of("reconcile", "groups", "nothing", "groups/"))
                    : rnd.nextInt(4) == 0 ? "groups" : "groups/" + id + pick(TAILS);
            String url = path + (rnd.nextBoolean() ? "" : withHosts(pick(QUERIES)));
            String body = body();
            String what = caller.name + " " + method + " " + url + " "
                    + (body == null ? "" : body.substring(0, Math.min(120, body.length())));
            HttpResponse<String> r;
            try {
                r = send(caller, method, url, body);
            } catch (IllegalArgumentException e) {
                continue; // a URL the client itself refuses to send
            } catch (HttpTimeoutException e) {
                result.requests++;
                result.hangs++;
                problem(result, "no answer within " + deadline.toMillis() + " ms: " + what);
                continue;
            }
            result.requests++;
            int status = r.statusCode();
            if (status >= 500) {
                result.serverErrors++;
                problem(result, status + ": " + what + " -> " + r.body());
            } else if (status >= 400) {
                result.refused++;
            } else {
                result.accepted++;
            }
            if (r.body().contains("\tat ") || r.body().contains("Exception")) {
                result.malformed++;
                problem(result, "stack trace or class name: " + what + " -> " + r.body());
            }
            Map<Long, Seen> after = groups(result);
            if (status >= 400 && !after.equals(before)) {
                result.changedByRefusal++;
                problem(result, "refused but groups changed: " + what + " -> " + status);
            }
            if (caller.tenant != null) {
                checkTenant(result, caller, before, after, status, r.body(), what);
            }
            before = after;
        }
        return result;
    }

    private static void checkTenant(Result result, Caller caller, Map<Long, Seen> before, Map<Long, Seen> after,
                                    int status, String body, String what) {
        for (Map.Entry<Long, Seen> e : before.entrySet()) {
            if (!e.getValue().tenant.equals(caller.tenant) && !e.getValue().equals(after.get(e.getKey()))) {
                result.crossTenant++;
                problem(result, caller.name + " changed group " + e.getKey() + " of " + e.getValue().tenant
                        + ": " + what);
            }
        }
        for (Map.Entry<Long, Seen> e : after.entrySet()) {
            if (!before.containsKey(e.getKey()) && !e.getValue().tenant.equals(caller.tenant)) {
                result.crossTenant++;
                problem(result, caller.name + " created group " + e.getKey() + " for " + e.getValue().tenant);
            }
        }
        if (status < 300) {
            try {
                JsonNode answer = STRICT.readTree(body);
                List<JsonNode> shown = new ArrayList<>();
                if (answer.has("groups")) {
                    answer.get("groups").forEach(shown::add);
                } else if (answer.has("tenant")) {
                    shown.add(answer);
                } else if (answer.has("groupId")) {
                    Seen s = before.get(answer.get("groupId").asLong());
                    if (s != null && !s.tenant.equals(caller.tenant)) {
                        result.crossTenant++;
                        problem(result, caller.name + " read the bit map of a group of " + s.tenant + ": " + what);
                    }
                }
                for (JsonNode g : shown) {
                    if (!g.path("tenant").asText().equals(caller.tenant)) {
                        result.crossTenant++;
                        problem(result, caller.name + " saw group " + g.path("id") + " of "
                                + g.path("tenant").asText() + ": " + what);
                    }
                }
            } catch (IOException e) {
                // an empty 204 or a plan: nothing to attribute
            }
        }
    }

    /**
     * Runs the fuzz from the command line.
     *
     * @param args see the class comment
     * @throws Exception if the administrator's reads fail
     */
    public static void main(String[] args) throws Exception {
        URI base = null;
        List<String> hosts = null;
        int count = 1500;
        long seed = 20261201;
        String adminCredentials = "onos:rocks";
        List<Caller> callers = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--base":
                    String b = args[++i];
                    base = URI.create(b.endsWith("/") ? b : b + "/");
                    break;
                case "--hosts":
                    hosts = List.of(args[++i].split(","));
                    break;
                case "--count":
                    count = Integer.parseInt(args[++i]);
                    break;
                case "--seed":
                    seed = Long.parseLong(args[++i]);
                    break;
                case "--admin":
                    adminCredentials = args[++i];
                    break;
                case "--tenant":
                    String[] t = args[++i].split("=", 2);
                    String[] up = t[1].split(":", 2);
                    callers.add(new Caller(up[0], LabRealm.basic(up[0], up[1]), t[0]));
                    break;
                default:
                    System.err.println("rest-fuzz: unknown argument " + args[i]);
                    System.exit(2);
            }
        }
        if (base == null || hosts == null) {
            System.err.println("usage: RestFuzz --base URL --hosts SRC,H2,H3,H4 [--count N] [--seed S] "
                    + "[--admin USER:PW] [--tenant T=USER:PW]...");
            System.exit(2);
        }
        String[] a = adminCredentials.split(":", 2);
        Caller admin = new Caller(a[0], LabRealm.basic(a[0], a[1]), null);
        callers.add(admin);
        callers.add(new Caller("anonymous", null, null));
        callers.add(new Caller("wrong-password", LabRealm.basic(a[0], a[1] + "x"), null));
        Result r = new RestFuzz(base, admin, callers, hosts, seed, Duration.ofSeconds(15)).run(count);
        System.out.println(r);
        r.problems.forEach(p -> System.out.println("rest-fuzz: " + p));
        System.exit(r.clean() ? 0 : 1);
    }
}
