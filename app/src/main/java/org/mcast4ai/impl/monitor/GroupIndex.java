package org.mcast4ai.impl.monitor;

import com.google.common.collect.ImmutableSet;
import org.mcast4ai.api.GroupPlan;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.LinkKey;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which groups depend on which devices, links and hosts, so that a topology event re-compiles only the
 * groups it affects. Built from the plans this instance computed (and, after a restart or a partition
 * change, from the installed plans in the store). Thread-safe without a global lock: the installer lanes
 * index different groups at the same time (with a global lock, two lanes were blocked on it for about
 * 0.8 s of a 64-receiver churn run), so each device's group set is changed atomically in its map bin, and one
 * group's changes are serialized by a lock striped by group id. Lookups are weakly consistent, which is
 * enough for topology events: a group compiled while an event is handled compiles on the new snapshot
 * anyway. A device's set is a plain set touched only inside its map bin (a concurrent set per key cost a
 * fifth of the installer lanes' time in 64-receiver churn, most of it resizing), a re-indexed group
 * changes only the devices that differ, and links are read from the plan when a link event asks.
 *
 * <p>Hosts are not indexed by key: a group names many more hosts than it has switches, host events are rare
 * next to group changes, and keeping a set per host cost a tenth of a 64-receiver churn cycle. A host event
 * looks through the groups' host sets instead ({@link #byHosts}, once for all hosts of an event burst).
 */
public final class GroupIndex {
    private static final int STRIPES = 64;

    private final Map<DeviceId, Set<Long>> byDevice = new ConcurrentHashMap<>();
    private final Map<Long, Entry> entries = new ConcurrentHashMap<>();
    private final Object[] stripes = new Object[STRIPES];

    private static final class Entry {
        final Long group;
        final Set<DeviceId> devices;
        final List<ConnectPoint[]> links;
        final Set<HostId> hosts;
        // built on the first link event that asks (every event of a failure burst asks again)
        private volatile Set<LinkKey> linkKeys;

        Entry(Long group, GroupPlan plan, Set<HostId> hosts) {
            this.group = group;
            this.devices = plan.branches().keySet();
            this.links = plan.links();
            this.hosts = ImmutableSet.copyOf(hosts);
        }

        boolean uses(LinkKey link) {
            Set<LinkKey> keys = linkKeys;
            if (keys == null) {
                ImmutableSet.Builder<LinkKey> b = ImmutableSet.builder();
                for (ConnectPoint[] l : links) {
                    b.add(LinkKey.linkKey(l[0], l[1]));
                }
                keys = b.build();
                linkKeys = keys;
            }
            return keys.contains(link) || keys.contains(LinkKey.linkKey(link.dst(), link.src()));
        }
    }

    public GroupIndex() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
    }

    private Object lockOf(long group) {
        return stripes[(int) Long.remainderUnsigned(group, STRIPES)];
    }

    /**
     * Replaces what a group depends on.
     *
     * @param group group id
     * @param plan  the group's plan
     * @param hosts hosts the group names (source and receivers)
     */
    public void put(long group, GroupPlan plan, Set<HostId> hosts) {
        synchronized (lockOf(group)) {
            Entry old = entries.get(group);
            Entry e = new Entry(old != null ? old.group : Long.valueOf(group), plan, hosts);
            entries.put(group, e);
            if (old == null) {
                e.devices.forEach(d -> add(byDevice, d, e.group));
                return;
            }
            change(byDevice, old.devices, e.devices, e.group);
        }
    }

    private static <K> void change(Map<K, Set<Long>> index, Set<K> was, Set<K> now, Long group) {
        if (was.equals(now)) {
            return;
        }
        for (K k : was) {
            if (!now.contains(k)) {
                drop(index, k, group);
            }
        }
        for (K k : now) {
            if (!was.contains(k)) {
                add(index, k, group);
            }
        }
    }

    /**
     * Indexes a group from its plan unless it is indexed already (taking over groups: a plan computed here
     * since is newer than the one in the store).
     *
     * @param group group id
     * @param plan  the group's plan (used when the group is not indexed yet)
     * @param hosts hosts to index
     */
    public void putIfAbsent(long group, GroupPlan plan, Set<HostId> hosts) {
        synchronized (lockOf(group)) {
            if (!entries.containsKey(group)) {
                put(group, plan, hosts);
            }
        }
    }

    /** @param group group id to forget */
    public void remove(long group) {
        synchronized (lockOf(group)) {
            Entry e = entries.remove(group);
            if (e != null) {
                e.devices.forEach(d -> drop(byDevice, d, e.group));
            }
        }
    }

    // both inside the key's map bin, and the plain set is only ever touched under that bin's lock. An emptied
    // set stays mapped (unmapping and re-creating the sets of busy keys made the lanes contend on the map's
    // size counter); a lookup, which a host or device event makes, unmaps it
    private static <K> void add(Map<K, Set<Long>> index, K key, Long group) {
        index.compute(key, (k, set) -> {
            Set<Long> s = set != null ? set : new HashSet<>();
            s.add(group);
            return s;
        });
    }

    private static <K> void drop(Map<K, Set<Long>> index, K key, Long group) {
        index.computeIfPresent(key, (k, set) -> {
            set.remove(group);
            return set;
        });
    }

    private static <K> Set<Long> copy(Map<K, Set<Long>> index, K key) {
        List<Set<Long>> out = new ArrayList<>(1);
        index.computeIfPresent(key, (k, set) -> {
            out.add(ImmutableSet.copyOf(set));
            return set.isEmpty() ? null : set;
        });
        return out.isEmpty() ? ImmutableSet.of() : out.get(0);
    }

    /**
     * @param device device
     * @return groups with a branch on it
     */
    public Set<Long> byDevice(DeviceId device) {
        return copy(byDevice, device);
    }

    /**
     * @param link link (either direction matches)
     * @return groups whose tree uses it
     */
    public Set<Long> byLink(LinkKey link) {
        // links change rarely and groups often: no link index to maintain per group, the groups of either end
        // device are checked instead
        ImmutableSet.Builder<Long> b = ImmutableSet.builder();
        for (DeviceId end : List.of(link.src().deviceId(), link.dst().deviceId())) {
            for (long g : byDevice(end)) {
                Entry e = entries.get(g);
                if (e != null && e.uses(link)) {
                    b.add(g);
                }
            }
        }
        return b.build();
    }

    /**
     * @param hosts hosts
     * @return groups naming any of them as source or receiver (one pass over the groups)
     */
    public Set<Long> byHosts(Set<HostId> hosts) {
        if (hosts.isEmpty()) {
            return ImmutableSet.of();
        }
        ImmutableSet.Builder<Long> b = ImmutableSet.builder();
        for (Entry e : entries.values()) {
            if (names(e.hosts, hosts)) {
                b.add(e.group);
            }
        }
        return b.build();
    }

    private static boolean names(Set<HostId> named, Set<HostId> hosts) {
        Set<HostId> small = hosts.size() <= named.size() ? hosts : named;
        Set<HostId> large = small == hosts ? named : hosts;
        for (HostId h : small) {
            if (large.contains(h)) {
                return true;
            }
        }
        return false;
    }

    /** @return number of indexed groups */
    public int size() {
        return entries.size();
    }
}
