package org.mcast4ai.impl.compile;

import org.mcast4ai.impl.fabric.FabricView;
import org.mcast4ai.impl.fabric.HostResolver;
import com.google.common.collect.ImmutableSet;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.FailureKind;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.MulticastTree;
import org.mcast4ai.engine.TreeComputer;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a group and a fabric snapshot into a {@link GroupPlan}: resolves the source and receivers to
 * snapshot hosts, asks the tree computer for a tree (spread key = group id) and maps engine indices back to
 * ONOS device ids and port numbers. Receivers that do not resolve or that the tree cannot reach are
 * reported, not fatal; a source that cannot be placed is.
 */
public final class GroupCompiler {

    /** What compiling a group produced. */
    static final class Result {
        final GroupPlan plan;
        final Set<Endpoint> unreachable;
        final Set<HostId> hosts;
        final String failure;
        final FailureKind kind;

        private Result(GroupPlan plan, Set<Endpoint> unreachable, Set<HostId> hosts, String failure,
                       FailureKind kind) {
            this.plan = plan;
            this.unreachable = ImmutableSet.copyOf(unreachable);
            this.hosts = ImmutableSet.copyOf(hosts);
            this.failure = failure;
            this.kind = kind;
        }

        /** @return true if the source could not be placed or no receiver is reachable */
        boolean failed() {
            return failure != null;
        }
    }

    private final HostResolver hosts;
    private final TreeComputer trees;

    public GroupCompiler(HostResolver hosts, TreeComputer trees) {
        this.hosts = hosts;
        this.trees = trees;
    }

    /**
     * @param group  the group (its current receivers)
     * @param view   the fabric with its ONOS ids
     * @return the plan and what it could not reach
     */
    public Result compile(P2mpGroup group, FabricView view) {
        FabricSnapshot fabric = view.snapshot();
        ImmutableSet.Builder<HostId> resolved = ImmutableSet.builder();
        HostId sourceId = hosts.idOrNull(group.request().source());
        int source = sourceId == null ? -1 : view.hostIndex(sourceId);
        if (sourceId != null) {
            resolved.add(sourceId);
        }
        Set<Endpoint> unreachable = new LinkedHashSet<>();
        Set<Endpoint> named = group.request().receivers();
        // receiver i of the tree is placed[i]; taken marks host positions already given to a receiver
        Endpoint[] placed = new Endpoint[named.size()];
        BitSet taken = new BitSet(fabric.hostCount());
        int[] receivers = new int[named.size()];
        int count = 0;
        for (Endpoint r : named) {
            HostId id = hosts.idOrNull(r);
            int index = id == null ? -1 : view.hostIndex(id);
            if (id != null) {
                resolved.add(id);
            }
            if (index < 0 || index == source || taken.get(index)) {
                unreachable.add(r);
            } else {
                taken.set(index);
                placed[count] = r;
                receivers[count++] = index;
            }
        }
        if (source < 0) {
            return new Result(GroupPlan.empty(), group.request().receivers(), resolved.build(),
                    "source " + group.request().source() + " is not attached to an available switch",
                    FailureKind.SOURCE_UNREACHABLE);
        }
        if (count == 0) {
            return new Result(GroupPlan.empty(), unreachable, resolved.build(), "no receiver is reachable",
                    FailureKind.NO_RECEIVER_REACHABLE);
        }
        MulticastTree tree = trees.compute(fabric, source, Arrays.copyOf(receivers, count), group.id().value());
        if (tree.unreachable().length > 0) {
            Map<Integer, Endpoint> byIndex = new HashMap<>(count * 2);
            for (int i = 0; i < count; i++) {
                byIndex.put(receivers[i], placed[i]);
            }
            for (int r : tree.unreachable()) {
                unreachable.add(byIndex.get(r));
            }
        }
        if (unreachable.size() == group.request().receivers().size()) {
            return new Result(GroupPlan.empty(), unreachable, resolved.build(), "no receiver is reachable",
                    FailureKind.NO_RECEIVER_REACHABLE);
        }
        return new Result(toPlan(tree, view), unreachable, resolved.build(), null, null);
    }

    private static GroupPlan toPlan(MulticastTree tree, FabricView view) {
        FabricSnapshot fabric = view.snapshot();
        Map<DeviceId, GroupPlan.Branch> branches = new LinkedHashMap<>(tree.size() * 2);
        Map<Integer, Long> inPortBySwitch = new HashMap<>(tree.size() * 2);
        for (int i = 0; i < tree.size(); i++) {
            int sw = tree.switchAt(i);
            inPortBySwitch.put(sw, tree.inPort(i));
            long[] ports = tree.outPorts(i);
            // ascending, as the tree keeps them
            List<PortNumber> outs = new ArrayList<>(ports.length);
            for (long p : ports) {
                outs.add(FabricView.port(p));
            }
            branches.put(view.device(sw), new GroupPlan.Branch(FabricView.port(tree.inPort(i)), outs));
        }
        List<ConnectPoint[]> links = new ArrayList<>(tree.fabricLinks());
        for (int l = 0; l < tree.fabricLinks(); l++) {
            int from = tree.linkFrom(l);
            int to = tree.linkTo(l);
            long arrival = inPortBySwitch.getOrDefault(to, -1L);
            int used = -1;
            for (int e = fabric.linkStart(from); e < fabric.linkStart(from + 1); e++) {
                if (fabric.linkTo(e) == to && (used < 0 || fabric.linkToPort(e) == arrival)) {
                    used = e;
                }
            }
            if (used >= 0) {
                links.add(view.link(from, used));
            }
        }
        return new GroupPlan(branches, links);
    }
}
