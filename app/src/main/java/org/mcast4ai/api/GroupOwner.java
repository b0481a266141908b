package org.mcast4ai.api;

import java.util.Objects;

/**
 * Which instance of the cluster programs a group: the leader of the work partition its id hashes to, as ONOS's
 * work partition service says. Only that instance compiles the group and writes its entries; the others serve
 * reads.
 */
public final class GroupOwner {
    private final P2mpGroupId group;
    private final String instance;
    private final boolean here;

    /**
     * @param group    the group
     * @param instance the owning instance's node id; null when the cluster has no leader for its partition yet
     * @param here     true if the instance answering is the owner
     */
    public GroupOwner(P2mpGroupId group, String instance, boolean here) {
        this.group = Objects.requireNonNull(group);
        this.instance = instance;
        this.here = here;
    }

    /** @return the group */
    public P2mpGroupId group() {
        return group;
    }

    /** @return the owning instance's node id; null while its partition has no leader */
    public String instance() {
        return instance;
    }

    /** @return true if the instance answering owns it */
    public boolean here() {
        return here;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GroupOwner)) {
            return false;
        }
        GroupOwner g = (GroupOwner) o;
        return g.group.equals(group) && Objects.equals(g.instance, instance) && g.here == here;
    }

    @Override
    public int hashCode() {
        return Objects.hash(group, instance, here);
    }

    @Override
    public String toString() {
        return "group " + group.value() + " owner " + instance + (here ? " (here)" : "");
    }
}
