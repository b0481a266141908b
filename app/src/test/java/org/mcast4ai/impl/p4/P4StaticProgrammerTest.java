package org.mcast4ai.impl.p4;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.SwitchTables;
import org.mcast4ai.testing.FakeFlowRuleService;
import org.mcast4ai.testing.FakeGroupService;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.group.Group;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiTableId;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The static P4 state is brought to what the planner wants from whatever the switches hold: nothing, all of it,
 * part of it, entries of an older fabric, entries of another app.
 */
class P4StaticProgrammerTest {
    private static final ApplicationId APP = new DefaultApplicationId(7, "org.mcast4ai.app");
    private final FakeFlowRuleService flows = new FakeFlowRuleService().autoAck(true);
    private final FakeGroupService groups = new FakeGroupService();
    private final P4StaticProgrammer programmer = new P4StaticProgrammer(flows, groups, APP);
    private final P4FabricPlanner planner = new P4FabricPlanner(APP, P4FabricPlanner.DEFAULT_LEAF_SET);
    private final FabricSnapshot k4 = FabricGenerators.fatTree(4);
    private final BitIndexTable bits = BitIndexTable.forFabric(k4);

    private Map<DeviceId, P4FabricPlanner.SwitchState> plan(FabricSnapshot f) {
        return planner.plan(f, SwitchTables.build(f, bits));
    }

    /** The switches hold exactly the plan: every rule (with its action) and one group with its replicas. */
    private void holdsExactly(Map<DeviceId, P4FabricPlanner.SwitchState> plan) {
        for (Map.Entry<DeviceId, P4FabricPlanner.SwitchState> e : plan.entrySet()) {
            Map<Object, FlowRule> held = new HashMap<>();
            flows.rulesOn(e.getKey()).stream().filter(r -> r.appId() == APP.id()).forEach(r -> held.put(r.id(), r));
            assertEquals(e.getValue().rules().size(), held.size(), "rules on " + e.getKey());
            for (FlowRule r : e.getValue().rules()) {
                assertTrue(held.containsKey(r.id()) && held.get(r.id()).treatment().equals(r.treatment()),
                        "holds " + r);
            }
            Group g = groups.getGroup(e.getKey(), e.getValue().group().appCookie());
            assertEquals(new HashSet<>(e.getValue().group().buckets().buckets()),
                    new HashSet<>(g.buckets().buckets()), "replicas on " + e.getKey());
        }
    }

    @Test
    void fromEmptySwitchesOneRunWritesAllAndASecondNothing() {
        Map<DeviceId, P4FabricPlanner.SwitchState> plan = plan(k4);
        P4StaticProgrammer.Writes w = programmer.sync(plan);
        int rules = plan.values().stream().mapToInt(s -> s.rules().size()).sum();
        assertEquals(rules, w.rules);
        assertEquals(plan.values().stream().mapToInt(s -> s.cloneSession() == null ? 1 : 2).sum(), w.groups,
                "a multicast group each, and each leaf its clone session to the CPU port");
        assertEquals(0, w.removed);
        holdsExactly(plan);
        long batches = flows.batchCount();
        assertTrue(programmer.sync(plan).none(), "level-triggered: nothing to do");
        assertEquals(batches, flows.batchCount(), "no empty batch either");
    }

    @Test
    void aLostRuleIsWrittenAgainAndOnlyIt() {
        Map<DeviceId, P4FabricPlanner.SwitchState> plan = plan(k4);
        programmer.sync(plan);
        FlowRule lost = plan.get(DeviceId.deviceId("agg2-1")).rules().get(0);
        flows.lose(lost);
        P4StaticProgrammer.Writes w = programmer.sync(plan);
        assertEquals(1, w.rules);
        assertEquals(0, w.groups);
        List<FlowRule> sent = addsOf(flows.lastBatch());
        assertEquals(List.of(lost.id()), sent.stream().map(FlowRule::id).collect(Collectors.toList()));
        holdsExactly(plan);
    }

    @Test
    void aFailedLinkChangesActionsAndReplicasInPlaceAndRemovesWhatNoLongerExists() {
        programmer.sync(plan(k4));
        FabricSnapshot cut = FabricGenerators.withoutLinks(k4, (a, b) ->
                a.equals("agg3-1") && b.equals("core1-1") || a.equals("core1-1") && b.equals("agg3-1"));
        Map<DeviceId, P4FabricPlanner.SwitchState> after = plan(cut);
        P4StaticProgrammer.Writes w = programmer.sync(after);
        assertTrue(w.rules > 0, "reach sets change: " + w);
        assertTrue(w.removed > 0, "agg3-1's and core1-1's entries for the dead ports go: " + w);
        assertTrue(groups.modified.contains(DeviceId.deviceId("agg3-1") + "|"
                + after.get(DeviceId.deviceId("agg3-1")).group().appCookie()), "agg3-1 loses a replica");
        holdsExactly(after);
        // adds tier by tier from the top (cores, aggregation switches, edges: a switch takes a path up only once
        // the switches above it reach its leaves), removals after every add or change, in a later stage
        FlowRuleOperations last = flows.lastBatch();
        List<Set<org.onosproject.net.flow.FlowRuleOperation>> stages = last.stages();
        assertTrue(stages.size() >= 3, "the core and aggregation switches change, then removals: " + stages.size());
        int above = 3;
        for (int i = 0; i < stages.size() - 1; i++) {
            Set<Integer> tiers = stages.get(i).stream().map(o -> tierOf(o.rule().deviceId()))
                    .collect(Collectors.toSet());
            assertEquals(1, tiers.size(), "one tier a stage: " + tiers);
            int tier = tiers.iterator().next();
            assertTrue(tier < above, "stage " + i + " below the one before: " + tier);
            above = tier;
            assertTrue(stages.get(i).stream().allMatch(o -> o.type() == org.onosproject.net.flow.FlowRuleOperation
                    .Type.ADD));
        }
        assertTrue(stages.get(stages.size() - 1).stream().allMatch(o -> o.type() == org.onosproject.net.flow
                .FlowRuleOperation.Type.REMOVE));
        assertTrue(programmer.sync(after).none());
        // and back
        programmer.sync(plan(k4));
        holdsExactly(plan(k4));
    }

