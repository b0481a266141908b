package org.mcast4ai.impl.p4;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.FabricGeometry;
import org.mcast4ai.engine.bitmap.SwitchTable;
import org.mcast4ai.engine.bitmap.SwitchTables;
import org.mcast4ai.engine.reliable.Icrc;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.group.DefaultGroupBucket;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.DefaultGroupKey;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiActionParamId;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The static state of {@code models/p4/mcast4ai.p4} on every switch of a fabric, from the engine's
 * {@link SwitchTables} (the same tables the known-answer vectors are made from): per switch the role and uplinks
 * defaults, one uplink_port entry per uplink, one out_port entry per port and multicast group 1 with one replica
 * per port (the role entry also carries the geometry, so a switch refuses a header naming what it lacks, and
 * without it a switch forwards nothing); on a leaf also the ICRC shift tables its receivers' rewrites use
 * ({@link Icrc}: the same 192 entries on every leaf). Nothing in it names a group. Pure: built from the snapshot and
 * the uplink indices given ({@link P4UplinkIndices}: an uplink keeps its index while it is down and after it comes
 * back, so no other uplink's entries change with it).
 */
public final class P4FabricPlanner {
    /** Table, action and parameter names of the program's P4Info. */
    public static final String ROLE = "McastIngress.role";
    public static final String SET_ROLE = "McastIngress.set_role";
    public static final String UPLINKS = "McastIngress.uplinks";
    public static final String SET_UPLINKS = "McastIngress.set_uplinks";
    public static final String UPLINK_PORT = "McastIngress.uplink_port";
    public static final String FROM_UPLINK = "McastIngress.from_uplink";
    public static final String OUT_PORT = "McastEgress.out_port";
    public static final String TO_CHILD = "McastEgress.to_child";
    public static final String TO_HOST = "McastEgress.to_host";
    public static final String TO_UPLINK = "McastEgress.to_uplink";
    public static final String ICRC_LO = "McastEgress.icrc_lo";
    public static final String ICRC_HI = "McastEgress.icrc_hi";
    public static final String ICRC_SHIFT = "McastEgress.icrc_shift";
    /** Entries of the ICRC shift tables: tail lengths {@code 64 * hi + lo} with lo below 64 and hi below 128. */
    public static final int ICRC_LO_ENTRIES = 64;
    public static final int ICRC_HI_ENTRIES = 128;
    /** The program's one multicast group. */
    public static final int MULTICAST_GROUP = 1;
    /** The clone session the aggregator's reports go to the CPU port by (the program's CLONE_TO_CPU). */
    public static final int CLONE_SESSION = 511;
    /** Uplinks the program holds per switch by default ({@code UPLINKS}: a k=48 leaf's). */
    public static final int DEFAULT_UPLINKS = 24;
    /** Leaf numbers the program's leaf sets cover by default ({@code LEAF_SET}). */
    public static final int DEFAULT_LEAF_SET = 256;
    /** The wide build's leaf sets and uplinks (k=48 and k=64 fat trees, leaf-spines of up to 2,048 leaves). */
    public static final int WIDE_LEAF_SET = 2048;
    public static final int WIDE_UPLINKS = 32;
    /**
     * Bytes of the slot and leaf bitmaps the pipeconf's program parses ({@code SLOT_BYTES}, {@code LEAF_BYTES}
     * of its build): leaves of up to 8 hosts, pods of up to 8 leaves.
     */
    public static final int DEFAULT_BITMAP_BYTES = 1;
    /** Port numbers a v1model switch has (9 bits). */
    public static final int PORTS = 512;
    private static final int NOT_A_LEAF = 0xFFFF;
    private static final int PRIORITY = 10;

    private final ApplicationId appId;
    private final int leafSet;
    private final int slotBytes;
    private final int leafBytes;
    private final int uplinks;

    /** The entries of one switch. */
    public static final class SwitchState {
        private final List<FlowRule> rules;
        private final GroupDescription group;
        private final GroupDescription cloneSession;
        private final int tier;

        SwitchState(List<FlowRule> rules, GroupDescription group, int tier) {
            this(rules, group, null, tier);
        }

        SwitchState(List<FlowRule> rules, GroupDescription group, GroupDescription cloneSession, int tier) {
            this.rules = Collections.unmodifiableList(rules);
            this.group = group;
            this.cloneSession = cloneSession;
            this.tier = tier;
        }

        /**
         * @return a leaf's clone session to the CPU port (the aggregator's reports beside an ACK), null elsewhere
         */
        public GroupDescription cloneSession() {
            return cloneSession;
        }

        /** @return the switch's tier: 0 a leaf, 1 a spine (or a fat tree's aggregation switch), 2 a core */
        public int tier() {
            return tier;
        }

        /** @return its table entries (an empty selector is the table's default action) */
        public List<FlowRule> rules() {
            return rules;
        }

        /** @return its multicast group */
        public GroupDescription group() {
            return group;
        }
    }

    /**
     * @param appId   owning application
     * @param leafSet the leaf numbers the program's sets cover ({@code LEAF_SET} it was compiled with)
     */
    public P4FabricPlanner(ApplicationId appId, int leafSet) {
        this(appId, leafSet, DEFAULT_BITMAP_BYTES, DEFAULT_BITMAP_BYTES, DEFAULT_UPLINKS);
    }

    /**
     * @param appId     owning application
     * @param leafSet   the leaf numbers the program's sets cover ({@code LEAF_SET} it was compiled with)
     * @param slotBytes bytes of the LEAF entries' slot bitmaps it parses ({@code SLOT_BYTES})
     * @param leafBytes bytes of the POD entries' leaf bitmaps it parses ({@code LEAF_BYTES})
     * @param uplinks   the uplinks it holds per switch ({@code UPLINKS})
     */
    public P4FabricPlanner(ApplicationId appId, int leafSet, int slotBytes, int leafBytes, int uplinks) {
        if (leafSet <= 0 || leafSet % 8 != 0) {
            throw new IllegalArgumentException("leafSet must be a positive multiple of 8: " + leafSet);
        }
        if (slotBytes < 1 || slotBytes > 8 || leafBytes < 1 || leafBytes > 8) {
            throw new IllegalArgumentException("bitmaps of 1 to 8 bytes: slots " + slotBytes + ", leaves " + leafBytes);
        }
        if (uplinks < 1) {
            throw new IllegalArgumentException("uplinks must be positive: " + uplinks);
        }
        this.appId = appId;
        this.uplinks = uplinks;
        this.leafSet = leafSet;
        this.slotBytes = slotBytes;
        this.leafBytes = leafBytes;
    }

    /**
     * @param fabric the fabric
     * @param tables its static tables
     * @return every switch's state, by device
     * @throws IllegalArgumentException naming the switch, if the program cannot hold a switch's state (more
     *                                  uplinks than the program holds, a port beyond its 9-bit port numbers or
     *                                  the CPU port, a neighbour behind several ports,
     *                                  a leaf number beyond the sets)
     */
    public Map<DeviceId, SwitchState> plan(FabricSnapshot fabric, SwitchTables tables) {
        return plan(fabric, tables, null);
    }

    /**
     * @param fabric the fabric
     * @param tables its static tables
     * @param only   the switches to plan (the P4 ones of a fabric that also has others); null: all
     * @return those switches' state, by device
     * @throws IllegalArgumentException naming the switch, if the program cannot hold one of their states
     */
    public Map<DeviceId, SwitchState> plan(FabricSnapshot fabric, SwitchTables tables, Set<DeviceId> only) {
        return plan(fabric, tables, only, new P4UplinkIndices());
    }

    /**
     * @param fabric  the fabric
     * @param tables  its static tables
     * @param only    the switches to plan; null: all
     * @param indices the uplinks' indices so far, given a new uplink's
     * @return those switches' state, by device
     * @throws IllegalArgumentException naming the switch, if the program cannot hold one of their states
     */
    Map<DeviceId, SwitchState> plan(FabricSnapshot fabric, SwitchTables tables, Set<DeviceId> only,
                                    P4UplinkIndices indices) {
        FabricGeometry g = tables.geometry();
        Map<DeviceId, SwitchState> out = new LinkedHashMap<>();
        for (int sw = 0; sw < tables.switches(); sw++) {
            SwitchTable t = tables.table(sw);
            String name = fabric.switchName(sw);
            if (only != null && !only.contains(DeviceId.deviceId(name))) {
                continue;
            }
            try {
                out.put(DeviceId.deviceId(name), switchState(DeviceId.deviceId(name), t, g, indices,
                        fabric.role(sw).ordinal()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("switch " + name + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    private SwitchState switchState(DeviceId d, SwitchTable t, FabricGeometry g, P4UplinkIndices indices, int tier) {
        int s = g.slotBits();
        // the program's entries have fixed sizes: a header of wider bitmaps would be parsed out of step
        if (g.slotBitmapBytes() != slotBytes || g.leafBitmapBytes() != leafBytes) {
            throw new IllegalArgumentException("the program parses " + 8 * slotBytes + "-slot and " + 8 * leafBytes
                    + "-leaf bitmaps; this fabric's header has " + g.slotsPerLeaf() + " slots per leaf and "
                    + g.leavesPerPod() + " leaves per pod (" + Mcast4aiPipeconf.Build.fitting(g.slotBitmapBytes(),
                    g.leafBitmapBytes()).map(b -> "bind the switches to pipeconf " + b.id() + ", or ").orElse("")
                    + "compile it with SLOT_BYTES=" + g.slotBitmapBytes() + " LEAF_BYTES=" + g.leafBitmapBytes() + ")");
        }
        boolean leaf = t.toHosts();
        long[] ups = t.upPorts();
        if (ups.length > uplinks) {
            throw new IllegalArgumentException(ups.length + " uplinks, the program holds " + uplinks);
        }
        int[] index = indices.assign(d, ups);
        int nUp = 0;
        for (int i : index) {
            nUp = Math.max(nUp, i + 1);
        }
        if (nUp > uplinks) {
            throw new IllegalArgumentException("uplink index " + (nUp - 1) + " (uplinks keep theirs while down), the "
                    + "program holds " + uplinks);
        }
        List<FlowRule> rules = new ArrayList<>();
        List<Long> ports = new ArrayList<>();
        BitSet below = new BitSet();
        int selfLeaf = leaf ? t.selfLo() >>> s : NOT_A_LEAF;
        for (int c = 0; c < t.children(); c++) {
            long[] cp = t.childPorts(c);
            if (cp.length != 1) {
                throw new IllegalArgumentException("a neighbour behind " + cp.length + " equal-cost ports");
            }
            ports.add(cp[0]);
            PiAction action;
            if (leaf) {
                action = PiAction.builder().withId(PiActionId.of(TO_HOST))
                        .withParameter(param("slot", t.childLo(c) - t.selfLo(), 1)).build();
            } else {
                int lo = t.childLo(c) >>> s;
                int hi = (t.childHi(c) - 1) >>> s;
                BitSet leaves = new BitSet();
                for (int l : t.childReach(c, 0)) {
                    if (l >= lo && l <= hi) {
                        leaves.set(l);
                    }
                }
                below.or(leaves);
                action = PiAction.builder().withId(PiActionId.of(TO_CHILD))
                        .withParameter(new PiActionParam(PiActionParamId.of("leaves"), leafSet(leaves))).build();
            }
            rules.add(rule(d, OUT_PORT, exact("egress_port", cp[0]), action));
        }
        BitSet[] reachOf = new BitSet[uplinks];
        for (int i = 0; i < ups.length; i++) {
            BitSet r = new BitSet();
            for (int l : t.upReach(i)) {
                r.set(l);
            }
            reachOf[index[i]] = r;
            ports.add(ups[i]);
            rules.add(rule(d, OUT_PORT, exact("egress_port", ups[i]), PiAction.builder()
                    .withId(PiActionId.of(TO_UPLINK)).withParameter(param("index", index[i], 1)).build()));
            rules.add(rule(d, UPLINK_PORT, exact("ingress_port", ups[i]), PiAction.builder()
                    .withId(PiActionId.of(FROM_UPLINK)).build()));
        }
        List<PiActionParam> reach = new ArrayList<>();
        for (int u = 0; u < uplinks; u++) {
            // an index whose uplink is down reaches nothing: the ingress passes it by
            reach.add(new PiActionParam(PiActionParamId.of("r" + u), leafSet(reachOf[u] == null ? new BitSet()
                    : reachOf[u])));
        }
        for (long p : ports) {
            // v1model's ports are 9 bits wide, and the CPU port is the program's own
            if (p >= PORTS || p == Mcast4aiPipeconf.CPU_PORT) {
                throw new IllegalArgumentException("port " + p + ": the program's ports are 0 to " + (PORTS - 1)
                        + " but " + Mcast4aiPipeconf.CPU_PORT + " (the CPU port)");
            }
        }
        if (leaf) {
            below.set(selfLeaf);
        }
        rules.add(rule(d, ROLE, null, PiAction.builder().withId(PiActionId.of(SET_ROLE))
                .withParameter(param("is_leaf", leaf ? 1 : 0, 1))
                .withParameter(param("self_leaf", selfLeaf, 2))
                .withParameter(param("slot_bits", s, 2))
                .withParameter(param("leaf_bits", g.leafBits(), 2))
                .withParameter(param("n_up", nUp, 1))
                .withParameter(new PiActionParam(PiActionParamId.of("below"), leafSet(below)))
                .withParameter(param("slots", g.slotsPerLeaf(), 2))
                .withParameter(new PiActionParam(PiActionParamId.of("slot_mask"),
                        firstBits(g.slotsPerLeaf(), g.slotBitmapBytes())))
                .withParameter(new PiActionParam(PiActionParamId.of("leaf_mask"),
                        firstBits(g.leavesPerPod(), g.leafBitmapBytes())))
                .withParameter(new PiActionParam(PiActionParamId.of("leaves"), leafSet(geometryLeaves(g))))
                .build()));
        rules.add(rule(d, UPLINKS, null, PiAction.builder().withId(PiActionId.of(SET_UPLINKS))
                .withParameters(reach).build()));
        if (leaf) {
            icrcShifts(d, rules);
        }
        List<GroupBucket> buckets = new ArrayList<>();
        for (long p : ports) {
            buckets.add(DefaultGroupBucket.createAllGroupBucket(DefaultTrafficTreatment.builder()
                    .setOutput(PortNumber.portNumber(p)).build()));
        }
        GroupDescription group = new DefaultGroupDescription(d, GroupDescription.Type.ALL, new GroupBuckets(buckets),
                new DefaultGroupKey("mcast4ai-p4-replication".getBytes(StandardCharsets.US_ASCII)),
                MULTICAST_GROUP, appId);
        return new SwitchState(rules, group, leaf ? cloneToCpu(appId, d) : null, tier);
    }

    // the shifts over lo and over 64 * hi zero bytes, each matrix as one bit<1024> parameter: column i at bits
    // 32i+31..32i, so column 31 comes first in the big-endian bytes
    private void icrcShifts(DeviceId d, List<FlowRule> rules) {
        for (int t = 0; t < 2; t++) {
            boolean lo = t == 0;
            int n = lo ? ICRC_LO_ENTRIES : ICRC_HI_ENTRIES;
            for (int k = 0; k < n; k++) {
                int[] cols = Icrc.shiftColumns(lo ? k : 64 * k);
                byte[] z = new byte[128];
                for (int i = 0; i < 32; i++) {
                    for (int b = 0; b < 4; b++) {
                        z[124 - 4 * i + b] = (byte) (cols[i] >>> (8 * (3 - b)));
                    }
                }
                rules.add(rule(d, lo ? ICRC_LO : ICRC_HI, exact(lo ? "tail_lo" : "tail_hi", k),
                        PiAction.builder().withId(PiActionId.of(ICRC_SHIFT))
                                .withParameter(new PiActionParam(PiActionParamId.of("z"),
                                        ImmutableByteSequence.copyFrom(z))).build()));
            }
        }
    }

    /**
     * The leaf numbers of the geometry that the sets cover: a header naming any other leaf is refused, so a
     * copy is never drawn towards a leaf that cannot exist (one beyond the sets could not even be named).
     */
    private BitSet geometryLeaves(FabricGeometry g) {
        BitSet out = new BitSet();
        for (int pod = 0; pod < g.pods(); pod++) {
            for (int l = 0; l < g.leavesPerPod(); l++) {
                int n = g.bit(pod, l, 0) >>> g.slotBits();
                if (n < leafSet) {
                    out.set(n);
                }
            }
        }
        return out;
    }

    /**
     * @param n     items to set
     * @param bytes the bitmap's size
     * @return a header bitmap of so many bytes with items 0 to n - 1 set (item i is bit 0x80 >>> i % 8)
     */
    static ImmutableByteSequence firstBits(int n, int bytes) {
        byte[] b = new byte[bytes];
        for (int i = 0; i < n; i++) {
            b[i / 8] |= (byte) (0x80 >>> (i % 8));
        }
        return ImmutableByteSequence.copyFrom(b);
    }

    /** A leaf set as the program holds it: leaf l is bit {@code leafSet - 1 - l}, most significant first. */
    private ImmutableByteSequence leafSet(BitSet leaves) {
        return leafSet(leaves, leafSet);
    }

    /**
     * @param leaves  leaf numbers
     * @param leafSet the program's {@code LEAF_SET}
     * @return the set as the program holds it
     */
    static ImmutableByteSequence leafSet(BitSet leaves, int leafSet) {
        byte[] b = new byte[leafSet / 8];
        for (int l = leaves.nextSetBit(0); l >= 0; l = leaves.nextSetBit(l + 1)) {
            if (l >= leafSet) {
                throw new IllegalArgumentException("leaf " + l + " beyond the " + leafSet
                        + " the program's sets cover" + (leafSet < WIDE_LEAF_SET ? " (compile it with LEAF_SET="
                        + WIDE_LEAF_SET + " UPLINKS=" + WIDE_UPLINKS + ")" : ""));
            }
            b[l / 8] |= (byte) (0x80 >>> (l % 8));
        }
        return ImmutableByteSequence.copyFrom(b);
    }

    static PiActionParam param(String name, long value, int bytes) {
        byte[] b = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            b[bytes - 1 - i] = (byte) (value >>> (8 * i));
        }
        return new PiActionParam(PiActionParamId.of(name), ImmutableByteSequence.copyFrom(b));
    }

    private static TrafficSelector exact(String field, long port) {
        return DefaultTrafficSelector.builder().matchPi(PiCriterion.builder()
                .matchExact(PiMatchFieldId.of(field), (int) port).build()).build();
    }

    private FlowRule rule(DeviceId d, String table, TrafficSelector selector, PiAction action) {
        return rule(appId, d, table, selector, action);
    }

    static FlowRule rule(ApplicationId appId, DeviceId d, String table, TrafficSelector selector, PiAction action) {
        return DefaultFlowRule.builder().forDevice(d).forTable(PiTableId.of(table)).fromApp(appId)
                .withPriority(PRIORITY).makePermanent()
                .withSelector(selector == null ? DefaultTrafficSelector.emptySelector() : selector)
                .withTreatment(DefaultTrafficTreatment.builder().piTableAction(action).build()).build();
    }

    /**
     * @param appId owning application
     * @param d     a leaf
     * @return its clone session to the CPU port, which the aggregator's reports go out by beside an ACK
     */
    static GroupDescription cloneToCpu(ApplicationId appId, DeviceId d) {
        return new DefaultGroupDescription(d, GroupDescription.Type.CLONE, new GroupBuckets(List.of(
                DefaultGroupBucket.createCloneGroupBucket(DefaultTrafficTreatment.builder()
                        .setOutput(PortNumber.CONTROLLER).build()))),
                new DefaultGroupKey("mcast4ai-p4-clone-to-cpu".getBytes(StandardCharsets.US_ASCII)),
                CLONE_SESSION, appId);
    }

    /** @return the group id ONOS gives the program's multicast group */
    public static GroupId multicastGroupId() {
        return GroupId.valueOf(MULTICAST_GROUP);
    }
}
