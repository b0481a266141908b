package org.mcast4ai.impl.p4;

import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * ACK aggregation in the source leaf ({@code models/p4/agg/agg_control.p4}): the table entries of every
 * ACK_AGGREGATION group whose sender is on a P4 leaf, and what the controller's control frames start each with.
 * <ul>
 * <li>the source leaf: {@code agg_vp} (the virtual peer's address) and {@code agg_group} (the group's index) with
 * the sender, its port and the timers, and one {@code agg_member} entry per receiver: (index, address, the QPN its
 * ACKs name) to its slot;</li>
 * <li>every P4 leaf a receiver is on: {@code ack_src}, the receiver's port, MAC and address (only its own ACKs pass),
 * and, away from the source leaf, {@code ack_vp}: the virtual peer to the sender's bit index, which the leaf sends
 * the ACK to in a HOST entry (transit switches hold nothing of the group).</li>
 * </ul>
 * The group's index at its leaf is the virtual peer's ({@link org.mcast4ai.api.VirtualPeer#index()}, distinct among
 * one sender's groups). A group the program cannot hold is left out with the reason in {@link Plan#problems}:
 * another sender's group on the same leaf already has the index (the older group keeps it), or a receiver's slot is
 * beyond the program's {@link #RECEIVERS}. Pure.
 */
public final class P4AggPlanner {
    /** Table, action and counter names of the program's P4Info. */
    public static final String AGG_VP = "McastIngress.agg.agg_vp";
    public static final String AGG_GROUP = "McastIngress.agg.agg_group";
    public static final String AGG_MEMBER = "McastIngress.agg.agg_member";
    public static final String VP_GROUP = "McastIngress.agg.vp_group";
    public static final String MEMBER = "McastIngress.agg.member";
    public static final String ACK_SRC = "McastIngress.ack_src";
    public static final String HOST_OK = "McastIngress.host_ok";
    public static final String ACK_VP = "McastIngress.ack_vp";
    public static final String TO_SOURCE = "McastIngress.to_source";
    /** Groups a source leaf aggregates at once (the program's AGG_GROUPS). */
    public static final int GROUPS = 64;
    /** Receiver slots of a group (the program's AGG_RX). */
    public static final int RECEIVERS = 128;

    /** How the aggregators are paced. */
    public static final class Timers {
        final long stallUs;
        final long cnpUs;
        final long holdoffUs;

        /**
         * @param stallUs   how long the minimum may stand still with data unacknowledged before the stall rule
         * @param cnpUs     at most one CNP per this interval reaches the sender
         * @param holdoffUs a NAK for the same PSN is not repeated within this (without the data in sight)
         */
        public Timers(long stallUs, long cnpUs, long holdoffUs) {
            if (stallUs <= 0 || cnpUs < 0 || holdoffUs < 0) {
                throw new IllegalArgumentException("the stall time is positive, intervals not negative");
            }
            this.stallUs = stallUs;
            this.cnpUs = cnpUs;
            this.holdoffUs = holdoffUs;
        }
    }

    /** The production pacing: a receiver stalls out after 1 s, one CNP per 50 us, a NAK hold-off of 1 ms. */
    public static final Timers DEFAULT_TIMERS = new Timers(1_000_000, 50, 1_000);

    /** A group aggregated in a source leaf: what its CONFIG and JOIN frames carry. */
    public static final class Point {
        final P2mpGroupId id;
        final DeviceId device;
        final PortNumber senderPort;
        final int index;
        final int startPsn;
        final Map<Integer, Long> keys;
        final Map<Integer, Integer> joinPsn;
        final Map<Integer, String> names;
        final List<FlowRule> entries;
        final Set<Integer> stalled;

        Point(P2mpGroupId id, DeviceId device, PortNumber senderPort, int index, int startPsn,
              Map<Integer, Long> keys, Map<Integer, Integer> joinPsn, Map<Integer, String> names) {
            this(id, device, senderPort, index, startPsn, keys, joinPsn, names, List.of());
        }

        Point(P2mpGroupId id, DeviceId device, PortNumber senderPort, int index, int startPsn,
              Map<Integer, Long> keys, Map<Integer, Integer> joinPsn, Map<Integer, String> names,
              List<FlowRule> entries) {
            this(id, device, senderPort, index, startPsn, keys, joinPsn, names, entries, Set.of());
        }

        Point(P2mpGroupId id, DeviceId device, PortNumber senderPort, int index, int startPsn,
              Map<Integer, Long> keys, Map<Integer, Integer> joinPsn, Map<Integer, String> names,
              List<FlowRule> entries, Set<Integer> stalled) {
            this.stalled = Set.copyOf(stalled);
            this.id = id;
            this.device = device;
            this.senderPort = senderPort;
            this.index = index;
            this.startPsn = startPsn;
            this.keys = Map.copyOf(keys);
            this.joinPsn = Map.copyOf(joinPsn);
            this.names = Map.copyOf(names);
            this.entries = List.copyOf(entries);
        }

        /** @return its entries on the source leaf, which must be in place before its control frames are sent */
        public List<FlowRule> entries() {
            return entries;
        }

        /** @return the group */
        public P2mpGroupId id() {
            return id;
        }

        /** @return the source leaf */
        public DeviceId device() {
            return device;
        }

        /** @return the sender's port on it */
        public PortNumber senderPort() {
            return senderPort;
        }

        /** @return the group's index in the leaf's registers */
        public int index() {
            return index;
        }

        /** @return the PSN the group starts at */
        public int startPsn() {
            return startPsn;
        }

        /** @return per receiver slot its key (address << 24 | the QPN its ACKs name) */
        public Map<Integer, Long> keys() {
            return keys;
        }

        /** @return per receiver slot the PSN it joins at */
        public Map<Integer, Integer> joinPsn() {
            return joinPsn;
        }

        /** @return the slots the group's record has stalled out: a group started again does not join them */
        public Set<Integer> stalled() {
            return stalled;
        }

        /**
         * @return the key CONFIG carries: the group and its first PSN; the switch takes the same key again as
         *     changing nothing (its registers hold the running transfer)
         */
        public long configKey() {
            return (id.value() & 0xFFFFFFFFFFL) << 24 | (startPsn & 0xFFFFFF);
        }

        /** @return per receiver slot its name, as the group's request names it */
        public Map<Integer, String> names() {
            return names;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Point)) {
                return false;
            }
            Point p = (Point) o;
            return id.equals(p.id) && device.equals(p.device) && senderPort.equals(p.senderPort)
                    && index == p.index && startPsn == p.startPsn && keys.equals(p.keys)
                    && joinPsn.equals(p.joinPsn) && stalled.equals(p.stalled);
        }

        @Override
        public int hashCode() {
            return Objects.hash(id, device, index, startPsn, keys);
        }

        @Override
        public String toString() {
            return "group " + id + " at " + device + " index " + index + " (" + keys.size() + " receivers)";
        }
    }

    /** What {@link #plan} found. */
    public static final class Plan {
        final Map<DeviceId, List<FlowRule>> rules;
        final List<Point> points;
        final List<String> problems;

        Plan(Map<DeviceId, List<FlowRule>> rules, List<Point> points, List<String> problems) {
            this.rules = rules;
            this.points = List.copyOf(points);
            this.problems = List.copyOf(problems);
        }

        /** @return per switch its entries */
        public Map<DeviceId, List<FlowRule>> rules() {
            return rules;
        }

        /** @return the groups aggregated, each at its source leaf */
        public List<Point> points() {
            return points;
        }

        /** @return the groups left out, each with why */
        public List<String> problems() {
            return problems;
        }
    }

    private final ApplicationId appId;

    /** @param appId owning application (the P4 fabric's) */
    public P4AggPlanner(ApplicationId appId) {
        this.appId = appId;
    }

    /**
     * @param contexts the ACK_AGGREGATION groups' contexts
     * @param p4       the P4 switches
     * @param bits     the fabric's bit indices (the sender's is where receivers' leaves send its ACKs)
     * @param timers   the aggregators' pacing
     * @return the entries per switch, the groups aggregated and those left out
     */
    public Plan plan(Collection<AggregationContext> contexts, Set<DeviceId> p4, BitIndexTable bits, Timers timers) {
        Map<DeviceId, List<FlowRule>> rules = new LinkedHashMap<>();
        List<Point> points = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Map<DeviceId, Map<Integer, P2mpGroupId>> indices = new HashMap<>();
        Set<String> hosts = new HashSet<>();
        List<AggregationContext> ordered = new ArrayList<>(contexts);
        ordered.sort(Comparator.comparingLong(c -> c.group().id().value()));
        for (AggregationContext c : ordered) {
            AggregationContext.Member s = c.sender();
            if (s.location().isEmpty() || !p4.contains(s.location().get().deviceId()) || !s.ip().isIp4()) {
                continue;
            }
            ConnectPoint at = s.location().get();
            P2mpGroupId id = c.group().id();
            int index = c.peer().index();
            String why = refusal(c, bits, at);
            P2mpGroupId holder = indices.getOrDefault(at.deviceId(), Map.of()).get(index);
            if (why == null && holder != null) {
                why = "index " + index + " at " + at.deviceId() + " is group " + holder + "'s";
            }
            if (why != null) {
                problems.add("group " + id + " is not aggregated in its source leaf: " + why);
                continue;
            }
            indices.computeIfAbsent(at.deviceId(), d -> new HashMap<>()).put(index, id);
            int senderBit = bits.bitOf(at.deviceId().toString(), at.port().toLong());
            // the group's own entries on the source leaf: in place before its control frames go out
            List<FlowRule> own = new ArrayList<>();
            PiAction group = vpGroup(c, index, at, timers);
            own.add(P4FabricPlanner.rule(appId, at.deviceId(), AGG_VP,
                    selector(b -> b.matchExact(PiMatchFieldId.of("vp"), c.peer().address().toOctets())), group));
            own.add(P4FabricPlanner.rule(appId, at.deviceId(), AGG_GROUP,
                    selector(b -> b.matchExact(PiMatchFieldId.of("group"), index)), group));
            Map<Integer, Long> keys = new TreeMap<>();
            Map<Integer, Integer> joins = new TreeMap<>();
            Map<Integer, String> names = new TreeMap<>();
            Set<Integer> stalled = new TreeSet<>();
            Set<DeviceId> remote = new HashSet<>();
            for (AggregationContext.Member r : c.receivers()) {
                int qpn = r.peerQpn();
                own.add(P4FabricPlanner.rule(appId, at.deviceId(), AGG_MEMBER, selector(b -> b
                        .matchExact(PiMatchFieldId.of("group"), index)
                        .matchExact(PiMatchFieldId.of("src"), r.ip().toOctets())
                        .matchExact(PiMatchFieldId.of("qpn"), qpn)),
                        PiAction.builder().withId(PiActionId.of(MEMBER))
                                .withParameter(P4FabricPlanner.param("slot", r.slot(), 4)).build()));
                keys.put(r.slot(), (long) r.ip().getIp4Address().toInt() << 24 & 0xFFFFFFFF000000L
                        | (qpn & 0xFFFFFFL));
                joins.put(r.slot(), r.joinPsn());
                names.put(r.slot(), r.host());
                if (c.peer().stalled().contains(r.host())) {
                    stalled.add(r.slot());
                }
                ConnectPoint rat = r.location().get();
                if (!p4.contains(rat.deviceId())) {
                    continue;       // an OpenFlow leaf neither checks nor carries its ACKs here
                }
                if (hosts.add(rat + "/" + r.mac() + "/" + r.ip())) {
                    rules.computeIfAbsent(rat.deviceId(), d -> new ArrayList<>()).add(P4FabricPlanner.rule(appId,
                            rat.deviceId(), ACK_SRC, selector(b -> b
                                    .matchExact(PiMatchFieldId.of("ingress_port"), (int) rat.port().toLong())
                                    .matchExact(PiMatchFieldId.of("mac"), r.mac().toBytes())
                                    .matchExact(PiMatchFieldId.of("src"), r.ip().toOctets())),
                            PiAction.builder().withId(PiActionId.of(HOST_OK)).build()));
                }
                if (!rat.deviceId().equals(at.deviceId()) && remote.add(rat.deviceId())) {
                    rules.computeIfAbsent(rat.deviceId(), d -> new ArrayList<>()).add(P4FabricPlanner.rule(appId,
                            rat.deviceId(), ACK_VP,
                            selector(b -> b.matchExact(PiMatchFieldId.of("vp"), c.peer().address().toOctets())),
                            PiAction.builder().withId(PiActionId.of(TO_SOURCE))
                                    .withParameter(P4FabricPlanner.param("index", senderBit, 2)).build()));
                }
            }
            rules.computeIfAbsent(at.deviceId(), d -> new ArrayList<>()).addAll(own);
            points.add(new Point(id, at.deviceId(), at.port(), index, c.peer().startPsn(), keys, joins, names,
                    own, stalled));
        }
        return new Plan(rules, points, problems);
    }

    // why the program cannot aggregate the group at its sender's leaf, or null
    private static String refusal(AggregationContext c, BitIndexTable bits, ConnectPoint at) {
        if (!c.unresolved().isEmpty()) {
            return "ONOS does not know where " + String.join(", ", c.unresolved()) + " are";
        }
        if (bits == null || bits.bitOf(at.deviceId().toString(), at.port().toLong()) < 0) {
            return "the sender's port " + at + " has no bit index yet";
        }
        for (AggregationContext.Member r : c.receivers()) {
            if (r.slot() < 0 || r.slot() >= RECEIVERS) {
                return "receiver " + r.host() + " has slot " + r.slot() + "; the program holds slots 0 to "
                        + (RECEIVERS - 1);
            }
            if (!r.ip().isIp4() || r.location().isEmpty()) {
                return "receiver " + r.host() + " has no IPv4 address or location";
            }
        }
        return null;
    }

    private static PiAction vpGroup(AggregationContext c, int index, ConnectPoint at, Timers t) {
        AggregationContext.Member s = c.sender();
        return PiAction.builder().withId(PiActionId.of(VP_GROUP))
                .withParameter(P4FabricPlanner.param("g", index, 4))
                .withParameter(P4FabricPlanner.param("sees_data", 1, 1))
                .withParameter(bytes("vp_ip", c.peer().address().toOctets()))
                .withParameter(bytes("sender_ip", s.ip().toOctets()))
                .withParameter(P4FabricPlanner.param("sender_qpn", s.qpn(), 3))
                .withParameter(bytes("sender_mac", s.mac().toBytes()))
                .withParameter(bytes("vp_mac", c.peer().mac().toBytes()))
                .withParameter(P4FabricPlanner.param("sender_port", at.port().toLong(), 2))
                .withParameter(P4FabricPlanner.param("cnp_us", t.cnpUs, 6))
                .withParameter(P4FabricPlanner.param("stall_us", t.stallUs, 6))
                .withParameter(P4FabricPlanner.param("holdoff_us", t.holdoffUs, 6))
                .build();
    }

    private static PiActionParam bytes(String name, byte[] value) {
        return new PiActionParam(PiActionParamId.of(name), ImmutableByteSequence.copyFrom(value));
    }

    private static TrafficSelector selector(java.util.function.Consumer<PiCriterion.Builder> fields) {
        PiCriterion.Builder b = PiCriterion.builder();
        fields.accept(b);
        return DefaultTrafficSelector.builder().matchPi(b.build()).build();
    }
}
