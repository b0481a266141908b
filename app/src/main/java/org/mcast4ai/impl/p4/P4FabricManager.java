package org.mcast4ai.impl.p4;

import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.api.P2mpGroupListener;
import org.mcast4ai.api.P2mpGroupService;
import org.mcast4ai.api.P4FabricService;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.api.P4FabricStatus;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.SwitchTables;
import org.mcast4ai.impl.P2mpGroupManager;
import org.mcast4ai.impl.fabric.FabricSnapshotFactory;
import org.mcast4ai.impl.fabric.HostResolver;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.host.HostEvent;
import org.onosproject.net.host.HostListener;
import org.onosproject.net.host.HostService;
import org.onosproject.net.intent.WorkPartitionService;
import org.onosproject.net.link.LinkEvent;
import org.onosproject.net.link.LinkListener;
import org.onosproject.net.link.LinkService;
import org.onosproject.net.pi.service.PiPipeconfService;
import org.onosproject.store.service.StorageService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.onlab.util.Tools.groupedThreads;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Keeps every available switch bound to {@link Mcast4aiPipeconf} in the static state of the current fabric:
 * a control loop that, on every device, link or host event and on a timer, takes a snapshot of the fabric ONOS
 * sees, plans the P4 switches' state ({@link P4FabricPlanner}) and has {@link P4StaticProgrammer} write the
 * difference. The static state names no group, so it changes only with the fabric; beside it the leaves hold
 * the groups' edge entries (reliable groups' receivers' rewrites, {@link P4EdgePlanner}; senders' subset entries,
 * {@link P4SubsetPlanner}), which follow the groups' events. One instance of a cluster writes it
 * (the owner of work partition 0, as for the OpenFlow static tables), so all switches take their leaf numbers
 * from one bit index table.
 */
@Component(immediate = true, service = {P4FabricManager.class, P4FabricService.class})
public class P4FabricManager implements P4FabricService {
    /**
     * The application id of the static state: its own, so that the group manager's sweep of rules no group
     * needs (which covers every rule of {@link P2mpGroupManager#APP_NAME}) never takes it for orphans.
     */
    public static final String APP_NAME = P2mpGroupManager.APP_NAME + ".p4";
    /** Milliseconds between runs without events: repairs what a refused write or ONOS's restart left. */
    static final long AUDIT_MS = 5000;
    /** Milliseconds an event waits, so that a burst of events (a switch and its links) costs one run. */
    static final long SETTLE_MS = 20;

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected LinkService linkService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected HostService hostService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleService flowRuleService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected GroupService groupService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PiPipeconfService pipeconfService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected WorkPartitionService workPartitionService;

    // tests shorten it before activate
    long auditMs = AUDIT_MS;
    private final AtomicBoolean queued = new AtomicBoolean();
    private final DeviceListener devices = e -> {
        if (e.type() == DeviceEvent.Type.PORT_STATS_UPDATED) {
            return;
        }
        P4StaticProgrammer p = this.programmer;
        if (p != null && (e.type() == DeviceEvent.Type.DEVICE_ADDED
                || e.type() == DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED)) {
            // back, possibly empty: its state is written again and groups wait for its answer
            p.forget(e.subject().id());
        }
        changed();
    };
    // a multicast group of the static state confirmed or lost
    private final org.onosproject.net.group.GroupListener groupEvents4 = e -> {
        if (e.subject().appId() != null && APP_NAME.equals(e.subject().appId().name())) {
            changed();
        }
    };
    private final LinkListener links = (LinkEvent e) -> changed();
    private final HostListener hosts = (HostEvent e) -> changed();
    // every group may have a sender on a P4 leaf (its subset entry), a reliable one receivers there (rewrites)
    private final P2mpGroupListener groupEvents = e -> changed();
    // the groups whose entries P4 leaves hold; absent, only the static state is programmed
    private volatile P2mpGroupService mcastService;
    private P4EdgePlanner edgePlanner;
    private P4SubsetPlanner subsetPlanner;
    private HostResolver hostResolver;
    private ScheduledExecutorService loop;
    private FabricSnapshotFactory snapshots;
    private P4StaticProgrammer programmer;
    private P4FabricPlanner planner;
    private P4BitIndexStore bitStore;
    // the table in use, as the store holds it; dropped while another instance writes
    private BitIndexTable bits;
    // the uplinks' indices in the program, kept while a link is down (the writer's; reloaded when it becomes one)
    private P4UplinkIndices uplinkIndices;
    // the table the groups' stamps are compiled with: the writer's, or as another instance stored it
    private volatile BitIndexTable published;
    // the table the group service last heard of: groups that missed a number are compiled again when it changes
    private BitIndexTable notified;
    private volatile P4FabricStatus status = new P4FabricStatus(false, List.of(), 0, 0, 0, 0, 0, null);
    // the switches whose static state is not acknowledged yet (the writer's view; other instances trust it)
    private volatile Set<DeviceId> unready = Set.of();
    // the switches and links that came back while others carried the traffic: used once they acknowledged
    private final P4Joining joining = new P4Joining();
    private long runs;

