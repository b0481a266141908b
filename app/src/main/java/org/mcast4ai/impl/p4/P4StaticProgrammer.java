package org.mcast4ai.impl.p4;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.pi.model.PiTableId;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Brings P4 switches to the static state {@link P4FabricPlanner} computed, level-triggered: each call compares
 * the desired entries with what ONOS's flow and group stores hold for the device (which ONOS keeps true to the
 * switch: it re-installs missing rules and groups on its audits) and writes only the difference, so running it
 * again repairs whatever an earlier run, a restart or an out-of-band change left. Rules that are new or changed
 * go first, tier by tier from the top (a core's before an aggregation switch's before a leaf's: a switch sends a
 * copy up towards leaves only once the switches above it reach them, so a path that comes back is taken from the
 * source's end last), then removals of the app's entries in the program's tables that nothing desires after them;
 * the multicast group is added, or its replicas replaced, when they differ.
 */
public final class P4StaticProgrammer {
    /** The program's tables: the app's entries in them are its to keep or remove. */
    public static final Set<PiTableId> TABLES = Set.of(PiTableId.of(P4FabricPlanner.ROLE),
            PiTableId.of(P4FabricPlanner.UPLINKS), PiTableId.of(P4FabricPlanner.UPLINK_PORT),
            PiTableId.of(P4FabricPlanner.OUT_PORT), PiTableId.of(P4FabricPlanner.ICRC_LO),
            PiTableId.of(P4FabricPlanner.ICRC_HI), PiTableId.of(P4EdgePlanner.REWRITE4),
            PiTableId.of(P4SubsetPlanner.SUBSET), PiTableId.of(P4AggPlanner.AGG_VP),
            PiTableId.of(P4AggPlanner.AGG_GROUP), PiTableId.of(P4AggPlanner.AGG_MEMBER),
            PiTableId.of(P4AggPlanner.ACK_SRC), PiTableId.of(P4AggPlanner.ACK_VP));
    /**
     * The tables of the groups' own entries (reliable receivers' rewrites, senders' subset entries, ACK
     * aggregation's entries, which start an aggregator once ONOS lists them ADDED): written with
     * the static state but no part of what a switch must acknowledge before groups use it, so that one group's
     * entry never holds up the others.
     */
    static final Set<PiTableId> GROUP_TABLES = Set.of(PiTableId.of(P4EdgePlanner.REWRITE4),
            PiTableId.of(P4SubsetPlanner.SUBSET), PiTableId.of(P4AggPlanner.AGG_VP),
            PiTableId.of(P4AggPlanner.AGG_GROUP), PiTableId.of(P4AggPlanner.AGG_MEMBER),
            PiTableId.of(P4AggPlanner.ACK_SRC), PiTableId.of(P4AggPlanner.ACK_VP));

    private final Logger log = getLogger(getClass());
    private final FlowRuleService flowRuleService;
    private final GroupService groupService;
    private final ApplicationId appId;
    // per device, the fingerprint of the desired state its switch acknowledged: a batch's success, or entries ONOS
    // lists as ADDED with nothing left to write
    private final Map<DeviceId, Integer> acked = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile Runnable onAcknowledged = () -> { };
    private volatile Runnable onRefused = () -> { };
    // devices back since their last sync: sent their whole state again (ONOS may still list what they lost)
    private final Set<DeviceId> resend = java.util.concurrent.ConcurrentHashMap.newKeySet();
    // devices with a batch not answered yet: what ONOS lists of them is not an answer
    private final Set<DeviceId> inFlight = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** What one call wrote, per kind of write. */
    public static final class Writes {
        /** Rules added or replaced. */
        public final int rules;
        /** Rules removed. */
        public final int removed;
        /** Multicast groups added or whose replicas were replaced. */
        public final int groups;

        Writes(int rules, int removed, int groups) {
            this.rules = rules;
            this.removed = removed;
            this.groups = groups;
        }

        /** @return true if nothing was written */
        public boolean none() {
            return rules == 0 && removed == 0 && groups == 0;
        }

        @Override
        public String toString() {
            return "rules=" + rules + " removed=" + removed + " groups=" + groups;
        }
    }

    /**
     * @param flowRuleService ONOS's flow rule service
     * @param groupService    ONOS's group service
     * @param appId           the app whose entries these are
     */
    public P4StaticProgrammer(FlowRuleService flowRuleService, GroupService groupService, ApplicationId appId) {
        this.flowRuleService = flowRuleService;
        this.groupService = groupService;
        this.appId = appId;
    }

    /**
     * @param desired the state of every device to program (devices missing from it are not touched)
     * @return what was written
     */
    public Writes sync(Map<DeviceId, P4FabricPlanner.SwitchState> desired) {
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        // the adds by tier, the top first
        TreeMap<Integer, List<FlowRule>> byTier = new TreeMap<>(Comparator.reverseOrder());
        int adds = 0;
        int removes = 0;
        int groups = 0;
        List<FlowRule> stale = new ArrayList<>();
        Map<DeviceId, Integer> sent = new HashMap<>();
        for (Map.Entry<DeviceId, P4FabricPlanner.SwitchState> e : desired.entrySet()) {
            DeviceId d = e.getKey();
            boolean changed = false;
            boolean confirmed = true;
            Map<FlowId, FlowEntry> held = new HashMap<>();
            for (FlowEntry f : flowRuleService.getFlowEntries(d)) {
                if (f.appId() == appId.id() && f.table() instanceof PiTableId && TABLES.contains(f.table())) {
                    held.put(f.id(), f);
                }
            }
            Set<FlowId> wanted = new HashSet<>();
            boolean all = resend.remove(d);
            for (FlowRule r : e.getValue().rules()) {
                wanted.add(r.id());
                FlowEntry h = held.get(r.id());
                boolean ofGroup = GROUP_TABLES.contains(r.table());
                if (all || h == null || !live(h) || !h.treatment().equals(r.treatment())) {
                    byTier.computeIfAbsent(e.getValue().tier(), x -> new ArrayList<>()).add(r);
                    adds++;
                    changed |= !ofGroup;
                } else if (h.state() != FlowEntry.FlowEntryState.ADDED && !ofGroup) {
                    confirmed = false;
                }
            }
            for (FlowEntry h : held.values()) {
                if (!wanted.contains(h.id()) && h.state() != FlowEntry.FlowEntryState.PENDING_REMOVE) {
                    stale.add(h);
                    changed |= !GROUP_TABLES.contains(h.table());
                }
            }
            for (GroupDescription want : groupsOf(e.getValue())) {
                if (syncGroup(want)) {
                    groups++;
                    changed = true;
                } else {
                    Group g = groupService.getGroup(d, want.appCookie());
                    confirmed &= g != null && g.state() == Group.GroupState.ADDED;
                }
            }
            int fp = fingerprint(e.getValue());
            if (changed) {
                acked.remove(d);
                sent.put(d, fp);
            } else if (confirmed && !inFlight.contains(d)) {
                acked.put(d, fp);
            }
        }
        boolean first = true;
        for (List<FlowRule> tier : byTier.values()) {
            if (!first) {
                ops.newStage();
            }
            first = false;
            tier.forEach(ops::add);
        }
        if (!stale.isEmpty()) {
            ops.newStage();
            for (FlowRule r : stale) {
                ops.remove(r);
                removes++;
            }
        }
        if (adds + removes > 0) {
            inFlight.addAll(sent.keySet());
            flowRuleService.apply(ops.build(new FlowRuleOperationsContext() {
                @Override
                public void onSuccess(FlowRuleOperations done) {
                    inFlight.removeAll(sent.keySet());
                    // the switches answered: a device whose only write was its multicast group is confirmed by
                    // the next run, once ONOS lists the group ADDED
                    sent.forEach((d, fp) -> {
                        if (groupService.getGroup(d, desired.get(d).group().appCookie()) != null) {
                            acked.put(d, fp);
                        }
                    });
                    onAcknowledged.run();
                }

                @Override
                public void onError(FlowRuleOperations failed) {
                    inFlight.removeAll(sent.keySet());
                    // the next run writes what is still missing
                    log.warn("P4 static entries refused: {}", failed);
                    onRefused.run();
                }
            }));
        }
        return new Writes(adds, removes, groups);
    }

    /**
     * @param desired the state of the devices to program, as last given to {@link #sync}
     * @return those whose switches have not acknowledged it (yet)
     */
    public Set<DeviceId> unready(Map<DeviceId, P4FabricPlanner.SwitchState> desired) {
        Set<DeviceId> out = new java.util.TreeSet<>(java.util.Comparator.comparing(DeviceId::toString));
        desired.forEach((d, state) -> {
            if (!Integer.valueOf(fingerprint(state)).equals(acked.get(d))) {
                out.add(d);
            }
        });
        return out;
    }

    /**
     * A device came back (it may be empty): its state counts as unacknowledged until written and answered again.
     *
     * @param d the device
     */
    public void forget(DeviceId d) {
        acked.remove(d);
        resend.add(d);
    }

    /** @param task run when a batch of static entries was acknowledged (the owner runs its loop again) */
    public void setOnAcknowledged(Runnable task) {
        onAcknowledged = task;
    }

    /** @param task run when a switch refused a batch of static entries (the owner runs again a little later) */
    public void setOnRefused(Runnable task) {
        onRefused = task;
    }

    // what a device's desired state is, to tell whether its acknowledgement is still the current one's
    private static int fingerprint(P4FabricPlanner.SwitchState state) {
        Set<List<Object>> rules = new HashSet<>();
        state.rules().stream().filter(r -> !GROUP_TABLES.contains(r.table()))
                .forEach(r -> rules.add(List.of(r.id(), r.treatment())));
        return java.util.Objects.hash(rules, new HashSet<>(state.group().buckets().buckets()),
                state.cloneSession() == null ? 0 : 1);
    }

    private static boolean live(FlowEntry e) {
        return e.state() == FlowEntry.FlowEntryState.ADDED || e.state() == FlowEntry.FlowEntryState.PENDING_ADD;
    }

    private static List<GroupDescription> groupsOf(P4FabricPlanner.SwitchState s) {
        return s.cloneSession() == null ? List.of(s.group()) : List.of(s.group(), s.cloneSession());
    }

    private boolean syncGroup(GroupDescription want) {
        Group have = groupService.getGroup(want.deviceId(), want.appCookie());
        if (have == null) {
            groupService.addGroup(want);
            return true;
        }
        if (!sameReplicas(have.buckets(), want.buckets())) {
            groupService.setBucketsForGroup(want.deviceId(), want.appCookie(), want.buckets(), want.appCookie(),
                    appId);
            return true;
        }
        return false;
    }

    // replicas are a set: ONOS translates each bucket to one (port, instance) replica and the order is not kept
    private static boolean sameReplicas(GroupBuckets a, GroupBuckets b) {
        return new HashSet<>(a.buckets()).equals(new HashSet<>(b.buckets()));
    }
}
