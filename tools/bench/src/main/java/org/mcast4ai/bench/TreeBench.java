package org.mcast4ai.bench;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.FabricTreeComputer;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code tools/bench/tree}: what the GUI overlay's groups-per-link picture costs, which traces every live group
 * ({@code P2mpGroupService.tree}: one packet followed through the switches' entries), against computing the same
 * trees from scratch with the engine in the same run (what compiling the groups costs). The group manager runs
 * in-process on the lab's services over a generated fabric; TREE groups from random sources to random receivers
 * spread over the fabric.
 */
public final class TreeBench {

    private TreeBench() {
    }

    /**
     * @param args {@code [--fabric fattree:16] [--groups 1000] [--receivers 64]}
     */
    public static void main(String[] args) {
        String spec = "fattree:16";
        int n = 1000;
        int receivers = 64;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--fabric":
                    spec = args[++i];
                    break;
                case "--groups":
                    n = Integer.parseInt(args[++i]);
                    break;
                case "--receivers":
                    receivers = Integer.parseInt(args[++i]);
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        ChurnFabric f = ChurnFabric.parse(spec);
        FabricSnapshot snap = f.snapshot;
        int hosts = f.hostIds.size();
        Random rnd = new Random(20261206);
        int[] sources = new int[n];
        int[][] members = new int[n][];
        try (ChurnHost h = new ChurnHost(f, 0)) {
            for (int g = 0; g < n; g++) {
                int src = rnd.nextInt(hosts);
                Set<Integer> rs = new LinkedHashSet<>();
                while (rs.size() < Math.min(receivers, hosts - 1)) {
                    int r = rnd.nextInt(hosts);
                    if (r != src) {
                        rs.add(r);
                    }
                }
                Set<Endpoint> eps = new LinkedHashSet<>();
                rs.forEach(r -> eps.add(Endpoint.of(f.hostIds.get(r))));
                sources[g] = snap.hostIndex(f.hostIds.get(src));
                members[g] = rs.stream().mapToInt(r -> snap.hostIndex(f.hostIds.get(r))).toArray();
                h.service.submit(P2mpGroupRequest.builder().key(GroupKey.of("bench", "t" + g)).jobId("tree")
                        .source(Endpoint.of(f.hostIds.get(src))).receivers(eps).mode(ReplicationMode.TREE)
                        .build());
            }
            long deadline = System.nanoTime() + 300_000_000_000L;
            while (h.service.getGroups(null, null, GroupState.INSTALLED).size() < n) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("groups did not install");
                }
                LockSupport.parkNanos(50_000_000L);
            }
            List<P2mpGroupId> ids = new ArrayList<>();
            for (P2mpGroup g : h.service.getGroups()) {
                ids.add(g.id());
            }
            FabricTreeComputer engine = new FabricTreeComputer();
            Median.Timing trace = Median.measure(() -> {
                long links = 0;
                for (P2mpGroupId id : ids) {
                    links += h.service.tree(id).links().size();
                }
                return links;
            }, 5, 3_000_000_000L);
            Median.Timing compute = Median.measure(() -> {
                long edges = 0;
                for (int g = 0; g < sources.length; g++) {
                    edges += engine.compute(snap, sources[g], members[g], g).fabricLinks();
                }
                return edges;
            }, 5, 3_000_000_000L);
            System.out.printf("tree-bench: %s, %d TREE groups of %d random receivers%n", f.name, n, receivers);
            System.out.printf("tree-bench: trace every group (the groups-per-link picture): %.1f ms, %.1f us a group%n",
                    trace.wallNs / 1e6, trace.wallNs / 1e3 / n);
            System.out.printf("tree-bench: baseline, the engine computing the same trees: %.1f ms, %.1f us a group%n",
                    compute.wallNs / 1e6, compute.wallNs / 1e3 / n);
            System.out.printf("tree-bench: trace / compute = %.2f%n", (double) trace.wallNs / compute.wallNs);
        }
    }
}
