package org.mcast4ai.lab;

import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.core.CoreService;
import org.onosproject.event.EventDeliveryService;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.host.HostService;
import org.onosproject.net.intent.WorkPartitionService;
import org.onosproject.net.link.LinkService;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.TestStorageService;

import java.net.URI;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.onlab.util.Tools.groupedThreads;

/**
 * One running lab: the ONOS services over a fabric, the mcast4ai components hosted on them, and
 * the REST API on loopback. Used by {@link LabRunner} and, in-process, by the tests.
 */
public final class Lab implements AutoCloseable {

    /** Components hosted by default, in no particular order (the host resolves dependencies). */
    public static final List<String> COMPONENTS = List.of(
            "org.onosproject.codec.impl.CodecManager",
            "org.mcast4ai.codec.Mcast4aiCodecRegistrator",
            "org.mcast4ai.impl.store.DistributedP2mpGroupStore",
            "org.mcast4ai.impl.P2mpGroupManager");

    /** The REST module's JAX-RS application. */
    public static final String REST_APPLICATION = "org.mcast4ai.rest.Mcast4aiWebApplication";
    /** The group manager component. */
    static final String MANAGER = "org.mcast4ai.impl.P2mpGroupManager";

    private final LabFabric fabric;
    private final ServiceRegistry registry = new ServiceRegistry();
    private final SwitchQueue ovsExecutor;
    private final ExecutorService switchPool =
            Executors.newCachedThreadPool(groupedThreads("mcast4ai-lab", "switch-%d"));
    private final LabLinkService linkService;
    private final OvsFlowRuleService flowRuleService;
    private final OvsGroupService groupService;
    private final LabEventDispatcher events = new LabEventDispatcher();
    private final ComponentHost host;
    private final LabTopology topology;
    private final OvsTopologyWatcher watcher;
    private final ScheduledExecutorService auditTimer =
            Executors.newSingleThreadScheduledExecutor(groupedThreads("mcast4ai-lab", "audit-%d"));
    private RestServer rest;
    private final PersistentStorageService storage;
    private final Ofctl ofctl;

    /** How the lab stands in for ONOS's providers; the defaults are what {@link #start} uses. */
    public static final class Settings {
        /**
         * How often Open vSwitch's database is read for bridges, ports and hosts that came or went, besides a read
         * as soon as {@code ovsdb-client monitor} reports a change of the Interface table (ONOS hears of a port from
         * the switch's port status message, at once).
         */
        public long topologyPollMs = 500;
        /**
         * How often the flow and group tables of every switch are compared with the stores (ONOS's statistics
         * polls; 0 never): missing entries are installed again, unknown ones deleted, pending groups confirmed.
         */
        public long auditMs = 1000;
        /**
         * How often the group tables are compared and pending groups confirmed (ONOS 2.7's {@code groupPollInterval}
         * is 10 s, its flow poll 5 s; the lab polls both every second by default so that its fault suite runs in
         * minutes); 0 never.
         */
        public long groupAuditMs = 1000;
        /**
         * File the store is kept in across restarts of the lab (ONOS keeps its store when one instance restarts);
         * null keeps it in memory only.
         */
        public java.nio.file.Path stateFile;
        /**
         * At most this many flow batches queued one after another are programmed together, stage by stage, one
         * bundle per switch and stage (1: every batch on its own, as before batching).
         */
        public int joinedBatches = 512;
        /** Users and roles of the REST API (Karaf's users.properties format); null: ONOS's default onos/rocks. */
        public java.nio.file.Path users;
        /** Address the REST API listens on: loopback unless told otherwise. */
        public String bind = "127.0.0.1";
        /** Unicast IPv4 routes to every host (another application's rules, for baselines): off by default. */
        public boolean unicastRoutes;
        /** The group manager's settings over its defaults, as {@code cfg set} would give them on ONOS. */
        public final java.util.Map<String, String> managerConfig = new java.util.LinkedHashMap<>();
    }

