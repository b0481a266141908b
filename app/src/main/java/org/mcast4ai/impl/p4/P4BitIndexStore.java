package org.mcast4ai.impl.p4;

import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.FabricGeometry;
import org.mcast4ai.impl.store.MapSerializer;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;

import java.util.HashMap;
import java.util.Map;

/**
 * The P4 fabric's bit indices (the geometry, each leaf's number, each host position's bit) in ONOS's store.
 *
 * <p>The switches' static entries and every header a sender wrote name these bits, so they must outlive the
 * instance that chose them: a restart or a takeover that allocated afresh from the fabric of that moment (a leaf
 * down, a host not yet learnt) would number the leaves differently and deliver old headers to the wrong racks.
 * Entries are only ever added: a leaf or a position that has gone keeps its number for its return. The same store
 * keeps each uplink port's index in the program ({@link P4UplinkIndices}), for the same reason.
 */
final class P4BitIndexStore {
    static final String NAME = "mcast4ai-p4-bit-indices";
    private static final String THREE_TIER = "geometry/three-tier";
    private static final String PODS = "geometry/pods";
    private static final String LEAVES_PER_POD = "geometry/leaves-per-pod";
    private static final String SLOTS_PER_LEAF = "geometry/slots-per-leaf";
    private static final String LEAF = "leaf/";
    private static final String POSITION = "position/";
    private static final String UPLINK = "uplink/";

    private final ConsistentMap<String, Integer> map;

    /** @param storage ONOS's storage service */
    P4BitIndexStore(StorageService storage) {
        map = storage.<String, Integer>consistentMapBuilder().withName(NAME)
                .withSerializer(MapSerializer.get()).build();
    }

    /** @return the stored table, or null if none was stored yet */
    BitIndexTable load() {
        Map<String, Integer> all = new HashMap<>();
        for (Map.Entry<String, Versioned<Integer>> e : map.entrySet()) {
            all.put(e.getKey(), e.getValue().value());
        }
        if (!all.containsKey(PODS) || !all.containsKey(LEAVES_PER_POD) || !all.containsKey(SLOTS_PER_LEAF)
                || !all.containsKey(THREE_TIER)) {
            return null;
        }
        FabricGeometry geometry = new FabricGeometry(all.get(THREE_TIER) != 0, all.get(PODS),
                all.get(LEAVES_PER_POD), all.get(SLOTS_PER_LEAF));
        Map<String, Integer> leaves = new HashMap<>();
        Map<String, Integer> positions = new HashMap<>();
        all.forEach((k, v) -> {
            if (k.startsWith(LEAF)) {
                leaves.put(k.substring(LEAF.length()), v);
            } else if (k.startsWith(POSITION)) {
                positions.put(k.substring(POSITION.length()), v);
            }
        });
        return BitIndexTable.of(geometry, leaves, positions);
    }

    /**
     * Adds what the table has beyond what was stored (the geometry first, so a reader never sees numbers without
     * it).
     *
     * @param table  the table in use
     * @param stored what the store held when the table was derived from it (null: nothing)
     * @return false if another instance stored a different number for one of them meanwhile (reload the table)
     */
    boolean save(BitIndexTable table, BitIndexTable stored) {
        boolean same = true;
        if (stored == null) {
            FabricGeometry g = table.geometry();
            same &= put(THREE_TIER, g.threeTier() ? 1 : 0);
            same &= put(PODS, g.pods());
            same &= put(LEAVES_PER_POD, g.leavesPerPod());
            same &= put(SLOTS_PER_LEAF, g.slotsPerLeaf());
        }
        Map<String, Integer> oldLeaves = stored == null ? Map.of() : stored.leaves();
        Map<String, Integer> oldPositions = stored == null ? Map.of() : stored.positions();
        for (Map.Entry<String, Integer> e : table.leaves().entrySet()) {
            if (!oldLeaves.containsKey(e.getKey())) {
                same &= put(LEAF + e.getKey(), e.getValue());
            }
        }
        for (Map.Entry<String, Integer> e : table.positions().entrySet()) {
            if (!oldPositions.containsKey(e.getKey())) {
                same &= put(POSITION + e.getKey(), e.getValue());
            }
        }
        return same;
    }

    /** @return the uplinks' indices stored ({@link P4UplinkIndices#key} to index) */
    Map<String, Integer> uplinks() {
        Map<String, Integer> out = new HashMap<>();
        for (Map.Entry<String, Versioned<Integer>> e : map.entrySet()) {
            if (e.getKey().startsWith(UPLINK)) {
                out.put(e.getKey().substring(UPLINK.length()), e.getValue().value());
            }
        }
        return out;
    }

    /**
     * @param added uplinks' indices given since the last save ({@link P4UplinkIndices#added})
     * @return false if another instance stored a different index for one of them meanwhile
     */
    boolean saveUplinks(Map<String, Integer> added) {
        boolean same = true;
        for (Map.Entry<String, Integer> e : added.entrySet()) {
            same &= put(UPLINK + e.getKey(), e.getValue());
        }
        return same;
    }

    private boolean put(String key, int value) {
        Versioned<Integer> was = map.putIfAbsent(key, value);
        return was == null || was.value() == value;
    }
}
