package org.mcast4ai.impl.p4;

import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.impl.program.DeviceEntry;
import org.mcast4ai.impl.program.FlowRuleProgrammer;
import org.mcast4ai.impl.program.GroupWriter;
import org.onosproject.net.group.GroupKey;
import org.mcast4ai.impl.program.Move;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupService;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes BITMAP groups' {@link P4Stamp}s on P4 source leaves through ONOS's flow rule and group services
 * (which turn them into P4Runtime table entries and a multicast group), make-before-break in three stages of one
 * flow batch:
 * <ol>
 *   <li>the target slot's multicast group (added, or its replicas set, before the batch) and its header
 *       entries;</li>
 *   <li>the sender's {@code stamp_group} entry, which names the slot, and its {@code sender} entry, what the
 *       headers it writes itself may name (their match is the sender's port and the group's address, so each
 *       replaces the old one in place);</li>
 *   <li>removal of the header entries of the slot no longer used; its multicast group is removed once the batch
 *       is acknowledged.</li>
 * </ol>
 * A device is acknowledged when ONOS acknowledged its stages (as for every flow programmer); ONOS writes the
 * multicast group at once and confirms it only on its group poll, so the group is not waited for: until it is on
 * the switch a stamped packet is replicated to nobody, never to anyone else. {@link #holds} checks the group too.
 */
public final class P4StampProgrammer extends FlowRuleProgrammer implements GroupWriter {
    private final GroupService groupService;
    private final ApplicationId appId;
    private final java.util.function.IntSupplier leafSet;

    /**
     * @param flowRuleService ONOS's flow rule service
     * @param groupService    ONOS's group service
     * @param appId           the group manager's application (the orphan sweep keeps what groups hold)
     */
    public P4StampProgrammer(FlowRuleService flowRuleService, GroupService groupService, ApplicationId appId) {
        this(flowRuleService, groupService, appId, () -> P4FabricPlanner.DEFAULT_LEAF_SET);
    }

    /**
     * @param flowRuleService ONOS's flow rule service
     * @param groupService    ONOS's group service
     * @param appId           the group manager's application
     * @param leafSet         the leaf numbers the switches' build of the program covers ({@code LEAF_SET})
     */
    public P4StampProgrammer(FlowRuleService flowRuleService, GroupService groupService, ApplicationId appId,
                             java.util.function.IntSupplier leafSet) {
        super(flowRuleService);
        this.groupService = groupService;
        this.appId = appId;
        this.leafSet = leafSet;
    }

    // the entries as the switches' build holds them
    private P4StampPlanner.Entries entries(P4Stamp stamp) {
        return new P4StampPlanner(appId, leafSet.getAsInt()).entries(stamp.stamp());
    }

    @Override
    public String kind() {
        return P4Stamp.KIND;
    }

    @Override
    public List<FlowRule> rules(P2mpGroup group, DeviceEntry entry) {
        return entries((P4Stamp) entry).rules;
    }

    @Override
    public Set<DeviceId> apply(P2mpGroup group, List<Move> moves, Outcome done) {
        List<FlowRule> headers = new ArrayList<>();
        List<FlowRule> senders = new ArrayList<>();
        Map<FlowId, FlowRule> stale = new LinkedHashMap<>();
        List<GroupDescription> oldGroups = new ArrayList<>();
        Set<DeviceId> touched = new LinkedHashSet<>();
        for (Move m : moves) {
            P4Stamp target = (P4Stamp) m.target();
            Set<FlowId> kept = new HashSet<>();
            Set<Integer> keptSlots = new HashSet<>();
            if (target != null) {
                P4StampPlanner.Entries e = entries(target);
                sendGroup(e.group);
                senders.addAll(e.rules.subList(0, 2));
                headers.addAll(e.rules.subList(2, e.rules.size()));
                e.rules.forEach(r -> kept.add(r.id()));
                keptSlots.add(target.slot());
                touched.add(m.device());
            }
            List<DeviceEntry> old = new ArrayList<>(m.uncertain());
            if (m.installed() != null) {
                old.add(m.installed());
            }
            for (DeviceEntry x : old) {
                P4StampPlanner.Entries e = entries((P4Stamp) x);
                for (FlowRule r : e.rules) {
                    if (!kept.contains(r.id())) {
                        stale.putIfAbsent(r.id(), r);
                    }
                }
                if (keptSlots.add(((P4Stamp) x).slot())) {
                    oldGroups.add(e.group);
                }
                touched.add(m.device());
            }
        }
        if (touched.isEmpty()) {
            return touched;
        }
        List<List<FlowRule>> stages = new ArrayList<>(3);
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        List<List<FlowRule>> all = List.of(headers, senders, new ArrayList<>(stale.values()));
        for (int i = 0; i < all.size(); i++) {
            List<FlowRule> rules = all.get(i);
            if (rules.isEmpty()) {
                continue;
            }
            if (!stages.isEmpty()) {
                ops.newStage();
            }
            stages.add(rules);
            boolean removal = i == 2;
            for (FlowRule r : rules) {
                if (removal) {
                    ops.remove(r);
                } else {
                    ops.add(r);
                }
            }
        }
        flowRuleService().apply(ops.build(new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations o) {
                // the sender's entry names the new slot: the old slot's multicast group carries nothing now
                oldGroups.forEach(g -> groupService.removeGroup(g.deviceId(), g.appCookie(), appId));
                done.done(touched, Map.of());
            }

            @Override
            public void onError(FlowRuleOperations failed) {
                failedBatch(stages, touched, failed, done);
            }
        }));
        return touched;
    }

    // added if ONOS does not have it, its replicas set if they differ
    private void sendGroup(GroupDescription g) {
        Group held = groupService.getGroup(g.deviceId(), g.appCookie());
        if (held == null) {
            groupService.addGroup(g);
        } else if (!sameReplicas(held, g)) {
            groupService.setBucketsForGroup(g.deviceId(), g.appCookie(), g.buckets(), g.appCookie(), appId);
        }
    }

    // ONOS keeps a group's buckets as a list; the replicas are one per header packet, all to one port
    private static boolean sameReplicas(Group held, GroupDescription want) {
        return held.buckets().buckets().size() == want.buckets().buckets().size()
                && held.buckets().buckets().containsAll(want.buckets().buckets());
    }

    @Override
    public Set<GroupKey> groupKeys(P2mpGroup group, DeviceEntry entry) {
        return Set.of(entries((P4Stamp) entry).group.appCookie());
    }

    @Override
    public boolean writes(GroupKey key) {
        byte[] prefix = P4StampPlanner.GROUP_KEY_PREFIX.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] k = key.key();
        return k.length > prefix.length && java.util.Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length);
    }

    @Override
    public boolean holds(P2mpGroup group, DeviceEntry entry) {
        P4StampPlanner.Entries e = entries((P4Stamp) entry);
        Group held = groupService.getGroup(e.group.deviceId(), e.group.appCookie());
        return held != null && held.state() != Group.GroupState.PENDING_DELETE && sameReplicas(held, e.group)
                && super.holds(group, entry);
    }
}
