package org.mcast4ai.impl;

import org.mcast4ai.testing.TestFabric;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.api.VirtualPeer;
import org.onlab.packet.IpPrefix;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.IPCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mcast4ai.testing.TestFabric.hostId;

/**
 * ACK_AGGREGATION groups through the real manager and store: what the request must carry, the virtual peer the
 * app allocates, the return routes it programs up the tree, the context an agent reads and the reports it sends.
 */
class AckAggregationGroupsTest {
    private ManagerHarness h;

    @BeforeEach
    void setUp() {
        h = new ManagerHarness();
    }

    private static Endpoint ep(int leaf, int host, int qpn) {
        return Endpoint.of(hostId(leaf, host), qpn);
    }

    private static P2mpGroupRequest.Builder reliable(String name, Endpoint... receivers) {
        P2mpGroupRequest.Builder b = P2mpGroupRequest.builder().key(GroupKey.of("t", name))
                .source(ep(1, 1, 51)).reliability(Reliability.ACK_AGGREGATION);
        for (Endpoint r : receivers) {
            b.addReceiver(r);
        }
        return b;
    }

    /** What the agent beside the sender reports once it joined every receiver (at the group's first PSN). */
    private void joinAll(P2mpGroup g) {
        VirtualPeer p = h.manager.getGroup(g.id()).orElseThrow().peer().orElseThrow();
        Map<String, Integer> joined = new java.util.HashMap<>();
        p.slots().keySet().forEach(r -> joined.put(r, p.joined().getOrDefault(r, p.startPsn())));
        h.manager.reportAggregation(g.id(), new AggregationReport("h1", 0, Map.of(), p.stalled(), joined, -1, -1));
        h.flows.ackAll();
    }

