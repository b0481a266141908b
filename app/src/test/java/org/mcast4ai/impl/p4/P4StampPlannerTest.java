package org.mcast4ai.impl.p4;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.HeaderV2;
import org.mcast4ai.engine.bitmap.HeaderV2Codec;
import org.mcast4ai.engine.bitmap.HeaderV2Planner;
import org.onlab.packet.IpAddress;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A group's stamp at its source leaf: the entries the program has, headers that carry each receiver once. */
class P4StampPlannerTest {
    private final P4StampPlanner planner = new P4StampPlanner(new DefaultApplicationId(8, "org.mcast4ai.app.p4"));
    private final ConnectPoint sender = ConnectPoint.deviceConnectPoint("device:edge1-1/1");

    private static int[] randomReceivers(FabricSnapshot f, int n, Random rnd, int[] hostBits) {
        TreeSet<Integer> bits = new TreeSet<>();
        while (bits.size() < n) {
            int h = 1 + rnd.nextInt(f.hostCount() - 1);
            bits.add(hostBits[h]);
        }
        return bits.stream().mapToInt(Integer::intValue).toArray();
    }

    // the receivers the headers carry, each as often as it is carried
    private static List<Integer> carried(HeaderV2Codec codec, List<byte[]> headers) {
        List<Integer> out = new ArrayList<>();
        for (byte[] b : headers) {
            HeaderV2 h = codec.decode(b);
            assertTrue(h.ipv4(), "the stamped packet is IPv4");
            assertTrue(HeaderV2Planner.Limits.P4.admits(h), "within the program's sections: " + h);
            Arrays.stream(h.receivers(codec.geometry())).forEach(out::add);
        }
        return out;
    }

    @Test
    void theHeadersCarryEveryReceiverOnceWithinTheProgramsBounds() {
        for (int k : new int[]{4, 16, 48}) {
            FabricSnapshot f = FabricGenerators.fatTree(k);
            BitIndexTable bits = BitIndexTable.forFabric(f);
            int[] hostBits = bits.hostBits(f);
            HeaderV2Codec codec = new HeaderV2Codec(bits.geometry());
            Random rnd = new Random(k);
            for (int n : new int[]{1, 8, Math.min(1024, f.hostCount() / 2)}) {
                int[] group = randomReceivers(f, n, rnd, hostBits);
                List<byte[]> headers = P4StampPlanner.headers(bits.geometry(), group);
                assertTrue(headers.size() <= P4StampPlanner.MAX_PACKETS, k + "/" + n + ": " + headers.size());
                headers.forEach(h -> assertTrue(h.length <= P4StampPlanner.MAX_BYTES, h.length + " bytes"));
                List<Integer> got = carried(codec, headers);
                got.sort(null);
                assertEquals(Arrays.stream(group).boxed().collect(java.util.stream.Collectors.toList()), got,
                        "k=" + k + ", " + n + " receivers");
            }
        }
    }

    @Test
    void piecesReassembleToTheHeaderAndLongerOnesAreRefused() {
        Random rnd = new Random(7);
        for (int len = 0; len <= P4StampPlanner.MAX_BYTES; len++) {
            byte[] h = new byte[len];
            rnd.nextBytes(h);
            P4StampPlanner.Pieces p = P4StampPlanner.pieces(h);
            ByteArrayOutputStream again = new ByteArrayOutputStream();
            again.write(p.head0, 0, Math.min(8, p.n32) * 32);
            again.write(p.head1, 0, Math.max(0, p.n32 - 8) * 32);
            again.write(p.tail, 0, p.tailLen);
            assertArrayEquals(h, again.toByteArray(), len + " bytes");
            assertTrue(p.tailLen < 32 && p.n32 <= 16);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> P4StampPlanner.pieces(new byte[P4StampPlanner.MAX_BYTES + 1]));
        assertTrue(e.getMessage().contains("at most 543 bytes"), e.getMessage());
    }

