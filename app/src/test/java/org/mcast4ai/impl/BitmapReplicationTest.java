package org.mcast4ai.impl;

import org.mcast4ai.testing.TestFabric;
import org.mcast4ai.impl.compile.Desired;
import org.mcast4ai.impl.lifecycle.GroupInstaller;
import org.mcast4ai.impl.store.StaticTables;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.impl.bitmap.BitmapLayout;
import org.mcast4ai.impl.bitmap.BitmapStamp;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.impl.bitmap.EthSrcBitmap;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mcast4ai.impl.ManagerHarness.request;
import static org.mcast4ai.testing.FakeFlowRuleService.devices;
import static org.mcast4ai.testing.TestFabric.hostId;
import static org.mcast4ai.testing.TestFabric.leaf;
import static org.mcast4ai.testing.TestFabric.spine;

/**
 * BITMAP replication through the group service on the 2-spine, 4-leaf, 2-hosts-per-leaf test fabric (8
 * receiver positions): the static tables go to the switches once, each group adds only its stamp on the
 * source leaf, and AUTO picks BITMAP where it fits and TREE where it does not, saying why.
 */
class BitmapReplicationTest {
    private ManagerHarness h;

    @BeforeEach
    void setUp() {
        h = new ManagerHarness(TestFabric.leafSpine(), null, new FakeGroupService());
    }

    private static org.mcast4ai.api.P2mpGroupRequest bitmap(String name, int... leafHostPairs) {
        return request(name, leafHostPairs).toBuilder().mode(ReplicationMode.BITMAP).build();
    }

    /** The static tables the manager sent when it started: one batch per switch; acknowledges them. */
    private void placeStatic() {
        h.flows.ackAll();
    }

    private static org.mcast4ai.engine.FabricSnapshot twoLeaves(int hostsOnSecond) {
        org.mcast4ai.engine.FabricSnapshot.Builder b = org.mcast4ai.engine.FabricSnapshot.builder();
        b.addSwitch("s1", org.mcast4ai.engine.Role.SPINE);
        b.addSwitch("l1", org.mcast4ai.engine.Role.LEAF);
        b.addSwitch("l2", org.mcast4ai.engine.Role.LEAF);
        b.addLink("l1", 10, "s1", 1);
        b.addLink("s1", 1, "l1", 10);
        b.addLink("l2", 10, "s1", 2);
        b.addLink("s1", 2, "l2", 10);
        b.addHost("a", "l1", 1);
        for (int i = 0; i < hostsOnSecond; i++) {
            b.addHost("b" + i, "l2", 1 + i);
        }
        return b.build();
    }

    @Test
    void aCompileHoldingAnOlderSnapshotDoesNotTurnTheStaticTablesBack() {
        org.mcast4ai.impl.compile.BitmapReplication bitmaps = new org.mcast4ai.impl.compile.BitmapReplication(
                h.store, new org.mcast4ai.impl.fabric.HostResolver(TestFabric.leafSpine().hosts), null);
        org.mcast4ai.engine.FabricSnapshot old = twoLeaves(2);
        org.mcast4ai.engine.FabricSnapshot newer = twoLeaves(1);
        bitmaps.setNewest(() -> newer);
        BitmapLayout now = bitmaps.layout(newer);
        assertTrue(now == bitmaps.layout(old), "the layout of the newest snapshot, whatever the caller holds");
        assertTrue(now == bitmaps.layout(newer), "computed once");
    }

