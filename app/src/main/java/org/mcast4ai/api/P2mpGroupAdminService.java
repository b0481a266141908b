package org.mcast4ai.api;

import java.util.Set;

/**
 * Write access to P2MP groups. Every method validates fully before it changes anything: a refused call
 * throws {@link GroupException} and leaves every group as it was.
 */
public interface P2mpGroupAdminService extends P2mpGroupService {

    /**
     * Submits a group; the app assigns its id and address, then compiles and installs it asynchronously.
     *
     * @param request the group
     * @return the stored group (state SUBMITTED or later)
     * @throws GroupException INVALID (unknown host, bad request), CONFLICT (duplicate key), LIMIT (pool or
     *                        configured limit exhausted)
     */
    P2mpGroup submit(P2mpGroupRequest request);

    /**
     * Adds receivers; only devices whose branches change are touched.
     *
     * @param id        group id
     * @param receivers receivers to add (none already in the group)
     * @return the updated group
     */
    P2mpGroup addReceivers(P2mpGroupId id, Set<Endpoint> receivers);

    /**
     * Removes receivers; at least one receiver must remain (withdraw the group instead).
     *
     * @param id        group id
     * @param receivers receivers to remove (all in the group)
     * @return the updated group
     */
    P2mpGroup removeReceivers(P2mpGroupId id, Set<Endpoint> receivers);

    /**
     * Withdraws a group: removes everything it installed; the record stays as WITHDRAWN until purged.
     *
     * @param id group id
     * @return the group (WITHDRAWING or WITHDRAWN)
     */
    P2mpGroup withdraw(P2mpGroupId id);

    /**
     * Removes a withdrawn (or failed) group's record and frees its key and address.
     *
     * @param id group id
     */
    void purge(P2mpGroupId id);

    /**
     * Re-compiles and re-installs a group against the current fabric.
     *
     * @param id group id
     * @return the group
     */
    P2mpGroup recompile(P2mpGroupId id);

    /**
     * Takes an aggregation point's report for an ACK_AGGREGATION group: its counters are kept for readers, and
     * a change of the receivers it stopped waiting for changes the group (DEGRADED while any is stalled).
     *
     * @param id     group id
     * @param report the report
     * @throws GroupException NOT_FOUND for an unknown id, CONFLICT if the group has no virtual peer or is not
     *                        live, INVALID for a stalled receiver the group does not have
     */
    default void reportAggregation(P2mpGroupId id, AggregationReport report) {
        throw GroupException.conflict("this group service does not aggregate ACKs");
    }
}
