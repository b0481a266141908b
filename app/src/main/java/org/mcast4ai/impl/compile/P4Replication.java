package org.mcast4ai.impl.compile;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.FailureKind;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.HeaderV2;
import org.mcast4ai.engine.bitmap.HeaderV2Codec;
import org.mcast4ai.engine.bitmap.ReplicationSimulator;
import org.mcast4ai.engine.bitmap.SwitchTables;
import org.mcast4ai.impl.bitmap.BitmapChoice;
import org.mcast4ai.impl.compile.BitmapReplication.BitmapDecision;
import org.mcast4ai.impl.fabric.FabricView;
import org.mcast4ai.impl.fabric.HostResolver;
import org.mcast4ai.impl.p4.P4Stamp;
import org.mcast4ai.impl.p4.P4StampPlanner;
import org.mcast4ai.impl.program.DeviceEntry;
import org.mcast4ai.impl.program.Programmed;
import org.mcast4ai.impl.trace.TraceHop;
import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * BITMAP and AUTO groups on a fabric whose switches all run the mcast4ai P4 program: the group's receivers as
 * version 2 headers stamped at the source leaf ({@link P4Stamp}), nothing anywhere else. The receivers the
 * fabric's static state cannot reach (no bit yet, or no surviving path) are found by playing the headers through
 * the same per-hop rule the switches run ({@link ReplicationSimulator}) on the same snapshot, and reported.
 *
 * <p>Mixed fabrics: a fabric with any switch that is not bound to the program is not served here; its groups are
 * compiled for OpenFlow as before (a P4 switch holds no OpenFlow tree or stamp, so receivers behind one are
 * then unreachable). TREE groups on a P4 fabric fail with the reason: the program replicates by header only. An
 * ACK_AGGREGATION group's sender sends to its virtual peer, so its stamp is keyed by the peer's address; the source
 * leaf aggregates its receivers' ACKs ({@link org.mcast4ai.impl.p4.P4AggPlanner}).
 */
public final class P4Replication {
    private final Predicate<DeviceId> p4;
    private final Supplier<BitIndexTable> bits;
    private final HostResolver hosts;
    private final Supplier<Set<DeviceId>> unready;
    // the static state's simulation of the last snapshot and table seen (every group of a snapshot shares it)
    private FabricSnapshot lastFabric;
    private BitIndexTable lastBits;
    private ReplicationSimulator lastSim;
    private FabricSnapshot servedFabric;
    private boolean served;
    private final Map<Integer, BitSet> reach = new java.util.HashMap<>();
    private Map<Integer, Integer> hostOfBit;

    /**
     * @param p4    true for a switch bound to the mcast4ai pipeconf
     * @param bits  the P4 fabric's bit indices as its static state holds them (null while none is stored)
     * @param hosts the host names' resolver
     */
    public P4Replication(Predicate<DeviceId> p4, Supplier<BitIndexTable> bits, HostResolver hosts) {
        this(p4, bits, hosts, Set::of);
    }

    /**
     * @param p4      true for a switch bound to the mcast4ai pipeconf
     * @param bits    the P4 fabric's bit indices as its static state holds them (null while none is stored)
     * @param hosts   the host names' resolver
     * @param unready the P4 switches that have not acknowledged their static state yet: receivers on such a leaf
     *                are listed as unreachable, and the group waits (INSTALLING) until every switch answered
     */
    public P4Replication(Predicate<DeviceId> p4, Supplier<BitIndexTable> bits, HostResolver hosts,
                         Supplier<Set<DeviceId>> unready) {
        this.p4 = p4;
        this.bits = bits;
        this.hosts = hosts;
        this.unready = unready;
    }

    /** How the reason of a group waiting for P4 switches' static state starts. */
    public static final String WAITING_FOR_STATIC = "waiting for the P4 switches to acknowledge their static state: ";

    /** What a group gets on a P4 fabric. */
    static final class Decision {
        final BitmapDecision mode;
        final P4Stamp stamp;
        final Set<Endpoint> unreachable;
        final String failure;
        final FailureKind kind;
        // the switches it waits for (null: none), and the receivers behind them
        final String waiting;
        final Set<Endpoint> behindUnready;

