package org.mcast4ai.impl.program;

import org.mcast4ai.api.P2mpGroup;
import org.onosproject.net.group.GroupKey;

import java.util.Set;

/**
 * A programmer whose device entries hold ONOS groups of their own (a P4 stamp's multicast group), so that the
 * orphan sweep can tell which of the app's groups nothing needs.
 */
public interface GroupWriter {

    /**
     * @param group the group
     * @param entry one of its device entries
     * @return the keys of the ONOS groups the entry holds on its device
     */
    Set<GroupKey> groupKeys(P2mpGroup group, DeviceEntry entry);

    /**
     * @param key a key of an ONOS group under the app's id
     * @return true if this programmer writes groups under such keys (for a group's entries, never for static state)
     */
    boolean writes(GroupKey key);
}
