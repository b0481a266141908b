package org.mcast4ai.impl;

import org.mcast4ai.testing.TestFabric;
import org.mcast4ai.testing.FakeFlowRuleService;
import com.google.common.collect.ImmutableSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.api.StateChange;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.IPCriterion;
import org.onosproject.net.flow.criteria.PortCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mcast4ai.impl.ManagerHarness.request;
import static org.mcast4ai.testing.TestFabric.hostId;
import static org.mcast4ai.testing.TestFabric.leaf;

/** The group lifecycle against a leaf-spine fabric: install only on acknowledgement, updates, withdraw. */
class P2mpGroupManagerTest {
    private ManagerHarness h;

    @BeforeEach
    void setUp() {
        h = new ManagerHarness();
    }

    private Map<String, Integer> deliver(P2mpGroup g) {
        return Delivery.trace(h.fabric, h.flows, g.address(),
                h.fabric.hosts.getHost(HostId.hostId(g.request().source().host())));
    }

    private static Map<String, Integer> once(String... hosts) {
        return java.util.Arrays.stream(hosts).collect(Collectors.toMap(x -> x, x -> 1));
    }

    private static List<GroupState> states(P2mpGroup g) {
        return g.history().stream().map(StateChange::state).collect(Collectors.toList());
    }

    @Test
    void installedOnlyAfterTheSwitchesAcknowledge() {
        P2mpGroup submitted = h.manager.submit(request("g1", 2, 1, 3, 1));
        assertEquals(GroupState.SUBMITTED, submitted.state());
        assertEquals(GroupState.INSTALLING, h.get(submitted.id()).state());
        assertEquals(1, h.flows.pendingCount());
        assertTrue(h.manager.getInstalledPlan(submitted.id()).branches().isEmpty(),
                "nothing counts as installed before the acknowledgement");

        h.flows.ack();

        P2mpGroup g = h.get(submitted.id());
        assertEquals(GroupState.INSTALLED, g.state());
        assertEquals(List.of(GroupState.SUBMITTED, GroupState.COMPILING, GroupState.INSTALLING,
                GroupState.INSTALLED), states(g));
        assertEquals(ReplicationMode.TREE, g.effectiveMode());
        assertTrue(g.modeReason().contains("AUTO chose TREE"), g.modeReason());
        assertEquals(4, h.manager.getInstalledPlan(g.id()).branches().size(), "source leaf, spine, 2 leaves");
        assertEquals(once(hostId(2, 1), hostId(3, 1)), deliver(g));
    }

    @Test
    void ruleMatchesGroupTrafficAndOutputsEveryBranchPort() {
        P2mpGroup g = h.manager.submit(request("g1", 1, 2, 2, 1, 2, 2));
        h.flows.ackAll();
        List<FlowRule> onLeaf1 = h.flows.rulesOn(leaf(1));
        assertEquals(1, onLeaf1.size());
        FlowRule rule = onLeaf1.get(0);
        assertEquals(TestFabric.port(1),
                ((PortCriterion) rule.selector().getCriterion(Criterion.Type.IN_PORT)).port());
        assertEquals(g.address().toIpPrefix(),
                ((IPCriterion) rule.selector().getCriterion(Criterion.Type.IPV4_DST)).ip());
        assertTrue(rule.selector().getCriterion(Criterion.Type.ETH_TYPE) != null);
        assertEquals(g.request().priority(), rule.priority());
        assertEquals(0, rule.tableId());
        assertTrue(rule.isPermanent());
        Set<Long> outs = rule.treatment().immediate().stream()
                .filter(i -> i.type() == Instruction.Type.OUTPUT)
                .map(i -> ((Instructions.OutputInstruction) i).port().toLong()).collect(Collectors.toSet());
        assertEquals(2, outs.size(), "local receiver port and one uplink: " + outs);
        assertTrue(outs.contains(2L));
        assertEquals(once(hostId(1, 2), hostId(2, 1), hostId(2, 2)), deliver(h.get(g.id())));
    }

    @Test
    void rejectedBatchFailsTheGroupWithTheDeviceAndNeverInstalls() {
        P2mpGroup g = h.manager.submit(request("g1", 2, 1, 3, 1));
        h.flows.fail(leaf(3));
        P2mpGroup failed = h.get(g.id());
        assertEquals(GroupState.FAILED, failed.state());
        assertTrue(failed.reason().contains(leaf(3).toString()), failed.reason());
        assertFalse(states(failed).contains(GroupState.INSTALLED));
    }