        Decision(BitmapDecision mode, P4Stamp stamp, Set<Endpoint> unreachable, String failure, FailureKind kind) {
            this(mode, stamp, unreachable, failure, kind, null, Set.of());
        }

        Decision(BitmapDecision mode, P4Stamp stamp, Set<Endpoint> unreachable, String failure, FailureKind kind,
                 String waiting, Set<Endpoint> behindUnready) {
            this.mode = mode;
            this.stamp = stamp;
            this.unreachable = unreachable;
            this.failure = failure;
            this.kind = kind;
            this.waiting = waiting;
            this.behindUnready = behindUnready;
        }
    }

    /**
     * @param view the fabric
     * @return true if it has switches and every one is bound to the program
     */
    public synchronized boolean serves(FabricView view) {
        FabricSnapshot f = view.snapshot();
        if (f == servedFabric) {
            return served;
        }
        boolean all = f.switchCount() > 0;
        for (int s = 0; all && s < f.switchCount(); s++) {
            all = p4.test(view.device(s));
        }
        // a binding changes with a device event, which makes a new snapshot: one answer per snapshot
        servedFabric = f;
        served = all;
        return all;
    }

    /**
     * @param group     the group
     * @param view      a fabric {@link #serves} serves
     * @param installed the group's record (its installed stamp's slot)
     * @return what it gets
     */
    Decision decide(P2mpGroup group, FabricView view, Programmed installed) {
        ReplicationMode requested = group.request().mode();
        Set<HostId> resolved = new LinkedHashSet<>();
        if (requested == ReplicationMode.TREE) {
            return failed(group, resolved, "TREE replication is not possible: the switches run the mcast4ai P4 "
                    + "program, which replicates by header only (use BITMAP or AUTO)");
        }
        if (!group.address().isIp4()) {
            return failed(group, resolved, "a P4 stamp needs an IPv4 group address, not " + group.address());
        }
        if (P4Stamp.slot(group.id().value(), false) < 0) {
            return failed(group, resolved, "group id " + group.id().value() + " is beyond the "
                    + P4Stamp.maxGroupId() + " groups the program's stamp slots number");
        }
        BitIndexTable table = bits.get();
        FabricSnapshot fabric = view.snapshot();
        HostId sourceId = hosts.idOrNull(group.request().source());
        int source = sourceId == null ? -1 : view.hostIndex(sourceId);
        if (sourceId != null) {
            resolved.add(sourceId);
        }
        if (source < 0) {
            return new Decision(mode(group, resolved, null), null, group.request().receivers(), "source "
                    + group.request().source() + " is not attached to an available switch",
                    FailureKind.SOURCE_UNREACHABLE);
        }
        if (table == null) {
            return new Decision(mode(group, resolved, null), null, group.request().receivers(), "the P4 fabric's "
                    + "leaves are not numbered yet (its static state is not written)", FailureKind.MODE_UNAVAILABLE);
        }
        int[] hostBits = table.hostBits(fabric);
        Map<Integer, Endpoint> byBit = new LinkedHashMap<>();
        Set<Endpoint> unreachable = new LinkedHashSet<>();
        for (Endpoint r : group.request().receivers()) {
            HostId id = hosts.idOrNull(r);
            int h = id == null ? -1 : view.hostIndex(id);
            if (id != null) {
                resolved.add(id);
            }
            if (h < 0 || h == source || hostBits[h] < 0 || byBit.putIfAbsent(hostBits[h], r) != null) {
                unreachable.add(r);
            }
        }
        if (byBit.isEmpty()) {
            return new Decision(mode(group, resolved, null), null, unreachable, "no receiver is reachable",
                    FailureKind.NO_RECEIVER_REACHABLE);
        }
        int[] receivers = byBit.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
        List<byte[]> headers;
        try {
            headers = P4StampPlanner.headers(table.geometry(), receivers);
        } catch (IllegalArgumentException e) {
            return failed(group, resolved, "the group's header cannot be planned: " + e.getMessage());
        }
        if (headers.size() > P4StampPlanner.MAX_PACKETS) {
            return failed(group, resolved, "the group needs " + headers.size() + " packets per send; a stamp holds "
                    + "at most " + P4StampPlanner.MAX_PACKETS);
        }
        // who the static state delivers them to now: receivers on leaves without a surviving path are reported
        BitSet leaves = reachableLeaves(fabric, table, source);
        Map<Integer, Integer> hostOfBit = hostOfBit(fabric, table);
        byBit.forEach((bit, e) -> {
            Integer h = hostOfBit.get(bit);
            if (h == null || !leaves.get(fabric.hostSwitch(h))) {
                unreachable.add(e);
            }
        });
        if (unreachable.size() >= group.request().receivers().size()) {
            return new Decision(mode(group, resolved, null), null, unreachable, "no receiver is reachable",
                    FailureKind.NO_RECEIVER_REACHABLE);
        }
        ConnectPoint at = new ConnectPoint(view.device(fabric.hostSwitch(source)),
                PortNumber.portNumber(fabric.hostPort(source)));
        // a switch without its static state (not written, or back and not answered yet) forwards nothing: the
        // receivers on such a leaf (all of them, if it is the sender's) wait for its answer
        Set<DeviceId> waitFor = unready.get();
        Set<Endpoint> behind = new LinkedHashSet<>();
        if (!waitFor.isEmpty()) {
            boolean sourceWaits = waitFor.contains(at.deviceId());
            byBit.forEach((bit, e) -> {
                Integer h = hostOfBit.get(bit);
                if (!unreachable.contains(e) && (sourceWaits || h != null
                        && waitFor.contains(view.device(fabric.hostSwitch(h))))) {
                    behind.add(e);
                }
            });
        }
        int slot = slot(group, installed, at, headers);
        // the sender's QP of an ACK_AGGREGATION group sends to its virtual peer, which the source leaf aggregates
        IpAddress sendsTo = group.peer().map(org.mcast4ai.api.VirtualPeer::address).orElse(group.address());
        P4Stamp stamp = new P4Stamp(at, slot, sendsTo, headers,
                P4StampPlanner.allowance(table.geometry(), receivers, hostBits[source]));
        return new Decision(mode(group, resolved, stamp), stamp, unreachable, null, null,
                waitFor.isEmpty() ? null : WAITING_FOR_STATIC + waitFor, behind);
    }

