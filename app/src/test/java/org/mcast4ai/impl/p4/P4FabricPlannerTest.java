package org.mcast4ai.impl.p4;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.SwitchTables;
import org.mcast4ai.engine.reliable.Icrc;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.pi.model.PiActionModel;
import org.onosproject.net.pi.model.PiActionParamModel;
import org.onosproject.net.pi.model.PiMatchFieldModel;
import org.onosproject.net.pi.model.PiMatchType;
import org.onosproject.net.pi.model.PiPipelineModel;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.model.PiTableModel;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;
import org.onosproject.net.pi.runtime.PiFieldMatch;
import org.onosproject.p4runtime.model.P4InfoParser;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The P4 fabric state against the program: every table entry the planner writes is checked against the P4Info
 * p4c made from {@code models/p4/mcast4ai.p4}, parsed by ONOS's own parser (table, match fields and their bit
 * widths, action, every parameter and its bit width), and the state of the switches the known-answer vectors
 * cover equals what the vectors (replayed on BMv2) were run with.
 */
class P4FabricPlannerTest {
    private static final Path P4 = Paths.get("..", "models", "p4");
    private static PiPipelineModel model;
    private final P4FabricPlanner planner = new P4FabricPlanner(new DefaultApplicationId(7, "org.mcast4ai.app"),
            P4FabricPlanner.DEFAULT_LEAF_SET);

    @BeforeAll
    static void parse() throws Exception {
        model = P4InfoParser.parse(P4.resolve("mcast4ai.p4info.txt").toUri().toURL());
    }

    private static Map<DeviceId, P4FabricPlanner.SwitchState> plan(P4FabricPlanner p, FabricSnapshot f) {
        return plan(p, f, f);
    }

    // the bit indices of the whole fabric (they never change), the tables of what is left of it
    private static Map<DeviceId, P4FabricPlanner.SwitchState> plan(P4FabricPlanner p, FabricSnapshot whole,
                                                                  FabricSnapshot f) {
        return p.plan(f, SwitchTables.build(f, BitIndexTable.forFabric(whole)));
    }

    @Test
    void everyEntryTheAppWritesIsOneTheProgramHas() {
        FabricSnapshot k4 = FabricGenerators.fatTree(4);
        List<FabricSnapshot> fabrics = List.of(k4, FabricGenerators.leafSpine(2, 4, 3),
                FabricGenerators.leafSpine(8, 8, 8), FabricGenerators.leafSpine(24, 4, 2),
                FabricGenerators.withoutLinks(k4, (a, b) ->
                        a.equals("agg3-1") && b.equals("core1-1") || a.equals("core1-1") && b.equals("agg3-1")));
        int checked = 0;
        for (FabricSnapshot f : fabrics) {
            for (P4FabricPlanner.SwitchState s : plan(planner, f).values()) {
                Set<PiTableId> defaults = new HashSet<>();
                for (FlowRule r : s.rules()) {
                    check(r);
                    if (r.selector().criteria().isEmpty()) {
                        assertTrue(defaults.add((PiTableId) r.table()), "one default per table: " + r);
                    }
                    checked++;
                }
                assertEquals(Set.of(PiTableId.of(P4FabricPlanner.ROLE), PiTableId.of(P4FabricPlanner.UPLINKS)),
                        defaults);
                assertEquals(P4FabricPlanner.MULTICAST_GROUP, (int) s.group().givenGroupId());
                long outPorts = s.rules().stream()
                        .filter(r -> r.table().equals(PiTableId.of(P4FabricPlanner.OUT_PORT))).count();
                assertEquals(outPorts, s.group().buckets().buckets().size(), "one replica per port it leads to");
            }
        }
        assertTrue(checked > 100, "entries checked: " + checked);
    }

