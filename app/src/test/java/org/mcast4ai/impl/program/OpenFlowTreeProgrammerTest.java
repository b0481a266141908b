package org.mcast4ai.impl.program;

import org.mcast4ai.testing.TestFabric;
import com.google.common.collect.ImmutableSet;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.onlab.packet.IpAddress;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleServiceAdapter;
import org.onosproject.net.flow.instructions.Instruction;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tree rules' flow ids: ONOS keys stored flow entries by device and flow id, so a replacement and a
 * removal must carry the id of the rule they act on, and the application id must sit in the top 16 bits.
 */
class OpenFlowTreeProgrammerTest {
    private static final DefaultApplicationId APP = new DefaultApplicationId(7, "org.mcast4ai.app");
    private final OpenFlowTreeProgrammer programmer =
            new OpenFlowTreeProgrammer(new FlowRuleServiceAdapter(), APP, 0, d -> true);

    private static P2mpGroup group(String address) {
        P2mpGroupRequest r = P2mpGroupRequest.builder().key(GroupKey.of("t", "g")).jobId("j")
                .source(Endpoint.of(TestFabric.hostId(1, 1))).addReceiver(Endpoint.of(TestFabric.hostId(2, 1)))
                .build();
        return P2mpGroup.submitted(P2mpGroupId.of(1), r, IpAddress.valueOf(address), 0);
    }

    private static GroupPlan.Branch branch(long in, long... outs) {
        Set<PortNumber> o = new HashSet<>();
        for (long p : outs) {
            o.add(PortNumber.portNumber(p));
        }
        return new GroupPlan.Branch(PortNumber.portNumber(in), o);
    }

    @Test
    void theApplicationOwnsTheRules() {
        FlowRule r = programmer.rule(group("239.77.0.1"), TestFabric.leaf(1), branch(1, 3, 4));
        assertEquals(APP.id(), r.appId());
        assertEquals(APP.id(), (short) (r.id().value() >>> 48));
    }

    @Test
    void replacementsAndRemovalsCarryTheIdOfTheRuleTheyActOn() {
        P2mpGroup g = group("239.77.0.1");
        DeviceId leaf = TestFabric.leaf(1);
        FlowRule installed = programmer.rule(g, leaf, branch(1, 3, 4));
        FlowRule replacement = programmer.rule(g, leaf, branch(1, 3));
        FlowRule removal = programmer.removal(g, leaf, PortNumber.portNumber(1));
        assertEquals(installed.id(), replacement.id());
        assertEquals(installed.id(), removal.id());
        assertEquals(installed, removal, "ONOS matches a removal on device, table, priority and selector");
        assertTrue(removal.treatment().allInstructions().stream().noneMatch(i -> i.type() == Instruction.Type.OUTPUT),
                "a removal needs no actions");
    }

    @Test
    void differentMatchesGetDifferentIds() {
        Set<Long> ids = new HashSet<>();
        int rules = 0;
        for (int a = 1; a <= 64; a++) {
            P2mpGroup g = group("239.77.0." + a);
            for (DeviceId d : ImmutableSet.of(TestFabric.leaf(1), TestFabric.leaf(2), TestFabric.spine(1))) {
                for (long in = 1; in <= 8; in++) {
                    ids.add(programmer.rule(g, d, branch(in, 9)).id().value());
                    rules++;
                }
            }
        }
        assertEquals(rules, ids.size());
        assertNotEquals(programmer.rule(group("239.77.0.1"), TestFabric.leaf(1), branch(1, 2)).id(),
                new OpenFlowTreeProgrammer(new FlowRuleServiceAdapter(), APP, 5, d -> true)
                        .rule(group("239.77.0.1"), TestFabric.leaf(1), branch(1, 2)).id(),
                "the table is part of the match");
    }
}
