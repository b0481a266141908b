package org.mcast4ai.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tree shapes on small named fabrics: local delivery, spreading, failures, bad input. */
class FabricTreeComputerTest {
    private final FabricTreeComputer computer = new FabricTreeComputer();

    private static int[] hosts(FabricSnapshot f, String... names) {
        return Arrays.stream(names).mapToInt(f::hostIndex).toArray();
    }

    private static Set<String> switchesOf(FabricSnapshot f, MulticastTree t) {
        Set<String> s = new HashSet<>();
        for (int i = 0; i < t.size(); i++) {
            s.add(f.switchName(t.switchAt(i)));
        }
        return s;
    }

    @Test
    void receiversOnTheSourceLeafAreServedThereWithoutLinks() {
        FabricSnapshot f = FabricGenerators.leafSpine(2, 2, 4);
        int source = f.hostIndex("h1-1");
        MulticastTree t = computer.compute(f, source, hosts(f, "h1-2", "h1-4"), 0);
        assertEquals(1, t.size());
        assertEquals(0, t.fabricLinks());
        assertEquals(1L, t.inPort(0));
        assertArrayEquals(new long[]{2, 4}, t.outPorts(0));
    }

    @Test
    void samePodNeedsOneSpineOtherPodsOneSuperSpine() {
        FabricSnapshot f = FabricGenerators.fatTree(4);
        int source = f.hostIndex("h1-1-1");
        int[] samePod = hosts(f, "h1-2-1", "h1-2-2");
        MulticastTree t = computer.compute(f, source, samePod, 7);
        TreeChecker.assertDelivers(f, t, source, samePod);
        assertEquals(2, t.fabricLinks(), "edge up to one agg, down to the other edge");
        assertEquals(Role.SPINE, f.role(t.switchAt(1)));

        int[] otherPods = hosts(f, "h1-1-2", "h2-1-1", "h2-2-1", "h3-1-1", "h4-2-2");
        t = computer.compute(f, source, otherPods, 7);
        TreeChecker.assertDelivers(f, t, source, otherPods);
        // up to one agg and one core, then one agg per pod (3) and one edge per receiver leaf (4)
        assertEquals(2 + 3 + 4, t.fabricLinks());
        long cores = switchesOf(f, t).stream().filter(n -> n.startsWith("core")).count();
        assertEquals(1, cores);
    }

    @Test
    void groupsFromOneLeafSpreadOverSpinesAndSuperSpines() {
        FabricSnapshot ls = FabricGenerators.leafSpine(4, 4, 2);
        int source = ls.hostIndex("h1-1");
        int[] receivers = hosts(ls, "h2-1", "h3-2", "h4-1");
        Set<String> spines = new HashSet<>();
        for (long key = 0; key < 64; key++) {
            MulticastTree t = computer.compute(ls, source, receivers, key);
            assertEquals(4, t.fabricLinks());
            spines.add(ls.switchName(t.switchAt(1)));
        }
        assertTrue(spines.size() > 1, "more than one spine used: " + spines);

        FabricSnapshot ft = FabricGenerators.fatTree(4);
        int src = ft.hostIndex("h1-1-1");
        int[] remote = hosts(ft, "h2-1-1", "h3-2-2");
        Set<String> cores = new HashSet<>();
        for (long key = 0; key < 64; key++) {
            MulticastTree t = computer.compute(ft, src, remote, key);
            switchesOf(ft, t).stream().filter(n -> n.startsWith("core")).forEach(cores::add);
        }
        assertTrue(cores.size() > 1, "more than one super-spine used: " + cores);
    }

    @Test
    void sameKeyGivesTheSameTree() {
        FabricSnapshot f = FabricGenerators.fatTree(6);
        int source = f.hostIndex("h1-1-1");
        int[] receivers = hosts(f, "h2-1-1", "h3-3-2", "h6-2-3", "h1-3-1");
        MulticastTree a = computer.compute(f, source, receivers, 42);
        MulticastTree b = new FabricTreeComputer().compute(f, source, receivers, 42);
        assertEquals(a.size(), b.size());
        for (int i = 0; i < a.size(); i++) {
            assertEquals(a.switchAt(i), b.switchAt(i));
            assertArrayEquals(a.outPorts(i), b.outPorts(i));
        }
    }

