package org.mcast4ai.impl.bitmap;

import org.mcast4ai.impl.program.Move;
import org.mcast4ai.impl.program.Programmer;
import org.mcast4ai.testing.FakeFlowRuleService;
import org.mcast4ai.testing.FakeGroupService;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;
import org.onlab.packet.IpAddress;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpenFlowBitmapProgrammerTest {
    private final DefaultApplicationId appId = new DefaultApplicationId(9, "org.mcast4ai");
    // a switch refuses a rule naming a group it does not hold
    private final FakeFlowRuleService flows = new FakeFlowRuleService().groupsFrom((d, g) -> groups().holds(d, g));
    private final FakeGroupService groups = pendingGroups();

    private FakeGroupService groups() {
        return groups;
    }
    private final OpenFlowBitmapProgrammer programmer = new OpenFlowBitmapProgrammer(flows, groups, appId, 0,
            BitmapPlanner.DEFAULT_CHAIN_BASE);

    /** Groups stay PENDING_ADD until the test says the switch added them (as ONOS's statistics poll does). */
    private static FakeGroupService pendingGroups() {
        FakeGroupService g = new FakeGroupService();
        g.confirm = false;
        return g;
    }

    private static List<FlowRule> of(List<FlowRuleOperations> all, FlowRuleOperation.Type type) {
        return all.stream().flatMap(o -> of(o, type).stream()).collect(Collectors.toList());
    }

    private static List<FlowRule> of(FlowRuleOperations ops, FlowRuleOperation.Type type) {
        return ops.stages().stream().flatMap(Set::stream).filter(o -> o.type() == type)
                .map(FlowRuleOperation::rule).collect(Collectors.toList());
    }

    @Test
    void theFirstSyncSendsEveryRuleAtOnceAndIsInPlaceOnceTheRulesAreAcknowledged() throws Exception {
        BitmapLayout layout = BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 2));
        CompletableFuture<Void> done = programmer.applyStatic(layout);
        assertEquals(8, groups.groups.size(), "one egress group per host port");
        // after a restart the switches hold groups and rules already: the rules reach the store before ONOS's
        // first flow poll would remove them as extraneous
        assertEquals(6, flows.batches().size(), "one batch per switch, at once");
        assertEquals(4 * 55 + 2 * 16, of(flows.batches(), FlowRuleOperation.Type.ADD).size());
        assertFalse(done.isDone(), "not in place before the switches acknowledged the rules");
        // the rules naming the egress groups were accepted, so the switches hold the groups: ONOS's poll that
        // reports them ADDED (10 s) is not waited for
        flows.ackPending();
        done.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(groups.groups.values().stream().allMatch(g -> g.state() == Group.GroupState.PENDING_ADD));
        assertEquals(programmer.planner().staticEntries(layout).keySet(), programmer.installedStatic().keySet());

        // the same fabric again: nothing to send
        programmer.applyStatic(layout).get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(6, flows.batches().size());
    }

    /** The static tables of a 2-spine, 4-leaf fabric, acknowledged by every switch. */
    private BitmapLayout installed(OpenFlowBitmapProgrammer p) throws Exception {
        BitmapLayout layout = BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 2));
        CompletableFuture<Void> first = p.applyStatic(layout);
        groups.answer(GroupEvent.Type.GROUP_ADDED);
        flows.ackPending();
        first.get(5, java.util.concurrent.TimeUnit.SECONDS);
        return layout;
    }

    @Test
    void theLayoutInPlaceIsTheLastOneEverySwitchAcknowledged() throws Exception {
        assertEquals(null, programmer.layoutInPlace());
        BitmapLayout first = installed(programmer);
        assertEquals(first, programmer.layoutInPlace());
        // a link back, a spine more: the current layout uses it at once, the switches only once they acknowledge
        BitmapLayout more = BitmapLayout.of(BitmapFabrics.leafSpine(3, 4, 2));
        CompletableFuture<Void> done = programmer.applyStatic(more);
        assertEquals(first, programmer.layoutInPlace(), "the packets still follow the tables the switches hold");
        for (int i = 0; i < 4 && !done.isDone(); i++) {
            groups.answer(GroupEvent.Type.GROUP_ADDED);
            flows.ackPending();
        }
        done.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(more, programmer.layoutInPlace());
        programmer.removeStatic();
        for (int i = 0; i < 4 && programmer.layoutInPlace() != null; i++) {
            groups.answer(GroupEvent.Type.GROUP_REMOVED);
            flows.ackPending();
        }
        assertEquals(null, programmer.layoutInPlace(), "no tables, nothing followed");
    }

    @Test
    void onceRecordedANewEgressGroupGoesJustBeforeTheRulesThatNameIt() throws Exception {
        installed(programmer);
        BitmapLayout more = BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 3));
        int sent = flows.batches().size();
        int groupsBefore = groups.added.size();
        CompletableFuture<Void> done = programmer.applyStatic(more);
        Set<DeviceId> withNewGroups = new java.util.HashSet<>();
        programmer.planner().staticEntries(more).forEach((d, e) -> {
            if (e.groups().size() > 2) {
                withNewGroups.add(d);
            }
        });
        assertFalse(withNewGroups.isEmpty());
        assertEquals(withNewGroups.size(), groups.added.size() - groupsBefore, "one new egress group per leaf");
        // the leaves' rules follow their new groups without waiting for ONOS's poll to report them ADDED
        assertTrue(flows.batches().subList(sent, flows.batches().size()).stream()
                .flatMap(o -> o.stages().stream()).flatMap(Set::stream)
                .anyMatch(op -> withNewGroups.contains(op.rule().deviceId())), "the leaves' rules");
        int firstRound = flows.batches().size();
        // accepted: a switch refuses a rule naming a group it lacks (the flow double does too)
        flows.ackPending();
        // the new bits' up rules point at spines that add rules of their own: they follow the acknowledgement
        assertTrue(flows.batches().size() > firstRound, "the up rules for the new bits go after the first round");
        flows.ackPending();
        done.get(5, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void aGroupWhoseBucketsDifferIsSetAgain() throws Exception {
        BitmapLayout layout = installed(programmer);
        DeviceId leaf1 = DeviceId.deviceId(BitmapFabrics.leaf(1));
        // an egress group in ONOS's store has other buckets (changed around the app): the sync sets them again, and
        // sends the leaf's rules once ONOS reports the update
        String key = groups.groups.keySet().stream().filter(k -> k.startsWith(leaf1 + "|")).findFirst().orElseThrow();
        org.onosproject.net.group.DefaultGroup g = groups.groups.get(key);
        groups.groups.put(key, new org.onosproject.net.group.DefaultGroup(g.id(),
                new org.onosproject.net.group.DefaultGroupDescription(g.deviceId(), g.type(),
                        new org.onosproject.net.group.GroupBuckets(List.of(
                                org.onosproject.net.group.DefaultGroupBucket.createIndirectGroupBucket(
                                        org.onosproject.net.flow.DefaultTrafficTreatment.builder()
                                                .setOutput(org.onosproject.net.PortNumber.portNumber(99)).build()))),
                        g.appCookie(), g.givenGroupId(),
                        g.appId())));
        programmer.deviceReturned(leaf1);
        CompletableFuture<Void> again = programmer.applyStatic(layout);
        assertEquals(1, groups.modified.size(), "its buckets set again");
        flows.ackPending();
        again.get(5, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void aSwitchThatComesBackGetsItsStaticTablesAgain() throws Exception {
        BitmapLayout layout = installed(programmer);
        DeviceId leaf1 = DeviceId.deviceId(BitmapFabrics.leaf(1));
        int leaf1Rules = programmer.planner().staticEntries(layout).get(leaf1).rules().size();

        // ONOS's stores still list the rules of a switch that restarted: the record is not proof it holds them
        programmer.deviceReturned(leaf1);
        int sent = flows.batches().size();
        CompletableFuture<Void> again = programmer.applyStatic(layout);
        List<FlowRuleOperations> resent = flows.batches().subList(sent, flows.batches().size());
        assertEquals(List.of(leaf1), resent.stream().flatMap(o -> o.stages().stream()).flatMap(Set::stream)
                .map(op -> op.rule().deviceId()).distinct().collect(Collectors.toList()));
        assertEquals(leaf1Rules, of(resent, FlowRuleOperation.Type.ADD).size());
        assertFalse(again.isDone(), "in place only when the returned switch acknowledged");
        flows.ackPending();
        again.get(5, java.util.concurrent.TimeUnit.SECONDS);
        programmer.applyStatic(layout).get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(sent + 1, flows.batches().size(), "acknowledged: nothing more to send");
    }

    @Test
    void aSwitchLeftOutWhileDisconnectedGetsEverythingWhenBack() throws Exception {
        Set<DeviceId> down = new java.util.HashSet<>();
        OpenFlowBitmapProgrammer p = new OpenFlowBitmapProgrammer(flows, groups, appId, 0,
                BitmapPlanner.DEFAULT_CHAIN_BASE, d -> !down.contains(d));
        BitmapLayout layout = installed(p);
        DeviceId leaf2 = DeviceId.deviceId(BitmapFabrics.leaf(2));
        down.add(leaf2);
        p.applyStatic(layout).get(5, java.util.concurrent.TimeUnit.SECONDS);
        down.clear();
        int sent = flows.batches().size();
        CompletableFuture<Void> back = p.applyStatic(layout);
        assertEquals(p.planner().staticEntries(layout).get(leaf2).rules().size(),
                of(flows.batches().subList(sent, flows.batches().size()), FlowRuleOperation.Type.ADD).size(),
                "a sync that left the switch out does not vouch for what it holds");
        flows.ackPending();
        back.get(5, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void aTopologyChangeSendsOnlyTheDifference() throws Exception {
        installed(programmer);
        // the last host leaves: its bit disappears, nobody else's bit changes
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        FabricSnapshot full = BitmapFabrics.leafSpine(2, 4, 2);
        for (int s = 0; s < full.switchCount(); s++) {
            b.addSwitch(full.switchName(s), full.role(s) == Role.LEAF ? Role.LEAF : Role.SPINE);
            for (int e = full.linkStart(s); e < full.linkStart(s + 1); e++) {
                b.addLink(full.switchName(s), full.linkFromPort(e), full.switchName(full.linkTo(e)),
                        full.linkToPort(e));
            }
        }
        for (int h = 0; h < full.hostCount() - 1; h++) {
            b.addHost(full.hostName(h), full.switchName(full.hostSwitch(h)), full.hostPort(h));
        }
        int sent = flows.batches().size();
        CompletableFuture<Void> second = programmer.applyStatic(BitmapLayout.of(b.build()));
        List<FlowRuleOperations> diff = flows.batches().subList(sent, flows.batches().size());
        assertEquals(6, diff.size(), "no new group to wait for: a batch for every switch with a change");
        List<FlowRule> removed = of(diff, FlowRuleOperation.Type.REMOVE);
        List<FlowRule> added = of(diff, FlowRuleOperation.Type.ADD);
        // per other leaf: bit 7 in the up table for each of 8 spread slots; per spine: bit 7 in leaf 4's table;
        // on leaf 4: port 2's table (bit rule and default)
        assertEquals(3 * 8 + 2 + 2, removed.size(), removed.toString());
        assertTrue(added.stream().allMatch(r -> r.deviceId().equals(DeviceId.deviceId(BitmapFabrics.leaf(4)))),
                "only leaf 4's port-1 table changes (it becomes the last): " + added);
        flows.ackPending();
        second.get(5, java.util.concurrent.TimeUnit.SECONDS);
        // the port may get a host back; ONOS ignores an add for a key still PENDING_DELETE
        assertTrue(groups.removed.isEmpty(), "an egress group stays while its switch has static entries");
        int groupsAdded = groups.added.size();
        CompletableFuture<Void> back = programmer.applyStatic(BitmapLayout.of(full));
        flows.ackPending();
        // the others' up rules for its bit follow the spines' rules that carry it down
        assertFalse(back.isDone());
        flows.ackPending();
        back.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(groupsAdded, groups.added.size(), "the host back: its port's group is there already");
    }

    /** The lab's 2-spine, 4-leaf fabric without the link between leaf 1 and spine 2. */
    private static FabricSnapshot withoutLeaf1Spine2() {
        String leaf = BitmapFabrics.leaf(1);
        String spine = BitmapFabrics.spine(2);
        return org.mcast4ai.engine.FabricGenerators.withoutLinks(BitmapFabrics.leafSpine(2, 4, 2),
                (from, to) -> from.equals(leaf) && to.equals(spine) || from.equals(spine) && to.equals(leaf));
    }

    private List<FlowRule> upRules(List<FlowRuleOperations> batches) {
        return of(batches, FlowRuleOperation.Type.ADD).stream()
                .filter(r -> r.tableId() == BitmapPlanner.DEFAULT_CHAIN_BASE && r.treatment().allInstructions()
                        .stream().anyMatch(i -> i.type() == Instruction.Type.OUTPUT))
                .collect(Collectors.toList());
    }

    @Test
    void aLinkBackGetsItsForwardingBeforeTheSlotsMoveOntoItAndALinkGoneMovesThemAtOnce() throws Exception {
        installed(programmer);
        // the link fails: the slots that used it move to spine 1, which forwards everything already
        int sent = flows.batches().size();
        CompletableFuture<Void> cut = programmer.applyStatic(BitmapLayout.of(withoutLeaf1Spine2()));
        assertFalse(upRules(flows.batches().subList(sent, flows.batches().size())).isEmpty(),
                "slots move off the failed link in the first round");
        flows.ackPending();
        cut.get(5, java.util.concurrent.TimeUnit.SECONDS);

        // the link is back: spine 2's rules towards leaf 1 and leaf 1's rules for arrivals from spine 2 are
        // acknowledged before any leaf sends a slot up to spine 2 again
        sent = flows.batches().size();
        CompletableFuture<Void> back = programmer.applyStatic(BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 2)));
        List<FlowRuleOperations> firstRound = new ArrayList<>(flows.batches().subList(sent, flows.batches().size()));
        assertTrue(upRules(firstRound).isEmpty(),
                "no slot moves before spine 2 forwards: " + upRules(firstRound).size());
        assertTrue(of(firstRound, FlowRuleOperation.Type.ADD).stream()
                .anyMatch(r -> r.deviceId().equals(DeviceId.deviceId(BitmapFabrics.spine(2)))), "spine 2 first");
        flows.ackPending();
        List<FlowRuleOperations> secondRound = new ArrayList<>(flows.batches().subList(sent + firstRound.size(),
                flows.batches().size()));
        assertFalse(upRules(secondRound).isEmpty(), "the slots move back once spine 2 has acknowledged");
        flows.ackPending();
        back.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(programmer.planner().staticEntries(BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 2))).keySet(),
                programmer.installedStatic().keySet());
    }

    @Test
    void aReturnedSwitchsRulesWaitUntilTheGroupAuditHasSeenOrSentItsEgressGroups() throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            programmer.setTimer(timer);
            BitmapLayout layout = installed(programmer);
            DeviceId leaf1 = DeviceId.deviceId(BitmapFabrics.leaf(1));
            DeviceId leaf2 = DeviceId.deviceId(BitmapFabrics.leaf(2));
            programmer.deviceReturned(leaf1);
            programmer.deviceReturned(leaf2);
            int sent = flows.batches().size();
            CompletableFuture<Void> again = programmer.applyStatic(layout);
            Thread.sleep(200);
            assertEquals(sent, flows.batches().size(), "no rule may name a group the switch may have lost");

            // leaf 1 lost its groups: the audit sends them again; leaf 2 kept them: the audit finds them there
            groups.sentAgain(leaf1);
            groups.seenAgain(leaf2);
            long deadline = System.currentTimeMillis() + 5000;
            while (flows.batches().size() < sent + 2 && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(Set.of(leaf1, leaf2), flows.batches().subList(sent, flows.batches().size()).stream()
                    .flatMap(o -> o.stages().stream()).flatMap(Set::stream).map(op -> op.rule().deviceId())
                    .collect(Collectors.toSet()));
            assertEquals(2, groups.added.stream().filter(k -> k.startsWith(leaf1 + "|")).count(),
                    "nothing added twice: ONOS's audit restores what its store lists");
            flows.ackPending();
            again.get(5, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void aRefusedGroupFailsTheStaticInstallWithTheReason() throws Exception {
        CompletableFuture<Void> done = programmer.applyStatic(BitmapLayout.of(BitmapFabrics.leafSpine(1, 1, 1)));
        groups.answer(GroupEvent.Type.GROUP_ADD_FAILED);
        // the leaf refuses the rules that name the group it refused; the spine's are acknowledged
        flows.ackPending();
        ExecutionException e = assertThrows(ExecutionException.class, done::get);
        assertTrue(e.getCause().getMessage().contains("refused egress group"), e.getCause().getMessage());
        // the group left ONOS's store: the next sync adds it again, the leaf's rules after it
        DeviceId leaf = DeviceId.deviceId(BitmapFabrics.leaf(1));
        int added = groups.added.size();
        int sent = flows.batches().size();
        CompletableFuture<Void> again = programmer.applyStatic(BitmapLayout.of(BitmapFabrics.leafSpine(1, 1, 1)));
        assertEquals(added + 1, groups.added.size(), "the refused group sent again");
        assertTrue(flows.batches().subList(sent, flows.batches().size()).stream().flatMap(o -> o.stages().stream())
                .flatMap(Set::stream).anyMatch(op -> op.rule().deviceId().equals(leaf)), "then the leaf's rules");
        flows.ackPending();
        again.get(5, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void aFabricThatDoesNotFitIsRefused() {
        BitmapLayout big = BitmapLayout.of(BitmapFabrics.leafSpine(2, 12, 4));
        assertTrue(OpenFlowBitmapProgrammer.whyNot(big).isPresent());
        assertTrue(programmer.applyStatic(big).isCompletedExceptionally());
    }

    @Test
    void stampsAreMadeBeforeBroken() {
        BitmapLayout layout = BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 2));
        BitmapStamp a = stamp(layout, List.of(BitmapFabrics.host(2, 1)));
        BitmapStamp b = stamp(layout, List.of(BitmapFabrics.host(2, 1), BitmapFabrics.host(3, 1)));
        OpenFlowStampProgrammer stamps = new OpenFlowStampProgrammer(flows, programmer.planner());
        Programmer.Outcome ignore = (ok, refused) -> { };
        assertEquals(Set.of(a.device()), stamps.apply(null, List.of(new Move(a.device(), null, Set.of(), a)), ignore));
        assertEquals(2, of(flows.batches().get(0), FlowRuleOperation.Type.ADD).size());
        stamps.apply(null, List.of(new Move(a.device(), a, Set.of(), b)), ignore);
        FlowRuleOperations change = flows.batches().get(1);
        assertEquals(2, change.stages().size(), "adds first, then removes");
        assertEquals(2, of(change, FlowRuleOperation.Type.ADD).size());
        // the full-group stamp keeps its match (replaced in place); the subset check's match changes
        assertEquals(1, of(change, FlowRuleOperation.Type.REMOVE).size());
        stamps.apply(null, List.of(new Move(b.device(), b, Set.of(), null)), ignore);
        assertEquals(2, of(flows.batches().get(2), FlowRuleOperation.Type.REMOVE).size());
    }

    private static BitmapStamp stamp(BitmapLayout layout, List<String> receivers) {
        return BitmapStamp.compile(layout, BitmapFabrics.host(1, 1), receivers, IpAddress.valueOf("239.1.2.3"),
                40000, 1).stamp();
    }
}
