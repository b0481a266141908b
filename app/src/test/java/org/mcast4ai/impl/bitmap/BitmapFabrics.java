package org.mcast4ai.impl.bitmap;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;

/** Fabrics named like the OVS lab: ONOS device ids and {@code MAC/None} host ids. */
final class BitmapFabrics {
    private BitmapFabrics() {
    }

    static String leaf(int i) {
        return String.format("of:%016x", 0x100 + i);
    }

    static String spine(int j) {
        return String.format("of:%016x", 0x200 + j);
    }

    static String host(int leaf, int k) {
        return String.format("02:00:00:00:%02x:%02x/None", leaf, k);
    }

    /** The lab's leaf-spine: leaf ports 1..H hosts, H+j spine j; spine port i = leaf i. */
    static FabricSnapshot leafSpine(int spines, int leaves, int hostsPerLeaf) {
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (int j = 1; j <= spines; j++) {
            b.addSwitch(spine(j), Role.SPINE);
        }
        for (int i = 1; i <= leaves; i++) {
            b.addSwitch(leaf(i), Role.LEAF);
            for (int k = 1; k <= hostsPerLeaf; k++) {
                b.addHost(host(i, k), leaf(i), k);
            }
            for (int j = 1; j <= spines; j++) {
                b.addBiLink(leaf(i), hostsPerLeaf + j, spine(j), i);
            }
        }
        return b.build();
    }

    /**
     * @param f      a fabric
     * @param source a host of it
     * @param rnd    randomness
     * @return about a third of the other hosts, each drawn with probability 1/3
     */
    static java.util.List<String> randomMembers(FabricSnapshot f, String source, java.util.Random rnd) {
        java.util.List<String> members = new java.util.ArrayList<>();
        for (int h = 0; h < f.hostCount(); h++) {
            if (!f.hostName(h).equals(source) && rnd.nextInt(3) == 0) {
                members.add(f.hostName(h));
            }
        }
        return members;
    }
}
