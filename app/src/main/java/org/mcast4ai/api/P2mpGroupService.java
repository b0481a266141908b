package org.mcast4ai.api;

import org.onosproject.event.ListenerService;

import java.util.Collection;
import java.util.Optional;

/** Read access to P2MP groups: for schedulers, operators, dashboards. */
public interface P2mpGroupService extends ListenerService<P2mpGroupEvent, P2mpGroupListener> {

    /**
     * @param id group id
     * @return the group, if it exists
     */
    Optional<P2mpGroup> getGroup(P2mpGroupId id);

    /**
     * @param key tenant + name
     * @return the group with that key, if it exists
     */
    Optional<P2mpGroup> getGroup(GroupKey key);

    /** @return all groups, in id order */
    Collection<P2mpGroup> getGroups();

    /**
     * @param tenant tenant to match, or null for any
     * @param jobId  job id to match, or null for any
     * @param state  state to match, or null for any
     * @return matching groups, in id order
     */
    Collection<P2mpGroup> getGroups(String tenant, String jobId, GroupState state);

    /**
     * @param id group id
     * @return the plan installed for the group (empty plan if none)
     */
    GroupPlan getInstalledPlan(P2mpGroupId id);

    /** @return the number of groups held (any state) */
    int groupCount();

    /**
     * The bit map of a group replicated as BITMAP: receiver to bit and the stamp addressing the whole group.
     *
     * @param id group id
     * @return the group's bit map
     * @throws GroupException NOT_FOUND if there is no such group, CONFLICT if it is not replicated as BITMAP
     */
    default GroupBitmap getBitmap(P2mpGroupId id) {
        throw GroupException.conflict("this group service does not provide bit maps");
    }

    /**
     * What a BITMAP group uses on the switches: its stamp at the source leaf and the static tables.
     *
     * @param id group id
     * @return the plan, or empty if the group holds no stamp (not BITMAP, or nothing installed yet)
     */
    default java.util.Optional<BitmapPlan> getBitmapPlan(P2mpGroupId id) {
        return java.util.Optional.empty();
    }

    /**
     * @param id group id
     * @return the group's stamp at its source leaf, when it is replicated by P4 switches and installed
     */
    default java.util.Optional<StampPlan> getStampPlan(P2mpGroupId id) {
        return java.util.Optional.empty();
    }

    /**
     * @param id group id
     * @return the instance that programs it (the leader of its work partition)
     * @throws GroupException NOT_FOUND if there is no such group
     */
    default GroupOwner owner(P2mpGroupId id) {
        throw GroupException.conflict("this group service does not tell which instance owns a group");
    }

    /**
     * Where a group's packets go now: one packet followed through what its record says the switches hold (the
     * tree's rules; for BITMAP the static tables and the group's stamp), over the fabric as ONOS sees it.
     *
     * @param id group id
     * @return per device its role, ports and header part, the links crossed, the path to each receiver reached
     * @throws GroupException NOT_FOUND if there is no such group
     */
    default GroupTree tree(P2mpGroupId id) {
        throw GroupException.conflict("this group service does not trace groups");
    }

    /** @return what the reconcile loop (audits, repairs, orphan removal) has done on this instance */
    default ReconcileCounters reconcileCounters() {
        return new ReconcileCounters(0, 0, 0);
    }

    /**
     * @param id an ACK_AGGREGATION group
     * @return its aggregation context (virtual peer, sender, receivers, last report); empty for an unknown group
     * @throws GroupException CONFLICT if the group is not ACK_AGGREGATION
     */
    default java.util.Optional<AggregationContext> getAggregation(P2mpGroupId id) {
        return java.util.Optional.empty();
    }
}
