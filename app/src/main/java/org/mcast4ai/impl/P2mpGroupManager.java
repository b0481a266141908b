package org.mcast4ai.impl;

import org.mcast4ai.impl.compile.BitmapReplication;
import org.mcast4ai.impl.compile.Desired;
import org.mcast4ai.impl.compile.GroupCompiler;
import org.mcast4ai.impl.fabric.FabricSnapshotFactory;
import org.mcast4ai.impl.fabric.HostResolver;
import org.mcast4ai.impl.lifecycle.GroupInstaller;
import org.mcast4ai.impl.lifecycle.GroupLanes;
import org.mcast4ai.impl.lifecycle.GroupScheduler;
import org.mcast4ai.impl.lifecycle.OrphanSweep;
import org.mcast4ai.impl.monitor.GroupIndex;
import org.mcast4ai.impl.monitor.TopologyMonitor;
import org.mcast4ai.impl.program.OpenFlowTreeProgrammer;
import org.mcast4ai.impl.store.P2mpGroupStore;
import org.mcast4ai.impl.store.P2mpGroupStoreDelegate;
import com.google.common.collect.ImmutableList;
import java.util.concurrent.ScheduledFuture;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.BitmapPlan;
import org.mcast4ai.impl.bitmap.BitmapStamp;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupListener;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.P2mpGroupService;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.engine.FabricTreeComputer;
import org.mcast4ai.engine.TreeComputer;
import org.mcast4ai.impl.bitmap.BitmapPlanner;
import org.mcast4ai.impl.bitmap.OpenFlowBitmapProgrammer;
import org.mcast4ai.impl.bitmap.OpenFlowStampProgrammer;
import org.mcast4ai.impl.program.Programmer;
import org.mcast4ai.impl.compile.P4Replication;
import org.mcast4ai.impl.p4.Mcast4aiPipeconf;
import org.mcast4ai.impl.p4.P4FabricManager;
import org.mcast4ai.impl.p4.P4Stamp;
import org.mcast4ai.impl.p4.P4Views;
import org.mcast4ai.impl.p4.P4StampProgrammer;
import org.onosproject.net.pi.service.PiPipeconfService;
import org.onlab.packet.IpPrefix;
import org.onlab.util.Tools;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.host.HostService;
import org.onosproject.net.intent.WorkPartitionEvent;
import org.onosproject.net.intent.WorkPartitionEventListener;
import org.onosproject.net.intent.WorkPartitionService;
import org.onosproject.net.link.LinkService;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.mcast4ai.impl.OsgiPropertyConstants.ADDRESS_POOL;
import static org.mcast4ai.impl.OsgiPropertyConstants.ADDRESS_POOL_DEFAULT;
import static org.mcast4ai.impl.OsgiPropertyConstants.VIRTUAL_PEER_POOL;
import static org.mcast4ai.impl.OsgiPropertyConstants.VIRTUAL_PEER_POOL_DEFAULT;
import static org.mcast4ai.impl.OsgiPropertyConstants.AUDIT_INTERVAL_MS;
import static org.mcast4ai.impl.OsgiPropertyConstants.HOST_TENANTS;
import static org.mcast4ai.impl.OsgiPropertyConstants.HOST_TENANTS_DEFAULT;
import static org.mcast4ai.impl.OsgiPropertyConstants.AUDIT_INTERVAL_MS_DEFAULT;
import static org.mcast4ai.impl.OsgiPropertyConstants.FLOW_TABLE_ID;
import static org.mcast4ai.impl.OsgiPropertyConstants.FLOW_TABLE_ID_DEFAULT;
import static org.mcast4ai.impl.OsgiPropertyConstants.INSTALL_TIMEOUT_MS;
import static org.mcast4ai.impl.OsgiPropertyConstants.INSTALL_TIMEOUT_MS_DEFAULT;
import static org.mcast4ai.impl.OsgiPropertyConstants.INSTALLER_THREADS;
import static org.mcast4ai.impl.OsgiPropertyConstants.INSTALLER_THREADS_DEFAULT;
import static org.mcast4ai.impl.OsgiPropertyConstants.MAX_GROUPS_PER_TENANT;
import static org.mcast4ai.impl.OsgiPropertyConstants.MAX_GROUPS_PER_TENANT_DEFAULT;
import static org.mcast4ai.impl.OsgiPropertyConstants.MAX_RECEIVERS_PER_GROUP;
import static org.mcast4ai.impl.OsgiPropertyConstants.MAX_RECEIVERS_PER_GROUP_DEFAULT;
import static org.onlab.util.Tools.groupedThreads;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * The group service: validates requests, keeps groups in the distributed store and has the groups this
 * instance owns ({@link WorkPartitionService}, keyed by group id) compiled and installed. Every write goes
 * through the store; the instance that owns a group reacts to the store's events, so a request handled by
 * any instance of the cluster is carried out by exactly one.
 */
