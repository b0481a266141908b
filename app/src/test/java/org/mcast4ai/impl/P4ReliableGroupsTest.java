package org.mcast4ai.impl;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.VirtualPeer;
import org.mcast4ai.impl.p4.Mcast4aiPipeconf;
import org.mcast4ai.impl.p4.P4AggFrames;
import org.mcast4ai.impl.p4.P4AggPlanner;
import org.mcast4ai.impl.p4.P4FabricManagerAccess;
import org.mcast4ai.impl.p4.P4StampPlanner;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.testing.FakePacketService;
import org.mcast4ai.testing.FakePipeconfService;
import org.mcast4ai.testing.TestFabric;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.packet.OutboundPacket;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reliable groups on a P4 fabric, through the group manager's one reconcile loop: the source leaf aggregates the
 * ACKs in its registers. The group waits until the leaf holds its entries and its aggregator joined every receiver
 * (by packet-out), is stamped for its virtual peer's address, and turns DEGRADED when the leaf reports a receiver
 * stalled (by packet-in); a switch back empty has its aggregator started again.
 */
class P4ReliableGroupsTest {
    private final FakeGroupService groups = new FakeGroupService();
    private final FakePipeconfService pipeconfs = new FakePipeconfService();
    private final ManagerHarness h;
    private final FakePacketService packets = new FakePacketService();
    private final P4FabricManagerAccess p4;

    P4ReliableGroupsTest() {
        TestFabric f = TestFabric.leafSpine();
        f.devices.getDevices().forEach(d -> pipeconfs.bindToDevice(Mcast4aiPipeconf.ID, d.id()));
        h = new ManagerHarness(f, null, groups, pipeconfs);
        h.flows.autoAck(true);
        p4 = new P4FabricManagerAccess(h.fabric, h.flows, groups, pipeconfs, packets);
        p4.run();
        h.manager.bindP4Fabric(p4.manager());
    }

    private List<FlowRule> rules(String table) {
        return h.flows.allRules().stream().filter(r -> r.table().toString().equals(table))
                .collect(Collectors.toList());
    }

    private static byte[] match(FlowRule r, String field) {
        PiCriterion c = (PiCriterion) r.selector().criteria().iterator().next();
        return ((PiExactFieldMatch) c.fieldMatch(PiMatchFieldId.of(field)).orElseThrow()).value().asArray();
    }

    // the operations of the control frames sent to a device, in order
    private List<Integer> frames(DeviceId d) {
        return packets.emitted.stream().filter(p -> p.sendThrough().equals(d)).map(OutboundPacket::data)
                .map(b -> {
                    byte[] f = new byte[b.remaining()];
                    b.duplicate().get(f);
                    assertEquals(P4AggFrames.ETHER_TYPE, ByteBuffer.wrap(f).getShort(12) & 0xFFFF);
                    return f[14] & 0xFF;
                }).filter(op -> op != P4AggFrames.TICK).collect(Collectors.toList());
    }

    private P2mpGroup submit() {
        return h.manager.submit(P2mpGroupRequest.builder().key(GroupKey.of("t", "rc"))
                .source(Endpoint.of(TestFabric.hostId(1, 1), 51)).reliability(Reliability.ACK_AGGREGATION)
                .addReceiver(Endpoint.of(TestFabric.hostId(2, 1), 18))
                .addReceiver(Endpoint.of(TestFabric.hostId(3, 2), 19)).build());
    }

    @Test
    void theSourceLeafAggregatesOnceItsAggregatorJoinedEveryReceiver() {
        P2mpGroup g = submit();
        p4.run();
        P2mpGroup now = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.INSTALLED, now.state(), now + ": " + now.reason());
        VirtualPeer peer = now.peer().orElseThrow();
        assertEquals(Set.of(), peer.waitingToJoin(), "the aggregator joined both");
        // the sender's QP sends to the virtual peer: the stamp and the receivers' rewrites are keyed by it
        FlowRule stamp = rules(P4StampPlanner.STAMP_GROUP).get(0);
        assertArrayEquals(peer.address().toOctets(), match(stamp, "dst"));
        List<FlowRule> vp = rules(P4AggPlanner.AGG_VP);
        assertEquals(1, vp.size());
        assertEquals(TestFabric.leaf(1), vp.get(0).deviceId());
        assertEquals(Set.of(TestFabric.leaf(2), TestFabric.leaf(3)), rules(P4AggPlanner.ACK_VP).stream()
                .map(FlowRule::deviceId).collect(Collectors.toSet()), "the receivers' leaves send ACKs to the source");
        assertEquals(2, rules(P4AggPlanner.AGG_MEMBER).size());
        h.flows.allRules().forEach(P4FabricManagerAccess::checkAgainstP4Info);
        assertEquals(List.of(P4AggFrames.CONFIG, P4AggFrames.JOIN, P4AggFrames.JOIN), frames(TestFabric.leaf(1)));
        assertTrue(groups.groups.values().stream().anyMatch(x -> x.type() == GroupDescription.Type.CLONE
                && x.deviceId().equals(TestFabric.leaf(1))), "the leaf's clone session to the CPU port");
        // started once; a switch back empty starts it again
        p4.run();
        assertEquals(3, frames(TestFabric.leaf(1)).size());
        p4.deviceReturned(TestFabric.leaf(1));
        p4.run();
        p4.run();
        assertEquals(6, frames(TestFabric.leaf(1)).size(), frames(TestFabric.leaf(1)).toString());
    }

    @Test
    void aReceiverTheLeafStallsTurnsTheGroupDegradedWithItsName() {
        P2mpGroup g = submit();
        p4.run();
        VirtualPeer peer = h.manager.getGroup(g.id()).orElseThrow().peer().orElseThrow();
        int slot = peer.slots().get(TestFabric.hostId(3, 2));
        byte[] report = P4AggFrames.frame(P4AggFrames.STALLED, peer.index(), 0, 0, 0);
        report[34 + 15 - slot / 8] |= (byte) (1 << (slot % 8));
        assertTrue(packets.receive(new ConnectPoint(TestFabric.leaf(1), TestFabric.port(1)), report),
                "the report is the aggregator's");
        P2mpGroup now = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.DEGRADED, now.state(), now.toString());
        assertTrue(now.reason().contains(TestFabric.hostId(3, 2)), now.reason());
    }
}
