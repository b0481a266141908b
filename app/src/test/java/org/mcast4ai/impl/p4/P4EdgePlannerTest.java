package org.mcast4ai.impl.p4;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.VirtualPeer;
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
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The receivers' rewrites on P4 leaves: one entry per receiver on a P4 switch, each one the program has. */
class P4EdgePlannerTest {
    private final P4EdgePlanner planner = new P4EdgePlanner(new DefaultApplicationId(8, "org.mcast4ai.app.p4"));

    private static AggregationContext context(long id, String group, String vp, int... ports) {
        // ports 1-9 on leaf2 (P4), 10 and up on leaf3 (not P4)
        return context(id, group, vp, ports, p -> (p < 10 ? "device:leaf2/" : "device:leaf3/") + p,
                p -> "10.0.1." + p, p -> "02:00:00:00:01:" + String.format("%02x", p));
    }

    /**
     * A reliable group from "s" (10.0.0.1, QPN 7, at device:leaf1/1) to receivers "rN" (QPN 0x40 + N), each where,
     * with the address and the MAC the functions give, and the slot and peer QPN of the group's virtual peer.
     */
    static AggregationContext context(long id, String group, String vp, int[] receivers,
                                      java.util.function.IntFunction<String> at,
                                      java.util.function.IntFunction<String> ip,
                                      java.util.function.IntFunction<String> mac) {
        Set<Endpoint> rs = new LinkedHashSet<>();
        for (int n : receivers) {
            rs.add(Endpoint.of("r" + n, 0x40 + n));
        }
        P2mpGroupRequest req = P2mpGroupRequest.builder().key(GroupKey.of("t", "g" + id)).source(Endpoint.of("s", 7))
                .receivers(rs).reliability(Reliability.ACK_AGGREGATION).build();
        VirtualPeer peer = VirtualPeer.of(IpAddress.valueOf(vp), 100, rs);
        P2mpGroup g = P2mpGroup.submitted(P2mpGroupId.of(id), req, IpAddress.valueOf(group), 0, peer);
        AggregationContext.Member sender = new AggregationContext.Member("s", IpAddress.valueOf("10.0.0.1"),
                MacAddress.valueOf("02:00:00:00:00:01"), 7, -1, VirtualPeer.SENDER_FACING_QPN,
                ConnectPoint.deviceConnectPoint("device:leaf1/1"), 100, true);
        List<AggregationContext.Member> members = new java.util.ArrayList<>();
        for (int n : receivers) {
            String host = "r" + n;
            members.add(new AggregationContext.Member(host, IpAddress.valueOf(ip.apply(n)),
                    MacAddress.valueOf(mac.apply(n)), 0x40 + n, peer.slots().get(host), peer.peerQpn(host),
                    ConnectPoint.deviceConnectPoint(at.apply(n)), 100, true));
        }
        return new AggregationContext(g, sender, members, List.of(), null);
    }

    @Test
    void eachReceiverOnAP4LeafGetsItsRewrite() {
        AggregationContext a = context(1, "224.1.0.1", "10.0.0.65", 1, 2, 12);
        AggregationContext b = context(2, "224.1.0.2", "10.0.0.66", 2);
        Map<DeviceId, List<FlowRule>> plan = planner.plan(List.of(a, b), Set.of(DeviceId.deviceId("device:leaf2")));
        assertEquals(Set.of(DeviceId.deviceId("device:leaf2")), plan.keySet(), "none for the OpenFlow leaf");
        List<FlowRule> rules = plan.get(DeviceId.deviceId("device:leaf2"));
        assertEquals(3, rules.size(), "receivers 1 and 2 of group 1, receiver 2 of group 2");
        for (FlowRule r : rules) {
            P4FabricPlannerTest.check(r);
        }
        FlowRule first = rules.get(0);
        PiCriterion c = (PiCriterion) first.selector().criteria().iterator().next();
        assertEquals(1, new java.math.BigInteger(1, value(c, "egress_port")).intValue());
        assertArrayEquals(IpAddress.valueOf("10.0.0.65").toOctets(), value(c, "dst"));
        PiAction act = (PiAction) ((PiInstruction) first.treatment().allInstructions().get(0)).action();
        assertEquals(P4EdgePlanner.RECEIVER4, act.id().id());
        Map<PiActionParamId, byte[]> p = new java.util.HashMap<>();
        act.parameters().forEach(x -> p.put(x.id(), x.value().asArray()));
        assertArrayEquals(MacAddress.valueOf("02:00:00:00:01:01").toBytes(), p.get(PiActionParamId.of("mac")));
        assertArrayEquals(IpAddress.valueOf("10.0.1.1").toOctets(), p.get(PiActionParamId.of("ip")));
        assertArrayEquals(new byte[]{0, 0, 0x41}, p.get(PiActionParamId.of("qpn")));
        assertArrayEquals(IpAddress.valueOf("10.0.0.65").toOctets(), p.get(PiActionParamId.of("vp")));
    }

    @Test
    void twoReceiversOfOneGroupOnOnePortGetOneEntry() {
        AggregationContext a = context(1, "224.1.0.1", "10.0.0.65", 3, 3);
        assertEquals(1, planner.plan(List.of(a), Set.of(DeviceId.deviceId("device:leaf2")))
                .get(DeviceId.deviceId("device:leaf2")).size());
    }

    private static byte[] value(PiCriterion c, String field) {
        return ((PiExactFieldMatch) c.fieldMatches().stream().filter(m -> m.fieldId().equals(PiMatchFieldId.of(field)))
                .findFirst().orElseThrow()).value().asArray();
    }
}
