package org.mcast4ai.rest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.codec.P2mpGroupRequestCodec;

import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Strict reading of request bodies: exactly one JSON object (no trailing tokens, no repeated keys), and
 * the {"receivers": [...]} body of the receiver calls.
 */
final class RequestBodies {
    private static final String RECEIVERS = "receivers";
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private RequestBodies() {
    }

    /**
     * @param stream the request body
     * @return the body as a JSON object
     * @throws IOException if it cannot be read or is not valid JSON
     */
    static ObjectNode object(InputStream stream) throws IOException {
        JsonNode node = stream == null ? null : STRICT.readTree(stream);
        if (node == null || node.isMissingNode()) {
            throw GroupException.invalid("the request body is empty; expected a JSON object");
        }
        if (!node.isObject()) {
            throw GroupException.invalid("the request body must be a JSON object; got a JSON "
                    + node.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return (ObjectNode) node;
    }

    /**
     * @param body a {"receivers": [...]} object
     * @return the receivers, in order
     */
    static List<Endpoint> receivers(ObjectNode body) {
        Iterator<String> fields = body.fieldNames();
        while (fields.hasNext()) {
            String f = fields.next();
            if (!RECEIVERS.equals(f)) {
                throw GroupException.invalid("unknown field \"" + f + "\"; expected only \"receivers\"");
            }
        }
        JsonNode array = body.get(RECEIVERS);
        if (array == null || !array.isArray() || array.size() == 0) {
            throw GroupException.invalid("\"receivers\" must be a non-empty array of endpoints");
        }
        return P2mpGroupRequestCodec.decodeEndpoints(array, RECEIVERS);
    }

    /**
     * @param endpoints endpoints
     * @return them as a set
     * @throws GroupException INVALID if one is listed twice
     */
    static Set<Endpoint> distinct(List<Endpoint> endpoints) {
        Set<Endpoint> set = new LinkedHashSet<>();
        for (Endpoint e : endpoints) {
            if (!set.add(e)) {
                throw GroupException.invalid("receiver " + e + " is listed more than once");
            }
        }
        return set;
    }

}
