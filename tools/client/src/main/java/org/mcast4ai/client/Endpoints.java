package org.mcast4ai.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Endpoints as a scheduler writes them: an ONOS host id ({@code 02:00:00:00:01:01/None}), a MAC, an IP, or a
 * host name the system resolver knows (Slurm's node names: {@code scontrol show hostnames}), each optionally
 * followed by {@code #qpn}.
 */
public final class Endpoints {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private Endpoints() {
    }

    /**
     * Reads endpoints from a file: separated by white space or commas, a line starting with {@code //} or
     * {@code ;} is a comment ({@code #} would be read as a QPN).
     *
     * @param file the file, {@code -} for standard input
     * @return the endpoints in order
     * @throws IOException if the file cannot be read
     */
    public static List<String> read(String file) throws IOException {
        String text = file.equals("-") ? new String(System.in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                : Files.readString(Path.of(file));
        List<String> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String t = line.strip();
            if (t.startsWith("//") || t.startsWith(";")) {
                continue;
            }
            out.addAll(split(t));
        }
        return out;
    }

    /**
     * @param text endpoints separated by commas or white space
     * @return them in order
     */
    public static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        for (String s : text.split("[,\\s]+")) {
            if (!s.isEmpty()) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * Names a host the way the API takes it: host ids, MACs and IPs as given, anything else resolved to its
     * IPv4 address.
     *
     * @param host a host
     * @return the host as the API takes it
     * @throws IllegalArgumentException if a name does not resolve
     */
    public static String host(String host) {
        // host ids, MACs and IPv6 addresses all contain a colon or a slash; names do not
        if (host.contains("/") || host.contains(":") || IPV4.matcher(host).matches()) {
            return host;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (a instanceof java.net.Inet4Address) {
                    return a.getHostAddress();
                }
            }
            throw new IllegalArgumentException("host '" + host + "' has no IPv4 address");
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("host '" + host + "' is not an ONOS host id, MAC or IP and does not "
                    + "resolve");
        }
    }

    /**
     * @param mapper   JSON mapper
     * @param endpoint {@code host} or {@code host#qpn}
     * @return the endpoint as the API takes it
     * @throws IllegalArgumentException if the QPN is not a number or the host does not resolve
     */
    static JsonNode json(ObjectMapper mapper, String endpoint) {
        if (endpoint == null) {
            throw new IllegalArgumentException("an endpoint is missing");
        }
        int hash = endpoint.lastIndexOf('#');
        if (hash < 0) {
            return TextNode.valueOf(host(endpoint));
        }
        String qpn = endpoint.substring(hash + 1);
        try {
            return mapper.createObjectNode().put("host", host(endpoint.substring(0, hash)))
                    .put("qpn", Long.parseLong(qpn));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + endpoint + "': the QPN after '#' must be a number");
        }
    }
}
