package org.mcast4ai.testing;

import org.onosproject.core.ApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.group.DefaultGroup;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupEvent;
import org.onosproject.net.group.GroupKey;
import org.onosproject.net.group.GroupListener;
import org.onosproject.net.group.GroupServiceAdapter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The one group service double of the app's tests and benchmarks: a thread-safe group service whose switches
 * add every group at once (GROUP_ADDED inline, unless {@link #confirm} is off) and that records the calls.
 */
public final class FakeGroupService extends GroupServiceAdapter {
    // thread-safe: the churn benchmark calls it from several installer lanes
    public final Map<String, DefaultGroup> groups = Collections.synchronizedMap(new LinkedHashMap<>());
    public final List<String> added = new CopyOnWriteArrayList<>();
    public final List<String> removed = new CopyOnWriteArrayList<>();
    public final List<String> modified = new CopyOnWriteArrayList<>();
    private final List<GroupListener> listeners = new CopyOnWriteArrayList<>();
    /** False: groups stay PENDING_ADD and no event comes (a switch that never confirms them). */
    public volatile boolean confirm = true;
    /**
     * Whether a switch holds a group: every group in the store, confirmed or not (ONOS sends the group-mod at once;
     * only its ADDED state waits for the statistics poll; one the switch refused leaves the store).
     *
     * @param device the switch
     * @param id     the group id
     * @return true if the switch holds it
     */
    public boolean holds(DeviceId device, GroupId id) {
        synchronized (groups) {
            for (Map.Entry<String, DefaultGroup> e : groups.entrySet()) {
                if (e.getValue().deviceId().equals(device) && e.getValue().id().equals(id)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public Iterable<Group> getGroups(DeviceId deviceId, ApplicationId appId) {
        synchronized (groups) {
            List<Group> out = new java.util.ArrayList<>();
            groups.values().stream().filter(g -> g.deviceId().equals(deviceId) && appId.equals(g.appId()))
                    .forEach(out::add);
            return out;
        }
    }

    @Override
    public void addGroup(GroupDescription d) {
        DefaultGroup g = new DefaultGroup(GroupId.valueOf(d.givenGroupId()), d);
        g.setState(confirm ? Group.GroupState.ADDED : Group.GroupState.PENDING_ADD);
        groups.put(d.deviceId() + "|" + d.appCookie(), g);
        added.add(d.deviceId() + "|" + d.appCookie());
        if (!confirm) {
            return;
        }
        listeners.forEach(l -> l.event(new GroupEvent(GroupEvent.Type.GROUP_ADDED, g)));
    }

    /** The switches confirm, late, every group still PENDING_ADD; from now on they confirm at once. */
    public void confirmAll() {
        confirm = true;
        answer(GroupEvent.Type.GROUP_ADDED);
    }

    /**
     * The switches answer for every group still PENDING_ADD or PENDING_ADD_RETRY (as ONOS's statistics poll
     * reports them); a refused one leaves the store, as ONOS's does.
     *
     * @param type GROUP_ADDED (the group becomes ADDED) or a failure
     */
    public void answer(GroupEvent.Type type) {
        List<DefaultGroup> all;
        synchronized (groups) {
            all = new ArrayList<>(groups.values());
        }
        for (DefaultGroup g : all) {
            if (g.state() == Group.GroupState.PENDING_ADD
                    || g.state() == Group.GroupState.PENDING_ADD_RETRY) {
                g.setState(type == GroupEvent.Type.GROUP_ADDED ? Group.GroupState.ADDED : g.state());
                if (type == GroupEvent.Type.GROUP_ADD_FAILED) {
                    // ONOS's store drops a PENDING_ADD group whose add the switch refused
                    groups.remove(g.deviceId() + "|" + g.appCookie());
                }
                listeners.forEach(l -> l.event(new GroupEvent(type, g)));
            }
        }
    }

    /**
     * ONOS's group audit found a switch's groups missing (it came back empty) and sent them again: they are
     * PENDING_ADD_RETRY, with no event, until a later poll finds them.
     *
     * @param device the switch
     */
    public void sentAgain(DeviceId device) {
        synchronized (groups) {
            groups.values().stream().filter(g -> g.deviceId().equals(device))
                    .forEach(g -> g.setState(Group.GroupState.PENDING_ADD_RETRY));
        }
    }

    /**
     * ONOS's group audit found a switch's ADDED groups on it (a switch that reconnected with its tables): a
     * GROUP_UPDATED for each, as ONOS's store re-puts every group a poll reports.
     *
     * @param device the switch
     */
    public void seenAgain(DeviceId device) {
        List<DefaultGroup> all;
        synchronized (groups) {
            all = new ArrayList<>(groups.values());
        }
        all.stream().filter(g -> g.deviceId().equals(device) && g.state() == Group.GroupState.ADDED)
                .forEach(g -> listeners.forEach(l -> l.event(new GroupEvent(GroupEvent.Type.GROUP_UPDATED, g))));
    }

    @Override
    public Group getGroup(DeviceId deviceId, GroupKey appCookie) {
        return groups.get(deviceId + "|" + appCookie);
    }

    /** Replaces a group's buckets at once, as a switch that accepts the modification (GROUP_UPDATED). */
    @Override
    public void setBucketsForGroup(DeviceId deviceId, GroupKey oldCookie, GroupBuckets buckets, GroupKey newCookie,
                                   ApplicationId appId) {
        DefaultGroup old = groups.remove(deviceId + "|" + oldCookie);
        if (old == null) {
            return;
        }
        DefaultGroup g = new DefaultGroup(old.id(), new DefaultGroupDescription(deviceId, old.type(), buckets,
                newCookie, old.givenGroupId(), old.appId()));
        g.setState(Group.GroupState.ADDED);
        groups.put(deviceId + "|" + newCookie, g);
        modified.add(deviceId + "|" + newCookie);
        listeners.forEach(l -> l.event(new GroupEvent(GroupEvent.Type.GROUP_UPDATED, g)));
    }

    @Override
    public void removeGroup(DeviceId deviceId, GroupKey appCookie, ApplicationId id) {
        removed.add(deviceId + "|" + appCookie);
        groups.remove(deviceId + "|" + appCookie);
    }

    @Override
    public void addListener(GroupListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(GroupListener listener) {
        listeners.remove(listener);
    }
}