    private Lab(LabFabric fabric, Ofctl ofctl, Settings settings) {
        this.fabric = fabric;
        this.ofctl = ofctl;
        this.ovsExecutor = new SwitchQueue("mcast4ai-lab-ovs", settings.joinedBatches);
        LabTopology.State initial;
        try {
            String read = OvsTopologyWatcher.ovsVsctl().get();
            initial = read == null ? LabTopology.State.full(fabric) : OvsTopologyWatcher.parse(fabric, read);
        } catch (RuntimeException e) {
            initial = LabTopology.State.full(fabric);
        }
        this.topology = new LabTopology(fabric, initial);
        LabDeviceService deviceService = new LabDeviceService(topology);
        this.linkService = new LabLinkService(topology);
        this.flowRuleService = new OvsFlowRuleService(fabric, ofctl, ovsExecutor, switchPool);
        this.groupService = new OvsGroupService(fabric, ofctl, ovsExecutor, switchPool);
        flowRuleService.setAvailability(deviceService::isAvailable);
        groupService.setAvailability(deviceService::isAvailable);
        groupService.setAddedOnAudit(settings.groupAuditMs > 0);
        if (settings.stateFile != null) {
            try {
                this.storage = new PersistentStorageService(settings.stateFile);
            } catch (java.io.IOException e) {
                throw new IllegalStateException("cannot read the lab store " + settings.stateFile + ": " + e, e);
            }
        } else {
            this.storage = null;
        }
        registry.register(CoreService.class, new LabCoreService())
                .register(StorageService.class, storage != null ? storage : new TestStorageService())
                .register(DeviceService.class, deviceService)
                .register(LinkService.class, linkService)
                .register(HostService.class, new LabHostService(topology))
                .register(FlowRuleService.class, flowRuleService)
                .register(GroupService.class, groupService)
                .register(WorkPartitionService.class, new LabWorkPartitionService())
                .register(ComponentConfigService.class, new ComponentConfigAdapter())
                .register(EventDeliveryService.class, events);
        this.host = new ComponentHost(registry);
        this.watcher = new OvsTopologyWatcher(topology, OvsTopologyWatcher.ovsVsctl(), settings.topologyPollMs);
        watcher.watchChanges(OvsTopologyWatcher.MONITOR);
        scheduleAudits(settings, deviceService);
    }

    // ONOS's OpenFlow providers start a switch's flow and group statistics polls when it connects, the first one
    // second later and then at their periods: the lab's first polls come one second after it starts, and a device
    // that (re)connects is polled one second later
    private static final long FIRST_POLL_MS = 1000;

    private void scheduleAudits(Settings settings, LabDeviceService deviceService) {
        if (settings.auditMs > 0 && settings.auditMs == settings.groupAuditMs) {
            // both tables read at once, beside the programming; groups compared and repaired first, before the
            // flows that point to them
            auditTimer.scheduleAtFixedRate(() -> audit(d -> true, true, true),
                    Math.min(FIRST_POLL_MS, settings.auditMs), settings.auditMs, TimeUnit.MILLISECONDS);
        } else {
            if (settings.groupAuditMs > 0) {
                auditTimer.scheduleAtFixedRate(() -> audit(d -> true, true, false),
                        Math.min(FIRST_POLL_MS, settings.groupAuditMs), settings.groupAuditMs, TimeUnit.MILLISECONDS);
            }
            if (settings.auditMs > 0) {
                auditTimer.scheduleAtFixedRate(() -> audit(d -> true, false, true),
                        Math.min(FIRST_POLL_MS, settings.auditMs), settings.auditMs, TimeUnit.MILLISECONDS);
            }
        }
        boolean groups = settings.groupAuditMs > 0;
        boolean flows = settings.auditMs > 0;
        if (groups || flows) {
            deviceService.addListener(event -> {
                DeviceId id = event.subject().id();
                boolean connected = event.type() == DeviceEvent.Type.DEVICE_ADDED
                        || event.type() == DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED
                        && deviceService.isAvailable(id);
                if (connected && !auditTimer.isShutdown()) {
                    auditTimer.schedule(() -> audit(id::equals, groups, flows), FIRST_POLL_MS, TimeUnit.MILLISECONDS);
                }
            });
        }
    }