    // the installed stamp's slot while it carries the same headers from the same port; the other slot otherwise
    private static int slot(P2mpGroup group, Programmed installed, ConnectPoint at, List<byte[]> headers) {
        P4Stamp held = null;
        for (DeviceEntry e : installed.uncertain()) {
            if (e instanceof P4Stamp) {
                held = (P4Stamp) e;
            }
        }
        for (DeviceEntry e : installed.installed()) {
            if (e instanceof P4Stamp) {
                held = (P4Stamp) e;
            }
        }
        long id = group.id().value();
        if (held == null) {
            return P4Stamp.slot(id, false);
        }
        if (held.sender().equals(at) && held.address().equals(group.address()) && held.carries(headers)) {
            return held.slot();
        }
        return P4Stamp.slot(id, !held.second());
    }

    private BitmapDecision mode(P2mpGroup group, Set<HostId> resolved, P4Stamp stamp) {
        String why = stamp == null ? "the switches run the mcast4ai P4 program" : "the switches run the mcast4ai "
                + "P4 program: the source leaf stamps the group's version 2 header (" + stamp.packets()
                + " packet(s) per send, " + stamp.bytes() + " header bytes); no other switch holds anything of it";
        return new BitmapDecision(BitmapChoice.p4(group.request().mode(), why), null, Set.of(), resolved);
    }

    private Decision failed(P2mpGroup group, Set<HostId> resolved, String why) {
        return new Decision(new BitmapDecision(BitmapChoice.p4Failure(group.request().mode(), why), null, Set.of(),
                resolved), null, Set.of(), why, FailureKind.MODE_UNAVAILABLE);
    }