    /** Starts the loop. */
    @Activate
    protected void activate() {
        ApplicationId appId = coreService.registerApplication(APP_NAME);
        snapshots = new FabricSnapshotFactory(deviceService, linkService, hostService);
        bitStore = new P4BitIndexStore(storageService);
        programmer = new P4StaticProgrammer(flowRuleService, groupService, appId);
        programmer.setOnAcknowledged(this::changed);
        planner = new P4FabricPlanner(appId, P4FabricPlanner.DEFAULT_LEAF_SET);
        edgePlanner = new P4EdgePlanner(appId);
        subsetPlanner = new P4SubsetPlanner(appId, P4SubsetPlanner.DEFAULT_PREFIX);
        hostResolver = new HostResolver(hostService);
        loop = Executors.newSingleThreadScheduledExecutor(groupedThreads("onos/mcast4ai", "p4-fabric", log));
        deviceService.addListener(devices);
        linkService.addListener(links);
        hostService.addListener(hosts);
        groupService.addListener(groupEvents4);
        loop.scheduleWithFixedDelay(this::runSafely, 0, auditMs, TimeUnit.MILLISECONDS);
    }

    /** Stops it; the switches keep their state (a restart or another instance takes over). */
    @Deactivate
    protected void deactivate() {
        if (loop == null) {
            return;
        }
        groupService.removeListener(groupEvents4);
        hostService.removeListener(hosts);
        linkService.removeListener(links);
        deviceService.removeListener(devices);
        loop.shutdownNow();
        loop = null;
    }

    /**
     * @param s the group service: its groups' senders on P4 leaves get their subset entries, its ACK_AGGREGATION
     *          groups' receivers there their rewrites
     */
    @Reference(name = "mcastGroupService", cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, unbind = "unbindGroupService")
    protected void bindGroupService(P2mpGroupService s) {
        mcastService = s;
        s.addListener(groupEvents);
    }

    /** @param s the group service going away */
    protected void unbindGroupService(P2mpGroupService s) {
        s.removeListener(groupEvents);
        if (mcastService == s) {
            mcastService = null;
        }
    }

    private void changed() {
        if (loop == null) {
            return;
        }
        snapshots.invalidate();
        if (queued.compareAndSet(false, true)) {
            loop.schedule(() -> {
                queued.set(false);
                runSafely();
            }, SETTLE_MS, TimeUnit.MILLISECONDS);
        }
    }

    private void runSafely() {
        try {
            run();
        } catch (RuntimeException e) {
            log.warn("P4 fabric run failed, the next one retries", e);
        }
    }

