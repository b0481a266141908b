package org.mcast4ai.impl.bitmap;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;
import org.onlab.packet.IpAddress;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BITMAP after a single link or switch failure: the static tables are re-derived from the fabric that is left
 * (with the bit indices of the whole fabric), each group is compiled again, and every receiver still attached
 * gets exactly one copy of the whole-group packet, nothing reaches anyone else, and no receiver with a
 * surviving up-down path is reported unreachable. Random failures, random groups.
 */
class BitmapFailureTest {
    private static final int ENTRY = 0;
    private final BitmapPlanner planner = new BitmapPlanner(new DefaultApplicationId(7, "t"), ENTRY,
            BitmapPlanner.DEFAULT_CHAIN_BASE);

    @Test
    void leafSpineRoutesAroundEverySingleLinkAndSpineFailure() {
        check(BitmapFabrics.leafSpine(2, 4, 2), 40, 21);
        check(BitmapFabrics.leafSpine(3, 5, 3), 40, 22);
    }

    @Test
    void fatTreeRoutesAroundEverySingleLinkAndSwitchAboveTheEdge() {
        check(FabricGenerators.fatTree(4), 30, 23);
    }

    /**
     * Make-before-break of the static tables: after a failure the switches that are left first get the new
     * entries beside the old ones (a device's add stage), and only then lose the stale ones. In between, a
     * group whose stamp did not change must not deliver any receiver twice.
     */
    @Test
    void staticTablesChangingUnderAGroupNeverDuplicate() {
        for (FabricSnapshot whole : List.of(BitmapFabrics.leafSpine(2, 4, 2), BitmapFabrics.leafSpine(3, 5, 3),
                FabricGenerators.fatTree(4))) {
            Map<String, Integer> indices = new HashMap<>(BitmapLayout.of(whole).positionBits());
            BitmapLayout before = BitmapLayout.of(whole, indices);
            Random rnd = new Random(31);
            for (String failure : failures(whole)) {
                FabricSnapshot f = without(whole, failure);
                BitmapLayout after = BitmapLayout.of(f, indices);
                OpenFlowSim sim = new OpenFlowSim(f, ENTRY);
                sim.install(planner.staticEntries(before));
                sim.install(planner.staticEntries(after));
                for (int g = 0; g < 20; g++) {
                    String source = f.hostName(rnd.nextInt(f.hostCount()));
                    List<String> members = BitmapFabrics.randomMembers(f, source, rnd);
                    String addr = "239.2.0." + (g + 1);
                    BitmapStamp.Result old = BitmapStamp.compile(before, source, members, IpAddress.valueOf(addr),
                            40000, g);
                    BitmapStamp.Result now = BitmapStamp.compile(after, source, members, IpAddress.valueOf(addr),
                            40000, g);
                    if (members.isEmpty() || old.stamp() == null || !old.stamp().equals(now.stamp())) {
                        continue;
                    }
                    sim.install(planner.stampRules(now.stamp()));
                    Map<String, Integer> copies = new HashMap<>();
                    sim.send(source, now.stamp().groupMac().toLong(), addr)
                            .forEach(d -> copies.merge(d.host, 1, Integer::sum));
                    copies.forEach((host, n) -> assertEquals(1, n, failure + ": " + host + " got " + n
                            + " copies while the tables change"));
                    assertTrue(members.containsAll(copies.keySet()), failure + ": a copy reached a non-member");
                }
            }
        }
    }

    /**
     * The fingerprint other instances compare with names the entries: two layouts (the whole fabric, built
     * twice, and after each single failure) have the same fingerprint exactly when they derive the same static
     * entries, and a planner with other tables gives another one.
     */
    @Test
    void fingerprintsAreEqualExactlyWhenTheStaticEntriesAre() {
        for (FabricSnapshot whole : List.of(BitmapFabrics.leafSpine(2, 4, 2), BitmapFabrics.leafSpine(3, 5, 3),
                FabricGenerators.fatTree(4))) {
            Map<String, Integer> indices = new HashMap<>(BitmapLayout.of(whole).positionBits());
            List<BitmapLayout> layouts = new ArrayList<>();
            layouts.add(BitmapLayout.of(whole, indices));
            layouts.add(BitmapLayout.of(without(whole, "none:0"), indices));
            failures(whole).forEach(failure -> layouts.add(BitmapLayout.of(without(whole, failure), indices)));
            // changes of reach alone, same ports: other bit numbers, a host gone
            Map<String, Integer> swapped = new HashMap<>(indices);
            String a0 = swapped.keySet().stream().sorted().findFirst().orElseThrow();
            String a1 = swapped.keySet().stream().sorted().reduce((x, y) -> y).orElseThrow();
            swapped.put(a0, indices.get(a1));
            swapped.put(a1, indices.get(a0));
            layouts.add(BitmapLayout.of(whole, swapped));
            for (int h = 0; h < whole.hostCount(); h += 3) {
                layouts.add(BitmapLayout.of(withoutHost(whole, h), indices));
            }
            List<Object> entries = new ArrayList<>();
            List<String> prints = new ArrayList<>();
            for (BitmapLayout l : layouts) {
                entries.add(entries(planner.staticEntries(l)));
                prints.add(planner.fingerprint(l));
            }
            int distinct = 0;
            for (int a = 0; a < layouts.size(); a++) {
                for (int b = a + 1; b < layouts.size(); b++) {
                    assertEquals(entries.get(a).equals(entries.get(b)), prints.get(a).equals(prints.get(b)),
                            "layouts " + a + " and " + b);
                }
                distinct += entries.indexOf(entries.get(a)) == a ? 1 : 0;
            }
            assertEquals(prints.get(0), prints.get(1));
            assertTrue(distinct > layouts.size() / 2, "the failures change the entries");
            BitmapPlanner other = new BitmapPlanner(new DefaultApplicationId(7, "t"), ENTRY,
                    BitmapPlanner.DEFAULT_CHAIN_BASE + 1);
            assertNotEquals(prints.get(0), other.fingerprint(layouts.get(0)));
        }
    }

