package org.mcast4ai.engine.bitmap;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The header targets of the stateless mode on k=48 and k=64 fat trees. Header sizes and byte counts are
 * deterministic, so they are asserted, not just printed.
 */
class HeaderTargetsTest {
    private static final int PAYLOAD = 4096;
    private static Fabric k48;
    private static Fabric k64;

    /** A fabric with its tables, built once per class (k=64 has 65,536 hosts). */
    static final class Fabric {
        final FabricSnapshot snapshot;
        final BitIndexTable bits;
        final int[] hostBits;
        final HeaderV2Planner v2;
        final HeaderV2Planner p4;
        final ReplicationSimulator sim;

        Fabric(int k) {
            snapshot = FabricGenerators.fatTree(k);
            bits = BitIndexTable.forFabric(snapshot);
            hostBits = bits.hostBits(snapshot);
            // the targets are the header spec's; the P4 program parses fewer sections (p4 below)
            v2 = new HeaderV2Planner(bits.geometry(), HeaderV2Planner.DEFAULT_MAX_BYTES, HeaderV2Planner.Limits.NONE);
            p4 = new HeaderV2Planner(bits.geometry());
            sim = new ReplicationSimulator(snapshot, SwitchTables.build(snapshot, bits));
        }
    }

    @BeforeAll
    static void build() {
        k48 = new Fabric(48);
        k64 = new Fabric(64);
    }

    /** Version 2, k=48 targets asserted (k=64 printed): whole racks drawn at random over the fabric. */
    @Test
    void v2RandomRacksFitOnePacket() {
        Random rnd = new Random(43);
        for (Fabric f : new Fabric[]{k48, k64}) {
            for (int[] target : new int[][]{{1024, 130}, {4096, 220}}) {
                int worst = 0;
                int racks = 0;
                for (int trial = 0; trial < 10; trial++) {
                    int source = rnd.nextInt(f.snapshot.hostCount());
                    int[] group = Groups.randomRacks(f.snapshot, target[0], source, rnd);
                    List<HeaderV2> sets = f.v2.planHosts(f.hostBits, group, trial);
                    assertEquals(1, sets.size(), "one packet");
                    worst = Math.max(worst, f.v2.codec().size(sets.get(0)));
                    racks = (target[0] + f.bits.geometry().slotsPerLeaf() - 1) / f.bits.geometry().slotsPerLeaf();
                    assertDeliveredV2(f, source, group, sets);
                }
                System.out.printf("v2 hosts=%d %d receivers in %d random racks: worst header %d B%n",
                        f.snapshot.hostCount(), target[0], racks, worst);
                if (f == k48) {
                    assertTrue(worst <= target[1], "header " + worst + " B");
                }
            }
        }
    }

    @Test
    void v2Random8FitsIn24BytesWithNoRedundantCopy() {
        Random rnd = new Random(8);
        for (Fabric f : new Fabric[]{k48, k64}) {
            int worst = 0;
            for (int trial = 0; trial < 50; trial++) {
                int source = rnd.nextInt(f.snapshot.hostCount());
                int[] group = Groups.random(f.snapshot, 8, source, rnd);
                List<HeaderV2> sets = f.v2.planHosts(f.hostBits, group, trial);
                assertEquals(1, sets.size());
                worst = Math.max(worst, f.v2.codec().size(sets.get(0)));
                ReplicationSimulator.Replication r = assertDeliveredV2(f, source, group, sets);
                assertEquals(Groups.optimumLinks(f.snapshot, source, group), r.fabricCopies(),
                        "one copy per link of a minimum tree");
            }
            System.out.println("v2 hosts=" + f.snapshot.hostCount() + " random 8: worst header " + worst + " B");
            assertTrue(worst <= 24, "header " + worst + " B");
        }
    }

