package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.StampPlan;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

/**
 * JSON form of a {@link StampPlan}, the {@code stamp} member of {@code GET /onos/mcast4ai/groups/{id}/plan} for a
 * group on P4 switches:
 * <pre>
 * {"device": "device:leaf1", "inPort": 1, "slot": 13, "multicastGroup": 32781, "tableEntries": 3,
 *  "packetsPerSend": 1, "headerBytes": 22, "headers": ["2400..."]}
 * </pre>
 * Encode only.
 */
public final class StampPlanCodec extends JsonCodec<StampPlan> {

    @Override
    public ObjectNode encode(StampPlan p, CodecContext context) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("device", p.device().toString());
        n.put("inPort", p.inPort().toLong());
        n.put("slot", p.slot());
        n.put("multicastGroup", p.multicastGroup());
        n.put("tableEntries", p.tableEntries());
        n.put("packetsPerSend", p.headers().size());
        n.put("headerBytes", p.headerBytes());
        ArrayNode h = n.putArray("headers");
        p.headers().forEach(h::add);
        return n;
    }
}
