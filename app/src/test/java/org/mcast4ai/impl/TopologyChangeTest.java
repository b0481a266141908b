package org.mcast4ai.impl;

import org.mcast4ai.testing.FakeFlowRuleService;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mcast4ai.testing.TestFabric.hostId;
import static org.mcast4ai.testing.TestFabric.leaf;
import static org.mcast4ai.testing.TestFabric.spine;

/** Link, device and host changes re-compile the affected groups only, make-before-break. */
class TopologyChangeTest {
    private ManagerHarness h;

    @BeforeEach
    void setUp() {
        h = new ManagerHarness();
    }

    private P2mpGroup group(String name, int srcLeaf, int srcHost, int... pairs) {
        P2mpGroupRequest.Builder b = P2mpGroupRequest.builder().key(GroupKey.of("t", name))
                .source(Endpoint.of(hostId(srcLeaf, srcHost)));
        for (int i = 0; i < pairs.length; i += 2) {
            b.addReceiver(Endpoint.of(hostId(pairs[i], pairs[i + 1])));
        }
        P2mpGroup g = h.manager.submit(b.build());
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        return h.get(g.id());
    }

    private Map<String, Integer> deliver(P2mpGroup g) {
        return Delivery.trace(h.fabric, h.flows, g.address(),
                h.fabric.hosts.getHost(HostId.hostId(g.request().source().host())));
    }

    private static Map<String, Integer> once(String... hosts) {
        return java.util.Arrays.stream(hosts).collect(Collectors.toMap(x -> x, x -> 1));
    }

    /** @return the spine (1-based) a group's tree uses out of the given leaf */
    private int spineFrom(P2mpGroup g, DeviceId leafId) {
        GroupPlan plan = h.manager.getInstalledPlan(g.id());
        for (int s = 1; s <= h.fabric.spines; s++) {
            if (plan.branches().containsKey(spine(s))) {
                return s;
            }
        }
        throw new AssertionError("no spine in " + plan);
    }

    @Test
    void linkDownRecompilesOnlyTheGroupsUsingIt() {
        P2mpGroup g1 = group("g1", 1, 1, 2, 1, 3, 1);
        P2mpGroup g2 = group("g2", 3, 2, 4, 1);
        P2mpGroup g3 = group("g3", 2, 2, 1, 2);
        int s = spineFrom(g1, leaf(1));
        int batches = h.flows.batches().size();

        h.fabric.linkDown(1, s);

        List<FlowRuleOperations> sent = h.flows.batches().subList(batches, h.flows.batches().size());
        Set<String> addresses = sent.stream().flatMap(b -> b.stages().stream()).flatMap(Set::stream)
                .map(op -> op.rule().selector().toString()).collect(Collectors.toSet());
        assertTrue(addresses.stream().allMatch(x -> x.contains(g1.address().toString())
                        || x.contains(g3.address().toString())),
                "only groups crossing leaf1-spine" + s + " are touched: " + addresses);
        assertTrue(addresses.stream().noneMatch(x -> x.contains(g2.address().toString())));
        assertEquals(g2, h.get(g2.id()), "an unaffected group's record does not change");

        h.flows.ackAll();
        for (P2mpGroup g : List.of(g1, g3)) {
            assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
            assertFalse(h.manager.getInstalledPlan(g.id()).branches().containsKey(spine(s)),
                    "the tree avoids spine " + s + " out of leaf 1 now");
        }
        assertEquals(once(hostId(2, 1), hostId(3, 1)), deliver(h.get(g1.id())));
        assertEquals(once(hostId(4, 1)), deliver(h.get(g2.id())));
        assertEquals(once(hostId(1, 2)), deliver(h.get(g3.id())));
    }

