package org.mcast4ai.impl;

import org.onosproject.core.ApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.group.DefaultGroup;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupEvent;
import org.onosproject.net.group.GroupKey;
import org.onosproject.net.group.GroupListener;
import org.onosproject.net.group.GroupServiceAdapter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A group service whose switches add every group at once (GROUP_ADDED inline, unless {@link #confirm} is
 * off) and that records the calls.
 */
final class AckingGroupService extends GroupServiceAdapter {
    final Map<String, DefaultGroup> groups = new LinkedHashMap<>();
    final List<String> added = new ArrayList<>();
    final List<String> removed = new ArrayList<>();
    private final List<GroupListener> listeners = new ArrayList<>();
    /** False: groups stay PENDING_ADD and no event comes (a switch that never confirms them). */
    boolean confirm = true;

    @Override
    public void addGroup(GroupDescription d) {
        DefaultGroup g = new DefaultGroup(GroupId.valueOf(d.givenGroupId()), d);
        g.setState(confirm ? Group.GroupState.ADDED : Group.GroupState.PENDING_ADD);
        groups.put(d.deviceId() + "|" + d.appCookie(), g);
        added.add(d.deviceId() + "|" + d.appCookie());
        if (!confirm) {
            return;
        }
        new ArrayList<>(listeners).forEach(l -> l.event(new GroupEvent(GroupEvent.Type.GROUP_ADDED, g)));
    }

    /** The switches confirm, late, every group still PENDING_ADD. */
    void confirmAll() {
        confirm = true;
        for (DefaultGroup g : new ArrayList<>(groups.values())) {
            if (g.state() == Group.GroupState.PENDING_ADD) {
                g.setState(Group.GroupState.ADDED);
                new ArrayList<>(listeners).forEach(l -> l.event(new GroupEvent(GroupEvent.Type.GROUP_ADDED, g)));
            }
        }
    }

    @Override
    public Group getGroup(DeviceId deviceId, GroupKey appCookie) {
        return groups.get(deviceId + "|" + appCookie);
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
