package org.mcast4ai.engine.bitmap;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Replication by the static tables after failures: the tables are rebuilt from the fabric that is left (the
 * bit indices stay those of the whole fabric), and every receiver with a surviving up-down path from the
 * source gets exactly one copy while every other one is counted as dropped, never lost silently.
 */
class FailureSafeReplicationTest {

    @Test
    void aFailedCoreLinkNoLongerLosesThePodBehindIt() {
        FabricSnapshot whole = FabricGenerators.fatTree(8);
        BitIndexTable bits = BitIndexTable.forFabric(whole);
        FabricSnapshot f = FabricGenerators.withoutLinks(whole, (a, b) ->
                a.equals("agg3-1") && b.equals("core1-1") || a.equals("core1-1") && b.equals("agg3-1"));
        ReplicationSimulator sim = new ReplicationSimulator(f, SwitchTables.build(f, bits));
        HeaderV2Planner planner = new HeaderV2Planner(bits.geometry());
        int source = f.hostIndex("h1-1-1");
        int[] group = {f.hostIndex("h3-2-1"), f.hostIndex("h3-3-2"), f.hostIndex("h5-1-1")};
        for (int entropy = 0; entropy < 16; entropy++) {
            ReplicationSimulator.Replication r = sim.simulate(source, planner.planHosts(bits.hostBits(f), group,
                    entropy), 4096);
            assertDelivery(f, group, reachable(f, source, group), r, "entropy " + entropy);
        }
    }

    @Test
    void afterOneOrTwoFailuresEveryReachableReceiverGetsOneCopyAndTheRestAreCounted() {
        Random rnd = new Random(20261202);
        int unreachableSeen = 0;
        for (int trial = 0; trial < 400; trial++) {
            FabricSnapshot whole = ReplicationPropertyTest.randomFabric(rnd);
            BitIndexTable bits = BitIndexTable.forFabric(whole);
            int source = rnd.nextInt(whole.hostCount());
            // a third of the trials fail two things: then no single uplink may reach every receiver any more
            String fault = fault(whole, source, rnd);
            FabricSnapshot f = fail(whole, fault);
            if (trial % 3 == 2) {
                String second = fault(whole, source, rnd);
                f = fail(f, second);
                fault += " and " + second;
            }
            ReplicationSimulator sim = new ReplicationSimulator(f, SwitchTables.build(f, bits));
            int n = 1 + rnd.nextInt(whole.hostCount() - 1);
            int[] group = rnd.nextBoolean() ? Groups.random(whole, n, source, rnd)
                    : Groups.rackPacked(whole, n, source);
            HeaderV2Planner planner = new HeaderV2Planner(bits.geometry(), new int[]{64, 384}[rnd.nextInt(2)]);
            List<HeaderV2> sets = planner.planHosts(bits.hostBits(whole), group, rnd.nextInt(1 << 16));
            boolean[] reach = reachable(f, source, group);
            for (boolean ok : reach) {
                unreachableSeen += ok ? 0 : 1;
            }
            assertDelivery(f, group, reach, sim.simulate(source, sets, 1000),
                    "trial " + trial + " " + whole + " without " + fault + ", source " + whole.hostName(source)
                            + ", " + group.length + " receivers in " + sets.size() + " sets");
        }
        assertEquals(true, unreachableSeen > 0, "some failures cut receivers off (the oracle is exercised)");
    }

    /** A random single failure: a switch-to-switch link, a switch above the leaves, or a leaf's uplinks. */
    static String fault(FabricSnapshot f, int source, Random rnd) {
        List<String> links = new ArrayList<>();
        List<String> upper = new ArrayList<>();
        for (int s = 0; s < f.switchCount(); s++) {
            if (f.role(s) != Role.LEAF) {
                upper.add("switch " + f.switchName(s));
            }
            for (int e = f.linkStart(s); e < f.linkStart(s + 1); e++) {
                if (s < f.linkTo(e)) {
                    links.add("link " + f.switchName(s) + " " + f.switchName(f.linkTo(e)));
                }
            }
        }
        switch (rnd.nextInt(3)) {
            case 0:
                return upper.get(rnd.nextInt(upper.size()));
            case 1:
                int leaf;
                do {
                    leaf = rnd.nextInt(f.switchCount());
                } while (f.role(leaf) != Role.LEAF || leaf == f.hostSwitch(source));
                return "switch " + f.switchName(leaf);
            default:
                return links.get(rnd.nextInt(links.size()));
        }
    }

    static FabricSnapshot fail(FabricSnapshot f, String fault) {
        String[] w = fault.split(" ");
        if (w[0].equals("switch")) {
            return FabricGenerators.withoutLinks(f, (a, b) -> a.equals(w[1]) || b.equals(w[1]));
        }
        return FabricGenerators.withoutLinks(f, (a, b) -> a.equals(w[1]) && b.equals(w[2])
                || a.equals(w[2]) && b.equals(w[1]));
    }

    /**
     * The oracle, independent of the tables: a receiver is reachable if its leaf is the source's leaf or lies
     * on a valley-free path (up through higher roles, then down) over the links that are left.
     */
    static boolean[] reachable(FabricSnapshot f, int source, int[] group) {
        int src = f.hostSwitch(source);
        Set<Integer> up = new HashSet<>();
        ArrayDeque<Integer> q = new ArrayDeque<>(List.of(src));
        up.add(src);
        while (!q.isEmpty()) {
            int s = q.poll();
            for (int e = f.linkStart(s); e < f.linkStart(s + 1); e++) {
                int v = f.linkTo(e);
                if (f.role(v).ordinal() > f.role(s).ordinal() && up.add(v)) {
                    q.add(v);
                }
            }
        }
        Set<Integer> down = new HashSet<>(up);
        q.addAll(up);
        while (!q.isEmpty()) {
            int s = q.poll();
            for (int e = f.linkStart(s); e < f.linkStart(s + 1); e++) {
                int v = f.linkTo(e);
                if (f.role(v).ordinal() < f.role(s).ordinal() && down.add(v)) {
                    q.add(v);
                }
            }
        }
        boolean[] out = new boolean[group.length];
        for (int i = 0; i < group.length; i++) {
            out[i] = down.contains(f.hostSwitch(group[i]));
        }
        return out;
    }

    private static void assertDelivery(FabricSnapshot f, int[] group, boolean[] reachable,
                                       ReplicationSimulator.Replication r, String what) {
        boolean[] expected = new boolean[f.hostCount()];
        int lost = 0;
        for (int i = 0; i < group.length; i++) {
            expected[group[i]] = reachable[i];
            lost += reachable[i] ? 0 : 1;
        }
        for (int h = 0; h < f.hostCount(); h++) {
            assertEquals(expected[h] ? 1 : 0, r.copiesAt(h), f.hostName(h) + ": " + what);
        }
        assertEquals(0, r.revisits(), "no loop: " + what);
        assertEquals(0, r.copiesToSource(), what);
        assertEquals(lost, r.dropped(), "every unreachable receiver is counted, no other: " + what);
    }
}
