package org.mcast4ai.impl.p4;

import org.onosproject.net.DeviceId;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which of the program's uplink indices each uplink port of a P4 switch holds: given once, kept while the port is
 * down and after it comes back.
 *
 * <p>A switch sends a copy up the uplink whose index its ingress chose ({@code set_uplinks}' reach sets), and its
 * egress keeps the copy on the port whose {@code out_port} entry names that index. Numbered by position among the
 * uplinks that are up, a link going down or coming back moved the other uplinks' indices: their {@code out_port}
 * entries and the reach sets are separate writes, and between them two ports held the same index, so a packet went
 * up both (measured: 14 duplicates when a fat tree's source edge got an uplink back). With indices that never move,
 * a port's entry is only ever added or removed, and a copy goes up exactly one port at every moment.
 *
 * <p>A new uplink takes the lowest index its switch does not hold. Not thread-safe: the P4 fabric's loop owns it.
 */
final class P4UplinkIndices {
    private final Map<DeviceId, TreeMap<Long, Integer>> byDevice = new HashMap<>();
    private final Map<String, Integer> added = new HashMap<>();

    /**
     * @param stored what the store held, as {@link #key} to index
     */
    P4UplinkIndices(Map<String, Integer> stored) {
        stored.forEach((k, v) -> {
            int at = k.lastIndexOf('/');
            byDevice.computeIfAbsent(DeviceId.deviceId(k.substring(0, at)), d -> new TreeMap<>())
                    .put(Long.parseLong(k.substring(at + 1)), v);
        });
    }

    /** Positional indices, as a fabric planned once with every link up numbers them. */
    P4UplinkIndices() {
        this(Map.of());
    }

    /**
     * @param d    a device
     * @param port one of its ports
     * @return the store's key for the port's index
     */
    static String key(DeviceId d, long port) {
        return d + "/" + port;
    }

    /**
     * @param d   a switch
     * @param ups its uplink ports now, in the planner's order
     * @return their indices: the ones they held, a new uplink the lowest free one (recorded in {@link #added})
     */
    int[] assign(DeviceId d, long[] ups) {
        TreeMap<Long, Integer> held = byDevice.computeIfAbsent(d, x -> new TreeMap<>());
        int[] out = new int[ups.length];
        for (int i = 0; i < ups.length; i++) {
            Integer had = held.get(ups[i]);
            if (had == null) {
                int free = 0;
                while (held.containsValue(free)) {
                    free++;
                }
                had = free;
                held.put(ups[i], had);
                added.put(key(d, ups[i]), had);
            }
            out[i] = had;
        }
        return out;
    }

    /** @return indices given since the last call, as {@link #key} to index (for the store); then forgets them */
    Map<String, Integer> added() {
        Map<String, Integer> out = Map.copyOf(added);
        added.clear();
        return out;
    }
}
