package org.mcast4ai.engine.reliable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replays the known-answer vectors of {@code models/reliable/ack-aggregation.json} (the ones every datapath
 * replays) against the Java specification: each step's outputs, exactly and in order.
 */
class AggregationVectorsTest {
    static final Path VECTORS = Path.of("..", "models", "reliable", "ack-aggregation.json");
    private static final long MS = 1_000_000L;

    static JsonNode vectors() throws IOException {
        return new ObjectMapper().readTree(Files.readString(VECTORS));
    }

    private static long keyOf(JsonNode endpoint) {
        try {
            int ip = ByteBuffer.wrap(InetAddress.getByName(endpoint.get("ip").asText()).getAddress()).getInt();
            return AckAggregator.key(ip, endpoint.get("qpn").asInt());
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static String expected(JsonNode o) {
        if (o.has("ack")) {
            return "ack " + o.get("ack").asInt() + " msn " + o.get("msn").asInt() + " credit "
                    + o.get("credit").asInt();
        }
        if (o.has("nak")) {
            return "nak " + o.get("nak").asInt() + " msn " + o.get("msn").asInt() + " syndrome "
                    + Integer.toHexString(o.get("syndrome").asInt());
        }
        if (o.has("cnp")) {
            return "cnp";
        }
        if (o.has("drop")) {
            return "drop " + o.get("drop").asText();
        }
        return "stalled " + o.get("stalled").asText();
    }

    @TestFactory
    List<DynamicTest> everyCaseGivesItsKnownAnswers() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : vectors().get("cases")) {
            tests.add(DynamicTest.dynamicTest(c.get("name").asText(), () -> replay(c)));
        }
        assertTrue(tests.size() >= 15, "the vectors cover every rule");
        return tests;
    }

    private static void replay(JsonNode c) {
        Map<String, Long> keys = new HashMap<>();
        Map<Long, String> names = new HashMap<>();
        for (String part : List.of("receivers", "strangers", "more")) {
            Iterator<Map.Entry<String, JsonNode>> it = c.path(part).fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                keys.put(e.getKey(), keyOf(e.getValue()));
                names.put(keyOf(e.getValue()), e.getKey());
            }
        }
        Recorder out = new Recorder(names::get);
        int start = c.get("startPsn").asInt();
        AckAggregator agg = new AckAggregator(start, new AckAggregator.Config(c.get("seesData").asBoolean(),
                c.get("stallMs").asLong() * MS, c.get("cnpIntervalMs").asLong() * MS,
                c.get("nakHoldoffMs").asLong() * MS), out, c.get("receivers").size());
        c.get("receivers").fieldNames().forEachRemaining(n -> agg.addReceiver(keys.get(n), start, 0));
        int i = 0;
        for (JsonNode step : c.get("steps")) {
            long t = step.path("t").asLong() * MS;
            String in = step.get("in").asText();
            if ("bad".equals(step.path("icrc").asText())) {
                // what a datapath does with a packet whose ICRC does not verify, whatever it is
                agg.onCorrupt(keys.get(step.get("from").asText()), t);
                in = "damaged";
            }
            switch (in) {
                case "damaged":
                    break;
                case "data":
                    for (long p = step.get("psn").asLong(); p <= step.get("to").asLong(); p++) {
                        agg.onData((int) p, t);
                    }
                    break;
                case "ack":
                    agg.onAck(keys.get(step.get("from").asText()), step.get("psn").asInt(), step.path("msn").asInt(),
                            step.path("credit").asInt(), t);
                    break;
                case "nak":
                    agg.onNak(keys.get(step.get("from").asText()), step.get("psn").asInt(),
                            step.get("syndrome").asInt(), step.path("msn").asInt(), t);
                    break;
                case "cnp":
                    agg.onCnp(keys.get(step.get("from").asText()), t);
                    break;
                case "tick":
                    agg.tick(t);
                    break;
                case "join":
                    agg.addReceiver(keys.get(step.get("who").asText()), step.get("psn").asInt(), t);
                    break;
                case "leave":
                    agg.removeReceiver(keys.get(step.get("who").asText()), t);
                    break;
                case "evict":
                    agg.evict(keys.get(step.get("who").asText()), t);
                    break;
                default:
                    throw new AssertionError("unknown input " + in);
            }
            List<String> want = new ArrayList<>();
            step.get("out").forEach(o -> want.add(expected(o)));
            assertEquals(want, out.take(), "step " + i + ": " + step);
            i++;
        }
    }
}
