package org.mcast4ai.impl.p4;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.P4FabricStatus;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.SwitchTables;
import org.mcast4ai.impl.fabric.FabricSnapshotFactory;
import org.mcast4ai.testing.FakeFlowRuleService;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.testing.FakePipeconfService;
import org.mcast4ai.testing.TestFabric;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.pi.model.PiPipeconfId;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The P4 fabric loop against ONOS's services: it programs the available switches bound to the pipeconf and no
 * others, follows the fabric when a link fails and comes back, repairs lost entries on its own, and leaves the
 * writing to the instance that owns the static state.
 */
class P4FabricManagerTest {
    // the id the wired core service gives the first name it registers
    private static final ApplicationId APP = new DefaultApplicationId(100, P4FabricManager.APP_NAME);
    private final TestFabric fabric = TestFabric.leafSpine();
    private final FakeFlowRuleService flows = new FakeFlowRuleService().autoAck(true);
    private final FakeGroupService groups = new FakeGroupService();
    private final FakePipeconfService pipeconfs = new FakePipeconfService();
    private volatile boolean mine = true;
    private final P4FabricManager manager = new P4FabricManager();
    private final Set<DeviceId> p4 = new HashSet<>();

    P4FabricManagerTest() {
        P4FabricManagerAccess.wire(manager, fabric, flows, groups, pipeconfs, () -> mine);
        // spine 2 stays an OpenFlow switch, another pipeconf's switch is not ours either
        for (DeviceId d : Set.of(TestFabric.spine(1), TestFabric.leaf(1), TestFabric.leaf(2), TestFabric.leaf(3))) {
            pipeconfs.bindToDevice(Mcast4aiPipeconf.ID, d);
            p4.add(d);
        }
        pipeconfs.bindToDevice(new PiPipeconfId("org.onosproject.pipelines.basic"), TestFabric.leaf(4));
    }

    // the group manager's loop as the static state sees it: a fabric lane, and the topology's events on it
    private final ScheduledExecutorService lane = Executors.newSingleThreadScheduledExecutor();
    private final P4FabricManager.Loop loop = new P4FabricManager.Loop() {
        @Override
        public void later(Runnable work, long delayMs) {
            lane.schedule(work, delayMs, TimeUnit.MILLISECONDS);
        }

        @Override
        public java.util.Collection<org.mcast4ai.api.P2mpGroup> groups() {
            return java.util.List.of();
        }

        @Override
        public java.util.Optional<org.mcast4ai.api.AggregationContext> aggregation(
                org.mcast4ai.api.P2mpGroupId id) {
            return java.util.Optional.empty();
        }

        @Override
        public void stateChanged(String why) {
        }

        @Override
        public void report(org.mcast4ai.api.P2mpGroupId id, org.mcast4ai.api.AggregationReport report) {
        }
    };

    // activated and run by a loop that follows the fabric's events, as the group manager's does: a burst of events
    // (a switch and its links) is one run
    private void start() {
        manager.activate();
        java.util.concurrent.atomic.AtomicBoolean queued = new java.util.concurrent.atomic.AtomicBoolean();
        Set<DeviceId> back = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Runnable burst = () -> {
            if (queued.compareAndSet(false, true)) {
                lane.schedule(() -> {
                    queued.set(false);
                    back.forEach(manager::deviceReturned);
                    back.clear();
                    manager.reconcile("topology");
                }, 20, TimeUnit.MILLISECONDS);
            }
        };
        fabric.devices.addListener(e -> {
            if (fabric.devices.isAvailable(e.subject().id())) {
                back.add(e.subject().id());
            }
            burst.run();
        });
        fabric.links.addListener(e -> burst.run());
        manager.attach(loop);
    }

    @AfterEach
    void stop() {
        manager.deactivate();
        lane.shutdownNow();
    }

    // the uplinks' indices as the manager keeps them: given on the whole fabric, kept while a link is down
    private final P4UplinkIndices indices = new P4UplinkIndices();

    private Map<DeviceId, P4FabricPlanner.SwitchState> expected(BitIndexTable bits, Set<DeviceId> targets) {
        FabricSnapshot now = new FabricSnapshotFactory(fabric.devices, fabric.links, fabric.hosts).snapshot();
        return new P4FabricPlanner(APP, P4FabricPlanner.DEFAULT_LEAF_SET).plan(now, SwitchTables.build(now, bits),
                targets, indices);
    }