    /**
     * One run of the loop.
     *
     * @return what it wrote; null if it had nothing to program or could not plan
     */
    synchronized P4StaticProgrammer.Writes run() {
        runs++;
        boolean writer = workPartitionService.isMine(0L, Long::longValue);
        Set<DeviceId> targets = new TreeSet<>(Comparator.comparing(DeviceId::toString));
        for (Device d : deviceService.getAvailableDevices()) {
            if (pipeconfService.ofDevice(d.id()).filter(Mcast4aiPipeconf.ID::equals).isPresent()) {
                targets.add(d.id());
            }
        }
        List<String> names = new ArrayList<>();
        targets.forEach(d -> names.add(d.toString()));
        if (!writer) {
            bits = null;
            uplinkIndices = null;
            published = bitStore.load();
        }
        if (!writer || targets.isEmpty()) {
            unready = Set.of();
            status = new P4FabricStatus(writer, names, runs, System.currentTimeMillis(), 0, 0, 0, null);
            return null;
        }
        Map<DeviceId, P4FabricPlanner.SwitchState> desired;
        try {
            FabricSnapshot fabric = snapshots.snapshot();
            bits = bitIndices(fabric);
            published = bits;
            if (uplinkIndices == null) {
                uplinkIndices = new P4UplinkIndices(bitStore.uplinks());
            }
            joining.observe(targets, fabric);
            desired = withGroupEntries(joining.plan(fabric, targets,
                    (f, only) -> planner.plan(f, SwitchTables.build(f, bits), only, uplinkIndices)), targets, fabric);
            if (!bitStore.saveUplinks(uplinkIndices.added())) {
                uplinkIndices = null;
                throw new IllegalStateException("another instance numbered the uplinks meanwhile");
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            // once per distinct problem: the loop runs every few seconds
            if (!Objects.equals(status.problem(), e.getMessage())) {
                log.warn("P4 switches not programmed: {}", e.getMessage());
            }
            status = new P4FabricStatus(true, names, runs, System.currentTimeMillis(), 0, 0, 0, e.getMessage());
            return null;
        }
        P4StaticProgrammer.Writes w = programmer.sync(desired);
        Set<DeviceId> before = unready;
        Set<DeviceId> now = programmer.unready(desired);
        unready = Set.copyOf(now);
        if (!now.equals(before)) {
            log.info("P4 static state acknowledged by {} of {} switch(es){}", desired.size() - now.size(),
                    desired.size(), now.isEmpty() ? "" : "; waiting for " + now);
        }
        // groups that waited for a switch's answer, or for a leaf's number, are decided again
        regroup(before.stream().anyMatch(d -> !now.contains(d)));
        if (!w.none()) {
            log.info("P4 static state on {} switch(es): {}", desired.size(), w);
        }
        if (joining.answered(now, targets)) {
            // a switch answered: the others forward through it from now on (at once, so that the status never
            // shows it joined while they do not use it yet)
            return run();
        }
        List<String> waiting = new ArrayList<>();
        now.forEach(d -> waiting.add(d.toString()));
        status = new P4FabricStatus(true, names, runs, System.currentTimeMillis(), w.rules, w.removed, w.groups,
                null, waiting, joining.describe());
        return w;
    }

    // Leaves numbered since the group service last heard: its groups that could not reach every receiver (a
    // receiver on a leaf without a number yet, or no number at all) are compiled again. The group manager
    // compiles a group on the fabric's events too, possibly before this loop numbered a new leaf.
    // A switch's answer changes which receivers a group reaches too: its groups that waited are decided again.
    private void regroup(boolean answered) {
        P2mpGroupService groups = mcastService;
        BitIndexTable now = published;
        if (!(groups instanceof P2mpGroupAdminService) || now == null || now.equals(notified) && !answered) {
            return;
        }
        notified = now;
        for (P2mpGroup g : groups.getGroups()) {
            if (g.request().mode() != ReplicationMode.TREE && g.state().isLive()
                    && (g.state() == GroupState.DEGRADED || g.state() == GroupState.FAILED
                    || g.state() == GroupState.INSTALLING)) {
                try {
                    ((P2mpGroupAdminService) groups).recompile(g.id());
                } catch (org.mcast4ai.api.GroupException e) {
                    // withdrawn meanwhile: nothing to do
                }
            }
        }
    }

    // the static state plus the rewrites of the reliable groups' receivers and the groups' subset entries
    private Map<DeviceId, P4FabricPlanner.SwitchState> withGroupEntries(
            Map<DeviceId, P4FabricPlanner.SwitchState> plan, Set<DeviceId> targets, FabricSnapshot fabric) {
        P2mpGroupService groups = mcastService;
        if (groups == null) {
            return plan;
        }
        List<AggregationContext> contexts = new ArrayList<>();
        Collection<P2mpGroup> every = groups.getGroups();
        for (P2mpGroup g : every) {
            if (g.request().reliability() == Reliability.ACK_AGGREGATION && g.state() != GroupState.WITHDRAWN) {
                groups.getAggregation(g.id()).ifPresent(contexts::add);
            }
        }
        Map<DeviceId, List<FlowRule>> entries = new LinkedHashMap<>(edgePlanner.plan(contexts, targets));
        subsetPlanner.plan(P4SubsetPlanner.senders(every, fabric, bits, hostResolver), targets).forEach((d, rules) ->
                entries.computeIfAbsent(d, x -> new ArrayList<>()).addAll(rules));
        if (entries.isEmpty()) {
            return plan;
        }
        Map<DeviceId, P4FabricPlanner.SwitchState> out = new LinkedHashMap<>(plan);
        entries.forEach((d, rules) -> {
            P4FabricPlanner.SwitchState s = out.get(d);
            if (s != null) {
                List<FlowRule> all = new ArrayList<>(s.rules());
                all.addAll(rules);
                out.put(d, new P4FabricPlanner.SwitchState(all, s.group(), s.tier()));
            }
        });
        return out;
    }

    // leaf numbers never move, across restarts and takeovers too: a failed leaf keeps its number for its return
    private BitIndexTable bitIndices(FabricSnapshot fabric) {
        if (bits == null) {
            bits = bitStore.load();
        }
        BitIndexTable next = bits == null ? BitIndexTable.forFabric(fabric) : bits.allocate(fabric);
        if (next != bits && !bitStore.save(next, bits)) {
            bits = null;
            throw new IllegalStateException("another instance numbered the fabric's bits meanwhile");
        }
        return next;
    }

    /**
     * @return the P4 switches whose static state their switch has not acknowledged yet (written and answered, or
     *         listed ADDED by ONOS with nothing left to write); empty on an instance that does not write it
     */
    public Set<DeviceId> unready() {
        return unready;
    }

    /**
     * @param d a device
     * @return true if it is bound to the mcast4ai pipeconf (a P4 switch of this fabric)
     */
    public boolean bound(DeviceId d) {
        return pipeconfService.ofDevice(d).filter(Mcast4aiPipeconf.ID::equals).isPresent();
    }

    /** @return the P4 fabric's bit indices (the leaf numbers its static state holds), or null if none yet */
    public BitIndexTable bitIndices() {
        BitIndexTable b = published;
        if (b == null && bitStore != null) {
            b = bitStore.load();
            published = b;
        }
        return b;
    }

    // tests: the programmer, to tell it of a switch back without a device event
    P4StaticProgrammer programmerForTests() {
        return programmer;
    }

    @Override
    public P4FabricStatus status() {
        return status;
    }
}

