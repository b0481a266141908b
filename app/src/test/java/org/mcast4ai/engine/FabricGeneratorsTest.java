package org.mcast4ai.engine;

import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sizes, names, ports and connectivity of the generated fabrics. */
class FabricGeneratorsTest {

    @Test
    void leafSpineHasFullBipartiteLinks() {
        FabricSnapshot f = FabricGenerators.leafSpine(3, 5, 4);
        assertEquals(8, f.switchCount());
        assertEquals(20, f.hostCount());
        assertEquals(2 * 3 * 5, f.linkCount());
        int leaf = f.switchIndex("leaf2");
        int spine = f.switchIndex("spine3");
        assertEquals(Role.LEAF, f.role(leaf));
        assertEquals(Role.SPINE, f.role(spine));
        int up = f.findLink(leaf, spine);
        assertEquals(4 + 3, f.linkFromPort(up));
        assertEquals(2, f.linkToPort(up));
        assertEquals(3, f.hostPort(f.hostIndex("h2-3")));
        assertEquals(leaf, f.hostSwitch(f.hostIndex("h2-3")));
        assertPortsDistinctFromOne(f);
    }

    @Test
    void fatTreeHasTheTextbookShape() {
        int k = 6;
        FabricSnapshot f = FabricGenerators.fatTree(k);
        assertEquals(5 * k * k / 4, f.switchCount());
        assertEquals(k * k * k / 4, f.hostCount());
        assertEquals(2 * (k * k * k / 4 + k * k * k / 4), f.linkCount());
        assertEquals(Role.SUPER_SPINE, f.role(f.switchIndex("core2-3")));
        int agg = f.switchIndex("agg4-2");
        int link = f.findLink(agg, f.switchIndex("core2-3"));
        assertEquals(k / 2 + 3, f.linkFromPort(link));
        assertEquals(4, f.linkToPort(link));
        assertEquals(-1, f.findLink(agg, f.switchIndex("core1-1")), "agg j only reaches core group j");
        assertPortsDistinctFromOne(f);
        assertConnected(f);
    }

    @Test
    void randomGraphsAreConnectedAndReproducible() {
        for (int seed = 0; seed < 50; seed++) {
            FabricSnapshot a = FabricGenerators.randomConnected(1 + seed % 17, seed % 9, 2, new Random(seed));
            FabricSnapshot b = FabricGenerators.randomConnected(1 + seed % 17, seed % 9, 2, new Random(seed));
            assertEquals(a.linkCount(), b.linkCount());
            assertConnected(a);
            assertPortsDistinctFromOne(a);
        }
    }

    @Test
    void withoutLinksRemovesOnlyThoseLinks() {
        FabricSnapshot f = FabricGenerators.leafSpine(2, 2, 1);
        FabricSnapshot g = FabricGenerators.withoutLinks(f, (a, b) -> a.equals("leaf1") && b.equals("spine2"));
        assertEquals(f.linkCount() - 1, g.linkCount());
        assertEquals(-1, g.findLink(g.switchIndex("leaf1"), g.switchIndex("spine2")));
        assertTrue(g.findLink(g.switchIndex("spine2"), g.switchIndex("leaf1")) >= 0);
        assertEquals(f.hostCount(), g.hostCount());
    }

    @Test
    void badSizesGetAClearError() {
        assertThrows(IllegalArgumentException.class, () -> FabricGenerators.fatTree(5));
        assertThrows(IllegalArgumentException.class, () -> FabricGenerators.leafSpine(0, 2, 1));
        assertThrows(IllegalArgumentException.class, () -> FabricGenerators.randomConnected(0, 0, 1, new Random()));
    }

    private static void assertPortsDistinctFromOne(FabricSnapshot f) {
        for (int s = 0; s < f.switchCount(); s++) {
            java.util.Set<Long> ports = new java.util.HashSet<>();
            for (int e = f.linkStart(s); e < f.linkStart(s + 1); e++) {
                assertTrue(f.linkFromPort(e) >= 1);
                assertTrue(ports.add(f.linkFromPort(e)), "port used twice on " + f.switchName(s));
            }
            for (int k = f.hostStart(s); k < f.hostStart(s + 1); k++) {
                assertTrue(f.hostPort(f.hostAt(k)) >= 1);
                assertTrue(ports.add(f.hostPort(f.hostAt(k))), "port used twice on " + f.switchName(s));
            }
        }
    }

    private static void assertConnected(FabricSnapshot f) {
        boolean[] seen = TreeChecker.reachableFrom(f, 0);
        for (boolean b : seen) {
            assertTrue(b);
        }
    }
}