    // Per snapshot and source leaf, the leaves the static state delivers to: one play of the per-hop rule with a
    // receiver on every leaf. Which leaves a copy reaches depends on the tables and the two leaves alone (each
    // leaf's copy is routed and trimmed on its own), so every group of a source leaf shares it.
    private synchronized BitSet reachableLeaves(FabricSnapshot fabric, BitIndexTable table, int source) {
        simulator(fabric, table);
        int leaf = fabric.hostSwitch(source);
        BitSet known = reach.get(leaf);
        if (known != null) {
            return known;
        }
        int[] hostBits = table.hostBits(fabric);
        int[] onLeaf = new int[fabric.switchCount()];
        java.util.Arrays.fill(onLeaf, -1);
        for (int h = 0; h < hostBits.length; h++) {
            int sw = fabric.hostSwitch(h);
            if (h != source && hostBits[h] >= 0 && onLeaf[sw] < 0) {
                onLeaf[sw] = h;
            }
        }
        BitSet out = new BitSet(fabric.switchCount());
        out.set(leaf);
        int[] bits = java.util.Arrays.stream(onLeaf).filter(h -> h >= 0).map(h -> hostBits[h]).sorted().toArray();
        if (bits.length > 0) {
            HeaderV2Codec codec = new HeaderV2Codec(table.geometry());
            List<HeaderV2> sets = new ArrayList<>();
            P4StampPlanner.headers(table.geometry(), bits).forEach(h -> sets.add(codec.decode(h)));
            ReplicationSimulator.Replication r = lastSim.simulate(source, sets, 0);
            for (int sw = 0; sw < onLeaf.length; sw++) {
                if (onLeaf[sw] >= 0 && r.copiesAt(onLeaf[sw]) > 0) {
                    out.set(sw);
                }
            }
        }
        reach.put(leaf, out);
        return out;
    }

    private synchronized ReplicationSimulator simulator(FabricSnapshot fabric, BitIndexTable table) {
        if (fabric != lastFabric || !table.equals(lastBits)) {
            lastSim = new ReplicationSimulator(fabric, SwitchTables.build(fabric, table));
            lastFabric = fabric;
            lastBits = table;
            reach.clear();
            hostOfBit = null;
        }
        return lastSim;
    }

    /**
     * Follows a stamped group's packets (one per header) through the static state the switches hold for the
     * snapshot, by the per-hop rule they run.
     *
     * @param fabric the snapshot
     * @param source the sender's host index in it
     * @param stamp  the group's stamp
     * @return what every switch does with each header packet; empty while the fabric has no bit indices
     */
    public synchronized List<TraceHop> trace(FabricSnapshot fabric, int source, P4Stamp stamp) {
        BitIndexTable table = bits.get();
        if (table == null || source < 0) {
            return List.of();
        }
        ReplicationSimulator sim = simulator(fabric, table);
        HeaderV2Codec codec = new HeaderV2Codec(table.geometry());
        List<TraceHop> hops = new ArrayList<>();
        List<byte[]> headers = stamp.headers();
        for (int i = 0; i < headers.size(); i++) {
            String packet = headers.size() == 1 ? "" : "packet " + (i + 1) + "/" + headers.size() + ": ";
            sim.simulate(source, List.of(codec.decode(headers.get(i))), 0, (sw, inPort, in, ports, out, dropped) ->
                    hops.add(new TraceHop(sw, inPort, ports.stream().mapToLong(Long::longValue).toArray(),
                            packet + describe(codec.decode(in), table) + (dropped == 0 ? ""
                                    : ", " + dropped + " receiver(s) dropped"))));
        }
        return hops;
    }

    // the sections a switch parsed, as entries per kind, and the receivers they carry
    private static String describe(HeaderV2 h, BitIndexTable table) {
        java.util.StringJoiner j = new java.util.StringJoiner(" ");
        for (HeaderV2.Section s : h.sections()) {
            j.add(s.kind() + "x" + s.size());
        }
        return "header " + j + " (" + h.receivers(table.geometry()).length + " receivers)";
    }

    private synchronized Map<Integer, Integer> hostOfBit(FabricSnapshot fabric, BitIndexTable table) {
        if (hostOfBit == null) {
            int[] hostBits = table.hostBits(fabric);
            Map<Integer, Integer> m = new java.util.HashMap<>(hostBits.length * 2);
            for (int h = 0; h < hostBits.length; h++) {
                if (hostBits[h] >= 0) {
                    m.put(hostBits[h], h);
                }
            }
            hostOfBit = m;
        }
        return hostOfBit;
    }
}
