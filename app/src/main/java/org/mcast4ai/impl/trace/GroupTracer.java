package org.mcast4ai.impl.trace;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupTree;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.impl.bitmap.BitmapStamp;
import org.mcast4ai.impl.bitmap.EthSrcBitmap;
import org.mcast4ai.impl.fabric.FabricView;
import org.mcast4ai.impl.fabric.HostResolver;
import org.mcast4ai.impl.p4.P4Stamp;
import org.mcast4ai.impl.program.Programmed;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.PortNumber;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Follows a group's packets through what its record says the switches hold, by the mode it was installed in:
 * the tree's rules (TREE), the OpenFlow static tables and the group's Ethernet-source stamp, or the P4 static
 * state and the group's header stamp. A packet starts where the sender is now: a sender that moved away from
 * its stamp or its tree's first rule reaches nobody, as on the switches.
 */
public final class GroupTracer {

    /** Follows an OpenFlow BITMAP stamp through the static tables of a snapshot. */
    public interface StampWalk {
        /**
         * @param fabric the snapshot
         * @param stamp  the group's stamp
         * @return what each switch does with the packet
         */
        List<TraceHop> walk(FabricSnapshot fabric, BitmapStamp stamp);
    }

    /** Follows a P4 header stamp through the P4 static state of a snapshot. */
    public interface HeaderWalk {
        /**
         * @param fabric the snapshot
         * @param source the sender's host index
         * @param stamp  the group's stamp
         * @return what each switch does with each header packet
         */
        List<TraceHop> walk(FabricSnapshot fabric, int source, P4Stamp stamp);
    }

    private final Supplier<FabricView> views;
    private final HostResolver hosts;
    private final StampWalk stamps;
    private final HeaderWalk headers;

    /**
     * @param views   the current fabric
     * @param hosts   resolves the group's end points
     * @param stamps  OpenFlow BITMAP, or null when the switches cannot do it
     * @param headers P4, or null when there is no P4 fabric
     */
    public GroupTracer(Supplier<FabricView> views, HostResolver hosts, StampWalk stamps, HeaderWalk headers) {
        this.views = views;
        this.hosts = hosts;
        this.stamps = stamps;
        this.headers = headers;
    }

    /**
     * @param group  the group
     * @param record what its record says the switches hold
     * @return where its packets go now
     */
    public GroupTree trace(P2mpGroup group, Programmed record) {
        FabricView view = views.get();
        FabricSnapshot f = view.snapshot();
        HostId sourceId = hosts.resolveOrNull(group.request().source());
        int source = sourceId == null ? -1 : view.hostIndex(sourceId);
        Map<Endpoint, Integer> receivers = new LinkedHashMap<>();
        Map<Endpoint, HostId> ids = new LinkedHashMap<>();
        if (sourceId != null) {
            ids.put(group.request().source(), sourceId);
        }
        for (Endpoint r : group.request().receivers()) {
            HostId id = hosts.resolveOrNull(r);
            receivers.put(r, id == null ? -1 : view.hostIndex(id));
            if (id != null) {
                ids.putIfAbsent(r, id);
            }
        }
        ReplicationMode mode = group.effectiveMode();
        P4Stamp p4 = record.installedOne(P4Stamp.class);
        BitmapStamp of = record.installedOne(BitmapStamp.class);
        GroupPlan plan = record.treePlan();
        if (source < 0) {
            return GroupTree.none(group.id(), mode, "the sender " + group.request().source().host()
                    + " is not in the fabric", receivers.keySet(), ids);
        }
        long sourcePort = f.hostPort(source);
        DeviceId sourceLeaf = view.device(f.hostSwitch(source));
        if (p4 != null && headers != null) {
            String carrier = "P4 header v2 stamped at " + p4.device() + ": " + p4.packets() + " packet(s) per send, "
                    + p4.bytes() + " header bytes; no other switch holds anything of the group";
            boolean here = p4.sender().deviceId().equals(sourceLeaf) && p4.sender().port().toLong() == sourcePort;
            return TreeAssembler.assemble(group.id(), mode, carrier, view, source, receivers,
                    here ? headers.walk(f, source, p4) : List.of(), ids);
        }
        if (of != null && stamps != null) {
            String carrier = "Ethernet-source stamp " + EthSrcBitmap.stamp(of.bits()) + " at " + of.device()
                    + " over the static BITMAP tables";
            boolean here = of.device().equals(sourceLeaf) && of.inPort().toLong() == sourcePort;
            return TreeAssembler.assemble(group.id(), mode, carrier, view, source, receivers,
                    here ? stamps.walk(f, of) : List.of(), ids);
        }
        if (!plan.branches().isEmpty()) {
            return TreeAssembler.assemble(group.id(), mode, "OpenFlow rules, one per switch of the tree", view,
                    source, receivers, walk(view, plan, f.hostSwitch(source), sourcePort), ids);
        }
        return GroupTree.none(group.id(), mode, "nothing installed (" + group.state()
                + (group.reason().isEmpty() ? "" : ": " + group.reason()) + ")", receivers.keySet(), ids);
    }

    // a tree rule matches the group's address and its in port: a copy on another port is not forwarded
    private static List<TraceHop> walk(FabricView view, GroupPlan plan, int start, long inPort) {
        FabricSnapshot f = view.snapshot();
        List<TraceHop> hops = new ArrayList<>();
        LinkedHashSet<Integer> seen = new LinkedHashSet<>();
        Deque<long[]> queue = new ArrayDeque<>();
        queue.add(new long[]{start, inPort});
        while (!queue.isEmpty()) {
            long[] at = queue.poll();
            int sw = (int) at[0];
            GroupPlan.Branch b = plan.branches().get(view.device(sw));
            if (b == null || b.inPort().toLong() != at[1] || !seen.add(sw)) {
                continue;
            }
            long[] out = b.outPorts().stream().mapToLong(PortNumber::toLong).toArray();
            hops.add(new TraceHop(sw, at[1], out, ""));
            for (long p : out) {
                int e = TreeAssembler.linkAt(f, sw, p);
                if (e >= 0) {
                    queue.add(new long[]{f.linkTo(e), f.linkToPort(e)});
                }
            }
        }
        return hops;
    }
}
