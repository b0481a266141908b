package org.mcast4ai.impl;

import org.junit.jupiter.api.Test;
import org.mcast4ai.impl.p4.Mcast4aiPipeconf;
import org.mcast4ai.impl.p4.P4FabricManagerAccess;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.testing.FakePipeconfService;
import org.mcast4ai.testing.TestFabric;
import org.onosproject.net.DeviceId;

import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The P4 switches' static state is the group manager's fabric-wide resource: its one reconcile loop brings it in
 * line on the fabric's events, before the groups, and the state has no loop of its own.
 */
class P4StaticStateInTheLoopTest {
    private final FakeGroupService groups = new FakeGroupService();
    private final FakePipeconfService pipeconfs = new FakePipeconfService();
    private final ManagerHarness h;
    private final P4FabricManagerAccess p4;

    P4StaticStateInTheLoopTest() {
        TestFabric f = TestFabric.leafSpine();
        f.devices.getDevices().forEach(d -> pipeconfs.bindToDevice(Mcast4aiPipeconf.ID, d.id()));
        h = new ManagerHarness(f, null, groups, pipeconfs);
        h.flows.autoAck(true);
        p4 = new P4FabricManagerAccess(h.fabric, h.flows, groups, pipeconfs);
    }

    // what a switch holds, entry by entry
    private Set<String> held(DeviceId d) {
        return h.flows.rulesOn(d).stream().map(r -> r.id() + " " + r.treatment()).collect(Collectors.toSet());
    }

    private static boolean within(long ms, BooleanSupplier done) throws InterruptedException {
        long end = System.nanoTime() + ms * 1_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    @Test
    void nothingIsWrittenUntilTheGroupManagersLoopRunsIt() {
        assertEquals(0, h.flows.allRules().size(), "no loop of its own: nothing written on activation");
        h.fabric.linkDown(1, 1);
        assertEquals(0, h.flows.allRules().size(), "nor on the fabric's events");
        h.manager.bindP4Fabric(p4.manager());
        assertTrue(held(TestFabric.leaf(1)).size() > 5, "written on the loop's first run");
        assertTrue(p4.manager().unready().isEmpty(), "and acknowledged");
    }

    @Test
    void aLinkFailureAndItsRepairReachTheSwitchesThroughTheTopologyEvents() {
        h.manager.bindP4Fabric(p4.manager());
        Set<String> before = held(TestFabric.leaf(1));
        h.fabric.linkDown(1, 1);
        Set<String> cut = held(TestFabric.leaf(1));
        assertNotEquals(before, cut, "leaf 1 routes around the link, with no run asked for");
        h.fabric.linkUp(1, 1);
        assertEquals(before, held(TestFabric.leaf(1)), "and takes it back");
        assertEquals(java.util.List.of(), p4.manager().status().joining());

        h.manager.unbindP4Fabric(p4.manager());
        h.fabric.linkDown(1, 1);
        assertEquals(before, held(TestFabric.leaf(1)), "unbound, nothing runs it");
    }

    @Test
    void aSwitchBackEmptyIsRefilledAndARefusedWriteIsTriedAgainWithinASecond() throws InterruptedException {
        h.manager.bindP4Fabric(p4.manager());
        Set<String> whole = held(TestFabric.leaf(3));
        h.fabric.deviceDown(TestFabric.leaf(3));
        h.flows.rulesOn(TestFabric.leaf(3)).forEach(h.flows::lose);
        h.flows.autoAck(false);
        h.fabric.deviceUp(TestFabric.leaf(3));
        assertEquals(Set.of(TestFabric.leaf(3)), p4.manager().unready(), "its state sent, not answered");
        assertEquals(Set.of(), held(TestFabric.leaf(3)));
        h.flows.answerPending(TestFabric.leaf(3));
        assertEquals(Set.of(), held(TestFabric.leaf(3)), "refused");
        h.flows.autoAck(true);
        // nothing else happens: only the retry can write it (the audit is 10 s away)
        assertTrue(within(3000, () -> held(TestFabric.leaf(3)).equals(whole)
                && p4.manager().unready().isEmpty()), "written again and acknowledged: " + p4.manager().status());
    }
}
