package org.mcast4ai.impl.lifecycle;

import org.mcast4ai.impl.compile.BitmapReplication;
import org.mcast4ai.impl.fabric.FabricSnapshotFactory;
import org.mcast4ai.impl.monitor.GroupIndex;
import org.mcast4ai.impl.store.P2mpGroupStore;
import java.util.concurrent.atomic.LongAdder;
import org.mcast4ai.api.FailureKind;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.ReplicationMode;
import org.onosproject.net.DeviceId;
import org.onosproject.net.intent.WorkPartitionService;
import org.slf4j.Logger;

import java.util.LinkedHashSet;
import java.util.function.Supplier;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Decides which groups this instance works on and when: the groups it owns ({@link WorkPartitionService},
 * keyed by group id) are reconciled on their lane when the store says they changed, when the topology or
 * the static BITMAP tables change under them, and when this instance takes them over (restart, partitions
 * moved). A group queued and not yet started is not queued twice.
 */
public final class GroupScheduler {
    private final Logger log = getLogger(getClass());

    private final P2mpGroupStore store;
    private final GroupInstaller installer;
    private final GroupLanes lanes;
    private final WorkPartitionService partitions;
    private final BitmapReplication bitmaps;
    private final FabricSnapshotFactory snapshots;
    private final GroupIndex index;
    private final Set<Long> queued = ConcurrentHashMap.newKeySet();
    // the fabric-wide switch state groups wait on (the P4 switches'), or null when there is none
    private volatile Supplier<FabricState> fabricState = () -> null;

    public GroupScheduler(P2mpGroupStore store, GroupInstaller installer, GroupLanes lanes,
                          WorkPartitionService partitions, BitmapReplication bitmaps, FabricSnapshotFactory snapshots,
                          GroupIndex index) {
        this.store = store;
        this.installer = installer;
        this.lanes = lanes;
        this.partitions = partitions;
        this.bitmaps = bitmaps;
        this.snapshots = snapshots;
        this.index = index;
    }

    /** @param state the fabric-wide switch state the loop keeps in line before the groups (null: none) */
    public void setFabricState(Supplier<FabricState> state) {
        fabricState = state;
    }

    private void fabricState(java.util.function.Consumer<FabricState> work) {
        FabricState s = fabricState.get();
        if (s != null) {
            work.accept(s);
        }
    }

    private boolean isMine(P2mpGroupId id) {
        return partitions.isMine(id.value(), Long::longValue);
    }

    private void schedule(P2mpGroupId id, String why) {
        if (queued.add(id.value()) && !lanes.execute(id.value(), () -> {
            queued.remove(id.value());
            installer.reconcile(id, why);
        })) {
            queued.remove(id.value());
        }
    }

    /**
     * Runs fabric-wide work on lane 0.
     *
     * @param task the work
     */
    public void later(Runnable task) {
        if (!lanes.fabric(task)) {
            log.debug("Stopped; task dropped");
        }
    }

    /**
     * A store event: a group submitted, changed or withdrawn is reconciled by its owner.
     *
     * @param event the event
     */
    public void stored(P2mpGroupEvent event) {
        P2mpGroup g = event.subject();
        if (event.type() != P2mpGroupEvent.Type.GROUP_REMOVED
                && (g.state() == GroupState.SUBMITTED || g.state() == GroupState.WITHDRAWING)
                && isMine(g.id())) {
            schedule(g.id(), "");
        }
    }

    /**
     * The topology changed (runs on lane 0).
     *
     * @param groups      groups with entries on what changed
     * @param improvement true if something came up (groups waiting for the fabric may now reach more)
     * @param why         what changed, for the groups' history
     */
    public void topologyChanged(Set<Long> groups, boolean improvement, String why) {
        // the fabric-wide state first: the groups compiled next see which switches hold it
        fabricState(s -> s.reconcile(why));
        Set<Long> todo = new LinkedHashSet<>(groups);
        if (improvement) {
            todo.addAll(installer.waitingForFabric());
        }
        // the groups that use what changed go first: their reroute does not wait for the bit layout below
        scheduleLive(todo, improvement, why);
        // the bit layout follows the fabric: BITMAP groups are re-decided (their stamps follow moved hosts and
        // uplinks; quiet when nothing changed), AUTO groups too when BITMAP started or stopped fitting (AUTO
        // falls back to TREE, or comes back to BITMAP)
        later(() -> {
            boolean fitChanged = bitmaps.refreshFit(snapshots.snapshot());
            Set<Long> more = new LinkedHashSet<>();
            for (P2mpGroup g : store.getAll()) {
                if (g.state().isLive() && (g.effectiveMode() == ReplicationMode.BITMAP
                        || fitChanged && g.request().mode() == ReplicationMode.AUTO)) {
                    more.add(g.id().value());
                }
            }
            scheduleLive(more, improvement, why);
        });
    }

    private void scheduleLive(Set<Long> ids, boolean improvement, String why) {
        for (long g : ids) {
            P2mpGroupId id = P2mpGroupId.of(g);
            if (isMine(id)) {
                store.get(id).filter(x -> x.state().isLive() && (x.state() != GroupState.FAILED || improvement))
                        .ifPresent(x -> schedule(id, why));
            }
        }
    }

