package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.ReplicationMode;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

import java.util.ArrayList;
import java.util.List;

/**
 * JSON form of a {@link P2mpGroupRequest}, the body of {@code POST /onos/mcast4ai/groups}:
 * <pre>
 * {"tenant": "t1", "name": "allgather-0", "jobId": "slurm-42",
 *  "source": {"host": "00:00:00:00:00:01/None", "qpn": 17},
 *  "receivers": ["10.0.0.2", {"host": "10.0.0.3", "qpn": 18}],
 *  "mode": "TREE", "reliability": "NONE", "priority": 40000}
 * </pre>
 * {@code tenant}, {@code name}, {@code source} and {@code receivers} are required; {@code jobId} defaults
 * to "", {@code mode} to AUTO, {@code reliability} to NONE, {@code priority} to 40000. Unknown fields
 * are refused.
 */
public final class P2mpGroupRequestCodec extends JsonCodec<P2mpGroupRequest> {
    static final String TENANT = "tenant";
    static final String NAME = "name";
    static final String JOB_ID = "jobId";
    static final String SOURCE = "source";
    static final String RECEIVERS = "receivers";
    static final String MODE = "mode";
    static final String RELIABILITY = "reliability";
    static final String PRIORITY = "priority";

    private static final String WHAT = "group request";

    @Override
    public ObjectNode encode(P2mpGroupRequest request, CodecContext context) {
        return encode(request);
    }

    /**
     * Encodes without a context.
     *
     * @param request the request
     * @return its JSON object
     */
    static ObjectNode encode(P2mpGroupRequest request) {
        ObjectNode n = JsonNodeFactory.instance.objectNode()
                .put(TENANT, request.key().tenant())
                .put(NAME, request.key().name())
                .put(JOB_ID, request.jobId());
        n.set(SOURCE, EndpointCodec.encode(request.source()));
        n.set(RECEIVERS, encodeEndpoints(request.receivers()));
        n.put(MODE, request.mode().name())
                .put(RELIABILITY, request.reliability().name())
                .put(PRIORITY, request.priority());
        return n;
    }

    /**
     * @param endpoints endpoints
     * @return a JSON array of endpoint objects, in iteration order
     */
    static ArrayNode encodeEndpoints(Iterable<Endpoint> endpoints) {
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        endpoints.forEach(e -> a.add(EndpointCodec.encode(e)));
        return a;
    }

    @Override
    public P2mpGroupRequest decode(ObjectNode json, CodecContext context) {
        ObjectNode obj = JsonFields.object(json, WHAT,
                TENANT, NAME, JOB_ID, SOURCE, RECEIVERS, MODE, RELIABILITY, PRIORITY);
        P2mpGroupRequest.Builder b = P2mpGroupRequest.builder()
                .key(GroupKey.of(JsonFields.requiredText(obj, TENANT, WHAT),
                        JsonFields.requiredText(obj, NAME, WHAT)))
                .jobId(JsonFields.optionalText(obj, JOB_ID, WHAT, ""));
        JsonNode source = obj.get(SOURCE);
        if (source == null || source.isNull()) {
            throw GroupException.invalid(WHAT + " needs \"" + SOURCE + "\"");
        }
        b.source(EndpointCodec.decodeNode(source, SOURCE));
        b.addReceivers(decodeEndpoints(JsonFields.requiredArray(obj, RECEIVERS, WHAT, false), RECEIVERS));
        String mode = JsonFields.optionalText(obj, MODE, WHAT, null);
        if (mode != null) {
            b.mode(JsonFields.enumValue(ReplicationMode.class, mode, MODE));
        }
        String reliability = JsonFields.optionalText(obj, RELIABILITY, WHAT, null);
        if (reliability != null) {
            b.reliability(JsonFields.enumValue(Reliability.class, reliability, RELIABILITY));
        }
        JsonNode priority = obj.get(PRIORITY);
        if (priority != null && !priority.isNull()) {
            b.priority(JsonFields.intValue(priority, PRIORITY, WHAT));
        }
        return b.build();
    }

    /**
     * Decodes an array of endpoints (objects or host strings), keeping their order.
     *
     * @param array the array
     * @param field the field name, for messages
     * @return the endpoints
     */
    public static List<Endpoint> decodeEndpoints(JsonNode array, String field) {
        List<Endpoint> out = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            out.add(EndpointCodec.decodeNode(array.get(i), field + "[" + i + "]"));
        }
        return out;
    }
}
