package org.mcast4ai.lab;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.onlab.packet.Ethernet;
import org.onlab.packet.IpPrefix;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.TrafficTreatment;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The lab's flow service repairs a flow deleted around it as soon as its bridge reports the removal, the way ONOS's
 * FlowRuleManager re-applies a flow on FLOW_REMOVED, with no audit running; it leaves alone the flows it removed
 * itself and does not echo its own re-adds; over {@code ovs-ofctl} processes, which hear nothing, the flow stays
 * missing.
 */
@Tag("ovs")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FlowRemovalOvsTest {
    private static final String BRIDGE = "e4rem1";
    private static final DeviceId DEV = DeviceId.deviceId("of:00000000000000e7");
    private static final LabFabric FABRIC = new LabFabric("removal",
            List.of(new LabFabric.Switch("s1", BRIDGE, "00000000000000e7", DEV.toString(), "LEAF")),
            List.of(), List.of());

    private OvsOpenFlow openFlow;
    private SwitchQueue queue;

    @BeforeAll
    void up() {
        assumeTrue(LabHarness.isRoot(), "the Open vSwitch lab needs root");
        assumeTrue(LabHarness.ovsRunning(), "Open vSwitch is not running");
        LabHarness.Run r = LabHarness.run(List.of("ovs-vsctl", "--may-exist", "add-br", BRIDGE, "--", "set",
                "bridge", BRIDGE, "datapath_type=netdev", "fail_mode=secure",
                "protocols=OpenFlow13,OpenFlow14,OpenFlow15"), 30);
        assertEquals(0, r.code, r.out);
    }

    @BeforeEach
    void fresh() {
        ofctl("del-flows", BRIDGE);
        ofctl("del-groups", BRIDGE);
        openFlow = new OvsOpenFlow();
        queue = new SwitchQueue("removal-test", 16);
    }

    @AfterEach
    void close() {
        openFlow.close();
        queue.shutdown(1000);
    }

    @AfterAll
    void down() {
        LabHarness.run(List.of("ovs-vsctl", "--if-exists", "del-br", BRIDGE), 30);
    }

    private static void ofctl(String... args) {
        List<String> cmd = new java.util.ArrayList<>(List.of("ovs-ofctl", "-O", "OpenFlow13"));
        cmd.addAll(List.of(args));
        LabHarness.Run r = LabHarness.run(cmd, 30);
        assertEquals(0, r.code, r.out);
    }

    private static FlowRule rule(int n, TrafficTreatment t) {
        return DefaultFlowRule.builder().forDevice(DEV).withPriority(1000 + n)
                .withSelector(DefaultTrafficSelector.builder().matchEthType(Ethernet.TYPE_IPV4)
                        .matchIPDst(IpPrefix.valueOf("239.9.0." + n + "/32")).build())
                .withTreatment(t).fromApp(new DefaultApplicationId(7, "test")).makePermanent().build();
    }

    private static FlowRule rule(int n) {
        return rule(n, DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(n)).build());
    }

    private static void applied(OvsFlowRuleService service, FlowRuleOperations.Builder ops) throws Exception {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        service.apply(ops.build(new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations o) {
                done.complete(true);
            }

            @Override
            public void onError(FlowRuleOperations o) {
                done.complete(false);
            }
        }));
        assertTrue(done.get(15, TimeUnit.SECONDS), "the batch was refused");
    }

    private static boolean holds(FlowRule r) {
        return LabHarness.flows(BRIDGE).stream().anyMatch(l -> l.contains("cookie=0x" + Long.toHexString(r.id().value())
                + ","));
    }

    // polls the bridge until it holds (or lacks) a flow; returns the milliseconds that took, or -1
    private static long until(FlowRule r, boolean held, long timeoutMs) throws InterruptedException {
        long start = System.nanoTime();
        while ((System.nanoTime() - start) / 1_000_000 < timeoutMs) {
            if (holds(r) == held) {
                return (System.nanoTime() - start) / 1_000_000;
            }
            Thread.sleep(5);
        }
        return -1;
    }

    @Test
    void aFlowDeletedAroundTheLabIsBackAtOnce() throws Exception {
        OvsFlowRuleService service = new OvsFlowRuleService(FABRIC, openFlow, queue);
        FlowRule a = rule(1);
        FlowRule b = rule(2);
        applied(service, FlowRuleOperations.builder().add(a).add(b));
        ofctl("del-flows", BRIDGE, "ip,nw_dst=239.9.0.1");
        long back = until(a, true, 3000);
        assertTrue(back >= 0, "the deleted flow was not applied again");
        assertEquals(1, service.reappliedCount());
        System.out.println("flow-removed: deleted flow back on the bridge in " + back + " ms (no audit running)");

        // the lab's own removal, and the same flow added again over an existing one, are not echoed
        applied(service, FlowRuleOperations.builder().remove(b));
        applied(service, FlowRuleOperations.builder().add(a));
        Thread.sleep(300);
        assertTrue(!holds(b), "a flow the lab removed came back");
        assertEquals(1, service.reappliedCount());

        // a whole table deleted: every flow back, in one repair
        FlowRule c = rule(3);
        applied(service, FlowRuleOperations.builder().add(b).add(c));
        ofctl("del-flows", BRIDGE);
        assertTrue(until(a, true, 3000) >= 0 && until(b, true, 3000) >= 0 && until(c, true, 3000) >= 0,
                LabHarness.flows(BRIDGE).toString());
        assertEquals(4, service.reappliedCount());
    }

    @Test
    void aFlowWhoseGroupIsGoneWaitsWhileTheOthersAreBack() throws Exception {
        OvsFlowRuleService service = new OvsFlowRuleService(FABRIC, openFlow, queue);
        ofctl("add-group", BRIDGE, "group_id=5,type=all,bucket=actions=output:1");
        FlowRule viaGroup = rule(4, DefaultTrafficTreatment.builder().group(GroupId.valueOf(5)).build());
        FlowRule plain = rule(5);
        applied(service, FlowRuleOperations.builder().add(viaGroup).add(plain));
        ofctl("del-flows", BRIDGE);
        ofctl("del-groups", BRIDGE);
        assertTrue(until(plain, true, 3000) >= 0, "the flow without a group was not applied again");
        assertTrue(!holds(viaGroup), "a flow pointing to a deleted group is on the bridge");
    }

    @Test
    void overOvsOfctlProcessesNothingIsHeardAndTheFlowStaysMissing() throws Exception {
        OvsFlowRuleService service = new OvsFlowRuleService(FABRIC, Ofctl.process(), queue);
        FlowRule a = rule(6);
        applied(service, FlowRuleOperations.builder().add(a));
        ofctl("del-flows", BRIDGE);
        assertEquals(-1, until(a, true, 500));
        assertEquals(0, service.reappliedCount());
    }
}
