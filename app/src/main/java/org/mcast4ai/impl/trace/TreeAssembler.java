package org.mcast4ai.impl.trace;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupTree;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.impl.fabric.FabricView;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns the hops one packet took (a switch may appear once per header packet) into a {@link GroupTree}: hops
 * of one switch merged, the links the copies crossed, the receivers reached with their paths, the ones not
 * reached and any host that got a copy without being a receiver. Pure.
 */
public final class TreeAssembler {
    private TreeAssembler() {
    }

    /**
     * @param id        the group
     * @param mode      how it replicates
     * @param carrier   what carries it, in words
     * @param view      the fabric the hops were taken on
     * @param source    the source host's index in the snapshot
     * @param receivers each receiver with its host index in the snapshot (-1: not in the fabric)
     * @param hops      what each switch did, in the order the packets reached them
     * @param hostIds   the ONOS host of the source and of each receiver the fabric knows
     * @return the tree
     */
    public static GroupTree assemble(P2mpGroupId id, ReplicationMode mode, String carrier, FabricView view,
                                     int source, Map<Endpoint, Integer> receivers, List<TraceHop> hops,
                                     Map<Endpoint, HostId> hostIds) {
        FabricSnapshot f = view.snapshot();
        Map<Integer, Merged> bySwitch = new LinkedHashMap<>();
        for (TraceHop h : hops) {
            Merged m = bySwitch.computeIfAbsent(h.sw(), sw -> new Merged(h.inPort()));
            for (long p : h.outPorts()) {
                m.out.add(p);
            }
            if (!h.serves().isEmpty()) {
                m.serves.add(h.serves());
            }
        }
        int sourceSwitch = source < 0 ? -1 : f.hostSwitch(source);
        Map<Integer, Integer> parent = new HashMap<>();
        List<ConnectPoint[]> links = new ArrayList<>();
        Set<Integer> delivered = new LinkedHashSet<>();
        List<GroupTree.Hop> out = new ArrayList<>();
        for (Map.Entry<Integer, Merged> e : bySwitch.entrySet()) {
            int sw = e.getKey();
            Merged m = e.getValue();
            boolean toHost = false;
            List<PortNumber> ports = new ArrayList<>();
            for (long p : m.out) {
                ports.add(FabricView.port(p));
                int link = linkAt(f, sw, p);
                if (link >= 0) {
                    links.add(view.link(sw, link));
                    parent.putIfAbsent(f.linkTo(link), sw);
                    continue;
                }
                for (int i = f.hostStart(sw); i < f.hostStart(sw + 1); i++) {
                    int h = f.hostAt(i);
                    if (f.hostPort(h) == p && h != source) {
                        delivered.add(h);
                        toHost = true;
                    }
                }
            }
            EnumSet<GroupTree.Role> roles = EnumSet.noneOf(GroupTree.Role.class);
            if (sw == sourceSwitch) {
                roles.add(GroupTree.Role.INGRESS);
            }
            if (toHost) {
                roles.add(GroupTree.Role.EGRESS);
            }
            if (roles.isEmpty()) {
                roles.add(GroupTree.Role.TRANSIT);
            }
            out.add(new GroupTree.Hop(view.device(sw), roles, FabricView.port(m.in), ports,
                    String.join("; ", m.serves)));
        }
        Map<Endpoint, List<DeviceId>> paths = new LinkedHashMap<>();
        Set<Endpoint> unreachable = new LinkedHashSet<>();
        Set<Integer> wanted = new HashSet<>();
        for (Map.Entry<Endpoint, Integer> r : receivers.entrySet()) {
            int h = r.getValue();
            wanted.add(h);
            if (h >= 0 && delivered.contains(h)) {
                paths.put(r.getKey(), path(view, parent, f.hostSwitch(h), sourceSwitch));
            } else {
                unreachable.add(r.getKey());
            }
        }
        Set<String> strays = new TreeSet<>();
        for (int h : delivered) {
            if (!wanted.contains(h)) {
                strays.add(f.hostName(h));
            }
        }
        return new GroupTree(id, mode, carrier, out, links, paths, unreachable, strays, hostIds);
    }

    private static List<DeviceId> path(FabricView view, Map<Integer, Integer> parent, int leaf, int root) {
        List<DeviceId> p = new ArrayList<>();
        Integer at = leaf;
        Set<Integer> seen = new HashSet<>();
        while (at != null && seen.add(at)) {
            p.add(0, view.device(at));
            if (at == root) {
                break;
            }
            at = parent.get(at);
        }
        return p;
    }

    /**
     * @param f    the snapshot
     * @param sw   a switch
     * @param port one of its ports
     * @return the directed link leaving by that port, or -1 (a host port, or nothing)
     */
    public static int linkAt(FabricSnapshot f, int sw, long port) {
        for (int e = f.linkStart(sw); e < f.linkStart(sw + 1); e++) {
            if (f.linkFromPort(e) == port) {
                return e;
            }
        }
        return -1;
    }

    private static final class Merged {
        final long in;
        final TreeSet<Long> out = new TreeSet<>();
        final Set<String> serves = new LinkedHashSet<>();

        Merged(long in) {
            this.in = in;
        }
    }
}
