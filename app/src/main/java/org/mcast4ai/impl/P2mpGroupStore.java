package org.mcast4ai.impl;

import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.impl.bitmap.BitmapStamp;
import org.onlab.packet.IpPrefix;
import org.onosproject.store.Store;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Cluster-wide state of P2MP groups: the group records (immutable values), the key and address indices,
 * and the plan each group has installed. Changes become {@link P2mpGroupEvent}s for the delegate on every
 * instance.
 */
public interface P2mpGroupStore extends Store<P2mpGroupEvent, P2mpGroupStoreDelegate> {

    /**
     * Atomically assigns an id and an address and stores a new group in state SUBMITTED.
     *
     * @param request    the validated request
     * @param pool       IPv4 multicast prefix to allocate the group's address from
     * @param timeMillis submission time
     * @return the stored group
     * @throws org.mcast4ai.api.GroupException CONFLICT if the key is taken, LIMIT if the pool is exhausted
     */
    P2mpGroup create(P2mpGroupRequest request, IpPrefix pool, long timeMillis);

    /**
     * @param id group id
     * @return the group, if stored
     */
    Optional<P2mpGroup> get(P2mpGroupId id);

    /**
     * @param key tenant + name
     * @return the group with that key, if stored
     */
    Optional<P2mpGroup> get(GroupKey key);

    /** @return every stored group (any order) */
    Collection<P2mpGroup> getAll();

    /**
     * Applies a change to the current value, retrying on concurrent updates. The change may throw a
     * {@link org.mcast4ai.api.GroupException} to refuse (nothing is written) or return its argument
     * unchanged (nothing is written either).
     *
     * @param id     group id
     * @param change function from the current value to the new one
     * @return the value after the change
     * @throws org.mcast4ai.api.GroupException NOT_FOUND if there is no such group
     */
    P2mpGroup update(P2mpGroupId id, UnaryOperator<P2mpGroup> change);

    /**
     * Removes a group's record and frees its key, address and installed plan.
     *
     * @param id group id
     * @return the removed group, if there was one
     */
    Optional<P2mpGroup> remove(P2mpGroupId id);

    /**
     * @param id group id
     * @return the plan the switches acknowledged for the group (empty if none)
     */
    GroupPlan installedPlan(P2mpGroupId id);

    /**
     * Records what the switches hold for a group; an empty plan clears the record.
     *
     * @param id   group id
     * @param plan the plan
     */
    void setInstalledPlan(P2mpGroupId id, GroupPlan plan);

    /**
     * @param id group id
     * @return entries that may be on the switches without acknowledgement: the targets of batches sent
     *         and not confirmed (empty if none)
     */
    GroupPlan uncertainPlan(P2mpGroupId id);

    /**
     * Records the entries a batch about to be sent may leave on the switches (written before the batch, so
     * that a failure or a restart never loses track of them); an empty plan clears the record.
     *
     * @param id   group id
     * @param plan the plan
     */
    void setUncertainPlan(P2mpGroupId id, GroupPlan plan);

    /** @return every non-empty installed plan by group */
    Map<P2mpGroupId, GroupPlan> installedPlans();

    /** @return every group's uncertain plan (groups without one are left out) */
    Map<P2mpGroupId, GroupPlan> uncertainPlans();

    /**
     * @param tenant tenant
     * @return how many groups (any state) the tenant holds
     */
    int tenantGroupCount(String tenant);

    /**
     * @param id group id
     * @return the BITMAP stamp the source leaf acknowledged for the group, or null
     */
    BitmapStamp installedStamp(P2mpGroupId id);

    /**
     * Records the BITMAP stamp the source leaf holds for a group; null clears the record.
     *
     * @param id    group id
     * @param stamp the stamp, or null
     */
    void setInstalledStamp(P2mpGroupId id, BitmapStamp stamp);

    /**
     * @param id group id
     * @return the target of a stamp batch sent and not acknowledged (written before sending), or null
     */
    BitmapStamp uncertainStamp(P2mpGroupId id);

    /**
     * Records the stamp a batch about to be sent may leave on the source leaf; null clears the record.
     *
     * @param id    group id
     * @param stamp the stamp, or null
     */
    void setUncertainStamp(P2mpGroupId id, BitmapStamp stamp);

    /** @return every installed BITMAP stamp by group */
    Map<P2mpGroupId, BitmapStamp> installedStamps();

    /**
     * Stable receiver position indices (the bit index table's entries): positions seen before keep their
     * index; new ones get the lowest free index. Positions are never renumbered, so a host arriving or moving
     * does not change the bits of other receivers.
     *
     * @param positions position keys ({@code leaf/port}) of the current fabric
     * @return every known position's index (including positions no longer in the fabric)
     */
    Map<String, Integer> bitPositions(Collection<String> positions);
}
