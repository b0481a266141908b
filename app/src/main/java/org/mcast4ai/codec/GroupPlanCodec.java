package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupPlan;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * JSON form of a {@link GroupPlan}, what {@code GET /onos/mcast4ai/groups/{id}/plan} returns:
 * <pre>
 * {"devices": [{"deviceId": "of:0000000000000001", "inPort": 1, "outPorts": [3, 4]}, ...],
 *  "links": [{"src": {"device": "of:0000000000000001", "port": 3},
 *             "dst": {"device": "of:0000000000000011", "port": 1}}, ...]}
 * </pre>
 * Devices are sorted by id; ports are numbers.
 */
public final class GroupPlanCodec extends JsonCodec<GroupPlan> {
    static final String DEVICES = "devices";
    static final String LINKS = "links";
    static final String DEVICE_ID = "deviceId";
    static final String IN_PORT = "inPort";
    static final String OUT_PORTS = "outPorts";
    static final String SRC = "src";
    static final String DST = "dst";
    static final String DEVICE = "device";
    static final String PORT = "port";

    private static final String WHAT = "plan";

    @Override
    public ObjectNode encode(GroupPlan plan, CodecContext context) {
        return encode(plan);
    }

    /**
     * Encodes without a context.
     *
     * @param plan the plan
     * @return its JSON object
     */
    static ObjectNode encode(GroupPlan plan) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        ArrayNode devices = n.putArray(DEVICES);
        Set<DeviceId> ids = new TreeSet<>(Comparator.comparing(DeviceId::toString));
        ids.addAll(plan.branches().keySet());
        for (DeviceId id : ids) {
            GroupPlan.Branch b = plan.branches().get(id);
            ObjectNode d = devices.addObject().put(DEVICE_ID, id.toString()).put(IN_PORT, b.inPort().toLong());
            ArrayNode outs = d.putArray(OUT_PORTS);
            b.outPorts().forEach(p -> outs.add(p.toLong()));
        }
        ArrayNode links = n.putArray(LINKS);
        for (ConnectPoint[] l : plan.links()) {
            ObjectNode link = links.addObject();
            link.set(SRC, connectPoint(l[0]));
            link.set(DST, connectPoint(l[1]));
        }
        return n;
    }

    private static ObjectNode connectPoint(ConnectPoint cp) {
        return JsonNodeFactory.instance.objectNode()
                .put(DEVICE, cp.deviceId().toString())
                .put(PORT, cp.port().toLong());
    }

    @Override
    public GroupPlan decode(ObjectNode json, CodecContext context) {
        ObjectNode obj = JsonFields.object(json, WHAT, DEVICES, LINKS);
        Map<DeviceId, GroupPlan.Branch> branches = new LinkedHashMap<>();
        JsonNode devices = JsonFields.requiredArray(obj, DEVICES, WHAT, true);
        for (int i = 0; i < devices.size(); i++) {
            String what = DEVICES + "[" + i + "]";
            ObjectNode d = JsonFields.object(devices.get(i), what, DEVICE_ID, IN_PORT, OUT_PORTS);
            DeviceId id = deviceId(JsonFields.requiredText(d, DEVICE_ID, what), what);
            PortNumber in = port(d.get(IN_PORT), IN_PORT, what);
            JsonNode outs = JsonFields.requiredArray(d, OUT_PORTS, what, false);
            List<PortNumber> outPorts = new ArrayList<>();
            for (JsonNode o : outs) {
                outPorts.add(port(o, OUT_PORTS, what));
            }
            try {
                if (branches.put(id, new GroupPlan.Branch(in, Set.copyOf(outPorts))) != null) {
                    throw GroupException.invalid("device " + id + " appears more than once in the plan");
                }
            } catch (IllegalArgumentException e) {
                throw GroupException.invalid(what + ": " + e.getMessage());
            }
        }
        List<ConnectPoint[]> links = new ArrayList<>();
        JsonNode ls = obj.get(LINKS);
        if (ls != null && !ls.isNull()) {
            JsonNode array = JsonFields.requiredArray(obj, LINKS, WHAT, true);
            for (int i = 0; i < array.size(); i++) {
                String what = LINKS + "[" + i + "]";
                ObjectNode l = JsonFields.object(array.get(i), what, SRC, DST);
                links.add(new ConnectPoint[] {
                    connectPoint(l.get(SRC), what + "." + SRC), connectPoint(l.get(DST), what + "." + DST)});
            }
        }
        return new GroupPlan(branches, links);
    }

    private static ConnectPoint connectPoint(JsonNode node, String what) {
        ObjectNode cp = JsonFields.object(node, what, DEVICE, PORT);
        return new ConnectPoint(deviceId(JsonFields.requiredText(cp, DEVICE, what), what),
                port(cp.get(PORT), PORT, what));
    }

    private static DeviceId deviceId(String text, String what) {
        try {
            return DeviceId.deviceId(text);
        } catch (IllegalArgumentException e) {
            throw GroupException.invalid(what + ": '" + text + "' is not a device id");
        }
    }

    private static PortNumber port(JsonNode n, String field, String what) {
        if (n == null || n.isNull()) {
            throw GroupException.invalid(what + " needs \"" + field + "\"");
        }
        return PortNumber.portNumber(JsonFields.longValue(n, field, what));
    }
}
