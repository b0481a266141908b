package org.mcast4ai.impl.monitor;

import org.mcast4ai.testing.TestFabric;
import com.google.common.collect.ImmutableSet;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.GroupPlan;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.LinkKey;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The topology index answers which groups use a device, link or host, also while several installer lanes
 * index and unindex groups that share hosts and devices at the same time.
 */
class GroupIndexTest {
    private static final int HOSTS = 16;
    private static final int LEAVES = 4;

    private static HostId host(int h) {
        return HostId.hostId(TestFabric.hostId(1 + h % LEAVES, 1 + h / LEAVES));
    }

    /** A group's plan: a branch on the spine and on its leaves, links spine to leaf. */
    private static GroupPlan plan(Set<Integer> leaves) {
        Map<DeviceId, GroupPlan.Branch> branches = new LinkedHashMap<>();
        List<ConnectPoint[]> links = new ArrayList<>();
        branches.put(TestFabric.spine(1), new GroupPlan.Branch(PortNumber.portNumber(1),
                ImmutableSet.of(PortNumber.portNumber(2))));
        for (int l : leaves) {
            branches.put(TestFabric.leaf(l), new GroupPlan.Branch(PortNumber.portNumber(1),
                    ImmutableSet.of(PortNumber.portNumber(3))));
            links.add(new ConnectPoint[]{new ConnectPoint(TestFabric.spine(1), PortNumber.portNumber(l)),
                    new ConnectPoint(TestFabric.leaf(l), PortNumber.portNumber(1))});
        }
        return new GroupPlan(branches, links);
    }

    @Test
    void concurrentLanesKeepTheIndexExact() throws Exception {
        GroupIndex index = new GroupIndex();
        int lanes = 4;
        int groupsPerLane = 400;
        ExecutorService pool = Executors.newFixedThreadPool(lanes);
        List<Future<Map<Long, Set<Integer>>>> results = new ArrayList<>();
        for (int lane = 0; lane < lanes; lane++) {
            int first = lane * groupsPerLane;
            results.add(pool.submit(() -> {
                // each lane owns its groups (as GroupLanes assigns them) and leaves some indexed
                Random random = new Random(first);
                Map<Long, Set<Integer>> kept = new LinkedHashMap<>();
                for (int round = 0; round < 20; round++) {
                    for (int i = 0; i < groupsPerLane; i++) {
                        long g = first + i;
                        if (random.nextInt(3) == 0) {
                            index.remove(g);
                            kept.remove(g);
                        } else {
                            Set<Integer> hosts = new HashSet<>();
                            for (int k = 0; k < 3; k++) {
                                hosts.add(random.nextInt(HOSTS));
                            }
                            Set<HostId> ids = new HashSet<>();
                            Set<Integer> leaves = new HashSet<>();
                            hosts.forEach(h -> {
                                ids.add(host(h));
                                leaves.add(1 + h % LEAVES);
                            });
                            index.put(g, plan(leaves), ids);
                            kept.put(g, hosts);
                        }
                    }
                }
                return kept;
            }));
        }
        Map<Long, Set<Integer>> kept = new LinkedHashMap<>();
        for (Future<Map<Long, Set<Integer>>> f : results) {
            kept.putAll(f.get());
        }
        pool.shutdown();
        assertEquals(kept.size(), index.size());
        for (int h = 0; h < HOSTS; h++) {
            Set<Long> expected = new HashSet<>();
            for (Map.Entry<Long, Set<Integer>> e : kept.entrySet()) {
                if (e.getValue().contains(h)) {
                    expected.add(e.getKey());
                }
            }
            assertEquals(expected, index.byHosts(Set.of(host(h))), "groups naming host " + h);
        }
        Set<Long> either = new HashSet<>();
        kept.forEach((g, hosts) -> {
            if (hosts.contains(0) || hosts.contains(5)) {
                either.add(g);
            }
        });
        assertEquals(either, index.byHosts(Set.of(host(0), host(5))), "groups naming host 0 or host 5");
        for (int l = 1; l <= LEAVES; l++) {
            Set<Long> expected = new HashSet<>();
            for (Map.Entry<Long, Set<Integer>> e : kept.entrySet()) {
                int leaf = l;
                if (e.getValue().stream().anyMatch(h -> 1 + h % LEAVES == leaf)) {
                    expected.add(e.getKey());
                }
            }
            assertEquals(expected, index.byDevice(TestFabric.leaf(l)), "groups on leaf " + l);
            LinkKey down = LinkKey.linkKey(new ConnectPoint(TestFabric.leaf(l), PortNumber.portNumber(1)),
                    new ConnectPoint(TestFabric.spine(1), PortNumber.portNumber(l)));
            assertEquals(expected, index.byLink(down), "groups over the link to leaf " + l + ", either direction");
        }
        assertEquals(kept.keySet(), index.byDevice(TestFabric.spine(1)));
    }
}
