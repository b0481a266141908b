package org.mcast4ai.lab;

import org.junit.jupiter.api.Test;
import org.mcast4ai.impl.p4.P4StampPlanner;
import org.onlab.packet.IpAddress;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.group.DefaultGroupBucket;
import org.onosproject.net.group.GroupBuckets;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The BMv2 stand-ins of ONOS's flow rule and group services: the CLI commands the app's PI entries become, in the
 * program's key and parameter order, and ONOS's states and answers (the switch itself: {@code demo --p4}).
 */
class Bmv2ServicesTest {
    private static final DeviceId LEAF = DeviceId.deviceId("device:leaf1");

    /** A switch's CLI that records the commands and answers as BMv2 does, or refuses every command. */
    private static final class Switch extends Bmv2Cli {
        final List<String> commands = new ArrayList<>();
        boolean refuse;
        int handles;

        @Override
        public List<String> run(int port, List<String> cmds) {
            List<String> out = new ArrayList<>();
            for (String c : cmds) {
                commands.add(c);
                if (refuse) {
                    out.add("Invalid table operation (DUPLICATE_ENTRY)\n");
                } else if (c.startsWith("table_add")) {
                    out.add("Adding entry\nEntry has been added with handle " + handles++ + "\n");
                } else if (c.startsWith("mc_node_create")) {
                    out.add("node was created with handle " + handles++ + "\n");
                } else {
                    out.add("\n");
                }
            }
            return out;
        }
    }

    private static FlowRule senderRule() {
        BitSet leaves = new BitSet();
        leaves.set(0);
        leaves.set(3);
        return P4StampPlanner.senderRule(new DefaultApplicationId(7, "org.mcast4ai.app"),
                new ConnectPoint(LEAF, PortNumber.portNumber(2)), IpAddress.valueOf("239.77.0.1"),
                new P4StampPlanner.Allowance(leaves, 0xC000000000000000L), 256);
    }

    private static AtomicReference<String> apply(Bmv2FlowRuleService s, FlowRuleOperations.Builder b) {
        AtomicReference<String> answer = new AtomicReference<>();
        s.apply(b.build(new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations ops) {
                answer.set("ok");
            }

            @Override
            public void onError(FlowRuleOperations ops) {
                answer.set("refused " + ops.stages().get(0).size());
            }
        }));
        return answer;
    }

    @Test
    void theProgramsKeyAndParameterOrderComeFromItsP4Info() throws Exception {
        P4InfoOrder o = P4InfoOrder.pipeconf();
        assertEquals(List.of("ingress_port", "dst"), o.fields("McastIngress.stamp_group"));
        assertEquals(List.of("leaves", "own"), o.params("McastIngress.allow"));
        assertEquals(List.of("group", "packet"), o.fields("McastEgress.stamp_hdr"));
    }

    @Test
    void anEntryIsWrittenInTheProgramsOrderListedAddedAndRemovedByItsHandle() throws Exception {
        Switch sw = new Switch();
        Bmv2FlowRuleService s = new Bmv2FlowRuleService(java.util.Map.of(LEAF, 9090), P4InfoOrder.pipeconf(), sw,
                Runnable::run);
        FlowRule r = senderRule();
        assertEquals("ok", apply(s, FlowRuleOperations.builder().add(r)).get());
        assertEquals("table_add McastIngress.sender McastIngress.allow 0x00000002 "
                + "0x00000000000000000000ffffef4d0001 => 0x9" + "0".repeat(63) + " 0xc000000000000000",
                sw.commands.get(0), "the port, the group as ::ffff:239.77.0.1; leaves 0 and 3, two own slots");
        FlowEntry e = s.getFlowEntries(LEAF).iterator().next();
        assertEquals(FlowEntry.FlowEntryState.ADDED, e.state());
        assertEquals(FlowEntry.FlowEntryState.ADDED, s.getFlowEntry(r).state(), "looked up by rule too");
        assertEquals("ok", apply(s, FlowRuleOperations.builder().remove(r)).get());
        assertEquals("table_delete McastIngress.sender 0", sw.commands.get(1));
        assertTrue(!s.getFlowEntries(LEAF).iterator().hasNext(), "nothing listed once removed");
    }

    @Test
    void aRefusedEntryFailsTheBatchAndIsListedFailed() throws Exception {
        Switch sw = new Switch();
        sw.refuse = true;
        Bmv2FlowRuleService s = new Bmv2FlowRuleService(java.util.Map.of(LEAF, 9090), P4InfoOrder.pipeconf(), sw,
                Runnable::run);
        assertEquals("refused 1", apply(s, FlowRuleOperations.builder().add(senderRule())).get());
        assertEquals(FlowEntry.FlowEntryState.FAILED, s.getFlowEntries(LEAF).iterator().next().state(),
                "ONOS lists what the switch refused FAILED, so the app writes it again");
    }

    @Test
    void aPortsReplicasAreNumberedByOccurrenceFromZero() {
        GroupBuckets b = new GroupBuckets(List.of(
                DefaultGroupBucket.createAllGroupBucket(DefaultTrafficTreatment.builder().setOutput(
                        PortNumber.portNumber(1)).build()),
                DefaultGroupBucket.createAllGroupBucket(DefaultTrafficTreatment.builder().setOutput(
                        PortNumber.portNumber(1)).build()),
                DefaultGroupBucket.createAllGroupBucket(DefaultTrafficTreatment.builder().setOutput(
                        PortNumber.portNumber(2)).build())));
        List<int[]> r = Bmv2GroupService.replicas(b);
        assertArrayEquals(new int[]{0, 1}, r.get(0));
        assertArrayEquals(new int[]{1, 1}, r.get(1));
        assertArrayEquals(new int[]{0, 2}, r.get(2));
    }
}