    @Test
    void failedLinkIsAvoidedByAnotherSpine() {
        FabricSnapshot f = FabricGenerators.withoutLinks(FabricGenerators.leafSpine(2, 3, 2),
                                                         (a, b) -> isLink(a, b, "spine1", "leaf3"));
        int source = f.hostIndex("h1-1");
        int[] receivers = hosts(f, "h2-1", "h3-1", "h3-2");
        for (long key = 0; key < 32; key++) {
            MulticastTree t = computer.compute(f, source, receivers, key);
            TreeChecker.assertDelivers(f, t, source, receivers);
            assertEquals(0, t.unreachable().length);
            assertEquals(3, t.fabricLinks(), "spine2 covers both leaves");
            assertTrue(switchesOf(f, t).contains("spine2"));
            assertFalse(switchesOf(f, t).contains("spine1"));
        }
    }

    @Test
    void noSingleSpineCoversAllSoASecondBranchIsAdded() {
        FabricSnapshot f = FabricGenerators.withoutLinks(FabricGenerators.leafSpine(2, 3, 1),
                (a, b) -> isLink(a, b, "spine1", "leaf3") || isLink(a, b, "spine2", "leaf2"));
        int source = f.hostIndex("h1-1");
        int[] receivers = hosts(f, "h2-1", "h3-1");
        for (long key = 0; key < 16; key++) {
            MulticastTree t = computer.compute(f, source, receivers, key);
            TreeChecker.assertDelivers(f, t, source, receivers);
            assertEquals(0, t.unreachable().length);
            assertEquals(4, t.fabricLinks());
        }
    }

    @Test
    void failedAggregationLinkInAFatTreeIsAvoided() {
        FabricSnapshot f = FabricGenerators.withoutLinks(FabricGenerators.fatTree(4),
                (a, b) -> isLink(a, b, "agg2-1", "edge2-1") || isLink(a, b, "agg1-2", "core2-1"));
        int source = f.hostIndex("h1-1-1");
        int[] receivers = hosts(f, "h2-1-1", "h2-2-1", "h3-1-1", "h1-2-2");
        for (long key = 0; key < 64; key++) {
            MulticastTree t = computer.compute(f, source, receivers, key);
            TreeChecker.assertDelivers(f, t, source, receivers);
            assertEquals(0, t.unreachable().length);
        }
    }

    @Test
    void aSpineWithAllLinksDownIsNeverUsed() {
        FabricSnapshot f = FabricGenerators.withoutLinks(FabricGenerators.leafSpine(3, 4, 1),
                                                         (a, b) -> a.equals("spine2") || b.equals("spine2"));
        int source = f.hostIndex("h1-1");
        int[] receivers = hosts(f, "h2-1", "h3-1", "h4-1");
        for (long key = 0; key < 32; key++) {
            MulticastTree t = computer.compute(f, source, receivers, key);
            TreeChecker.assertDelivers(f, t, source, receivers);
            assertEquals(4, t.fabricLinks());
            assertFalse(switchesOf(f, t).contains("spine2"));
        }
    }

    @Test
    void disconnectedReceiversAreReportedUnreachable() {
        FabricSnapshot f = FabricGenerators.withoutLinks(FabricGenerators.leafSpine(2, 3, 2),
                                                         (a, b) -> a.equals("leaf3") || b.equals("leaf3"));
        int source = f.hostIndex("h1-1");
        int[] receivers = hosts(f, "h1-2", "h2-1", "h3-1", "h3-2");
        MulticastTree t = computer.compute(f, source, receivers, 5);
        TreeChecker.assertDelivers(f, t, source, receivers);
        int[] unreachable = t.unreachable();
        Arrays.sort(unreachable);
        int[] expected = hosts(f, "h3-1", "h3-2");
        Arrays.sort(expected);
        assertArrayEquals(expected, unreachable);
        assertEquals(2, t.fabricLinks());
    }

    @Test
    void oneWayFailureIsRespected() {
        // spine1 can no longer send to leaf2, though leaf2 can still send to spine1
        FabricSnapshot f = FabricGenerators.withoutLinks(FabricGenerators.leafSpine(2, 2, 1),
                                                         (a, b) -> a.equals("spine1") && b.equals("leaf2"));
        int source = f.hostIndex("h1-1");
        int[] receivers = hosts(f, "h2-1");
        for (long key = 0; key < 16; key++) {
            MulticastTree t = computer.compute(f, source, receivers, key);
            TreeChecker.assertDelivers(f, t, source, receivers);
            assertTrue(switchesOf(f, t).contains("spine2"));
        }
    }

