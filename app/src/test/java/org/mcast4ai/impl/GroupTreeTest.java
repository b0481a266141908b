package org.mcast4ai.impl;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.GroupTree;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.impl.p4.Mcast4aiPipeconf;
import org.mcast4ai.impl.p4.P4FabricManagerAccess;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.testing.FakePipeconfService;
import org.mcast4ai.testing.TestFabric;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mcast4ai.testing.TestFabric.leaf;

/**
 * A group's tree as the service reports it: the links its packets cross and the receivers they reach, followed
 * through what the switches were given, before and after a link failure, in each replication mode.
 */
class GroupTreeTest {

    private static Set<String> links(GroupTree t) {
        return t.links().stream().map(l -> l[0] + ">" + l[1]).collect(Collectors.toSet());
    }

    private static Set<String> hosts(Set<Endpoint> endpoints) {
        return endpoints.stream().map(Endpoint::host).collect(Collectors.toSet());
    }

    // the links the switches' rules send the group's packet over, and every host it reaches
    private static Set<String> crossed(ManagerHarness h, P2mpGroup g, Map<String, Integer> copies) {
        List<ConnectPoint> out = new ArrayList<>();
        copies.putAll(Delivery.trace(h.fabric, h.flows, g.address(),
                h.fabric.hosts.getHost(HostId.hostId(g.request().source().host())), out));
        Set<String> s = new HashSet<>();
        for (ConnectPoint cp : out) {
            h.fabric.links.getActiveLinks().forEach(l -> {
                if (l.src().equals(cp)) {
                    s.add(l.src() + ">" + l.dst());
                }
            });
        }
        return s;
    }

    private static void checkPaths(GroupTree t, P2mpGroup g, DeviceId sourceLeaf) {
        for (Map.Entry<Endpoint, List<DeviceId>> p : t.paths().entrySet()) {
            List<DeviceId> path = p.getValue();
            assertEquals(sourceLeaf, path.get(0), "a path starts at the source's leaf: " + p);
            assertTrue(t.hop(path.get(path.size() - 1)).roles().contains(GroupTree.Role.EGRESS), p.toString());
            for (int i = 1; i < path.size(); i++) {
                DeviceId from = path.get(i - 1);
                DeviceId to = path.get(i);
                assertTrue(t.links().stream().anyMatch(l -> l[0].deviceId().equals(from)
                        && l[1].deviceId().equals(to)), "a path follows the tree's links: " + p);
            }
        }
        assertTrue(t.hop(sourceLeaf).roles().contains(GroupTree.Role.INGRESS));
        assertEquals(g.id(), t.id());
    }

    @Test
    void aTreeGroupsLinksAreTheOnesItsRulesSendCopiesOverBeforeAndAfterALinkFails() {
        ManagerHarness h = new ManagerHarness();
        P2mpGroup g = h.manager.submit(ManagerHarness.request("t", 2, 1, 3, 2, 4, 1, 1, 2));
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        GroupTree t = h.manager.tree(g.id());
        Map<String, Integer> copies = new java.util.HashMap<>();
        assertEquals(crossed(h, g, copies), links(t));
        assertEquals(hosts(g.request().receivers()), copies.keySet());
        assertEquals(hosts(g.request().receivers()), hosts(t.paths().keySet()));
        assertEquals(Set.of(), t.unreachable());
        assertEquals(ReplicationMode.TREE, t.mode());
        checkPaths(t, g, leaf(1));
        DeviceId spine = t.paths().get(Endpoint.of(TestFabric.hostId(2, 1))).get(1);
        assertEquals(Set.of(GroupTree.Role.TRANSIT), t.hop(spine).roles());
        assertEquals(Set.of(GroupTree.Role.INGRESS, GroupTree.Role.EGRESS), t.hop(leaf(1)).roles(),
                "the source's leaf also delivers to the receiver beside the sender");

        int s = Integer.parseInt(spine.toString().substring(spine.toString().length() - 1), 16);
        h.fabric.linkDown(1, s);
        h.flows.ackAll();
        GroupTree after = h.manager.tree(g.id());
        copies.clear();
        assertEquals(crossed(h, g, copies), links(after));
        assertFalse(after.links().stream().anyMatch(l -> l[1].deviceId().equals(spine)
                && l[0].deviceId().equals(leaf(1))), "the cut link is not in the tree");
        assertEquals(hosts(g.request().receivers()), hosts(after.paths().keySet()));
        checkPaths(after, g, leaf(1));
    }

