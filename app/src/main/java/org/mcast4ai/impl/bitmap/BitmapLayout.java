package org.mcast4ai.impl.bitmap;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What every switch needs to replicate by the Ethernet-source bitmap, derived from the fabric alone: the
 * receiver bit of every host position (leaf, port), and per switch the bits each downstream port reaches
 * ({@code reach(p)}, up-down Clos routing), its uplinks and the bits that lie outside its subtree. Pure and
 * immutable; nothing in it depends on a group.
 *
 * <p>Routing: a copy goes up (from a leaf, from a spine of a 3-tier fabric) only if some bit lies outside
 * the switch's subtree, through exactly one uplink (the source leaf's per-group choice, a fixed choice per
 * switch above the leaves), and down through every port whose reach intersects the bits. Reach sets of the
 * down ports of one switch are made disjoint (a bit belongs to the lowest port that reaches it), so no
 * switch sends one receiver two copies; a copy is never sent back out of its in port (OpenFlow switches
 * suppress that output), so the copy that went up never comes back down to where it came from.
 */
public final class BitmapLayout {
    /** Tables a switch may use for its replication chain (OpenFlow allows 255; keep room for others). */
    public static final int MAX_CHAIN_TABLES = 200;

    private final FabricSnapshot fabric;
    private final Map<String, Integer> positionBits;
    private final int[] hostBit;
    private final List<String> overflow;
    private final boolean compacted;
    private final Map<String, SwitchPorts> switches;
    private final String whyNot;
    // every bit but those of leaves without an uplink (back before their links, or cut off): their receivers are
    // unreachable from outside, which does not stop BITMAP for the rest of the fabric
    private final long attached;

    /** One switch's replication ports. */
    public static final class SwitchPorts {
        private final String name;
        private final Role role;
        private final long subtree;
        private final long[] downPorts;
        private final long[] downReach;
        private final boolean[] downHost;
        private final long[] upPorts;
        private final long upReach;
        private final long[] fromBelow;

        private SwitchPorts(String name, Role role, long subtree, TreeMap<Long, Long> down, TreeSet<Long> hostPorts,
                            TreeSet<Long> up, long upReach, TreeSet<Long> fromBelow) {
            this.name = name;
            this.role = role;
            this.subtree = subtree;
            int n = down.size();
            downPorts = new long[n];
            downReach = new long[n];
            downHost = new boolean[n];
            int i = 0;
            for (Map.Entry<Long, Long> e : down.entrySet()) {
                downPorts[i] = e.getKey();
                downReach[i] = e.getValue();
                downHost[i] = hostPorts.contains(e.getKey());
                i++;
            }
            this.upPorts = up.stream().mapToLong(Long::longValue).toArray();
            this.upReach = upPorts.length == 0 ? 0 : upReach;
            this.fromBelow = fromBelow.stream().mapToLong(Long::longValue).toArray();
        }

        /** @return switch name (ONOS device id string) */
        public String name() {
            return name;
        }

        /** @return its role */
        public Role role() {
            return role;
        }

        /** @return the bits of the hosts below it */
        public long subtree() {
            return subtree;
        }

        /** @return down ports with a non-empty reach, ascending */
        public long[] downPorts() {
            return downPorts.clone();
        }

        /**
         * @param i index into {@link #downPorts()}
         * @return the bits reachable through that port (disjoint from the other down ports')
         */
        public long downReach(int i) {
            return downReach[i];
        }

        /**
         * @param i index into {@link #downPorts()}
         * @return true if the port leads to a host (an egress port)
         */
        public boolean downIsHost(int i) {
            return downHost[i];
        }

        /** @return ports to higher-role switches, ascending (arrivals on them come from above) */
        public long[] upPorts() {
            return upPorts.clone();
        }

        /** @return bits outside the subtree, which need one copy up (0 if there is no uplink) */
        public long upReach() {
            return upReach;
        }

        /** @return ports to lower-role switches (arrivals on them come from below) */
        public long[] fromBelow() {
            return fromBelow.clone();
        }

