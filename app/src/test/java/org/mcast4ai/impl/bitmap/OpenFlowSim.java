package org.mcast4ai.impl.bitmap;

import org.mcast4ai.engine.FabricSnapshot;
import org.onlab.packet.Ip4Address;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.EthCriterion;
import org.onosproject.net.flow.criteria.IPCriterion;
import org.onosproject.net.flow.criteria.MetadataCriterion;
import org.onosproject.net.flow.criteria.PortCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.L2ModificationInstruction;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupDescription;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A small OpenFlow 1.3 pipeline interpreter over a fabric snapshot, for the entries the BITMAP planner
 * writes: highest-priority match per table (equal-priority matches must agree), apply-actions in order
 * (OUTPUT emits a copy unless it is the in port; GROUP runs the bucket on a copy, so its set-field does not
 * leak), WRITE_METADATA, GOTO_TABLE. Copies follow the snapshot's links; a copy to a host port is a delivery.
 */
final class OpenFlowSim {
    /** A copy that reached a host. */
    static final class Delivery {
        final String host;
        final long ethSrc;

        Delivery(String host, long ethSrc) {
            this.host = host;
            this.ethSrc = ethSrc;
        }
    }

    private final FabricSnapshot fabric;
    private final Map<String, List<FlowRule>> rules = new HashMap<>();
    private final Map<String, Map<Integer, GroupDescription>> groups = new HashMap<>();
    private final int entryTable;
    int copiesOnLinks;
    /** Every link a copy crossed, as "switch index:out port", in the order they were crossed. */
    final List<String> crossed = new ArrayList<>();

    OpenFlowSim(FabricSnapshot fabric, int entryTable) {
        this.fabric = fabric;
        this.entryTable = entryTable;
    }

    void install(Collection<FlowRule> rs) {
        for (FlowRule r : rs) {
            List<FlowRule> list = rules.computeIfAbsent(r.deviceId().toString(), d -> new ArrayList<>());
            list.removeIf(o -> o.tableId() == r.tableId() && o.priority() == r.priority()
                    && o.selector().equals(r.selector()));
            list.add(r);
        }
    }

    void installGroups(Collection<GroupDescription> gs) {
        for (GroupDescription g : gs) {
            groups.computeIfAbsent(g.deviceId().toString(), d -> new HashMap<>()).put(g.givenGroupId(), g);
        }
    }

    void install(Map<DeviceId, BitmapPlanner.DeviceEntries> entries) {
        entries.values().forEach(e -> {
            install(e.rules());
            installGroups(e.groups());
        });
    }

    /**
     * Sends one packet from a host.
     *
     * @param host   source host name
     * @param ethSrc its source address
     * @param dst    IPv4 destination
     * @return every delivery
     */
    List<Delivery> send(String host, long ethSrc, String dst) {
        int h = fabric.hostIndex(host);
        return inject(fabric.switchName(fabric.hostSwitch(h)), fabric.hostPort(h), ethSrc, 0, dst);
    }

    /**
     * Injects one frame on a switch port, as a neighbour (or a host) would send it.
     *
     * @param switchName the switch
     * @param inPort     the port it arrives on
     * @param ethSrc     its source address
     * @param vlan       its VLAN id, or 0 for an untagged frame
     * @param dst        IPv4 destination
     * @return every delivery
     */
    List<Delivery> inject(String switchName, long inPort, long ethSrc, int vlan, String dst) {
        int ip = Ip4Address.valueOf(dst).toInt();
        List<Delivery> out = new ArrayList<>();
        Deque<long[]> queue = new ArrayDeque<>();
        queue.add(new long[]{fabric.switchIndex(switchName), inPort,
                ethSrc | (vlan == 0 ? 0 : (0x1000L | vlan) << 48)});
        int hops = 0;
        while (!queue.isEmpty()) {
            if (++hops > 10_000) {
                throw new AssertionError("forwarding loop");
            }
            long[] p = queue.poll();
            for (long[] copy : process((int) p[0], p[1], p[2], ip)) {
                emit((int) p[0], copy[0], copy[1], queue, out);
            }
        }
        return out;
    }

    private static final long MAC = 0xFFFF_FFFF_FFFFL;

    private void emit(int sw, long port, long src, Deque<long[]> queue, List<Delivery> out) {
        for (int i = fabric.hostStart(sw); i < fabric.hostStart(sw + 1); i++) {
            int host = fabric.hostAt(i);
            if (fabric.hostPort(host) == port) {
                if ((src & ~MAC) != 0) {
                    throw new AssertionError("a host copy still carries the VLAN mark: " + Long.toHexString(src));
                }
                out.add(new Delivery(fabric.hostName(host), src));
                return;
            }
        }
        for (int e = fabric.linkStart(sw); e < fabric.linkStart(sw + 1); e++) {
            if (fabric.linkFromPort(e) == port) {
                copiesOnLinks++;
                crossed.add(sw + ":" + port);
                queue.add(new long[]{fabric.linkTo(e), fabric.linkToPort(e), src});
                return;
            }
        }
        throw new AssertionError("output to unconnected port " + port + " of " + fabric.switchName(sw));
    }

