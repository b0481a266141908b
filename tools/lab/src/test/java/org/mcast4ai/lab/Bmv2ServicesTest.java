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
                } else if (c.startsWith("mc_")) {
                    out.add(pre(c));
                } else {
                    out.add("\n");
                }
            }
            return out;
        }

        // the packet replication engine: multicast groups of nodes, each a replica number and its ports
        final java.util.Map<Integer, List<Integer>> groups = new java.util.TreeMap<>();
        final java.util.Map<Integer, int[]> nodes = new java.util.TreeMap<>();
        // per command, the replicas each group delivered right after it: what a packet would have got
        final List<java.util.Map<Integer, java.util.Set<String>>> delivered = new ArrayList<>();

        private String pre(String c) {
            String[] w = c.split(" ");
            String out = "\n";
            switch (w[0]) {
                case "mc_mgrp_create":
                    groups.put(Integer.parseInt(w[1]), new ArrayList<>());
                    break;
                case "mc_node_create":
                    int[] n = new int[w.length - 1];
                    for (int i = 1; i < w.length; i++) {
                        n[i - 1] = Integer.parseInt(w[i]);
                    }
                    nodes.put(handles, n);
                    out = "node was created with handle " + handles++ + "\n";
                    break;
                case "mc_node_update":
                    int[] old = nodes.get(Integer.parseInt(w[1]));
                    int[] upd = new int[w.length - 1];
                    upd[0] = old[0];
                    for (int i = 2; i < w.length; i++) {
                        upd[i - 1] = Integer.parseInt(w[i]);
                    }
                    nodes.put(Integer.parseInt(w[1]), upd);
                    break;
                case "mc_node_associate":
                    groups.get(Integer.parseInt(w[1])).add(Integer.parseInt(w[2]));
                    break;
                case "mc_node_dissociate":
                    groups.get(Integer.parseInt(w[1])).remove(Integer.valueOf(w[2]));
                    break;
                case "mc_node_destroy":
                    nodes.remove(Integer.parseInt(w[1]));
                    break;
                case "mc_dump":
                    StringBuilder b = new StringBuilder("==========\nMC ENTRIES\n");
                    groups.forEach((g, hs) -> {
                        b.append("**********\nmgrp(").append(g).append(")\n");
                        for (int h : hs) {
                            int[] node = nodes.get(h);
                            StringBuilder ports = new StringBuilder();
                            for (int i = 1; i < node.length; i++) {
                                ports.append(i > 1 ? ", " : "").append(node[i]);
                            }
                            b.append("  -> (L1h=").append(h).append(", rid=").append(node[0])
                                    .append(") -> (ports=[").append(ports).append("], lags=[])\n");
                        }
                    });
                    return b.append("==========\nLAGS\n==========\n").toString();
                default:
                    throw new AssertionError("not a PRE command: " + c);
            }
            java.util.Map<Integer, java.util.Set<String>> now = new java.util.TreeMap<>();
            groups.forEach((g, hs) -> {
                java.util.Set<String> reps = new java.util.TreeSet<>();
                for (int h : hs) {
                    int[] node = nodes.get(h);
                    for (int i = 1; i < node.length; i++) {
                        reps.add(node[0] + "/" + node[i]);
                    }
                }
                now.put(g, reps);
            });
            delivered.add(now);
            return out;
        }
    }

    private static GroupBuckets buckets(int... ports) {
        List<org.onosproject.net.group.GroupBucket> b = new ArrayList<>();
        for (int p : ports) {
            b.add(DefaultGroupBucket.createAllGroupBucket(DefaultTrafficTreatment.builder().setOutput(
                    PortNumber.portNumber(p)).build()));
        }
        return new GroupBuckets(b);
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

    @Test
    void aChangedGroupKeepsDeliveringTheReplicasItKeeps() {
        Switch sw = new Switch();
        Bmv2GroupService s = new Bmv2GroupService(java.util.Map.of(LEAF, 9090), sw, Runnable::run);
        org.onosproject.net.group.GroupKey key = new org.onosproject.net.group.DefaultGroupKey(new byte[]{1});
        s.addGroup(new org.onosproject.net.group.DefaultGroupDescription(LEAF,
                org.onosproject.net.group.GroupDescription.Type.ALL, buckets(1, 2, 3), key, 9,
                new DefaultApplicationId(7, "org.mcast4ai.app")));
        assertEquals(java.util.Set.of("0/1", "0/2", "0/3"), sw.delivered.get(sw.delivered.size() - 1).get(9));
        // an uplink more, one fewer, a port twice (a second replica number)
        int from = sw.delivered.size();
        s.setBucketsForGroup(LEAF, key, buckets(2, 3, 4, 4), key, new DefaultApplicationId(7, "org.mcast4ai.app"));
        assertEquals(java.util.Set.of("0/2", "0/3", "0/4", "1/4"), sw.delivered.get(sw.delivered.size() - 1).get(9));
        for (java.util.Map<Integer, java.util.Set<String>> d : sw.delivered.subList(from, sw.delivered.size())) {
            assertTrue(d.get(9).containsAll(java.util.Set.of("0/2", "0/3")), "ports 2 and 3 never stop: " + d);
        }
        assertEquals(org.onosproject.net.group.Group.GroupState.ADDED, s.getGroup(LEAF, key).state());
        // the same replicas again: nothing written
        int before = sw.commands.size();
        s.setBucketsForGroup(LEAF, key, buckets(4, 2, 4, 3), key, new DefaultApplicationId(7, "org.mcast4ai.app"));
        assertEquals(List.of("mc_dump"), sw.commands.subList(before, sw.commands.size()));
    }
}