        /**
         * The uplink a non-leaf switch uses for every packet going up: fixed per switch, so one packet
         * takes exactly one path up; leaves choose per group instead ({@link BitmapStamp}).
         *
         * @return index into {@link #upPorts()}, or -1 without uplinks
         */
        public int fixedUplink() {
            return upPorts.length == 0 ? -1 : Math.floorMod(name.hashCode(), upPorts.length);
        }
    }

    private BitmapLayout(FabricSnapshot fabric, Map<String, Integer> positionBits, List<String> overflow,
                         boolean compacted) {
        this.fabric = fabric;
        this.positionBits = Collections.unmodifiableMap(new TreeMap<>(positionBits));
        this.overflow = List.copyOf(overflow);
        this.compacted = compacted;
        hostBit = new int[fabric.hostCount()];
        for (int h = 0; h < hostBit.length; h++) {
            Integer b = positionBits.get(positionKey(fabric.switchName(fabric.hostSwitch(h)), fabric.hostPort(h)));
            hostBit[h] = b == null ? -1 : b;
        }
        switches = Collections.unmodifiableMap(build());
        long detached = 0;
        for (SwitchPorts p : switches.values()) {
            if (p.role == Role.LEAF && p.upPorts.length == 0) {
                detached |= p.subtree;
            }
        }
        attached = allBits() & ~detached;
        whyNot = check();
    }

    /**
     * A layout with bits allocated in a fixed order: leaves by name, ports ascending. Deterministic for a
     * given fabric, but a new position may renumber later ones; prefer {@link #of(FabricSnapshot, Map)}
     * with the stable indices of the distributed bit index table when there is one.
     *
     * @param fabric the fabric
     * @return the layout
     */
    public static BitmapLayout of(FabricSnapshot fabric) {
        TreeMap<String, TreeSet<Long>> byLeaf = new TreeMap<>();
        for (int h = 0; h < fabric.hostCount(); h++) {
            byLeaf.computeIfAbsent(fabric.switchName(fabric.hostSwitch(h)), x -> new TreeSet<>())
                    .add(fabric.hostPort(h));
        }
        Map<String, Integer> indices = new LinkedHashMap<>();
        int next = 0;
        for (Map.Entry<String, TreeSet<Long>> e : byLeaf.entrySet()) {
            for (long port : e.getValue()) {
                indices.put(positionKey(e.getKey(), port), next++);
            }
        }
        return of(fabric, indices);
    }

    /**
     * A layout using given position indices (for example {@code BitIndexTable.positions()}): the index is
     * the receiver bit when every index is below 46 (stable: adding a position renumbers nothing);
     * otherwise the positions are numbered densely in index order ({@link #compacted()}).
     *
     * @param fabric  the fabric
     * @param indices position key ({@link #positionKey}) to index; positions of the fabric missing here
     *                get no bit and are listed in {@link #overflow()}
     * @return the layout
     */
    public static BitmapLayout of(FabricSnapshot fabric, Map<String, Integer> indices) {
        TreeMap<Integer, String> byIndex = new TreeMap<>();
        TreeSet<String> wanted = new TreeSet<>();
        for (int h = 0; h < fabric.hostCount(); h++) {
            wanted.add(positionKey(fabric.switchName(fabric.hostSwitch(h)), fabric.hostPort(h)));
        }
        List<String> overflow = new ArrayList<>();
        for (String key : wanted) {
            Integer index = indices.get(key);
            if (index == null || index < 0) {
                overflow.add(key);
            } else if (byIndex.put(index, key) != null) {
                throw new IllegalArgumentException("two positions share index " + index);
            }
        }
        Map<String, Integer> bits = new HashMap<>();
        boolean direct = byIndex.isEmpty() || byIndex.lastKey() < EthSrcBitmap.CAPACITY;
        int rank = 0;
        for (Map.Entry<Integer, String> e : byIndex.entrySet()) {
            int bit = direct ? e.getKey() : rank++;
            if (bit < EthSrcBitmap.CAPACITY) {
                bits.put(e.getValue(), bit);
            } else {
                overflow.add(e.getValue());
            }
        }
        return new BitmapLayout(fabric, bits, overflow, !direct);
    }

