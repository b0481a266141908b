package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

/**
 * JSON form of an {@link Endpoint}: {@code {"host": "00:00:00:00:00:01/None", "qpn": 17}}, {@code qpn}
 * optional. Decoding also accepts a plain string naming the host.
 */
public final class EndpointCodec extends JsonCodec<Endpoint> {
    static final String HOST = "host";
    static final String QPN = "qpn";

    @Override
    public ObjectNode encode(Endpoint endpoint, CodecContext context) {
        return encode(endpoint);
    }

    /**
     * Encodes without a context.
     *
     * @param endpoint the endpoint
     * @return its JSON object
     */
    static ObjectNode encode(Endpoint endpoint) {
        ObjectNode n = JsonNodeFactory.instance.objectNode().put(HOST, endpoint.host());
        endpoint.qpn().ifPresent(q -> n.put(QPN, q));
        return n;
    }

    @Override
    public Endpoint decode(ObjectNode json, CodecContext context) {
        return decodeNode(json, "endpoint");
    }

    /**
     * Decodes an endpoint given either as an object or as a plain host string.
     *
     * @param node the JSON node
     * @param what where it appears, for messages (for example "receivers[2]")
     * @return the endpoint
     * @throws GroupException INVALID if the node is neither form or a value is out of range
     */
    public static Endpoint decodeNode(JsonNode node, String what) {
        if (node != null && node.isTextual()) {
            return Endpoint.of(node.asText());
        }
        if (node == null || !node.isObject()) {
            throw GroupException.invalid(what + " must be a host string or an object "
                    + "{\"host\": ..., \"qpn\": ...}; got " + JsonFields.describe(node));
        }
        ObjectNode obj = JsonFields.object(node, what, HOST, QPN);
        String host = JsonFields.requiredText(obj, HOST, what);
        JsonNode qpn = obj.get(QPN);
        if (qpn == null) {
            return Endpoint.of(host);
        }
        if (qpn.isNull()) {
            throw GroupException.invalid(what + ".qpn must be an integer between " + Endpoint.MIN_QPN + " and "
                    + Endpoint.MAX_QPN + ", or left out; got null");
        }
        return Endpoint.of(host, JsonFields.intValue(qpn, QPN, what));
    }
}
