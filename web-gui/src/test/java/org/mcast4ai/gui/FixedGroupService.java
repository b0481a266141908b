package org.mcast4ai.gui;

import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupListener;
import org.mcast4ai.api.P2mpGroupService;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** A group service over a fixed list of groups. */
class FixedGroupService implements P2mpGroupService {
    private final List<P2mpGroup> groups = new ArrayList<>();

    FixedGroupService(List<P2mpGroup> groups) {
        this.groups.addAll(groups);
    }

    @Override
    public Optional<P2mpGroup> getGroup(P2mpGroupId id) {
        return groups.stream().filter(g -> g.id().equals(id)).findFirst();
    }

    @Override
    public Optional<P2mpGroup> getGroup(GroupKey key) {
        return groups.stream().filter(g -> g.key().equals(key)).findFirst();
    }

    @Override
    public Collection<P2mpGroup> getGroups() {
        return List.copyOf(groups);
    }

    @Override
    public Collection<P2mpGroup> getGroups(String tenant, String jobId, GroupState state) {
        throw new UnsupportedOperationException("the table lists every group");
    }

    @Override
    public GroupPlan getInstalledPlan(P2mpGroupId id) {
        throw new UnsupportedOperationException("the table does not show plans");
    }

    @Override
    public int groupCount() {
        return groups.size();
    }

    @Override
    public void addListener(P2mpGroupListener listener) {
    }

    @Override
    public void removeListener(P2mpGroupListener listener) {
    }
}
