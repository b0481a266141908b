package org.mcast4ai.engine.bitmap;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The stable bit index of every receiver position (a leaf switch port) in the fabric. Immutable: the impl
 * layer keeps the current table in a distributed map and replaces it with {@link #allocate(FabricSnapshot)}
 * when the topology changes.
 *
 * <p>Stability rules: a leaf gets its (pod, leaf) coordinates the first time it is seen and keeps them;
 * a position (leaf, port) gets the lowest free slot on its leaf the first time a host is seen there and keeps
 * it. Nothing is ever renumbered: hosts moving, leaves or hosts disappearing and new ones appearing leave
 * every existing index unchanged (a host that moves takes the index of its new position). A fresh table
 * allocated from the same snapshot gives the same indices (leaves in name order, ports in ascending order).
 * Positions that do not fit the geometry are listed in {@link #overflow()} and get no index; groups using
 * them cannot use the bitmap mode.
 */
public final class BitIndexTable {
    private final FabricGeometry geometry;
    private final Map<String, Integer> leaves;      // leaf switch name -> bit index of its slot 0
    private final Map<String, Integer> positions;   // "leaf/port" -> bit index
    private final Map<Integer, String> byBit;
    private final List<String> overflow;

    private BitIndexTable(FabricGeometry geometry, Map<String, Integer> leaves, Map<String, Integer> positions,
                          List<String> overflow) {
        this.geometry = Objects.requireNonNull(geometry);
        this.leaves = Collections.unmodifiableMap(new TreeMap<>(leaves));
        this.positions = Collections.unmodifiableMap(new TreeMap<>(positions));
        this.overflow = Collections.unmodifiableList(new ArrayList<>(overflow));
        Map<Integer, String> rev = new HashMap<>();
        for (Map.Entry<String, Integer> e : positions.entrySet()) {
            if (!geometry.isValid(e.getValue()) || rev.put(e.getValue(), e.getKey()) != null) {
                throw new IllegalArgumentException("invalid or duplicate bit index " + e.getValue()
                        + " for position " + e.getKey());
            }
        }
        this.byBit = rev;
    }

    /**
     * @param geometry the coordinate space
     * @return a table with no positions
     */
    public static BitIndexTable empty(FabricGeometry geometry) {
        return new BitIndexTable(geometry, Map.of(), Map.of(), List.of());
    }

    /**
     * Rebuilds a table from its stored parts (for example read back from a distributed map).
     *
     * @param geometry  the coordinate space
     * @param leaves    leaf name to the bit index of its slot 0
     * @param positions position key ({@link #positionKey}) to bit index
     * @return the table
     */
    public static BitIndexTable of(FabricGeometry geometry, Map<String, Integer> leaves,
                                   Map<String, Integer> positions) {
        return new BitIndexTable(geometry, leaves, positions, List.of());
    }

    /**
     * A table for a snapshot with the snapshot's tight geometry.
     *
     * @param fabric the snapshot
     * @return the table with every host position allocated
     */
    public static BitIndexTable forFabric(FabricSnapshot fabric) {
        return empty(ClosLayout.geometryOf(fabric)).allocate(fabric);
    }

    /**
     * @param leaf switch name
     * @param port switch port
     * @return the key of that position
     */
    public static String positionKey(String leaf, long port) {
        return leaf + "/" + port;
    }

    /**
     * Allocates indices for the leaves and host positions of {@code fabric} that have none yet.
     *
     * @param fabric the current snapshot
     * @return the new table (this one if nothing was new)
     */
    public BitIndexTable allocate(FabricSnapshot fabric) {
        ClosLayout layout = ClosLayout.of(fabric);
        Map<String, Integer> newLeaves = new HashMap<>(leaves);
        Map<String, Integer> newPositions = new HashMap<>(positions);
        List<String> over = new ArrayList<>();
        BitSet usedLeafSlots = new BitSet();            // pod * leavesPerPod + leaf
        for (int prefix : leaves.values()) {
            usedLeafSlots.set(leafSlot(prefix));
        }
        TreeMap<String, Integer> leafSwitches = new TreeMap<>();
        for (int sw = 0; sw < fabric.switchCount(); sw++) {
            if (fabric.role(sw) == Role.LEAF) {
                leafSwitches.put(fabric.switchName(sw), sw);
            }
        }
        Map<Integer, Integer> podOfComponent = new HashMap<>();
        for (Map.Entry<String, Integer> e : leafSwitches.entrySet()) {
            Integer prefix = leaves.get(e.getKey());
            if (prefix != null) {
                podOfComponent.putIfAbsent(layout.component(e.getValue()), geometry.podOf(prefix));
            }
        }
        for (Map.Entry<String, Integer> e : leafSwitches.entrySet()) {
            if (newLeaves.containsKey(e.getKey())) {
                continue;
            }
            int slot = geometry.threeTier()
                    ? freeLeafInPod(layout.component(e.getValue()), podOfComponent, usedLeafSlots)
                    : usedLeafSlots.nextClearBit(0);
            if (slot < 0 || slot >= geometry.pods() * geometry.leavesPerPod()) {
                over.add(e.getKey());
                continue;
            }
            usedLeafSlots.set(slot);
            newLeaves.put(e.getKey(), geometry.bit(slot / geometry.leavesPerPod(),
                    slot % geometry.leavesPerPod(), 0));
        }
        allocatePositions(fabric, leafSwitches, newLeaves, newPositions, over);
        if (over.isEmpty() && newLeaves.equals(leaves) && newPositions.equals(positions)) {
            return this;
        }
        return new BitIndexTable(geometry, newLeaves, newPositions, over);
    }

    private int freeLeafInPod(int component, Map<Integer, Integer> podOfComponent, BitSet used) {
        Integer pod = podOfComponent.get(component);
        if (pod == null) {
            TreeSet<Integer> taken = new TreeSet<>(podOfComponent.values());
            for (int prefix : leaves.values()) {
                taken.add(geometry.podOf(prefix));
            }
            int p = 0;
            while (taken.contains(p)) {
                p++;
            }
            if (p >= geometry.pods()) {
                return -1;
            }
            pod = p;
            podOfComponent.put(component, p);
        }
        int base = pod * geometry.leavesPerPod();
        int slot = used.nextClearBit(base);
        return slot < base + geometry.leavesPerPod() ? slot : -1;
    }

    private void allocatePositions(FabricSnapshot fabric, TreeMap<String, Integer> leafSwitches,
                                   Map<String, Integer> newLeaves, Map<String, Integer> newPositions,
                                   List<String> over) {
        Map<Integer, BitSet> usedSlots = new HashMap<>();
        for (int bit : newPositions.values()) {
            usedSlots.computeIfAbsent(bit - geometry.slotOf(bit), x -> new BitSet()).set(geometry.slotOf(bit));
        }
        for (Map.Entry<String, Integer> e : leafSwitches.entrySet()) {
            int sw = e.getValue();
            TreeSet<Long> ports = new TreeSet<>();
            for (int i = fabric.hostStart(sw); i < fabric.hostStart(sw + 1); i++) {
                ports.add(fabric.hostPort(fabric.hostAt(i)));
            }
            Integer prefix = newLeaves.get(e.getKey());
            for (long port : ports) {
                String key = positionKey(e.getKey(), port);
                if (newPositions.containsKey(key)) {
                    continue;
                }
                if (prefix == null) {
                    over.add(key);
                    continue;
                }
                BitSet used = usedSlots.computeIfAbsent(prefix, x -> new BitSet());
                int slot = used.nextClearBit(0);
                if (slot >= geometry.slotsPerLeaf()) {
                    over.add(key);
                    continue;
                }
                used.set(slot);
                newPositions.put(key, prefix + slot);
            }
        }
    }

    private int leafSlot(int prefix) {
        return geometry.podOf(prefix) * geometry.leavesPerPod() + geometry.leafOf(prefix);
    }

    /** @return the coordinate space */
    public FabricGeometry geometry() {
        return geometry;
    }

    /** @return leaf name to the bit index of its slot 0 (read-only) */
    public Map<String, Integer> leaves() {
        return leaves;
    }

    /** @return position key to bit index (read-only) */
    public Map<String, Integer> positions() {
        return positions;
    }

    /** @return leaves and positions the last allocation could not place */
    public List<String> overflow() {
        return overflow;
    }

    /**
     * @param leaf switch name
     * @param port switch port
     * @return the bit index of that position, or -1
     */
    public int bitOf(String leaf, long port) {
        Integer b = positions.get(positionKey(leaf, port));
        return b == null ? -1 : b;
    }

    /**
     * @param leaf switch name
     * @return the bit index of its slot 0, or -1 if the leaf has no coordinates
     */
    public int leafPrefix(String leaf) {
        Integer b = leaves.get(leaf);
        return b == null ? -1 : b;
    }

    /**
     * @param bit a bit index
     * @return the position key holding it, or null
     */
    public String positionOf(int bit) {
        return byBit.get(bit);
    }

    /**
     * The bit index of every host of a snapshot, for fast lookups on the compile path.
     *
     * @param fabric the snapshot
     * @return per host index, its bit index or -1
     */
    public int[] hostBits(FabricSnapshot fabric) {
        int[] bits = new int[fabric.hostCount()];
        for (int h = 0; h < bits.length; h++) {
            bits[h] = bitOf(fabric.switchName(fabric.hostSwitch(h)), fabric.hostPort(h));
        }
        return bits;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof BitIndexTable)) {
            return false;
        }
        BitIndexTable t = (BitIndexTable) o;
        return geometry.equals(t.geometry) && leaves.equals(t.leaves) && positions.equals(t.positions);
    }

    @Override
    public int hashCode() {
        return Objects.hash(geometry, leaves, positions);
    }

    @Override
    public String toString() {
        return "BitIndexTable{" + geometry + ", leaves=" + leaves.size() + ", positions=" + positions.size()
                + ", overflow=" + overflow.size() + "}";
    }
}
