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
        byte[] bytes = bounded(stream);
        checkDepth(bytes);
        JsonNode node = bytes.length == 0 ? null : STRICT.readTree(bytes);
        if (node == null || node.isMissingNode()) {
            throw GroupException.invalid("the request body is empty; expected a JSON object");
        }
        if (!node.isObject()) {
            throw GroupException.invalid("the request body must be a JSON object; got a JSON "
                    + node.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return (ObjectNode) node;
    }

    /** The largest request body accepted (a 4,096-receiver group is about 100 kB). */
    static final int MAX_BODY = 1 << 20;
    /** The deepest JSON nesting accepted (a request is three levels deep). */
    static final int MAX_DEPTH = 32;

    /**
     * @param stream a request body, or null
     * @return its bytes
     * @throws IOException if it cannot be read
     * @throws GroupException INVALID if it is larger than {@link #MAX_BODY}
     */
    static byte[] bounded(InputStream stream) throws IOException {
        if (stream == null) {
            return new byte[0];
        }
        byte[] bytes = stream.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
            throw GroupException.invalid("the request body is larger than " + MAX_BODY + " bytes");
        }
        return bytes;
    }

    // the parser recurses per level: refuse deep nesting before it sees it
    private static void checkDepth(byte[] json) {
        int depth = 0;
        boolean inString = false;
        for (int i = 0; i < json.length; i++) {
            byte c = json[i];
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                if (++depth > MAX_DEPTH) {
                    throw GroupException.invalid("the request body nests JSON deeper than " + MAX_DEPTH + " levels");
                }
            } else if (c == '}' || c == ']') {
                depth--;
            }
        }
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


    /**
     * Refuses a query parameter a path does not take: a filter a client misspells (?jobid=) must not silently
     * select every group.
     *
     * @param uri     the request
     * @param allowed the parameters the path takes
     */
    static void onlyQuery(javax.ws.rs.core.UriInfo uri, String... allowed) {
        Set<String> known = Set.of(allowed);
        for (String q : uri.getQueryParameters().keySet()) {
            if (!known.contains(q)) {
                throw GroupException.invalid("unknown query parameter '" + org.mcast4ai.api.Printable.of(q)
                        + "'" + (allowed.length == 0 ? "; this path takes none"
                        : "; this path takes " + String.join(", ", allowed)));
            }
        }
    }
}
