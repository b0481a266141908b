package org.mcast4ai.impl.compile;

import org.mcast4ai.impl.fabric.HostResolver;
import org.mcast4ai.impl.store.P2mpGroupStore;
import org.mcast4ai.impl.store.StaticTables;
import com.google.common.collect.ImmutableSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.BitmapPlan;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;
import org.mcast4ai.impl.bitmap.BitmapChoice;
import org.mcast4ai.impl.bitmap.BitmapLayout;
import org.mcast4ai.impl.bitmap.BitmapStamp;
import org.mcast4ai.impl.bitmap.EthSrcBitmap;
import org.mcast4ai.impl.bitmap.OpenFlowBitmapProgrammer;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * The manager's side of BITMAP replication: the fabric's layout with the stable bit indices of the store
 * (derived once per snapshot, when the static tables are also brought in line), and the per-group choice
 * between BITMAP and TREE.
 */
public final class BitmapReplication {
    private final Logger log = getLogger(getClass());

    private final P2mpGroupStore store;
    private final HostResolver hosts;
    private final OpenFlowBitmapProgrammer programmer;

    private FabricSnapshot layoutOf;
    private BitmapLayout layout;
    private boolean fitChanged;
    private boolean inUse;
    private BitmapLayout staticSent;
    // the layout whose static tables the switches acknowledged
    private volatile BitmapLayout staticInPlace;
    private volatile Runnable onStaticInPlace = () -> { };
    // true on the one instance that programs the static tables (the owner of work partition 0)
    private volatile BooleanSupplier owner = () -> true;
    private BitmapLayout fingerprinted;
    private String fingerprint;

    /** A group's replication decision. */
    static final class BitmapDecision {
        final BitmapChoice choice;
        final BitmapStamp.Result result;
        final Set<Endpoint> unreachable;
        final Set<HostId> hosts;
        // receivers with a bit whose packets cross a switch that does not hold its static tables yet (back from a
        // disconnection), and those switches
        final Set<Endpoint> behindUnready;
        final Set<DeviceId> unready;

        BitmapDecision(BitmapChoice choice, BitmapStamp.Result result, Set<Endpoint> unreachable,
                       Set<HostId> hosts) {
            this(choice, result, unreachable, hosts, Set.of(), Set.of());
        }

        BitmapDecision(BitmapChoice choice, BitmapStamp.Result result, Set<Endpoint> unreachable,
                       Set<HostId> hosts, Set<Endpoint> behindUnready, Set<DeviceId> unready) {
            this.choice = choice;
            this.result = result;
            this.unreachable = ImmutableSet.copyOf(unreachable);
            this.hosts = ImmutableSet.copyOf(hosts);
            this.behindUnready = ImmutableSet.copyOf(behindUnready);
            this.unready = ImmutableSet.copyOf(unready);
        }
    }

    /**
     * @param store      the store (stable bit indices, installed stamps)
     * @param hosts      endpoint resolution
     * @param programmer the OpenFlow BITMAP programmer, or null if BITMAP cannot be programmed (no group
     *                   service)
     */
    public BitmapReplication(P2mpGroupStore store, HostResolver hosts, OpenFlowBitmapProgrammer programmer) {
        this.store = store;
        this.hosts = hosts;
        this.programmer = programmer;
        // the static tables go to the switches as soon as the fabric fits, before the first group needs them: on
        // ONOS a group becomes ADDED only on the group statistics poll, which must not sit under a group's setup
        this.inUse = programmer != null;
    }

    /** @return the programmer, or null */
    public OpenFlowBitmapProgrammer programmer() {
        return programmer;
    }

