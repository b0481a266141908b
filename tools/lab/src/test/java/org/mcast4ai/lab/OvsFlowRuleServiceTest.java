package org.mcast4ai.lab;

import org.junit.jupiter.api.Test;
import org.onlab.packet.MacAddress;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.TrafficTreatment;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OvsFlowRuleServiceTest {

    private static final DeviceId LEAF = DeviceId.deviceId("of:0000000000000101");
    private static final DeviceId SPINE = DeviceId.deviceId("of:0000000000000201");

    private final LabFabric fabric = new LabFabric("t",
            List.of(new LabFabric.Switch("leaf1", "m4leaf1", "0000000000000101", LEAF.toString(), "LEAF"),
                    new LabFabric.Switch("spine1", "m4spine1", "0000000000000201", SPINE.toString(), "SPINE")),
            List.of(new LabFabric.Link(LEAF.toString(), 3, "m4leaf1", SPINE.toString(), 1, "m4spine1")),
            List.of());

    /** ovs-ofctl stand-in: records calls, refuses bundles for the bridges listed. */
    private static final class FakeOfctl implements Ofctl {
        final List<List<String>> calls = new ArrayList<>();
        final List<String> inputs = new ArrayList<>();
        Set<String> refuse = Set.of();
        Runnable afterFirst;

        @Override
        public Result run(List<String> args, String stdin) {
            calls.add(args);
            inputs.add(stdin);
            if (calls.size() == 1 && afterFirst != null) {
                afterFirst.run();
            }
            boolean bad = refuse.contains(args.get(2)) || stdin != null && stdin.contains("in_port=9,");
            return bad ? new Result(1, "", "Error OFPBAC_BAD_OUT_GROUP for: ...") : new Result(0, "", "");
        }
    }

    private static class Outcome implements FlowRuleOperationsContext {
        FlowRuleOperations ok;
        FlowRuleOperations failed;

        @Override
        public void onSuccess(FlowRuleOperations ops) {
            ok = ops;
        }

        @Override
        public void onError(FlowRuleOperations ops) {
            failed = ops;
        }
    }

    private static FlowRule rule(DeviceId d, int inPort, PortNumber... outs) {
        TrafficTreatment.Builder t = DefaultTrafficTreatment.builder();
        for (PortNumber o : outs) {
            t.setOutput(o);
        }
        return DefaultFlowRule.builder().forDevice(d).fromApp(new DefaultApplicationId(1, "t")).withPriority(100)
                .withSelector(DefaultTrafficSelector.builder().matchInPort(PortNumber.portNumber(inPort)).build())
                .withTreatment(t.build()).makePermanent().build();
    }

    @Test
    void oneBundlePerBridgePerStageAndSuccessAfterAllStages() {
        FakeOfctl ofctl = new FakeOfctl();
        OvsFlowRuleService service = new OvsFlowRuleService(fabric, ofctl, Runnable::run);
        Outcome outcome = new Outcome();
        FlowRule a = rule(LEAF, 1, PortNumber.portNumber(2), PortNumber.portNumber(3));
        FlowRule b = rule(LEAF, 2, PortNumber.portNumber(3));
        FlowRule c = rule(SPINE, 1, PortNumber.portNumber(2));
        service.apply(FlowRuleOperations.builder().add(a).add(b).add(c).newStage().remove(b).build(outcome));

        assertEquals(3, ofctl.calls.size(), "stage 1: leaf + spine, stage 2: leaf");
        assertEquals(List.of("--bundle", "add-flows", "m4leaf1", "-"), ofctl.calls.get(0).subList(0, 4));
        assertEquals(2, ofctl.inputs.get(0).lines().filter(l -> l.startsWith("add ")).count());
        assertTrue(ofctl.inputs.get(2).startsWith("delete_strict "), ofctl.inputs.get(2));
        assertTrue(outcome.ok != null && outcome.failed == null);
        assertEquals(Set.of(a.id()), collectIds(service.getFlowEntries(LEAF)));
    }

    @Test
    void refusedBundleFailsOnlyItsRulesAndStopsLaterStages() {
        FakeOfctl ofctl = new FakeOfctl();
        ofctl.refuse = Set.of("m4spine1");
        OvsFlowRuleService service = new OvsFlowRuleService(fabric, ofctl, Runnable::run);
        Outcome outcome = new Outcome();
        FlowRule a = rule(LEAF, 1, PortNumber.portNumber(3));
        FlowRule c = rule(SPINE, 1, PortNumber.portNumber(2));
        service.apply(FlowRuleOperations.builder().add(a).add(c).newStage()
                              .add(rule(LEAF, 2, PortNumber.portNumber(3))).build(outcome));

        assertNull(outcome.ok);
        assertEquals(Set.of(c), outcome.failed.stages().stream().flatMap(Set::stream)
                .map(FlowRuleOperation::rule).collect(Collectors.toSet()));
        assertEquals(2, ofctl.calls.size(), "the second stage is not sent");
        assertTrue(service.failure(c).orElseThrow().contains("OFPBAC_BAD_OUT_GROUP"));
        assertEquals(FlowEntry.FlowEntryState.FAILED, service.getFlowEntry(c).state());
        assertEquals(FlowEntry.FlowEntryState.ADDED, service.getFlowEntry(a).state());
    }

    @Test
    void untranslatableRuleIsRefusedWithoutCallingTheSwitch() {
        FakeOfctl ofctl = new FakeOfctl();
        OvsFlowRuleService service = new OvsFlowRuleService(fabric, ofctl, Runnable::run);
        Outcome outcome = new Outcome();
        FlowRule bad = DefaultFlowRule.builder().forDevice(LEAF).fromApp(new DefaultApplicationId(1, "t"))
                .withPriority(100).makePermanent()
                .withSelector(DefaultTrafficSelector.builder().matchEthDstMasked(
                        MacAddress.valueOf("01:00:5e:00:00:01"), MacAddress.valueOf("ff:ff:ff:00:00:00")).build())
                .withTreatment(DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).build())
                .build();
        service.apply(FlowRuleOperations.builder().add(bad).build(outcome));
        assertTrue(ofctl.calls.isEmpty());
        assertTrue(outcome.failed != null && outcome.ok == null);
        assertTrue(service.failure(bad).orElseThrow().contains("OFPBMC_BAD_WILDCARDS"));
    }

    /** Batches queued while the switch thread is busy, in order; the thread is released by the latch. */
    private static List<Outcome> queuedTogether(OvsFlowRuleService service, SwitchQueue queue,
                                                List<FlowRuleOperations.Builder> batches) throws Exception {
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        queue.execute(() -> {
            try {
                hold.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        List<Outcome> outcomes = new ArrayList<>();
        for (FlowRuleOperations.Builder b : batches) {
            Outcome o = new Outcome();
            outcomes.add(o);
            service.apply(b.build(o));
        }
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        queue.execute(done::countDown);
        hold.countDown();
        assertTrue(done.await(10, java.util.concurrent.TimeUnit.SECONDS));
        return outcomes;
    }

    @Test
    void queuedBatchesShareOneBundlePerBridgeAndStage() throws Exception {
        FakeOfctl ofctl = new FakeOfctl();
        SwitchQueue queue = new SwitchQueue("test-ovs", 512);
        OvsFlowRuleService service = new OvsFlowRuleService(fabric, ofctl, queue);
        List<FlowRuleOperations.Builder> batches = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            batches.add(FlowRuleOperations.builder().add(rule(LEAF, 10 + i, PortNumber.portNumber(3)))
                    .add(rule(SPINE, 10 + i, PortNumber.portNumber(2))).newStage()
                    .add(rule(LEAF, 20 + i, PortNumber.portNumber(3))));
        }
        List<Outcome> outcomes = queuedTogether(service, queue, batches);
        outcomes.forEach(o -> assertTrue(o.ok != null && o.failed == null));
        assertEquals(3, ofctl.calls.size(), "stage 1: leaf + spine, stage 2: leaf, for the three batches together");
        assertEquals(3, ofctl.inputs.get(0).lines().count(), ofctl.inputs.get(0));
        assertEquals(9, service.getFlowRuleCount());
        assertEquals(3, service.batchCount());
        queue.shutdown(1000);
    }

    @Test
    void aRuleRefusedInAJoinedBundleFailsOnlyItsBatch() throws Exception {
        FakeOfctl ofctl = new FakeOfctl();
        SwitchQueue queue = new SwitchQueue("test-ovs", 512);
        OvsFlowRuleService service = new OvsFlowRuleService(fabric, ofctl, queue);
        FlowRule bad = rule(LEAF, 9, PortNumber.portNumber(3));
        FlowRule later = rule(LEAF, 30, PortNumber.portNumber(3));
        List<Outcome> outcomes = queuedTogether(service, queue, List.of(
                FlowRuleOperations.builder().add(rule(LEAF, 1, PortNumber.portNumber(3))),
                FlowRuleOperations.builder().add(bad).newStage().add(later),
                FlowRuleOperations.builder().add(rule(LEAF, 2, PortNumber.portNumber(3)))
                        .add(rule(SPINE, 2, PortNumber.portNumber(1)))));
        assertTrue(outcomes.get(0).ok != null && outcomes.get(0).failed == null);
        assertTrue(outcomes.get(2).ok != null && outcomes.get(2).failed == null);
        assertNull(outcomes.get(1).ok);
        assertEquals(Set.of(bad), outcomes.get(1).failed.stages().stream().flatMap(Set::stream)
                .map(FlowRuleOperation::rule).collect(Collectors.toSet()));
        assertEquals(FlowEntry.FlowEntryState.FAILED, service.getFlowEntry(bad).state());
        assertNull(service.getFlowEntry(later), "the failed batch's next stage is not sent");
        assertEquals(3, service.getFlowRuleCount() - 1, "the other batches' rules are in (and the failed entry)");
        queue.shutdown(1000);
    }

    @Test
    void aBatchQueuedWhileAnotherRunsJoinsItsNextStageUnlessItTouchesARuleOfALaterStage() throws Exception {
        FakeOfctl ofctl = new FakeOfctl();
        SwitchQueue queue = new SwitchQueue("test-ovs", 512);
        OvsFlowRuleService service = new OvsFlowRuleService(fabric, ofctl, queue);
        List<String> answered = new java.util.concurrent.CopyOnWriteArrayList<>();
        class Named extends Outcome {
            final String name;

            Named(String name) {
                this.name = name;
            }

            @Override
            public void onSuccess(FlowRuleOperations ops) {
                super.onSuccess(ops);
                answered.add(name);
            }
        }
        // queued while the three-stage batch's first stage is on the switch, and then the end of the test
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        ofctl.afterFirst = () -> {
            service.apply(FlowRuleOperations.builder().add(rule(LEAF, 50, PortNumber.portNumber(3)))
                    .build(new Named("late")));
            service.apply(FlowRuleOperations.builder().add(rule(LEAF, 43, PortNumber.portNumber(2)))
                    .build(new Named("same rule as stage 3")));
            queue.execute(done::countDown);
        };
        service.apply(FlowRuleOperations.builder().add(rule(LEAF, 41, PortNumber.portNumber(3))).newStage()
                .add(rule(LEAF, 42, PortNumber.portNumber(3))).newStage()
                .add(rule(LEAF, 43, PortNumber.portNumber(3))).build(new Named("three stages")));
        assertTrue(done.await(10, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(List.of("late", "three stages", "same rule as stage 3"), answered,
                "the late batch rides the second stage and is answered at once; the other waits its turn");
        assertTrue(ofctl.inputs.get(1).contains("in_port=42") && ofctl.inputs.get(1).contains("in_port=50"),
                ofctl.inputs.get(1));
        assertEquals(4, ofctl.calls.size(), "three stages, the late batch inside the second, then the other");
        assertTrue(service.getFlowEntry(rule(LEAF, 43, PortNumber.portNumber(2))).treatment().toString()
                .contains("OUTPUT:2"), "the batch queued after the rule's last writer wins");
        queue.shutdown(1000);
    }

    @Test
    void theAuditReadsBesideTheBatchesAndLeavesOutWhatTheyWroteMeanwhile() throws Exception {
        java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<String> writes = java.util.Collections.synchronizedList(new ArrayList<>());
        boolean[] slow = {true};
        Ofctl ofctl = (args, stdin) -> {
            if (args.get(0).equals("dump-flows")) {
                if (slow[0] && args.get(1).equals("m4leaf1")) {
                    reading.countDown();
                    try {
                        release.await(30, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return new Ofctl.Result(0, "", ""); // the switch holds nothing
            }
            writes.add(stdin);
            return new Ofctl.Result(0, "", "");
        };
        SwitchQueue queue = new SwitchQueue("test-ovs", 512);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newCachedThreadPool();
        OvsFlowRuleService service = new OvsFlowRuleService(fabric, ofctl, queue, pool);
        Thread audit = new Thread(service::audit);
        audit.start();
        assertTrue(reading.await(10, java.util.concurrent.TimeUnit.SECONDS));

        // a batch while the leaf is being read: acknowledged without waiting for the read
        Outcome outcome = new Outcome();
        FlowRule r = rule(LEAF, 1, PortNumber.portNumber(3));
        service.apply(FlowRuleOperations.builder().add(r).build(outcome));
        long deadline = System.currentTimeMillis() + 3_000;
        while (outcome.ok == null && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(outcome.ok != null, "the batch waited for the audit's read");

        // the read predates the rule: not taken for a rule the switch lost
        release.countDown();
        audit.join(10_000);
        java.util.concurrent.CountDownLatch compared = new java.util.concurrent.CountDownLatch(1);
        queue.execute(compared::countDown);
        assertTrue(compared.await(10, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, service.reinstalledCount());
        assertEquals(1, writes.size(), writes.toString());

        // a read that begins after the write and still lacks it: the switch lost it, it goes again
        slow[0] = false;
        service.audit();
        java.util.concurrent.CountDownLatch again = new java.util.concurrent.CountDownLatch(1);
        queue.execute(again::countDown);
        assertTrue(again.await(10, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(1, service.reinstalledCount());
        assertEquals(2, writes.size());
        queue.shutdown(1000);
        pool.shutdownNow();
    }

    private static Set<Object> collectIds(Iterable<FlowEntry> entries) {
        Set<Object> ids = new java.util.HashSet<>();
        entries.forEach(e -> ids.add(e.id()));
        return ids;
    }
}
