package org.mcast4ai.impl.bitmap;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.IPCriterion;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BitmapPlannerTest {
    private static final int ENTRY = 0;
    private final BitmapPlanner planner = new BitmapPlanner(new DefaultApplicationId(7, "org.mcast4ai"), ENTRY,
            BitmapPlanner.DEFAULT_CHAIN_BASE);

    @Test
    void labFabricRuleCounts() {
        Map<DeviceId, BitmapPlanner.DeviceEntries> e = planner.staticEntries(
                BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 2)));
        for (int i = 1; i <= 4; i++) {
            BitmapPlanner.DeviceEntries leaf = e.get(DeviceId.deviceId(BitmapFabrics.leaf(i)));
            // 2 entries + up table (6 bits x 8 spread slots + default) + 2 host tables (1 bit + default)
            assertEquals(2 + 49 + 4, leaf.rules().size());
            assertEquals(2, leaf.groups().size());
        }
        for (int j = 1; j <= 2; j++) {
            BitmapPlanner.DeviceEntries spine = e.get(DeviceId.deviceId(BitmapFabrics.spine(j)));
            // 4 entries + 4 leaf tables (2 bits + default)
            assertEquals(4 + 12, spine.rules().size());
            assertEquals(0, spine.groups().size());
        }
    }

    @Test
    void entriesPerSwitchFollowTheFabricOnly() {
        // fat tree k=4: edge = 2 entries + 14 outside bits x 8 spread slots + default + 2 host tables x 2;
        // aggregation = 2 from cores + 2 from edges + (12 bits + default) up + 2 edge tables x (2 bits + default);
        // core = 4 entries + 4 pod tables x (4 bits + default)
        Map<String, Integer> want = Map.of("edge1-1", 2 + 113 + 4, "agg1-1", 4 + 13 + 6, "core1-1", 4 + 20);
        Map<DeviceId, BitmapPlanner.DeviceEntries> ft = planner.staticEntries(
                BitmapLayout.of(FabricGenerators.fatTree(4)));
        want.forEach((sw, n) -> assertEquals(n, ft.get(DeviceId.deviceId(sw)).rules().size(), sw));
        // the largest leaf-spine that fits: 4 spines, 11 leaves of 4 hosts (44 bits)
        Map<DeviceId, BitmapPlanner.DeviceEntries> ls = planner.staticEntries(
                BitmapLayout.of(BitmapFabrics.leafSpine(4, 11, 4)));
        assertEquals(4 + (40 * 8 + 1) + 4 * 2, ls.get(DeviceId.deviceId(BitmapFabrics.leaf(1))).rules().size());
        assertEquals(11 + 11 * (4 + 1), ls.get(DeviceId.deviceId(BitmapFabrics.spine(1))).rules().size());
    }

    @Test
    void staticRulesNameNoGroupAndOnlyTheStampDoes() {
        BitmapLayout layout = BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 2));
        for (BitmapPlanner.DeviceEntries d : planner.staticEntries(layout).values()) {
            for (FlowRule r : d.rules()) {
                IPCriterion dst = (IPCriterion) r.selector().getCriterion(Criterion.Type.IPV4_DST);
                assertTrue(dst == null || dst.ip().equals(BitmapPlanner.MULTICAST), r.toString());
            }
        }
        BitmapStamp stamp = compile(layout, BitmapFabrics.host(1, 1), List.of(BitmapFabrics.host(3, 2)),
                "239.77.0.9", 1).stamp();
        List<FlowRule> rules = planner.stampRules(stamp);
        assertEquals(2, rules.size(), "full-group stamp and subset check");
        for (FlowRule r : rules) {
            assertEquals(DeviceId.deviceId(BitmapFabrics.leaf(1)), r.deviceId());
            assertEquals(IpAddress.valueOf("239.77.0.9").toIpPrefix(),
                    ((IPCriterion) r.selector().getCriterion(Criterion.Type.IPV4_DST)).ip());
        }
    }

    @Test
    void everySubsetReachesExactlyItsReceiversOnLeafSpine() {
        checkDelivery(BitmapFabrics.leafSpine(2, 4, 2), 300, 11);
        checkDelivery(BitmapFabrics.leafSpine(3, 5, 3), 300, 12);
        checkDelivery(BitmapFabrics.leafSpine(4, 11, 4), 200, 13);
    }

    @Test
    void everySubsetReachesExactlyItsReceiversOnAFatTree() {
        checkDelivery(FabricGenerators.fatTree(4), 400, 14);
    }

    @Test
    void bitsOutsideTheGroupAreDroppedAtTheSourceLeaf() {
        FabricSnapshot f = BitmapFabrics.leafSpine(2, 4, 2);
        BitmapLayout layout = BitmapLayout.of(f);
        OpenFlowSim sim = sim(f, layout);
        List<String> members = List.of(BitmapFabrics.host(2, 1), BitmapFabrics.host(3, 2));
        BitmapStamp stamp = compile(layout, BitmapFabrics.host(1, 1), members, "239.77.0.5", 3).stamp();
        sim.install(planner.stampRules(stamp));
        long outside = 1L << layout.bitOfHost(BitmapFabrics.host(4, 1));
        sim.copiesOnLinks = 0;
        assertTrue(sim.send(BitmapFabrics.host(1, 1), EthSrcBitmap.stamp(stamp.bits() | outside).toLong(),
                "239.77.0.5").isEmpty());
        assertEquals(0, sim.copiesOnLinks, "dropped before leaving the source leaf");
        // another group's address from the same host matches nothing
        assertTrue(sim.send(BitmapFabrics.host(1, 1), stamp.groupMac().toLong(), "239.77.0.6").isEmpty());
        // the source's own address is stamped with the whole group; copies carry the leaf's fixed address
        List<OpenFlowSim.Delivery> full = sim.send(BitmapFabrics.host(1, 1),
                MacAddress.valueOf("02:00:00:00:01:01").toLong(), "239.77.0.5");
        assertEquals(2, full.size());
        for (OpenFlowSim.Delivery d : full) {
            assertTrue(members.contains(d.host));
            String leaf = d.host.equals(members.get(0)) ? BitmapFabrics.leaf(2) : BitmapFabrics.leaf(3);
            assertEquals(BitmapPlanner.restoreMac(DeviceId.deviceId(leaf)).toLong(), d.ethSrc);
        }
    }

    /**
     * A multicast frame that no rule of its own handles (a TREE group's packet on a switch that lost its rule)
     * is left alone by the static tables, even when its source address reads as a bitmap (every locally
     * administered address does): only frames the source leaf marked are replicated by bits.
     */
    @Test
    void unmarkedFramesAreNeverReplicatedByTheirSourceAddress() {
        FabricSnapshot f = BitmapFabrics.leafSpine(2, 4, 2);
        BitmapLayout layout = BitmapLayout.of(f);
        OpenFlowSim sim = sim(f, layout);
        // a lab host's own address (bits 0 and 8) and one with every receiver of the fabric in it
        for (String mac : List.of("02:00:00:00:01:01", "02:00:00:00:00:ff")) {
            for (int sw = 0; sw < f.switchCount(); sw++) {
                for (int e = f.linkStart(sw); e < f.linkStart(sw + 1); e++) {
                    assertTrue(sim.inject(f.switchName(sw), f.linkFromPort(e), MacAddress.valueOf(mac).toLong(), 0,
                            "239.77.0.1").isEmpty(), "an unmarked frame from " + mac + " on port "
                            + f.linkFromPort(e) + " of " + f.switchName(sw));
                }
            }
        }
        // the same frame marked, from a spine's port towards leaf 2: replicated to leaf 2's two hosts
        assertEquals(2, sim.inject(BitmapFabrics.leaf(2), 3, MacAddress.valueOf("02:00:00:00:00:ff").toLong(),
                BitmapPlanner.MARK.toShort(), "239.77.0.1").size(), "a marked frame is replicated");
    }

    /** The snapshot without the named switches and without the links between the given pairs. */
    private static FabricSnapshot without(FabricSnapshot whole, Set<String> gone, Set<String> cut) {
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (int sw = 0; sw < whole.switchCount(); sw++) {
            if (!gone.contains(whole.switchName(sw))) {
                b.addSwitch(whole.switchName(sw), whole.role(sw));
            }
        }
        for (int sw = 0; sw < whole.switchCount(); sw++) {
            for (int e = whole.linkStart(sw); e < whole.linkStart(sw + 1); e++) {
                String from = whole.switchName(sw);
                String to = whole.switchName(whole.linkTo(e));
                if (!gone.contains(from) && !gone.contains(to) && !cut.contains(from + "|" + to)
                        && !cut.contains(to + "|" + from)) {
                    b.addLink(from, whole.linkFromPort(e), to, whole.linkToPort(e));
                }
            }
        }
        for (int h = 0; h < whole.hostCount(); h++) {
            b.addHost(whole.hostName(h), whole.switchName(whole.hostSwitch(h)), whole.hostPort(h));
        }
        return b.build();
    }

    // the up rules of a leaf by metadata value -> out port
    private Map<Long, Set<Long>> upRules(BitmapLayout layout, String leaf) {
        Map<Long, Set<Long>> out = new HashMap<>();
        for (FlowRule r : planner.staticEntries(layout).get(DeviceId.deviceId(leaf)).rules()) {
            Criterion m = r.selector().getCriterion(Criterion.Type.METADATA);
            if (r.tableId() == planner.chainBase() && m != null) {
                long key = ((org.onosproject.net.flow.criteria.MetadataCriterion) m).metadata();
                r.treatment().immediate().stream().filter(i -> i instanceof
                        org.onosproject.net.flow.instructions.Instructions.OutputInstruction)
                        .forEach(i -> out.computeIfAbsent(key, k -> new java.util.TreeSet<>()).add(
                                ((org.onosproject.net.flow.instructions.Instructions.OutputInstruction) i)
                                        .port().toLong()));
            }
        }
        return out;
    }

    @Test
    void groupsSpreadOverTheUplinksAndASpineFailureRewritesNoStamp() {
        FabricSnapshot whole = BitmapFabrics.leafSpine(4, 4, 2);
        BitmapLayout layout = BitmapLayout.of(whole);
        Map<Long, Integer> perUplink = new HashMap<>();
        Map<Integer, BitmapStamp> stamps = new HashMap<>();
        Map<Long, Set<Long>> up = upRules(layout, BitmapFabrics.leaf(1));
        for (int key = 0; key < 400; key++) {
            BitmapStamp st = compile(layout, BitmapFabrics.host(1, 1), List.of(BitmapFabrics.host(2, 1)),
                    "239.1.1.1", key).stamp();
            assertTrue(st.uplink() > BitmapLayout.SLOT_BASE && st.uplink() <= BitmapLayout.SLOT_BASE
                    + BitmapLayout.SLOTS, "a spread slot: " + st.uplink());
            stamps.put(key, st);
            up.get((long) st.uplink()).forEach(p -> perUplink.merge(p, 1, Integer::sum));
        }
        // leaf port 2 + s leads to spine s; 8 slots over 4 spines, groups hashed over the slots
        assertEquals(Set.of(3L, 4L, 5L, 6L), perUplink.keySet(), perUplink.toString());
        perUplink.values().forEach(n -> assertTrue(n > 25 && n < 200, "spread over the uplinks: " + perUplink));
        assertEquals(BitmapLayout.SLOTS, up.size(), "one rule set per slot, none per port: " + up.keySet());
        // spine 2 (leaf port 4) fails: not one stamp changes; only the slots that used it get another uplink
        BitmapLayout after = BitmapLayout.of(without(whole, Set.of(BitmapFabrics.spine(2)), Set.of()),
                layout.positionBits());
        for (int key = 0; key < 400; key++) {
            assertEquals(stamps.get(key), compile(after, BitmapFabrics.host(1, 1),
                    List.of(BitmapFabrics.host(2, 1)), "239.1.1.1", key).stamp(), "group " + key);
        }
        Map<Long, Set<Long>> upAfter = upRules(after, BitmapFabrics.leaf(1));
        up.forEach((slot, ports) -> {
            if (!ports.contains(4L)) {
                assertEquals(ports, upAfter.get(slot), "slot " + slot + " did not use the failed spine");
            } else {
                assertFalse(upAfter.get(slot).contains(4L), "slot " + slot + " leaves the failed spine");
            }
        });
    }

    @Test
    void withoutAnUplinkReachingEveryReceiverStampsPickTheirOwn() {
        // spine 1 lost leaf 3, spine 2 lost leaf 4: no uplink of leaf 1 reaches every receiver
        FabricSnapshot whole = BitmapFabrics.leafSpine(2, 4, 2);
        BitmapLayout cut = BitmapLayout.of(without(whole, Set.of(), Set.of(
                BitmapFabrics.spine(1) + "|" + BitmapFabrics.leaf(3), BitmapFabrics.spine(2) + "|"
                        + BitmapFabrics.leaf(4))), BitmapLayout.of(whole).positionBits());
        assertEquals(-1, cut.slotUplink(BitmapFabrics.leaf(1), 1));
        BitmapStamp.Result r = compile(cut, BitmapFabrics.host(1, 1), List.of(BitmapFabrics.host(2, 1),
                BitmapFabrics.host(3, 1)), "239.1.1.1", 7);
        // leaf port 2 + s leads to spine s: only spine 2 reaches leaves 2 and 3
        assertEquals(4, r.stamp().uplink());
        assertTrue(r.unreachable().isEmpty());
        assertEquals(Set.of(3L, 4L), new java.util.TreeSet<>(upRules(cut, BitmapFabrics.leaf(1)).keySet()),
                "rule sets keyed by the uplinks' ports");
    }

    @Test
    void groupCompileReportsWhatDoesNotFit() {
        BitmapLayout big = BitmapLayout.of(BitmapFabrics.leafSpine(2, 12, 4));
        BitmapStamp.Result r = compile(big, BitmapFabrics.host(1, 1), List.of(BitmapFabrics.host(2, 1)),
                "239.1.1.1", 0);
        assertNull(r.stamp());
        assertTrue(r.failure().contains("46"), r.failure());
        BitmapLayout small = BitmapLayout.of(BitmapFabrics.leafSpine(2, 4, 2));
        BitmapStamp.Result partial = compile(small, BitmapFabrics.host(1, 1),
                List.of(BitmapFabrics.host(2, 1), "66:66:66:66:66:66/None", BitmapFabrics.host(1, 1)), "239.1.1.1", 0);
        assertNotNull(partial.stamp());
        assertEquals(2, partial.unreachable().size());
    }

    private BitmapStamp.Result compile(BitmapLayout layout, String source, List<String> receivers, String addr,
                                       long key) {
        return BitmapStamp.compile(layout, source, receivers, IpAddress.valueOf(addr), 40000, key);
    }

    private OpenFlowSim sim(FabricSnapshot f, BitmapLayout layout) {
        OpenFlowSim sim = new OpenFlowSim(f, ENTRY);
        sim.install(planner.staticEntries(layout));
        return sim;
    }

    /** Random groups, random sources; the whole group and random subsets each reach exactly their hosts. */
    private void checkDelivery(FabricSnapshot f, int groups, long seed) {
        BitmapLayout layout = BitmapLayout.of(f);
        OpenFlowSim sim = sim(f, layout);
        Random rnd = new Random(seed);
        Map<Integer, String> hostOfBit = new HashMap<>();
        for (int h = 0; h < f.hostCount(); h++) {
            hostOfBit.put(layout.bitOfHost(f.hostName(h)), f.hostName(h));
        }
        for (int g = 0; g < groups; g++) {
            String source = f.hostName(rnd.nextInt(f.hostCount()));
            List<String> members = BitmapFabrics.randomMembers(f, source, rnd);
            if (members.isEmpty()) {
                continue;
            }
            String addr = "239.0." + (g / 250) + "." + (g % 250 + 1);
            BitmapStamp stamp = compile(layout, source, members, addr, rnd.nextInt(8)).stamp();
            sim.install(planner.stampRules(stamp));
            for (int t = 0; t < 4; t++) {
                long subset = t == 0 ? stamp.bits() : stamp.bits() & rnd.nextLong();
                List<OpenFlowSim.Delivery> got = sim.send(source, EthSrcBitmap.stamp(subset).toLong(), addr);
                Map<String, Integer> copies = new HashMap<>();
                got.forEach(d -> copies.merge(d.host, 1, Integer::sum));
                Map<String, Integer> want = new HashMap<>();
                for (long s = subset; s != 0; s &= s - 1) {
                    want.put(hostOfBit.get(Long.numberOfTrailingZeros(s)), 1);
                }
                assertEquals(want, copies, "group " + addr + " from " + source + " subset 0x"
                        + Long.toHexString(subset));
                for (OpenFlowSim.Delivery d : got) {
                    assertEquals(BitmapPlanner.RESTORE_PREFIX, d.ethSrc & ~0xFFFFL, "host copies carry no bitmap");
                }
            }
        }
    }
}
