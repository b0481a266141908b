package org.mcast4ai.lab;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The order of each table's match fields and each action's parameters in a P4Info (text format): what BMv2's CLI
 * takes positionally, where ONOS's PI entities name them.
 */
public final class P4InfoOrder {
    private final Map<String, List<String>> fields = new HashMap<>();
    private final Map<String, List<String>> params = new HashMap<>();

    private P4InfoOrder() {
    }

    /**
     * @param text the P4Info in protobuf text format
     * @return its orders
     */
    public static P4InfoOrder parse(String text) {
        P4InfoOrder o = new P4InfoOrder();
        String top = null;
        String sub = null;
        String entity = null;
        int depth = 0;
        for (String raw : text.split("\n")) {
            String l = raw.trim();
            if (l.endsWith("{")) {
                String block = l.substring(0, l.length() - 1).trim();
                if (depth == 0) {
                    top = block;
                    entity = null;
                } else if (depth == 1) {
                    sub = block;
                }
                depth++;
                continue;
            }
            if (l.equals("}")) {
                depth--;
                if (depth == 1) {
                    sub = null;
                }
                continue;
            }
            if (!l.startsWith("name: \"") || depth != 2) {
                continue;
            }
            String name = l.substring(7, l.length() - 1);
            if ("preamble".equals(sub)) {
                entity = name;
                if ("tables".equals(top)) {
                    o.fields.put(entity, new ArrayList<>());
                } else if ("actions".equals(top)) {
                    o.params.put(entity, new ArrayList<>());
                }
            } else if ("match_fields".equals(sub) && "tables".equals(top) && entity != null) {
                o.fields.get(entity).add(name);
            } else if ("params".equals(sub) && "actions".equals(top) && entity != null) {
                o.params.get(entity).add(name);
            }
        }
        return o;
    }

    /**
     * @return the app's pipeconf's P4Info (as its bundle carries it), parsed
     * @throws IOException if it is not on the class path
     */
    public static P4InfoOrder pipeconf() throws IOException {
        try (InputStream in = P4InfoOrder.class.getResourceAsStream("/org/mcast4ai/p4/mcast4ai.p4info.txt")) {
            if (in == null) {
                throw new IOException("the app's P4Info is not on the class path");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /**
     * @param table a table's name
     * @return its match fields, in key order
     */
    public List<String> fields(String table) {
        List<String> f = fields.get(table);
        if (f == null) {
            throw new IllegalArgumentException("no table " + table + " in the P4Info");
        }
        return f;
    }

    /**
     * @param action an action's name
     * @return its parameters, in order
     */
    public List<String> params(String action) {
        List<String> p = params.get(action);
        if (p == null) {
            throw new IllegalArgumentException("no action " + action + " in the P4Info");
        }
        return p;
    }
}