@Component(immediate = true,
        service = {P2mpGroupService.class, P2mpGroupAdminService.class},
        property = {
                ADDRESS_POOL + "=" + ADDRESS_POOL_DEFAULT,
                VIRTUAL_PEER_POOL + "=" + VIRTUAL_PEER_POOL_DEFAULT,
                MAX_RECEIVERS_PER_GROUP + ":Integer=" + MAX_RECEIVERS_PER_GROUP_DEFAULT,
                MAX_GROUPS_PER_TENANT + ":Integer=" + MAX_GROUPS_PER_TENANT_DEFAULT,
                FLOW_TABLE_ID + ":Integer=" + FLOW_TABLE_ID_DEFAULT,
                INSTALL_TIMEOUT_MS + ":Integer=" + INSTALL_TIMEOUT_MS_DEFAULT,
                INSTALLER_THREADS + ":Integer=" + INSTALLER_THREADS_DEFAULT,
                AUDIT_INTERVAL_MS + ":Integer=" + AUDIT_INTERVAL_MS_DEFAULT,
                HOST_TENANTS + "=" + HOST_TENANTS_DEFAULT,
        })
public class P2mpGroupManager extends AbstractListenerManager<P2mpGroupEvent, P2mpGroupListener>
        implements P2mpGroupAdminService {

    /** ONOS application name. */
    public static final String APP_NAME = "org.mcast4ai.app";

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected P2mpGroupStore store;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected LinkService linkService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected HostService hostService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleService flowRuleService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected WorkPartitionService workPartitionService;

    /** Static BITMAP egress groups; without it (tests, a host without groups) BITMAP is unavailable. */
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected GroupService groupService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService cfgService;

    /**
     * Which switches run the mcast4ai P4 program (ONOS's core has it before the app starts); without it every
     * switch is taken for OpenFlow.
     */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    protected volatile PiPipeconfService pipeconfService;

    /**
     * The P4 fabric's static state (its leaf numbers), which this manager's loop runs on its fabric lane; until it
     * is bound, groups on P4 switches wait.
     */
    protected volatile P4FabricManager p4Fabric;

    /** @param m the P4 fabric's state: run by this manager's loop from now on */
    @Reference(name = "p4Fabric", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindP4Fabric")
    protected void bindP4Fabric(P4FabricManager m) {
        p4Fabric = m;
        if (scheduler != null) {
            m.attach(p4Loop);
        }
    }

    /** @param m the P4 fabric's state going away */
    protected void unbindP4Fabric(P4FabricManager m) {
        m.detach(p4Loop);
        if (p4Fabric == m) {
            p4Fabric = null;
        }
    }

    // the settings' fields, named as the properties: ONOS's cfg catalog generator reads their defaults from them
    /** IPv4 multicast prefix group addresses are allocated from. */
    private String addressPool = ADDRESS_POOL_DEFAULT;

    /** IPv4 prefix virtual peer addresses of ACK_AGGREGATION groups are allocated from. */
    private String virtualPeerPool = VIRTUAL_PEER_POOL_DEFAULT;

    /** Largest receiver set a group may have. */
    private int maxReceiversPerGroup = MAX_RECEIVERS_PER_GROUP_DEFAULT;

    /** Most groups (in any state) one tenant may hold. */
    private int maxGroupsPerTenant = MAX_GROUPS_PER_TENANT_DEFAULT;

    /** Hosts owned by tenants (checked when a group names them). */
    private volatile HostTenants hostTenants = HostTenants.NONE;

    /** OpenFlow table the TREE replication rules go into (changes apply while no group holds entries). */
    private int flowTableId = FLOW_TABLE_ID_DEFAULT;

    /** Milliseconds to wait for switches to acknowledge a group's entries before it is FAILED; 0 waits forever. */
    private int installTimeoutMs = INSTALL_TIMEOUT_MS_DEFAULT;

    /** Threads that compile and program groups (a group always on the same one); 0: one per core, at most 8. */
    private int installerThreads = INSTALLER_THREADS_DEFAULT;

    /** Milliseconds between audits of the groups' records against ONOS's flow store; 0 turns the audit off. */
    private int auditIntervalMs = AUDIT_INTERVAL_MS_DEFAULT;

    // Set by tests before activate (then it is the only lane); otherwise lanes are created on activate.
    Executor executor;
    ScheduledExecutorService timer;
    TreeComputer treeComputer;

    private ExecutorService[] ownLanes;
    private GroupLanes lanes;
    private ScheduledExecutorService ownTimer;
    private volatile IpPrefix pool = IpPrefix.valueOf(ADDRESS_POOL_DEFAULT);
    private volatile IpPrefix peerPool = IpPrefix.valueOf(VIRTUAL_PEER_POOL_DEFAULT);
    private ApplicationId appId;
    private HostResolver hostResolver;
    private org.mcast4ai.impl.reliable.Aggregations aggregations;
    private RequestValidator validator;
    private FabricSnapshotFactory snapshots;
    private OpenFlowTreeProgrammer programmer;
    private BitmapReplication bitmaps;
    private GroupIndex index;
    private GroupInstaller installer;
    private volatile org.mcast4ai.impl.trace.GroupTracer tracer;
    private TopologyMonitor topology;
    private volatile GroupScheduler scheduler;
    private ScheduledFuture<?> audit;
    private final InternalStoreDelegate delegate = new InternalStoreDelegate();
    // the P4 fabric's static state runs on this loop's fabric lane, before the groups that wait on it
    private final P4FabricManager.Loop p4Loop = new P4FabricLane(() -> scheduler, () -> timer, () -> store.getAll(),
            this::getAggregation, this::reportAggregation);
    private final WorkPartitionEventListener partitionListener = new InternalPartitionListener();
    // another instance acknowledged the static tables: the groups waiting for them here go on
    private final Runnable staticTablesChanged = () -> {
        GroupScheduler s = scheduler;
        if (s != null) {
            s.later(() -> {
                if (bitmaps.staticReady(snapshots.snapshot())) {
                    s.staticTablesInPlace();
                }
            });
        }
    };

    /**
     * Starts the service.
     *
     * @param context component context (may be null outside OSGi)
     */
    @Activate
    protected void activate(ComponentContext context) {
        appId = coreService.registerApplication(APP_NAME);
        if (cfgService != null) {
            cfgService.registerProperties(getClass());
        }
        readConfiguration(context);
        if (executor != null) {
            lanes = new GroupLanes(executor);
        } else {
            int n = installerThreads > 0 ? installerThreads
                    : Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors()));
            ownLanes = new ExecutorService[n];
            for (int i = 0; i < n; i++) {
                ThreadPoolExecutor lane = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                        new LinkedBlockingQueue<>(), groupedThreads("onos/mcast4ai", "installer-" + i, log));
                lane.prestartCoreThread(); // every lane is used: start them now, visibly
                ownLanes[i] = lane;
            }
            lanes = new GroupLanes(ownLanes);
        }
        if (timer == null) {
            ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1,
                    groupedThreads("onos/mcast4ai", "timer", log));
            // acknowledged batches cancel their timeouts: drop them from the queue at once instead of holding
            // every finished attempt (and its plans) for the whole timeout
            t.setRemoveOnCancelPolicy(true);
            ownTimer = t;
            timer = ownTimer;
        }
        TreeComputer trees = treeComputer != null ? treeComputer : new FabricTreeComputer();
        hostResolver = new HostResolver(hostService);
        validator = new RequestValidator(hostResolver, () -> hostTenants);
        aggregations = new org.mcast4ai.impl.reliable.Aggregations(store, hostResolver, System::currentTimeMillis);
        snapshots = new FabricSnapshotFactory(deviceService, linkService, hostService, hostResolver::nameOf);
        programmer = new OpenFlowTreeProgrammer(flowRuleService, appId, flowTableId, deviceService::isAvailable);
        programmer.setEdges(new SwitchEdges(linkService, hostService));
        index = new GroupIndex();
        // a switch bound to the mcast4ai P4 program holds no OpenFlow table: the OpenFlow static tables leave it out
        java.util.function.Predicate<DeviceId> onP4 = d -> {
            PiPipeconfService pipeconfs = pipeconfService;
            return pipeconfs != null && pipeconfs.ofDevice(d).flatMap(Mcast4aiPipeconf.Build::of).isPresent();
        };
        bitmaps = new BitmapReplication(store, hostResolver, groupService == null ? null
                : new OpenFlowBitmapProgrammer(flowRuleService, groupService, appId, flowTableId,
                        BitmapPlanner.DEFAULT_CHAIN_BASE, d -> deviceService.isAvailable(d) && !onP4.test(d)));
        List<Programmer> writers = new ArrayList<>(List.of(programmer));
        P4Replication p4 = null;
        if (groupService != null) {
            writers.add(new P4StampProgrammer(flowRuleService, groupService, appId, () -> {
                P4FabricManager m = p4Fabric;
                return (m == null ? Mcast4aiPipeconf.Build.DEFAULT : m.build()).leafSet();
            }));
            p4 = new P4Replication(onP4, () -> {
                P4FabricManager m = p4Fabric;
                return m == null ? null : m.bitIndices();
            }, hostResolver, () -> {
                P4FabricManager m = p4Fabric;
                return m == null ? Set.of() : m.unready();
            });
        }
        if (bitmaps.programmer() != null) {
            writers.add(new OpenFlowStampProgrammer(flowRuleService, bitmaps.programmer().planner()));
        }
        P4Replication headers = p4;
        tracer = new org.mcast4ai.impl.trace.GroupTracer(snapshots::view, hostResolver,
                bitmaps.programmer() == null ? null
                        : (f, stamp) -> {
                            // the tables as the switches hold them, over the links there are now
                            org.mcast4ai.impl.bitmap.BitmapLayout held = bitmaps.programmer().layoutInPlace();
                            return org.mcast4ai.impl.bitmap.BitmapWalk.walk(held != null ? held : bitmaps.layout(f),
                                    f, stamp);
                        },
                headers == null ? null : headers::trace);
        installer = new GroupInstaller(store, new Desired.Compiler(new GroupCompiler(hostResolver, trees), bitmaps, p4),
                snapshots, writers, deviceService::isAvailable, index, lanes, timer, System::currentTimeMillis,
                () -> installTimeoutMs);
        scheduler = new GroupScheduler(store, installer, lanes, workPartitionService, bitmaps, snapshots, index);
        scheduler.setFabricState(() -> p4Fabric);
        OrphanSweep sweep = new OrphanSweep(store, flowRuleService, appId, deviceService::isAvailable,
                installer.programmers(), bitmaps.programmer());
        if (groupService != null) {
            sweep.withGroups(groupService, () -> {
                List<DeviceId> ids = new ArrayList<>();
                deviceService.getAvailableDevices().forEach(d -> ids.add(d.id()));
                return ids;
            });
        }
        scheduler.setSweep(sweep);
        topology = new TopologyMonitor(deviceService, linkService, hostService, snapshots, index,
                lanes.fabricExecutor(), new TopologyMonitor.Handler() {
                    @Override
                    public void affected(Set<Long> groups, boolean improvement, String why) {
                        scheduler.topologyChanged(groups, improvement, why);
                    }

                    @Override
                    public void deviceReturned(DeviceId device) {
                        scheduler.deviceReturned(device);
                    }
                });
        if (eventDispatcher != null) {
            eventDispatcher.addSink(P2mpGroupEvent.class, listenerRegistry);
        }
        store.setDelegate(delegate);
        bitmaps.setOnStaticInPlace(() -> scheduler.later(scheduler::staticTablesInPlace));
        bitmaps.setOnStaticRefused(() -> scheduler.later(scheduler::staticTablesRefused));
        // one instance programs the static tables; the others learn from its record that they are in place
        bitmaps.setOwner(() -> workPartitionService.isMine(0L, Long::longValue));
        store.addStaticTablesListener(staticTablesChanged);
        bitmaps.setRetryTimer(timer);
        bitmaps.setNewest(snapshots::snapshot);
        topology.start();
        P4FabricManager p4State = p4Fabric;
        if (p4State != null) {
            p4State.attach(p4Loop);
        }
        workPartitionService.addListener(partitionListener);
        scheduler.later(scheduler::resumeOwnedGroups);
        // after a restart ONOS's flow store is empty while the records say INSTALLED: the first audit sends the
        // entries again before anything else is asked of the switches
        scheduler.later(scheduler::audit);
        if (auditIntervalMs > 0) {
            audit = timer.scheduleWithFixedDelay(() -> scheduler.later(scheduler::audit), auditIntervalMs,
                    auditIntervalMs, TimeUnit.MILLISECONDS);
        }
        log.info("Started with {} installer thread(s)", lanes.size());
    }

    /**
     * Stops the service; switch entries stay (another instance or a restart takes the groups over).
     *
     * @param context component context (may be null outside OSGi)
     */
    @Deactivate
    protected void deactivate(ComponentContext context) {
        workPartitionService.removeListener(partitionListener);
        store.removeStaticTablesListener(staticTablesChanged);
        P4FabricManager p4State = p4Fabric;
        if (p4State != null) {
            p4State.detach(p4Loop);
        }
        if (audit != null) {
            audit.cancel(false);
            audit = null;
        }
        if (topology != null) {
            topology.stop();
        }
        if (bitmaps != null && bitmaps.programmer() != null) {
            bitmaps.programmer().close();
        }
        store.unsetDelegate(delegate);
        if (eventDispatcher != null) {
            eventDispatcher.removeSink(P2mpGroupEvent.class);
        }
        if (cfgService != null) {
            cfgService.unregisterProperties(getClass(), false);
        }
        if (ownLanes != null) {
            for (ExecutorService lane : ownLanes) {
                lane.shutdown();
            }
            ownLanes = null;
        }
        lanes = null;
        if (ownTimer != null) {
            ownTimer.shutdownNow();
            ownTimer = null;
            timer = null;
        }
        log.info("Stopped");
    }

    /**
     * Applies changed configuration.
     *
     * @param context component context (may be null outside OSGi)
     */
    @Modified
    protected void modified(ComponentContext context) {
        readConfiguration(context);
    }

    private void readConfiguration(ComponentContext context) {
        Dictionary<?, ?> properties = context == null ? null : context.getProperties();
        if (properties == null) {
            return;
        }
        pool = prefix(properties, ADDRESS_POOL, pool, p -> IpPrefix.IPV4_MULTICAST_PREFIX.contains(p),
                "an IPv4 multicast prefix");
        addressPool = pool.toString();
        peerPool = prefix(properties, VIRTUAL_PEER_POOL, peerPool,
                p -> !IpPrefix.IPV4_MULTICAST_PREFIX.contains(p) && p.prefixLength() <= 26,
                "an IPv4 unicast prefix of at least 64 addresses");
        virtualPeerPool = peerPool.toString();
        String owners = Tools.get(properties, HOST_TENANTS);
        if (owners != null) {
            try {
                hostTenants = HostTenants.parse(owners);
            } catch (IllegalArgumentException e) {
                log.warn("{}: {}; keeping the previous setting", HOST_TENANTS, e.getMessage());
            }
        }
        maxReceiversPerGroup = positive(properties, MAX_RECEIVERS_PER_GROUP, maxReceiversPerGroup);
        maxGroupsPerTenant = positive(properties, MAX_GROUPS_PER_TENANT, maxGroupsPerTenant);
        Integer timeout = Tools.getIntegerProperty(properties, INSTALL_TIMEOUT_MS);
        if (timeout != null && timeout >= 0) {
            installTimeoutMs = timeout;
        }
        Integer auditMs = Tools.getIntegerProperty(properties, AUDIT_INTERVAL_MS);
        if (auditMs != null && auditMs >= 0) {
            auditIntervalMs = auditMs;
        }
        Integer threads = Tools.getIntegerProperty(properties, INSTALLER_THREADS);
        if (threads != null && (threads < 0 || threads > 64)) {
            log.warn("{} must be 0 (one per core) to 64; keeping {}", INSTALLER_THREADS, installerThreads);
        } else if (threads != null && threads != installerThreads) {
            if (lanes != null) {
                // the lanes are made on activation: a group must not change lanes while it has work queued
                log.warn("{} is now {}; it takes effect when the app restarts (running with {} lanes)",
                        INSTALLER_THREADS, threads, lanes.size());
            }
            installerThreads = threads;
        }
        Integer table = Tools.getIntegerProperty(properties, FLOW_TABLE_ID);
        if (table != null && table != flowTableId && table >= 0 && table < 255) {
            if (programmer != null && !store.programmedAll().isEmpty()) {
                log.warn("{} stays {} while groups hold entries in it", FLOW_TABLE_ID, flowTableId);
            } else {
                flowTableId = table;
                if (programmer != null) {
                    programmer.setTableId(table);
                }
            }
        }
        log.info("Settings: {}={}, {}={}, {}={}, {}={}, {}={}, {}={}, {}={}", ADDRESS_POOL, addressPool,
                VIRTUAL_PEER_POOL, virtualPeerPool,
                MAX_RECEIVERS_PER_GROUP, maxReceiversPerGroup, MAX_GROUPS_PER_TENANT, maxGroupsPerTenant,
                FLOW_TABLE_ID, flowTableId, INSTALL_TIMEOUT_MS, installTimeoutMs, INSTALLER_THREADS, installerThreads);
    }

    private IpPrefix prefix(Dictionary<?, ?> properties, String name, IpPrefix current,
                            java.util.function.Predicate<IpPrefix> rule, String what) {
        String text = Tools.get(properties, name);
        if (text == null || text.isBlank()) {
            return current;
        }
        try {
            IpPrefix p = IpPrefix.valueOf(text.trim());
            if (p.isIp4() && rule.test(p)) {
                return p;
            }
            log.warn("{} must be {}; keeping {}", name, what, current);
        } catch (IllegalArgumentException e) {
            log.warn("{} '{}' is not a prefix; keeping {}", name, text, current);
        }
        return current;
    }

    private int positive(Dictionary<?, ?> properties, String name, int current) {
        Integer v = Tools.getIntegerProperty(properties, name);
        if (v == null) {
            return current;
        }
        if (v <= 0) {
            log.warn("{} must be positive; keeping {}", name, current);
            return current;
        }
        return v;
    }

    // ---- reads

    @Override
    public Optional<P2mpGroup> getGroup(P2mpGroupId id) {
        return store.get(id);
    }

    @Override
    public Optional<P2mpGroup> getGroup(GroupKey key) {
        return store.get(key);
    }

    @Override
    public Collection<P2mpGroup> getGroups() {
        return getGroups(null, null, null);
    }

    @Override
    public Collection<P2mpGroup> getGroups(String tenant, String jobId, GroupState state) {
        return store.getAll().stream()
                .filter(g -> tenant == null || g.key().tenant().equals(tenant))
                .filter(g -> jobId == null || g.request().jobId().equals(jobId))
                .filter(g -> state == null || g.state() == state)
                .sorted(Comparator.comparing(P2mpGroup::id))
                .collect(ImmutableList.toImmutableList());
    }

    @Override
    public GroupPlan getInstalledPlan(P2mpGroupId id) {
        return store.programmed(id).treePlan();
    }

    @Override
    public GroupBitmap getBitmap(P2mpGroupId id) {
        checkId(id);
        P2mpGroup group = store.get(id).orElseThrow(() -> GroupException.notFound(id));
        if (group.effectiveMode() != ReplicationMode.BITMAP) {
            throw GroupException.conflict("group " + id + " is replicated as " + group.effectiveMode()
                    + ", not BITMAP; it has no bit map" + (group.modeReason().isEmpty() ? ""
                    : " (" + group.modeReason() + ")"));
        }
        if (group.state() != GroupState.INSTALLED && group.state() != GroupState.DEGRADED) {
            // a FAILED or still installing group's map would look usable while its stamp is not on the leaf
            throw GroupException.conflict("group " + id + " is " + group.state() + "; it has a bit map only once "
                    + "INSTALLED or DEGRADED" + (group.reason().isEmpty() ? "" : " (" + group.reason() + ")"));
        }
        P4Stamp stamp = store.programmed(id).installedOne(P4Stamp.class);
        if (stamp != null) {
            return p4Bitmap(group, stamp);
        }
        return bitmaps.bitmapOf(group, snapshots.snapshot());
    }

    // a group on P4 switches: its receivers' bit indices in the P4 fabric's numbering, and its stamped headers
    private GroupBitmap p4Bitmap(P2mpGroup group, P4Stamp stamp) {
        P4FabricManager m = p4Fabric;
        return P4Views.bitmap(group, stamp, m == null ? null : m.bitIndices(), snapshots.snapshot(), hostResolver);
    }

    @Override
    public java.util.Optional<org.mcast4ai.api.StampPlan> getStampPlan(P2mpGroupId id) {
        checkId(id);
        P4Stamp stamp = store.programmed(id).installedOne(P4Stamp.class);
        return stamp == null ? java.util.Optional.empty() : java.util.Optional.of(P4Views.plan(stamp));
    }

    @Override
    public java.util.Optional<BitmapPlan> getBitmapPlan(P2mpGroupId id) {
        checkId(id);
        BitmapStamp stamp = store.programmed(id).installedOne(BitmapStamp.class);
        return stamp == null ? java.util.Optional.empty()
                : java.util.Optional.of(bitmaps.planOf(stamp, snapshots.snapshot()));
    }

    @Override
    public Optional<org.mcast4ai.api.AggregationContext> getAggregation(P2mpGroupId id) {
        checkId(id);
        return aggregations.context(id);
    }

    @Override
    public void reportAggregation(P2mpGroupId id, org.mcast4ai.api.AggregationReport report) {
        checkId(id);
        if (report == null) {
            throw GroupException.invalid("a report is required");
        }
        aggregations.report(id, report);
    }

    @Override
    public org.mcast4ai.api.ReconcileCounters reconcileCounters() {
        GroupScheduler s = scheduler;
        return s == null ? new org.mcast4ai.api.ReconcileCounters(0, 0, 0)
                : new org.mcast4ai.api.ReconcileCounters(s.auditCount(), installer.repairCount(), s.orphansRemoved());
    }

    @Override
    public int groupCount() {
        return store.getAll().size();
    }

    // ---- writes: validate fully, then one store write; the owner instance does the rest

    @Override
    public P2mpGroup submit(P2mpGroupRequest request) {
        if (request == null) {
            throw GroupException.invalid("a group request is required");
        }
        validator.checkNew(request, maxReceiversPerGroup);
        Optional<P2mpGroup> holder = store.get(request.key());
        if (holder.isPresent()) {
            throw GroupException.keyTaken(request.key(), holder.get());
        }
        if (store.tenantGroupCount(request.key().tenant()) >= maxGroupsPerTenant) {
            throw GroupException.limit("tenant " + request.key().tenant() + " already holds " + maxGroupsPerTenant
                    + " groups (maxGroupsPerTenant); purge withdrawn groups first");
        }
        return store.create(request, pool, peerPool, System.currentTimeMillis());
    }

    @Override
    public P2mpGroup addReceivers(P2mpGroupId id, Set<Endpoint> receivers) {
        P2mpGroup group = liveGroup(id);
        validator.checkAdd(group, receivers, maxReceiversPerGroup);
        return store.update(id, cur -> {
            checkUnchangedMembers(cur, group);
            // idempotent: a member named again is left as it is, a member with another QPN gets the new one in
            // place; a call that changes nothing writes nothing (a retried success stays a success)
            Set<Endpoint> next = new LinkedHashSet<>(cur.request().receivers());
            int added = 0;
            int changed = 0;
            for (Endpoint r : receivers) {
                Endpoint member = RequestValidator.find(next, r);
                if (member == null) {
                    next.add(r);
                    added++;
                } else if (!member.equals(r)) {
                    next.remove(member);
                    next.add(r);
                    changed++;
                }
            }
            if (added == 0 && changed == 0) {
                return cur;
            }
            String why = (added > 0 ? "added " + added + " receiver(s)" : "")
                    + (added > 0 && changed > 0 ? ", " : "") + (changed > 0 ? "changed the QPN of " + changed : "");
            return cur.withRequest(cur.request().toBuilder().receivers(next).build())
                    .withState(GroupState.SUBMITTED, System.currentTimeMillis(), why);
        });
    }

    @Override
    public P2mpGroup removeReceivers(P2mpGroupId id, Set<Endpoint> receivers) {
        P2mpGroup group = liveGroup(id);
        Set<Endpoint> matched = validator.checkRemove(group, receivers);
        if (matched.isEmpty()) {
            return group; // none of them is a member: nothing to do, and a retried removal still succeeds
        }
        return store.update(id, cur -> {
            checkUnchangedMembers(cur, group);
            Set<Endpoint> rest = new LinkedHashSet<>(cur.request().receivers());
            rest.removeAll(matched);
            P2mpGroupRequest next = cur.request().toBuilder().receivers(rest).build();
            return cur.withRequest(next).withState(GroupState.SUBMITTED, System.currentTimeMillis(),
                    "removed " + matched.size() + " receiver(s)");
        });
    }

    @Override
    public P2mpGroup withdraw(P2mpGroupId id) {
        checkId(id);
        return store.update(id, cur -> cur.state().isLive()
                ? cur.withState(GroupState.WITHDRAWING, System.currentTimeMillis(), "withdraw requested")
                : cur);
    }

    @Override
    public void purge(P2mpGroupId id) {
        checkId(id);
        P2mpGroup group = store.get(id).orElseThrow(() -> GroupException.notFound(id));
        boolean holdsEntries = !store.programmed(id).isEmpty();
        if (group.state() != GroupState.WITHDRAWN && !(group.state() == GroupState.FAILED && !holdsEntries)) {
            throw GroupException.conflict("group " + id + " is " + group.state() + (holdsEntries
                    ? " and holds switch entries" : "") + "; withdraw it before purging");
        }
        store.remove(id);
        aggregations.forget(id);
    }

    @Override
    public P2mpGroup recompile(P2mpGroupId id) {
        checkId(id);
        return store.update(id, cur -> {
            if (!cur.state().isLive()) {
                throw GroupException.conflict("group " + id + " is " + cur.state() + "; it cannot be recompiled");
            }
            return cur.withState(GroupState.SUBMITTED, System.currentTimeMillis(), "recompile requested");
        });
    }

    @Override
    public org.mcast4ai.api.GroupTree tree(P2mpGroupId id) {
        checkId(id);
        P2mpGroup group = store.get(id).orElseThrow(() -> GroupException.notFound(id));
        return tracer.trace(group, store.programmed(id));
    }

    @Override
    public org.mcast4ai.api.GroupOwner owner(P2mpGroupId id) {
        checkId(id);
        if (store.get(id).isEmpty()) {
            throw GroupException.notFound(id);
        }
        org.onosproject.cluster.NodeId leader = workPartitionService.getLeader(id.value(), Long::longValue);
        return new org.mcast4ai.api.GroupOwner(id, leader == null ? null : leader.id(),
                workPartitionService.isMine(id.value(), Long::longValue));
    }

    private P2mpGroup liveGroup(P2mpGroupId id) {
        checkId(id);
        P2mpGroup group = store.get(id).orElseThrow(() -> GroupException.notFound(id));
        if (!group.state().isLive()) {
            throw GroupException.conflict("group " + id + " is " + group.state() + "; its receivers cannot change");
        }
        return group;
    }

    private static void checkId(P2mpGroupId id) {
        if (id == null) {
            throw GroupException.invalid("a group id is required");
        }
    }

    private static void checkUnchangedMembers(P2mpGroup current, P2mpGroup validated) {
        if (!current.state().isLive()) {
            throw GroupException.conflict("group " + current.id() + " is " + current.state()
                    + "; its receivers cannot change");
        }
        if (!current.request().receivers().equals(validated.request().receivers())) {
            throw GroupException.conflict("the receivers of group " + current.id()
                    + " changed concurrently; try again");
        }
    }

    /** Re-posts store events and starts the work they call for on the owner of the group. */
    private class InternalStoreDelegate implements P2mpGroupStoreDelegate {
        @Override
        public void notify(P2mpGroupEvent event) {
            post(event);
            scheduler.stored(event);
            P4FabricManager m = p4Fabric;
            if (m != null) {
                // a sender's subset entry, a reliable group's receivers' rewrites on P4 leaves
                m.groupsChanged();
            }
        }
    }

    /** Partitions moved: pick up unfinished work of groups now owned here. */
    private class InternalPartitionListener implements WorkPartitionEventListener {
        @Override
        public void event(WorkPartitionEvent event) {
            scheduler.later(scheduler::resumeOwnedGroups);
        }
    }
}
