package org.mcast4ai.impl.p4;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.VirtualPeer;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.FabricGeometry;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.pi.model.PiActionParamId;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiPipelineModel;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;
import org.onosproject.p4runtime.model.P4InfoParser;

import java.math.BigInteger;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ACK aggregation in the source leaf: the source leaf's group and member entries, the receivers' leaves' host and
 * peer entries, each one every build's P4Info has; what the control frames start a group with; the groups the
 * program cannot hold left out with the reason.
 */
class P4AggPlannerTest {
    private static final DeviceId LEAF1 = DeviceId.deviceId("device:leaf1");
    private static final DeviceId LEAF2 = DeviceId.deviceId("device:leaf2");
    private static final DeviceId LEAF3 = DeviceId.deviceId("device:leaf3");
    private static final Set<DeviceId> P4 = Set.of(LEAF1, LEAF2);
    private final P4AggPlanner planner = new P4AggPlanner(new DefaultApplicationId(8, "org.mcast4ai.app.p4"));
    // leaves 1, 2 and 3 of a leaf-spine with 8 slots a leaf: leaf1 port p at bit p - 1, leaf2 at 8 + p - 1
    private final BitIndexTable bits;

    P4AggPlannerTest() {
        Map<String, Integer> positions = new HashMap<>();
        for (int p = 1; p <= 8; p++) {
            positions.put(BitIndexTable.positionKey(LEAF1.toString(), p), p - 1);
            positions.put(BitIndexTable.positionKey(LEAF2.toString(), p), 8 + p - 1);
            positions.put(BitIndexTable.positionKey(LEAF3.toString(), p), 16 + p - 1);
        }
        bits = BitIndexTable.of(FabricGeometry.leafSpine(3, 8),
                Map.of(LEAF1.toString(), 0, LEAF2.toString(), 8, LEAF3.toString(), 16), positions);
    }

    /**
     * A group sent from leaf1 port 1; receiver "rN" at device:leafX/P for N = 10 X + P, slot by order.
     */
    private static AggregationContext context(long id, String vp, int... at) {
        return P4EdgePlannerTest.context(id, "224.1.0." + id, vp, at, n -> "device:leaf" + n / 10 + "/" + n % 10,
                n -> "10.0." + n / 10 + "." + n % 10, n -> "02:00:00:00:" + String.format("%02x:%02x", n / 10, n % 10));
    }

    @Test
    void theSourceLeafAggregatesAndTheReceiversLeavesSendTheirAcksToTheSender() {
        AggregationContext a = context(1, "10.9.0.5", 12, 21, 23, 31);
        P4AggPlanner.Plan plan = planner.plan(List.of(a), P4, bits, P4AggPlanner.DEFAULT_TIMERS);
        assertTrue(plan.problems().isEmpty(), plan.problems().toString());
        assertEquals(Set.of(LEAF1, LEAF2), plan.rules().keySet(), "nothing for the OpenFlow leaf3");
        List<FlowRule> src = plan.rules().get(LEAF1);
        assertEquals(List.of(P4AggPlanner.ACK_SRC, P4AggPlanner.AGG_VP, P4AggPlanner.AGG_GROUP,
                P4AggPlanner.AGG_MEMBER, P4AggPlanner.AGG_MEMBER, P4AggPlanner.AGG_MEMBER, P4AggPlanner.AGG_MEMBER),
                tables(src), "the one local receiver's host, the group and its four members");
        assertEquals(src.subList(1, 7), plan.points().get(0).entries(),
                "the group's own entries, which must be in place before its control frames");
        PiAction group = action(src.get(1));
        assertEquals(P4AggPlanner.VP_GROUP, group.id().id());
        assertEquals(5, number(param(group, "g")), "the peer's index: its address's low six bits");
        assertArrayEquals(IpAddress.valueOf("10.9.0.5").toOctets(), param(group, "vp_ip"));
        assertArrayEquals(IpAddress.valueOf("10.0.0.1").toOctets(), param(group, "sender_ip"));
        assertEquals(7, number(param(group, "sender_qpn")));
        assertEquals(1, number(param(group, "sender_port")));
        assertEquals(1, number(param(group, "sees_data")));
        assertArrayEquals(VirtualPeer.of(IpAddress.valueOf("10.9.0.5"), 1, Set.of()).mac().toBytes(),
                param(group, "vp_mac"));
        assertEquals(1_000_000, number(param(group, "stall_us")));
        assertEquals(group, action(src.get(2)), "the same group by its index, for the control frames");
        assertEquals(5, number(match(src.get(2), "group")));
        // member r21: its address and the QPN its ACKs name, to its slot
        FlowRule m21 = src.get(4);      // after r12's
        assertArrayEquals(IpAddress.valueOf("10.0.2.1").toOctets(), match(m21, "src"));
        assertEquals(VirtualPeer.RECEIVER_QPN_BASE + 1, number(match(m21, "qpn")));
        assertEquals(1, number(param(action(m21), "slot")));
        // leaf2: its two receivers' hosts, and the peer to the sender's bit (leaf1 port 1: bit 0)
        List<FlowRule> recv = plan.rules().get(LEAF2);
        assertEquals(List.of(P4AggPlanner.ACK_SRC, P4AggPlanner.ACK_VP, P4AggPlanner.ACK_SRC), tables(recv));
        assertEquals(1, number(match(recv.get(0), "ingress_port")));
        assertArrayEquals(MacAddress.valueOf("02:00:00:00:02:01").toBytes(), match(recv.get(0), "mac"));
        assertEquals(0, number(param(action(recv.get(1)), "index")));
        assertArrayEquals(IpAddress.valueOf("10.9.0.5").toOctets(), match(recv.get(1), "vp"));
        for (List<FlowRule> rules : plan.rules().values()) {
            for (FlowRule r : rules) {
                P4FabricPlannerTest.check(r);
                for (PiPipelineModel wide : wide()) {
                    P4FabricPlannerTest.check(wide, r);
                }
            }
        }
        P4AggPlanner.Point p = plan.points().get(0);
        assertEquals(LEAF1, p.device());
        assertEquals(5, p.index());
        assertEquals(100, p.startPsn());
        assertEquals(Set.of(0, 1, 2, 3), p.keys().keySet());
        assertEquals((long) IpAddress.valueOf("10.0.2.1").getIp4Address().toInt() << 24 & 0xFFFFFFFF000000L
                | VirtualPeer.RECEIVER_QPN_BASE + 1, p.keys().get(1));
        assertEquals("r21", p.names().get(1));
    }

