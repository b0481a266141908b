package org.mcast4ai.impl.monitor;

import com.google.common.collect.ImmutableSet;
import org.mcast4ai.api.GroupPlan;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.LinkKey;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which groups depend on which devices, links and hosts, so that a topology event re-compiles only the
 * groups it affects. Built from the plans this instance computed (and, after a restart or a partition
 * change, from the installed plans in the store). Thread-safe without a global lock: the installer lanes
 * index different groups at the same time (with a global lock, two lanes were blocked on it for about
 * 0.8 s of a 64-receiver churn run), so each key's group set is changed atomically in its map bin, and one
 * group's changes are serialized by a lock striped by group id. Lookups are weakly consistent, which is
 * enough for topology events: a group compiled while an event is handled compiles on the new snapshot
 * anyway.
 */
public final class GroupIndex {
    private static final int STRIPES = 64;

    private final Map<DeviceId, Set<Long>> byDevice = new ConcurrentHashMap<>();
    private final Map<HostId, Set<Long>> byHost = new ConcurrentHashMap<>();
    private final Map<Long, Entry> entries = new ConcurrentHashMap<>();
    private final Object[] stripes = new Object[STRIPES];

    private static final class Entry {
        public final Set<DeviceId> devices;
        public final Set<LinkKey> links;
        public final Set<HostId> hosts;

        public Entry(Set<DeviceId> devices, Set<LinkKey> links, Set<HostId> hosts) {
            this.devices = devices;
            this.links = links;
            this.hosts = hosts;
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
            removeLocked(group);
            ImmutableSet.Builder<LinkKey> links = ImmutableSet.builder();
            for (ConnectPoint[] l : plan.links()) {
                links.add(LinkKey.linkKey(l[0], l[1]));
            }
            Entry e = new Entry(ImmutableSet.copyOf(plan.branches().keySet()), links.build(),
                    ImmutableSet.copyOf(hosts));
            entries.put(group, e);
            e.devices.forEach(d -> add(byDevice, d, group));
            e.hosts.forEach(h -> add(byHost, h, group));
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
            removeLocked(group);
        }
    }

    private void removeLocked(long group) {
        Entry e = entries.remove(group);
        if (e != null) {
            e.devices.forEach(d -> drop(byDevice, d, group));
            e.hosts.forEach(h -> drop(byHost, h, group));
        }
    }

    // both inside the key's map bin, so an add never lands in a set a concurrent drop just unmapped
    private static <K> void add(Map<K, Set<Long>> index, K key, long group) {
        index.compute(key, (k, set) -> {
            Set<Long> s = set != null ? set : ConcurrentHashMap.newKeySet();
            s.add(group);
            return s;
        });
    }

    private static <K> void drop(Map<K, Set<Long>> index, K key, long group) {
        index.computeIfPresent(key, (k, set) -> {
            set.remove(group);
            return set.isEmpty() ? null : set;
        });
    }

    /**
     * @param device device
     * @return groups with a branch on it
     */
    public Set<Long> byDevice(DeviceId device) {
        return ImmutableSet.copyOf(byDevice.getOrDefault(device, Set.of()));
    }

    /**
     * @param link link (either direction matches)
     * @return groups whose tree uses it
     */
    public Set<Long> byLink(LinkKey link) {
        // links change rarely and groups often: no link index to maintain per group, the groups of either end
        // device are checked instead
        LinkKey reverse = LinkKey.linkKey(link.dst(), link.src());
        ImmutableSet.Builder<Long> b = ImmutableSet.builder();
        for (DeviceId end : List.of(link.src().deviceId(), link.dst().deviceId())) {
            for (long g : byDevice.getOrDefault(end, Set.of())) {
                Entry e = entries.get(g);
                if (e != null && (e.links.contains(link) || e.links.contains(reverse))) {
                    b.add(g);
                }
            }
        }
        return b.build();
    }

    /**
     * @param host host
     * @return groups naming it as source or receiver
     */
    public Set<Long> byHost(HostId host) {
        return ImmutableSet.copyOf(byHost.getOrDefault(host, Set.of()));
    }

    /** @return number of indexed groups */
    public int size() {
        return entries.size();
    }
}