    @Test
    void generalGraphsAreServedBySteinerTrees() {
        // a ring of 6 with hosts on every switch: not a Clos
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (int i = 1; i <= 6; i++) {
            b.addSwitch("r" + i, null).addHost("h" + i, "r" + i, 1);
        }
        for (int i = 1; i <= 6; i++) {
            b.addBiLink("r" + i, 2, "r" + (i % 6 + 1), 3);
        }
        FabricSnapshot f = b.build();
        int source = f.hostIndex("h1");
        int[] receivers = hosts(f, "h3", "h5");
        MulticastTree t = computer.compute(f, source, receivers, 0);
        TreeChecker.assertDelivers(f, t, source, receivers);
        assertEquals(4, t.fabricLinks());
    }

    @Test
    void aFatTreeWithAStrayLinkIsStillServedWithinTwiceTheOptimum() {
        // a leaf-to-leaf cable makes the roles inconsistent with a Clos: the Steiner heuristic takes over
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        FabricSnapshot ft = FabricGenerators.fatTree(4);
        for (int s = 0; s < ft.switchCount(); s++) {
            b.addSwitch(ft.switchName(s), ft.role(s));
            for (int e = ft.linkStart(s); e < ft.linkStart(s + 1); e++) {
                b.addLink(ft.switchName(s), ft.linkFromPort(e), ft.switchName(ft.linkTo(e)), ft.linkToPort(e));
            }
        }
        for (int h = 0; h < ft.hostCount(); h++) {
            b.addHost(ft.hostName(h), ft.switchName(ft.hostSwitch(h)), ft.hostPort(h));
        }
        FabricSnapshot f = b.addBiLink("edge1-1", 9, "edge3-2", 9).build();
        Random rnd = new Random(31);
        for (int c = 0; c < 100; c++) {
            int source = rnd.nextInt(f.hostCount());
            int[] receivers = Groups.receivers(f, source, 1 + rnd.nextInt(8), rnd);
            MulticastTree t = computer.compute(f, source, receivers, c);
            TreeChecker.assertDelivers(f, t, source, receivers);
            int exact = ExactSteiner.minLinks(f, Groups.terminals(f, source, receivers));
            assertTrue(t.fabricLinks() <= 2 * exact);
        }
    }

    @Test
    void concurrentCallersGetTheSameTreesAsOne() throws Exception {
        FabricSnapshot f = FabricGenerators.fatTree(8);
        Random rnd = new Random(32);
        int groups = 200;
        int[] sources = new int[groups];
        int[][] receivers = new int[groups][];
        long[][] expected = new long[groups][];
        for (int g = 0; g < groups; g++) {
            sources[g] = rnd.nextInt(f.hostCount());
            receivers[g] = Groups.receivers(f, sources[g], 1 + rnd.nextInt(60), rnd);
            expected[g] = fingerprint(computer.compute(f, sources[g], receivers[g], g));
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                int group = g;
                results.add(pool.submit(() -> fingerprint(
                        computer.compute(f, sources[group], receivers[group], group))));
            }
            for (int g = 0; g < groups; g++) {
                assertArrayEquals(expected[g], results.get(g).get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static long[] fingerprint(MulticastTree t) {
        List<Long> v = new ArrayList<>();
        for (int i = 0; i < t.size(); i++) {
            v.add((long) t.switchAt(i));
            v.add(t.inPort(i));
            for (long p : t.outPorts(i)) {
                v.add(p);
            }
        }
        return v.stream().mapToLong(Long::longValue).toArray();
    }

    @Test
    void badInputGetsAClearError() {
        FabricSnapshot f = FabricGenerators.leafSpine(1, 2, 1);
        assertThrows(IllegalArgumentException.class, () -> computer.compute(f, 9, new int[]{0}, 0));
        assertThrows(IllegalArgumentException.class, () -> computer.compute(f, 0, new int[]{-1}, 0));
        assertThrows(IllegalArgumentException.class, () -> computer.compute(f, 0, null, 0));
        assertThrows(IllegalArgumentException.class, () -> computer.compute(null, 0, new int[]{1}, 0));
    }

    private static boolean isLink(String a, String b, String x, String y) {
        return a.equals(x) && b.equals(y) || a.equals(y) && b.equals(x);
    }
}