    @Test
    void unansweredBatchFailsAfterTheTimeout() throws InterruptedException {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            h = new ManagerHarness(TestFabric.leafSpine(), timer);
            h.configure(OsgiPropertyConstants.INSTALL_TIMEOUT_MS, "50");
            P2mpGroup g = h.manager.submit(request("g1", 2, 1));
            long deadline = System.currentTimeMillis() + 5000;
            while (h.get(g.id()).state() == GroupState.INSTALLING && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            P2mpGroup failed = h.get(g.id());
            assertEquals(GroupState.FAILED, failed.state());
            assertTrue(failed.reason().contains("no acknowledgement"), failed.reason());
            h.flows.ack(); // a late acknowledgement does not resurrect the attempt
            assertEquals(GroupState.FAILED, h.get(g.id()).state());
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void addingReceiversTouchesOnlyChangedDevices() {
        P2mpGroup g = h.manager.submit(request("g1", 2, 1));
        h.flows.ackAll();
        GroupPlan before = h.manager.getInstalledPlan(g.id());

        h.manager.addReceivers(g.id(), Set.of(Endpoint.of(hostId(2, 2))));
        assertEquals(Set.of(leaf(2)), FakeFlowRuleService.devices(h.flows.lastBatch()),
                "a receiver on a leaf already in the tree changes only that leaf");
        assertEquals(GroupState.INSTALLING, h.get(g.id()).state());
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());

        GroupPlan middle = h.manager.getInstalledPlan(g.id());
        h.manager.addReceivers(g.id(), Set.of(Endpoint.of(hostId(3, 1))));
        Set<DeviceId> touched = FakeFlowRuleService.devices(h.flows.lastBatch());
        h.flows.ackAll();
        GroupPlan after = h.manager.getInstalledPlan(g.id());
        assertEquals(after.changedDevices(middle), touched);
        assertEquals(2, touched.size(), "the spine gains a port, leaf 3 joins: " + touched);
        assertFalse(before.equals(after));
        assertTrue(touched.contains(leaf(3)));
        assertFalse(touched.contains(leaf(1)), "the source leaf's branch did not change: " + touched);
        assertFalse(touched.contains(leaf(2)), "leaf 2's branch did not change: " + touched);
        assertEquals(once(hostId(2, 1), hostId(2, 2), hostId(3, 1)), deliver(h.get(g.id())));
    }

    @Test
    void removingReceiversRemovesTheirBranches() {
        P2mpGroup g = h.manager.submit(request("g1", 2, 1, 3, 1));
        h.flows.ackAll();
        h.manager.removeReceivers(g.id(), Set.of(Endpoint.of(hostId(3, 1))));
        Set<DeviceId> touched = FakeFlowRuleService.devices(h.flows.lastBatch());
        assertTrue(touched.contains(leaf(3)));
        assertFalse(touched.contains(leaf(1)));
        assertFalse(touched.contains(leaf(2)));
        h.flows.ackAll();
        assertTrue(h.flows.rulesOn(leaf(3)).isEmpty(), "leaf 3 keeps nothing");
        assertEquals(once(hostId(2, 1)), deliver(h.get(g.id())));
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
    }

    @Test
    void withdrawRemovesExactlyWhatTheGroupInstalled() {
        P2mpGroup other = h.manager.submit(request("other", 4, 1, 4, 2));
        h.flows.ackAll();
        List<FlowRule> othersRules = h.flows.allRules();

        P2mpGroup g = h.manager.submit(request("g1", 2, 1, 3, 1, 4, 2));
        h.flows.ackAll();
        h.manager.addReceivers(g.id(), Set.of(Endpoint.of(hostId(3, 2))));
        h.flows.ackAll();
        assertTrue(h.flows.allRules().size() > othersRules.size());

        P2mpGroup w = h.manager.withdraw(g.id());
        assertEquals(GroupState.WITHDRAWING, w.state());
        assertTrue(h.flows.lastBatch().stages().stream().flatMap(Set::stream)
                .allMatch(op -> op.type() == FlowRuleOperation.Type.REMOVE));
        h.flows.ackAll();

        assertEquals(GroupState.WITHDRAWN, h.get(g.id()).state());
        assertEquals(Set.copyOf(othersRules), Set.copyOf(h.flows.allRules()), "nothing of g1 is left behind");
        assertTrue(h.manager.getInstalledPlan(g.id()).branches().isEmpty());
        assertTrue(deliver(h.get(g.id())).isEmpty());
        assertEquals(GroupState.INSTALLED, h.get(other.id()).state());

        h.manager.purge(g.id());
        assertTrue(h.manager.getGroup(g.id()).isEmpty());
        assertEquals(P2mpGroupEvent.Type.GROUP_REMOVED, h.events.get(h.events.size() - 1).type());
    }

    @Test
    void withdrawWhileInstallingRemovesWhatThatBatchInstalled() {
        P2mpGroup g = h.manager.submit(request("g1", 2, 1));
        h.manager.withdraw(g.id());
        assertEquals(1, h.flows.pendingCount(), "the removal waits for the pending batch");
        h.flows.ackAll();
        assertEquals(GroupState.WITHDRAWN, h.get(g.id()).state());
        assertTrue(h.flows.allRules().isEmpty());
    }

    @Test
    void failedGroupHoldingEntriesMustBeWithdrawnBeforePurge() {
        P2mpGroup g = h.manager.submit(request("g1", 2, 1, 3, 1));
        h.flows.fail(leaf(3));
        assertEquals(GroupState.FAILED, h.get(g.id()).state());
        org.mcast4ai.api.GroupException e = org.junit.jupiter.api.Assertions.assertThrows(
                org.mcast4ai.api.GroupException.class, () -> h.manager.purge(g.id()));
        assertEquals(org.mcast4ai.api.GroupException.Kind.CONFLICT, e.kind());
        h.manager.withdraw(g.id());
        h.flows.ackAll();
        assertEquals(GroupState.WITHDRAWN, h.get(g.id()).state());
        h.manager.purge(g.id());
        assertTrue(h.manager.getGroup(g.id()).isEmpty());
    }

    @Test
    void recompileRetriesAFailedGroup() {
        P2mpGroup g = h.manager.submit(request("g1", 2, 1));
        h.flows.fail(leaf(2));
        assertEquals(GroupState.FAILED, h.get(g.id()).state());
        h.manager.recompile(g.id());
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        assertEquals(once(hostId(2, 1)), deliver(h.get(g.id())));
    }

    @Test
    void groupsOwnedByAnotherInstanceAreStoredButNotInstalledHere() {
        h.mine = id -> false;
        P2mpGroup g = h.manager.submit(request("g1", 2, 1));
        assertEquals(GroupState.SUBMITTED, h.get(g.id()).state());
        assertTrue(h.flows.batches().isEmpty());
    }

    @Test
    void theOwnerIsTheLeaderOfTheGroupsWorkPartition() {
        P2mpGroup g = h.manager.submit(request("g1", 2, 1));
        assertEquals(new org.mcast4ai.api.GroupOwner(g.id(), "instance-1", true), h.manager.owner(g.id()));
        h.mine = id -> false;
        assertEquals(new org.mcast4ai.api.GroupOwner(g.id(), "instance-2", false), h.manager.owner(g.id()));
        org.mcast4ai.api.GroupException e = org.junit.jupiter.api.Assertions.assertThrows(
                org.mcast4ai.api.GroupException.class, () -> h.manager.owner(org.mcast4ai.api.P2mpGroupId.of(999)));
        assertEquals(org.mcast4ai.api.GroupException.Kind.NOT_FOUND, e.kind());
    }

    @Test
    void eventsFollowTheLifecycle() {
        P2mpGroup g = h.manager.submit(request("g1", 2, 1));
        h.flows.ackAll();
        assertEquals(P2mpGroupEvent.Type.GROUP_ADDED, h.events.get(0).type());
        assertEquals(GroupState.INSTALLED, h.events.get(h.events.size() - 1).subject().state());
        assertTrue(h.events.stream().allMatch(e -> e.subject().id().equals(g.id())));
    }

    @Test
    void receiversNamedByMacOrIpResolveToTheSameTree() {
        P2mpGroup g = h.manager.submit(org.mcast4ai.api.P2mpGroupRequest.builder()
                .key(org.mcast4ai.api.GroupKey.of("t", "by-name"))
                .source(Endpoint.of(TestFabric.mac(1, 1).toString()))
                .addReceiver(Endpoint.of(TestFabric.ip(2, 1)))
                .addReceiver(Endpoint.of(TestFabric.mac(3, 2).toString(), 77))
                .build());
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        Map<String, Integer> got = Delivery.trace(h.fabric, h.flows, g.address(),
                h.fabric.hosts.getHost(HostId.hostId(TestFabric.mac(1, 1), VlanId.NONE)));
        assertEquals(once(hostId(2, 1), hostId(3, 2)), got);
        assertEquals(ImmutableSet.of(), h.get(g.id()).unreachable());
    }

    @Test
    void aReceiverAddedByOneNameIsRemovedByAnother() {
        P2mpGroup g = h.manager.submit(org.mcast4ai.api.P2mpGroupRequest.builder()
                .key(org.mcast4ai.api.GroupKey.of("t", "renamed"))
                .source(Endpoint.of(hostId(1, 1)))
                .addReceiver(Endpoint.of(TestFabric.mac(2, 1).toString()))
                .addReceiver(Endpoint.of(TestFabric.ip(3, 2), 77))
                .addReceiver(Endpoint.of(TestFabric.ip(4, 1)))
                .build());
        h.flows.ackAll();
        h.manager.removeReceivers(g.id(), ImmutableSet.of(Endpoint.of(TestFabric.ip(2, 1)),
                Endpoint.of(hostId(3, 2))));
        h.flows.ackAll();
        assertEquals(ImmutableSet.of(Endpoint.of(TestFabric.ip(4, 1))), h.get(g.id()).request().receivers(),
                "the member named by MAC went by its IP, the one with a QPN by its host id");
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        // no member on that host: nothing removed, and no error (a retried removal succeeds)
        P2mpGroup before = h.get(g.id());
        h.manager.removeReceivers(g.id(), ImmutableSet.of(Endpoint.of(hostId(4, 1), 5)));
        assertEquals(before, h.get(g.id()));
    }
}