    private static Map<String, Set<List<Object>>> entries(Map<DeviceId, BitmapPlanner.DeviceEntries> all) {
        Map<String, Set<List<Object>>> out = new HashMap<>();
        all.forEach((device, e) -> {
            Set<List<Object>> s = new HashSet<>();
            e.rules().forEach(r -> s.add(List.of(r.id(), r.tableId(), r.priority(), r.selector(), r.treatment())));
            e.groups().forEach(g -> s.add(List.of(g.givenGroupId(), g.appCookie(), g.buckets())));
            out.put(device.toString(), s);
        });
        return out;
    }

    private static FabricSnapshot withoutHost(FabricSnapshot f, int gone) {
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (int sw = 0; sw < f.switchCount(); sw++) {
            b.addSwitch(f.switchName(sw), f.role(sw));
        }
        for (int sw = 0; sw < f.switchCount(); sw++) {
            for (int e = f.linkStart(sw); e < f.linkStart(sw + 1); e++) {
                b.addLink(f.switchName(sw), f.linkFromPort(e), f.switchName(f.linkTo(e)), f.linkToPort(e));
            }
        }
        for (int h = 0; h < f.hostCount(); h++) {
            if (h != gone) {
                b.addHost(f.hostName(h), f.switchName(f.hostSwitch(h)), f.hostPort(h));
            }
        }
        return b.build();
    }

    static List<String> failures(FabricSnapshot whole) {
        List<String> failures = new ArrayList<>();
        for (int sw = 0; sw < whole.switchCount(); sw++) {
            for (int e = whole.linkStart(sw); e < whole.linkStart(sw + 1); e++) {
                if (whole.linkTo(e) > sw) {
                    failures.add("link:" + sw + ":" + e);
                }
            }
            if (whole.role(sw) != Role.LEAF) {
                failures.add("switch:" + sw);
            }
        }
        return failures;
    }

    private void check(FabricSnapshot whole, int groupsPerFailure, long seed) {
        Map<String, Integer> indices = new HashMap<>(BitmapLayout.of(whole).positionBits());
        Random rnd = new Random(seed);
        for (String failure : failures(whole)) {
            FabricSnapshot f = without(whole, failure);
            BitmapLayout layout = BitmapLayout.of(f, indices);
            assertTrue(layout.fits(), failure + ": " + layout.whyNot());
            OpenFlowSim sim = new OpenFlowSim(f, ENTRY);
            sim.install(planner.staticEntries(layout));
            Map<Integer, String> hostOfBit = new HashMap<>();
            for (int h = 0; h < f.hostCount(); h++) {
                hostOfBit.put(layout.bitOfHost(f.hostName(h)), f.hostName(h));
            }
            for (int g = 0; g < groupsPerFailure; g++) {
                String source = f.hostName(rnd.nextInt(f.hostCount()));
                List<String> members = BitmapFabrics.randomMembers(f, source, rnd);
                if (members.isEmpty()) {
                    continue;
                }
                String addr = "239.1." + (g / 250) + "." + (g % 250 + 1);
                BitmapStamp.Result r = BitmapStamp.compile(layout, source, members, IpAddress.valueOf(addr), 40000,
                        rnd.nextInt(16));
                assertNotNull(r.stamp(), failure + ": " + r.failure());
                assertEquals(List.of(), r.unreachable(), failure + ": every receiver has a surviving up-down path");
                sim.install(planner.stampRules(r.stamp()));
                Map<String, Integer> copies = new HashMap<>();
                sim.send(source, r.stamp().groupMac().toLong(), addr).forEach(d -> copies.merge(d.host, 1,
                        Integer::sum));
                Map<String, Integer> want = new HashMap<>();
                members.forEach(m -> want.put(m, 1));
                assertEquals(want, copies, failure + ", group " + addr + " from " + source);
            }
        }
    }