    @Test
    void aHostInTwoGroupsGetsOneHostEntryAndEachPeerItsOwn() {
        P4AggPlanner.Plan plan = planner.plan(List.of(context(1, "10.9.0.5", 21), context(2, "10.9.0.6", 21)), P4,
                bits, P4AggPlanner.DEFAULT_TIMERS);
        assertEquals(List.of(P4AggPlanner.ACK_SRC, P4AggPlanner.ACK_VP, P4AggPlanner.ACK_VP),
                tables(plan.rules().get(LEAF2)));
        assertEquals(2, plan.points().size());
    }

    @Test
    void whatTheProgramCannotHoldIsLeftOutWithTheReason() {
        // another sender on leaf1 whose group has the same index: the older group keeps it
        AggregationContext first = context(1, "10.9.0.5", 21);
        AggregationContext clash = context(2, "10.9.1.5", 22);
        AggregationContext clashAt = new AggregationContext(clash.group(), new AggregationContext.Member("t",
                IpAddress.valueOf("10.0.0.2"), MacAddress.valueOf("02:00:00:00:00:02"), 9, -1,
                VirtualPeer.SENDER_FACING_QPN, ConnectPoint.deviceConnectPoint("device:leaf1/2"), 100, true),
                clash.receivers(), List.of(), null);
        // a receiver beyond the program's slots
        AggregationContext wide = context(3, "10.9.0.7", 21);
        AggregationContext.Member r = wide.receivers().get(0);
        AggregationContext far = new AggregationContext(wide.group(), wide.sender(), List.of(
                new AggregationContext.Member(r.host(), r.ip(), r.mac(), r.qpn(), P4AggPlanner.RECEIVERS,
                        r.peerQpn(), r.location().orElseThrow(), 100, true)), List.of(), null);
        // a sender on an OpenFlow leaf: not a P4 aggregation at all
        AggregationContext of = new AggregationContext(context(4, "10.9.0.8", 21).group(),
                new AggregationContext.Member("u", IpAddress.valueOf("10.0.3.1"),
                        MacAddress.valueOf("02:00:00:00:03:01"), 9, -1, VirtualPeer.SENDER_FACING_QPN,
                        ConnectPoint.deviceConnectPoint("device:leaf3/1"), 100, true),
                context(4, "10.9.0.8", 21).receivers(), List.of(), null);
        P4AggPlanner.Plan plan = planner.plan(List.of(clashAt, far, first, of), P4, bits,
                P4AggPlanner.DEFAULT_TIMERS);
        assertEquals(List.of(P2mpGroupId.of(1)), plan.points().stream().map(P4AggPlanner.Point::id)
                .collect(java.util.stream.Collectors.toList()));
        assertEquals(2, plan.problems().size(), plan.problems().toString());
        assertTrue(plan.problems().get(0).contains("index 5 at device:leaf1 is group"), plan.problems().get(0));
        assertTrue(plan.problems().get(1).contains("slot 128"), plan.problems().get(1));
    }

    private static List<PiPipelineModel> wide() {
        try {
            return List.of(
                    P4InfoParser.parse(Paths.get("..", "models", "p4", "mcast4ai-wide.p4info.txt").toUri().toURL()),
                    P4InfoParser.parse(Paths.get("..", "models", "p4", "mcast4ai-wide48.p4info.txt").toUri().toURL()));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> tables(List<FlowRule> rules) {
        return rules.stream().map(r -> r.table().toString()).collect(java.util.stream.Collectors.toList());
    }

    static PiAction action(FlowRule r) {
        return (PiAction) ((PiInstruction) r.treatment().allInstructions().get(0)).action();
    }

    static byte[] param(PiAction a, String name) {
        return a.parameters().stream().filter(p -> p.id().equals(PiActionParamId.of(name))).findFirst()
                .orElseThrow(() -> new AssertionError(a.id() + " has no " + name)).value().asArray();
    }

    static byte[] match(FlowRule r, String field) {
        PiCriterion c = (PiCriterion) r.selector().criteria().iterator().next();
        return ((PiExactFieldMatch) c.fieldMatches().stream().filter(m -> m.fieldId().equals(PiMatchFieldId.of(field)))
                .findFirst().orElseThrow(() -> new AssertionError(r.table() + " has no " + field))).value().asArray();
    }

    static long number(byte[] v) {
        return new BigInteger(1, v).longValue();
    }
}
