package org.mcast4ai.impl.bitmap;

import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import org.mcast4ai.impl.flow.AppFlowIds;
import org.mcast4ai.impl.flow.FlowCookies;
import org.onlab.packet.Ethernet;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.group.DefaultGroupBucket;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.DefaultGroupKey;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupKey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link BitmapLayout} into OpenFlow 1.3 entries (pure: no service calls).
 *
 * <p>Static entries of one switch, the same for any number of groups:
 * <ul>
 *   <li>entry table: for each fabric port, {@code ip, in_port=P, dl_vlan=4000, nw_dst=224.0.0.0/4} (the
 *       {@link #MARK} the source leaf pushed; the egress group pops it) goes to the switch's
 *       chain: to the up table when the copy comes from below and the switch has bits outside its subtree,
 *       to the first down table otherwise. Priority {@value #ENTRY_PRIORITY}, below TREE groups' rules.</li>
 *   <li>up table ({@code chainBase}): one rule per bit outside the subtree, {@code dl_src=bit/bit}
 *       &rarr; {@code output:uplink, goto next}; on a leaf one such set per spread slot, output to the slot's
 *       current uplink (or, while no uplink reaches every receiver outside the leaf, one per uplink), selected by
 *       the metadata the stamp wrote
 *       the group's stamp wrote; default &rarr; {@code goto next}.</li>
 *   <li>one down table per down port p ({@code chainBase + p}: numbered by the port, so a port that comes or goes
 *       moves no other port's rules): one rule per bit b in reach(p),
 *       {@code dl_src=b/b} &rarr; output to p (through its egress group on a host port),
 *       {@code goto next}; default &rarr; {@code goto next} (drop in the last table). Every rule of a
 *       table that matches does the same thing, so each table emits at most one copy, to its port.</li>
 *   <li>leaves: one INDIRECT group per host port whose bucket writes the leaf's fixed source address and
 *       outputs to the port, so the host copy never carries the bitmap and the rewrite stays in the bucket
 *       (a set-field in apply-actions would leak into the later tables).</li>
 * </ul>
 * Per group, only the source leaf's {@link #stampRules(BitmapStamp) stamp rules}.
 */
public final class BitmapPlanner {
    /** Priority of the entry rules (below the default group priority, so TREE rules win). */
    public static final int ENTRY_PRIORITY = 10;
    /** Priority of the per-bit rules. */
    public static final int BIT_PRIORITY = 100;
    /** Priority of a table's default rule. */
    public static final int DEFAULT_PRIORITY = 1;
    /** First table of the replication chain unless configured otherwise. */
    public static final int DEFAULT_CHAIN_BASE = 10;
    /** Egress group ids are this plus the host port. */
    public static final int EGRESS_GROUP_BASE = 0x4d420000;
    /** The addresses the static entry rules accept. */
    public static final IpPrefix MULTICAST = IpPrefix.valueOf("224.0.0.0/4");
    /** Prefix of the leaves' fixed source addresses (02:6d:34:61:xx:xx, locally administered). */
    public static final long RESTORE_PREFIX = 0x026d_3461_0000L;
    /** Metadata bits the stamp writes (the uplink choice). */
    public static final long METADATA_MASK = 0xFFFF_FFFFL;
    /**
     * The VLAN that marks a stamped packet between the source leaf and the egress: the static tables act only
     * on frames carrying it. Without the mark, any multicast frame without a rule of its own (a TREE group's
     * packet on a switch that lost or has not yet got its rule) whose source address happens to read as a
     * bitmap (every locally administered address does) would be replicated to the hosts of those bits.
     */
    public static final VlanId MARK = VlanId.vlanId((short) 4000);

    private final ApplicationId appId;
    private final int entryTable;
    private final int chainBase;

    /** Static entries of one device. */
    public static final class DeviceEntries {
        private final List<GroupDescription> groups;
        private final List<FlowRule> rules;

        DeviceEntries(List<GroupDescription> groups, List<FlowRule> rules) {
            this.groups = Collections.unmodifiableList(groups);
            this.rules = Collections.unmodifiableList(rules);
        }

        /** @return egress groups (installed before the rules that use them) */
        public List<GroupDescription> groups() {
            return groups;
        }

        /** @return flow rules */
        public List<FlowRule> rules() {
            return rules;
        }
    }

    /**
     * @param appId      application owning the entries
     * @param entryTable table where packets enter (the TREE programmer's table)
     * @param chainBase  first table of the replication chain (must be above {@code entryTable})
     */
    public BitmapPlanner(ApplicationId appId, int entryTable, int chainBase) {
        if (chainBase <= entryTable || entryTable < 0) {
            throw new IllegalArgumentException("the replication chain (table " + chainBase
                    + ") must come after the entry table " + entryTable);
        }
        this.appId = appId;
        this.entryTable = entryTable;
        this.chainBase = chainBase;
    }

    /** @return the entry table */
    public int entryTable() {
        return entryTable;
    }

    /** @return the first chain table */
    public int chainBase() {
        return chainBase;
    }

    /**
     * @param layout the fabric's layout
     * @return static entries per device (devices with none are left out)
     */
    public Map<DeviceId, DeviceEntries> staticEntries(BitmapLayout layout) {
        // the fingerprint and the sync of one layout ask for the same entries: they are derived once
        synchronized (this) {
            if (layout == lastLayout) {
                return lastEntries;
            }
        }
        Map<DeviceId, DeviceEntries> entries = java.util.Collections.unmodifiableMap(derive(layout));
        synchronized (this) {
            lastLayout = layout;
            lastEntries = entries;
        }
        return entries;
    }

    private BitmapLayout lastLayout;
    private Map<DeviceId, DeviceEntries> lastEntries;

    /**
     * A stable name of a layout's static entries, the same on every instance for the same fabric: a hash of
     * everything {@link #staticEntries} reads from the layout (per switch, in name order: role, ports, reach
     * sets, fixed uplink, spread slots) and of this planner's tables and application. Computed from the layout's
     * numbers, without deriving or formatting the entries.
     *
     * @param layout the fabric's layout
     * @return the fingerprint, ending in {@code /} and the number of switches
     */
    public String fingerprint(BitmapLayout layout) {
        Hasher h = Hashing.sha256().newHasher()
                .putInt(FINGERPRINT_VERSION).putShort(appId.id()).putInt(entryTable).putInt(chainBase);
        List<String> names = new ArrayList<>(layout.switches().keySet());
        Collections.sort(names);
        for (String name : names) {
            BitmapLayout.SwitchPorts sw = layout.switchPorts(name);
            h.putUnencodedChars(name).putInt(sw.role().ordinal());
            long[] down = sw.downPorts();
            h.putInt(down.length);
            for (int i = 0; i < down.length; i++) {
                h.putLong(down[i]).putLong(sw.downReach(i)).putBoolean(sw.downIsHost(i));
            }
            putAll(h, sw.upPorts());
            putAll(h, sw.fromBelow());
            h.putLong(sw.upReach()).putInt(sw.fixedUplink());
            if (sw.role() == org.mcast4ai.engine.Role.LEAF) {
                for (int slot = 1; slot <= BitmapLayout.SLOTS; slot++) {
                    h.putLong(layout.slotUplink(name, slot));
                }
            }
        }
        return h.hash().toString().substring(0, 16) + "/" + names.size();
    }

    // changes whenever staticEntries reads something new from the layout or derives its entries differently
    private static final int FINGERPRINT_VERSION = 1;

    private static void putAll(Hasher h, long[] values) {
        h.putInt(values.length);
        for (long v : values) {
            h.putLong(v);
        }
    }

    private Map<DeviceId, DeviceEntries> derive(BitmapLayout layout) {
        Map<DeviceId, DeviceEntries> out = new LinkedHashMap<>();
        for (BitmapLayout.SwitchPorts sw : layout.switches().values()) {
            DeviceEntries e = device(layout, sw);
            if (!e.rules.isEmpty() || !e.groups.isEmpty()) {
                out.put(DeviceId.deviceId(sw.name()), e);
            }
        }
        return out;
    }

    private DeviceEntries device(BitmapLayout layout, BitmapLayout.SwitchPorts sw) {
        DeviceId dev = DeviceId.deviceId(sw.name());
        List<FlowRule> rules = new ArrayList<>();
        List<GroupDescription> groups = new ArrayList<>();
        long[] down = sw.downPorts();
        long[] ups = sw.upPorts();
        boolean hasUp = sw.upReach() != 0;
        if (down.length == 0 && !hasUp) {
            return new DeviceEntries(groups, rules);
        }
        // a down port's table is numbered by the port, not by its place among the ports: when a port comes or
        // goes no other port's rules move to another table, so a change never leaves a bit in two tables
        int firstDown = down.length > 0 ? downTable(down[0]) : -1;
        // entry: from above (uplinks) only down; from below (lower-role switches) up and down
        if (down.length > 0) {
            for (long p : ups) {
                rules.add(entry(dev, p, firstDown));
            }
        }
        for (long p : sw.fromBelow()) {
            rules.add(entry(dev, p, hasUp ? chainBase : firstDown));
        }
        if (hasUp) {
            int next = down.length > 0 ? firstDown : -1;
            if (sw.role() == org.mcast4ai.engine.Role.LEAF) {
                // keyed by the uplink's port number, for stamps that must pick an uplink themselves: only while no
                // uplink reaches every receiver outside the leaf (else every stamp names a spread slot)
                if (layout.slotUplink(sw.name(), 1) < 0) {
                    for (long u : ups) {
                        for (int b : bits(sw.upReach())) {
                            rules.add(bitRule(dev, chainBase, b, (int) u, output(u), next));
                        }
                    }
                }
                // and by spread slot: a slot's rules follow its uplink, the stamps naming the slot stay
                for (int slot = 1; slot <= BitmapLayout.SLOTS; slot++) {
                    long u = layout.slotUplink(sw.name(), slot);
                    if (u < 0) {
                        continue;
                    }
                    for (int b : bits(sw.upReach())) {
                        rules.add(bitRule(dev, chainBase, b, BitmapLayout.SLOT_BASE + slot, output(u), next));
                    }
                }
            } else {
                long up = ups[sw.fixedUplink()];
                for (int b : bits(sw.upReach())) {
                    rules.add(bitRule(dev, chainBase, b, 0, output(up), next));
                }
            }
            rules.add(defaultRule(dev, chainBase, next));
        } else if (sw.role() == org.mcast4ai.engine.Role.LEAF && down.length > 0) {
            // stamps always hand over to the chain's first table
            rules.add(defaultRule(dev, chainBase, firstDown));
        }
        for (int i = 0; i < down.length; i++) {
            int table = downTable(down[i]);
            int next = i + 1 < down.length ? downTable(down[i + 1]) : -1;
            TrafficTreatment.Builder out;
            if (sw.downIsHost(i)) {
                groups.add(egressGroup(dev, down[i]));
                out = DefaultTrafficTreatment.builder().group(egressGroupId(down[i]));
            } else {
                out = output(down[i]);
            }
            for (int b : bits(sw.downReach(i))) {
                rules.add(bitRule(dev, table, b, 0, out, next));
            }
            rules.add(defaultRule(dev, table, next));
        }
        return new DeviceEntries(groups, rules);
    }

    private int downTable(long port) {
        return chainBase + (int) port;
    }

    private FlowRule entry(DeviceId dev, long port, int table) {
        return rule(dev, entryTable, ENTRY_PRIORITY, DefaultTrafficSelector.builder()
                .matchEthType(Ethernet.TYPE_IPV4)
                .matchInPort(PortNumber.portNumber(port))
                .matchVlanId(MARK)
                .matchIPDst(MULTICAST)
                .build(), DefaultTrafficTreatment.builder().transition(table).build());
    }

    private FlowRule bitRule(DeviceId dev, int table, int bit, int metadata, TrafficTreatment.Builder out, int next) {
        TrafficSelector.Builder sel = DefaultTrafficSelector.builder();
        if (metadata > 0) {
            sel.matchMetadata(metadata);
        }
        MacAddress one = EthSrcBitmap.single(bit);
        sel.matchEthSrcMasked(one, one);
        TrafficTreatment.Builder t = DefaultTrafficTreatment.builder();
        out.build().immediate().forEach(t::add);
        if (next >= 0) {
            t.transition(next);
        }
        return rule(dev, table, BIT_PRIORITY, sel.build(), t.build());
    }

    private FlowRule defaultRule(DeviceId dev, int table, int next) {
        TrafficTreatment.Builder t = DefaultTrafficTreatment.builder();
        if (next >= 0) {
            t.transition(next);
        }
        return rule(dev, table, DEFAULT_PRIORITY, DefaultTrafficSelector.emptySelector(), t.build());
    }

    private static TrafficTreatment.Builder output(long port) {
        return DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(port));
    }

    private FlowRule rule(DeviceId dev, int table, int priority, TrafficSelector sel, TrafficTreatment t) {
        return DefaultFlowRule.builder()
                .forDevice(dev)
                .forTable(table)
                .withPriority(priority)
                .withSelector(sel)
                .withTreatment(t)
                .withCookie(AppFlowIds.of(appId, dev, sel, priority, table))
                .makePermanent()
                .build();
    }

    /**
     * @param port host port
     * @return the id of that port's egress group
     */
    public static GroupId egressGroupId(long port) {
        return GroupId.valueOf(EGRESS_GROUP_BASE + (int) port);
    }

    /**
     * @param port host port
     * @return the application cookie of that port's egress group
     */
    public static GroupKey egressGroupKey(long port) {
        return new DefaultGroupKey(("mcast4ai-bitmap-egress/" + port).getBytes(StandardCharsets.UTF_8));
    }

    private GroupDescription egressGroup(DeviceId dev, long port) {
        TrafficTreatment bucket = DefaultTrafficTreatment.builder()
                .popVlan()
                .setEthSrc(restoreMac(dev))
                .setOutput(PortNumber.portNumber(port))
                .build();
        return new DefaultGroupDescription(dev, GroupDescription.Type.INDIRECT,
                new GroupBuckets(List.of(DefaultGroupBucket.createIndirectGroupBucket(bucket))),
                egressGroupKey(port), egressGroupId(port).id(), appId);
    }

    /**
     * The fixed source address a leaf writes on host copies: {@code 02:6d:34:61:xx:xx} with the low 16 bits
     * of the datapath id for {@code of:} devices (a hash of the name otherwise).
     *
     * @param leaf the leaf
     * @return its address
     */
    public static MacAddress restoreMac(DeviceId leaf) {
        String s = leaf.toString();
        long low;
        if (s.startsWith("of:") && s.length() == 19) {
            low = Long.parseUnsignedLong(s.substring(3), 16) & 0xFFFF;
        } else {
            low = s.hashCode() & 0xFFFF;
        }
        return MacAddress.valueOf(RESTORE_PREFIX | low);
    }

    /**
     * The per-group rules on the source leaf: the subset check at the group's priority (a frame whose source
     * address is a bitmap within the group passes unchanged) and, one below it, the full-group stamp for
     * frames carrying the source host's own address (when known). A sender that stamps always gets exactly
     * the subset it stamped; an unmodified sender gets the whole group, unless its own address happens to
     * decode as a subset of the group (only possible for a locally administered address, see
     * {@link BitmapStamp#ownAddressIsASubset()}).
     *
     * @param stamp the group's stamp
     * @return one or two rules, all on {@link BitmapStamp#device()}
     */
    public List<FlowRule> stampRules(BitmapStamp stamp) {
        List<FlowRule> out = new ArrayList<>(2);
        int goTo = chainBase; // a leaf without uplinks has a pass-through table there
        int high = Math.max(stamp.priority(), ENTRY_PRIORITY + 2);
        IpPrefix dst = IpPrefix.valueOf(stamp.address(), IpPrefix.MAX_INET_MASK_LENGTH);
        MacAddress[] subset = EthSrcBitmap.subsetOf(stamp.bits());
        long inPort = stamp.inPort().toLong();
        long address = stamp.address().getIp4Address().toInt();
        out.add(stampRule(stamp.device(), high, groupSelector(stamp, dst)
                .matchEthSrcMasked(subset[0], subset[1]).build(),
                finish(DefaultTrafficTreatment.builder(), stamp, goTo),
                inPort, address, subset[0].toLong(), subset[1].toLong()));
        if (stamp.sourceMac() != null) {
            TrafficTreatment.Builder t = DefaultTrafficTreatment.builder().setEthSrc(stamp.groupMac());
            out.add(stampRule(stamp.device(), high - 1, groupSelector(stamp, dst)
                    .matchEthSrc(stamp.sourceMac()).build(), finish(t, stamp, goTo),
                    inPort, address, stamp.sourceMac().toLong(), -1L));
        }
        return out;
    }

    // per-group rules are built on every change of every group: their flow ids are mixed from the match's
    // numbers (FlowCookies) instead of fromApp's hash of the selector's text
    private FlowRule stampRule(DeviceId dev, int priority, TrafficSelector sel, TrafficTreatment t, long... match) {
        return DefaultFlowRule.builder()
                .forDevice(dev)
                .forTable(entryTable)
                .withPriority(priority)
                .withSelector(sel)
                .withTreatment(t)
                .withCookie(FlowCookies.of(appId, dev, entryTable, priority, match))
                .makePermanent()
                .build();
    }

    private static TrafficSelector.Builder groupSelector(BitmapStamp stamp, IpPrefix dst) {
        return DefaultTrafficSelector.builder()
                .matchEthType(Ethernet.TYPE_IPV4)
                .matchInPort(stamp.inPort())
                .matchIPDst(dst);
    }

    private static TrafficTreatment finish(TrafficTreatment.Builder t, BitmapStamp stamp, int goTo) {
        t.pushVlan().setVlanId(MARK);
        if (stamp.uplink() > 0) {
            t.writeMetadata(stamp.uplink(), METADATA_MASK);
        }
        return t.transition(goTo).build();
    }

    private static int[] bits(long set) {
        int[] out = new int[Long.bitCount(set)];
        int i = 0;
        for (long s = set; s != 0; s &= s - 1) {
            out[i++] = Long.numberOfTrailingZeros(s);
        }
        return out;
    }
}