    @Test
    void aGroupWaitsForItsAggregationPointBeforeItIsProgrammed() {
        P2mpGroup g = h.manager.submit(reliable("wait", ep(2, 1, 18), ep(3, 2, 19)).build());
        h.flows.ackAll();
        P2mpGroup waiting = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.INSTALLING, waiting.state());
        assertTrue(waiting.reason().startsWith("waiting for the aggregation point beside " + hostId(1, 1)
                + " to join 2 receiver(s)"), waiting.reason());
        assertTrue(h.flows.allRules().isEmpty(), "nothing reaches the receivers before their QPs can be set up");
        VirtualPeer p = waiting.peer().orElseThrow();
        h.manager.reportAggregation(g.id(), new AggregationReport("h1", 0, Map.of(), Set.of(),
                Map.of(hostId(2, 1), p.startPsn()), -1, -1));
        h.flows.ackAll();
        assertTrue(h.manager.getGroup(g.id()).orElseThrow().reason().contains("to join 1 receiver(s): "
                + hostId(3, 2)), h.manager.getGroup(g.id()).orElseThrow().reason());
        joinAll(g);
        assertEquals(GroupState.INSTALLED, h.manager.getGroup(g.id()).orElseThrow().state());
        // a receiver added later waits for its join, and the context gives the PSN it joined at
        h.manager.addReceivers(g.id(), Set.of(ep(4, 1, 20)));
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLING, h.manager.getGroup(g.id()).orElseThrow().state());
        Map<String, Integer> joined = new java.util.HashMap<>(h.manager.getGroup(g.id()).orElseThrow().peer()
                .orElseThrow().joined());
        joined.put(hostId(4, 1), (p.startPsn() + 500) & 0xFFFFFF);
        h.manager.reportAggregation(g.id(), new AggregationReport("h1", 0, Map.of(), Set.of(), joined, -1, -1));
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.manager.getGroup(g.id()).orElseThrow().state());
        AggregationContext c = h.manager.getAggregation(g.id()).orElseThrow();
        AggregationContext.Member late = c.receivers().stream().filter(m -> m.host().equals(hostId(4, 1)))
                .findFirst().orElseThrow();
        assertTrue(late.joined());
        assertEquals((p.startPsn() + 500) & 0xFFFFFF, late.joinPsn());
    }

    @Test
    void everyEndpointNeedsItsQpn() {
        GroupException e = assertThrows(GroupException.class, () -> h.manager.submit(
                reliable("a", ep(2, 1, 18)).addReceiver(Endpoint.of(hostId(3, 1))).build()));
        assertEquals(GroupException.Kind.INVALID, e.kind());
        assertTrue(e.getMessage().contains("receiver " + hostId(3, 1)) && e.getMessage().contains("QPN"),
                e.getMessage());
        e = assertThrows(GroupException.class, () -> h.manager.submit(P2mpGroupRequest.builder()
                .key(GroupKey.of("t", "b")).source(Endpoint.of(hostId(1, 1))).addReceiver(ep(2, 1, 18))
                .reliability(Reliability.ACK_AGGREGATION).build()));
        assertTrue(e.getMessage().startsWith("source"), e.getMessage());
        e = assertThrows(GroupException.class, () -> h.manager.submit(reliable("c", ep(2, 1, 18))
                .mode(ReplicationMode.BITMAP).build()));
        assertTrue(e.getMessage().contains("BITMAP"), e.getMessage());
        assertTrue(h.manager.getGroups().isEmpty());
    }

    @Test
    void aReliableGroupGetsAVirtualPeerAndReturnRoutesUpItsTree() {
        P2mpGroup g = h.manager.submit(reliable("kv", ep(2, 1, 18), ep(3, 2, 19), ep(1, 2, 20)).build());
        h.flows.ackAll();
        joinAll(g);
        g = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.INSTALLED, g.state(), g.reason());
        assertEquals(ReplicationMode.TREE, g.effectiveMode());
        VirtualPeer p = g.peer().orElseThrow();
        assertTrue(IpPrefix.valueOf("10.254.0.0/16").contains(p.address()), p.toString());
        assertEquals(Set.of(0, 1, 2), new HashSet<>(p.slots().values()));
        // every switch of the tree sends what reaches the peer's address from the ports the group's copies leave
        // by out of the port the group arrives on; nothing else
        Map<org.onosproject.net.DeviceId, org.mcast4ai.api.GroupPlan.Branch> plan = h.manager
                .getInstalledPlan(g.id()).branches();
        List<FlowRule> routes = h.flows.allRules().stream().filter(r -> dst(r).equals(p.address().toString()))
                .collect(Collectors.toList());
        assertEquals(plan.keySet(), routes.stream().map(FlowRule::deviceId).collect(Collectors.toSet()));
        for (FlowRule r : routes) {
            if (outputs(r).isEmpty()) {
                continue; // the drops
            }
            assertEquals(List.of(plan.get(r.deviceId()).inPort()), outputs(r));
            org.onosproject.net.flow.criteria.PortCriterion in = (org.onosproject.net.flow.criteria.PortCriterion)
                    r.selector().getCriterion(Criterion.Type.IN_PORT);
            assertTrue(in != null && plan.get(r.deviceId()).outPorts().contains(in.port()),
                    "taken only from a port the tree reaches receivers by: " + r);
        }
        // on the source leaf the return route ends at the sender's port
        assertEquals(TestFabric.port(1), plan.get(TestFabric.leaf(1)).inPort());
        // each receiver's ACK reaches the sender; one naming a member from anywhere else dies at its first switch
        for (int[] r : new int[][]{{2, 1}, {3, 2}, {1, 2}}) {
            assertEquals("sender", ack(p, r[0], r[1], r[0], r[1]), "receiver " + r[0] + "/" + r[1]);
        }
        assertEquals("dropped at " + TestFabric.leaf(2), ack(p, 2, 2, 2, 1),
                "a non-member beside a member, with the member's addresses");
        assertEquals("dropped at " + TestFabric.leaf(1), ack(p, 1, 2, 2, 1),
                "a member on the sender's leaf, with another member's addresses");
        assertEquals("dropped at " + TestFabric.leaf(4), ack(p, 4, 1, 3, 2), "a host on a leaf outside the tree");
        assertEquals("dropped at " + TestFabric.leaf(3), ack(p, 3, 2, 3, 1),
                "a member with a non-member's address (its own port, another's source)");
        int priority = g.request().priority();
        assertEquals(List.of(), h.flows.allRules().stream().filter(r -> dst(r).equals(p.address().toString())
                && r.priority() > priority).collect(Collectors.toList()),
                "nothing of the group above its priority");
        h.manager.withdraw(g.id());
        h.flows.ackAll();
        assertTrue(h.flows.allRules().stream().noneMatch(r -> dst(r).equals(p.address().toString())),
                "the return routes go with the group");
    }

    @Test
    void slotsSurviveMembershipChangesAndIndicesDifferPerSource() {
        P2mpGroup a = h.manager.submit(reliable("a", ep(2, 1, 18), ep(3, 1, 19), ep(4, 1, 20)).build());
        h.flows.ackAll();
        VirtualPeer before = h.manager.getGroup(a.id()).orElseThrow().peer().orElseThrow();
        h.manager.removeReceivers(a.id(), Set.of(ep(3, 1, 19)));
        h.manager.addReceivers(a.id(), Set.of(ep(2, 2, 21), ep(3, 2, 22)));
        h.flows.ackAll();
        VirtualPeer after = h.manager.getGroup(a.id()).orElseThrow().peer().orElseThrow();
        assertEquals(before.slots().get(hostId(2, 1)), after.slots().get(hostId(2, 1)));
        assertEquals(before.slots().get(hostId(4, 1)), after.slots().get(hostId(4, 1)));
        assertEquals(Set.of(before.slots().get(hostId(3, 1)), 3),
                Set.of(after.slots().get(hostId(2, 2)), after.slots().get(hostId(3, 2))),
                "the freed slot is reused, then the next free one");
        assertEquals(before.address(), after.address());
        assertEquals(before.startPsn(), after.startPsn());
        Set<Integer> indices = new HashSet<>(Set.of(after.index()));
        for (int i = 0; i < VirtualPeer.MAX_GROUPS_PER_SOURCE - 1; i++) {
            P2mpGroup g = h.manager.submit(reliable("g" + i, ep(2, 1, 18)).build());
            assertTrue(indices.add(g.peer().orElseThrow().index()), "index " + g.peer().orElseThrow().index()
                    + " given twice for one source");
        }
        GroupException e = assertThrows(GroupException.class,
                () -> h.manager.submit(reliable("one-too-many", ep(2, 1, 18)).build()));
        assertEquals(GroupException.Kind.LIMIT, e.kind());
        // another source has its own 64
        P2mpGroup other = h.manager.submit(P2mpGroupRequest.builder().key(GroupKey.of("t", "other"))
                .source(ep(4, 2, 7)).addReceiver(ep(2, 1, 18)).reliability(Reliability.ACK_AGGREGATION).build());
        assertTrue(other.peer().isPresent());
    }

    @Test
    void theContextResolvesEveryMemberAndAReportMakesStalledReceiversDegrade() {
        P2mpGroup g = h.manager.submit(reliable("ctx", ep(2, 1, 18), ep(3, 2, 19)).build());
        h.flows.ackAll();
        assertTrue(h.manager.getAggregation(g.id()).orElseThrow().receivers().stream().noneMatch(
                AggregationContext.Member::joined));
        joinAll(g);
        AggregationContext c = h.manager.getAggregation(g.id()).orElseThrow();
        assertEquals(TestFabric.ip(1, 1), c.sender().ip().toString());
        assertEquals(51, c.sender().qpn());
        assertEquals(VirtualPeer.SENDER_FACING_QPN, c.sender().peerQpn());
        assertEquals(2, c.receivers().size());
        AggregationContext.Member r = c.receivers().get(1);
        assertEquals(TestFabric.ip(3, 2), r.ip().toString());
        assertEquals(VirtualPeer.RECEIVER_QPN_BASE + r.slot(), r.peerQpn());
        assertEquals(c.peer().startPsn(), r.joinPsn());

        h.manager.reportAggregation(g.id(), new AggregationReport("h1", 0, Map.of("acksIn", 10L, "acksOut", 4L),
                Set.of(hostId(3, 2)), Map.of(hostId(2, 1), 77, hostId(3, 2), c.peer().startPsn()), 80, 79));
        h.flows.ackAll();
        P2mpGroup degraded = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.DEGRADED, degraded.state(), degraded.reason());
        assertTrue(degraded.reason().contains(hostId(3, 2)), degraded.reason());
        assertEquals(Set.of(hostId(3, 2)), degraded.peer().orElseThrow().stalled());
        AggregationContext after = h.manager.getAggregation(g.id()).orElseThrow();
        assertEquals(77, after.receivers().get(0).joinPsn());
        assertEquals(4L, after.report().orElseThrow().counter("acksOut"));

        h.manager.reportAggregation(g.id(), new AggregationReport("h1", 0, Map.of(), Set.of(),
                Map.of(hostId(2, 1), 77, hostId(3, 2), c.peer().startPsn()), -1, -1));
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.manager.getGroup(g.id()).orElseThrow().state());

        GroupException e = assertThrows(GroupException.class, () -> h.manager.reportAggregation(g.id(),
                new AggregationReport("h1", 0, Map.of(), Set.of("10.9.9.9"), Map.of(), -1, -1)));
        assertEquals(GroupException.Kind.INVALID, e.kind());
        P2mpGroup plain = h.manager.submit(P2mpGroupRequest.builder().key(GroupKey.of("t", "plain"))
                .source(Endpoint.of(hostId(1, 1))).addReceiver(Endpoint.of(hostId(2, 1))).build());
        e = assertThrows(GroupException.class, () -> h.manager.getAggregation(plain.id()));
        assertEquals(GroupException.Kind.CONFLICT, e.kind());
        assertNotEquals(null, e.getMessage());
        assertFalse(plain.peer().isPresent());
    }

    /**
     * Follows an ACK to the virtual peer from a host port through the switches' rules (the highest priority
     * match on each switch, OpenFlow's order), with the source addresses of another host.
     *
     * @return "sender" if it reaches the source host's port, or where it was dropped
     */
    private String ack(VirtualPeer p, int leaf, int port, int asLeaf, int asHost) {
        org.onosproject.net.ConnectPoint at = new org.onosproject.net.ConnectPoint(TestFabric.leaf(leaf),
                TestFabric.port(port));
        org.onlab.packet.MacAddress mac = TestFabric.mac(asLeaf, asHost);
        org.onlab.packet.Ip4Address ip = org.onlab.packet.Ip4Address.valueOf(TestFabric.ip(asLeaf, asHost));
        for (int hop = 0; hop < 10; hop++) {
            org.onosproject.net.ConnectPoint here = at;
            FlowRule best = null;
            for (FlowRule r : h.flows.allRules()) {
                if (r.deviceId().equals(here.deviceId()) && matches(r, here.port(), mac, ip, p)
                        && (best == null || r.priority() > best.priority())) {
                    best = r;
                }
            }
            if (best == null || outputs(best).isEmpty()) {
                return "dropped at " + here.deviceId();
            }
            org.onosproject.net.ConnectPoint out = new org.onosproject.net.ConnectPoint(here.deviceId(),
                    outputs(best).get(0));
            if (out.equals(new org.onosproject.net.ConnectPoint(TestFabric.leaf(1), TestFabric.port(1)))) {
                return "sender";
            }
            at = null;
            for (org.onosproject.net.Link l : h.fabric.links.getActiveLinks()) {
                if (l.src().equals(out)) {
                    at = l.dst();
                }
            }
            if (at == null) {
                return "out of " + out;
            }
        }
        return "loop";
    }

    private static boolean matches(FlowRule r, org.onosproject.net.PortNumber in, org.onlab.packet.MacAddress mac,
                                   org.onlab.packet.Ip4Address ip, VirtualPeer p) {
        for (Criterion c : r.selector().criteria()) {
            switch (c.type()) {
                case ETH_TYPE:
                    break;
                case IN_PORT:
                    if (!((org.onosproject.net.flow.criteria.PortCriterion) c).port().equals(in)) {
                        return false;
                    }
                    break;
                case ETH_SRC:
                    if (!((org.onosproject.net.flow.criteria.EthCriterion) c).mac().equals(mac)) {
                        return false;
                    }
                    break;
                case IPV4_SRC:
                    if (!((IPCriterion) c).ip().contains(ip)) {
                        return false;
                    }
                    break;
                case IPV4_DST:
                    if (!((IPCriterion) c).ip().contains(p.address())) {
                        return false;
                    }
                    break;
                default:
                    return false;
            }
        }
        return true;
    }

    private static String dst(FlowRule r) {
        Criterion c = r.selector().getCriterion(Criterion.Type.IPV4_DST);
        return c == null ? "" : ((IPCriterion) c).ip().address().toString();
    }

    private static List<org.onosproject.net.PortNumber> outputs(FlowRule r) {
        return r.treatment().immediate().stream().filter(i -> i.type() == Instruction.Type.OUTPUT)
                .map(i -> ((Instructions.OutputInstruction) i).port()).collect(Collectors.toList());
    }
}