    @Test
    void staticTablesGoAtActivationAndEachGroupAddsOnlyItsStampOnTheSourceLeaf() {
        assertEquals(8, h.groups.added.size(), "one static egress group per host port, before any group");
        assertEquals(6, h.flows.batches().size(), "the static tables, one batch per switch");
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 3, 1, 4, 2));
        assertEquals(6, h.flows.batches().size(), "the stamp waits for the static tables");
        P2mpGroup waiting = h.get(g.id());
        assertEquals(GroupState.INSTALLING, waiting.state(), "not INSTALLED before the static tables are acked");
        assertEquals(Desired.WAITING_FOR_STATIC, waiting.reason());
        h.flows.ackAll();
        assertEquals(7, h.flows.batches().size(), "then the group's stamp");
        assertEquals(Set.of(leaf(1)), devices(h.flows.lastBatch()));
        h.flows.ackAll();
        P2mpGroup now = h.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
        assertEquals(ReplicationMode.BITMAP, now.effectiveMode());
        assertNotNull(h.store.programmed(g.id()).installedOne(BitmapStamp.class));
        assertTrue(h.store.programmed(g.id()).treePlan().branches().isEmpty(), "no tree entries");

        P2mpGroup second = h.manager.submit(bitmap("b", 2, 2));
        assertEquals(8, h.flows.batches().size(), "no static entries again");
        assertEquals(Set.of(leaf(1)), devices(h.flows.lastBatch()));
        assertEquals(8, h.groups.added.size());
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(second.id()).state());
    }

    @Test
    void afterARestartTheLostStampGoesAgainWithoutWaitingForTheStaticTables() {
        placeStatic();
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 3, 1));
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        // ONOS restarts and forgets its flow table; its first flow audit would purge what it no longer knows, so
        // the stamp must be in its store again before the static tables are acknowledged once more
        new ArrayList<>(h.flows.allRules()).forEach(h.flows::lose);
        int before = h.flows.batches().size();
        h.restart();
        List<FlowRuleOperations> sent = h.flows.batches().subList(before, h.flows.batches().size());
        assertTrue(sent.stream().anyMatch(b -> b.stages().stream().flatMap(Set::stream)
                        .anyMatch(op -> op.rule().priority() >= 40000 && op.rule().deviceId().equals(leaf(1)))),
                "the stamp on the source leaf goes with the static tables, not after them");
        P2mpGroup waiting = h.get(g.id());
        assertEquals(GroupState.INSTALLING, waiting.state(), "not INSTALLED before the static tables are acked");
        assertEquals(Desired.WAITING_FOR_STATIC, waiting.reason());
        h.flows.ackAll();
        h.flows.ackAll();
        P2mpGroup now = h.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
    }

    @Test
    void autoPicksBitmapOnAFabricThatFitsAndSaysWhy() {
        placeStatic();
        P2mpGroup g = h.manager.submit(request("a", 2, 1, 4, 2));
        assertEquals(Set.of(leaf(1)), devices(h.flows.lastBatch()), "only the stamp");
        h.flows.ackAll();
        P2mpGroup now = h.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
        assertEquals(ReplicationMode.BITMAP, now.effectiveMode());
        assertTrue(now.modeReason().contains("AUTO chose BITMAP"), now.modeReason());
    }

    @Test
    void autoFallsBackToTreeWhenTheFabricHasMoreThan46Positions() {
        ManagerHarness big = new ManagerHarness(new TestFabric(2, 4, 12), null, new FakeGroupService());
        P2mpGroup g = big.manager.submit(request("a", 2, 1, 4, 2));
        big.flows.ackAll();
        P2mpGroup now = big.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
        assertEquals(ReplicationMode.TREE, now.effectiveMode());
        assertTrue(now.modeReason().contains("AUTO chose TREE") && now.modeReason().contains("48 receiver positions"),
                now.modeReason());
        assertTrue(big.groups.added.isEmpty(), "no static tables on a fabric BITMAP does not fit");
        assertNull(big.store.programmed(g.id()).installedOne(BitmapStamp.class));
    }

    @Test
    void bitmapOnAFabricThatDoesNotFitFailsWithTheReason() {
        ManagerHarness big = new ManagerHarness(new TestFabric(2, 4, 12), null, new FakeGroupService());
        P2mpGroup g = big.manager.submit(bitmap("a", 2, 1));
        P2mpGroup now = big.get(g.id());
        assertEquals(GroupState.FAILED, now.state());
        assertEquals(org.mcast4ai.api.FailureKind.MODE_UNAVAILABLE, now.failure());
        assertTrue(now.reason().contains("BITMAP replication is not possible")
                && now.reason().contains("carries 46"), now.reason());
        assertTrue(big.flows.batches().isEmpty(), "nothing programmed");
    }

    @Test
    void withdrawRemovesTheStamp() {
        placeStatic();
        int staticOnLeaf = h.flows.rulesOn(leaf(1)).size();
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 3, 1));
        h.flows.ackAll();
        assertTrue(h.flows.rulesOn(leaf(1)).size() > staticOnLeaf, "the stamp is on the source leaf");
        h.manager.withdraw(g.id());
        assertEquals(Set.of(leaf(1)), devices(h.flows.lastBatch()));
        h.flows.ackAll();
        assertEquals(GroupState.WITHDRAWN, h.get(g.id()).state(), h.get(g.id()).reason());
        assertNull(h.store.programmed(g.id()).installedOne(BitmapStamp.class));
        assertEquals(staticOnLeaf, h.flows.rulesOn(leaf(1)).size(), "only the static tables remain");
    }

    @Test
    void membershipChangeRewritesOnlyTheStamp() {
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 3, 1));
        h.flows.ackAll();
        int batches = h.flows.batches().size();
        h.manager.addReceivers(g.id(), Set.of(Endpoint.of(hostId(4, 2))));
        assertEquals(batches + 1, h.flows.batches().size());
        assertEquals(Set.of(leaf(1)), devices(h.flows.lastBatch()));
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        assertEquals(8, h.groups.added.size(), "no static group changed");
        assertEquals(0x94L, h.store.programmed(g.id()).installedOne(BitmapStamp.class).bits(),
                "bits of 2/1, 3/1 and 4/2");
    }

    @Test
    void aBitmapGroupFollowsAReceiverThatMovesAndOthersAreLeftAlone() {
        placeStatic();
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 3, 1));
        P2mpGroup other = h.manager.submit(bitmap("b", 2, 2, 4, 2));
        h.flows.ackAll();
        long bits = h.store.programmed(g.id()).installedOne(BitmapStamp.class).bits();
        P2mpGroup untouched = h.get(other.id());
        // 3/1 comes up on a port of leaf 4 that had no host: a new position, so new static entries and a new stamp
        h.fabric.moveHost(3, 1, leaf(4), 7);
        h.flows.ackAll();
        h.flows.ackAll();
        P2mpGroup moved = h.get(g.id());
        assertEquals(GroupState.INSTALLED, moved.state(), moved.reason());
        long now = h.store.programmed(g.id()).installedOne(BitmapStamp.class).bits();
        assertTrue(now != bits, "the stamp names the receiver's new position: " + Long.toHexString(bits) + " -> "
                + Long.toHexString(now));
        assertEquals(untouched, h.get(other.id()), "a group not naming the host is not recompiled");
    }

    @Test
    void transitSwitchesHoldTheSameEntriesForOneAndForAHundredGroups() {
        h.manager.submit(bitmap("g0", 2, 1, 3, 2));
        h.flows.ackAll();
        Map<DeviceId, List<FlowRule>> one = transit();
        for (int i = 1; i < 100; i++) {
            h.manager.submit(bitmap("g" + i, 2 + i % 2, 1 + (i / 2) % 2, 4, 1 + i % 2));
        }
        h.flows.ackAll();
        assertEquals(100, h.manager.getGroups(null, null, GroupState.INSTALLED).size());
        assertEquals(one, transit());
        assertTrue(one.values().stream().allMatch(r -> !r.isEmpty()), "static tables are there");
    }

    private Map<DeviceId, List<FlowRule>> transit() {
        Map<DeviceId, List<FlowRule>> m = new HashMap<>();
        for (DeviceId d : List.of(spine(1), spine(2), leaf(2), leaf(3), leaf(4))) {
            m.put(d, new ArrayList<>(h.flows.rulesOn(d)));
        }
        return m;
    }

    @Test
    void autoFallsBackToTreeWhenTheFabricStopsFitting() {
        P2mpGroup g = h.manager.submit(request("a", 2, 1, 4, 2));
        h.flows.ackAll();
        assertEquals(ReplicationMode.BITMAP, h.get(g.id()).effectiveMode());
        h.fabric.addHosts(3, 10, 40);
        h.flows.ackAll();
        P2mpGroup now = h.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
        assertEquals(ReplicationMode.TREE, now.effectiveMode());
        assertTrue(now.modeReason().contains("48 receiver positions"), now.modeReason());
        assertNull(h.store.programmed(g.id()).installedOne(BitmapStamp.class), "the stamp is gone");
        assertTrue(h.store.programmed(g.id()).treePlan().branches().containsKey(leaf(1)), "the tree is in place");
        int treePriority = h.get(g.id()).request().priority();
        assertTrue(h.flows.allRules().stream().allMatch(r -> r.priority() == treePriority),
                "the static BITMAP rules are removed: "
                        + h.flows.allRules().stream().filter(r -> r.priority() != treePriority).count() + " left");
        assertTrue(h.groups.groups.isEmpty(), "and their egress groups: " + h.groups.groups.keySet());
    }

    @Test
    void bitMapOfABitmapGroupAndConflictForATreeGroup() {
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 3, 1, 4, 2));
        h.flows.ackAll();
        GroupBitmap b = h.manager.getBitmap(g.id());
        // positions are numbered leaf by leaf, port by port: 2/1 -> 2, 3/1 -> 4, 4/2 -> 7
        assertEquals(Map.of(Endpoint.of(hostId(2, 1)), 2, Endpoint.of(hostId(3, 1)), 4, Endpoint.of(hostId(4, 2)), 7),
                b.receiverBits());
        assertEquals(0x94L, b.groupBits());
        assertEquals(EthSrcBitmap.stamp(0x94L).toString(), b.stampMac());
        assertEquals("eth_src", b.carrier());

        P2mpGroup tree = h.manager.submit(request("t", 2, 1).toBuilder().mode(ReplicationMode.TREE).build());
        GroupException e = assertThrows(GroupException.class, () -> h.manager.getBitmap(tree.id()));
        assertEquals(GroupException.Kind.CONFLICT, e.kind());
        assertTrue(e.getMessage().contains("not BITMAP"), e.getMessage());
    }

    @Test
    void newPositionsDoNotRenumberExistingReceivers() {
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 4, 2));
        h.flows.ackAll();
        GroupBitmap before = h.manager.getBitmap(g.id());
        h.fabric.addHosts(1, 10, 3); // positions of:...0201/110.. sort before leaf 2's
        GroupBitmap after = h.manager.getBitmap(g.id());
        assertEquals(before.receiverBits(), after.receiverBits());
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
    }

    @Test
    void aTreeGroupMovesToBitmapTreeEntriesFirstThenTheStamp() {
        // installed as TREE by a manager without a group service, then the app restarts with one
        ManagerHarness old = new ManagerHarness(TestFabric.leafSpine(), null, null);
        P2mpGroup g = old.manager.submit(request("a", 2, 1, 4, 2));
        old.flows.ackAll();
        assertEquals(ReplicationMode.TREE, old.get(g.id()).effectiveMode());
        assertTrue(!old.flows.rulesOn(spine(1)).isEmpty() || !old.flows.rulesOn(spine(2)).isEmpty());
        old.groups = new FakeGroupService();
        old.restart();
        old.manager.recompile(g.id());
        old.flows.ackAll();
        P2mpGroup now = old.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
        assertEquals(ReplicationMode.BITMAP, now.effectiveMode());
        assertTrue(now.modeReason().contains("AUTO chose BITMAP"), now.modeReason());
        assertTrue(old.store.programmed(g.id()).treePlan().branches().isEmpty(), "tree entries removed");
        assertNotNull(old.store.programmed(g.id()).installedOne(BitmapStamp.class));
        long treeRules = old.flows.allRules().stream().filter(r -> r.priority() == 40000
                && !r.deviceId().equals(leaf(1))).count();
        assertEquals(0, treeRules, "no group rule off the source leaf");
    }

    @Test
    void aRefusedStampIsRememberedAndRemovedOnWithdraw() {
        placeStatic();
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 3, 1));
        h.flows.fail(leaf(1));
        P2mpGroup failed = h.get(g.id());
        assertEquals(GroupState.FAILED, failed.state());
        assertEquals(org.mcast4ai.api.FailureKind.SWITCH_REFUSED, failed.failure());
        assertTrue(failed.reason().contains(leaf(1).toString()), failed.reason());
        assertNull(h.store.programmed(g.id()).installedOne(BitmapStamp.class));
        assertNotNull(h.store.programmed(g.id()).uncertainOne(BitmapStamp.class),
                "what the batch may have left is on record");

        h.manager.withdraw(g.id());
        assertEquals(Set.of(leaf(1)), devices(h.flows.lastBatch()), "the uncertain stamp is removed");
        h.flows.ackAll();
        assertEquals(GroupState.WITHDRAWN, h.get(g.id()).state(), h.get(g.id()).reason());
        assertNull(h.store.programmed(g.id()).uncertainOne(BitmapStamp.class));
    }

    @Test
    void aRecompileAfterARefusedStampInstallsItForReal() {
        placeStatic();
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 3, 1));
        h.flows.fail(leaf(1));
        int batches = h.flows.batches().size();
        h.manager.recompile(g.id());
        assertTrue(h.flows.batches().size() > batches, "the stamp is sent again, not assumed");
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state(), h.get(g.id()).reason());
        assertNotNull(h.store.programmed(g.id()).installedOne(BitmapStamp.class));
        assertNull(h.store.programmed(g.id()).uncertainOne(BitmapStamp.class));
    }

    @Test
    void autoWaitsOnTreeUntilTheStaticTablesAreInPlace() {
        P2mpGroup g = h.manager.submit(request("a", 2, 1, 4, 2));
        assertEquals(ReplicationMode.TREE, h.get(g.id()).effectiveMode());
        assertTrue(h.get(g.id()).modeReason().contains("static BITMAP tables"), h.get(g.id()).modeReason());
        assertEquals(7, h.flows.batches().size(), "the static tables (one batch per switch) and the tree");
        h.flows.ackAll(); // then the group moves to BITMAP
        P2mpGroup now = h.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
        assertEquals(ReplicationMode.BITMAP, now.effectiveMode());
        assertTrue(h.store.programmed(g.id()).treePlan().branches().isEmpty());
    }

    @Test
    void autoStaysOnTreeWhileTheSwitchesRefuseTheStaticGroups() {
        FakeGroupService refusing = new FakeGroupService();
        refusing.confirm = false;
        ManagerHarness s = new ManagerHarness(TestFabric.leafSpine(), null, refusing);
        P2mpGroup g = s.manager.submit(request("a", 2, 1, 4, 2));
        // the leaves refuse their egress groups, and so the static rules that name them
        refusing.answer(org.onosproject.net.group.GroupEvent.Type.GROUP_ADD_FAILED);
        s.flows.ackAll();
        P2mpGroup now = s.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
        assertEquals(ReplicationMode.TREE, now.effectiveMode());
        assertTrue(now.modeReason().contains("static BITMAP tables"), now.modeReason());
    }

    @Test
    void bitmapGroupFailsWhenTheStaticTablesNeverComeAndInstallsWhenTheyDo() throws InterruptedException {
        FakeGroupService silent = new FakeGroupService();
        silent.confirm = false;
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            ManagerHarness s = new ManagerHarness(TestFabric.leafSpine(), timer, silent);
            s.configure(OsgiPropertyConstants.INSTALL_TIMEOUT_MS, "50");
            // the switches do not answer the static tables' batches (no barrier reply comes)
            P2mpGroup g = s.manager.submit(bitmap("a", 2, 1, 4, 2));
            long deadline = System.currentTimeMillis() + 5000;
            while (s.get(g.id()).state() == GroupState.INSTALLING && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            P2mpGroup failed = s.get(g.id());
            assertEquals(GroupState.FAILED, failed.state(), failed.reason());
            assertEquals(GroupInstaller.STATIC_TIMED_OUT + "50 ms", failed.reason());
            assertEquals(org.mcast4ai.api.FailureKind.STATIC_TABLES_TIMEOUT, failed.failure());
            assertNull(s.store.programmed(g.id()).installedOne(BitmapStamp.class), "no stamp sent");

            s.flows.ackAll(); // they answer after all: the group is installed then
            P2mpGroup now = s.get(g.id());
            assertEquals(GroupState.INSTALLED, now.state(), now.reason());
            assertNotNull(s.store.programmed(g.id()).installedOne(BitmapStamp.class));
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void aGroupPurgedWhileItWaitsForTheStaticTablesLeavesItsDeadlineNothingToDo() throws Exception {
        FakeGroupService silent = new FakeGroupService();
        silent.confirm = false;
        List<Throwable> thrown = Collections.synchronizedList(new ArrayList<>());
        // a timer that keeps what its tasks threw (a scheduled task's exception otherwise dies in its future)
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1) {
            @Override
            protected void afterExecute(Runnable r, Throwable t) {
                if (r instanceof Future<?> && ((Future<?>) r).isDone()) {
                    try {
                        ((Future<?>) r).get();
                    } catch (ExecutionException e) {
                        thrown.add(e.getCause());
                    } catch (InterruptedException | CancellationException e) {
                        // not a failure of the task
                    }
                }
            }
        };
        try {
            ManagerHarness s = new ManagerHarness(TestFabric.leafSpine(), timer, silent);
            s.configure(OsgiPropertyConstants.INSTALL_TIMEOUT_MS, "200");
            P2mpGroup g = s.manager.submit(bitmap("a", 2, 1, 4, 2));
            assertEquals(GroupState.INSTALLING, s.get(g.id()).state());
            // withdrawn (the switches answer its removals, and the static tables' batch with them) and purged
            // before its install deadline comes
            s.manager.withdraw(g.id());
            s.flows.ackAll();
            assertEquals(GroupState.WITHDRAWN, s.get(g.id()).state(), s.get(g.id()).reason());
            s.manager.purge(g.id());
            // past the deadline (200 ms from the submission)
            Thread.sleep(400);
            assertTrue(s.store.get(g.id()).isEmpty(), "the purged group came back");
            assertTrue(thrown.isEmpty(), "the installer's timer threw: " + thrown);
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void treeGroupsUseOnlyTreeRulesBesideTheStaticTables() {
        placeStatic();
        P2mpGroup g = h.manager.submit(request("a", 2, 1, 4, 2).toBuilder().mode(ReplicationMode.TREE).build());
        h.flows.ackAll();
        h.fabric.linkDown(2, 1);
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        assertEquals(8, h.groups.added.size(), "the static egress groups only");
        int treePriority = h.get(g.id()).request().priority();
        assertEquals(h.store.programmed(g.id()).treePlan().branches().size(),
                h.flows.allRules().stream().filter(r -> r.priority() == treePriority).count(),
                "one tree rule per switch of the tree beside the static tables");
    }

    @Test
    void aSwitchThatIsGoneDoesNotHoldUpTheStaticTablesOfTheOthers() {
        placeStatic();
        int before = h.flows.batches().size();
        h.fabric.deviceDown(spine(2));
        h.flows.ackAll();
        for (FlowRuleOperations ops : h.flows.batches().subList(before, h.flows.batches().size())) {
            assertTrue(!devices(ops).contains(spine(2)), "nothing is sent to the switch that is gone: " + ops);
        }
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 3, 1, 4, 2));
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state(), h.get(g.id()).reason());
        // leaf port 2 + s leads to spine s: every spread slot of the source leaf goes up through spine 1, the one left
        int slot = h.store.programmed(g.id()).installedOne(BitmapStamp.class).uplink();
        assertTrue(slot > BitmapLayout.SLOT_BASE, "a spread slot: " + slot);
        org.onosproject.net.flow.FlowRule upRule = h.flows.rulesOn(leaf(2)).stream().filter(r -> {
            org.onosproject.net.flow.criteria.Criterion m = r.selector().getCriterion(
                    org.onosproject.net.flow.criteria.Criterion.Type.METADATA);
            return m != null && ((org.onosproject.net.flow.criteria.MetadataCriterion) m).metadata() == slot;
        }).findFirst().orElseThrow();
        assertTrue(upRule.treatment().allInstructions().toString().contains("OUTPUT:3"), upRule.toString());
    }

    @Test
    void receiversBehindALeafBackWithoutItsTablesAreListedUntilItHoldsThemAgain() throws InterruptedException {
        placeStatic();
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 4, 2));
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state(), h.get(g.id()).reason());
        Endpoint behind = Endpoint.of(hostId(4, 2));
        h.fabric.deviceDown(leaf(4));
        h.flows.ackAll();
        assertEquals(GroupState.DEGRADED, h.get(g.id()).state(), h.get(g.id()).reason());

        // the leaf comes back empty; ONOS's group store still lists its egress groups ADDED: the static rules
        // that name them wait for ONOS's group audit
        int before = h.flows.batches().size();
        h.fabric.deviceUp(leaf(4));
        h.flows.rulesOn(leaf(4)).forEach(h.flows::lose);
        h.flows.ackAll();
        Thread.sleep(200);
        h.flows.ackAll();
        List<org.onosproject.net.flow.FlowRule> naming = h.flows.batches().subList(before, h.flows.batches().size())
                .stream().flatMap(b -> b.stages().stream()).flatMap(Set::stream).map(op -> op.rule())
                .filter(r -> r.deviceId().equals(leaf(4)) && r.treatment().allInstructions().stream()
                        .anyMatch(i -> i.type() == org.onosproject.net.flow.instructions.Instruction.Type.GROUP))
                .collect(java.util.stream.Collectors.toList());
        assertEquals(List.of(), naming, "no rule may name a group the leaf may have lost");
        P2mpGroup waiting = h.get(g.id());
        // the stamp gets the receiver's bit back, and that waits for the tables
        assertEquals(GroupState.INSTALLING, waiting.state(), "never INSTALLED while a receiver's leaf lacks its "
                + "tables: " + waiting.reason());

        // ONOS's group audit sends the groups again: the rules follow, and once acknowledged the group is whole
        h.groups.sentAgain(leaf(4));
        long deadline = System.currentTimeMillis() + 10_000;
        while (h.get(g.id()).state() != GroupState.INSTALLED && System.currentTimeMillis() < deadline) {
            h.flows.ackAll();
            Thread.sleep(10);
        }
        P2mpGroup now = h.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
        assertTrue(now.unreachable().isEmpty(), now.unreachable().toString());
        assertTrue(!h.flows.rulesOn(leaf(4)).isEmpty(), "the leaf holds its static rules again");
    }

    @Test
    void aGroupWhoseStampStaysListsTheReceiversBehindALeafThatRefusedItsTables() throws InterruptedException {
        placeStatic();
        P2mpGroup g = h.manager.submit(bitmap("a", 2, 1, 4, 2));
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state(), h.get(g.id()).reason());
        BitmapStamp stamp = h.store.programmed(g.id()).installedOne(BitmapStamp.class);
        // a link change re-plans the static tables; the group's stamp stays, receiver leaf 4 refuses its part
        h.fabric.linkDown(4, 2);
        h.flows.answerPending(leaf(4));
        long deadline = System.currentTimeMillis() + 10_000;
        while (h.get(g.id()).state() == GroupState.INSTALLED && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        P2mpGroup listed = h.get(g.id());
        assertEquals(GroupState.DEGRADED, listed.state(), listed.reason());
        assertEquals(Set.of(Endpoint.of(hostId(4, 2))), listed.unreachable());
        assertTrue(listed.reason().contains(Desired.WAITING_ON + "[" + leaf(4) + "]"), listed.reason());
        assertEquals(stamp, h.store.programmed(g.id()).installedOne(BitmapStamp.class), "the stamp was not rewritten");

        // the retry of the static tables is accepted: the group is whole again
        while (h.get(g.id()).state() != GroupState.INSTALLED && System.currentTimeMillis() < deadline) {
            h.flows.ackAll();
            Thread.sleep(10);
        }
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state(), h.get(g.id()).reason());
    }

    @Test
    void oneInstanceProgramsTheStaticTablesAndTheOthersReadItsRecord() {
        // instance A (the harness) owns the even work partitions, partition 0 among them: the static tables
        h.mine = id -> id % 2 == 0;
        int staticBatches = h.flows.batches().size();
        java.util.function.LongPredicate[] bOwns = {id -> id % 2 == 1};
        P2mpGroupManager b = h.another(id -> bOwns[0].test(id));
        assertEquals(staticBatches, h.flows.batches().size(), "the second instance sends no static tables");
        // group 1 is B's: it waits for the tables A sent and the switches have not acknowledged yet
        P2mpGroup g = b.submit(bitmap("a", 2, 1, 3, 1, 4, 2));
        assertEquals(1, g.id().value());
        assertEquals(GroupState.INSTALLING, h.get(g.id()).state());
        assertEquals(Desired.WAITING_FOR_STATIC, h.get(g.id()).reason());
        assertEquals(staticBatches, h.flows.batches().size());
        h.flows.ackAll();
        StaticTables record = h.store.staticTables();
        assertTrue(record != null && record.acknowledged(), String.valueOf(record));
        // A's record reached B, which sent the stamp
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state(), h.get(g.id()).reason());
        assertNotNull(h.store.programmed(g.id()).installedOne(BitmapStamp.class));
        assertEquals(staticBatches + 1, h.flows.batches().size(), "the static tables once, then B's stamp");

        // A leaves; B takes every partition, the static tables' among them: it brings the switches in line
        // with its layout (the same entries, so they are re-sent in place) and writes the next record
        long generation = record.generation();
        h.mine = id -> false;
        bOwns[0] = id -> true;
        int before = h.flows.batches().size();
        h.partitionsMoved();
        h.flows.ackAll();
        assertTrue(h.flows.batches().size() > before, "the new owner sends the static tables");
        StaticTables after = h.store.staticTables();
        assertTrue(after.acknowledged() && after.generation() == generation
                && after.fingerprint().equals(record.fingerprint()), "the same layout, acknowledged: " + after);
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state(), h.get(g.id()).reason());
        b.deactivate(null);
    }
}
