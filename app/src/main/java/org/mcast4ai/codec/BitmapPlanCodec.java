package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.BitmapPlan;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

/**
 * JSON form of a {@link BitmapPlan}, the {@code bitmap} part of a BITMAP group's
 * {@code GET /onos/mcast4ai/groups/{id}/plan}:
 * <pre>
 * {"stamp": {"deviceId": "of:0000000000000011", "inPort": 1, "groupBits": "0x94",
 *            "stampMac": "02:00:00:00:00:94", "switchStamped": true, "uplink": "spread slot 3 of 8, now port 5"},
 *  "staticTables": {"generation": 2, "inPlace": true,
 *                   "devices": [{"deviceId": "of:...", "rules": 55, "groups": 12}, ...]},
 *  "transitEntries": 0}
 * </pre>
 * Encode only.
 */
public final class BitmapPlanCodec extends JsonCodec<BitmapPlan> {

    @Override
    public ObjectNode encode(BitmapPlan plan, CodecContext context) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.putObject("stamp")
                .put("deviceId", plan.stampDevice().toString())
                .put("inPort", plan.inPort().toLong())
                .put("groupBits", "0x" + Long.toHexString(plan.bits()))
                .put("stampMac", plan.stampMac())
                .put("switchStamped", plan.switchStamped())
                .put("uplink", plan.uplink());
        ObjectNode tables = n.putObject("staticTables")
                .put("generation", plan.staticGeneration())
                .put("inPlace", plan.staticInPlace());
        ArrayNode devices = tables.putArray("devices");
        plan.staticDevices().forEach(d -> devices.addObject().put("deviceId", d.device().toString())
                .put("rules", d.rules()).put("groups", d.groups()));
        // the group's own state: the stamp's two rules on the source leaf, nothing anywhere else
        n.put("transitEntries", 0);
        return n;
    }
}
