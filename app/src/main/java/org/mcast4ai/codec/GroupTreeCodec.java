package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupTree;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;

import java.util.List;
import java.util.Map;

/** JSON for a group's tree (read only): devices in the order packets reach them, links, paths, misses. */
public final class GroupTreeCodec extends JsonCodec<GroupTree> {

    @Override
    public ObjectNode encode(GroupTree t, CodecContext context) {
        return encode(t);
    }

    /**
     * Encodes without a context.
     *
     * @param t the tree
     * @return its JSON object
     */
    public static ObjectNode encode(GroupTree t) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("id", t.id().value());
        n.put("mode", t.mode().name());
        n.put("carrier", t.carrier());
        ArrayNode devices = n.putArray("devices");
        for (GroupTree.Hop h : t.hops()) {
            ObjectNode d = devices.addObject().put("deviceId", h.device().toString());
            ArrayNode roles = d.putArray("roles");
            h.roles().forEach(r -> roles.add(r.name()));
            d.put("inPort", h.inPort().toLong());
            ArrayNode outs = d.putArray("outPorts");
            h.outPorts().forEach(p -> outs.add(p.toLong()));
            d.put("serves", h.serves());
        }
        ArrayNode links = n.putArray("links");
        for (ConnectPoint[] l : t.links()) {
            ObjectNode link = links.addObject();
            link.set("src", connectPoint(l[0]));
            link.set("dst", connectPoint(l[1]));
        }
        ArrayNode paths = n.putArray("paths");
        for (Map.Entry<Endpoint, List<DeviceId>> p : t.paths().entrySet()) {
            ObjectNode path = paths.addObject().put("receiver", p.getKey().host());
            ArrayNode via = path.putArray("devices");
            p.getValue().forEach(d -> via.add(d.toString()));
        }
        ArrayNode unreachable = n.putArray("unreachable");
        t.unreachable().forEach(e -> unreachable.add(e.host()));
        ArrayNode strays = n.putArray("strays");
        t.strays().forEach(strays::add);
        return n;
    }

    private static ObjectNode connectPoint(ConnectPoint cp) {
        return JsonNodeFactory.instance.objectNode().put("device", cp.deviceId().toString())
                .put("port", cp.port().toLong());
    }
}
