package org.mcast4ai.lab;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.onosproject.net.DeviceId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.onlab.util.Tools.groupedThreads;

/**
 * What of the P4 lab exists, read as ONOS's providers learn it: a switch is there while its runtime answers on its
 * thrift port (ONOS's P4Runtime channel), a port while its veth is up, a link while both its ports are (ONOS's LLDP
 * sees both ends; a port whose alias says {@code mcast4ai-port-down} is down), a host while its leaf and its veth
 * are. Polled every {@link #POLL_MS} ms; a switch that comes
 * back is reported first to the stand-ins of ONOS's stores (which put back what they hold, as ONOS's flow and
 * group audits do), then to the topology, whose observers raise ONOS's events.
 */
public final class Bmv2TopologyWatcher implements AutoCloseable {
    /** How often the lab is read. */
    static final long POLL_MS = 200;
    private static final Logger log = LoggerFactory.getLogger(Bmv2TopologyWatcher.class);

    private final LabTopology topology;
    private final Map<DeviceId, Integer> thrift;
    private final Map<String, String> bridges = new HashMap<>();
    private final Consumer<DeviceId> returned;
    private final Consumer<DeviceId> gone;
    // polls in a row a switch did not answer: it is gone after MISSES (a loaded machine may answer late once)
    private final Map<String, Integer> misses = new HashMap<>();
    static final int MISSES = 3;
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(groupedThreads("mcast4ai-lab", "bmv2-watch"));

    /**
     * @param topology the topology to keep up to date
     * @param thrift   each switch's thrift port
     * @param returned told of a switch that came back (possibly empty), before the topology
     * @param gone     told of a switch that went away
     */
    public Bmv2TopologyWatcher(LabTopology topology, Map<DeviceId, Integer> thrift, Consumer<DeviceId> returned,
                               Consumer<DeviceId> gone) {
        this.topology = topology;
        this.thrift = Map.copyOf(thrift);
        this.returned = returned;
        this.gone = gone;
        topology.fabric().switches().forEach(s -> bridges.put(s.deviceId(), s.bridge()));
    }

    /** Starts polling. */
    public void start() {
        timer.scheduleWithFixedDelay(() -> {
            try {
                poll();
            } catch (RuntimeException e) {
                log.warn("reading the P4 lab failed: {}", e.toString());
            }
        }, POLL_MS, POLL_MS, TimeUnit.MILLISECONDS);
    }

    /** Reads the lab once and records what changed. */
    public synchronized void poll() {
        LabFabric fabric = topology.fabric();
        Set<String> alive = new TreeSet<>();
        LabTopology.State now = topology.state();
        for (LabFabric.Switch s : fabric.switches()) {
            Integer port = thrift.get(DeviceId.deviceId(s.deviceId()));
            boolean answered = port != null && answers(port);
            int missed = answered ? 0 : misses.getOrDefault(s.deviceId(), 0) + 1;
            misses.put(s.deviceId(), missed);
            if (answered || now.devices().contains(s.deviceId()) && missed < MISSES) {
                alive.add(s.deviceId());
            }
        }
        Map<String, Set<Long>> ports = new HashMap<>();
        alive.forEach(d -> ports.put(d, new TreeSet<>()));
        ImmutableSet.Builder<LabFabric.Link> links = ImmutableSet.builder();
        for (LabFabric.Link l : fabric.links()) {
            boolean a = alive.contains(l.a()) && up(bridges.get(l.a()) + "-" + l.aPort());
            boolean b = alive.contains(l.b()) && up(bridges.get(l.b()) + "-" + l.bPort());
            if (a) {
                ports.get(l.a()).add(l.aPort());
            }
            if (b) {
                ports.get(l.b()).add(l.bPort());
            }
            if (a && b) {
                links.add(l);
            }
        }
        ImmutableMap.Builder<String, LabTopology.Attachment> hosts = ImmutableMap.builder();
        for (LabFabric.Host h : fabric.hosts()) {
            if (alive.contains(h.deviceId()) && up(h.ns() + "-" + h.iface())) {
                ports.get(h.deviceId()).add(h.port());
                hosts.put(h.name(), new LabTopology.Attachment(h.deviceId(), h.port()));
            }
        }
        LabTopology.State before = topology.state();
        for (String d : alive) {
            if (!before.devices().contains(d)) {
                returned.accept(DeviceId.deviceId(d));
            }
        }
        for (String d : before.devices()) {
            if (!alive.contains(d)) {
                gone.accept(DeviceId.deviceId(d));
            }
        }
        topology.update(new LabTopology.State(alive, ports, links.build(), hosts.build()));
    }

    private static boolean answers(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean up(String iface) {
        try {
            String state = Files.readString(Path.of("/sys/class/net", iface, "operstate")).trim();
            // a cut link's ports say so in their alias (tools/lab/fabric --p4 fail-link: BMv2 stalls on a port
            // whose interface goes down, so the lab cuts a link by dropping its frames instead)
            String alias = Files.readString(Path.of("/sys/class/net", iface, "ifalias")).trim();
            return (state.equals("up") || state.equals("unknown")) && !alias.equals("mcast4ai-port-down");
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