    /**
     * The layout of a snapshot: computed once per snapshot, with the store's stable indices (new receiver
     * positions are allocated there first); once a group asked for BITMAP and while it fits, the switches'
     * static tables follow it.
     *
     * @param fabric the current snapshot
     * @return its layout
     */
    public synchronized BitmapLayout layout(FabricSnapshot fabric) {
        if (fabric == layoutOf) {
            return layout;
        }
        // a compile that started before the last topology change holds an older snapshot: the static tables
        // follow the newest, never back and forth between the two
        Supplier<FabricSnapshot> c = newest;
        FabricSnapshot now = c == null ? fabric : c.get();
        if (now != fabric) {
            fabric = now;
            if (fabric == layoutOf) {
                return layout;
            }
        }
        List<String> positions = new ArrayList<>();
        for (int h = 0; h < fabric.hostCount(); h++) {
            positions.add(BitmapLayout.positionKey(fabric.switchName(fabric.hostSwitch(h)), fabric.hostPort(h)));
        }
        BitmapLayout next = BitmapLayout.of(fabric, store.bitPositions(positions));
        fitChanged |= layout == null || layout.fits() != next.fits();
        layoutOf = fabric;
        layout = next;
        if (inUse) {
            applyStatic(next);
        } else if (!next.fits()) {
            log.info("BITMAP does not fit the fabric: {}", next.whyNot().orElse(""));
        }
        return next;
    }

    private void applyStatic(BitmapLayout next) {
        if (staticSent == next) {
            return;
        }
        if (programmer != null && next.fits() && !owner.getAsBoolean()) {
            // another instance programs the static tables; staticReady reads its record
            return;
        }
        staticSent = next;
        if (programmer != null && next.fits()) {
            sendStatic(next, RETRY_FIRST_MS);
        } else if (!next.fits()) {
            log.info("BITMAP does not fit the fabric: {}", next.whyNot().orElse(""));
            staticInPlace = null;
            if (programmer != null) {
                // no group can use the old tables (the bit layout no longer holds): take them off the switches;
                // AUTO groups are moved to TREE by the same topology change
                programmer.removeStatic().whenComplete((v, e) -> {
                    if (e != null) {
                        log.warn("Static BITMAP tables not removed: {}", e.getMessage());
                    }
                });
            }
        }
    }

    private static final long RETRY_FIRST_MS = 250;
    // a switch that came back refuses rules naming egress groups ONOS's group audit has not restored yet: retry
    // within about one statistics period
    private static final long RETRY_MAX_MS = 1000;

