package org.mcast4ai.impl;

import org.junit.jupiter.api.Test;
import org.mcast4ai.impl.p4.Mcast4aiPipeconf;
import org.mcast4ai.impl.p4.P4FabricManagerAccess;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.testing.FakePipeconfService;
import org.mcast4ai.testing.TestFabric;
import org.onosproject.net.flow.FlowRule;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The P4 switches' static state and the groups' entries share ONOS's flow rule service: the group manager's audit
 * and orphan sweep (which remove the app's rules no group needs) leave the static state alone.
 */
class P4StateBesideGroupsTest {

    @Test
    void theOrphanSweepLeavesTheP4StaticStateAlone() {
        ManagerHarness h = new ManagerHarness(TestFabric.leafSpine(), null, new FakeGroupService());
        h.flows.autoAck(true);
        FakePipeconfService pipeconfs = new FakePipeconfService();
        pipeconfs.bindToDevice(Mcast4aiPipeconf.ID, TestFabric.leaf(1));
        pipeconfs.bindToDevice(Mcast4aiPipeconf.ID, TestFabric.spine(1));
        P4FabricManagerAccess p4 = new P4FabricManagerAccess(h.fabric, h.flows, h.groups, pipeconfs);
        p4.run();
        List<FlowRule> before = h.flows.allRules();
        assertTrue(before.size() > 5, "static state written: " + before.size());
        h.restart(); // activation audits the records against the flow store and sweeps what no group needs
        // (the restarted manager adds its own OpenFlow static tables beside them)
        assertTrue(h.flows.allRules().stream().map(FlowRule::id).collect(Collectors.toSet())
                .containsAll(before.stream().map(FlowRule::id).collect(Collectors.toSet())), "P4 state kept");
        p4.stop();
    }
}