    @Test
    void theEntriesAreTheProgramsAndEachReplicaNumberingSendsEveryHeaderOnce() {
        FabricSnapshot f = FabricGenerators.fatTree(16);
        BitIndexTable bits = BitIndexTable.forFabric(f);
        int[] group = randomReceivers(f, 600, new Random(3), bits.hostBits(f));
        List<byte[]> headers = P4StampPlanner.headers(bits.geometry(), group, 64);
        int n = headers.size();
        assertTrue(n >= 3, n + " headers");
        P4StampPlanner.Stamp s = new P4StampPlanner.Stamp(sender, 77, IpAddress.valueOf("232.0.77.42"), headers,
                P4StampPlanner.allowance(bits.geometry(), group, 0));
        P4StampPlanner.Entries e = planner.entries(s);
        e.rules.forEach(P4FabricPlannerTest::check);
        assertEquals(n + 3, e.rules.size(), "the stamp_group and sender entries, header entries for numbers 0 to n");
        FlowRule first = e.rules.get(0);
        assertEquals(P4StampPlanner.STAMP_GROUP, first.table().toString());
        assertArrayEquals(new byte[]{(byte) 232, 0, 77, 42}, match(first, "dst"));
        assertEquals(1, new java.math.BigInteger(1, match(first, "ingress_port")).intValue());
        Map<String, byte[]> stamp = params(first);
        assertEquals(77, new java.math.BigInteger(1, stamp.get("group")).intValue());
        assertEquals(0x8000 + 77, new java.math.BigInteger(1, stamp.get("mgrp")).intValue());

        // the header entry of each replica number
        Map<Integer, byte[]> byNumber = new HashMap<>();
        FlowRule check = e.rules.get(1);
        assertEquals(P4StampPlanner.SENDER, check.table().toString());
        assertArrayEquals(new byte[]{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, (byte) 232, 0, 77, 42},
                match(check, "dst"), "the IPv4 group address as ::ffff:a.b.c.d");
        assertEquals(1, new java.math.BigInteger(1, match(check, "ingress_port")).intValue());
        java.math.BigInteger leaves = new java.math.BigInteger(1, params(check).get("leaves"));
        assertEquals(P4FabricPlanner.DEFAULT_LEAF_SET / 8, params(check).get("leaves").length);
        java.util.Set<Integer> wantLeaves = new TreeSet<>();
        Arrays.stream(group).forEach(b -> wantLeaves.add(b >>> bits.geometry().slotBits()));
        for (int l = 0; l < P4FabricPlanner.DEFAULT_LEAF_SET; l++) {
            assertEquals(wantLeaves.contains(l), leaves.testBit(P4FabricPlanner.DEFAULT_LEAF_SET - 1 - l), "leaf " + l);
        }
        for (FlowRule r : e.rules.subList(2, e.rules.size())) {
            assertEquals(P4StampPlanner.STAMP_HDR, r.table().toString());
            assertEquals(77, new java.math.BigInteger(1, match(r, "group")).intValue());
            Map<String, byte[]> p = params(r);
            int n32 = p.get("n32")[0] & 0xFF;
            int tail = p.get("tail_len")[0] & 0xFF;
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(p.get("head0"), 0, Math.min(8, n32) * 32);
            b.write(p.get("head1"), 0, Math.max(0, n32 - 8) * 32);
            b.write(p.get("tail"), 0, tail);
            byNumber.put(new java.math.BigInteger(1, match(r, "packet")).intValue(), b.toByteArray());
        }
        // ONOS numbers one port's replicas from 0 in some releases and from 1 in others: either way each header once
        for (int from : new int[]{0, 1}) {
            List<String> sent = new ArrayList<>();
            for (int r = from; r < from + n; r++) {
                sent.add(Arrays.toString(byNumber.get(r)));
            }
            List<String> want = new ArrayList<>();
            headers.forEach(h -> want.add(Arrays.toString(h)));
            sent.sort(null);
            want.sort(null);
            assertEquals(want, sent, "replicas numbered from " + from);
        }

        GroupDescription g = e.group;
        assertEquals(GroupDescription.Type.ALL, g.type());
        assertEquals(0x8000 + 77, (int) g.givenGroupId());
        assertEquals(n, g.buckets().buckets().size(), "one replica per header packet");
        for (GroupBucket b : g.buckets().buckets()) {
            assertEquals(sender.port(), ((Instructions.OutputInstruction) b.treatment().allInstructions().get(0))
                    .port());
        }
    }

    @Test
    void aStampOutsideTheProgramsRangesIsRefusedWithTheReason() {
        IpAddress a = IpAddress.valueOf("232.0.0.1");
        List<byte[]> one = List.of(new byte[8]);
        P4StampPlanner.Allowance none = new P4StampPlanner.Allowance(new java.util.BitSet(), 0);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new P4StampPlanner.Stamp(sender, 0, a, one, none))
                .getMessage().contains("group number 0"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new P4StampPlanner.Stamp(sender, 0x8000, a, one, none)).getMessage().contains("1..32767"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new P4StampPlanner.Stamp(sender, 5, IpAddress.valueOf("ff3e::1"), one, none)).getMessage()
                .contains("IPv4"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new P4StampPlanner.Stamp(sender, 5, a, List.of(), none)).getMessage().contains("1 to 64"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new P4StampPlanner.Stamp(sender, 5, a, List.of(new byte[600]), none)).getMessage()
                .contains("at most 543 bytes"));
    }

    @Test
    void theSendersOwnHeadersMayNameTheGroupsLeavesAndOfItsOwnLeafTheGroupsSlotsAndItsOwn() {
        org.mcast4ai.engine.bitmap.FabricGeometry g = org.mcast4ai.engine.bitmap.FabricGeometry.fatTree(8);
        // k=8: 4 slots a leaf (2 slot bits); the sender on leaf 3 slot 1, receivers on leaf 3 slot 2, leaves 5, 9
        int sender = (3 << 2) | 1;
        int[] receivers = {(3 << 2) | 2, (5 << 2), (9 << 2) | 3};
        P4StampPlanner.Allowance a = P4StampPlanner.allowance(g, receivers, sender);
        assertEquals(java.util.BitSet.valueOf(new long[]{(1L << 3) | (1L << 5) | (1L << 9)}), a.leaves());
        // slots 0 and 3 of the sender's leaf are not the group's; slots 4 and up do not exist there
        assertEquals(~((1L << 63) | (1L << 60)), a.own());
        assertEquals(0L, P4StampPlanner.allowance(g, receivers, -1).own(), "a sender without a bit: no own slot");
    }

    private static byte[] match(FlowRule r, String field) {
        PiCriterion c = (PiCriterion) r.selector().criteria().iterator().next();
        return ((PiExactFieldMatch) c.fieldMatch(PiMatchFieldId.of(field)).orElseThrow()).value().asArray();
    }

    private static Map<String, byte[]> params(FlowRule r) {
        PiAction a = (PiAction) ((PiInstruction) r.treatment().allInstructions().get(0)).action();
        Map<String, byte[]> out = new HashMap<>();
        a.parameters().forEach(p -> out.put(p.id().id(), p.value().asArray()));
        return out;
    }
}
