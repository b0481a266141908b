package org.mcast4ai.engine.reliable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Long random cases in the known-answer format, answered by the Java specification: many receivers (so a
 * datapath's receivers span several chunks or pages), joins, leaves, stalls, NAKs, CNPs and strangers. The
 * specification itself is checked against a brute-force reference ({@link AckAggregatorPropertyTest}); these
 * cases carry its answers to the datapaths.
 */
final class RandomVectors {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final long STALL_MS = 300;

    private RandomVectors() {
    }

    /** Records outputs as vector objects, receivers by name. */
    private static final class Collect implements AggregationOutput {
        final Map<Long, String> names;
        ArrayNode out = MAPPER.createArrayNode();

        Collect(Map<Long, String> names) {
            this.names = names;
        }

        @Override
        public void ack(int psn, int msn, int credit) {
            out.addObject().put("ack", psn).put("msn", msn).put("credit", credit);
        }

        @Override
        public void nak(int psn, int msn, int syndrome) {
            out.addObject().put("nak", psn).put("msn", msn).put("syndrome", syndrome);
        }

        @Override
        public void cnp() {
            out.addObject().put("cnp", true);
        }

        @Override
        public void dropped(Drop why, long source) {
            out.addObject().put("drop", why.name());
        }

        @Override
        public void stalled(long receiver) {
            out.addObject().put("stalled", names.get(receiver));
        }
    }

    private static ObjectNode endpoint(int ip, int qpn) {
        return MAPPER.createObjectNode().put("ip", ((ip >>> 24) & 0xFF) + "." + ((ip >>> 16) & 0xFF) + "."
                + ((ip >>> 8) & 0xFF) + "." + (ip & 0xFF)).put("qpn", qpn);
    }

    /**
     * @param seed      random seed
     * @param receivers receivers at the start
     * @param steps     inputs
     * @param seesData  whether the aggregation point sees the data
     * @return one case
     */
    static ObjectNode generate(long seed, int receivers, int steps, boolean seesData) {
        Random rnd = new Random(seed);
        int start = rnd.nextBoolean() ? Psn.MASK - rnd.nextInt(300) : rnd.nextInt(Psn.MASK);
        ObjectNode c = MAPPER.createObjectNode();
        c.put("name", "random: seed " + seed + ", " + receivers + " receivers, " + steps + " steps"
                + (seesData ? "" : ", data not in sight"));
        c.put("startPsn", start).put("seesData", seesData).put("stallMs", STALL_MS).put("cnpIntervalMs", 5)
                .put("nakHoldoffMs", 3);
        Map<Long, String> names = new HashMap<>();
        Map<String, Long> keys = new LinkedHashMap<>();
        ObjectNode rx = c.putObject("receivers");
        ObjectNode more = c.putObject("more");
        ObjectNode strangers = c.putObject("strangers");
        for (int i = 0; i < receivers + 20; i++) {
            int ip = 0x0a010000 + i + 2;
            String name = (i < receivers ? "r" : "j") + i;
            (i < receivers ? rx : more).set(name, endpoint(ip, 100 + i));
            keys.put(name, AckAggregator.key(ip, 100 + i));
            names.put(AckAggregator.key(ip, 100 + i), name);
        }
        strangers.set("x", endpoint(0x0a090001, 100));
        strangers.set("x2", endpoint(0x0a010002, 999));
        keys.put("x", AckAggregator.key(0x0a090001, 100));
        keys.put("x2", AckAggregator.key(0x0a010002, 999));
        Collect out = new Collect(names);
        AckAggregator agg = new AckAggregator(start, new AckAggregator.Config(seesData, STALL_MS * 1_000_000L,
                5_000_000L, 3_000_000L), out, receivers);
        // what the generator believes, to make plausible inputs; the answers are the aggregator's
        Map<String, Long> mirror = new LinkedHashMap<>();
        List<String> lazy = new ArrayList<>();
        for (int i = 0; i < receivers; i++) {
            agg.addReceiver(keys.get("r" + i), start, 0);
            mirror.put("r" + i, (long) start - 1);
            if (rnd.nextInt(20) == 0) {
                lazy.add("r" + i);
            }
        }
        long sent = start;
        long t = 0;
        int joined = receivers;
        ArrayNode stepsOut = c.putArray("steps");
        for (int s = 0; s < steps; s++) {
            t += rnd.nextInt(3);
            ObjectNode step = MAPPER.createObjectNode().put("t", t);
            out.out = MAPPER.createArrayNode();
            int what = rnd.nextInt(100);
            List<String> live = new ArrayList<>(mirror.keySet());
            if (what < 20 || live.isEmpty()) {
                // a range in the format does not cross the wrap
                int n = (int) Math.min(1 + rnd.nextInt(8), Psn.MODULUS - Psn.wire(sent));
                if (seesData) {
                    step.put("in", "data").put("psn", Psn.wire(sent)).put("to", Psn.wire(sent + n - 1));
                    for (int i = 0; i < n; i++) {
                        agg.onData(Psn.wire(sent + i), t * 1_000_000L);
                    }
                }
                sent += n;
                if (!seesData) {
                    continue;
                }
            } else if (what < 80) {
                String who = live.get(rnd.nextInt(live.size()));
                if (lazy.contains(who) && rnd.nextInt(8) != 0) {
                    s--;
                    continue;
                }
                long mine = mirror.get(who);
                long p;
                int kind = rnd.nextInt(20);
                if (kind == 0) {
                    p = mine - rnd.nextInt(3);
                } else if (kind == 1) {
                    p = sent + rnd.nextInt(2);
                } else {
                    p = Math.min(sent - 1, mine + 1 + rnd.nextInt(6));
                }
                int msn = (int) ((p - start) / 4) & Psn.MASK;
                int credit = rnd.nextInt(32);
                step.put("in", "ack").put("from", who).put("psn", Psn.wire(p)).put("msn", msn).put("credit", credit);
                agg.onAck(keys.get(who), Psn.wire(p), msn, credit, t * 1_000_000L);
                if (p > mine && (!seesData || p < sent)) {
                    mirror.put(who, p);
                }
            } else if (what < 86) {
                String who = live.get(rnd.nextInt(live.size()));
                long mine = mirror.get(who);
                long expected = Math.min(sent - 1, mine + 1 + rnd.nextInt(3));
                int syndrome = rnd.nextInt(10) == 0 ? 0x20 | rnd.nextInt(32) : AckAggregator.NAK_SEQUENCE;
                step.put("in", "nak").put("from", who).put("psn", Psn.wire(expected)).put("syndrome", syndrome);
                agg.onNak(keys.get(who), Psn.wire(expected), syndrome, 0, t * 1_000_000L);
                if (syndrome == AckAggregator.NAK_SEQUENCE && expected - 1 > mine) {
                    mirror.put(who, expected - 1);
                }
            } else if (what < 89) {
                String who = live.get(rnd.nextInt(live.size()));
                step.put("in", "cnp").put("from", who);
                agg.onCnp(keys.get(who), t * 1_000_000L);
            } else if (what < 91) {
                String who = rnd.nextBoolean() ? "x" : "x2";
                step.put("in", "ack").put("from", who).put("psn", Psn.wire(sent - 1)).put("msn", 0);
                agg.onAck(keys.get(who), Psn.wire(sent - 1), 0, 0, t * 1_000_000L);
            } else if (what < 93) {
                t += 5 + rnd.nextInt(20);
                step.put("t", t).put("in", "tick");
                agg.tick(t * 1_000_000L);
            } else if (what < 97 && joined < receivers + 20 && seesData) {
                String who = "j" + joined++;
                step.put("in", "join").put("who", who).put("psn", Psn.wire(sent));
                agg.addReceiver(keys.get(who), Psn.wire(sent), t * 1_000_000L);
                mirror.put(who, sent - 1);
            } else if (live.size() > 2 && rnd.nextInt(4) == 0) {
                String who = live.get(rnd.nextInt(live.size()));
                step.put("in", "leave").put("who", who);
                agg.removeReceiver(keys.get(who), t * 1_000_000L);
                mirror.remove(who);
                lazy.remove(who);
            } else {
                s--;
                continue;
            }
            for (com.fasterxml.jackson.databind.JsonNode o : out.out) {
                if (o.has("stalled")) {
                    mirror.remove(o.get("stalled").asText());
                }
            }
            step.set("out", out.out);
            stepsOut.add(step);
        }
        return c;
    }
}
