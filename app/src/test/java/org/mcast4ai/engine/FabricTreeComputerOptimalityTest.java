package org.mcast4ai.engine;

import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compares tree sizes with the exact minimum Steiner tree ({@link ExactSteiner}): equal on leaf-spine
 * and fat-tree fabrics, within twice the optimum on general graphs.
 */
class FabricTreeComputerOptimalityTest {
    private final FabricTreeComputer computer = new FabricTreeComputer();

    @Test
    void leafSpineTreesAreMinimal() {
        Random rnd = new Random(21);
        for (int c = 0; c < 300; c++) {
            FabricSnapshot f = FabricGenerators.leafSpine(1 + rnd.nextInt(4), 2 + rnd.nextInt(7), 1 + rnd.nextInt(3));
            assertMinimal(f, rnd, 8);
        }
    }

    @Test
    void fatTreeK4TreesAreMinimal() {
        FabricSnapshot f = FabricGenerators.fatTree(4);
        Random rnd = new Random(22);
        for (int c = 0; c < 300; c++) {
            assertMinimal(f, rnd, 9);
        }
    }

    @Test
    void fatTreeK6TreesAreMinimal() {
        FabricSnapshot f = FabricGenerators.fatTree(6);
        Random rnd = new Random(23);
        for (int c = 0; c < 60; c++) {
            assertMinimal(f, rnd, 7);
        }
    }

    @Test
    void treesAfterLinkFailuresStayNearOptimal() {
        Random rnd = new Random(25);
        double sumRatio = 0;
        int cases = 0;
        int optimal = 0;
        for (int c = 0; c < 200; c++) {
            FabricSnapshot intact = c % 2 == 0 ? FabricGenerators.fatTree(4)
                    : FabricGenerators.leafSpine(2 + rnd.nextInt(3), 3 + rnd.nextInt(5), 2);
            long salt = rnd.nextLong();
            // fail about one link in six, both directions (the exact solver treats links as undirected)
            FabricSnapshot f = FabricGenerators.withoutLinks(intact, (a, b) -> {
                String key = a.compareTo(b) < 0 ? a + "|" + b : b + "|" + a;
                return new Random(key.hashCode() ^ salt).nextInt(6) == 0;
            });
            int source = rnd.nextInt(f.hostCount());
            boolean[] reachable = TreeChecker.reachableFrom(f, f.hostSwitch(source));
            int[] receivers = Groups.receivers(f, source, 1 + rnd.nextInt(8), rnd);
            receivers = java.util.Arrays.stream(receivers).filter(r -> reachable[f.hostSwitch(r)]).toArray();
            MulticastTree t = computer.compute(f, source, receivers, rnd.nextLong());
            TreeChecker.assertDelivers(f, t, source, receivers);
            int exact = ExactSteiner.minLinks(f, Groups.terminals(f, source, receivers));
            assertTrue(t.fabricLinks() >= exact && t.fabricLinks() <= 2 * exact,
                       t.fabricLinks() + " links vs optimum " + exact);
            if (exact > 0) {
                sumRatio += (double) t.fabricLinks() / exact;
                cases++;
                optimal += t.fabricLinks() == exact ? 1 : 0;
            }
        }
        System.out.printf("Clos with failed links: average tree/optimum link ratio %.4f over %d groups, "
                          + "optimal in %d%n", sumRatio / cases, cases, optimal);
    }

    @Test
    void generalGraphTreesAreWithinTwiceOptimal() {
        Random rnd = new Random(24);
        double sumRatio = 0;
        int cases = 0;
        int optimal = 0;
        for (int c = 0; c < 300; c++) {
            int n = 4 + rnd.nextInt(11);
            FabricSnapshot f = FabricGenerators.randomConnected(n, rnd.nextInt(2 * n), 1, rnd);
            int source = rnd.nextInt(f.hostCount());
            int[] receivers = Groups.receivers(f, source, 1 + rnd.nextInt(6), rnd);
            MulticastTree t = computer.compute(f, source, receivers, rnd.nextLong());
            TreeChecker.assertDelivers(f, t, source, receivers);
            int exact = ExactSteiner.minLinks(f, Groups.terminals(f, source, receivers));
            assertTrue(t.fabricLinks() >= exact, "no tree beats the optimum");
            assertTrue(t.fabricLinks() <= 2 * exact, "heuristic within 2x: " + t.fabricLinks() + " vs " + exact);
            if (exact > 0) {
                sumRatio += (double) t.fabricLinks() / exact;
                cases++;
                optimal += t.fabricLinks() == exact ? 1 : 0;
            }
        }
        System.out.printf("general graphs: average heuristic/optimum link ratio %.4f over %d groups, optimal in %d%n",
                          sumRatio / cases, cases, optimal);
    }

    private void assertMinimal(FabricSnapshot f, Random rnd, int maxLeaves) {
        int source = rnd.nextInt(f.hostCount());
        int[] receivers;
        do {
            receivers = Groups.receivers(f, source, 1 + rnd.nextInt(2 * maxLeaves), rnd);
        } while (Groups.terminals(f, source, receivers).length > maxLeaves + 1);
        MulticastTree t = computer.compute(f, source, receivers, rnd.nextLong());
        TreeChecker.assertDelivers(f, t, source, receivers);
        assertEquals(ExactSteiner.minLinks(f, Groups.terminals(f, source, receivers)), t.fabricLinks(),
                     "minimum tree on " + f);
    }
}
