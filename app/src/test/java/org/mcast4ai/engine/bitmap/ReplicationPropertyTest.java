package org.mcast4ai.engine.bitmap;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Property tests: random fat trees and leaf-spines, random and rack-packed groups, random header budgets
 * (so groups split into several sets) and random per-packet subsets, all played through the switch logic.
 */
class ReplicationPropertyTest {

    @Test
    void everyReceiverExactlyOnceNobodyElseNoLoopNothingBackToTheSource() {
        Random rnd = new Random(20261129);
        for (int trial = 0; trial < 300; trial++) {
            FabricSnapshot f = randomFabric(rnd);
            BitIndexTable bits = BitIndexTable.forFabric(f);
            SwitchTables tables = SwitchTables.build(f, bits);
            ReplicationSimulator sim = new ReplicationSimulator(f, tables);
            int source = rnd.nextInt(f.hostCount());
            int n = 1 + rnd.nextInt(f.hostCount() - 1);
            int[] group = rnd.nextBoolean() ? Groups.random(f, n, source, rnd) : Groups.rackPacked(f, n, source);
            int budget = new int[]{64, 96, 384}[rnd.nextInt(3)];
            HeaderV2Planner planner = new HeaderV2Planner(bits.geometry(), budget);
            List<HeaderV2> sets = planner.planHosts(bits.hostBits(f), group, rnd.nextInt(1 << 16));
            for (HeaderV2 h : sets) {
                assertTrue(planner.codec().size(h) <= budget, "set within budget");
            }
            String what = "trial " + trial + " " + f + " source " + source + " group " + group.length
                    + " sets " + sets.size();
            ReplicationSimulator.Replication r = sim.simulate(source, sets, 1000);
            assertExactly(f, source, group, r, what);
            if (sets.size() == 1) {
                assertEquals(Groups.optimumLinks(f, source, group), r.linksUsed(), "minimum links: " + what);
            }
        }
    }

    @Test
    void perPacketSubsetsReachExactlyTheSubset() {
        Random rnd = new Random(42);
        for (int trial = 0; trial < 200; trial++) {
            FabricSnapshot f = randomFabric(rnd);
            BitIndexTable bits = BitIndexTable.forFabric(f);
            ReplicationSimulator sim = new ReplicationSimulator(f, SwitchTables.build(f, bits));
            int source = rnd.nextInt(f.hostCount());
            int[] group = Groups.random(f, 1 + rnd.nextInt(f.hostCount() - 1), source, rnd);
            Map<String, Integer> bitMap = new HashMap<>();
            for (int h : group) {
                bitMap.put(f.hostName(h), bits.bitOf(f.switchName(f.hostSwitch(h)), f.hostPort(h)));
            }
            SubsetEncoder enc = new SubsetEncoder(new HeaderV2Planner(bits.geometry()), bitMap);
            for (int packet = 0; packet < 5; packet++) {
                List<String> subset = new ArrayList<>();
                List<Integer> subsetHosts = new ArrayList<>();
                for (int h : group) {
                    if (rnd.nextInt(4) == 0) {
                        subset.add(f.hostName(h));
                        subsetHosts.add(h);
                    }
                }
                int[] ranks = enc.ranks(subset);
                int[] expected = subsetHosts.stream().mapToInt(Integer::intValue).toArray();
                assertExactly(f, source, expected, sim.simulate(source, enc.headers(packet, ranks), 64),
                        "trial " + trial + " packet " + packet);
                if (ranks.length <= SubsetEncoder.MAX_LIST_RANKS && enc.members() <= SubsetEncoder.MAX_LIST_MEMBERS
                        || ranks.length > 0 && ranks[ranks.length - 1] < SubsetEncoder.BITMAP_RANKS) {
                    byte[] address = enc.address(0xfd4c, trial, ranks);
                    assertArrayEquals(ranks, SubsetEncoder.ranksOf(address));
                    assertEquals(trial, SubsetEncoder.groupOf(address));
                }
            }
        }
    }

    @Test
    void aLeafSpineOf1024LeavesUsesVirtualPodsAndDeliversExactlyOnce() {
        FabricSnapshot f = FabricGenerators.leafSpine(4, 1024, 4);
        BitIndexTable bits = BitIndexTable.forFabric(f);
        assertEquals(new FabricGeometry(false, 32, 32, 4), bits.geometry());
        ReplicationSimulator sim = new ReplicationSimulator(f, SwitchTables.build(f, bits));
        HeaderV2Planner planner = new HeaderV2Planner(bits.geometry());
        Random rnd = new Random(1024);
        for (int n : new int[]{8, 64, 1024, 4000}) {
            int source = rnd.nextInt(f.hostCount());
            int[] group = Groups.random(f, n, source, rnd);
            List<HeaderV2> sets = planner.planHosts(bits.hostBits(f), group, n);
            ReplicationSimulator.Replication r = sim.simulate(source, sets, 4096);
            assertExactly(f, source, group, r, "leaf-spine 1024 leaves, " + n + " receivers");
            if (sets.size() == 1) {
                assertEquals(Groups.optimumLinks(f, source, group), r.linksUsed());
            }
        }
    }