    // A switch that refused its tables (a switch back without the egress groups its rules need, until ONOS's
    // group audit adds them again) is tried again, with backoff, while the layout is current: nothing else
    // would, since the next topology change may be far away.
    private void sendStatic(BitmapLayout next, long retryMs) {
        String fp = fingerprint(next);
        StaticTables before = store.staticTables();
        long generation = before == null ? 1 : before.fingerprint().equals(fp) ? before.generation()
                : before.generation() + 1;
        if (before == null || before.generation() != generation || before.acknowledged()) {
            // written ahead: another instance must not take the tables as in place while they change
            store.setStaticTables(new StaticTables(generation, fp, false));
        }
        programmer.applyStatic(next).whenComplete((v, e) -> {
            if (e == null) {
                if (isCurrent(next)) {
                    store.setStaticTables(new StaticTables(generation, fp, true));
                    staticInPlace = next;
                    reported = Set.of();
                    onStaticInPlace.run();
                }
                return;
            }
            log.warn("Static BITMAP tables not in place (trying again in {} ms): {}", retryMs, e.getMessage());
            Set<DeviceId> unready = programmer.notInPlace();
            if (!reported.containsAll(unready)) {
                // a switch newly without its tables: groups whose receivers sit behind it are decided again
                onStaticRefused.run();
            }
            reported = unready;
            ScheduledExecutorService t = retryTimer;
            if (t != null && isCurrent(next)) {
                try {
                    t.schedule(() -> {
                        if (isCurrent(next) && staticInPlace != next) {
                            sendStatic(next, Math.min(RETRY_MAX_MS, retryMs * 2));
                        }
                    }, retryMs, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException stopped) {
                    log.debug("Stopped; no retry of the static tables");
                }
            }
        });
    }

    private volatile ScheduledExecutorService retryTimer;
    private volatile Supplier<FabricSnapshot> newest;

    /** @param snapshots the newest snapshot of the fabric (what the static tables follow) */
    public void setNewest(Supplier<FabricSnapshot> snapshots) {
        this.newest = snapshots;
    }

    /**
     * A switch connected again: its static tables are sent again in full, and BITMAP groups wait until it
     * acknowledged them (ONOS's stores still list what it held before; it may have come back empty).
     *
     * @param device the switch
     */
    public synchronized void deviceReturned(DeviceId device) {
        if (programmer == null || !inUse) {
            return;
        }
        programmer.deviceReturned(device);
        returned.add(device);
        staticSent = null;
        staticInPlace = null;
    }

    // switches seen back since the static tables were last acknowledged (what an instance that does not program
    // them knows of a switch without its tables; the owner asks its programmer)
    private final Set<DeviceId> returned = ConcurrentHashMap.newKeySet();

    private Set<DeviceId> unready(BitmapLayout l) {
        Set<DeviceId> mine = programmer.notInPlace();
        if (mine.isEmpty() && returned.isEmpty()) {
            // the common case, on every compile: no partition lookup
            return Set.of();
        }
        if (owner.getAsBoolean()) {
            return mine;
        }
        if (readyFor(l)) {
            returned.clear();
            return Set.of();
        }
        return Set.copyOf(returned);
    }

    /** @param timer where retries of refused static tables are scheduled (null: none) */
    public void setRetryTimer(ScheduledExecutorService timer) {
        this.retryTimer = timer;
        if (programmer != null) {
            programmer.setTimer(timer);
        }
    }

    private synchronized BitmapLayout inUse(FabricSnapshot fabric) {
        inUse = true;
        BitmapLayout l = layout(fabric);
        applyStatic(l);
        return l;
    }

    /**
     * @param fabric the current snapshot
     * @return true once the switches acknowledged the static tables of the snapshot's layout (sent by this
     *         instance, or by the instance that owns them: its record names the same entries)
     */
    public synchronized boolean staticReady(FabricSnapshot fabric) {
        if (programmer == null) {
            return false;
        }
        return readyFor(layout(fabric));
    }

    private synchronized boolean readyFor(BitmapLayout l) {
        if (staticInPlace == l) {
            return true;
        }
        StaticTables t = store.staticTables();
        return !owner.getAsBoolean() && l.fits() && t != null && t.acknowledged()
                && t.fingerprint().equals(fingerprint(l));
    }

    /**
     * @param owner true on the one instance that programs the static tables
     */
    public void setOwner(BooleanSupplier owner) {
        this.owner = owner;
    }

    /**
     * Ownership of the static tables may have moved (partitions moved, an instance restarted): the new owner
     * brings the switches in line with the current layout.
     */
    public synchronized void ownershipChanged() {
        if (layout != null && inUse && owner.getAsBoolean() && staticSent != layout) {
            applyStatic(layout);
        }
    }

    // the name other instances compare their layout with (see BitmapPlanner.fingerprint)
    private synchronized String fingerprint(BitmapLayout l) {
        if (l != fingerprinted) {
            fingerprint = programmer.planner().fingerprint(l);
            fingerprinted = l;
        }
        return fingerprint;
    }

    private synchronized boolean isCurrent(BitmapLayout l) {
        return layout == l;
    }

    private volatile Set<DeviceId> reported = Set.of();
    private volatile Runnable onStaticRefused = () -> { };

    /** @param task what to do when a switch that held its static tables refused them (BITMAP groups re-decide) */
    public void setOnStaticRefused(Runnable task) {
        onStaticRefused = task;
    }

    /**
     * @param task what to do when the switches acknowledged the static tables of the current layout
     */
    public void setOnStaticInPlace(Runnable task) {
        onStaticInPlace = task;
    }

    /**
     * Brings the layout up to date with a snapshot and says whether BITMAP started or stopped fitting since the
     * last call (then every AUTO group must be decided again).
     *
     * @param fabric the current snapshot
     * @return true if the fabric's fit changed
     */
    public synchronized boolean refreshFit(FabricSnapshot fabric) {
        layout(fabric);
        boolean changed = fitChanged;
        fitChanged = false;
        return changed;
    }

    /**
     * @param group  the group (its current receivers)
     * @param fabric the current snapshot
     * @return the mode the group gets, and for BITMAP its stamp
     */
    public BitmapDecision decide(P2mpGroup group, FabricSnapshot fabric) {
        ReplicationMode requested = group.request().mode();
        if (requested == ReplicationMode.TREE) {
            return new BitmapDecision(BitmapChoice.decide(requested, true, null), null, Set.of(), Set.of());
        }
        if (group.peer().isPresent()) {
            return new BitmapDecision(BitmapChoice.autoTree("ACK_AGGREGATION: the receivers' ACKs return along the "
                    + "group's tree"), null, Set.of(), Set.of());
        }
        BitmapLayout l = inUse(fabric);
        if (!l.fits()) {
            // nothing about the group can change that: decide without resolving its hosts
            BitmapStamp.Result none = BitmapStamp.compile(l, "", List.of(), group.address(),
                    group.request().priority(), group.id().value());
            return new BitmapDecision(BitmapChoice.decide(requested, programmer != null,
                    programmer != null ? none : null), none, Set.of(), Set.of());
        }
        Set<HostId> resolved = new LinkedHashSet<>();
        HostId source = hosts.idOrNull(group.request().source());
        if (source != null) {
            resolved.add(source);
        }
        Map<String, Endpoint> byName = new LinkedHashMap<>();
        for (Endpoint r : group.request().receivers()) {
            HostId id = hosts.idOrNull(r);
            if (id != null) {
                resolved.add(id);
            }
            byName.putIfAbsent(id == null ? "?" + r.host() : hosts.nameOf(id), r);
        }
        BitmapStamp.Result result = BitmapStamp.compile(l, source == null ? "?" + group.request().source().host()
                : hosts.nameOf(source), source == null ? null : source.mac(), byName.keySet(), group.address(),
                group.request().priority(), group.id().value());
        BitmapChoice choice = BitmapChoice.decide(requested, programmer != null, programmer != null ? result : null);
        if (requested == ReplicationMode.AUTO && choice.mode() == ReplicationMode.BITMAP
                && group.effectiveMode() != ReplicationMode.BITMAP && !readyFor(l)) {
            // a new AUTO group waits for the static tables (it is re-decided when they are in place); a group
            // already on BITMAP stays there while the tables follow a topology change
            choice = BitmapChoice.autoTree("the switches do not hold the static BITMAP tables yet "
                    + "(the group moves to BITMAP when they do)");
        }
        Set<Endpoint> unreachable = new LinkedHashSet<>();
        result.unreachable().forEach(n -> unreachable.add(byName.get(n)));
        Set<DeviceId> unready = programmer == null || result.stamp() == null ? Set.of() : unready(l);
        if (unready.isEmpty() || choice.mode() != ReplicationMode.BITMAP) {
            return new BitmapDecision(choice, result, unreachable, resolved);
        }
        Set<DeviceId> crossed = new LinkedHashSet<>();
        Set<Endpoint> behind = behindUnready(l, result.stamp(), byName, unready, crossed);
        return new BitmapDecision(choice, result, unreachable, resolved, behind, crossed);
    }

    // A receiver does not get the group's packets while its leaf, the source leaf or (for a receiver outside the
    // source leaf) a switch above the leaves lacks its static tables: the tables, not the stamp, replicate.
    private static Set<Endpoint> behindUnready(BitmapLayout l, BitmapStamp stamp, Map<String, Endpoint> byName,
                                               Set<DeviceId> unready, Set<DeviceId> crossed) {
        String source = stamp.device().toString();
        BitmapLayout.SwitchPorts sourcePorts = l.switchPorts(source);
        long local = sourcePorts == null ? 0 : sourcePorts.subtree();
        long mask = 0;
        for (DeviceId d : unready) {
            BitmapLayout.SwitchPorts sw = l.switchPorts(d.toString());
            if (sw == null) {
                continue;
            }
            long m = d.equals(stamp.device()) ? ~0L : sw.role() == Role.LEAF ? sw.subtree()
                    : ~local;
            if ((m & stamp.bits()) != 0) {
                crossed.add(d);
                mask |= m;
            }
        }
        Set<Endpoint> out = new LinkedHashSet<>();
        for (Map.Entry<String, Endpoint> e : byName.entrySet()) {
            int bit = l.bitOfHost(e.getKey());
            if (bit >= 0 && (mask & stamp.bits() & (1L << bit)) != 0) {
                out.add(e.getValue());
            }
        }
        return out;
    }

    /**
     * @param group  a BITMAP group
     * @param fabric the current snapshot
     * @return its bit map
     */
    public GroupBitmap bitmapOf(P2mpGroup group, FabricSnapshot fabric) {
        BitmapLayout l = layout(fabric);
        Map<Endpoint, Integer> bits = new LinkedHashMap<>();
        long all = 0;
        for (Endpoint r : group.request().receivers()) {
            HostId id = hosts.resolveOrNull(r);
            int bit = id == null ? -1 : l.bitOfHost(id.toString());
            if (bit >= 0) {
                // named as the caller named the receiver, not by ONOS's host id
                bits.put(r, bit);
                all |= 1L << bit;
            }
        }
        return new GroupBitmap(group.id(), GroupBitmap.CARRIER_ETH_SRC, bits, all,
                EthSrcBitmap.stamp(all).toString());
    }

    /**
     * @param stamp  the stamp a BITMAP group holds on its source leaf
     * @param fabric the current snapshot
     * @return what the group uses on the switches: the stamp and every switch's static tables
     */
    public synchronized BitmapPlan planOf(BitmapStamp stamp, FabricSnapshot fabric) {
        BitmapLayout l = layout(fabric);
        String leaf = stamp.device().toString();
        String uplink;
        int u = stamp.uplink();
        if (!stamp.goesUp()) {
            uplink = "none: every receiver is on the source leaf";
        } else if (u > BitmapLayout.SLOT_BASE && u <= BitmapLayout.SLOT_BASE + BitmapLayout.SLOTS) {
            long port = l.slotUplink(leaf, u - BitmapLayout.SLOT_BASE);
            uplink = "spread slot " + (u - BitmapLayout.SLOT_BASE) + " of " + BitmapLayout.SLOTS
                    + (port < 0 ? ", no uplink reaches every receiver now" : ", now port " + port);
        } else {
            uplink = "port " + u + " (the only uplink that reaches the group's receivers outside the leaf)";
        }
        List<BitmapPlan.StaticDevice> devices = new ArrayList<>();
        if (programmer != null && l.fits()) {
            programmer.planner().staticEntries(l).entrySet().stream()
                    .sorted(java.util.Comparator.comparing(e -> e.getKey().toString()))
                    .forEach(e -> devices.add(new BitmapPlan.StaticDevice(e.getKey(), e.getValue().rules().size(),
                            e.getValue().groups().size())));
        }
        StaticTables t = store.staticTables();
        return new BitmapPlan(stamp.device(), stamp.inPort(), stamp.bits(), EthSrcBitmap.stamp(stamp.bits())
                .toString(), stamp.sourceMac() != null, uplink, t == null ? 0 : t.generation(), readyFor(l),
                devices);
    }
}