    /**
     * @param leaf switch name
     * @param port switch port
     * @return the key of that position (the same as the bit index table's)
     */
    public static String positionKey(String leaf, long port) {
        return leaf + "/" + port;
    }

    private Map<String, SwitchPorts> build() {
        int s = fabric.switchCount();
        long all = 0;
        long[] subtree = new long[s];
        for (int h = 0; h < hostBit.length; h++) {
            if (hostBit[h] >= 0) {
                subtree[fabric.hostSwitch(h)] |= 1L << hostBit[h];
                all |= 1L << hostBit[h];
            }
        }
        for (Role r : new Role[]{Role.SPINE, Role.SUPER_SPINE}) {
            for (int sw = 0; sw < s; sw++) {
                if (fabric.role(sw) != r) {
                    continue;
                }
                for (int e = fabric.linkStart(sw); e < fabric.linkStart(sw + 1); e++) {
                    if (fabric.role(fabric.linkTo(e)).ordinal() < r.ordinal()) {
                        subtree[sw] |= subtree[fabric.linkTo(e)];
                    }
                }
            }
        }
        Map<String, SwitchPorts> out = new LinkedHashMap<>();
        for (int sw = 0; sw < s; sw++) {
            Role mine = fabric.role(sw);
            TreeMap<Long, Long> candidates = new TreeMap<>();
            TreeSet<Long> hostPorts = new TreeSet<>();
            for (int i = fabric.hostStart(sw); i < fabric.hostStart(sw + 1); i++) {
                int h = fabric.hostAt(i);
                if (hostBit[h] >= 0) {
                    candidates.merge(fabric.hostPort(h), 1L << hostBit[h], (a, b) -> a | b);
                    hostPorts.add(fabric.hostPort(h));
                }
            }
            TreeSet<Long> up = new TreeSet<>();
            TreeSet<Long> below = new TreeSet<>();
            Map<Long, Integer> above = new HashMap<>();
            for (int e = fabric.linkStart(sw); e < fabric.linkStart(sw + 1); e++) {
                Role theirs = fabric.role(fabric.linkTo(e));
                if (theirs.ordinal() < mine.ordinal()) {
                    below.add(fabric.linkFromPort(e));
                    candidates.merge(fabric.linkFromPort(e), subtree[fabric.linkTo(e)], (a, b) -> a | b);
                } else if (theirs.ordinal() > mine.ordinal()) {
                    up.add(fabric.linkFromPort(e));
                    above.put(fabric.linkFromPort(e), fabric.linkTo(e));
                }
            }
            TreeMap<Long, Long> down = new TreeMap<>();
            long claimed = 0;
            for (Map.Entry<Long, Long> c : candidates.entrySet()) {
                long reach = c.getValue() & ~claimed;
                if (reach != 0) {
                    down.put(c.getKey(), reach);
                    claimed |= reach;
                }
            }
            out.put(fabric.switchName(sw), new SwitchPorts(fabric.switchName(sw), mine, subtree[sw], down, hostPorts,
                    up, all & ~subtree[sw], below));
            neighbourAbove.put(fabric.switchName(sw), above);
        }
        return out;
    }

    // switch name -> up port -> the switch index there
    private final Map<String, Map<Long, Integer>> neighbourAbove = new HashMap<>();

    /**
     * The receivers a copy sent up through one port can reach: the switch above replicates down to its subtree
     * and, if it has uplinks, up through its fixed one. Links that failed are absent from the snapshot, so the
     * answer follows them.
     *
     * @param name switch name
     * @param port one of its up ports
     * @return the bits reachable through it
     */
    public long reachUp(String name, long port) {
        Integer n = neighbourAbove.getOrDefault(name, Map.of()).get(port);
        if (n == null) {
            return 0;
        }
        SwitchPorts above = switches.get(fabric.switchName(n));
        long reach = above.subtree();
        int fixed = above.fixedUplink();
        if (fixed >= 0) {
            reach |= reachUp(above.name(), above.upPorts[fixed]);
        }
        return reach;
    }

