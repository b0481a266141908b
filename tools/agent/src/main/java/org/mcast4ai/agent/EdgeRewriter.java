package org.mcast4ai.agent;

import com.fasterxml.jackson.databind.JsonNode;
import org.mcast4ai.client.ClientException;
import org.mcast4ai.client.Mcast4aiClient;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The receiver-edge role: the eBPF rewrite on receiver-facing switch ports (in the lab, the switch ends of the
 * hosts' veths; in production the P4 egress does this), its map kept in step with the controller: for every
 * receiver of every ACK_AGGREGATION group attached to one of the ports, (group address, port) gives the receiver's
 * MAC, address and QPN and the virtual peer as the copy's source. Entries of receivers and groups that are gone are
 * deleted.
 */
public final class EdgeRewriter {
    private final Mcast4aiClient client;
    private final Bpftool bpf;
    private final Consumer<String> log;
    private final Map<String, String> ports;
    private final Path object;
    private final Path prog;
    private final Path map;
    private final Map<String, Integer> ifindex = new HashMap<>();

    /**
     * @param client the controller
     * @param bpf    the kernel's tools
     * @param log    where to say what it does
     * @param ports  switch port ({@code device/port} as ONOS names it) to interface name
     * @param object the compiled edge_rewrite.o
     * @param pin    bpffs directory
     */
    public EdgeRewriter(Mcast4aiClient client, Bpftool bpf, Consumer<String> log, Map<String, String> ports,
                        Path object, Path pin) {
        this.client = client;
        this.bpf = bpf;
        this.log = log;
        this.ports = new LinkedHashMap<>(ports);
        this.object = object;
        this.prog = pin.resolve("edge").resolve("prog");
        this.map = pin.resolve("edge").resolve("maps").resolve("edge_receivers");
    }

    /**
     * @param file lines {@code device/port interface}
     * @return the map
     * @throws IOException if unreadable or malformed
     */
    public static Map<String, String> readPorts(Path file) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            String[] f = t.split("\\s+");
            if (f.length != 2) {
                throw new Bpftool.Failure(file + ": expected 'device/port interface', got '" + t + "'");
            }
            out.put(f[0], f[1]);
        }
        return out;
    }

    /**
     * Loads the program unless pinned and attaches it to the egress of every port.
     *
     * @throws IOException if the kernel refuses
     */
    public void start() throws IOException {
        boolean loaded = bpf.loadPinned(object, prog, map.getParent());
        for (String iface : ports.values()) {
            bpf.attach(iface, "egress", prog, "edge_rewrite", 20);
            ifindex.put(iface, bpf.ifindex(iface));
        }
        log.accept((loaded ? "loaded" : "found") + " the edge rewrite on " + ports.size() + " port(s)");
    }

    /**
     * One round: the entries the controller's groups need against the map.
     *
     * @throws ClientException if the controller cannot be asked
     * @throws IOException     if a kernel tool fails
     */
    public void round() throws ClientException, IOException {
        Map<String, byte[]> want = new HashMap<>();
        for (JsonNode c : client.aggregations(null)) {
            int group = Aggregator.ip(c.path("groupAddress").asText());
            int vp = Aggregator.ip(c.path("virtualPeer").path("ip").asText());
            for (JsonNode r : c.path("receivers")) {
                String iface = ports.get(r.path("location").asText());
                if (iface == null) {
                    continue;
                }
                byte[] k = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                        .order(ByteOrder.BIG_ENDIAN).putInt(group).order(ByteOrder.LITTLE_ENDIAN)
                        .putInt(ifindex.get(iface)).array();
                ByteBuffer v = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
                v.put(Aggregator.mac(r.path("mac").asText())).putShort((short) 0);
                v.order(ByteOrder.BIG_ENDIAN).putInt(Aggregator.ip(r.path("ip").asText()));
                v.order(ByteOrder.LITTLE_ENDIAN).putInt(r.path("qpn").asInt());
                v.order(ByteOrder.BIG_ENDIAN).putInt(vp);
                want.put(hex(k), v.array());
            }
        }
        Map<String, byte[]> have = new HashMap<>();
        for (JsonNode e : bpf.dump(map)) {
            have.put(hex(bytes(e.path("key"))), bytes(e.path("value")));
        }
        int added = 0;
        int removed = 0;
        for (Map.Entry<String, byte[]> e : have.entrySet()) {
            if (!want.containsKey(e.getKey())) {
                bpf.delete(map, unhex(e.getKey()));
                removed++;
            }
        }
        for (Map.Entry<String, byte[]> e : want.entrySet()) {
            if (!Arrays.equals(have.get(e.getKey()), e.getValue())) {
                bpf.update(map, unhex(e.getKey()), e.getValue());
                added++;
            }
        }
        if (added + removed > 0) {
            log.accept("edge: " + added + " receiver(s) written, " + removed + " removed; " + want.size() + " in all");
        }
    }

    private static byte[] bytes(JsonNode hexArray) {
        byte[] b = new byte[hexArray.size()];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(hexArray.get(i).asText().replace("0x", ""), 16);
        }
        return b;
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return sb.toString();
    }

    private static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }
}
