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
            // 2 entries + up table (6 bits x 2 uplinks + default) + 2 host tables (1 bit + default)
            assertEquals(2 + 13 + 4, leaf.rules().size());
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
        // fat tree k=4: edge = 2 entries + 14 outside bits x 2 uplinks + default + 2 host tables x 2;
        // aggregation = 2 from cores + 2 from edges + (12 bits + default) up + 2 edge tables x (2 bits + default);
        // core = 4 entries + 4 pod tables x (4 bits + default)
        Map<String, Integer> want = Map.of("edge1-1", 2 + 29 + 4, "agg1-1", 4 + 13 + 6, "core1-1", 4 + 20);
        Map<DeviceId, BitmapPlanner.DeviceEntries> ft = planner.staticEntries(
                BitmapLayout.of(FabricGenerators.fatTree(4)));
        want.forEach((sw, n) -> assertEquals(n, ft.get(DeviceId.deviceId(sw)).rules().size(), sw));
        // the largest leaf-spine that fits: 4 spines, 11 leaves of 4 hosts (44 bits)
        Map<DeviceId, BitmapPlanner.DeviceEntries> ls = planner.staticEntries(
                BitmapLayout.of(BitmapFabrics.leafSpine(4, 11, 4)));
        assertEquals(4 + (40 * 4 + 1) + 4 * 2, ls.get(DeviceId.deviceId(BitmapFabrics.leaf(1))).rules().size());
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

    @Test
    void groupsSpreadOverTheUplinksAndOnlyThoseOfAFailedOneMove() {
        FabricSnapshot whole = BitmapFabrics.leafSpine(4, 4, 2);
        BitmapLayout layout = BitmapLayout.of(whole);
        Map<Integer, Integer> perUplink = new HashMap<>();
        Map<Integer, Integer> chosen = new HashMap<>();
        for (int key = 0; key < 400; key++) {
            int u = compile(layout, BitmapFabrics.host(1, 1), List.of(BitmapFabrics.host(2, 1)), "239.1.1.1", key)
                    .stamp().uplink();
            perUplink.merge(u, 1, Integer::sum);
            chosen.put(key, u);
        }
        // leaf port 2 + s leads to spine s
        assertEquals(Set.of(3, 4, 5, 6), perUplink.keySet());
        perUplink.values().forEach(n -> assertTrue(n > 60 && n < 140, "spread over the uplinks: " + perUplink));
        // spine 2 (leaf port 4) fails: its groups move, nobody else's stamp changes
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (int sw = 0; sw < whole.switchCount(); sw++) {
            if (!whole.switchName(sw).equals(BitmapFabrics.spine(2))) {
                b.addSwitch(whole.switchName(sw), whole.role(sw));
            }
        }
        for (int sw = 0; sw < whole.switchCount(); sw++) {
            for (int e = whole.linkStart(sw); e < whole.linkStart(sw + 1); e++) {
                String from = whole.switchName(sw);
                String to = whole.switchName(whole.linkTo(e));
                if (!from.equals(BitmapFabrics.spine(2)) && !to.equals(BitmapFabrics.spine(2))) {
                    b.addLink(from, whole.linkFromPort(e), to, whole.linkToPort(e));
                }
            }
        }
        for (int h = 0; h < whole.hostCount(); h++) {
            b.addHost(whole.hostName(h), whole.switchName(whole.hostSwitch(h)), whole.hostPort(h));
        }
        BitmapLayout after = BitmapLayout.of(b.build(), layout.positionBits());
        for (int key = 0; key < 400; key++) {
            int u = compile(after, BitmapFabrics.host(1, 1), List.of(BitmapFabrics.host(2, 1)), "239.1.1.1", key)
                    .stamp().uplink();
            if (chosen.get(key) != 4) {
                assertEquals(chosen.get(key), u, "group " + key + " did not use the failed spine and keeps its uplink");
            } else {
                assertTrue(u != 4, "group " + key + " leaves the failed spine");
            }
        }
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
