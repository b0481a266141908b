package org.mcast4ai.engine.bitmap;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BitIndexTableTest {

    @Test
    void fatTreeHostsGetDistinctIndicesGroupedByPodAndLeaf() {
        FabricSnapshot f = FabricGenerators.fatTree(8);
        BitIndexTable t = BitIndexTable.forFabric(f);
        FabricGeometry g = t.geometry();
        assertEquals(FabricGeometry.fatTree(8), g);
        Set<Integer> seen = new HashSet<>();
        for (int h = 0; h < f.hostCount(); h++) {
            int bit = t.bitOf(f.switchName(f.hostSwitch(h)), f.hostPort(h));
            assertTrue(g.isValid(bit), "host " + f.hostName(h));
            assertTrue(seen.add(bit), "duplicate index for " + f.hostName(h));
        }
        // hosts of one leaf share (pod, leaf); leaves of one pod share the pod
        assertEquals(t.bitOf("edge3-2", 1) - g.slotOf(t.bitOf("edge3-2", 1)), t.leafPrefix("edge3-2"));
        assertEquals(g.podOf(t.leafPrefix("edge3-1")), g.podOf(t.leafPrefix("edge3-4")));
        assertNotEquals(g.podOf(t.leafPrefix("edge3-1")), g.podOf(t.leafPrefix("edge4-1")));
    }

    @Test
    void leafSpineUsesVirtualPodsOf32Leaves() {
        FabricSnapshot f = FabricGenerators.leafSpine(4, 40, 3);
        BitIndexTable t = BitIndexTable.forFabric(f);
        assertEquals(new FabricGeometry(false, 2, 32, 3), t.geometry());
        assertEquals(120, t.positions().size());
    }

    @Test
    void freshAllocationOfTheSameFabricIsIdentical() {
        FabricSnapshot f = FabricGenerators.fatTree(6);
        assertEquals(BitIndexTable.forFabric(f), BitIndexTable.forFabric(f));
        BitIndexTable t = BitIndexTable.forFabric(f);
        assertSame(t, t.allocate(f), "nothing new, nothing changes");
        assertEquals(t, BitIndexTable.of(t.geometry(), t.leaves(), t.positions()), "stored parts rebuild it");
    }

    @Test
    void addingLeavesAndHostsNeverRenumbersExistingPositions() {
        FabricGeometry roomy = new FabricGeometry(false, 1, 8, 8);
        BitIndexTable small = BitIndexTable.empty(roomy).allocate(FabricGenerators.leafSpine(2, 3, 2));
        BitIndexTable grown = small.allocate(FabricGenerators.leafSpine(2, 5, 4));
        for (Map.Entry<String, Integer> e : small.positions().entrySet()) {
            assertEquals(e.getValue(), grown.positions().get(e.getKey()), e.getKey());
        }
        assertEquals(small.leaves(), Map.copyOf(subMap(grown.leaves(), small.leaves().keySet())));
        assertEquals(20, grown.positions().size());
        assertTrue(grown.overflow().isEmpty());
    }

    @Test
    void aHostMovingTakesANewSlotAndNobodyElseMoves() {
        FabricSnapshot before = FabricSnapshot.builder()
                .addSwitch("s1", Role.SPINE).addSwitch("l1", Role.LEAF).addSwitch("l2", Role.LEAF)
                .addBiLink("s1", 1, "l1", 10).addBiLink("s1", 2, "l2", 10)
                .addHost("a", "l1", 1).addHost("b", "l1", 2).addHost("c", "l2", 1).build();
        // "a" moves from l1 port 1 to l2 port 5; l1 port 1 stays reserved
        FabricSnapshot after = FabricSnapshot.builder()
                .addSwitch("s1", Role.SPINE).addSwitch("l1", Role.LEAF).addSwitch("l2", Role.LEAF)
                .addBiLink("s1", 1, "l1", 10).addBiLink("s1", 2, "l2", 10)
                .addHost("b", "l1", 2).addHost("c", "l2", 1).addHost("a", "l2", 5).build();
        BitIndexTable t0 = BitIndexTable.empty(new FabricGeometry(false, 1, 4, 4)).allocate(before);
        BitIndexTable t1 = t0.allocate(after);
        assertEquals(t0.bitOf("l1", 2), t1.bitOf("l1", 2));
        assertEquals(t0.bitOf("l2", 1), t1.bitOf("l2", 1));
        assertEquals(t0.bitOf("l1", 1), t1.bitOf("l1", 1), "old position keeps its index for a host coming back");
        int moved = t1.bitOf("l2", 5);
        assertEquals(t1.leafPrefix("l2") + 1, moved, "lowest free slot on the new leaf");
        // a rebuilt table from the later fabric alone could differ; the stored table is the source of truth
        assertEquals(t1, t1.allocate(before));
    }

    @Test
    void aNewPodGetsTheLowestFreePodNumber() {
        BitIndexTable t = BitIndexTable.empty(new FabricGeometry(true, 8, 4, 4)).allocate(FabricGenerators.fatTree(4));
        Set<Integer> pods = new HashSet<>();
        for (int prefix : t.leaves().values()) {
            pods.add(t.geometry().podOf(prefix));
        }
        assertEquals(Set.of(0, 1, 2, 3), pods);
    }

    @Test
    void positionsBeyondTheGeometryOverflowWithoutTouchingOthers() {
        BitIndexTable t = BitIndexTable.empty(new FabricGeometry(false, 1, 2, 2))
                .allocate(FabricGenerators.leafSpine(1, 3, 3));
        assertEquals(4, t.positions().size());
        assertTrue(t.overflow().contains("leaf3"), t.overflow().toString());
        assertTrue(t.overflow().contains(BitIndexTable.positionKey("leaf1", 3)), t.overflow().toString());
    }

    @Test
    void geometryRejectsFabricsBeyond16Bits() {
        assertEquals(16, FabricGeometry.bitsFor(64) + FabricGeometry.bitsFor(32) * 2);
        FabricGeometry.fatTree(64);
        FabricGeometry.leafSpine(1024, 48);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FabricGeometry.leafSpine(1024, 65));
        assertTrue(e.getMessage().contains("16-bit"), e.getMessage());
        FabricGeometry g = FabricGeometry.fatTree(48);
        int bit = g.bit(47, 23, 23);
        assertEquals(47, g.podOf(bit));
        assertEquals(23, g.leafOf(bit));
        assertEquals(23, g.slotOf(bit));
        assertThrows(IllegalArgumentException.class, () -> g.bit(48, 0, 0));
    }

    private static Map<String, Integer> subMap(Map<String, Integer> m, Set<String> keys) {
        Map<String, Integer> out = new HashMap<>();
        for (String k : keys) {
            out.put(k, m.get(k));
        }
        return out;
    }
}