    /** @return the copies (out port, eth src) one switch emits */
    private List<long[]> process(int sw, long inPort, long ethSrc, int ip) {
        List<long[]> copies = new ArrayList<>();
        List<FlowRule> table = rules.getOrDefault(fabric.switchName(sw), List.of());
        long src = ethSrc;
        long metadata = 0;
        int t = entryTable;
        while (t >= 0) {
            FlowRule hit = null;
            for (FlowRule r : table) {
                if (r.tableId() == t && matches(r, inPort, src, ip, metadata)) {
                    if (hit == null || r.priority() > hit.priority()) {
                        hit = r;
                    } else if (r.priority() == hit.priority() && !r.treatment().equals(hit.treatment())) {
                        throw new AssertionError("ambiguous equal-priority rules in table " + t + ": " + r + hit);
                    }
                }
            }
            if (hit == null) {
                break;
            }
            for (Instruction i : hit.treatment().immediate()) {
                src = apply(sw, i, inPort, src, copies);
            }
            Instructions.MetadataInstruction md = hit.treatment().writeMetadata();
            if (md != null) {
                metadata = (metadata & ~md.metadataMask()) | (md.metadata() & md.metadataMask());
            }
            int next = hit.treatment().tableTransition() == null ? -1 : hit.treatment().tableTransition().tableId();
            if (next >= 0 && next <= t) {
                throw new AssertionError("goto_table must go forward: " + t + " -> " + next);
            }
            t = next;
        }
        return copies;
    }

    private long apply(int sw, Instruction i, long inPort, long src, List<long[]> copies) {
        switch (i.type()) {
            case OUTPUT:
                long port = ((Instructions.OutputInstruction) i).port().toLong();
                if (port != inPort) {
                    copies.add(new long[]{port, src});
                }
                return src;
            case L2MODIFICATION:
                L2ModificationInstruction l2 = (L2ModificationInstruction) i;
                switch (l2.subtype()) {
                    case ETH_SRC:
                        return (src & ~MAC) | ((L2ModificationInstruction.ModEtherInstruction) l2).mac().toLong();
                    case VLAN_PUSH:
                        if ((src & ~MAC) != 0) {
                            throw new AssertionError("a second VLAN tag pushed");
                        }
                        return src | (0x1000L << 48);
                    case VLAN_ID:
                        if ((src & ~MAC) == 0) {
                            throw new AssertionError("VLAN id set on an untagged frame");
                        }
                        return (src & MAC) | ((0x1000L
                                | ((L2ModificationInstruction.ModVlanIdInstruction) l2).vlanId().toShort()) << 48);
                    case VLAN_POP:
                        if ((src & ~MAC) == 0) {
                            throw new AssertionError("VLAN popped from an untagged frame");
                        }
                        return src & MAC;
                    default:
                        throw new AssertionError("unexpected " + i);
                }
            case NOACTION:
                return src;
            case GROUP:
                int id = ((Instructions.GroupInstruction) i).groupId().id();
                GroupDescription g = groups.getOrDefault(fabric.switchName(sw), Map.of()).get(id);
                if (g == null) {
                    throw new AssertionError("rule names missing group 0x" + Integer.toHexString(id));
                }
                for (GroupBucket b : g.buckets().buckets()) {
                    long copy = src;
                    for (Instruction bi : b.treatment().immediate()) {
                        copy = apply(sw, bi, inPort, copy, copies);
                    }
                }
                return src;
            default:
                throw new AssertionError("unexpected " + i);
        }
    }

    private static boolean matches(FlowRule r, long inPort, long src, int ip, long metadata) {
        for (Criterion c : r.selector().criteria()) {
            switch (c.type()) {
                case ETH_TYPE:
                    break;
                case IN_PORT:
                    if (((PortCriterion) c).port().toLong() != inPort) {
                        return false;
                    }
                    break;
                case IPV4_DST:
                    if (!((IPCriterion) c).ip().contains(Ip4Address.valueOf(ip))) {
                        return false;
                    }
                    break;
                case ETH_SRC:
                    if (((EthCriterion) c).mac().toLong() != (src & MAC)) {
                        return false;
                    }
                    break;
                case VLAN_VID:
                    long tag = src >>> 48;
                    if (tag != (0x1000L | ((org.onosproject.net.flow.criteria.VlanIdCriterion) c).vlanId().toShort())) {
                        return false;
                    }
                    break;
                case ETH_SRC_MASKED:
                    EthCriterion e = (EthCriterion) c;
                    long mask = e.mask().toLong();
                    if ((e.mac().toLong() & ~mask) != 0) {
                        throw new AssertionError("OFPBMC_BAD_WILDCARDS: value outside mask in " + r);
                    }
                    if ((src & MAC & mask) != e.mac().toLong()) {
                        return false;
                    }
                    break;
                case METADATA:
                    if (((MetadataCriterion) c).metadata() != metadata) {
                        return false;
                    }
                    break;
                default:
                    throw new AssertionError("criterion not modelled: " + c);
            }
        }
        return true;
    }
}
