package org.mcast4ai.impl;

import org.mcast4ai.testing.TestFabric;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.onosproject.net.HostId;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mcast4ai.impl.ManagerHarness.request;
import static org.mcast4ai.testing.TestFabric.hostId;

/** What a group installed survives a restart of the app in the same cluster, and unfinished work resumes. */
class ManagerRestartTest {

    @Test
    void restartedManagerWithdrawsWhatTheFormerInstalledAndFinishesPendingInstalls() {
        ManagerHarness h = new ManagerHarness();
        P2mpGroup done = h.manager.submit(request("done", 2, 1, 3, 1));
        h.flows.ackAll();
        P2mpGroup pending = h.manager.submit(request("pending", 4, 1));
        assertEquals(GroupState.INSTALLING, h.get(pending.id()).state());

        h.restart();
        h.flows.drop(); // the former instance's batch was lost with it; the new one sends again
        assertEquals(1, h.flows.pendingCount(), "the pending group is taken up again");
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(pending.id()).state());
        assertEquals(4, h.manager.getInstalledPlan(done.id()).branches().size());

        h.manager.withdraw(done.id());
        h.flows.ackAll();
        assertEquals(GroupState.WITHDRAWN, h.get(done.id()).state());
        Map<String, Integer> copies = Delivery.trace(h.fabric, h.flows, pending.address(),
                h.fabric.hosts.getHost(HostId.hostId(hostId(1, 1))));
        assertEquals(Map.of(hostId(4, 1), 1), copies);
        assertTrue(h.flows.allRules().stream()
                .noneMatch(r -> r.selector().toString().contains(done.address().toString())),
                "nothing of the withdrawn group is left on any switch");
    }

    @Test
    void aHostThatMovesAfterATakeoverIsFollowed() {
        ManagerHarness h = new ManagerHarness();
        P2mpGroup g = h.manager.submit(request("g", 2, 1, 3, 1));
        h.flows.ackAll();
        h.restart();
        h.flows.ackAll();
        // the new instance knows which groups the host is in: its move recompiles the group
        h.fabric.moveHost(3, 1, TestFabric.leaf(4), 9);
        h.flows.ackAll();
        P2mpGroup now = h.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
        assertTrue(h.manager.getInstalledPlan(g.id()).branches().containsKey(TestFabric.leaf(4)),
                "the tree reaches the host where it is now: " + h.manager.getInstalledPlan(g.id()).branches());
        assertTrue(!h.manager.getInstalledPlan(g.id()).branches().containsKey(TestFabric.leaf(3)),
                "and no longer where it was");
    }

    @Test
    void aDegradedGroupsLinkReturningAfterATakeoverMakesItWhole() {
        ManagerHarness h = new ManagerHarness();
        P2mpGroup g = h.manager.submit(request("g", 2, 1, 3, 1));
        h.flows.ackAll();
        h.fabric.linkDown(3, 1);
        h.fabric.linkDown(3, 2);
        h.flows.ackAll();
        assertEquals(GroupState.DEGRADED, h.get(g.id()).state());
        h.restart();
        h.flows.ackAll();
        // the new instance knows the group waits for the fabric: the link coming back reaches the receiver
        h.fabric.linkUp(3, 1);
        h.flows.ackAll();
        P2mpGroup now = h.get(g.id());
        assertEquals(GroupState.INSTALLED, now.state(), now.reason());
        assertTrue(now.unreachable().isEmpty());
    }

    @Test
    void aTakeoverWritesNothingForGroupsThatAreInPlace() {
        ManagerHarness h = new ManagerHarness();
        P2mpGroup g = h.manager.submit(request("g", 2, 1, 3, 1));
        h.flows.ackAll();
        long version = h.get(g.id()).version();
        int batches = h.flows.batches().size();
        h.restart();
        h.flows.ackAll();
        assertEquals(version, h.get(g.id()).version(), "no store write");
        assertEquals(batches, h.flows.batches().size(), "no batch");
    }
}
