package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.mcast4ai.impl.p4.Mcast4aiPipeconf;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.core.CoreService;
import org.onosproject.event.EventDeliveryService;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.packet.PacketService;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.host.HostService;
import org.onosproject.net.intent.WorkPartitionService;
import org.onosproject.net.link.LinkService;
import org.onosproject.net.pi.service.PiPipeconfService;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.TestStorageService;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.onlab.util.Tools.groupedThreads;

/**
 * The lab over a fabric of BMv2 switches running mcast4ai.p4 ({@code tools/lab/fabric up --p4}): the same
 * components as the Open vSwitch lab plus the P4 fabric's ({@code P4FabricManager}), every switch bound to the
 * mcast4ai pipeconf, and ONOS's flow rule and group services standing in over BMv2's runtime
 * ({@link Bmv2FlowRuleService}, {@link Bmv2GroupService}): the app's own PI entries and multicast groups, written
 * and acknowledged as ONOS's P4Runtime driver would, and its packet service over the switches' CPU ports
 * ({@link Bmv2PacketService}). What of the fabric exists is read from the lab
 * ({@link Bmv2TopologyWatcher}): switches, links and hosts fail and come back.
 */
public final class P4Lab implements AutoCloseable {
    /** The components: the Open vSwitch lab's and the P4 fabric's static state. */
    public static final List<String> COMPONENTS;

    static {
        List<String> c = new ArrayList<>(Lab.COMPONENTS);
        c.add("org.mcast4ai.impl.p4.P4FabricManager");
        COMPONENTS = List.copyOf(c);
    }

    private final ServiceRegistry registry = new ServiceRegistry();
    private final ExecutorService writer = Executors.newSingleThreadExecutor(groupedThreads("mcast4ai-lab", "bmv2"));
    private final LabEventDispatcher events = new LabEventDispatcher();
    private final ComponentHost host = new ComponentHost(registry);
    private final Bmv2FlowRuleService flows;
    private final Bmv2GroupService groups;
    private final PersistentStorageService storage;
    private final Bmv2Cli cli = new Bmv2Cli();
    private RestServer rest;
    private final Bmv2TopologyWatcher watcher;
    private final Bmv2PacketService packets;

    private P4Lab(LabFabric fabric, Path file, Map<DeviceId, Integer> thrift, Lab.Settings settings)
            throws IOException {
        LabTopology topology = new LabTopology(fabric, LabTopology.State.full(fabric));
        cli.connect(thrift.values());
        flows = new Bmv2FlowRuleService(thrift, P4InfoOrder.pipeconf(), cli, writer);
        groups = new Bmv2GroupService(thrift, cli, writer);
        storage = settings.stateFile == null ? null : new PersistentStorageService(settings.stateFile);
        packets = new Bmv2PacketService(file);
        // a switch back is empty: the stores' stand-ins put back what they hold before ONOS's events go out
        watcher = new Bmv2TopologyWatcher(topology, thrift, d -> {
            groups.reinstall(d);
            flows.reinstall(d);
        }, d -> cli.drop(thrift.get(d)));
        registry.register(CoreService.class, new LabCoreService())
                .register(StorageService.class, storage != null ? storage : new TestStorageService())
                .register(DeviceService.class, new LabDeviceService(topology))
                .register(LinkService.class, new LabLinkService(topology))
                .register(HostService.class, new LabHostService(topology))
                .register(FlowRuleService.class, flows)
                .register(GroupService.class, groups)
                .register(PacketService.class, packets)
                .register(PiPipeconfService.class, new LabPipeconfService(thrift.keySet(), Mcast4aiPipeconf.ID))
                .register(WorkPartitionService.class, new LabWorkPartitionService())
                .register(ComponentConfigService.class, new ComponentConfigAdapter())
                .register(EventDeliveryService.class, events);
    }

    /**
     * @param file a fabric description
     * @return true if it describes a P4 lab fabric
     * @throws IOException if it cannot be read
     */
    public static boolean isP4(Path file) throws IOException {
        return new ObjectMapper().readTree(Files.readAllBytes(file)).path("p4").asBoolean(false);
    }

    /**
     * @param file a P4 fabric description
     * @return each switch's thrift port
     * @throws IOException if it cannot be read
     */
    static Map<DeviceId, Integer> thriftPorts(Path file) throws IOException {
        Map<DeviceId, Integer> out = new LinkedHashMap<>();
        for (JsonNode s : new ObjectMapper().readTree(Files.readAllBytes(file)).path("switches")) {
            if (!s.path("thrift").canConvertToInt()) {
                throw new IllegalArgumentException("switch " + s.path("name").asText() + " has no thrift port");
            }
            out.put(DeviceId.deviceId(s.path("deviceId").asText()), s.path("thrift").asInt());
        }
        return out;
    }

    /**
     * Starts the lab over a P4 fabric: hosts the components and serves the REST API.
     *
     * @param fabric     the fabric
     * @param file       its description (the switches' thrift ports)
     * @param port       the REST port
     * @param settings   the lab's settings (state file, users, bind address, the group manager's settings)
     * @return the running lab
     * @throws IllegalStateException if it cannot start
     */
    public static P4Lab start(LabFabric fabric, Path file, int port, Lab.Settings settings) {
        P4Lab lab;
        LabRealm realm;
        try {
            realm = LabRealm.read(settings.users);
            lab = new P4Lab(fabric, file, thriftPorts(file), settings);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        try {
            settings.managerConfig.forEach((k, v) -> lab.host.configure(Lab.MANAGER, k, v));
            // the app starts from the lab as it is, as ONOS's stores hold what its providers found: a link down
            // when the controller (re)starts is not in the first plan
            lab.watcher.poll();
            lab.host.activate(COMPONENTS);
            String h = settings.bind.contains(":") ? "[" + settings.bind + "]" : settings.bind;
            lab.watcher.start();
            lab.rest = RestServer.start(Lab.REST_APPLICATION, URI.create("http://" + h + ":" + port
                    + "/onos/mcast4ai/"), lab.registry, realm);
        } catch (RuntimeException e) {
            lab.close();
            throw e;
        }
        return lab;
    }

    /** @return the REST base URI (ends with {@code /onos/mcast4ai/}) */
    public URI base() {
        return rest.base();
    }

    /** @return the flow rule service over the switches */
    public Bmv2FlowRuleService flows() {
        return flows;
    }

    /** Stops serving and deactivates the components; the switches keep what they hold. */
    @Override
    public void close() {
        watcher.close();
        if (rest != null) {
            rest.close();
        }
        host.close();
        if (storage != null) {
            storage.close();
        }
        events.close();
        writer.shutdownNow();
        cli.close();
        packets.close();
    }
}
