package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.VirtualPeer;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

/**
 * JSON form of an {@link AggregationContext}, what {@code GET /onos/mcast4ai/groups/{id}/aggregation} returns:
 * <pre>
 * {"groupId": 7, "tenant": "t1", "name": "kv", "state": "INSTALLED", "groupAddress": "239.77.0.7",
 *  "virtualPeer": {"ip": "10.254.0.7", "mac": "02:6d:34:fe:00:07", "qpn": 1049600, "index": 7,
 *                  "startPsn": 8816120},
 *  "sender": {"host": "10.0.0.1", "ip": "10.0.0.1", "mac": "...", "qpn": 51, "peerQpn": 1049600,
 *             "location": "of:0000000000000001/3", "joinPsn": 8816120},
 *  "receivers": [{"host": "10.0.0.2", "ip": "10.0.0.2", "mac": "...", "qpn": 18, "slot": 0,
 *                 "peerQpn": 1048576, "location": "...", "joinPsn": 8816120, "joined": true, "stalled": false,
 *                 "unreachable": false},
 *                ...],
 *  "unresolved": [], "report": {...}}
 * </pre>
 * The sender's QP connects to the virtual peer's ip and qpn with its first PSN {@code startPsn}; each receiver's
 * QP connects to the virtual peer's ip and its own {@code peerQpn}, expecting {@code joinPsn} first, once
 * {@code joined} (the aggregation point reported it; the group is INSTALLING until every receiver is). Encode only.
 */
public final class AggregationContextCodec extends JsonCodec<AggregationContext> {

    @Override
    public ObjectNode encode(AggregationContext c, CodecContext context) {
        return encode(c);
    }

    /**
     * @param c a context
     * @return its JSON
     */
    public static ObjectNode encode(AggregationContext c) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        VirtualPeer p = c.peer();
        n.put("groupId", c.group().id().value()).put("tenant", c.group().key().tenant())
                .put("name", c.group().key().name()).put("state", c.group().state().name())
                .put("groupAddress", c.group().address().toString());
        n.putObject("virtualPeer").put("ip", p.address().toString()).put("mac", p.mac().toString())
                .put("qpn", p.qpn()).put("index", p.index()).put("startPsn", p.startPsn());
        member(n.putObject("sender"), c.sender());
        ArrayNode rs = n.putArray("receivers");
        for (AggregationContext.Member m : c.receivers()) {
            // unreachable: the controller lost the receiver's path; its aggregation point evicts it rather than
            // wait for the stall timeout
            boolean unreachable = c.group().unreachable().stream().anyMatch(e -> e.host().equals(m.host()));
            member(rs.addObject(), m).put("slot", m.slot()).put("joined", m.joined())
                    .put("stalled", p.stalled().contains(m.host())).put("unreachable", unreachable);
        }
        c.unresolved().forEach(n.putArray("unresolved")::add);
        c.report().ifPresent(r -> n.set("report", AggregationReportCodec.encode(r)));
        return n;
    }

    private static ObjectNode member(ObjectNode o, AggregationContext.Member m) {
        o.put("host", m.host()).put("ip", m.ip().toString()).put("mac", m.mac().toString()).put("qpn", m.qpn())
                .put("peerQpn", m.peerQpn());
        m.location().ifPresent(l -> o.put("location", l.toString()));
        o.put("joinPsn", m.joinPsn());
        return o;
    }
}
