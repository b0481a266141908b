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
        final HeaderPlanner planner;
        final ReplicationSimulator sim;

        Fabric(int k) {
            snapshot = FabricGenerators.fatTree(k);
            bits = BitIndexTable.forFabric(snapshot);
            hostBits = bits.hostBits(snapshot);
            planner = new HeaderPlanner(bits.geometry());
            sim = new ReplicationSimulator(snapshot, SwitchTables.build(snapshot, bits));
        }
    }

    @BeforeAll
    static void build() {
        k48 = new Fabric(48);
        k64 = new Fabric(64);
    }

    @Test
    void rackPacked1024FitsIn140Bytes() {
        for (Fabric f : new Fabric[]{k48, k64}) {
            int source = f.snapshot.hostCount() - 1;
            int[] group = Groups.rackPacked(f.snapshot, 1024, source);
            List<BitmapHeader> sets = f.planner.planHosts(f.hostBits, group);
            assertEquals(1, sets.size());
            int size = f.planner.codec().size(sets.get(0));
            report("rack-packed 1024", f, sets, size);
            assertTrue(size <= 140, "header " + size + " B");
            assertDelivered(f, source, group, sets);
        }
    }

    @Test
    void rackPacked4096FitsIn350Bytes() {
        for (Fabric f : new Fabric[]{k48, k64}) {
            int source = f.snapshot.hostCount() - 1;
            int[] group = Groups.rackPacked(f.snapshot, 4096, source);
            List<BitmapHeader> sets = f.planner.planHosts(f.hostBits, group);
            assertEquals(1, sets.size());
            int size = f.planner.codec().size(sets.get(0));
            report("rack-packed 4096", f, sets, size);
            assertTrue(size <= 350, "header " + size + " B");
            assertDelivered(f, source, group, sets);
        }
    }

    @Test
    void random8FitsIn40BytesWithNoRedundantCopy() {
        Random rnd = new Random(8);
        for (Fabric f : new Fabric[]{k48, k64}) {
            int worst = 0;
            for (int trial = 0; trial < 50; trial++) {
                int source = rnd.nextInt(f.snapshot.hostCount());
                int[] group = Groups.random(f.snapshot, 8, source, rnd);
                List<BitmapHeader> sets = f.planner.planHosts(f.hostBits, group);
                assertEquals(1, sets.size());
                int size = f.planner.codec().size(sets.get(0));
                worst = Math.max(worst, size);
                ReplicationSimulator.Replication r = assertDelivered(f, source, group, sets);
                assertEquals(Groups.optimumLinks(f.snapshot, source, group), r.fabricCopies(),
                        "one copy per link of a minimum tree");
            }
            System.out.println("k=" + f.snapshot.hostCount() + " random 8: worst header " + worst + " B");
            assertTrue(worst <= 40, "header " + worst + " B");
        }
    }

    @Test
    void random1024CostsAtMost115PercentOfTheIdealTreeAt4KB() {
        Random rnd = new Random(1024);
        for (Fabric f : new Fabric[]{k48, k64}) {
            double worst = 0;
            int maxSets = 0;
            for (int trial = 0; trial < 10; trial++) {
                int source = rnd.nextInt(f.snapshot.hostCount());
                int[] group = Groups.random(f.snapshot, 1024, source, rnd);
                List<BitmapHeader> sets = f.planner.planHosts(f.hostBits, group);
                ReplicationSimulator.Replication r = assertDelivered(f, source, group, sets);
                long ideal = (long) (Groups.optimumLinks(f.snapshot, source, group) + group.length + 1) * PAYLOAD;
                double ratio = (double) r.totalBytes() / ideal;
                worst = Math.max(worst, ratio);
                maxSets = Math.max(maxSets, sets.size());
                if (trial == 0) {
                    System.out.printf("k=%d random 1024: sets=%d fabric links=%d optimum=%d bytes=%d ideal=%d"
                                    + " ratio=%.4f%n", f.snapshot.hostCount(), sets.size(), r.linksUsed(),
                            Groups.optimumLinks(f.snapshot, source, group), r.totalBytes(), ideal, ratio);
                }
            }
            System.out.printf("k=%d random 1024: worst ratio %.4f, at most %d sets%n", f.snapshot.hostCount(),
                    worst, maxSets);
            assertTrue(worst <= 1.15, "ratio " + worst);
        }
    }

    private static ReplicationSimulator.Replication assertDelivered(Fabric f, int source, int[] group,
                                                                    List<BitmapHeader> sets) {
        ReplicationSimulator.Replication r = f.sim.simulate(source, sets, PAYLOAD, source);
        assertEquals(group.length, r.hostCopies(), "copies delivered");
        for (int h : group) {
            assertEquals(1, r.copiesAt(h));
        }
        assertEquals(0, r.revisits());
        assertEquals(0, r.dropped());
        return r;
    }

    private static void report(String what, Fabric f, List<BitmapHeader> sets, int size) {
        System.out.println("hosts=" + f.snapshot.hostCount() + " " + what + ": " + sets.get(0).encoding() + " "
                + size + " B");
    }
}