    private BitIndexTable wholeFabricBits() {
        return BitIndexTable.forFabric(new FabricSnapshotFactory(fabric.devices, fabric.links, fabric.hosts)
                .snapshot());
    }

    private boolean holds(Map<DeviceId, P4FabricPlanner.SwitchState> want) {
        for (Map.Entry<DeviceId, P4FabricPlanner.SwitchState> e : want.entrySet()) {
            Set<String> held = flows.rulesOn(e.getKey()).stream().map(r -> r.id() + "" + r.treatment())
                    .collect(Collectors.toSet());
            Set<String> wanted = e.getValue().rules().stream().map(r -> r.id() + "" + r.treatment())
                    .collect(Collectors.toSet());
            if (!held.equals(wanted) || groups.getGroup(e.getKey(), e.getValue().group().appCookie()) == null
                    || !new HashSet<>(groups.getGroup(e.getKey(), e.getValue().group().appCookie()).buckets()
                    .buckets()).equals(new HashSet<>(e.getValue().group().buckets().buckets()))) {
                return false;
            }
        }
        return true;
    }

    private void await(String what, java.util.function.BooleanSupplier done) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, "within 5 s: " + what);
            Thread.sleep(10);
        }
    }

    @Test
    void programsTheBoundAvailableSwitchesAndNoOthers() throws Exception {
        manager.activate();
        BitIndexTable bits = wholeFabricBits();
        manager.reconcile("test");
        assertTrue(holds(expected(bits, p4)), "the first run");
        Set<DeviceId> written = flows.allRules().stream().map(FlowRule::deviceId).collect(Collectors.toSet());
        assertEquals(p4, written);
        assertTrue(manager.run().none(), "a second run writes nothing");
    }

    @Test
    void followsALinkFailureAndItsRepair() throws Exception {
        manager.activate();
        BitIndexTable bits = wholeFabricBits();
        manager.reconcile("test");
        assertTrue(holds(expected(bits, p4)), "the first run");
        Map<DeviceId, P4FabricPlanner.SwitchState> before = expected(bits, p4);
        fabric.linkDown(1, 1);
        Map<DeviceId, P4FabricPlanner.SwitchState> cut = expected(bits, p4);
        assertTrue(!cut.get(TestFabric.leaf(1)).rules().equals(before.get(TestFabric.leaf(1)).rules()),
                "the failure changes leaf 1's state");
        manager.reconcile("link down");
        assertTrue(holds(cut), "the failure programmed");
        fabric.linkUp(1, 1);
        manager.reconcile("link up");
        // the link joins: its ends first, the others once both answered (the fake answers at once)
        assertTrue(holds(before), "the repair programmed");
    }

    @Test
    void aSwitchThatLostItsEntriesIsRefilledByTheNextRun() throws Exception {
        manager.activate();
        BitIndexTable bits = wholeFabricBits();
        manager.reconcile("test");
        assertTrue(holds(expected(bits, p4)), "the first run");
        for (FlowRule r : flows.rulesOn(TestFabric.leaf(2))) {
            flows.lose(r);
        }
        groups.groups.keySet().removeIf(k -> k.startsWith(TestFabric.leaf(2) + "|"));
        manager.reconcile("audit");
        assertTrue(holds(expected(bits, p4)), "leaf 2 refilled");
    }

    @Test
    void statusShowsTheSwitchesAndWhatTheLastRunWrote() throws Exception {
        manager.activate();
        BitIndexTable bits = wholeFabricBits();
        manager.reconcile("test");
        assertTrue(holds(expected(bits, p4)), "the first run");
        manager.run();
        P4FabricStatus s = manager.status();
        assertTrue(s.writer());
        assertEquals(p4.stream().map(DeviceId::toString).sorted().collect(Collectors.toList()), s.switches());
        assertNull(s.problem());
        assertEquals(Mcast4aiPipeconf.ID.id(), s.pipeconf());
        assertEquals(0, s.rulesWritten() + s.rulesRemoved() + s.groupsWritten(), "nothing left to write: " + s);
        assertTrue(s.runs() >= 2);
    }

    @Test
    void aSwitchTheProgramCannotHoldIsReportedAndNothingIsWritten() {
        // 25 spines: every leaf has 25 uplinks, the program holds 24
        TestFabric wide = new TestFabric(25, 2, 2);
        P4FabricManager m = new P4FabricManager();
        FakePipeconfService bound = new FakePipeconfService();
        bound.bindToDevice(Mcast4aiPipeconf.ID, TestFabric.leaf(2));
        bound.bindToDevice(Mcast4aiPipeconf.ID, TestFabric.spine(1));
        P4FabricManagerAccess.wire(m, wide, flows, groups, bound, () -> true);
        m.activate();
        try {
            assertNull(m.run());
            P4FabricStatus s = m.status();
            assertTrue(s.problem() != null && s.problem().contains(TestFabric.leaf(2).toString())
                    && s.problem().contains("25 uplinks"), s.toString());
            assertEquals(0, flows.allRules().size());
        } finally {
            m.deactivate();
        }
    }

    @Test
    void switchesOfDifferentBuildsAreReportedAndNothingIsWritten() {
        pipeconfs.bindToDevice(Mcast4aiPipeconf.Build.K48.id(), TestFabric.leaf(3));
        manager.activate();
        assertNull(manager.run());
        String problem = manager.status().problem();
        assertTrue(problem != null && problem.contains("different builds")
                && problem.contains("org.mcast4ai.p4.bmv2.k48") && problem.contains(TestFabric.leaf(3).toString()),
                problem);
        assertEquals(0, flows.allRules().size());
    }

    @Test
    void aFabricOnAWideBuildIsPlannedWithItsBoundsAndTheDefaultBuildSaysWhichOneItNeeds() throws Exception {
        // 20 hosts a leaf, 20 leaves: 3-byte slot and leaf bitmaps
        TestFabric wide = new TestFabric(2, 20, 20);
        FakePipeconfService bound = new FakePipeconfService();
        wide.devices.getDevices().forEach(d -> bound.bindToDevice(Mcast4aiPipeconf.ID, d.id()));
        P4FabricManager m = new P4FabricManager();
        P4FabricManagerAccess.wire(m, wide, flows, groups, bound, () -> true);
        m.activate();
        try {
            assertNull(m.run());
            assertTrue(m.status().problem().contains("bind the switches to pipeconf org.mcast4ai.p4.bmv2.k48"),
                    m.status().problem());
            wide.devices.getDevices().forEach(d -> bound.bindToDevice(Mcast4aiPipeconf.Build.K48.id(), d.id()));
            assertTrue(m.run().rules > 0);
            assertNull(m.status().problem(), m.status().toString());
            assertEquals(Mcast4aiPipeconf.Build.K48, m.build());
            assertEquals("org.mcast4ai.p4.bmv2.k48", m.status().pipeconf());
            org.onosproject.net.pi.model.PiPipelineModel k48 = Mcast4aiPipeconf.build(Mcast4aiPipeconf.Build.K48)
                    .pipelineModel();
            flows.allRules().forEach(r -> P4FabricPlannerTest.check(k48, r));
            assertEquals(wide.devices.getDeviceCount(), flows.allRules().stream().map(FlowRule::deviceId).distinct()
                    .count());
        } finally {
            m.deactivate();
        }
    }

    @Test
    void aRestartWithALeafDownKeepsEveryLeafsNumber() throws Exception {
        org.mcast4ai.impl.ClusterStorage storage = new org.mcast4ai.impl.ClusterStorage();
        P4FabricManagerAccess.wire(manager, fabric, flows, groups, pipeconfs, () -> mine, storage);
        manager.activate();
        BitIndexTable bits = wholeFabricBits();
        manager.reconcile("test");
        assertTrue(holds(expected(bits, p4)), "the first run");
        manager.deactivate();

        // the app restarts while leaf 1 is down: numbered afresh, leaf 2 would take leaf 1's number
        fabric.deviceDown(TestFabric.leaf(1));
        Set<DeviceId> up = new HashSet<>(p4);
        up.remove(TestFabric.leaf(1));
        assertTrue(!expected(BitIndexTable.forFabric(new FabricSnapshotFactory(fabric.devices, fabric.links,
                fabric.hosts).snapshot()), up).equals(expected(bits, up)), "afresh, the numbers would move");
        P4FabricManager restarted = new P4FabricManager();
        P4FabricManagerAccess.wire(restarted, fabric, flows, groups, pipeconfs, () -> true, storage);
        restarted.activate();
        try {
            restarted.reconcile("taken up");
            assertTrue(holds(expected(bits, up)), "the run after the restart");
            assertTrue(restarted.run().none(), "nothing moved: " + restarted.status());
            fabric.deviceUp(TestFabric.leaf(1));
            restarted.deviceReturned(TestFabric.leaf(1));
            restarted.reconcile("device up");
            assertTrue(holds(expected(bits, p4)), "leaf 1 back with its number");
        } finally {
            restarted.deactivate();
        }
    }

    @Test
    void aSwitchThatComesBackIsUsedByTheOthersOnlyOnceItAnswered() throws Exception {
        start();
        BitIndexTable bits = wholeFabricBits();
        await("the first run", () -> holds(expected(bits, p4)));
        fabric.deviceDown(TestFabric.spine(1));
        Set<DeviceId> others = new HashSet<>(p4);
        others.remove(TestFabric.spine(1));
        Map<DeviceId, P4FabricPlanner.SwitchState> away = expected(bits, others);
        await("the leaves routed around spine 1", () -> holds(away));

        // spine 1 comes back with empty tables and does not answer yet
        flows.autoAck(false).recording(true);
        int before = flows.batches().size();
        fabric.deviceUp(TestFabric.spine(1));
        await("spine 1's state sent", () -> flows.pendingCount() > 0);
        Thread.sleep(100);
        manager.run();
        assertTrue(holds(away), "the leaves keep the paths they had while spine 1 has not answered");
        for (org.onosproject.net.flow.FlowRuleOperations ops : flows.batches().subList(before,
                flows.batches().size())) {
            assertEquals(Set.of(TestFabric.spine(1)), FakeFlowRuleService.devices(ops), "only spine 1 written");
        }
        assertEquals(Set.of(TestFabric.spine(1)), manager.unready());
        assertEquals(java.util.List.of(TestFabric.spine(1).toString()), manager.status().joining());

        // it answers: the leaves take it back
        Map<DeviceId, P4FabricPlanner.SwitchState> whole = expected(bits, p4);
        assertTrue(!whole.equals(away), "spine 1 changes the leaves' state");
        await("the leaves use spine 1 again", () -> {
            flows.ackAll();
            return holds(whole) && manager.unready().isEmpty();
        });
    }

    @Test
    void aLinkThatComesBackIsWrittenToItsEndsFirst() throws Exception {
        start();
        BitIndexTable bits = wholeFabricBits();
        await("the first run", () -> holds(expected(bits, p4)));
        fabric.linkDown(2, 1);
        Map<DeviceId, P4FabricPlanner.SwitchState> away = expected(bits, p4);
        await("the fabric routed around the link", () -> holds(away));

        flows.autoAck(false).recording(true);
        int before = flows.batches().size();
        fabric.linkUp(2, 1);
        Map<DeviceId, P4FabricPlanner.SwitchState> whole = expected(bits, p4);
        await("the link's ends written", () -> flows.pendingCount() > 0);
        Thread.sleep(100);
        manager.run();
        Set<DeviceId> ends = Set.of(TestFabric.leaf(2), TestFabric.spine(1));
        for (org.onosproject.net.flow.FlowRuleOperations ops : flows.batches().subList(before,
                flows.batches().size())) {
            assertTrue(ends.containsAll(FakeFlowRuleService.devices(ops)), "only the link's ends written first");
        }
        Map<DeviceId, P4FabricPlanner.SwitchState> others = new java.util.HashMap<>(away);
        others.keySet().removeAll(ends);
        assertTrue(holds(others), "the others keep their paths while the ends have not answered");
        assertTrue(!others.equals(expected(bits, Set.of(TestFabric.leaf(1), TestFabric.leaf(3)))),
                "the link changes the others' state");
        assertEquals(java.util.List.of(TestFabric.spine(1) + "/" + TestFabric.leaf(2)), manager.status().joining());

        await("everyone uses the link again", () -> {
            flows.ackAll();
            return holds(whole) && manager.unready().isEmpty() && manager.status().joining().isEmpty();
        });
    }

    @Test
    void anInstanceThatDoesNotOwnTheStaticStateWritesNothing() throws Exception {
        mine = false;
        start();
        assertNull(manager.run());
        fabric.linkDown(2, 1);
        Thread.sleep(200);
        assertEquals(0, flows.allRules().size());
        assertEquals(0, groups.added.size());
    }
}