    /**
     * Spread slots: besides an uplink's port number, a stamp can name one of these, and the leaf's static up
     * table sends the slot's copies up whichever uplink the slot has now. When a spine or a spine's link goes,
     * only those static rules change; the stamps of the groups whose slot moved stay as they are.
     */
    public static final int SLOTS = 8;
    /** Metadata values {@code SLOT_BASE + 1 .. SLOT_BASE + SLOTS} name slots (uplink port numbers stay below). */
    public static final int SLOT_BASE = 0x10000;

    /**
     * The uplink a spread slot takes on a leaf: among the uplinks through which every receiver outside the leaf
     * is reachable (but those on leaves without an uplink, which nothing outside them reaches), the one
     * preferred by rendezvous hashing on slot and port (a slot moves only when its uplink goes or a better one
     * comes).
     *
     * @param leaf leaf name
     * @param slot 1 .. {@link #SLOTS}
     * @return the uplink's port number, or -1 if no uplink reaches every receiver outside the leaf
     */
    public long slotUplink(String leaf, int slot) {
        SwitchPorts sw = switches.get(leaf);
        if (sw == null) {
            return -1;
        }
        long outside = attachedBits() & ~sw.subtree();
        long best = -1;
        long bestWeight = 0;
        for (long port : sw.upPorts()) {
            if ((reachUp(leaf, port) & outside) != outside) {
                continue;
            }
            long w = mix(slot * 0x9E37_79B9_7F4A_7C15L + port);
            if (best < 0 || Long.compareUnsigned(w, bestWeight) > 0) {
                best = port;
                bestWeight = w;
            }
        }
        return best;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    private String check() {
        if (!overflow.isEmpty()) {
            int total = positionBits.size() + overflow.size();
            String names = String.join(", ", overflow.subList(0, Math.min(4, overflow.size())))
                    + (overflow.size() > 4 ? ", ..." : "");
            return total > EthSrcBitmap.CAPACITY
                    ? "the fabric has " + total + " receiver positions and the Ethernet source bitmap carries "
                            + EthSrcBitmap.CAPACITY + " (no bit for " + names + ")"
                    : "receiver positions without a bit index: " + names;
        }
        for (SwitchPorts p : switches.values()) {
            // a down port's table is numbered by its port (stable when ports come and go)
            long highest = p.downPorts.length == 0 ? 0 : p.downPorts[p.downPorts.length - 1];
            if (highest + 1 > MAX_CHAIN_TABLES) {
                return "switch " + p.name + " has port " + highest + " and its replication tables are numbered by "
                        + "port (at most " + (MAX_CHAIN_TABLES - 1) + ")";
            }
        }
        return null;
    }

    /** @return the fabric the layout was derived from */
    public FabricSnapshot fabric() {
        return fabric;
    }

    /** @return why BITMAP does not fit this fabric, empty if it does */
    public Optional<String> whyNot() {
        return Optional.ofNullable(whyNot);
    }

    /** @return true if BITMAP fits this fabric */
    public boolean fits() {
        return whyNot == null;
    }

    /** @return true if the given indices were too large and positions were numbered densely instead */
    public boolean compacted() {
        return compacted;
    }

    /** @return position key to receiver bit (read-only) */
    public Map<String, Integer> positionBits() {
        return positionBits;
    }

    /** @return positions that got no bit */
    public List<String> overflow() {
        return overflow;
    }

    private long attachedBits() {
        return attached;
    }

    /** @return every allocated bit */
    public long allBits() {
        long all = 0;
        for (int b : positionBits.values()) {
            all |= 1L << b;
        }
        return all;
    }

    /**
     * @param host host name in the snapshot
     * @return its receiver bit, or -1 if unknown or without a bit
     */
    public int bitOfHost(String host) {
        int h = fabric.hostIndex(host);
        return h < 0 ? -1 : hostBit[h];
    }

    /** @return every switch's replication ports, by switch name */
    public Map<String, SwitchPorts> switches() {
        return switches;
    }

    /**
     * @param name switch name
     * @return its ports, or null
     */
    public SwitchPorts switchPorts(String name) {
        return switches.get(name);
    }
}
