package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.GroupPlan;
import org.onosproject.codec.JsonCodec;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mcast4ai.codec.Fixtures.assertInvalid;
import static org.mcast4ai.codec.Fixtures.json;

class GroupPlanCodecTest {
    private static final DeviceId LEAF1 = DeviceId.deviceId("of:0000000000000001");
    private static final DeviceId SPINE = DeviceId.deviceId("of:0000000000000011");
    private static final DeviceId LEAF2 = DeviceId.deviceId("of:0000000000000002");

    private final Mcast4aiCodecContext context = new Mcast4aiCodecContext();
    private final JsonCodec<GroupPlan> codec = context.codec(GroupPlan.class);

    private static PortNumber p(long n) {
        return PortNumber.portNumber(n);
    }

    private static GroupPlan plan() {
        return new GroupPlan(Map.of(
                SPINE, new GroupPlan.Branch(p(1), Set.of(p(2))),
                LEAF1, new GroupPlan.Branch(p(1), Set.of(p(4), p(3))),
                LEAF2, new GroupPlan.Branch(p(3), Set.of(p(1), p(2)))),
                List.of(new ConnectPoint[] {new ConnectPoint(LEAF1, p(3)), new ConnectPoint(SPINE, p(1))},
                        new ConnectPoint[] {new ConnectPoint(SPINE, p(2)), new ConnectPoint(LEAF2, p(3))}));
    }

    @Test
    void encodesDevicesSortedWithPortsAndLinks() {
        ObjectNode n = codec.encode(plan(), context);
        assertEquals(3, n.get("devices").size());
        assertEquals("of:0000000000000001", n.get("devices").get(0).get("deviceId").asText());
        assertEquals("of:0000000000000002", n.get("devices").get(1).get("deviceId").asText());
        assertEquals(1, n.get("devices").get(0).get("inPort").asLong());
        assertEquals(3, n.get("devices").get(0).get("outPorts").get(0).asLong());
        assertEquals(4, n.get("devices").get(0).get("outPorts").get(1).asLong());
        assertEquals("of:0000000000000001", n.get("links").get(0).get("src").get("device").asText());
        assertEquals(1, n.get("links").get(0).get("dst").get("port").asLong());
    }

    @Test
    void roundTripsBranchesAndLinks() {
        GroupPlan original = plan();
        GroupPlan back = codec.decode(codec.encode(original, context), context);
        assertEquals(original, back);
        assertEquals(original.links().size(), back.links().size());
        for (int i = 0; i < original.links().size(); i++) {
            assertArrayEquals(original.links().get(i), back.links().get(i));
        }
    }

    @Test
    void emptyPlanRoundTrips() {
        assertEquals(json("{'devices':[],'links':[]}"), codec.encode(GroupPlan.empty(), context));
        assertEquals(GroupPlan.empty(), codec.decode(json("{'devices':[]}"), context));
    }

    @Test
    void refusesInconsistentPlans() {
        assertInvalid(() -> codec.decode(json("{'devices':[{'deviceId':'of:1','inPort':1,'outPorts':[1]}]}"),
                context), "devices[0]", "in port");
        assertInvalid(() -> codec.decode(json("{'devices':[{'deviceId':'of:1','inPort':1,'outPorts':[2]},"
                + "{'deviceId':'of:1','inPort':1,'outPorts':[3]}]}"), context), "more than once");
        assertInvalid(() -> codec.decode(json("{'devices':[{'deviceId':'of:1','inPort':'x','outPorts':[2]}]}"),
                context), "inPort", "integer");
        assertInvalid(() -> codec.decode(json("{'devices':[],'links':[{'src':{'device':'of:1','port':1}}]}"),
                context), "links[0].dst");
        assertInvalid(() -> codec.decode(json("{'device':[]}"), context), "unknown field \"device\"");
    }
}