    @Test
    void receiversTheFabricCannotReachAreListedAndTheRestKeepTheirPaths() {
        ManagerHarness h = new ManagerHarness();
        P2mpGroup g = h.manager.submit(ManagerHarness.request("cut", 2, 1, 3, 1));
        h.flows.ackAll();
        for (int s = 1; s <= h.fabric.spines; s++) {
            h.fabric.linkDown(3, s);
        }
        h.flows.ackAll();
        assertEquals(GroupState.DEGRADED, h.get(g.id()).state());
        GroupTree t = h.manager.tree(g.id());
        assertEquals(Set.of(Endpoint.of(TestFabric.hostId(3, 1))), t.unreachable());
        assertEquals(Set.of(Endpoint.of(TestFabric.hostId(2, 1))), t.paths().keySet());
        assertEquals(Set.of(), t.strays());
    }

    @Test
    void aBitmapGroupIsFollowedThroughTheStaticTablesAndItsStamp() {
        ManagerHarness h = new ManagerHarness(TestFabric.leafSpine(), null, new FakeGroupService());
        h.flows.ackAll();
        P2mpGroup g = h.manager.submit(ManagerHarness.request("b", 2, 1, 3, 2, 4, 1).toBuilder()
                .mode(ReplicationMode.BITMAP).build());
        h.flows.ackAll();
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        GroupTree t = h.manager.tree(g.id());
        assertEquals(ReplicationMode.BITMAP, t.mode());
        assertTrue(t.carrier().startsWith("Ethernet-source stamp"), t.carrier());
        assertEquals(hosts(g.request().receivers()), hosts(t.paths().keySet()));
        assertTrue(t.hop(leaf(1)).serves().startsWith("stamp bits up "), t.hop(leaf(1)).serves());
        checkPaths(t, g, leaf(1));
        DeviceId spine = t.paths().values().iterator().next().get(1);
        int s = Integer.parseInt(spine.toString().substring(spine.toString().length() - 1), 16);
        h.fabric.linkDown(1, s);
        h.flows.ackAll();
        h.flows.ackAll();
        GroupTree after = h.manager.tree(g.id());
        assertEquals(hosts(g.request().receivers()), hosts(after.paths().keySet()), after.hops().toString());
        assertFalse(after.links().stream().anyMatch(l -> l[0].deviceId().equals(leaf(1))
                && l[1].deviceId().equals(spine)), "the stamp's uplink moved off the cut link");
    }

    @Test
    void aP4GroupIsFollowedThroughTheStaticStateAndItsHeader() {
        FakeGroupService groups = new FakeGroupService();
        FakePipeconfService pipeconfs = new FakePipeconfService();
        TestFabric fabric = TestFabric.leafSpine();
        fabric.devices.getDevices().forEach(d -> pipeconfs.bindToDevice(Mcast4aiPipeconf.ID, d.id()));
        ManagerHarness h = new ManagerHarness(fabric, null, groups, pipeconfs);
        h.flows.autoAck(true);
        P4FabricManagerAccess p4 = new P4FabricManagerAccess(h.fabric, h.flows, groups, pipeconfs);
        p4.run();
        h.manager.bindP4Fabric(p4.manager());
        P2mpGroup g = h.manager.submit(ManagerHarness.request("p4", 1, 2, 2, 1, 3, 2, 4, 1));
        assertEquals(GroupState.INSTALLED, h.get(g.id()).state());
        GroupTree t = h.manager.tree(g.id());
        assertTrue(t.carrier().startsWith("P4 header v2"), t.carrier());
        assertEquals(hosts(g.request().receivers()), hosts(t.paths().keySet()), t.hops().toString());
        assertEquals(Set.of(), t.strays());
        assertTrue(t.hop(leaf(1)).serves().contains("receivers)"), t.hop(leaf(1)).serves());
        checkPaths(t, g, leaf(1));
        // each remote leaf gets exactly one copy: three links down from the spines, one or two up from the source
        long down = t.links().stream().filter(l -> !l[0].deviceId().equals(leaf(1))).count();
        assertEquals(3, down, t.links().toString());
        p4.stop();
    }

    @Test
    void anUnknownGroupIsNotFound() {
        ManagerHarness h = new ManagerHarness();
        GroupException e = assertThrows(GroupException.class, () -> h.manager.tree(P2mpGroupId.of(77)));
        assertEquals(GroupException.Kind.NOT_FOUND, e.kind());
    }
}
