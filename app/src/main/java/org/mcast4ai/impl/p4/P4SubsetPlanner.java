package org.mcast4ai.impl.p4;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.SubsetExpansion;
import org.mcast4ai.impl.fabric.HostResolver;
import org.onlab.packet.IpAddress;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiActionParamId;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The source leaves' subset entries: for every group whose sender is attached to a P4 leaf, one {@code subset}
 * entry keyed by the sender's port, the fabric's subset prefix and the group's number, holding the members' bit
 * indices by rank and the IPv6 address the copies carry. A stock RDMA NIC then sends each packet to any subset
 * of the group (MoE top-K) by its destination address alone ({@link org.mcast4ai.engine.bitmap.SubsetEncoder});
 * the leaf expands it ({@link SubsetExpansion}). No other host reaches the group this way. Pure.
 *
 * <p>The group's number is its id while that fits the address's 15 bits; groups with larger ids (ids are never
 * reused) get no entry. The copies carry {@code ff3e::/96} followed by the group's IPv4 address, the IPv6
 * multicast address its receivers' QPs attach to.
 */
public final class P4SubsetPlanner {
    /** Table and action names of the program's P4Info. */
    public static final String SUBSET = "McastIngress.subset";
    public static final String EXPAND = "McastIngress.expand";
    /** The fabric's subset prefix: the first 16 bits of every subset address (in ULA space, fd00::/8). */
    public static final int DEFAULT_PREFIX = 0xfd4c;
    /** Largest group number a subset address carries. */
    public static final int MAX_NUMBER = 0x7FFF;

    /** A group's sender and what its entry holds. */
    public static final class Sender {
        final int number;
        final byte[] copies;
        final ConnectPoint at;
        final SubsetExpansion members;

        Sender(int number, byte[] copies, ConnectPoint at, SubsetExpansion members) {
            this.number = number;
            this.copies = copies;
            this.at = at;
            this.members = members;
        }
    }

    private final ApplicationId appId;
    private final int prefix;

    /**
     * @param appId  owning application (the P4 fabric's)
     * @param prefix the fabric's subset prefix, 16 bits
     */
    public P4SubsetPlanner(ApplicationId appId, int prefix) {
        if (prefix < 0 || prefix > 0xFFFF) {
            throw new IllegalArgumentException("the subset prefix has 16 bits");
        }
        this.appId = appId;
        this.prefix = prefix;
    }

    /**
     * @param id a group's id
     * @return its number in subset addresses, or -1 if its id does not fit
     */
    public static int number(long id) {
        return id > 0 && id <= MAX_NUMBER ? (int) id : -1;
    }

    /**
     * @param group a group's (IPv4) address
     * @return the IPv6 address its copies carry: {@code ff3e::} and the IPv4 address in the last 32 bits
     */
    public static byte[] copyAddress(IpAddress group) {
        byte[] a = new byte[16];
        a[0] = (byte) 0xff;
        a[1] = 0x3e;
        byte[] v4 = group.getIp4Address().toOctets();
        System.arraycopy(v4, 0, a, 12, 4);
        return a;
    }

    /**
     * The groups' senders as the fabric places them: a group not being withdrawn, whose number fits, whose
     * sender is located and which has 1 to {@link SubsetExpansion#MAX_MEMBERS} located receivers (in bit order).
     *
     * @param groups the groups
     * @param fabric the fabric
     * @param bits   the P4 fabric's bit indices
     * @param hosts  the host names' resolver
     * @return the senders
     */
    public static List<Sender> senders(Collection<P2mpGroup> groups, FabricSnapshot fabric, BitIndexTable bits,
                                       HostResolver hosts) {
        List<Sender> out = new ArrayList<>();
        int[] hostBits = null;
        for (P2mpGroup g : groups) {
            int number = number(g.id().value());
            if (g.state() == GroupState.WITHDRAWING || g.state() == GroupState.WITHDRAWN || number < 0
                    || !g.address().isIp4()) {
                continue;
            }
            int source = index(fabric, hosts, g.request().source());
            if (source < 0) {
                continue;
            }
            if (hostBits == null) {
                hostBits = bits.hostBits(fabric);
            }
            TreeSet<Integer> members = new TreeSet<>();
            for (Endpoint r : g.request().receivers()) {
                int h = index(fabric, hosts, r);
                if (h >= 0 && h != source && hostBits[h] >= 0) {
                    members.add(hostBits[h]);
                }
            }
            if (members.isEmpty() || members.size() > SubsetExpansion.MAX_MEMBERS) {
                continue;
            }
            ConnectPoint at = new ConnectPoint(DeviceId.deviceId(fabric.switchName(fabric.hostSwitch(source))),
                    PortNumber.portNumber(fabric.hostPort(source)));
            out.add(new Sender(number, copyAddress(g.address()), at,
                    new SubsetExpansion(members.stream().mapToInt(Integer::intValue).toArray())));
        }
        return out;
    }

    private static int index(FabricSnapshot fabric, HostResolver hosts, Endpoint e) {
        HostId id = hosts.idOrNull(e);
        return id == null ? -1 : fabric.hostIndex(hosts.nameOf(id));
    }

    /**
     * @param senders the groups' senders
     * @param only    the P4 switches
     * @return per switch its subset entries
     */
    public Map<DeviceId, List<FlowRule>> plan(Collection<Sender> senders, Set<DeviceId> only) {
        Map<DeviceId, List<FlowRule>> out = new LinkedHashMap<>();
        for (Sender s : senders) {
            if (!only.contains(s.at.deviceId())) {
                continue;
            }
            TrafficSelector key = DefaultTrafficSelector.builder().matchPi(PiCriterion.builder()
                    .matchExact(PiMatchFieldId.of("ingress_port"), (int) s.at.port().toLong())
                    .matchExact(PiMatchFieldId.of("prefix"), prefix)
                    .matchExact(PiMatchFieldId.of("group"), s.number).build()).build();
            PiAction action = PiAction.builder().withId(PiActionId.of(EXPAND))
                    .withParameter(P4FabricPlanner.param("members", s.members.members(), 2))
                    .withParameter(new PiActionParam(PiActionParamId.of("lo"),
                            ImmutableByteSequence.copyFrom(s.members.rankParam(false))))
                    .withParameter(new PiActionParam(PiActionParamId.of("hi"),
                            ImmutableByteSequence.copyFrom(s.members.rankParam(true))))
                    .withParameter(new PiActionParam(PiActionParamId.of("group"),
                            ImmutableByteSequence.copyFrom(s.copies))).build();
            out.computeIfAbsent(s.at.deviceId(), d -> new ArrayList<>())
                    .add(P4FabricPlanner.rule(appId, s.at.deviceId(), SUBSET, key, action));
        }
        return out;
    }
}
