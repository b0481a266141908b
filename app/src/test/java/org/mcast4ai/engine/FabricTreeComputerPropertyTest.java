package org.mcast4ai.engine;

import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * Hundreds of random fabrics and groups, with and without failed links: every tree must deliver exactly
 * one copy to each reachable receiver and nothing else ({@link TreeChecker}).
 */
class FabricTreeComputerPropertyTest {
    private final FabricTreeComputer computer = new FabricTreeComputer();

    @Test
    void leafSpineTreesDeliverExactlyOnce() {
        Random rnd = new Random(11);
        for (int c = 0; c < 300; c++) {
            FabricSnapshot f = FabricGenerators.leafSpine(1 + rnd.nextInt(5), 1 + rnd.nextInt(10),
                                                          1 + rnd.nextInt(4));
            checkRandomGroups(maybeFail(f, rnd, c % 3 == 0), rnd, 3);
        }
    }

    @Test
    void fatTreesDeliverExactlyOnce() {
        Random rnd = new Random(12);
        for (int c = 0; c < 200; c++) {
            FabricSnapshot f = FabricGenerators.fatTree(2 * (1 + rnd.nextInt(4)));
            checkRandomGroups(maybeFail(f, rnd, c % 3 == 0), rnd, 3);
        }
    }

    @Test
    void randomGraphTreesDeliverExactlyOnce() {
        Random rnd = new Random(13);
        for (int c = 0; c < 300; c++) {
            int n = 1 + rnd.nextInt(30);
            FabricSnapshot f = FabricGenerators.randomConnected(n, rnd.nextInt(2 * n + 1), 1 + rnd.nextInt(3), rnd);
            checkRandomGroups(maybeFail(f, rnd, c % 3 == 0), rnd, 3);
        }
    }

    @Test
    void inferredRolesOnSparseHostsDeliverExactlyOnce() {
        // hosts only on some switches: inferred roles may or may not look like a Clos
        Random rnd = new Random(14);
        for (int c = 0; c < 200; c++) {
            int n = 2 + rnd.nextInt(20);
            FabricSnapshot g = FabricGenerators.randomConnected(n, rnd.nextInt(n + 1), 2, rnd);
            double keep = 0.2 + 0.6 * rnd.nextDouble();
            FabricSnapshot.Builder b = FabricSnapshot.builder();
            for (int s = 0; s < g.switchCount(); s++) {
                b.addSwitch(g.switchName(s), null);
            }
            for (int s = 0; s < g.switchCount(); s++) {
                for (int e = g.linkStart(s); e < g.linkStart(s + 1); e++) {
                    b.addLink(g.switchName(s), g.linkFromPort(e), g.switchName(g.linkTo(e)), g.linkToPort(e));
                }
            }
            int hosts = 0;
            for (int h = 0; h < g.hostCount(); h++) {
                if (hosts < 2 || rnd.nextDouble() < keep) {
                    b.addHost(g.hostName(h), g.switchName(g.hostSwitch(h)), g.hostPort(h));
                    hosts++;
                }
            }
            checkRandomGroups(b.build(), rnd, 3);
        }
    }

    private void checkRandomGroups(FabricSnapshot f, Random rnd, int groups) {
        if (f.hostCount() < 2) {
            return;
        }
        for (int g = 0; g < groups; g++) {
            int source = rnd.nextInt(f.hostCount());
            int[] receivers = Groups.receivers(f, source, 1 + rnd.nextInt(f.hostCount()), rnd);
            MulticastTree t = computer.compute(f, source, receivers, rnd.nextLong());
            TreeChecker.assertDelivers(f, t, source, receivers);
        }
    }

    /** Removes some links: both directions, or one direction only. */
    private static FabricSnapshot maybeFail(FabricSnapshot f, Random rnd, boolean fail) {
        if (!fail) {
            return f;
        }
        double p = 0.05 + 0.25 * rnd.nextDouble();
        boolean oneWay = rnd.nextBoolean();
        long salt = rnd.nextLong();
        return FabricGenerators.withoutLinks(f, (a, b) -> {
            String key = oneWay || a.compareTo(b) < 0 ? a + "|" + b : b + "|" + a;
            return new Random(key.hashCode() ^ salt).nextDouble() < p;
        });
    }
}
