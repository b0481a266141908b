package org.mcast4ai.engine.bitmap;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The static replication tables of every switch of a fabric. Built from the snapshot and the bit index
 * table only (the signature admits nothing else), recomputed on topology change, identical for one group
 * or a million. Immutable.
 *
 * <ul>
 *   <li>leaf: its own leaf range; one child per indexed host port; uplinks to its spines;</li>
 *   <li>spine of a 3-tier fabric: its pod's range; one child per leaf below; uplinks to the
 *       super-spines;</li>
 *   <li>spine of a 2-tier fabric: the whole index space; one child per leaf; no uplink;</li>
 *   <li>super-spine: the whole index space; one child per pod, with every spine link into that
 *       pod as equal-cost ports; no uplink.</li>
 * </ul>
 * Each port towards a switch carries the leaves still reachable through it: below a switch, the leaves its
 * live down links lead to; through an uplink, those of the switch above and of everything above it. Built
 * from the fabric that is left after a failure, they keep every copy on a path that still reaches its
 * receivers (see {@link SwitchLogic}).
 */
public final class SwitchTables {
    private static final int ALL = 1 << FabricGeometry.INDEX_BITS;

    private final FabricGeometry geometry;
    private final SwitchTable[] tables;

    private SwitchTables(FabricGeometry geometry, SwitchTable[] tables) {
        this.geometry = geometry;
        this.tables = tables;
    }

    /**
     * @param fabric the snapshot
     * @param bits   the bit index table of that fabric
     * @return the tables of every switch
     */
    public static SwitchTables build(FabricSnapshot fabric, BitIndexTable bits) {
        FabricGeometry g = bits.geometry();
        int s = fabric.switchCount();
        int[] prefix = new int[s];
        Arrays.fill(prefix, -1);
        for (int sw = 0; sw < s; sw++) {
            if (fabric.role(sw) == Role.LEAF) {
                prefix[sw] = bits.leafPrefix(fabric.switchName(sw));
            }
        }
        int[] spinePod = new int[s];
        Arrays.fill(spinePod, -1);
        for (int sw = 0; sw < s; sw++) {
            if (fabric.role(sw) != Role.SPINE) {
                continue;
            }
            for (int e = fabric.linkStart(sw); e < fabric.linkStart(sw + 1) && spinePod[sw] < 0; e++) {
                int p = prefix[fabric.linkTo(e)];
                if (p >= 0) {
                    spinePod[sw] = g.podOf(p);
                }
            }
        }
        Reach reach = new Reach(fabric, prefix, g.slotBits());
        SwitchTable[] tables = new SwitchTable[s];
        for (int sw = 0; sw < s; sw++) {
            switch (fabric.role(sw)) {
                case LEAF:
                    tables[sw] = leaf(fabric, bits, g, sw, prefix[sw], reach);
                    break;
                case SPINE:
                    if (g.threeTier() && spinePod[sw] < 0) {
                        // a 3-tier spine cut off from every leaf delivers nothing below
                        tables[sw] = downAndUp(fabric, sw, prefix, g.leafSpan(), false, 0, 0, reach, g);
                    } else {
                        tables[sw] = g.threeTier()
                                ? downAndUp(fabric, sw, prefix, g.leafSpan(), false,
                                            spinePod[sw] * g.podSpan(), (spinePod[sw] + 1) * g.podSpan(), reach, g)
                                : downAndUp(fabric, sw, prefix, g.leafSpan(), false, 0, ALL, reach, g);
                    }
                    break;
                default:
                    int[] podStart = new int[s];
                    Arrays.fill(podStart, -1);
                    for (int v = 0; v < s; v++) {
                        if (spinePod[v] >= 0) {
                            podStart[v] = spinePod[v] * g.podSpan();
                        }
                    }
                    tables[sw] = downAndUp(fabric, sw, podStart, g.podSpan(), false, 0, ALL, reach, g);
                    break;
            }
        }
        return new SwitchTables(g, tables);
    }

    private static SwitchTable leaf(FabricSnapshot fabric, BitIndexTable bits, FabricGeometry g, int sw,
                                    int prefix, Reach reach) {
        TreeMap<Integer, TreeMap<Long, long[]>> children = new TreeMap<>();
        for (int i = fabric.hostStart(sw); i < fabric.hostStart(sw + 1); i++) {
            long port = fabric.hostPort(fabric.hostAt(i));
            int bit = bits.bitOf(fabric.switchName(sw), port);
            if (bit >= 0) {
                children.computeIfAbsent(bit, x -> new TreeMap<>()).put(port, null);
            }
        }
        TreeMap<Long, long[]> up = new TreeMap<>();
        for (int e = fabric.linkStart(sw); e < fabric.linkStart(sw + 1); e++) {
            int v = fabric.linkTo(e);
            if (fabric.role(v) != Role.LEAF) {
                up.put(fabric.linkFromPort(e), reach.up(v));
            }
        }
        int lo = prefix >= 0 ? prefix : 0;
        int hi = prefix >= 0 ? prefix + g.leafSpan() : 0;
        return table(lo, hi, children, 1, true, up, g);
    }

