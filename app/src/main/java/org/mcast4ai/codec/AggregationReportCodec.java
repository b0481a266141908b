package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.GroupException;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * JSON form of an {@link AggregationReport}, what an aggregation point posts to
 * {@code POST /onos/mcast4ai/groups/{id}/aggregation}:
 * <pre>
 * {"agent": "h1", "counters": {"acksIn": 612, "acksOut": 22, ...}, "stalled": ["10.0.0.7"],
 *  "joinPsn": {"10.0.0.9": 4711}, "sentNext": 4800, "acked": 4799}
 * </pre>
 * Counters are the names of {@link AggregationReport#COUNTERS}, non-negative; receivers are named as the group
 * names them; PSNs have 24 bits. The controller adds {@code "time"} (when it received the report) on output.
 */
public final class AggregationReportCodec extends JsonCodec<AggregationReport> {
    static final String AGENT = "agent";
    static final String TIME = "time";
    static final String COUNTERS = "counters";
    static final String STALLED = "stalled";
    static final String JOIN_PSN = "joinPsn";
    static final String SENT_NEXT = "sentNext";
    static final String ACKED = "acked";
    static final String RECEIVER_ACKED = "receiverAcked";
    private static final String WHAT = "the aggregation report";
    private static final int PSN_MAX = 0xFFFFFF;

    @Override
    public ObjectNode encode(AggregationReport r, CodecContext context) {
        return encode(r);
    }

    /**
     * @param r a report
     * @return its JSON
     */
    public static ObjectNode encode(AggregationReport r) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put(AGENT, r.agent()).put(TIME, r.timeMillis());
        ObjectNode c = n.putObject(COUNTERS);
        for (String name : AggregationReport.COUNTERS) {
            c.put(name, r.counter(name));
        }
        r.stalled().forEach(n.putArray(STALLED)::add);
        ObjectNode j = n.putObject(JOIN_PSN);
        r.joinPsn().forEach(j::put);
        n.put(SENT_NEXT, r.sentNext()).put(ACKED, r.acked());
        ObjectNode ra = n.putObject(RECEIVER_ACKED);
        r.receiverAcked().forEach(ra::put);
        return n;
    }

    @Override
    public AggregationReport decode(ObjectNode json, CodecContext context) {
        return decode(json);
    }

    /**
     * @param node the posted JSON
     * @return the report (time 0: the controller stamps it)
     * @throws GroupException INVALID naming the field and the rule
     */
    public static AggregationReport decode(JsonNode node) {
        ObjectNode o = JsonFields.object(node, WHAT, AGENT, COUNTERS, STALLED, JOIN_PSN, SENT_NEXT, ACKED,
                RECEIVER_ACKED);
        String agent = JsonFields.requiredText(o, AGENT, WHAT);
        if (agent.isBlank() || agent.length() > 253) {
            throw GroupException.invalid("\"agent\" must be a host name of 1 to 253 characters");
        }
        Map<String, Long> counters = new LinkedHashMap<>();
        JsonNode cn = o.get(COUNTERS);
        if (cn != null && !cn.isNull()) {
            ObjectNode c = JsonFields.object(cn, "\"counters\"", AggregationReport.COUNTERS.toArray(new String[0]));
            Iterator<Map.Entry<String, JsonNode>> it = c.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                long v = JsonFields.longValue(e.getValue(), e.getKey(), "\"counters\"");
                if (v < 0) {
                    throw GroupException.invalid("counter \"" + e.getKey() + "\" must not be negative; got " + v);
                }
                counters.put(e.getKey(), v);
            }
        }
        Set<String> stalled = new LinkedHashSet<>();
        if (o.has(STALLED) && !o.get(STALLED).isNull()) {
            for (JsonNode s : JsonFields.requiredArray(o, STALLED, WHAT, true)) {
                if (!s.isTextual()) {
                    throw GroupException.invalid("\"stalled\" must name receivers as strings; got "
                            + JsonFields.describe(s));
                }
                stalled.add(s.asText());
            }
        }
        Map<String, Integer> join = psns(o, JOIN_PSN);
        long sentNext = o.has(SENT_NEXT) ? psn(o.get(SENT_NEXT), SENT_NEXT) : -1;
        long acked = o.has(ACKED) ? psn(o.get(ACKED), ACKED) : -1;
        return new AggregationReport(agent, 0, counters, stalled, join, sentNext, acked, psns(o, RECEIVER_ACKED));
    }

    // an optional object of receiver to PSN
    private static Map<String, Integer> psns(ObjectNode o, String field) {
        Map<String, Integer> out = new LinkedHashMap<>();
        JsonNode jn = o.get(field);
        if (jn != null && !jn.isNull()) {
            if (!jn.isObject()) {
                throw GroupException.invalid("\"" + field + "\" must be an object of receiver to PSN; got "
                        + JsonFields.describe(jn));
            }
            Iterator<Map.Entry<String, JsonNode>> it = jn.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                out.put(e.getKey(), psn(e.getValue(), field + " of " + e.getKey()));
            }
        }
        return out;
    }

    private static int psn(JsonNode n, String field) {
        int v = JsonFields.intValue(n, field, WHAT);
        if (v < 0 || v > PSN_MAX) {
            throw GroupException.invalid("\"" + field + "\" is a PSN: 0 to " + PSN_MAX + "; got " + v);
        }
        return v;
    }
}
