package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupBitmap;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

import java.util.Map;

/**
 * JSON form of a {@link GroupBitmap}, what {@code GET /onos/mcast4ai/groups/{id}/bitmap} returns:
 * <pre>
 * {"groupId": 7, "mode": "BITMAP", "carrier": "eth_src",
 *  "receivers": [{"host": "10.0.0.3", "qpn": 18, "bit": 2},
 *                {"host": "00:00:00:00:02:01/None", "bit": 4}, ...],
 *  "groupBits": "0x94", "stampMac": "02:00:00:00:00:94"}
 * </pre>
 * and for a group on P4 switches (the version 2 header, stamped at the source leaf):
 * <pre>
 * {"groupId": 7, "mode": "BITMAP", "carrier": "mcast4ai_v2", "receivers": [...],
 *  "packetsPerSend": 1, "headers": ["2400...00"]}
 * </pre>
 * Receivers are named as the request names them, with their QPN when they have one. A sender addresses a
 * subset of the group by sending with the stamp of the OR of the subset's bits as its Ethernet source
 * ({@code tools/traffic/subset_stamp.py}). Encode only.
 */
public final class GroupBitmapCodec extends JsonCodec<GroupBitmap> {
    static final String GROUP_ID = "groupId";
    static final String MODE = "mode";
    static final String CARRIER = "carrier";
    static final String RECEIVERS = "receivers";
    static final String HOST = "host";
    static final String BIT = "bit";
    static final String QPN = "qpn";
    static final String GROUP_BITS = "groupBits";
    static final String STAMP_MAC = "stampMac";
    static final String PACKETS = "packetsPerSend";
    static final String HEADERS = "headers";

    @Override
    public ObjectNode encode(GroupBitmap bitmap, CodecContext context) {
        return encode(bitmap);
    }

    /**
     * Encodes without a context.
     *
     * @param bitmap the bit map
     * @return its JSON object
     */
    public static ObjectNode encode(GroupBitmap bitmap) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put(GROUP_ID, bitmap.groupId().value());
        n.put(MODE, "BITMAP");
        n.put(CARRIER, bitmap.carrier());
        ArrayNode receivers = n.putArray(RECEIVERS);
        for (Map.Entry<Endpoint, Integer> e : bitmap.receiverBits().entrySet()) {
            ObjectNode r = receivers.addObject().put(HOST, e.getKey().host());
            e.getKey().qpn().ifPresent(q -> r.put(QPN, q));
            r.put(BIT, e.getValue());
        }
        if (GroupBitmap.CARRIER_V2_HEADER.equals(bitmap.carrier())) {
            n.put(PACKETS, bitmap.headers().size());
            ArrayNode headers = n.putArray(HEADERS);
            bitmap.headers().forEach(headers::add);
            return n;
        }
        n.put(GROUP_BITS, "0x" + Long.toHexString(bitmap.groupBits()));
        n.put(STAMP_MAC, bitmap.stampMac());
        return n;
    }
}