    @Test
    void theWideBuildServesK48AndK64FatTreesAndA1024LeafLeafSpine() throws Exception {
        PiPipelineModel wide64 = P4InfoParser.parse(P4.resolve("mcast4ai-wide.p4info.txt").toUri().toURL());
        PiPipelineModel wide48 = P4InfoParser.parse(P4.resolve("mcast4ai-wide48.p4info.txt").toUri().toURL());
        // the fabric, its slot and leaf bitmap bytes, its highest leaf number, the P4Info of its build
        Object[][] fabrics = {
            {FabricGenerators.fatTree(48), 3, 3, (47 << 5) | 23, wide48},
            {FabricGenerators.fatTree(64), 4, 4, (63 << 5) | 31, wide64},
            {FabricGenerators.leafSpine(4, 1024, 32), 4, 4, 1023, wide64}};
        for (Object[] c : fabrics) {
            FabricSnapshot f = (FabricSnapshot) c[0];
            PiPipelineModel wide = (PiPipelineModel) c[4];
            P4FabricPlanner p = new P4FabricPlanner(new DefaultApplicationId(7, "a"), P4FabricPlanner.WIDE_LEAF_SET,
                    (Integer) c[1], (Integer) c[2], P4FabricPlanner.WIDE_UPLINKS);
            // a 1,024-leaf leaf-spine's spines would need 1,024 ports: its leaves only, and the spines refused
            Set<DeviceId> planned = new HashSet<>();
            for (int sw = 0; sw < f.switchCount(); sw++) {
                if (!f.switchName(sw).startsWith("spine")) {
                    planned.add(DeviceId.deviceId(f.switchName(sw)));
                }
            }
            Map<DeviceId, P4FabricPlanner.SwitchState> state = p.plan(f,
                    SwitchTables.build(f, BitIndexTable.forFabric(f)), planned);
            assertEquals(planned.size(), state.size(), "every switch planned");
            if (planned.size() < f.switchCount()) {
                IllegalArgumentException ports = assertThrows(IllegalArgumentException.class, () -> plan(p, f));
                assertTrue(ports.getMessage().contains("the program's ports are 0 to 511 but 255 (the CPU port)"),
                        ports.getMessage());
            }
            int top = -1;
            for (P4FabricPlanner.SwitchState s : state.values()) {
                for (FlowRule r : s.rules()) {
                    check(wide, r);
                    PiAction a = (PiAction) ((PiInstruction) r.treatment().allInstructions().get(0)).action();
                    if (a.id().id().equals(P4FabricPlanner.SET_ROLE)) {
                        for (PiActionParam ap : a.parameters()) {
                            if (ap.id().id().equals("self_leaf") && toLong(ap.value()) != 0xFFFF) {
                                top = Math.max(top, (int) toLong(ap.value()));
                            }
                        }
                    }
                }
            }
            assertEquals(c[3], top, "the highest leaf number a role names");
            // the default build cannot: its sets end at leaf 255
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> plan(
                    new P4FabricPlanner(new DefaultApplicationId(7, "a"), P4FabricPlanner.DEFAULT_LEAF_SET,
                            (Integer) c[1], (Integer) c[2], P4FabricPlanner.DEFAULT_UPLINKS), f));
            assertTrue(e.getMessage().contains("LEAF_SET=2048 UPLINKS=32")
                    || e.getMessage().contains("the program holds 24"), e.getMessage());
        }
    }

    /** Checks a rule against the program's P4Info (parsed on first use). */
    static void check(FlowRule r) {
        if (model == null) {
            try {
                parse();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        check(model, r);
    }

    /** Checks a rule against a build's P4Info. */
    static void check(PiPipelineModel model, FlowRule r) {
        PiTableModel t = model.table((PiTableId) r.table()).orElseThrow(
                () -> new AssertionError("no table " + r.table() + " in the P4Info"));
        Criterion c = r.selector().criteria().isEmpty() ? null : r.selector().criteria().iterator().next();
        if (c == null) {
            assertTrue(t.matchFields().isEmpty(), "a default action only for a keyless table: " + t.id());
        } else {
            assertEquals(1, r.selector().criteria().size(), r.toString());
            PiCriterion pc = (PiCriterion) c;
            assertEquals(t.matchFields().size(), pc.fieldMatches().size(), "every match field of " + t.id());
            for (PiFieldMatch m : pc.fieldMatches()) {
                PiMatchFieldModel mf = t.matchField(m.fieldId()).orElseThrow(
                        () -> new AssertionError(t.id() + " has no match field " + m.fieldId()));
                assertEquals(PiMatchType.EXACT, mf.matchType());
                assertEquals(mf.matchType(), m.type());
                fits(((PiExactFieldMatch) m).value(), mf.bitWidth(), t.id() + "." + m.fieldId());
            }
        }
        List<Instruction> is = r.treatment().allInstructions();
        assertEquals(1, is.size(), r.toString());
        PiAction a = (PiAction) ((PiInstruction) is.get(0)).action();
        PiActionModel am = t.action(a.id()).orElseThrow(
                () -> new AssertionError(t.id() + " has no action " + a.id()));
        Map<Object, PiActionParam> given = new HashMap<>();
        a.parameters().forEach(p -> given.put(p.id(), p));
        assertEquals(am.params().size(), given.size(), "every parameter of " + a.id());
        for (PiActionParamModel pm : am.params()) {
            PiActionParam p = given.get(pm.id());
            assertTrue(p != null, a.id() + " lacks " + pm.id());
            fits(p.value(), pm.bitWidth(), a.id() + "." + pm.id());
        }
    }

    private static void fits(ImmutableByteSequence v, int bits, String what) {
        try {
            v.fit(bits);
        } catch (ImmutableByteSequence.ByteSequenceTrimException e) {
            throw new AssertionError(what + ": " + v + " does not fit " + bits + " bits");
        }
    }

    /**
     * An uplink keeps its index while its link is down and after it comes back: the other uplinks' entries never
     * change with it, so no moment has two ports holding one index (a copy up both: duplicates).
     */
    @Test
    void anUplinkKeepsItsIndexWhileDownAndBack() {
        FabricSnapshot k4 = FabricGenerators.fatTree(4);
        FabricSnapshot cut = FabricGenerators.withoutLinks(k4, (a, b) ->
                a.equals("edge1-1") && b.equals("agg1-1") || a.equals("agg1-1") && b.equals("edge1-1"));
        P4UplinkIndices indices = new P4UplinkIndices();
        BitIndexTable bits = BitIndexTable.forFabric(k4);
        DeviceId edge = DeviceId.deviceId("edge1-1");
        Map<Long, String> whole = describe(planner.plan(k4, SwitchTables.build(k4, bits), null, indices).get(edge));
        Map<Long, String> down = describe(planner.plan(cut, SwitchTables.build(cut, bits), null, indices).get(edge));
        Map<Long, String> back = describe(planner.plan(k4, SwitchTables.build(k4, bits), null, indices).get(edge));
        assertEquals(Map.of(1L, "host 0", 2L, "host 1", 3L, "uplink 0", 4L, "uplink 1"), whole);
        // the port of the link that is down has no entry; the other uplink keeps index 1
        assertEquals(Map.of(1L, "host 0", 2L, "host 1", 4L, "uplink 1"), down);
        assertEquals(whole, back);
        // numbered by position, the other uplink had taken index 0 while the link was down
        Map<Long, String> positional = describe(plan(planner, k4, cut).get(edge));
        assertEquals("uplink 0", positional.get(4L));
        // as ONOS's store holds them, and a new instance takes them from there
        P4UplinkIndices fromStore = new P4UplinkIndices(Map.of(P4UplinkIndices.key(edge, 4), 1));
        assertEquals(down, describe(planner.plan(cut, SwitchTables.build(cut, bits), null, fromStore).get(edge)));
        // what the store is given: every index once, as it was first given
        Map<String, Integer> added = indices.added();
        assertEquals(0, added.get(P4UplinkIndices.key(edge, 3)));
        assertEquals(1, added.get(P4UplinkIndices.key(edge, 4)));
        assertEquals(Map.of(), indices.added());
    }

    @Test
    void theVectorsRanWithTheStateThePlannerWrites() throws Exception {
        FabricSnapshot k4 = FabricGenerators.fatTree(4);
        Map<String, FabricSnapshot> fabrics = Map.of(
                "fattree4-random.json", k4,
                "leafspine-random.json", FabricGenerators.leafSpine(2, 4, 3),
                "fattree4-failed-link.json", FabricGenerators.withoutLinks(k4, (a, b) ->
                        a.equals("agg3-1") && b.equals("core1-1") || a.equals("core1-1") && b.equals("agg3-1")));
        int switches = 0;
        for (Map.Entry<String, FabricSnapshot> e : fabrics.entrySet()) {
            switches += compare(e.getKey(), planner, e.getKey().startsWith("fattree4") ? k4 : e.getValue(),
                    e.getValue());
        }
        ApplicationId a = new DefaultApplicationId(7, "a");
        switches += compare("fattree48-racks.json", new P4FabricPlanner(a, P4FabricPlanner.WIDE_LEAF_SET, 3, 3,
                P4FabricPlanner.WIDE_UPLINKS), FabricGenerators.fatTree(48), null);
        switches += compare("fattree64-racks.json", new P4FabricPlanner(a, P4FabricPlanner.WIDE_LEAF_SET, 4, 4,
                P4FabricPlanner.WIDE_UPLINKS), FabricGenerators.fatTree(64), null);
        switches += compare("leafspine1024-random.json", new P4FabricPlanner(a, P4FabricPlanner.WIDE_LEAF_SET, 4, 4,
                P4FabricPlanner.WIDE_UPLINKS), FabricGenerators.leafSpine(4, 1024, 32), null);
        assertTrue(switches >= 25, "switches compared: " + switches);
    }

    // the out_port entries the planner writes for the switches of a vector file against the file's; the number
    // of switches compared
    private static int compare(String file, P4FabricPlanner planner, FabricSnapshot whole, FabricSnapshot left)
            throws IOException {
        FabricSnapshot f = left == null ? whole : left;
        ObjectMapper json = new ObjectMapper();
        int switches = 0;
        JsonNode v = json.readTree(new File(P4.resolve("vectors").resolve(file).toString()));
        Set<DeviceId> only = new HashSet<>();
        v.path("switches").fieldNames().forEachRemaining(n -> only.add(DeviceId.deviceId(n)));
        Map<DeviceId, P4FabricPlanner.SwitchState> state = planner.plan(f,
                SwitchTables.build(f, BitIndexTable.forFabric(whole)), only);
        int slotBits = v.path("geometry").path("slot_bits").asInt();
        for (java.util.Iterator<Map.Entry<String, JsonNode>> it = v.path("switches").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> sw = it.next();
            P4FabricPlanner.SwitchState s = state.get(DeviceId.deviceId(sw.getKey()));
            boolean leaf = sw.getValue().path("to_hosts").asBoolean();
            Map<Long, String> want = new HashMap<>();
            int selfLo = sw.getValue().path("self_lo").asInt();
            for (JsonNode ch : sw.getValue().path("children")) {
                long port = ch.path("ports").get(0).asLong();
                if (leaf) {
                    want.put(port, "host " + (ch.path("lo").asInt() - selfLo));
                } else {
                    TreeSet<Integer> leaves = new TreeSet<>();
                    ch.path("reach").get(0).forEach(l -> {
                        if (l.asInt() >= ch.path("lo").asInt() >> slotBits
                                && l.asInt() <= (ch.path("hi").asInt() - 1) >> slotBits) {
                            leaves.add(l.asInt());
                        }
                    });
                    want.put(port, "child " + leaves);
                }
            }
            int u = 0;
            for (JsonNode up : sw.getValue().path("up")) {
                want.put(up.path("port").asLong(), "uplink " + u++);
            }
            assertEquals(want, describe(s), file + " " + sw.getKey());
            switches++;
        }
        return switches;
    }

    // what each out_port entry of a switch leads to, as the vectors say it
    private static Map<Long, String> describe(P4FabricPlanner.SwitchState s) {
        Map<Long, String> out = new HashMap<>();
        for (FlowRule r : s.rules()) {
            if (!r.table().equals(PiTableId.of(P4FabricPlanner.OUT_PORT))) {
                continue;
            }
            PiCriterion c = (PiCriterion) r.selector().criteria().iterator().next();
            long port = toLong(((PiExactFieldMatch) c.fieldMatches().iterator().next()).value());
            PiAction a = (PiAction) ((PiInstruction) r.treatment().allInstructions().get(0)).action();
            ImmutableByteSequence p = a.parameters().iterator().next().value();
            switch (a.id().id()) {
                case P4FabricPlanner.TO_HOST:
                    out.put(port, "host " + toLong(p));
                    break;
                case P4FabricPlanner.TO_UPLINK:
                    out.put(port, "uplink " + toLong(p));
                    break;
                default:
                    TreeSet<Integer> leaves = new TreeSet<>();
                    byte[] b = p.asArray();
                    for (int l = 0; l < b.length * 8; l++) {
                        if ((b[l / 8] & (0x80 >>> (l % 8))) != 0) {
                            leaves.add(l);
                        }
                    }
                    out.put(port, "child " + leaves);
                    break;
            }
        }
        return out;
    }

    private static long toLong(ImmutableByteSequence v) {
        long x = 0;
        for (byte b : v.asArray()) {
            x = (x << 8) | (b & 0xff);
        }
        return x;
    }

    @Test
    void leavesHoldTheIcrcShiftsOfEveryTail() {
        FabricSnapshot k4 = FabricGenerators.fatTree(4);
        Map<DeviceId, P4FabricPlanner.SwitchState> state = plan(planner, k4);
        for (Map.Entry<DeviceId, P4FabricPlanner.SwitchState> e : state.entrySet()) {
            boolean leaf = e.getKey().toString().startsWith("edge");
            Map<Integer, int[]> lo = new HashMap<>();
            Map<Integer, int[]> hi = new HashMap<>();
            for (FlowRule r : e.getValue().rules()) {
                boolean isLo = r.table().equals(PiTableId.of(P4FabricPlanner.ICRC_LO));
                if (!isLo && !r.table().equals(PiTableId.of(P4FabricPlanner.ICRC_HI))) {
                    continue;
                }
                PiCriterion c = (PiCriterion) r.selector().criteria().iterator().next();
                int key = (int) toLong(((PiExactFieldMatch) c.fieldMatches().iterator().next()).value());
                PiAction a = (PiAction) ((PiInstruction) r.treatment().allInstructions().get(0)).action();
                byte[] z = a.parameters().iterator().next().value().asArray();
                assertEquals(128, z.length);
                // column i at bits 32i+31..32i of the big-endian parameter
                int[] cols = new int[32];
                for (int i = 0; i < 32; i++) {
                    int at = z.length - 4 * (i + 1);
                    cols[i] = (z[at] & 0xFF) << 24 | (z[at + 1] & 0xFF) << 16 | (z[at + 2] & 0xFF) << 8
                            | (z[at + 3] & 0xFF);
                }
                (isLo ? lo : hi).put(key, cols);
            }
            if (!leaf) {
                assertTrue(lo.isEmpty() && hi.isEmpty(), e.getKey() + " holds ICRC shifts");
                continue;
            }
            assertEquals(P4FabricPlanner.ICRC_LO_ENTRIES, lo.size());
            assertEquals(P4FabricPlanner.ICRC_HI_ENTRIES, hi.size());
            // the two tables together shift a state over any tail as the CRC of that many zero bytes does
            Random rnd = new Random(e.getKey().hashCode());
            for (int t = 0; t < 50; t++) {
                byte[] m = new byte[1 + rnd.nextInt(40)];
                rnd.nextBytes(m);
                int tail = rnd.nextInt(64 * P4FabricPlanner.ICRC_HI_ENTRIES);
                int crc = Icrc.linear(m);
                assertEquals(Icrc.linear(Arrays.copyOf(m, m.length + tail)),
                        Icrc.apply(hi.get(tail >>> 6), Icrc.apply(lo.get(tail & 63), crc)), "tail " + tail);
            }
        }
    }

    @Test
    void aSwitchTheProgramCannotHoldIsNamed() {
        // a 2-tier leaf-spine of 25 spines: every leaf has 25 uplinks, the program holds 24
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> plan(planner, FabricGenerators.leafSpine(25, 4, 2)));
        assertTrue(e.getMessage().contains("25 uplinks, the program holds 24"), e.getMessage());
        IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
                () -> plan(new P4FabricPlanner(new DefaultApplicationId(7, "a"), 8, 1, 2, 24),
                        FabricGenerators.leafSpine(2, 16, 2)));
        assertTrue(small.getMessage().contains("beyond the 8"), small.getMessage());
        // 48 hosts per leaf: LEAF entries of 6-byte bitmaps, which the pipeconf's program would parse out of step
        IllegalArgumentException wide = assertThrows(IllegalArgumentException.class,
                () -> plan(planner, FabricGenerators.leafSpine(2, 4, 48)));
        assertTrue(wide.getMessage().contains("SLOT_BYTES=6 LEAF_BYTES=1"), wide.getMessage());
    }
}
