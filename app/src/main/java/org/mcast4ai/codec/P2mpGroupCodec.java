package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

/**
 * JSON form of a stored {@link P2mpGroup} (encode only: groups are created from requests, never from
 * their JSON). The request's fields appear flat, followed by what the app assigned and the lifecycle:
 * <pre>
 * {"id": 7, "tenant": "t1", "name": "allgather-0", "jobId": "slurm-42",
 *  "source": {"host": "10.0.0.1"}, "receivers": [{"host": "10.0.0.2", "qpn": 18}],
 *  "mode": "AUTO", "effectiveMode": "TREE", "modeReason": "...", "reliability": "NONE",
 *  "priority": 40000, "address": "239.255.0.7", "state": "INSTALLED", "reason": "",
 *  "history": [{"state": "SUBMITTED", "timeMillis": 1700000000000, "reason": ""}, ...],
 *  "unreachable": [], "version": 4}
 * </pre>
 * An ACK_AGGREGATION group also has {@code "virtualPeer": {"ip", "mac", "qpn", "startPsn", "peerQpns": {receiver:
 * QPN}, "stalled": [...]}}: the sender's QP connects to ip/qpn starting at startPsn, each receiver's QP to ip and
 * its peer QPN (the whole context is {@code GET /groups/{id}/aggregation}).
 */
public final class P2mpGroupCodec extends JsonCodec<P2mpGroup> {
    static final String ID = "id";
    static final String EFFECTIVE_MODE = "effectiveMode";
    static final String MODE_REASON = "modeReason";
    static final String ADDRESS = "address";
    static final String STATE = "state";
    static final String REASON = "reason";
    static final String FAILURE = "failure";
    static final String HISTORY = "history";
    static final String UNREACHABLE = "unreachable";
    static final String VERSION = "version";

    @Override
    public ObjectNode encode(P2mpGroup group, CodecContext context) {
        return encode(group);
    }

    /**
     * Encodes without a context.
     *
     * @param group the group
     * @return its JSON object
     */
    /** An ACK_AGGREGATION group's virtual peer: what its sender's and receivers' QPs connect to. */
    static final String VIRTUAL_PEER = "virtualPeer";

    static ObjectNode encode(P2mpGroup group) {
        P2mpGroupRequest r = group.request();
        ObjectNode out = JsonNodeFactory.instance.objectNode()
                .put(ID, group.id().value())
                .put(P2mpGroupRequestCodec.TENANT, r.key().tenant())
                .put(P2mpGroupRequestCodec.NAME, r.key().name())
                .put(P2mpGroupRequestCodec.JOB_ID, r.jobId());
        out.set(P2mpGroupRequestCodec.SOURCE, EndpointCodec.encode(r.source()));
        out.set(P2mpGroupRequestCodec.RECEIVERS, P2mpGroupRequestCodec.encodeEndpoints(r.receivers()));
        out.put(P2mpGroupRequestCodec.MODE, r.mode().name())
                .put(EFFECTIVE_MODE, group.effectiveMode().name())
                .put(MODE_REASON, group.modeReason())
                .put(P2mpGroupRequestCodec.RELIABILITY, r.reliability().name())
                .put(P2mpGroupRequestCodec.PRIORITY, r.priority())
                .put(ADDRESS, group.address().toString())
                .put(STATE, group.state().name())
                .put(REASON, group.reason())
                .put(FAILURE, group.failure() == null ? null : group.failure().name());
        ArrayNode history = out.putArray(HISTORY);
        group.history().forEach(h -> history.add(StateChangeCodec.encode(h)));
        out.set(UNREACHABLE, P2mpGroupRequestCodec.encodeEndpoints(group.unreachable()));
        group.peer().ifPresent(p -> {
            ObjectNode vp = out.putObject(VIRTUAL_PEER).put("ip", p.address().toString())
                    .put("mac", p.mac().toString()).put("qpn", p.qpn()).put("startPsn", p.startPsn());
            ObjectNode q = vp.putObject("peerQpns");
            p.slots().keySet().forEach(h -> q.put(h, p.peerQpn(h)));
            p.stalled().forEach(vp.putArray("stalled")::add);
        });
        out.put(VERSION, group.version());
        return out;
    }
}