    @Test
    void rerouteIsMakeBeforeBreak() {
        P2mpGroup g = group("g1", 1, 1, 2, 1);
        int s = spineFrom(g, leaf(1));
        int other = s == 1 ? 2 : 1;
        h.fabric.linkDown(1, s);
        FlowRuleOperations ops = h.flows.lastBatch();
        int lastAdd = -1;
        int firstRemove = Integer.MAX_VALUE;
        int newSpineStage = -1;
        int sourceLeafStage = -1;
        for (int i = 0; i < ops.stages().size(); i++) {
            for (FlowRuleOperation op : ops.stages().get(i)) {
                if (op.type() == FlowRuleOperation.Type.REMOVE) {
                    firstRemove = Math.min(firstRemove, i);
                } else {
                    lastAdd = Math.max(lastAdd, i);
                    if (op.rule().deviceId().equals(spine(other))) {
                        newSpineStage = i;
                    }
                    if (op.rule().deviceId().equals(leaf(1))) {
                        sourceLeafStage = i;
                    }
                }
            }
        }
        assertTrue(lastAdd < firstRemove, "every add before any remove: " + ops);
        assertTrue(newSpineStage >= 0 && newSpineStage < sourceLeafStage,
                "the new spine is ready before the source leaf switches to it: " + ops);
        h.flows.ackAll();
        assertTrue(h.flows.rulesOn(spine(s)).isEmpty(), "the old spine keeps nothing");
        assertEquals(1, h.flows.rulesOn(leaf(2)).size(),
                "leaf 2's rule for the old in port is removed, not left beside the new one");
        assertEquals(3, h.flows.allRules().size());
        assertEquals(once(hostId(2, 1)), deliver(h.get(g.id())));
    }

    @Test
    void spineDownMovesTreesToTheOtherSpine() {
        P2mpGroup g = group("g1", 1, 1, 2, 1, 4, 2);
        int s = spineFrom(g, leaf(1));
        h.fabric.deviceDown(spine(s));
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        for (FlowRuleOperations ops : h.flows.batches()) {
            assertFalse(FakeFlowRuleService.devices(ops).contains(spine(s)) && ops != h.flows.batches().get(0),
                    "nothing is asked of a switch that is gone (ONOS would fail the whole batch): " + ops);
        }
        assertEquals(once(hostId(2, 1), hostId(4, 2)), deliver(h.get(g.id())));
        assertEquals(Set.of(spine(s)), h.store.programmed(g.id()).uncertainTreePlan().branches().keySet(),
                "the gone spine's rule is remembered as left there");

        // the spine returns holding its old rule: it is removed, and the group stays where it is
        h.fabric.deviceUp(spine(s));
        h.flows.ackAll();
        assertTrue(h.flows.rulesOn(spine(s)).isEmpty(), "the rule left on the returning spine is removed");
        assertTrue(h.store.programmed(g.id()).uncertainTreePlan().branches().isEmpty());
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        assertEquals(once(hostId(2, 1), hostId(4, 2)), deliver(h.get(g.id())));
    }

    @Test
    void withdrawnWhileASwitchIsGoneRemovesItsRuleWhenItReturns() {
        P2mpGroup g = group("g1", 1, 1, 2, 1, 4, 2);
        int s = spineFrom(g, leaf(1));
        h.fabric.deviceDown(spine(s));
        h.flows.ackAll();
        h.manager.withdraw(g.id());
        h.flows.ackAll();
        assertEquals(GroupState.WITHDRAWN, h.get(g.id()).state());
        assertEquals(1, h.flows.rulesOn(spine(s)).size(), "the gone spine still holds the rule");
        h.fabric.deviceUp(spine(s));
        h.flows.ackAll();
        assertTrue(h.flows.allRules().isEmpty(), "nothing of the group is left anywhere: " + h.flows.allRules());
    }

    @Test
    void recompileSendsAgainWhatTheSwitchesLost() {
        P2mpGroup g = group("g1", 1, 1, 2, 1, 4, 2);
        int before = h.flows.batches().size();
        FlowRule lost = h.flows.rulesOn(leaf(2)).get(0);
        h.flows.lose(lost);
        h.manager.recompile(g.id());
        h.flows.ackAll();
        assertEquals(before + 1, h.flows.batches().size(), "one repair batch");
        assertEquals(Set.of(leaf(2)), FakeFlowRuleService.devices(h.flows.lastBatch()),
                "only what was lost is sent");
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        assertEquals(once(hostId(2, 1), hostId(4, 2)), deliver(h.get(g.id())));
        assertTrue(h.get(g.id()).history().stream().anyMatch(c -> c.reason().startsWith("repairing")),
                "the repair is in the group's history");
    }

