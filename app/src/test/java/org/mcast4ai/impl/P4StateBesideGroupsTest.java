package org.mcast4ai.impl;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.impl.p4.Mcast4aiPipeconf;
import org.mcast4ai.impl.p4.P4EdgePlanner;
import org.mcast4ai.impl.p4.P4FabricManagerAccess;
import org.mcast4ai.impl.p4.P4SubsetPlanner;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.testing.FakePipeconfService;
import org.mcast4ai.testing.TestFabric;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The P4 switches' static state and the groups' entries share ONOS's flow rule service: the group manager's audit
 * and orphan sweep (which remove the app's rules no group needs) leave the static state alone.
 */
class P4StateBesideGroupsTest {
    private final ManagerHarness h = new ManagerHarness(TestFabric.leafSpine(), null, new FakeGroupService());

    // the P4 fabric loop beside the group manager, on the same services, these switches bound to the pipeconf
    private P4FabricManagerAccess p4(DeviceId... p4Switches) {
        h.flows.autoAck(true);
        FakePipeconfService pipeconfs = new FakePipeconfService();
        for (DeviceId d : p4Switches) {
            pipeconfs.bindToDevice(Mcast4aiPipeconf.ID, d);
        }
        return new P4FabricManagerAccess(h.fabric, h.flows, h.groups, pipeconfs);
    }

    @Test
    void theOrphanSweepLeavesTheP4StaticStateAlone() {
        P4FabricManagerAccess p4 = p4(TestFabric.leaf(1), TestFabric.spine(1));
        p4.run();
        List<FlowRule> before = h.flows.allRules();
        assertTrue(before.size() > 5, "static state written: " + before.size());
        h.restart(); // activation audits the records against the flow store and sweeps what no group needs
        // (the restarted manager adds its own OpenFlow static tables beside them)
        assertTrue(h.flows.allRules().stream().map(FlowRule::id).collect(Collectors.toSet())
                .containsAll(before.stream().map(FlowRule::id).collect(Collectors.toSet())), "P4 state kept");
        p4.stop();
    }

    @Test
    void aReliableGroupsReceiversOnAP4LeafGetTheirRewritesUntilItGoes() {
        P4FabricManagerAccess p4 = p4(TestFabric.leaf(2));
        h.manager.bindP4Fabric(p4.manager());
        P2mpGroup g = h.manager.submit(P2mpGroupRequest.builder().key(GroupKey.of("t", "rc"))
                .source(Endpoint.of(TestFabric.hostId(1, 1), 51)).reliability(Reliability.ACK_AGGREGATION)
                .addReceiver(Endpoint.of(TestFabric.hostId(2, 1), 18))
                .addReceiver(Endpoint.of(TestFabric.hostId(3, 1), 19)).build());
        p4.run();
        List<FlowRule> rewrites = rewrites();
        assertEquals(1, rewrites.size(), "the receiver on the P4 leaf, not the one on the OpenFlow leaf");
        AggregationContext c = h.manager.getAggregation(g.id()).orElseThrow();
        AggregationContext.Member r = c.receivers().stream()
                .filter(m -> m.host().equals(TestFabric.hostId(2, 1))).findFirst().orElseThrow();
        assertEquals(TestFabric.leaf(2), rewrites.get(0).deviceId());
        PiAction a = (PiAction) ((PiInstruction) rewrites.get(0).treatment().allInstructions().get(0)).action();
        Map<String, byte[]> p = new HashMap<>();
        a.parameters().forEach(x -> p.put(x.id().id(), x.value().asArray()));
        assertArrayEquals(r.ip().toOctets(), p.get("ip"));
        assertArrayEquals(r.mac().toBytes(), p.get("mac"));
        assertArrayEquals(c.peer().address().toOctets(), p.get("vp"));
        assertEquals(r.qpn(), new BigInteger(1, p.get("qpn")).intValue());
        h.manager.withdraw(g.id());
        h.flows.ackAll();
        p4.run();
        assertEquals(List.of(), rewrites(), "gone with its group");
        p4.stop();
    }

    @Test
    void theGroupsEventsBringTheRewritesWithoutWaitingForTheAudit() throws InterruptedException {
        P4FabricManagerAccess p4 = p4(TestFabric.leaf(2));
        h.manager.bindP4Fabric(p4.manager());
        // the run at activation is done (the static state is there) before the group comes
        assertTrue(within(() -> h.flows.rulesOn(TestFabric.leaf(2)).size() > 100), "static state written");
        Thread.sleep(50);
        P2mpGroup g = h.manager.submit(P2mpGroupRequest.builder().key(GroupKey.of("t", "events"))
                .source(Endpoint.of(TestFabric.hostId(1, 1), 51)).reliability(Reliability.ACK_AGGREGATION)
                .addReceiver(Endpoint.of(TestFabric.hostId(2, 2), 18)).build());
        // the loop's audit is an hour away: only the group's event can bring the entry
        assertTrue(within(() -> rewrites().size() == 1), "rewrite written on the group's event");
        h.manager.withdraw(g.id());
        h.flows.ackAll();
        assertTrue(within(() -> rewrites().isEmpty()), "rewrite removed on the group's event");
        p4.stop();
    }

    @Test
    void aGroupsSenderOnAP4LeafGetsItsSubsetEntryUntilItGoes() {
        P4FabricManagerAccess p4 = p4(TestFabric.leaf(1));
        h.manager.bindP4Fabric(p4.manager());
        P2mpGroup g = h.manager.submit(P2mpGroupRequest.builder().key(GroupKey.of("t", "moe"))
                .source(Endpoint.of(TestFabric.hostId(1, 1)))
                .addReceiver(Endpoint.of(TestFabric.hostId(1, 2)))
                .addReceiver(Endpoint.of(TestFabric.hostId(2, 1)))
                .addReceiver(Endpoint.of(TestFabric.hostId(3, 2))).build());
        p4.run();
        List<FlowRule> entries = rules(P4SubsetPlanner.SUBSET);
        assertEquals(1, entries.size(), "one entry, on the sender's leaf");
        FlowRule e = entries.get(0);
        assertEquals(TestFabric.leaf(1), e.deviceId());
        P4FabricManagerAccess.checkAgainstP4Info(e);
        PiCriterion key = (PiCriterion) e.selector().criteria().iterator().next();
        Map<String, byte[]> k = new HashMap<>();
        key.fieldMatches().forEach(m -> k.put(m.fieldId().id(), ((PiExactFieldMatch) m).value().asArray()));
        long senderPort = h.fabric.hosts.getHost(HostId.hostId(TestFabric.hostId(1, 1))).location().port()
                .toLong();
        assertEquals(senderPort, new BigInteger(1, k.get("ingress_port")).longValue(), "keyed by the sender's port");
        assertEquals(P4SubsetPlanner.DEFAULT_PREFIX, new BigInteger(1, k.get("prefix")).intValue());
        assertEquals(g.id().value(), new BigInteger(1, k.get("group")).longValue());
        PiAction a = (PiAction) ((PiInstruction) e.treatment().allInstructions().get(0)).action();
        Map<String, byte[]> p = new HashMap<>();
        a.parameters().forEach(x -> p.put(x.id().id(), x.value().asArray()));
        assertEquals(3, new BigInteger(1, p.get("members")).intValue(), "the three receivers, not the sender");
        assertArrayEquals(P4SubsetPlanner.copyAddress(g.address()), p.get("group"));
        // the ranks are the receivers' P4 bit indices in ascending order
        BigInteger lo = new BigInteger(1, p.get("lo"));
        int previous = -1;
        for (int r = 0; r < 3; r++) {
            int bit = lo.shiftRight(16 * r).intValue() & 0xFFFF;
            assertTrue(bit > previous, "rank " + r + " after rank " + (r - 1));
            previous = bit;
        }
        assertEquals(0, lo.shiftRight(48).signum(), "nothing beyond the members");
        h.manager.withdraw(g.id());
        h.flows.ackAll();
        p4.run();
        assertEquals(List.of(), rules(P4SubsetPlanner.SUBSET), "gone with its group");
        p4.stop();
    }

    private List<FlowRule> rules(String table) {
        return h.flows.allRules().stream()
                .filter(f -> f.table().equals(PiTableId.of(table))).collect(Collectors.toList());
    }

    private static boolean within(java.util.function.BooleanSupplier done) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (done.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return done.getAsBoolean();
    }

    private List<FlowRule> rewrites() {
        return h.flows.allRules().stream()
                .filter(f -> f.table().equals(PiTableId.of(P4EdgePlanner.REWRITE4))).collect(Collectors.toList());
    }
}