    // a poll that fails is logged and the next one runs: an exception would end a fixed-rate schedule
    private void audit(java.util.function.Predicate<DeviceId> which, boolean groups, boolean flows) {
        try {
            java.util.concurrent.CompletableFuture<Runnable> g = groups ? groupService.startAudit(which) : null;
            java.util.concurrent.CompletableFuture<Runnable> f = flows ? flowRuleService.startAudit(which) : null;
            if (g != null) {
                ovsExecutor.execute(g.join());
            }
            if (f != null) {
                ovsExecutor.execute(f.join());
            }
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(Lab.class).warn("audit failed: {}", e.toString());
        }
    }

    /**
     * Starts a lab: hosts the components and serves the REST API on {@code 127.0.0.1:port}.
     *
     * @param fabric     lab fabric
     * @param ofctl      ovs-ofctl runner
     * @param port       TCP port on loopback (0 is not allowed: pick a free one)
     * @param components component class names to host
     * @return the running lab
     * @throws IllegalStateException if a component or the REST application cannot start
     */
    public static Lab start(LabFabric fabric, Ofctl ofctl, int port, List<String> components) {
        return start(fabric, ofctl, port, components, new Settings());
    }

    /**
     * Starts a lab with explicit settings.
     *
     * @param fabric     lab fabric
     * @param ofctl      ovs-ofctl runner
     * @param port       TCP port on loopback
     * @param components component class names to host
     * @param settings   poll periods
     * @return the running lab
     * @throws IllegalStateException if a component or the REST application cannot start
     */
    public static Lab start(LabFabric fabric, Ofctl ofctl, int port, List<String> components, Settings settings) {
        LabRealm realm;
        try {
            realm = LabRealm.read(settings.users);
        } catch (java.io.IOException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot read the users file " + settings.users + ": " + e.getMessage(), e);
        }
        Lab lab = new Lab(fabric, ofctl, settings);
        try {
            settings.managerConfig.forEach((k, v) -> lab.host.configure(MANAGER, k, v));
            lab.host.activate(components);
            if (settings.unicastRoutes) {
                LabUnicastRoutes.install(fabric, lab.linkService, lab.registry.get(CoreService.class),
                        lab.flowRuleService);
            }
            String host = settings.bind.contains(":") ? "[" + settings.bind + "]" : settings.bind;
            lab.rest = RestServer.start(REST_APPLICATION,
                    URI.create("http://" + host + ":" + port + "/onos/mcast4ai/"), lab.registry, realm);
        } catch (RuntimeException e) {
            lab.close();
            throw e;
        }
        return lab;
    }

    /**
     * Returns the REST base URI (ends with {@code /onos/mcast4ai/}).
     *
     * @return base URI
     */
    public URI base() {
        return rest.base();
    }

    /**
     * Returns the fabric.
     *
     * @return fabric
     */
    public LabFabric fabric() {
        return fabric;
    }

    /**
     * Returns the service registry (also the REST service directory).
     *
     * @return registry
     */
    public ServiceRegistry registry() {
        return registry;
    }

    /**
     * Returns what of the fabric exists now.
     *
     * @return the topology
     */
    public LabTopology topology() {
        return topology;
    }

    /** Reads Open vSwitch's database now instead of at the next poll. */
    public void pollTopology() {
        watcher.poll();
    }

    /**
     * Returns the link service.
     *
     * @return link service
     */
    public LabLinkService links() {
        return linkService;
    }

    /**
     * Returns the OVS flow rule service.
     *
     * @return flow rule service
     */
    public OvsFlowRuleService flows() {
        return flowRuleService;
    }

    /**
     * Returns the OVS group service.
     *
     * @return group service
     */
    public OvsGroupService groups() {
        return groupService;
    }

    /**
     * Stops serving, deactivates the components and stops the OVS worker. Removes nothing from
     * the switches.
     */
    @Override
    public void close() {
        watcher.close();
        auditTimer.shutdownNow();
        if (rest != null) {
            rest.close();
        }
        host.close();
        if (storage != null) {
            storage.close();
        }
        events.close();
        ovsExecutor.shutdown(10_000);
        switchPool.shutdown();
        if (ofctl instanceof OvsOpenFlow) {
            ((OvsOpenFlow) ofctl).close();
        }
    }
}