    /**
     * The static BITMAP tables are in place: AUTO groups that waited for them on TREE, and BITMAP groups that
     * waited (or failed waiting, or listed receivers behind a switch without them), are decided again.
     */
    public void staticTablesInPlace() {
        for (P2mpGroup g : store.getAll()) {
            boolean autoOnTree = g.request().mode() == ReplicationMode.AUTO
                    && g.effectiveMode() != ReplicationMode.BITMAP && g.state() != GroupState.FAILED;
            // DEGRADED: receivers behind a switch that lacked its tables are listed until they are in place
            boolean bitmapWaiting = g.effectiveMode() == ReplicationMode.BITMAP && (g.state() == GroupState.INSTALLING
                    || g.state() == GroupState.DEGRADED || g.failure() == FailureKind.STATIC_TABLES_TIMEOUT);
            if ((autoOnTree || bitmapWaiting) && g.state().isLive() && isMine(g.id())) {
                schedule(g.id(), "static BITMAP tables in place");
            }
        }
    }

    /**
     * The P4 fabric's static state changed in a way groups wait on (leaves numbered, a switch acknowledged its
     * state): owned groups that are not settled, or that list unreachable receivers, are decided again.
     *
     * @param why what changed, for the groups' history
     */
    public void fabricStateChanged(String why) {
        for (P2mpGroup g : store.getAll()) {
            if (g.request().mode() != ReplicationMode.TREE && g.state().isLive() && isMine(g.id())
                    && (g.state() == GroupState.DEGRADED || g.state() == GroupState.FAILED
                    || g.state() == GroupState.INSTALLING)) {
                schedule(g.id(), why);
            }
        }
    }

    /**
     * A switch refused its static BITMAP tables: settled BITMAP groups are decided again, so that those with
     * receivers behind it list them instead of staying INSTALLED.
     */
    public void staticTablesRefused() {
        for (P2mpGroup g : store.getAll()) {
            if (g.effectiveMode() == ReplicationMode.BITMAP && g.state() == GroupState.INSTALLED && isMine(g.id())) {
                schedule(g.id(), "a switch refused the static BITMAP tables");
            }
        }
    }

    /**
     * A switch is connected again (runs on lane 0): every owned group whose record puts entries on it, in any
     * state, is reconciled, so that lost entries are sent again and entries left there while it was gone are
     * removed.
     *
     * @param device the switch
     */
    public void deviceReturned(DeviceId device) {
        bitmaps.deviceReturned(device);
        fabricState(s -> s.deviceReturned(device));
        Set<P2mpGroupId> todo = new LinkedHashSet<>();
        store.programmedAll().forEach((id, record) -> {
            if (record.devices().contains(device)) {
                todo.add(id);
            }
        });
        for (P2mpGroupId id : todo) {
            if (isMine(id)) {
                schedule(id, "device " + device + " connected again");
            }
        }
    }

    /**
     * Compares every owned settled group's record with ONOS's flow store and reconciles those with something
     * missing (runs on lane 0; reads only).
     *
     * @return groups scheduled for repair
     */
    public int audit() {
        fabricState(s -> s.reconcile("audit"));
        int n = 0;
        for (P2mpGroup g : store.getAll()) {
            if ((g.state() == GroupState.INSTALLED || g.state() == GroupState.DEGRADED) && isMine(g.id())
                    && installer.needsRepair(g)) {
                schedule(g.id(), "audit: entries missing from the switches");
                n++;
            }
        }
        audits.increment();
        if (sweep != null && partitions.isMine(0L, Long::longValue)) {
            sweep.sweep();
        }
        return n;
    }

    private volatile OrphanSweep sweep;

    /** @param sweep what removes the app's rules no group needs, after every audit (one instance does it) */
    public void setSweep(OrphanSweep sweep) {
        this.sweep = sweep;
    }

    /** @return rules removed because no group needed them */
    public long orphansRemoved() {
        return sweep == null ? 0 : sweep.removedCount();
    }

    private final LongAdder audits = new LongAdder();

    /** @return audits run */
    public long auditCount() {
        return audits.sum();
    }

    /**
     * Takes up the groups this instance owns: after a restart or when partitions move between instances. Every
     * owned group is reconciled (quietly when nothing changed: no store write, no batch), which rebuilds what
     * lives only in memory from the fabric as it is now: the topology index with the groups' hosts, the groups
     * waiting for the fabric to reach more receivers, and it sends whatever ONOS's flow store lacks.
     */
    public void resumeOwnedGroups() {
        // the static BITMAP tables go first (a no-op while the fabric does not fit or they are in place)
        bitmaps.refreshFit(snapshots.snapshot());
        bitmaps.ownershipChanged();
        fabricState(s -> s.reconcile("taken up by this instance"));
        store.programmedAll().forEach((id, record) -> {
            if (isMine(id)) {
                index.putIfAbsent(id.value(), record.treePlan(), Set.of());
            }
        });
        for (P2mpGroup g : store.getAll()) {
            if (isMine(g.id())) {
                schedule(g.id(), "resumed by this instance");
            }
        }
    }
}
