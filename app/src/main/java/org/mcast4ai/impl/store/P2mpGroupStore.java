package org.mcast4ai.impl.store;

import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.impl.program.Programmed;
import org.onlab.packet.IpPrefix;
import org.onosproject.store.Store;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Cluster-wide state of P2MP groups: the group records (immutable values), the key and address indices,
 * and the one record per group of what it has on the switches. Changes become {@link P2mpGroupEvent}s for
 * the delegate on every instance.
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
    default P2mpGroup create(P2mpGroupRequest request, IpPrefix pool, long timeMillis) {
        return create(request, pool, null, timeMillis);
    }

    /**
     * Atomically assigns an id, an address and, to an ACK_AGGREGATION group, its virtual peer, and stores a new
     * group in state SUBMITTED.
     *
     * @param request    the validated request
     * @param pool       IPv4 multicast prefix to allocate the group's address from
     * @param peerPool   IPv4 prefix to allocate virtual peer addresses from
     * @param timeMillis submission time
     * @return the stored group
     * @throws org.mcast4ai.api.GroupException CONFLICT if the key is taken, LIMIT if a pool is exhausted or the
     *                                         source already sends as many ACK_AGGREGATION groups as it can
     */
    P2mpGroup create(P2mpGroupRequest request, IpPrefix pool, IpPrefix peerPool, long timeMillis);

    /**
     * @param id group id
     * @return the group, if stored
     */
    public Optional<P2mpGroup> get(P2mpGroupId id);

    /**
     * @param key tenant + name
     * @return the group with that key, if stored
     */
    public Optional<P2mpGroup> get(GroupKey key);

    /** @return every stored group (any order) */
    public Collection<P2mpGroup> getAll();

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
    public P2mpGroup update(P2mpGroupId id, UnaryOperator<P2mpGroup> change);

    /**
     * Removes a group's record and frees its key, address and installed plan.
     *
     * @param id group id
     * @return the removed group, if there was one
     */
    public Optional<P2mpGroup> remove(P2mpGroupId id);

    /**
     * @param id group id
     * @return what the group has on the switches (acknowledged and maybe half-installed), empty if nothing
     */
    public Programmed programmed(P2mpGroupId id);

    /**
     * Records what a group has on the switches; an empty record is removed. Written before a batch is sent
     * (what it may leave becomes uncertain) and when devices acknowledge, by the group's owner only.
     *
     * @param id     group id
     * @param record the record
     */
    public void setProgrammed(P2mpGroupId id, Programmed record);

    /** @return every non-empty record by group */
    public Map<P2mpGroupId, Programmed> programmedAll();

    /** @return the record of the static BITMAP tables, or null if none was ever sent */
    public StaticTables staticTables();

    /**
     * Records the static BITMAP tables' state (by the instance that programs them).
     *
     * @param tables the record
     */
    public void setStaticTables(StaticTables tables);

    /**
     * @param listener called on every instance, on the store's thread, when the static tables' record changes
     */
    public void addStaticTablesListener(Runnable listener);

    /** @param listener a listener added before */
    public void removeStaticTablesListener(Runnable listener);

    /**
     * @param tenant tenant
     * @return how many groups (any state) the tenant holds
     */
    public int tenantGroupCount(String tenant);

    /**
     * Stable receiver position indices (the bit index table's entries): positions seen before keep their
     * index; new ones get the lowest free index. Positions are never renumbered, so a host arriving or moving
     * does not change the bits of other receivers.
     *
     * @param positions position keys ({@code leaf/port}) of the current fabric
     * @return every known position's index (including positions no longer in the fabric)
     */
    public Map<String, Integer> bitPositions(Collection<String> positions);
}
