package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.GroupException;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Strict reading of JSON objects: every refusal is a {@link GroupException} INVALID whose message names
 * the field and what was expected, so a caller can fix the request without reading the source.
 */
final class JsonFields {

    private JsonFields() {
    }

    /**
     * Refuses a node that is not an object and an object with fields outside {@code allowed}, so that
     * typos such as {@code "recievers"} are reported instead of silently ignored.
     *
     * @param node    the node
     * @param what    what the object is, for messages
     * @param allowed accepted field names
     * @return the node as an object
     */
    static ObjectNode object(JsonNode node, String what, String... allowed) {
        if (node == null || !node.isObject()) {
            throw GroupException.invalid(what + " must be a JSON object; got " + describe(node));
        }
        Set<String> names = Set.of(allowed);
        Iterator<String> it = node.fieldNames();
        while (it.hasNext()) {
            String f = it.next();
            if (!names.contains(f)) {
                throw GroupException.invalid("unknown field \"" + f + "\" in " + what + "; expected "
                        + String.join(", ", new TreeSet<>(Arrays.asList(allowed))));
            }
        }
        return (ObjectNode) node;
    }

    /**
     * @param obj   object
     * @param field field name
     * @param what  what the object is, for messages
     * @return the field's text
     */
    static String requiredText(ObjectNode obj, String field, String what) {
        JsonNode n = obj.get(field);
        if (n == null || n.isNull()) {
            throw GroupException.invalid(what + " needs \"" + field + "\"");
        }
        return text(n, field, what);
    }

    /**
     * @param obj   object
     * @param field field name
     * @param what  what the object is, for messages
     * @param dflt  value when the field is absent or null
     * @return the field's text or the default
     */
    static String optionalText(ObjectNode obj, String field, String what, String dflt) {
        JsonNode n = obj.get(field);
        return n == null || n.isNull() ? dflt : text(n, field, what);
    }

    private static String text(JsonNode n, String field, String what) {
        if (!n.isTextual()) {
            throw GroupException.invalid("\"" + field + "\" in " + what + " must be a string; got " + describe(n));
        }
        return n.asText();
    }

    /**
     * @param obj   object
     * @param field field name
     * @param what  what the object is, for messages
     * @return the field's value as an int
     */
    static int requiredInt(ObjectNode obj, String field, String what) {
        JsonNode n = obj.get(field);
        if (n == null || n.isNull()) {
            throw GroupException.invalid(what + " needs \"" + field + "\"");
        }
        return intValue(n, field, what);
    }

    /**
     * @param n     node
     * @param field field name, for messages
     * @param what  what holds it, for messages
     * @return the value as an int
     */
    static int intValue(JsonNode n, String field, String what) {
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            throw GroupException.invalid("\"" + field + "\" in " + what + " must be an integer; got " + describe(n));
        }
        return n.intValue();
    }

    /**
     * @param n     node
     * @param field field name, for messages
     * @param what  what holds it, for messages
     * @return the value as a long
     */
    static long longValue(JsonNode n, String field, String what) {
        if (!n.isIntegralNumber() || !n.canConvertToLong()) {
            throw GroupException.invalid("\"" + field + "\" in " + what + " must be an integer; got " + describe(n));
        }
        return n.longValue();
    }

    /**
     * @param obj   object
     * @param field field name
     * @param what  what the object is, for messages
     * @param empty whether an empty array is acceptable
     * @return the field as an array
     */
    static JsonNode requiredArray(ObjectNode obj, String field, String what, boolean empty) {
        JsonNode n = obj.get(field);
        if (n == null || n.isNull()) {
            throw GroupException.invalid(what + " needs \"" + field + "\"");
        }
        if (!n.isArray()) {
            throw GroupException.invalid("\"" + field + "\" in " + what + " must be an array; got " + describe(n));
        }
        if (!empty && n.size() == 0) {
            throw GroupException.invalid("\"" + field + "\" in " + what + " must not be empty");
        }
        return n;
    }

    /**
     * Parses an enum constant case-insensitively.
     *
     * @param type  enum type
     * @param text  the text
     * @param field field name, for messages
     * @param <E>   enum type
     * @return the constant
     */
    static <E extends Enum<E>> E enumValue(Class<E> type, String text, String field) {
        try {
            return Enum.valueOf(type, text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw GroupException.invalid("\"" + field + "\" must be one of "
                    + Arrays.toString(type.getEnumConstants()) + "; got '" + text + "'");
        }
    }

    /**
     * @param n a node or null
     * @return a short description for error messages
     */
    static String describe(JsonNode n) {
        if (n == null || n.isMissingNode()) {
            return "nothing";
        }
        String s = n.toString();
        return s.length() > 60 ? s.substring(0, 57) + "..." : s;
    }
}
