package org.mcast4ai.impl;

import org.mcast4ai.testing.FakeFlowRuleService;
import org.mcast4ai.testing.TestFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.api.StateChange;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The manager with several installer threads, as ONOS runs it: clients on two threads churn groups while
 * switches acknowledge on other threads. Every group goes through its states in order, and the switch
 * tables, keyed as ONOS keys them (device and flow id), end empty: every removal found the rule it removes.
 */
class InstallerLanesTest {
    private final ExecutorService switches = Executors.newFixedThreadPool(3);
    // acknowledged on other threads, as ONOS answers after the switches' barriers
    private final FakeFlowRuleService flows = new FakeFlowRuleService().autoAck(true).acknowledgeOn(switches)
            .recording(false);
    private ManagerHarness h;

    @AfterEach
    void stop() {
        if (h != null) {
            h.manager.deactivate(null);
        }
        switches.shutdownNow();
    }

    private void await(List<P2mpGroupId> ids, GroupState state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (P2mpGroupId id : ids) {
            while (h.get(id).state() != state) {
                assertTrue(System.nanoTime() < deadline, "group " + id + " stuck in " + h.get(id).state());
                Thread.sleep(1);
            }
        }
    }

    @Test
    void groupsChurnOnSeveralLanesWithoutLosingARule() throws Exception {
        TestFabric fabric = TestFabric.leafSpine();
        h = new ManagerHarness(fabric, flows, 4);
        List<P2mpGroupId> ids = new ArrayList<>();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            int client = c;
            Thread t = new Thread(() -> {
                Random random = new Random(client);
                for (int i = 0; i < 300; i++) {
                    P2mpGroupRequest.Builder b = P2mpGroupRequest.builder()
                            .key(GroupKey.of("tenant-" + client, "g" + i)).jobId("churn")
                            .source(Endpoint.of(TestFabric.hostId(1, 1))).mode(ReplicationMode.TREE);
                    for (int leaf = 2; leaf <= 4; leaf++) {
                        if (random.nextBoolean() || leaf == 4) {
                            b.addReceiver(Endpoint.of(TestFabric.hostId(leaf, 1 + random.nextInt(2))));
                        }
                    }
                    P2mpGroup g = h.manager.submit(b.build());
                    synchronized (ids) {
                        ids.add(g.id());
                    }
                }
            });
            clients.add(t);
            t.start();
        }
        for (Thread t : clients) {
            t.join();
        }
        await(ids, GroupState.INSTALLED);
        assertTrue(flows.getFlowRuleCount() > 0);
        ids.forEach(h.manager::withdraw);
        await(ids, GroupState.WITHDRAWN);
        assertEquals(List.of(), flows.unknownRemovals());
        assertEquals(0, flows.getFlowRuleCount(), "every rule removed");
        for (P2mpGroupId id : ids) {
            List<GroupState> states = h.get(id).history().stream().map(StateChange::state)
                    .collect(Collectors.toList());
            assertEquals(List.of(GroupState.SUBMITTED, GroupState.COMPILING, GroupState.INSTALLING,
                    GroupState.INSTALLED, GroupState.WITHDRAWING, GroupState.WITHDRAWN), states, "group " + id);
            h.manager.purge(id);
        }
        assertEquals(0, h.manager.groupCount());
        synchronized (h.events) {
            long removed = h.events.stream().filter(e -> e.type() == P2mpGroupEvent.Type.GROUP_REMOVED).count();
            assertEquals(ids.size(), removed);
        }
    }
}
