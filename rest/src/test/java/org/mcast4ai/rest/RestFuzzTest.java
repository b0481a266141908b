package org.mcast4ai.rest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.P2mpGroup;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random requests over every endpoint, bounded in count, against the real manager over real HTTP: no answer
 * is a 5xx, none takes longer than the client's deadline, no refused request changes any group, and the group
 * list always parses as strict JSON.
 */
class RestFuzzTest extends RestTestBase {
    private static final int REQUESTS = 1500;
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final List<String> METHODS = List.of("GET", "POST", "DELETE", "PUT");
    private static final List<String> IDS = List.of("1", "2", "3", "99", "0", "01", "+1", "-1", "1%00", "%20",
            "abc", "99999999999999999999", "1.0", "%F0%9F%98%80", "1;2");
    private static final List<String> TAILS = List.of("", "/receivers", "/plan", "/bitmap", "/recompile", "/x");
    private static final List<String> QUERIES = List.of("", "?purge=true", "?purge=false", "?purge=yes",
            "?tenant=t1", "?tenant=t1&name=g1", "?jobId=j", "?job=j&jobId=j", "?state=INSTALLED", "?state=DONE",
            "?host=10.0.0.2", "?host=10.0.0.4&host=10.0.0.99", "?x=1", "?purge", "?tenant=%00");
    private static final List<String> VALUES = List.of("null", "true", "0", "-1", "1", "2", "16777216",
            "1e400", "99999999999999999999999", "\"\"", "\" \"", "\"10.0.0.2\"", "\"10.0.0.99\"", "\"\\u0000\"",
            "\"\\ud800\"", "\"a\\r\\nb\"", "[]", "{}", "[\"10.0.0.3\"]", "[{\"host\":\"10.0.0.4\",\"qpn\":0}]",
            "{\"host\":null}", "\"TREE\"", "\"BITMAP\"", "\"AUTO\"", "\"STAR\"", "\"ACK_AGGREGATION\"");
    private static final List<String> FIELDS = List.of("tenant", "name", "jobId", "source", "receivers", "mode",
            "reliability", "priority", "host", "qpn", "x");

    private final Random rnd = new Random(20261201);

    private <T> T pick(List<T> l) {
        return l.get(rnd.nextInt(l.size()));
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
                        "name", "\"g" + rnd.nextInt(5) + "\"", "jobId", "\"j\"", "source", "\"10.0.0.1\"",
                        "receivers", "[\"10.0.0." + (2 + rnd.nextInt(6)) + "\"]"));
                for (int i = rnd.nextInt(4); i > 0; i--) {
                    String f = pick(FIELDS);
                    if (rnd.nextInt(3) == 0) {
                        fields.remove(f);
                    } else {
                        fields.put(f, pick(VALUES));
                    }
                }
                fields.forEach((k, v) -> b.append(b.length() > 1 ? "," : "").append('"').append(k).append("\":")
                        .append(v));
                return b.append('}').toString();
        }
    }

    private Map<Long, Long> versions() {
        Map<Long, Long> out = new TreeMap<>();
        for (P2mpGroup g : groups.getGroups()) {
            out.put(g.id().value(), g.version());
        }
        return out;
    }

    @Test
    void randomRequestsNeverAnswer5xxNeverHangAndRefusalsChangeNothing() throws Exception {
        create("t1", "g1", "j", "10.0.0.2", "10.0.0.3");
        create("t2", "g2", "j", "10.0.0.4");
        int refused = 0;
        int accepted = 0;
        for (int i = 0; i < REQUESTS; i++) {
            String method = pick(METHODS);
            String path = rnd.nextInt(10) == 0 ? pick(List.of("reconcile", "groups", "nothing", "groups/"))
                    : rnd.nextInt(4) == 0 ? "groups" : "groups/" + pick(IDS) + pick(TAILS);
            String url = path + (rnd.nextBoolean() ? "" : pick(QUERIES));
            String body = body();
            Map<Long, Long> before = versions();
            RestServer.Reply r;
            try {
                r = server.call(method, url, body, "application/json");
            } catch (IllegalArgumentException e) {
                continue; // a URL the client itself refuses to send
            }
            String what = method + " " + url + " " + (body == null ? "" : body.substring(0,
                    Math.min(200, body.length())));
            assertTrue(r.status < 500, what + " -> " + r);
            if (r.status >= 400) {
                refused++;
                assertEquals(before, versions(), "a refused request changed a group: " + what + " -> " + r);
                assertFalse(r.body.contains("\tat ") || r.body.contains("Exception"), what + " -> " + r.body);
            } else {
                accepted++;
            }
            if (i % 100 == 0) {
                String list = call("GET", "groups", null).body;
                STRICT.readTree(list);
                assertFalse(list.chars().anyMatch(c -> Character.isSurrogate((char) c)), list);
            }
        }
        System.out.printf("rest-fuzz: requests=%d accepted=%d refused=%d 5xx=0 groups=%d%n", REQUESTS, accepted,
                refused, groups.groupCount());
        assertTrue(refused > REQUESTS / 2, "most random requests are refused: " + refused);
    }
}
