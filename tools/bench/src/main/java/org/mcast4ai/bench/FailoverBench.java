package org.mcast4ai.bench;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.lab.LabFabric;
import org.mcast4ai.lab.LabTopology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code tools/bench/failover}: a spine fails under many live groups. The group manager runs in-process on the
 * lab's services over a generated fabric, switch acknowledgements immediate; the spine's device, links and hosts
 * go the way ONOS reports them (a {@link LabTopology} update). Measured from the event until the last batch the
 * app hands to the flow rule service (every affected group's programming submitted and acknowledged), with the
 * number of batches and rules it took; TREE on a k=16 fat tree and BITMAP on a leaf-spine that fits its
 * 46 receiver positions, each with 1 group and with N, side by side.
 */
public final class FailoverBench {

    private FailoverBench() {
    }

    /** One measurement. */
    static final class Row {
        String mode;
        String fabric;
        int groups;
        int affected;
        double ms;
        long batches;
        long rules;
        int degraded;
        double firstMs;
        double eventsMs;
        double warmMs;
        String rounds;
    }

    /** Failures per row: the first is measured cold (failover paths are rare), the median of the rest warm. */
    private static final int ROUNDS = 5;

    /**
     * @param args {@code [--groups N] [--receivers R] [--modes tree,bitmap] [--quick]}
     */
    public static void main(String[] args) {
        int groups = 10_000;
        int receivers = 8;
        Set<String> modes = Set.of("tree", "bitmap");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--groups":
                    groups = Integer.parseInt(args[++i]);
                    break;
                case "--receivers":
                    receivers = Integer.parseInt(args[++i]);
                    break;
                case "--modes":
                    modes = new LinkedHashSet<>(List.of(args[++i].toLowerCase(Locale.ROOT).split(",")));
                    if (modes.isEmpty() || !Set.of("tree", "bitmap").containsAll(modes)) {
                        System.err.println("failover: --modes takes tree, bitmap or both (comma-separated)");
                        System.exit(2);
                    }
                    break;
                case "--quick":
                    groups = 1_000;
                    break;
                default:
                    System.err.println("usage: failover [--groups N] [--receivers R] [--modes tree,bitmap] "
                            + "[--quick]");
                    System.exit(2);
            }
        }
        List<Row> rows = new ArrayList<>();
        for (int n : modes.contains("tree") ? new int[]{1, groups} : new int[0]) {
            rows.add(run(ReplicationMode.TREE, "fattree:16", n, receivers, 1));
        }
        for (int n : modes.contains("bitmap") ? new int[]{1, groups} : new int[0]) {
            rows.add(run(ReplicationMode.BITMAP, "leafspine:4,11,4", n, receivers, 2));
        }
        System.out.println();
        System.out.println("| mode | fabric | groups | affected | first batch, ms | last batch, ms (first failure) "
                + "| last batch, ms (median of " + (ROUNDS - 1) + " more) | batches | rules | degraded |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "| %s | %s | %,d | %,d | %.1f | %.1f | %.1f | %,d | %,d | %d |%n",
                    r.mode, r.fabric, r.groups, r.affected, r.firstMs, r.ms, r.warmMs, r.batches, r.rules,
                    r.degraded);
        }
    }

    private static Row run(ReplicationMode mode, String spec, int n, int receivers, long seed) {
        ChurnFabric f = ChurnFabric.parse(spec);
        LabTopology topology = LabTopology.full(f.lab);
        Row row = new Row();
        row.mode = mode.name();
        row.fabric = f.name;
        row.groups = n;
        try (ChurnHost h = new ChurnHost(f, 0, topology)) {
            Random rnd = new Random(seed);
            int hosts = f.hostIds.size();
            for (int g = 0; g < n; g++) {
                int src = rnd.nextInt(hosts);
                Set<Endpoint> rs = new LinkedHashSet<>();
                while (rs.size() < Math.min(receivers, hosts - 1)) {
                    int r = rnd.nextInt(hosts);
                    if (r != src) {
                        rs.add(Endpoint.of(f.hostIds.get(r)));
                    }
                }
                h.service.submit(P2mpGroupRequest.builder().key(GroupKey.of("bench", "g" + g)).jobId("failover")
                        .source(Endpoint.of(f.hostIds.get(src))).receivers(rs).mode(mode).build());
            }
            awaitSettled(h, n);
            // the spine (or aggregation switch) most groups cross; BITMAP groups cross the spines by bits alone
            String spine = busiest(h, f, mode);
            row.affected = mode == ReplicationMode.TREE ? (int) h.service.getGroups().stream()
                    .filter(g -> h.service.getInstalledPlan(g.id()).branches().keySet().stream()
                            .anyMatch(d -> d.toString().equals(spine))).count() : n;
            LabTopology.State whole = topology.state();
            // the groups set up are long-lived: collect now, so that a round's young collections copy what the
            // round allocated, not the setup's live groups (a controller that has run a while holds them in the
            // old generation)
            System.gc();
            List<Double> times = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                quiet(h);
                long b0 = h.flows.batchCount();
                long r0 = h.flows.ruleCount();
                long t0 = System.nanoTime();
                topology.update(without(whole, spine));
                long eventsRaised = System.nanoTime();
                while (h.flows.batchCount() == b0 && System.nanoTime() - t0 < 5_000_000_000L) {
                    LockSupport.parkNanos(1_000_000L);
                }
                double first = (System.nanoTime() - t0) / 1e6;
                // nothing polls the groups meanwhile (on 2 cores a poller would compete with the lanes measured)
                quiet(h);
                awaitSettled(h, n);
                long last = h.flows.lastApplyNanos();
                times.add(last > t0 ? (last - t0) / 1e6 : 0);
                if (round == 0) {
                    row.firstMs = first;
                    row.eventsMs = (eventsRaised - t0) / 1e6;
                    row.batches = h.flows.batchCount() - b0;
                    row.rules = h.flows.ruleCount() - r0;
                    row.degraded = h.service.getGroups(null, null, GroupState.DEGRADED).size();
                }
                // the spine comes back; the groups move back (not measured)
                topology.update(whole);
                quiet(h);
                awaitSettled(h, n);
            }
            row.ms = times.get(0);
            row.rounds = times.stream().map(t -> String.format(Locale.ROOT, "%.0f", t))
                    .collect(java.util.stream.Collectors.joining(", "));
            List<Double> warm = new ArrayList<>(times.subList(1, times.size()));
            java.util.Collections.sort(warm);
            row.warmMs = warm.get(warm.size() / 2);

        }
        System.err.printf(Locale.ROOT, "failover: %s %s %d groups: %.1f ms (then %.1f), %d batches; rounds %s ms%n",
                row.mode, row.fabric, row.groups, row.ms, row.warmMs, row.batches, row.rounds);
        return row;
    }

    private static String busiest(ChurnHost h, ChurnFabric f, ReplicationMode mode) {
        Map<String, Integer> count = new HashMap<>();
        Set<String> spines = new LinkedHashSet<>();
        for (LabFabric.Switch s : f.lab.switches()) {
            if (s.role().equalsIgnoreCase("spine")) {
                spines.add(s.deviceId());
            }
        }
        if (mode == ReplicationMode.TREE) {
            for (P2mpGroup g : h.service.getGroups()) {
                h.service.getInstalledPlan(g.id()).branches().keySet()
                        .forEach(d -> count.merge(d.toString(), 1, Integer::sum));
            }
        }
        return spines.stream().max((a, b) -> count.getOrDefault(a, 0) - count.getOrDefault(b, 0)).orElseThrow();
    }

    private static LabTopology.State without(LabTopology.State s, String device) {
        Set<String> devices = new LinkedHashSet<>(s.devices());
        devices.remove(device);
        Map<String, Set<Long>> ports = new HashMap<>();
        devices.forEach(d -> ports.put(d, s.ports(d)));
        Set<LabFabric.Link> links = new LinkedHashSet<>();
        s.links().forEach(l -> {
            if (!l.a().equals(device) && !l.b().equals(device)) {
                links.add(l);
            }
        });
        Map<String, LabTopology.Attachment> hosts = new HashMap<>();
        s.hosts().forEach((name, at) -> {
            if (!at.deviceId().equals(device)) {
                hosts.put(name, at);
            }
        });
        return new LabTopology.State(devices, ports, links, hosts);
    }

    private static void awaitSettled(ChurnHost h, int n) {
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (System.nanoTime() < deadline) {
            int settled = h.service.getGroups(null, null, GroupState.INSTALLED).size()
                    + h.service.getGroups(null, null, GroupState.DEGRADED).size()
                    + h.service.getGroups(null, null, GroupState.FAILED).size();
            if (settled == n) {
                return;
            }
            LockSupport.parkNanos(50_000_000L);
        }
        throw new IllegalStateException("groups did not settle");
    }

    /** Waits until no batch has been sent for 500 ms. */
    private static void quiet(ChurnHost h) {
        long last = h.flows.batchCount();
        long since = System.nanoTime();
        while (System.nanoTime() - since < 500_000_000L) {
            LockSupport.parkNanos(50_000_000L);
            long now = h.flows.batchCount();
            if (now != last) {
                last = now;
                since = System.nanoTime();
            }
        }
    }
}
