package org.mcast4ai.impl;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.impl.p4.Mcast4aiPipeconf;
import org.mcast4ai.impl.p4.P4FabricManagerAccess;
import org.mcast4ai.impl.p4.P4StampPlanner;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.testing.FakePipeconfService;
import org.mcast4ai.testing.TestFabric;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.group.Group;
import org.onosproject.net.pi.model.PiActionParamId;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;

import java.math.BigInteger;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Groups on a fabric whose switches all run the mcast4ai P4 program, through the group manager's one reconcile
 * loop: the source leaf's stamp is the group's only state, each entry one the program has.
 */
class P4GroupsTest {
    private final FakeGroupService groups = new FakeGroupService();
    private final FakePipeconfService pipeconfs = bound(TestFabric.leafSpine());
    private final ManagerHarness h = new ManagerHarness(TestFabric.leafSpine(), null, groups, pipeconfs);
    private final P4FabricManagerAccess p4;

    P4GroupsTest() {
        h.flows.autoAck(true);
        p4 = new P4FabricManagerAccess(h.fabric, h.flows, groups, pipeconfs);
        p4.run();
        h.manager.bindP4Fabric(p4.manager());
    }

    // every switch of the fabric bound to the program
    private static FakePipeconfService bound(TestFabric f) {
        FakePipeconfService p = new FakePipeconfService();
        f.devices.getDevices().forEach(d -> p.bindToDevice(Mcast4aiPipeconf.ID, d.id()));
        return p;
    }

    private List<FlowRule> groupRules(String table) {
        return h.flows.allRules().stream().filter(r -> r.table().toString().equals(table))
                .collect(Collectors.toList());
    }

    private List<Group> stampGroups() {
        return groups.groups.values().stream().filter(g -> new String(g.appCookie().key())
                .startsWith("mcast4ai-p4-stamp-")).collect(Collectors.toList());
    }

    private static byte[] match(FlowRule r, String field) {
        PiCriterion c = (PiCriterion) r.selector().criteria().iterator().next();
        return ((PiExactFieldMatch) c.fieldMatch(PiMatchFieldId.of(field)).orElseThrow()).value().asArray();
    }

    private static int param(FlowRule r, String name) {
        PiAction a = (PiAction) ((PiInstruction) r.treatment().allInstructions().get(0)).action();
        return new BigInteger(1, a.parameters().stream().filter(p -> p.id().equals(PiActionParamId.of(name)))
                .findFirst().orElseThrow().value().asArray()).intValue();
    }

