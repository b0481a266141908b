package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.P4FabricStatus;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

/**
 * JSON form of a {@link P4FabricStatus}, what {@code GET /onos/mcast4ai/p4-fabric} and
 * {@code mcast4ai-p4-fabric -j} return:
 * <pre>
 * {"writer": true, "pipeconf": "org.mcast4ai.p4.bmv2", "switches": ["device:leaf1", "device:spine1"], "runs": 12,
 *  "lastRunMillis": 1764000000000,
 *  "rulesWritten": 3, "rulesRemoved": 1, "groupsWritten": 0, "unacknowledged": ["device:spine1"],
 *  "joining": ["device:spine1"], "problem": null}
 * </pre>
 * The static state is in place everywhere when {@code problem} is null and {@code unacknowledged} and
 * {@code joining} are empty. Encode only.
 */
public final class P4FabricStatusCodec extends JsonCodec<P4FabricStatus> {

    @Override
    public ObjectNode encode(P4FabricStatus s, CodecContext context) {
        return encode(s);
    }

    /**
     * @param s a status
     * @return its JSON
     */
    public static ObjectNode encode(P4FabricStatus s) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("writer", s.writer());
        if (s.pipeconf() == null) {
            n.putNull("pipeconf");
        } else {
            n.put("pipeconf", s.pipeconf());
        }
        s.switches().forEach(n.putArray("switches")::add);
        n.put("runs", s.runs());
        n.put("lastRunMillis", s.lastRunMillis());
        n.put("rulesWritten", s.rulesWritten());
        n.put("rulesRemoved", s.rulesRemoved());
        n.put("groupsWritten", s.groupsWritten());
        s.unacknowledged().forEach(n.putArray("unacknowledged")::add);
        s.joining().forEach(n.putArray("joining")::add);
        if (s.problem() == null) {
            n.putNull("problem");
        } else {
            n.put("problem", s.problem());
        }
        return n;
    }
}
