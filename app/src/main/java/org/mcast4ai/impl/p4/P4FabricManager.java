package org.mcast4ai.impl.p4;

import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P4FabricService;
import org.mcast4ai.api.P4FabricStatus;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.SwitchTables;
import org.mcast4ai.impl.P2mpGroupManager;
import org.mcast4ai.impl.fabric.FabricSnapshotFactory;
import org.mcast4ai.impl.fabric.HostResolver;
import org.mcast4ai.impl.lifecycle.FabricState;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.GroupListener;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.host.HostService;
import org.onosproject.net.intent.WorkPartitionService;
import org.onosproject.net.link.LinkService;
import org.onosproject.net.packet.PacketService;
import org.onosproject.net.pi.service.PiPipeconfService;
import org.onosproject.store.service.StorageService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * The static state of every available switch bound to {@link Mcast4aiPipeconf}, as the group manager's one
 * reconcile loop keeps it: on its fabric lane, after every burst of topology events, on every audit and when a
 * switch answers, it takes a snapshot of the fabric ONOS sees, plans the P4 switches' state
 * ({@link P4FabricPlanner}) and has {@link P4StaticProgrammer} write the difference, before the groups that need
 * it are compiled. This component holds that state, its leaf numbers and its status; it runs nothing by itself
 * until a loop is attached ({@link #attach}). The static state names no group, so it changes only with the
 * fabric; beside it the leaves hold the groups' edge entries (reliable groups' receivers' rewrites,
 * {@link P4EdgePlanner}; senders' subset entries, {@link P4SubsetPlanner}; ACK aggregation in the source leaf,
 * {@link P4Aggregators}: entries planned with the static state, registers started and ticked by packet-out,
 * reports of stalled receivers by packet-in), which follow the groups. One instance
 * of a cluster writes it (the owner of work partition 0, as for the OpenFlow static tables), so all switches take
 * their leaf numbers from one bit index table.
 */
@Component(immediate = true, service = {P4FabricManager.class, P4FabricService.class})
public class P4FabricManager implements P4FabricService, FabricState {
    /**
     * The application id of the static state: its own, so that the group manager's sweep of rules no group
     * needs (which covers every rule of {@link P2mpGroupManager#APP_NAME}) never takes it for orphans.
     */
    public static final String APP_NAME = P2mpGroupManager.APP_NAME + ".p4";
    /** Milliseconds before a run after a switch refused a write (ONOS's audit of the flows also repairs it). */
    static final long RETRY_MS = 1000;

    /** The reconcile loop that runs the static state, as the group manager attaches it. */
    public interface Loop {
        /**
         * @param work    a run, for the loop's fabric lane
         * @param delayMs milliseconds to wait first (0: as soon as the lane is free)
         */
        void later(Runnable work, long delayMs);

        /** @return every group: their senders on P4 leaves get subset entries, reliable groups' receivers rewrites */
        Collection<P2mpGroup> groups();

        /**
         * @param id a group
         * @return its aggregation context, if it is an ACK_AGGREGATION group
         */
        Optional<AggregationContext> aggregation(P2mpGroupId id);

        /**
         * The leaves were numbered again or a switch acknowledged its state: groups waiting on either are decided
         * again.
         *
         * @param why what changed
         */
        void stateChanged(String why);

        /**
         * What a source leaf's aggregator reports for a group (receivers joined, receivers stalled out).
         *
         * @param id     the group
         * @param report the report
         */
        void report(P2mpGroupId id, AggregationReport report);
    }

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
    // ONOS always has one; without it (a stand-in without CPU ports) no aggregator starts, and the groups wait
    @Reference(cardinality = ReferenceCardinality.OPTIONAL)
    protected PacketService packetService;

    // a run is queued on the loop and not started yet: a burst of answers costs one run
    private final AtomicBoolean queued = new AtomicBoolean();
    // a multicast group of the static state confirmed or lost
    private final GroupListener groupEvents = e -> {
        if (e.subject().appId() != null && APP_NAME.equals(e.subject().appId().name())) {
            requestRun(0);
        }
    };
    // the loop that runs it; null until the group manager attaches
    private volatile Loop loop;
    private volatile boolean active;
    private P4EdgePlanner edgePlanner;
    private P4SubsetPlanner subsetPlanner;
    // the source leaves' ACK aggregators
    private P4Aggregators aggregators;
    private HostResolver hostResolver;
    private FabricSnapshotFactory snapshots;
    private P4StaticProgrammer programmer;
    private ApplicationId appId;
    // a planner per build of the program (the switches' pipeconf)
    private final Map<Mcast4aiPipeconf.Build, P4FabricPlanner> planners =
            new java.util.EnumMap<>(Mcast4aiPipeconf.Build.class);
    // the build the switches run
    private volatile Mcast4aiPipeconf.Build build = Mcast4aiPipeconf.Build.DEFAULT;
    private P4BitIndexStore bitStore;
    // the table in use, as the store holds it; dropped while another instance writes
    private BitIndexTable bits;
    // the uplinks' indices in the program, kept while a link is down (the writer's; reloaded when it becomes one)
    private P4UplinkIndices uplinkIndices;
    // the table the groups' stamps are compiled with: the writer's, or as another instance stored it
    private volatile BitIndexTable published;
    // the table the groups last heard of: groups that missed a number are compiled again when it changes
    private BitIndexTable notified;
    private volatile P4FabricStatus status = new P4FabricStatus(false, List.of(), 0, 0, 0, 0, 0, null);
    // the switches whose static state is not acknowledged yet (the writer's view; other instances trust it)
    private volatile Set<DeviceId> unready = Set.of();
    // the switches and links that came back while others carried the traffic: used once they acknowledged
    private final P4Joining joining = new P4Joining();
    private long runs;
    private boolean running;
    private boolean again;

    /** Makes the state ready for a loop to run. */
    @Activate
    protected void activate() {
        appId = coreService.registerApplication(APP_NAME);
        snapshots = new FabricSnapshotFactory(deviceService, linkService, hostService);
        bitStore = new P4BitIndexStore(storageService);
        programmer = new P4StaticProgrammer(flowRuleService, groupService, appId);
        programmer.setOnAcknowledged(() -> requestRun(0));
        programmer.setOnRefused(() -> requestRun(RETRY_MS));
        edgePlanner = new P4EdgePlanner(appId);
        subsetPlanner = new P4SubsetPlanner(appId, P4SubsetPlanner.DEFAULT_PREFIX);
        hostResolver = new HostResolver(hostService);
        groupService.addListener(groupEvents);
        aggregators = new P4Aggregators(appId, flowRuleService, packetService, this::aggregationReport);
        aggregators.start();
        active = true;
        requestRun(0);
    }

    /** Stops it; the switches keep their state (a restart or another instance takes over). */
    @Deactivate
    protected void deactivate() {
        if (!active) {
            return;
        }
        active = false;
        groupService.removeListener(groupEvents);
        aggregators.stop();
    }

    private void aggregationReport(P2mpGroupId id, AggregationReport report) {
        Loop l = loop;
        if (l == null) {
            return;
        }
        try {
            l.report(id, report);
        } catch (GroupException e) {
            // the group went, or is no longer live: its entries go on the next run
            log.debug("aggregation report for group {} not taken: {}", id, e.getMessage());
        }
    }

    /**
     * Has a loop run the state from now on (its first run is queued at once).
     *
     * @param l the loop
     */
    public void attach(Loop l) {
        synchronized (this) {
            loop = l;
            // its groups have not heard of the leaf numbers: those that waited for them are decided on its first run
            notified = null;
        }
        requestRun(0);
    }

    /**
     * Stops a loop running it (nothing if another loop is attached meanwhile).
     *
     * @param l the loop
     */
    public void detach(Loop l) {
        if (loop == l) {
            loop = null;
        }
    }

    /** The groups changed: their edge and subset entries follow, on the loop's next run. */
    public void groupsChanged() {
        requestRun(0);
    }

    private void requestRun(long delayMs) {
        Loop l = loop;
        if (l == null || !active) {
            return;
        }
        if (delayMs > 0) {
            l.later(() -> requestRun(0), delayMs);
        } else if (queued.compareAndSet(false, true)) {
            l.later(() -> {
                queued.set(false);
                runSafely();
            }, 0);
        }
    }

    @Override
    public void reconcile(String why) {
        if (!active) {
            return;
        }
        snapshots.invalidate();
        runSafely();
    }

    @Override
    public void deviceReturned(DeviceId device) {
        P4StaticProgrammer p = programmer;
        if (p != null && active) {
            p.forget(device);
        }
        P4Aggregators a = aggregators;
        if (a != null && active) {
            a.forget(device);       // its registers came back empty
        }
    }

    // A run's writes may be answered, and its groups decided, on the same thread (an inline executor): a run asked
    // for meanwhile is done once this one ends instead of inside it.
    private synchronized void runSafely() {
        if (running) {
            again = true;
            return;
        }
        running = true;
        try {
            do {
                again = false;
                run();
            } while (again);
        } catch (RuntimeException e) {
            log.warn("P4 fabric run failed, the next one retries", e);
        } finally {
            running = false;
        }
    }

    /**
     * One run: the static state brought in line with the fabric (synchronized: the loop and tests may call it).
     *
     * @return what it wrote; null if it had nothing to program or could not plan
     */
    synchronized P4StaticProgrammer.Writes run() {
        runs++;
        boolean writer = workPartitionService.isMine(0L, Long::longValue);
        Set<DeviceId> targets = new TreeSet<>(Comparator.comparing(DeviceId::toString));
        Map<Mcast4aiPipeconf.Build, List<DeviceId>> builds = new java.util.EnumMap<>(Mcast4aiPipeconf.Build.class);
        for (Device d : deviceService.getAvailableDevices()) {
            pipeconfService.ofDevice(d.id()).flatMap(Mcast4aiPipeconf.Build::of).ifPresent(b -> {
                targets.add(d.id());
                builds.computeIfAbsent(b, x -> new ArrayList<>()).add(d.id());
            });
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
            P4FabricPlanner planner = planner(builds);
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
        // the aggregators whose entries their switch holds start (CONFIG, JOINs) before the groups go on
        aggregators.sync();
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
                null, waiting, joining.describe(), build.id().id());
        return w;
    }

    // Leaves numbered since the groups last heard: those that could not reach every receiver (a receiver on a leaf
    // without a number yet, or no number at all) are compiled again. The group manager compiles a group on the
    // fabric's events too, possibly before this run numbered a new leaf. A switch's answer changes which receivers
    // a group reaches too: its groups that waited are decided again.
    private void regroup(boolean answered) {
        Loop l = loop;
        BitIndexTable now = published;
        if (l == null || now == null || now.equals(notified) && !answered) {
            return;
        }
        boolean numbered = !now.equals(notified);
        notified = now;
        l.stateChanged(numbered ? "P4 leaves numbered" : "P4 static state acknowledged");
    }

    // the static state plus the rewrites of the reliable groups' receivers and the groups' subset entries
    private Map<DeviceId, P4FabricPlanner.SwitchState> withGroupEntries(
            Map<DeviceId, P4FabricPlanner.SwitchState> plan, Set<DeviceId> targets, FabricSnapshot fabric) {
        Loop l = loop;
        if (l == null) {
            aggregators.clear();
            return plan;
        }
        List<AggregationContext> contexts = new ArrayList<>();
        Collection<P2mpGroup> every = l.groups();
        for (P2mpGroup g : every) {
            if (g.request().reliability() == Reliability.ACK_AGGREGATION && g.state() != GroupState.WITHDRAWN) {
                l.aggregation(g.id()).ifPresent(contexts::add);
            }
        }
        Map<DeviceId, List<FlowRule>> entries = new LinkedHashMap<>(edgePlanner.plan(contexts, targets));
        aggregators.plan(contexts, targets, bits).forEach((d, rules) ->
                entries.computeIfAbsent(d, x -> new ArrayList<>()).addAll(rules));
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
                out.put(d, new P4FabricPlanner.SwitchState(all, s.group(), s.cloneSession(), s.tier()));
            }
        });
        return out;
    }

    // one build for the whole fabric: its switches parse one header, with one geometry's bitmaps and leaf sets
    private P4FabricPlanner planner(Map<Mcast4aiPipeconf.Build, List<DeviceId>> builds) {
        if (builds.size() > 1) {
            StringBuilder b = new StringBuilder("the P4 switches run different builds of the program:");
            builds.forEach((k, v) -> b.append(' ').append(k.id()).append(" on ").append(v.size())
                    .append(" switch(es) (").append(v.get(0)).append(v.size() > 1 ? ", ..." : "").append(')'));
            throw new IllegalArgumentException(b.append("; bind them all to the one the fabric's geometry needs")
                    .toString());
        }
        Mcast4aiPipeconf.Build b = builds.keySet().iterator().next();
        build = b;
        return planners.computeIfAbsent(b, x -> new P4FabricPlanner(appId, x.leafSet(), x.slotBytes(),
                x.leafBytes(), x.uplinks()));
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
     * @return true if it is bound to a pipeconf of the mcast4ai program (a P4 switch of this fabric)
     */
    public boolean bound(DeviceId d) {
        return pipeconfService.ofDevice(d).flatMap(Mcast4aiPipeconf.Build::of).isPresent();
    }

    /** @return the build of the program the P4 switches run (their pipeconf), the default until one is seen */
    public Mcast4aiPipeconf.Build build() {
        return build;
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

    @Override
    public P4FabricStatus status() {
        return status;
    }
}