    @Test
    void v2Random1024InAtMost4PacketsWithin105PercentOfTheIdealTree() {
        Random rnd = new Random(1024);
        for (Fabric f : new Fabric[]{k48, k64}) {
            double worst = 0;
            int maxSets = 0;
            int maxHeader = 0;
            for (int trial = 0; trial < 10; trial++) {
                int source = rnd.nextInt(f.snapshot.hostCount());
                int[] group = Groups.random(f.snapshot, 1024, source, rnd);
                List<HeaderV2> sets = f.v2.planHosts(f.hostBits, group, trial);
                ReplicationSimulator.Replication r = assertDeliveredV2(f, source, group, sets);
                long ideal = (long) (Groups.optimumLinks(f.snapshot, source, group) + group.length + 1) * PAYLOAD;
                worst = Math.max(worst, (double) r.totalBytes() / ideal);
                maxSets = Math.max(maxSets, sets.size());
                for (HeaderV2 h : sets) {
                    maxHeader = Math.max(maxHeader, f.v2.codec().size(h));
                }
            }
            System.out.printf("v2 hosts=%d random 1024: at most %d packets (largest header %d B), worst ratio %.4f%n",
                    f.snapshot.hostCount(), maxSets, maxHeader, worst);
            if (f == k48) {
                assertTrue(maxSets <= 4, maxSets + " packets");
                assertTrue(worst <= 1.05, "ratio " + worst);
            }
        }
    }

    /**
     * The same shapes within the sections {@code models/p4/mcast4ai.p4} parses ({@link HeaderV2Planner.Limits#P4}):
     * every packet is one it parses, every receiver gets exactly one copy, and at k=48 the targets hold: whole
     * racks in one packet, 8 random receivers in one packet of at most 24 B, 1,024 random receivers in at most 8
     * packets within 1.05x the ideal tree's bytes (k=64 printed).
     */
    @Test
    void v2WithinTheP4ParserMeetsTheTargetsAtK48() {
        Random rnd = new Random(4);
        for (Fabric f : new Fabric[]{k48, k64}) {
            StringBuilder out = new StringBuilder("v2 within the P4 parser, hosts=" + f.snapshot.hostCount() + ":");
            for (int[] shape : new int[][]{{1024, 0, 1}, {4096, 0, 1}, {8, 1, 1}, {1024, 1, 8}}) {
                int maxSets = 0;
                int maxBytes = 0;
                double worst = 0;
                for (int trial = 0; trial < 10; trial++) {
                    int source = rnd.nextInt(f.snapshot.hostCount());
                    int[] group = shape[1] == 0 ? Groups.randomRacks(f.snapshot, shape[0], source, rnd)
                            : Groups.random(f.snapshot, shape[0], source, rnd);
                    List<HeaderV2> sets = f.p4.planHosts(f.hostBits, group, trial);
                    for (HeaderV2 h : sets) {
                        assertTrue(HeaderV2Planner.Limits.P4.admits(h), h.toString());
                        maxBytes = Math.max(maxBytes, f.p4.codec().size(h));
                    }
                    ReplicationSimulator.Replication r = assertDeliveredV2(f, source, group, sets);
                    long ideal = (long) (Groups.optimumLinks(f.snapshot, source, group) + group.length + 1) * PAYLOAD;
                    worst = Math.max(worst, (double) r.totalBytes() / ideal);
                    maxSets = Math.max(maxSets, sets.size());
                }
                out.append(String.format(" %s %d: %d packets, largest header %d B, %.4f x ideal;",
                        shape[1] == 0 ? "random racks" : "random", shape[0], maxSets, maxBytes, worst));
                if (f == k48) {
                    assertTrue(maxSets <= shape[2], shape[0] + (shape[1] == 0 ? " in racks: " : " random: ")
                            + maxSets + " packets");
                    if (shape[0] == 8) {
                        assertTrue(maxBytes <= 24, "8 random: " + maxBytes + " B");
                    }
                    if (shape[0] == 1024 && shape[1] == 1) {
                        assertTrue(worst <= 1.05, "1,024 random: " + worst + " x ideal");
                    }
                }
            }
            System.out.println(out);
        }
    }

    private static ReplicationSimulator.Replication assertDeliveredV2(Fabric f, int source, int[] group,
                                                                      List<HeaderV2> sets) {
        return assertExactlyOnce(group, f.sim.simulate(source, sets, PAYLOAD));
    }

    private static ReplicationSimulator.Replication assertExactlyOnce(int[] group, ReplicationSimulator.Replication r) {
        assertEquals(group.length, r.hostCopies(), "copies delivered");
        for (int h : group) {
            assertEquals(1, r.copiesAt(h));
        }
        assertEquals(0, r.revisits());
        assertEquals(0, r.dropped());
        return r;
    }
}