    @Test
    void switchLogicReadsOnlyItsStaticTableAndThePacket() throws Exception {
        // the only inputs of the per-hop rule: the static table, the in-port, the header, the flow entropy
        Method forward = SwitchLogic.class.getMethod("forward", SwitchTable.class, long.class, ReceiverSet.class,
                long.class);
        assertTrue(Modifier.isStatic(forward.getModifiers()));
        for (Field field : SwitchLogic.class.getDeclaredFields()) {
            assertTrue(Modifier.isStatic(field.getModifiers()) && Modifier.isFinal(field.getModifiers()),
                    "no mutable state in the switch logic: " + field);
        }
        for (Field field : SwitchTable.class.getDeclaredFields()) {
            assertTrue(Modifier.isFinal(field.getModifiers()), "table is immutable: " + field);
        }
        // the tables are a function of the fabric alone: the same after 1,000 groups as freshly built
        FabricSnapshot f = FabricGenerators.fatTree(8);
        BitIndexTable bits = BitIndexTable.forFabric(f);
        SwitchTables tables = SwitchTables.build(f, bits);
        List<Integer> entriesBefore = tables.entries();
        ReplicationSimulator sim = new ReplicationSimulator(f, tables);
        HeaderV2Planner planner = new HeaderV2Planner(bits.geometry());
        Random rnd = new Random(1);
        for (int g = 0; g < 1000; g++) {
            int source = rnd.nextInt(f.hostCount());
            int[] group = Groups.random(f, 1 + rnd.nextInt(40), source, rnd);
            assertExactly(f, source, group, sim.simulate(source, planner.planHosts(bits.hostBits(f), group, g), 1),
                    "group " + g);
        }
        assertEquals(SwitchTables.build(f, bits), tables);
        assertEquals(entriesBefore, tables.entries());
    }

    @Test
    void aSwitchNeverSendsUpWhatCameDownAndHonoursTheHopLimit() {
        FabricSnapshot f = FabricGenerators.fatTree(4);
        BitIndexTable bits = BitIndexTable.forFabric(f);
        SwitchTables tables = SwitchTables.build(f, bits);
        FabricGeometry g = bits.geometry();
        int leaf = f.switchIndex("edge1-1");
        SwitchTable t = tables.table(leaf);
        int own = bits.leafPrefix("edge1-1");
        int other = g.podOf(own) == 0 ? g.bit(1, 0, 0) : g.bit(0, 0, 0);
        ReceiverSet h = ReceiverSet.of(own, other);
        SwitchLogic.Result fromUp = SwitchLogic.forward(t, t.upPorts()[0], h, 0);
        assertEquals(1, fromUp.copies().size(), "only the local receiver");
        assertEquals(1, fromUp.dropped(), "the remote receiver is not sent back up");
        long otherHostPort = -1;
        for (int i = f.hostStart(leaf); i < f.hostStart(leaf + 1); i++) {
            if (bits.bitOf("edge1-1", f.hostPort(f.hostAt(i))) != own) {
                otherHostPort = f.hostPort(f.hostAt(i));
            }
        }
        SwitchLogic.Result fromHost = SwitchLogic.forward(t, otherHostPort, h, 0);
        assertEquals(2, fromHost.copies().size(), "local receiver and one uplink");
        ReceiverSet expired = ReceiverSet.of(0, new int[]{own});
        assertEquals(0, SwitchLogic.forward(t, 99, expired, 0).copies().size());
    }

    private static void assertExactly(FabricSnapshot f, int source, int[] receivers,
                                      ReplicationSimulator.Replication r, String what) {
        boolean[] member = new boolean[f.hostCount()];
        for (int h : receivers) {
            member[h] = true;
        }
        for (int h = 0; h < f.hostCount(); h++) {
            assertEquals(member[h] ? 1 : 0, r.copiesAt(h), f.hostName(h) + (member[h] ? " member " : " non-member ")
                    + what);
        }
        assertEquals(0, r.copiesToSource(), what);
        assertEquals(0, r.revisits(), "no switch sees a packet twice (no loop): " + what);
        assertEquals(0, r.dropped(), what);
    }

    static FabricSnapshot randomFabric(Random rnd) {
        if (rnd.nextBoolean()) {
            return FabricGenerators.fatTree(new int[]{4, 6, 8}[rnd.nextInt(3)]);
        }
        return FabricGenerators.leafSpine(1 + rnd.nextInt(4), 2 + rnd.nextInt(70), 1 + rnd.nextInt(5));
    }
}