    /** A spine or super-spine: children keyed by the range start of the neighbour, uplinks to higher roles. */
    private static SwitchTable downAndUp(FabricSnapshot fabric, int sw, int[] childStart, int span, boolean toHosts,
                                         int selfLo, int selfHi, Reach reach, FabricGeometry g) {
        TreeMap<Integer, TreeMap<Long, long[]>> children = new TreeMap<>();
        TreeMap<Long, long[]> up = new TreeMap<>();
        Role mine = fabric.role(sw);
        for (int e = fabric.linkStart(sw); e < fabric.linkStart(sw + 1); e++) {
            int v = fabric.linkTo(e);
            int start = childStart[v];
            if (start >= selfLo && start < selfHi && fabric.role(v).ordinal() < mine.ordinal()) {
                children.computeIfAbsent(start, x -> new TreeMap<>()).put(fabric.linkFromPort(e), reach.down(v));
            } else if (fabric.role(v).ordinal() > mine.ordinal()) {
                up.put(fabric.linkFromPort(e), reach.up(v));
            }
        }
        return table(selfLo, selfHi, children, span, toHosts, selfHi - selfLo == ALL ? new TreeMap<>() : up, g);
    }

    private static SwitchTable table(int selfLo, int selfHi, TreeMap<Integer, TreeMap<Long, long[]>> children,
                                     int span, boolean toHosts, TreeMap<Long, long[]> up, FabricGeometry g) {
        int n = children.size();
        int[] lo = new int[n];
        int[] hi = new int[n];
        long[][] ports = new long[n][];
        long[][][] childReach = new long[n][][];
        int i = 0;
        for (Map.Entry<Integer, TreeMap<Long, long[]>> c : children.entrySet()) {
            lo[i] = c.getKey();
            hi[i] = c.getKey() + span;
            ports[i] = c.getValue().keySet().stream().mapToLong(Long::longValue).toArray();
            childReach[i] = toHosts ? null : c.getValue().values().toArray(new long[0][]);
            i++;
        }
        return new SwitchTable(selfLo, selfHi, lo, hi, ports, toHosts, up.keySet().stream().mapToLong(Long::longValue)
                .toArray(), childReach, up.values().toArray(new long[0][]), g.slotBits());
    }

    /**
     * Leaves reachable from each switch over the links that are left: {@code down} through down links only
     * (valley-free: what a copy coming from above can still reach), {@code up} through any number of up links
     * first and then down (what a copy sent up to the switch can reach). Bit sets over leaf numbers.
     */
    private static final class Reach {
        private final long[][] down;
        private final long[][] up;

        Reach(FabricSnapshot fabric, int[] prefix, int slotBits) {
            int s = fabric.switchCount();
            int words = Math.max(1, (1 << (FabricGeometry.INDEX_BITS - slotBits)) / 64);
            down = new long[s][];
            up = new long[s][];
            Role[] roles = Role.values();
            for (Role role : roles) {
                for (int sw = 0; sw < s; sw++) {
                    if (fabric.role(sw) != role) {
                        continue;
                    }
                    long[] d = new long[words];
                    if (prefix[sw] >= 0) {
                        int leaf = prefix[sw] >>> slotBits;
                        d[leaf >>> 6] |= 1L << leaf;
                    }
                    for (int e = fabric.linkStart(sw); e < fabric.linkStart(sw + 1); e++) {
                        int v = fabric.linkTo(e);
                        if (fabric.role(v).ordinal() < role.ordinal()) {
                            or(d, down[v]);
                        }
                    }
                    down[sw] = d;
                }
            }
            for (int r = roles.length - 1; r >= 0; r--) {
                for (int sw = 0; sw < s; sw++) {
                    if (fabric.role(sw) != roles[r]) {
                        continue;
                    }
                    long[] u = down[sw].clone();
                    for (int e = fabric.linkStart(sw); e < fabric.linkStart(sw + 1); e++) {
                        int v = fabric.linkTo(e);
                        if (fabric.role(v).ordinal() > r) {
                            or(u, up[v]);
                        }
                    }
                    up[sw] = u;
                }
            }
        }

        private static void or(long[] into, long[] from) {
            for (int i = 0; i < into.length; i++) {
                into[i] |= from[i];
            }
        }

        long[] down(int sw) {
            return down[sw];
        }

        long[] up(int sw) {
            return up[sw];
        }
    }

    /** @return the geometry the tables address */
    public FabricGeometry geometry() {
        return geometry;
    }

    /**
     * @param sw switch index
     * @return its table
     */
    public SwitchTable table(int sw) {
        return tables[sw];
    }

    /** @return number of switches */
    public int switches() {
        return tables.length;
    }

    /** @return the entries of every switch, in switch index order */
    public List<Integer> entries() {
        List<Integer> out = new ArrayList<>(tables.length);
        for (SwitchTable t : tables) {
            out.add(t.entries());
        }
        return out;
    }

    /**
     * @param role a role, or null for every switch
     * @param fabric the snapshot the tables were built from
     * @return the largest entry count among switches of that role
     */
    public int maxEntries(FabricSnapshot fabric, Role role) {
        int max = 0;
        for (int sw = 0; sw < tables.length; sw++) {
            if (role == null || fabric.role(sw) == role) {
                max = Math.max(max, tables[sw].entries());
            }
        }
        return max;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SwitchTables && geometry.equals(((SwitchTables) o).geometry)
                && Arrays.equals(tables, ((SwitchTables) o).tables);
    }

    @Override
    public int hashCode() {
        return 31 * geometry.hashCode() + Arrays.hashCode(tables);
    }
}
