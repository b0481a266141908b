package org.mcast4ai.engine;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * Builds synthetic fabric snapshots for tests, benchmarks and the lab: leaf-spine, k-ary fat tree and
 * random connected graphs, plus copies with failed links. All links are bidirectional unless removed;
 * ports are numbered from 1, host ports first.
 *
 * <p>Names are 1-based; P is a pod, I an edge or leaf, J a spine or aggregation switch, M a core, N a
 * host port:
 * <ul>
 *   <li>leaf-spine: switches {@code spineJ}, {@code leafI}; host {@code hI-N} on leafI port N; leafI
 *   reaches spineJ by port H + J, spineJ reaches leafI by port I.</li>
 *   <li>fat tree (k pods): {@code edgeP-I} (leaves), {@code aggP-J} (spines), {@code coreJ-M}
 *   (super-spines); host {@code hP-I-N} on edgeP-I port N. Edge uplink to aggP-J is port k/2 + J;
 *   aggP-J reaches edgeP-I by port I and coreJ-M by port k/2 + M; coreJ-M reaches aggP-J by port P.</li>
 *   <li>random graph: switches {@code swI}, host {@code hI-N} on port N; roles inferred.</li>
 * </ul>
 */
public final class FabricGenerators {
    private FabricGenerators() {
    }

    /**
     * A two-tier leaf-spine fabric: every leaf links to every spine.
     *
     * @param spines       number of spines (at least 1)
     * @param leaves       number of leaves (at least 1)
     * @param hostsPerLeaf hosts on each leaf (at least 0)
     * @return the snapshot
     */
    public static FabricSnapshot leafSpine(int spines, int leaves, int hostsPerLeaf) {
        require(spines >= 1 && leaves >= 1 && hostsPerLeaf >= 0,
                "leaf-spine needs spines >= 1, leaves >= 1, hostsPerLeaf >= 0");
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (int j = 1; j <= spines; j++) {
            b.addSwitch("spine" + j, Role.SPINE);
        }
        for (int i = 1; i <= leaves; i++) {
            String leaf = "leaf" + i;
            b.addSwitch(leaf, Role.LEAF);
            for (int n = 1; n <= hostsPerLeaf; n++) {
                b.addHost("h" + i + "-" + n, leaf, n);
            }
            for (int j = 1; j <= spines; j++) {
                b.addBiLink(leaf, hostsPerLeaf + j, "spine" + j, i);
            }
        }
        return b.build();
    }

    /**
     * A k-ary fat tree (3-tier Clos): k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core
     * switches, k/2 hosts per edge switch, k^3/4 hosts in all.
     *
     * @param k an even arity, at least 2
     * @return the snapshot
     */
    public static FabricSnapshot fatTree(int k) {
        require(k >= 2 && k % 2 == 0, "fat tree needs an even k >= 2");
        int half = k / 2;
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (int j = 1; j <= half; j++) {
            for (int m = 1; m <= half; m++) {
                b.addSwitch("core" + j + "-" + m, Role.SUPER_SPINE);
            }
        }
        for (int p = 1; p <= k; p++) {
            for (int j = 1; j <= half; j++) {
                String agg = "agg" + p + "-" + j;
                b.addSwitch(agg, Role.SPINE);
                for (int m = 1; m <= half; m++) {
                    b.addBiLink(agg, half + m, "core" + j + "-" + m, p);
                }
            }
            for (int i = 1; i <= half; i++) {
                String edge = "edge" + p + "-" + i;
                b.addSwitch(edge, Role.LEAF);
                for (int n = 1; n <= half; n++) {
                    b.addHost("h" + p + "-" + i + "-" + n, edge, n);
                }
                for (int j = 1; j <= half; j++) {
                    b.addBiLink(edge, half + j, "agg" + p + "-" + j, i);
                }
            }
        }
        return b.build();
    }

    /**
     * A random connected graph: a random spanning tree plus {@code extraLinks} random links between
     * switches not yet linked, {@code hostsPerSwitch} hosts on every switch. Same seed, same graph.
     *
     * @param switches       number of switches (at least 1)
     * @param extraLinks     links beyond the spanning tree (fewer if the graph gets complete)
     * @param hostsPerSwitch hosts per switch (at least 0)
     * @param random         the random source
     * @return the snapshot
     */
    public static FabricSnapshot randomConnected(int switches, int extraLinks, int hostsPerSwitch, Random random) {
        require(switches >= 1 && extraLinks >= 0 && hostsPerSwitch >= 0 && random != null,
                "random graph needs switches >= 1, extraLinks >= 0, hostsPerSwitch >= 0 and a random source");
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        int[] nextPort = new int[switches];
        for (int i = 0; i < switches; i++) {
            String sw = "sw" + (i + 1);
            b.addSwitch(sw, null);
            for (int n = 1; n <= hostsPerSwitch; n++) {
                b.addHost("h" + (i + 1) + "-" + n, sw, n);
            }
            nextPort[i] = hostsPerSwitch + 1;
        }
        Set<Long> linked = new HashSet<>();
        for (int i = 1; i < switches; i++) {
            link(b, linked, nextPort, i, random.nextInt(i));
        }
        long maxLinks = (long) switches * (switches - 1) / 2;
        int added = 0;
        for (int tries = 0; added < extraLinks && linked.size() < maxLinks && tries < 100 * extraLinks; tries++) {
            int a = random.nextInt(switches);
            int c = random.nextInt(switches);
            if (a != c && link(b, linked, nextPort, a, c)) {
                added++;
            }
        }
        return b.build();
    }

    private static boolean link(FabricSnapshot.Builder b, Set<Long> linked, int[] nextPort, int a, int c) {
        long key = (long) Math.min(a, c) * Integer.MAX_VALUE + Math.max(a, c);
        if (!linked.add(key)) {
            return false;
        }
        b.addBiLink("sw" + (a + 1), nextPort[a]++, "sw" + (c + 1), nextPort[c]++);
        return true;
    }

    /**
     * A copy of a snapshot without some directed links (a failed link is usually both directions). Roles
     * become explicit, so removing links does not change them.
     *
     * @param fabric the snapshot
     * @param drop   given the from and to switch names, true to remove that direction
     * @return the copy
     */
    public static FabricSnapshot withoutLinks(FabricSnapshot fabric, BiPredicate<String, String> drop) {
        require(fabric != null && drop != null, "fabric and drop are required");
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (int s = 0; s < fabric.switchCount(); s++) {
            b.addSwitch(fabric.switchName(s), fabric.role(s));
        }
        for (int s = 0; s < fabric.switchCount(); s++) {
            for (int e = fabric.linkStart(s); e < fabric.linkStart(s + 1); e++) {
                String from = fabric.switchName(s);
                String to = fabric.switchName(fabric.linkTo(e));
                if (!drop.test(from, to)) {
                    b.addLink(from, fabric.linkFromPort(e), to, fabric.linkToPort(e));
                }
            }
        }
        for (int h = 0; h < fabric.hostCount(); h++) {
            b.addHost(fabric.hostName(h), fabric.switchName(fabric.hostSwitch(h)), fabric.hostPort(h));
        }
        return b.build();
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