    @Test
    void leafCutOffDegradesTheGroupAndKeepsTheRestInstalled() {
        P2mpGroup g = group("g1", 1, 1, 2, 1, 3, 1);
        h.fabric.linkDown(3, 1);
        h.fabric.linkDown(3, 2);
        h.flows.ackAll();
        P2mpGroup degraded = h.get(g.id());
        assertEquals(GroupState.DEGRADED, degraded.state());
        assertEquals(Set.of(Endpoint.of(hostId(3, 1))), degraded.unreachable());
        assertTrue(degraded.reason().contains(hostId(3, 1)), degraded.reason());
        assertTrue(h.flows.rulesOn(leaf(3)).isEmpty());
        assertEquals(once(hostId(2, 1)), deliver(degraded));
    }

    @Test
    void hostMoveRecompilesItsGroups() {
        P2mpGroup g = group("g1", 1, 1, 2, 1);
        P2mpGroup other = group("g2", 3, 1, 4, 1);
        h.fabric.moveHost(2, 1, leaf(4), 7);
        assertEquals(other, h.get(other.id()));
        h.flows.ackAll();
        P2mpGroup moved = h.get(g.id());
        assertEquals(GroupState.INSTALLED, moved.state());
        assertTrue(h.flows.rulesOn(leaf(2)).isEmpty(), "leaf 2 has no receiver left");
        assertEquals(once(hostId(2, 1)), deliver(moved));
        assertNotEquals(0, h.flows.rulesOn(leaf(4)).size());
    }

    @Test
    void eventsForOtherInstancesGroupsAreIgnored() {
        P2mpGroup g = group("g1", 1, 1, 2, 1);
        int s = spineFrom(g, leaf(1));
        int batches = h.flows.batches().size();
        h.mine = id -> false;
        h.fabric.linkDown(1, s);
        assertEquals(batches, h.flows.batches().size());
    }

    @Test
    void aGroupWhoseSourceLeafGoesFailsAsSourceUnreachableAndComesBack() {
        P2mpGroup g = group("g1", 1, 1, 2, 1, 4, 2);
        h.fabric.deviceDown(leaf(1));
        h.flows.ackAll();
        P2mpGroup failed = h.get(g.id());
        assertEquals(GroupState.FAILED, failed.state(), failed.reason());
        assertEquals(org.mcast4ai.api.FailureKind.SOURCE_UNREACHABLE, failed.failure(), failed.reason());
        h.fabric.deviceUp(leaf(1));
        h.flows.ackAll();
        P2mpGroup back = h.get(g.id());
        assertEquals(GroupState.INSTALLED, back.state(), back.reason());
        assertEquals(null, back.failure());
        assertEquals(once(hostId(2, 1), hostId(4, 2)), deliver(back));
    }

    @Test
    void theRecordFollowsEachSwitchsAcknowledgementNotTheWholeBatch() {
        P2mpGroup g = group("g1", 1, 1, 2, 1);
        int s = spineFrom(g, leaf(1));
        // a receiver on a new leaf: its rule goes in the first stage, the spine's changed branch in the second
        h.manager.addReceivers(g.id(), Set.of(Endpoint.of(hostId(4, 1))));
        FlowRuleOperations ops = h.flows.lastBatch();
        assertTrue(ops.stages().get(0).stream().allMatch(op -> op.rule().deviceId().equals(leaf(4))), ops.toString());
        h.flows.fail(spine(s));
        P2mpGroup failed = h.get(g.id());
        assertEquals(GroupState.FAILED, failed.state());
        assertEquals(org.mcast4ai.api.FailureKind.SWITCH_REFUSED, failed.failure());
        org.mcast4ai.impl.program.Programmed record = h.store.programmed(g.id());
        // the new leaf's stage came before the refused one: that switch is known to hold its rule
        assertTrue(record.treePlan().branches().containsKey(leaf(4)), record.toString());
        assertFalse(record.uncertainTreePlan().branches().containsKey(leaf(4)), record.toString());
        // the spine may hold either branch: its new one is uncertain, its old one still on record
        assertTrue(record.uncertainTreePlan().branches().containsKey(spine(s)), record.toString());
        assertTrue(record.treePlan().branches().containsKey(spine(s)), record.toString());
        int before = h.flows.batches().size();
        h.manager.recompile(g.id());
        assertEquals(before + 1, h.flows.batches().size());
        assertFalse(FakeFlowRuleService.devices(h.flows.lastBatch()).contains(leaf(4)),
                "an acknowledged switch is not sent its rule again");
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        assertEquals(once(hostId(2, 1), hostId(4, 1)), deliver(h.get(g.id())));
        assertTrue(h.store.programmed(g.id()).uncertain().isEmpty());
    }
}
