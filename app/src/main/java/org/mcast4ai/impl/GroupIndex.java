package org.mcast4ai.impl;

import com.google.common.collect.HashMultimap;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.SetMultimap;
import org.mcast4ai.api.GroupPlan;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.LinkKey;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which groups depend on which devices, links and hosts, so that a topology event re-compiles only the
 * groups it affects. Built from the plans this instance computed (and, after a restart or a partition
 * change, from the installed plans in the store). Thread-safe.
 */
final class GroupIndex {
    private final SetMultimap<DeviceId, Long> byDevice = HashMultimap.create();
    private final SetMultimap<HostId, Long> byHost = HashMultimap.create();
    private final Map<Long, Entry> entries = new HashMap<>();

    private static final class Entry {
        final Set<DeviceId> devices;
        final Set<LinkKey> links;
        final Set<HostId> hosts;

        Entry(Set<DeviceId> devices, Set<LinkKey> links, Set<HostId> hosts) {
            this.devices = devices;
            this.links = links;
            this.hosts = hosts;
        }
    }

    /**
     * Replaces what a group depends on.
     *
     * @param group group id
     * @param plan  the group's plan
     * @param hosts hosts the group names (source and receivers)
     */
    synchronized void put(long group, GroupPlan plan, Set<HostId> hosts) {
        remove(group);
        ImmutableSet.Builder<LinkKey> links = ImmutableSet.builder();
        for (ConnectPoint[] l : plan.links()) {
            links.add(LinkKey.linkKey(l[0], l[1]));
        }
        Entry e = new Entry(ImmutableSet.copyOf(plan.branches().keySet()), links.build(),
                ImmutableSet.copyOf(hosts));
        entries.put(group, e);
        e.devices.forEach(d -> byDevice.put(d, group));
        e.hosts.forEach(h -> byHost.put(h, group));
    }

    /**
     * Adds hosts to what a group depends on, keeping its devices and links.
     *
     * @param group group id
     * @param plan  the group's plan (used when the group is not indexed yet)
     * @param hosts hosts to add
     */
    synchronized void putIfAbsent(long group, GroupPlan plan, Set<HostId> hosts) {
        if (!entries.containsKey(group)) {
            put(group, plan, hosts);
        }
    }

    /** @param group group id to forget */
    synchronized void remove(long group) {
        Entry e = entries.remove(group);
        if (e != null) {
            e.devices.forEach(d -> byDevice.remove(d, group));
            e.hosts.forEach(h -> byHost.remove(h, group));
        }
    }

    /**
     * @param device device
     * @return groups with a branch on it
     */
    synchronized Set<Long> byDevice(DeviceId device) {
        return ImmutableSet.copyOf(byDevice.get(device));
    }

    /**
     * @param link link (either direction matches)
     * @return groups whose tree uses it
     */
    synchronized Set<Long> byLink(LinkKey link) {
        // links change rarely and groups often: no link index to maintain per group, the groups of either end
        // device are checked instead
        LinkKey reverse = LinkKey.linkKey(link.dst(), link.src());
        ImmutableSet.Builder<Long> b = ImmutableSet.builder();
        for (DeviceId end : List.of(link.src().deviceId(), link.dst().deviceId())) {
            for (long g : byDevice.get(end)) {
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
    synchronized Set<Long> byHost(HostId host) {
        return ImmutableSet.copyOf(byHost.get(host));
    }

    /** @return number of indexed groups */
    synchronized int size() {
        return entries.size();
    }
}