    /**
     * A leaf back before its links (or cut off from every spine) keeps its hosts: BITMAP still fits the rest of
     * the fabric, its receivers are reported unreachable, and everyone else gets exactly one copy.
     */
    @Test
    void aLeafWithoutUplinksCutsOffOnlyItsOwnReceivers() {
        for (FabricSnapshot whole : List.of(BitmapFabrics.leafSpine(2, 4, 2), FabricGenerators.fatTree(4))) {
            Map<String, Integer> indices = new HashMap<>(BitmapLayout.of(whole).positionBits());
            Random rnd = new Random(41);
            for (int leaf = 0; leaf < whole.switchCount(); leaf++) {
                if (whole.role(leaf) != Role.LEAF) {
                    continue;
                }
                FabricSnapshot f = detached(whole, leaf);
                BitmapLayout layout = BitmapLayout.of(f, indices);
                assertTrue(layout.fits(), layout.whyNot().orElse(""));
                OpenFlowSim sim = new OpenFlowSim(f, ENTRY);
                sim.install(planner.staticEntries(layout));
                for (int g = 0; g < 20; g++) {
                    String source = f.hostName(rnd.nextInt(f.hostCount()));
                    if (f.hostSwitch(f.hostIndex(source)) == leaf) {
                        continue;
                    }
                    List<String> members = BitmapFabrics.randomMembers(f, source, rnd);
                    List<String> cut = new ArrayList<>();
                    Map<String, Integer> want = new HashMap<>();
                    for (String m : members) {
                        if (f.hostSwitch(f.hostIndex(m)) == leaf) {
                            cut.add(m);
                        } else {
                            want.put(m, 1);
                        }
                    }
                    if (want.isEmpty()) {
                        continue;
                    }
                    String addr = "239.2." + leaf + "." + (g + 1);
                    BitmapStamp.Result r = BitmapStamp.compile(layout, source, members, IpAddress.valueOf(addr),
                            40000, rnd.nextInt(16));
                    assertNotNull(r.stamp(), r.failure());
                    assertEquals(new java.util.TreeSet<>(cut), new java.util.TreeSet<>(r.unreachable()),
                            "the cut-off leaf's receivers are reported, no one else");
                    sim.install(planner.stampRules(r.stamp()));
                    Map<String, Integer> copies = new HashMap<>();
                    sim.send(source, r.stamp().groupMac().toLong(), addr).forEach(d -> copies.merge(d.host, 1,
                            Integer::sum));
                    assertEquals(want, copies, f.switchName(leaf) + " cut off, group " + addr + " from " + source);
                }
            }
        }
    }

    /** The fabric with one leaf's links gone, the leaf and its hosts still there. */
    private static FabricSnapshot detached(FabricSnapshot f, int leaf) {
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (int sw = 0; sw < f.switchCount(); sw++) {
            b.addSwitch(f.switchName(sw), f.role(sw));
        }
        for (int sw = 0; sw < f.switchCount(); sw++) {
            for (int e = f.linkStart(sw); e < f.linkStart(sw + 1); e++) {
                if (sw != leaf && f.linkTo(e) != leaf) {
                    b.addLink(f.switchName(sw), f.linkFromPort(e), f.switchName(f.linkTo(e)), f.linkToPort(e));
                }
            }
        }
        for (int h = 0; h < f.hostCount(); h++) {
            b.addHost(f.hostName(h), f.switchName(f.hostSwitch(h)), f.hostPort(h));
        }
        return b.build();
    }

    /** The fabric without one link (both directions) or one switch (and its links). */
    static FabricSnapshot without(FabricSnapshot f, String failure) {
        String[] p = failure.split(":");
        int gone = p[0].equals("switch") ? Integer.parseInt(p[1]) : -1;
        int la = p[0].equals("link") ? Integer.parseInt(p[1]) : -1;
        int le = p[0].equals("link") ? Integer.parseInt(p[2]) : -1;
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (int sw = 0; sw < f.switchCount(); sw++) {
            if (sw != gone) {
                b.addSwitch(f.switchName(sw), f.role(sw));
            }
        }
        for (int sw = 0; sw < f.switchCount(); sw++) {
            for (int e = f.linkStart(sw); e < f.linkStart(sw + 1); e++) {
                int to = f.linkTo(e);
                if (sw == gone || to == gone) {
                    continue;
                }
                boolean cut = sw == la && e == le || to == la && f.linkToPort(e) == f.linkFromPort(le)
                        && sw == f.linkTo(le);
                if (!cut) {
                    b.addLink(f.switchName(sw), f.linkFromPort(e), f.switchName(to), f.linkToPort(e));
                }
            }
        }
        for (int h = 0; h < f.hostCount(); h++) {
            b.addHost(f.hostName(h), f.switchName(f.hostSwitch(h)), f.hostPort(h));
        }
        return b.build();
    }
}