    @Test
    void anAutoGroupIsStampedAtItsSourceLeafAndNowhereElse() {
        P2mpGroup g = h.manager.submit(ManagerHarness.request("auto", 1, 2, 2, 1, 3, 2, 4, 1));
        P2mpGroup now = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.INSTALLED, now.state(), now.toString());
        assertEquals(ReplicationMode.BITMAP, now.effectiveMode());
        assertTrue(now.modeReason().startsWith("AUTO chose BITMAP: the switches run the mcast4ai P4 program"),
                now.modeReason());
        List<FlowRule> senders = groupRules(P4StampPlanner.STAMP_GROUP);
        assertEquals(1, senders.size(), "one stamp_group entry");
        FlowRule s = senders.get(0);
        assertEquals(TestFabric.leaf(1), s.deviceId());
        assertArrayEquals(now.address().toOctets(), match(s, "dst"));
        List<FlowRule> headers = groupRules(P4StampPlanner.STAMP_HDR);
        assertTrue(headers.size() >= 2, "header entries for replica numbers 0 to n");
        Set<DeviceId> devices = h.flows.allRules().stream().filter(r -> r.table().toString().contains(".stamp"))
                .map(FlowRule::deviceId).collect(Collectors.toSet());
        assertEquals(Set.of(TestFabric.leaf(1)), devices, "no other switch holds anything of the group");
        assertEquals(List.of(), h.flows.allRules().stream().filter(r -> !(r.table() instanceof PiTableId))
                .collect(Collectors.toList()), "no OpenFlow rule on a P4 switch (static tables or the group's)");
        h.flows.allRules().forEach(P4FabricManagerAccess::checkAgainstP4Info);
        List<Group> pre = stampGroups();
        assertEquals(1, pre.size());
        assertEquals(param(s, "mgrp"), pre.get(0).id().id(), "the entry names the slot's multicast group");
        assertEquals(headers.size() - 1, pre.get(0).buckets().buckets().size(), "a replica per header packet");
    }

    @Test
    void onAFabricOfTheK48BuildAGroupOfSixtyReceiversIsStampedWithItsBounds() {
        // 20 hosts a leaf, 20 leaves: 3-byte slot and leaf bitmaps, the k=48 build's
        TestFabric f = new TestFabric(2, 20, 20);
        FakePipeconfService k48 = new FakePipeconfService();
        f.devices.getDevices().forEach(d -> k48.bindToDevice(Mcast4aiPipeconf.Build.K48.id(), d.id()));
        FakeGroupService g4 = new FakeGroupService();
        ManagerHarness wide = new ManagerHarness(f, null, g4, k48);
        wide.flows.autoAck(true);
        P4FabricManagerAccess state = new P4FabricManagerAccess(wide.fabric, wide.flows, g4, k48);
        wide.manager.bindP4Fabric(state.manager());
        assertEquals(Mcast4aiPipeconf.Build.K48, state.manager().build());
        int[] pairs = new int[120];
        for (int i = 0; i < 60; i++) {
            pairs[2 * i] = 2 + i % 19;
            pairs[2 * i + 1] = 1 + (i * 7) % 20;
        }
        P2mpGroup g = wide.manager.submit(ManagerHarness.request("wide", pairs));
        P2mpGroup now = wide.manager.getGroup(g.id()).orElseThrow();
        assertEquals(60, now.request().receivers().size());
        assertEquals(GroupState.INSTALLED, now.state(), now.toString());
        assertEquals(1, wide.flows.allRules().stream().filter(r -> r.table().toString()
                .equals(P4StampPlanner.STAMP_GROUP)).count());
        wide.flows.allRules().forEach(r -> P4FabricManagerAccess.checkAgainstP4Info(Mcast4aiPipeconf.Build.K48, r));
        state.stop();
    }

    @Test
    void aStampMulticastGroupNoRecordNeedsIsSweptAndTheOthersStay() {
        P2mpGroup g = h.manager.submit(ManagerHarness.request("kept", 2, 1, 3, 1));
        assertEquals(GroupState.INSTALLED, h.manager.getGroup(g.id()).orElseThrow().state());
        List<Group> kept = stampGroups();
        assertEquals(1, kept.size());
        // left by a crash between two steps: a slot's multicast group no record names
        Group any = kept.get(0);
        groups.addGroup(new org.onosproject.net.group.DefaultGroupDescription(TestFabric.leaf(1),
                org.onosproject.net.group.GroupDescription.Type.ALL, any.buckets(),
                new org.onosproject.net.group.DefaultGroupKey((P4StampPlanner.GROUP_KEY_PREFIX + 4000)
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII)), 4000, any.appId()));
        assertEquals(2, stampGroups().size());
        int staticGroups = groups.groups.size() - 2;
        h.restart(); // activation audits and sweeps
        h.manager.bindP4Fabric(p4.manager());
        assertEquals(List.of(any.id()), stampGroups().stream().map(Group::id).collect(Collectors.toList()),
                "the stray one removed, the group's kept");
        assertEquals(staticGroups + 1, groups.groups.size(), "the static state's groups kept");
    }

    @Test
    void theGroupsBitmapAndPlanShowItsHeaders() {
        P2mpGroup g = h.manager.submit(ManagerHarness.request("shown", 1, 2, 2, 1, 4, 2));
        org.mcast4ai.api.StampPlan plan = h.manager.getStampPlan(g.id()).orElseThrow();
        assertEquals(TestFabric.leaf(1), plan.device());
        assertEquals(plan.headers().size() + 3, plan.tableEntries());
        assertEquals(groupRules(P4StampPlanner.STAMP_GROUP).size() + groupRules(P4StampPlanner.SENDER).size()
                + groupRules(P4StampPlanner.STAMP_HDR).size(),
                plan.tableEntries(), "what the leaf holds");
        org.mcast4ai.api.GroupBitmap b = h.manager.getBitmap(g.id());
        assertEquals(org.mcast4ai.api.GroupBitmap.CARRIER_V2_HEADER, b.carrier());
        assertEquals(3, b.receiverBits().size(), "every receiver with its bit index");
        assertEquals(plan.headers(), b.headers());
        com.fasterxml.jackson.databind.node.ObjectNode json = org.mcast4ai.codec.GroupBitmapCodec.encode(b);
        assertEquals("mcast4ai_v2", json.get("carrier").asText());
        assertEquals(plan.headers().size(), json.get("packetsPerSend").asInt());
        assertEquals(plan.headers().get(0), json.get("headers").get(0).asText());
        assertTrue(!json.has("stampMac"), json.toString());
        com.fasterxml.jackson.databind.node.ObjectNode p = new org.mcast4ai.codec.StampPlanCodec().encode(plan, null);
        assertEquals(TestFabric.leaf(1).toString(), p.get("device").asText());
        assertEquals(plan.headerBytes(), p.get("headerBytes").asInt());
        // the header carries exactly the three receivers' bit indices
        org.mcast4ai.engine.bitmap.BitIndexTable bits = p4.manager().bitIndices();
        org.mcast4ai.engine.bitmap.HeaderV2Codec codec = new org.mcast4ai.engine.bitmap.HeaderV2Codec(
                bits.geometry());
        java.util.TreeSet<Integer> carried = new java.util.TreeSet<>();
        for (String hex : plan.headers()) {
            for (int bit : codec.decode(com.google.common.io.BaseEncoding.base16().lowerCase().decode(hex))
                    .receivers(bits.geometry())) {
                carried.add(bit);
            }
        }
        assertEquals(new java.util.TreeSet<>(b.receiverBits().values()), carried);
    }

    @Test
    void aChangedGroupTakesItsOtherSlotAndWithdrawingLeavesNothing() {
        P2mpGroup g = h.manager.submit(ManagerHarness.request("change", 2, 1, 3, 1));
        int first = param(groupRules(P4StampPlanner.STAMP_GROUP).get(0), "group");
        h.manager.addReceivers(g.id(), Set.of(Endpoint.of(TestFabric.hostId(4, 2))));
        P2mpGroup now = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.INSTALLED, now.state(), now.toString());
        List<FlowRule> senders = groupRules(P4StampPlanner.STAMP_GROUP);
        assertEquals(1, senders.size(), "replaced in place");
        int second = param(senders.get(0), "group");
        assertTrue(first != second, "the other slot: " + first + ", " + second);
        assertTrue(groupRules(P4StampPlanner.STAMP_HDR).stream().allMatch(r -> new BigInteger(1, match(r, "group"))
                .intValue() == second), "the old slot's headers removed");
        assertEquals(List.of(P4StampPlanner.MGRP_BASE + second), stampGroups().stream().map(x -> x.id().id())
                .collect(Collectors.toList()), "the old slot's multicast group removed");
        h.manager.withdraw(g.id());
        assertEquals(List.of(), groupRules(P4StampPlanner.STAMP_GROUP));
        assertEquals(List.of(), groupRules(P4StampPlanner.STAMP_HDR));
        assertEquals(List.of(), stampGroups());
    }

    @Test
    void aGroupCompiledBeforeTheLeavesWereNumberedIsCompiledAgainWhenTheyAre() {
        h.manager.unbindP4Fabric(p4.manager());    // the P4 fabric's state not bound yet: no leaf numbers
        P2mpGroup g = h.manager.submit(ManagerHarness.request("early", 2, 1, 3, 1));
        P2mpGroup before = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.FAILED, before.state());
        assertTrue(before.reason().contains("not numbered yet"), before.reason());
        h.manager.bindP4Fabric(p4.manager());
        p4.run();
        P2mpGroup after = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.INSTALLED, after.state(), after.toString());
        assertEquals(1, groupRules(P4StampPlanner.STAMP_GROUP).size());
    }

    @Test
    void aLeafCutOffDegradesTheGroupWithItsReceiversNamedAndItsReturnHealsIt() {
        P2mpGroup g = h.manager.submit(ManagerHarness.request("cut", 2, 1, 3, 1));
        h.fabric.linkDown(3, 1);
        h.fabric.linkDown(3, 2);
        p4.run();
        P2mpGroup cut = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.DEGRADED, cut.state(), cut.toString());
        assertEquals(Set.of(Endpoint.of(TestFabric.hostId(3, 1))), cut.unreachable());
        assertTrue(cut.reason().contains(TestFabric.hostId(3, 1)), cut.reason());
        h.fabric.linkUp(3, 1);
        p4.run();
        P2mpGroup back = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.INSTALLED, back.state(), back.toString());
        assertEquals(Set.of(), back.unreachable());
    }

    @Test
    void aGroupWaitsForASwitchBackUntilItAnswersItsStaticStateAndIsInstalledThen() {
        h.flows.autoAck(false);
        // leaf 3 came back empty: its static state is sent again and not answered yet
        h.flows.rulesOn(TestFabric.leaf(3)).forEach(h.flows::lose);
        p4.deviceReturned(TestFabric.leaf(3));
        p4.run();
        assertEquals(Set.of(TestFabric.leaf(3)), p4.manager().unready());
        P2mpGroup g = h.manager.submit(ManagerHarness.request("wait", 2, 1, 3, 1));
        // the leaf refuses its batch (the next run sends what is missing); the group's stamp is acknowledged
        h.flows.answerPending(TestFabric.leaf(3));
        P2mpGroup waiting = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.INSTALLING, waiting.state(), waiting.toString());
        assertTrue(waiting.reason().contains(org.mcast4ai.impl.compile.P4Replication.WAITING_FOR_STATIC),
                waiting.reason());
        assertEquals(Set.of(Endpoint.of(TestFabric.hostId(3, 1))), waiting.unreachable(),
                "the receiver on the unanswered leaf is listed");
        h.flows.autoAck(true);
        p4.run();
        assertEquals(Set.of(), p4.manager().unready());
        P2mpGroup done = h.manager.getGroup(g.id()).orElseThrow();
        assertEquals(GroupState.INSTALLED, done.state(), done.toString());
        assertEquals(Set.of(), done.unreachable());
    }

    @Test
    void treeGroupsFailWithTheReason() {
        P2mpGroup tree = h.manager.submit(P2mpGroupRequest.builder().key(GroupKey.of("t", "tree"))
                .source(Endpoint.of(TestFabric.hostId(1, 1))).mode(ReplicationMode.TREE)
                .addReceiver(Endpoint.of(TestFabric.hostId(2, 1))).build());
        P2mpGroup t = h.manager.getGroup(tree.id()).orElseThrow();
        assertEquals(GroupState.FAILED, t.state());
        assertTrue(t.reason().contains("replicates by header only"), t.reason());
        assertEquals(List.of(), groupRules(P4StampPlanner.STAMP_GROUP), "nothing written for it");
    }
}