    @Test
    void aGroupsOwnEntryNeverMakesItsSwitchUnready() {
        Map<DeviceId, P4FabricPlanner.SwitchState> plan = plan(k4);
        programmer.sync(plan);
        assertEquals(Set.of(), programmer.unready(plan));
        DeviceId d = DeviceId.deviceId("edge1-1");
        FlowRule subset = DefaultFlowRule.builder().forDevice(d).forTable(PiTableId.of(P4SubsetPlanner.SUBSET))
                .fromApp(APP).withPriority(10).makePermanent()
                .withSelector(DefaultTrafficSelector.builder().matchPi(PiCriterion.builder()
                        .matchExact(PiMatchFieldId.of("ingress_port"), 1).build()).build()).build();
        Map<DeviceId, P4FabricPlanner.SwitchState> withGroup = new HashMap<>(plan);
        P4FabricPlanner.SwitchState s = plan.get(d);
        List<FlowRule> rules = new java.util.ArrayList<>(s.rules());
        rules.add(subset);
        withGroup.put(d, new P4FabricPlanner.SwitchState(rules, s.group(), s.tier()));
        flows.autoAck(false);
        assertEquals(1, programmer.sync(withGroup).rules, "the group's entry written");
        assertEquals(Set.of(), programmer.unready(withGroup), "the switch's static state is still in place");
        // a static entry changed: unready until answered
        Map<DeviceId, P4FabricPlanner.SwitchState> fewer = new HashMap<>(withGroup);
        fewer.put(d, new P4FabricPlanner.SwitchState(rules.subList(1, rules.size()), s.group(), s.tier()));
        programmer.sync(fewer);
        assertEquals(Set.of(d), programmer.unready(fewer));
        flows.ackAll();
        programmer.sync(fewer);
        assertEquals(Set.of(), programmer.unready(fewer));
    }

    @Test
    void otherAppsAndOtherTablesAreLeftAlone() {
        DeviceId d = DeviceId.deviceId("edge1-1");
        FlowRule foreign = DefaultFlowRule.builder().forDevice(d).forTable(PiTableId.of(P4FabricPlanner.OUT_PORT))
                .fromApp(new DefaultApplicationId(9, "other")).withPriority(10).makePermanent()
                .withSelector(DefaultTrafficSelector.builder().matchPi(PiCriterion.builder()
                        .matchExact(PiMatchFieldId.of("egress_port"), 77).build()).build()).build();
        FlowRule ours = DefaultFlowRule.builder().forDevice(d).forTable(PiTableId.of(P4FabricPlanner.OUT_PORT))
                .fromApp(APP).withPriority(10).makePermanent()
                .withSelector(DefaultTrafficSelector.builder().matchPi(PiCriterion.builder()
                        .matchExact(PiMatchFieldId.of("egress_port"), 78).build()).build()).build();
        flows.apply(FlowRuleOperations.builder().add(foreign).add(ours).build());
        Map<DeviceId, P4FabricPlanner.SwitchState> plan = plan(k4);
        P4StaticProgrammer.Writes w = programmer.sync(plan);
        assertEquals(1, w.removed, "the app's leftover entry in the program's table");
        Set<Object> ids = flows.rulesOn(d).stream().map(FlowRule::id).collect(Collectors.toSet());
        assertTrue(ids.contains(foreign.id()));
        assertFalse(ids.contains(ours.id()));
    }

    @Test
    void onlyTheDevicesAskedForAreWritten() {
        Map<DeviceId, P4FabricPlanner.SwitchState> plan = planner.plan(k4, SwitchTables.build(k4, bits),
                Set.of(DeviceId.deviceId("edge1-1"), DeviceId.deviceId("core1-1")));
        assertEquals(Set.of(DeviceId.deviceId("edge1-1"), DeviceId.deviceId("core1-1")), plan.keySet());
        programmer.sync(plan);
        Set<DeviceId> written = flows.allRules().stream().map(FlowRule::deviceId).collect(Collectors.toSet());
        assertEquals(plan.keySet(), written);
    }

    private static int tierOf(DeviceId d) {
        String n = d.toString();
        return n.startsWith("core") ? 2 : n.startsWith("agg") ? 1 : 0;
    }

        private static List<FlowRule> addsOf(FlowRuleOperations ops) {
        return ops.stages().stream().flatMap(Set::stream)
                .filter(o -> o.type() == org.onosproject.net.flow.FlowRuleOperation.Type.ADD)
                .map(org.onosproject.net.flow.FlowRuleOperation::rule).collect(Collectors.toList());
    }
}
