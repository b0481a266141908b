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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Brings P4 switches to the static state {@link P4FabricPlanner} computed, level-triggered: each call compares
 * the desired entries with what ONOS's flow and group stores hold for the device (which ONOS keeps true to the
 * switch: it re-installs missing rules and groups on its audits) and writes only the difference, so running it
 * again repairs whatever an earlier run, a restart or an out-of-band change left. Rules that are new or changed
 * go first, removals of the app's entries in the program's tables that nothing desires after them; the
 * multicast group is added, or its replicas replaced, when they differ.
 */
public final class P4StaticProgrammer {
    /** The program's tables: the app's entries in them are its to keep or remove. */
    public static final Set<PiTableId> TABLES = Set.of(PiTableId.of(P4FabricPlanner.ROLE),
            PiTableId.of(P4FabricPlanner.UPLINKS), PiTableId.of(P4FabricPlanner.UPLINK_PORT),
            PiTableId.of(P4FabricPlanner.OUT_PORT), PiTableId.of(P4FabricPlanner.ICRC_LO),
            PiTableId.of(P4FabricPlanner.ICRC_HI), PiTableId.of(P4EdgePlanner.REWRITE4),
            PiTableId.of(P4SubsetPlanner.SUBSET));

    private final Logger log = getLogger(getClass());
    private final FlowRuleService flowRuleService;
    private final GroupService groupService;
    private final ApplicationId appId;

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
        int adds = 0;
        int removes = 0;
        int groups = 0;
        List<FlowRule> stale = new ArrayList<>();
        for (Map.Entry<DeviceId, P4FabricPlanner.SwitchState> e : desired.entrySet()) {
            DeviceId d = e.getKey();
            Map<FlowId, FlowEntry> held = new HashMap<>();
            for (FlowEntry f : flowRuleService.getFlowEntries(d)) {
                if (f.appId() == appId.id() && f.table() instanceof PiTableId && TABLES.contains(f.table())) {
                    held.put(f.id(), f);
                }
            }
            Set<FlowId> wanted = new HashSet<>();
            for (FlowRule r : e.getValue().rules()) {
                wanted.add(r.id());
                FlowEntry h = held.get(r.id());
                if (h == null || !live(h) || !h.treatment().equals(r.treatment())) {
                    ops.add(r);
                    adds++;
                }
            }
            for (FlowEntry h : held.values()) {
                if (!wanted.contains(h.id()) && h.state() != FlowEntry.FlowEntryState.PENDING_REMOVE) {
                    stale.add(h);
                }
            }
            if (syncGroup(e.getValue().group())) {
                groups++;
            }
        }
        if (!stale.isEmpty()) {
            ops.newStage();
            for (FlowRule r : stale) {
                ops.remove(r);
                removes++;
            }
        }
        if (adds + removes > 0) {
            flowRuleService.apply(ops.build(new FlowRuleOperationsContext() {
                @Override
                public void onError(FlowRuleOperations failed) {
                    // the next run writes what is still missing
                    log.warn("P4 static entries refused: {}", failed);
                }
            }));
        }
        return new Writes(adds, removes, groups);
    }

    private static boolean live(FlowEntry e) {
        return e.state() == FlowEntry.FlowEntryState.ADDED || e.state() == FlowEntry.FlowEntryState.PENDING_ADD;
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
