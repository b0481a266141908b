package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Watches Open vSwitch's database for the lab's bridges, ports and host veths and feeds what it sees to a
 * {@link LabTopology}, so that deleting a bridge, a patch pair or a host's port raises the device, port, link
 * and host events ONOS's providers raise when a switch disconnects, a port goes or a host is unplugged. One
 * {@code ovs-vsctl} read of the Bridge, Port and Interface tables per period (about 4 ms).
 *
 * <p>A link is up when both of its patch interfaces exist on their bridges with the fabric's port numbers; a
 * host is attached where its veth is a port of a lab bridge (on another bridge or port than the description
 * says after a move).</p>
 */
public final class OvsTopologyWatcher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OvsTopologyWatcher.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** The ovsdb read: bridges with their ports, ports with their interfaces, interfaces with name and ofport. */
    static final List<String> READ = List.of("ovs-vsctl", "--timeout=5", "--format=json",
            "--columns=name,ports", "list", "Bridge", "--",
            "--columns=_uuid,interfaces", "list", "Port", "--",
            "--columns=_uuid,name,ofport", "list", "Interface");

    /**
     * Prints a line for every change of the Interface table (ports added, deleted, numbered): a switch's
     * OFPT_PORT_STATUS, which is how ONOS hears of a port at once rather than on a poll.
     */
    static final List<String> MONITOR = List.of("ovsdb-client", "monitor", "Open_vSwitch", "Interface",
            "name,ofport", "--format=json");

    private final LabTopology topology;
    private final Supplier<String> reader;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean pollQueued = new AtomicBoolean();
    private volatile boolean closed;
    private volatile Process monitor;

    /**
     * @param topology what to update
     * @param reader   returns the output of {@link #READ} (null if it failed)
     * @param periodMs polling period
     */
    public OvsTopologyWatcher(LabTopology topology, Supplier<String> reader, long periodMs) {
        this.topology = topology;
        this.reader = reader;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mcast4ai-lab-topology");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::poll, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Reads the database again as soon as a command's output says it changed, besides the periodic read: the
     * command runs until {@link #close()} and is started again if it ends.
     *
     * @param command prints a line per change (for example {@link #MONITOR})
     */
    public void watchChanges(List<String> command) {
        Thread t = new Thread(() -> {
            while (!closed) {
                try {
                    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
                    monitor = p;
                    p.getOutputStream().close();
                    try (java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(
                            p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
                        while (in.readLine() != null) {
                            pollSoon();
                        }
                    }
                    p.waitFor();
                } catch (IOException e) {
                    log.debug("change monitor {}: {}", command.get(0), e.toString());
                } catch (InterruptedException e) {
                    return;
                }
                if (!closed) {
                    try {
                        Thread.sleep(1000); // the periodic read goes on meanwhile
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "mcast4ai-lab-topology-monitor");
        t.setDaemon(true);
        t.start();
    }

    private void pollSoon() {
        if (pollQueued.compareAndSet(false, true)) {
            try {
                timer.execute(() -> {
                    pollQueued.set(false);
                    poll();
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                pollQueued.set(false);
            }
        }
    }

    /** @return a reader that runs the real {@code ovs-vsctl} */
    public static Supplier<String> ovsVsctl() {
        return () -> {
            try {
                Process p = new ProcessBuilder(READ).redirectError(ProcessBuilder.Redirect.DISCARD).start();
                p.getOutputStream().close();
                String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    p.destroyForcibly();
                    return null;
                }
                return out;
            } catch (IOException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        };
    }

    /** Reads the database once and updates the topology (also run by the timer). */
    public void poll() {
        try {
            String out = reader.get();
            if (out == null) {
                return; // keep the last observation: a failed read is not a failed fabric
            }
            topology.update(parse(topology.fabric(), out));
        } catch (RuntimeException e) {
            log.warn("reading Open vSwitch failed: {}", e.toString());
        }
    }

    /**
     * What an ovsdb read says of the fabric.
     *
     * @param fabric the description
     * @param out    the output of {@link #READ}: three JSON objects, one per table
     * @return the state
     */
    static LabTopology.State parse(LabFabric fabric, String out) {
        List<JsonNode> tables = new ArrayList<>();
        try (com.fasterxml.jackson.core.JsonParser p = MAPPER.getFactory().createParser(out)) {
            while (p.nextToken() != null) {
                tables.add(MAPPER.readTree(p));
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("unreadable ovs-vsctl output: " + e.getMessage(), e);
        }
        if (tables.size() != 3) {
            throw new IllegalArgumentException("expected 3 tables from ovs-vsctl, got " + tables.size());
        }
        Map<String, String> ifaceName = new HashMap<>();
        Map<String, Long> ifaceOfport = new HashMap<>();
        for (JsonNode row : tables.get(2).path("data")) {
            String uuid = row.get(0).get(1).asText();
            ifaceName.put(uuid, row.get(1).asText());
            JsonNode ofport = row.get(2);
            ifaceOfport.put(uuid, ofport.isNumber() ? ofport.asLong() : -1L);
        }
        Map<String, List<String>> portIfaces = new HashMap<>();
        for (JsonNode row : tables.get(1).path("data")) {
            portIfaces.put(row.get(0).get(1).asText(), uuids(row.get(1)));
        }
        // bridge name -> interface name -> ofport
        Map<String, Map<String, Long>> bridges = new HashMap<>();
        for (JsonNode row : tables.get(0).path("data")) {
            Map<String, Long> ifaces = new HashMap<>();
            for (String port : uuids(row.get(1))) {
                for (String iface : portIfaces.getOrDefault(port, List.of())) {
                    long ofport = ifaceOfport.getOrDefault(iface, -1L);
                    if (ofport > 0) {
                        ifaces.put(ifaceName.get(iface), ofport);
                    }
                }
            }
            bridges.put(row.get(0).asText(), ifaces);
        }
        return state(fabric, bridges);
    }

    /**
     * @param fabric  the description
     * @param bridges bridge name to its interfaces (name to OpenFlow port) that exist
     * @return the state the fabric is in
     */
    static LabTopology.State state(LabFabric fabric, Map<String, Map<String, Long>> bridges) {
        Set<String> devices = new HashSet<>();
        Map<String, Set<Long>> ports = new HashMap<>();
        Map<String, String> deviceOfBridge = new HashMap<>();
        for (LabFabric.Switch s : fabric.switches()) {
            Map<String, Long> ifaces = bridges.get(s.bridge());
            if (ifaces != null) {
                devices.add(s.deviceId());
                deviceOfBridge.put(s.bridge(), s.deviceId());
                Set<Long> p = new TreeSet<>();
                ifaces.forEach((name, ofport) -> {
                    if (!name.equals(s.bridge())) { // the bridge's own LOCAL port
                        p.add(ofport);
                    }
                });
                ports.put(s.deviceId(), p);
            }
        }
        Set<LabFabric.Link> links = new HashSet<>();
        for (LabFabric.Link l : fabric.links()) {
            if (has(bridges, l.aBridge(), l.aBridge() + "-" + l.aPort(), l.aPort())
                    && has(bridges, l.bBridge(), l.bBridge() + "-" + l.bPort(), l.bPort())) {
                links.add(l);
            }
        }
        Map<String, LabTopology.Attachment> hosts = new HashMap<>();
        for (LabFabric.Host h : fabric.hosts()) {
            String veth = h.ns() + "-" + h.iface();
            bridges.forEach((bridge, ifaces) -> {
                Long ofport = ifaces.get(veth);
                String device = deviceOfBridge.get(bridge);
                if (ofport != null && device != null) {
                    hosts.put(h.name(), new LabTopology.Attachment(device, ofport));
                }
            });
        }
        return new LabTopology.State(devices, ports, links, hosts);
    }

    private static boolean has(Map<String, Map<String, Long>> bridges, String bridge, String iface, long port) {
        Map<String, Long> ifaces = bridges.get(bridge);
        return ifaces != null && Long.valueOf(port).equals(ifaces.get(iface));
    }

    private static List<String> uuids(JsonNode value) {
        List<String> out = new ArrayList<>();
        if (value.isArray() && value.size() == 2 && "uuid".equals(value.get(0).asText())) {
            out.add(value.get(1).asText());
        } else if (value.isArray() && value.size() == 2 && "set".equals(value.get(0).asText())) {
            for (JsonNode u : value.get(1)) {
                out.add(u.get(1).asText());
            }
        }
        return out;
    }

    /** Stops polling. */
    @Override
    public void close() {
        closed = true;
        Process p = monitor;
        if (p != null) {
            p.destroy();
        }
        timer.shutdownNow();
    }
}
