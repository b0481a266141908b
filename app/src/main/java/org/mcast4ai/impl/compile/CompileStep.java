package org.mcast4ai.impl.compile;

import org.mcast4ai.impl.store.P2mpGroupStore;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.FailureKind;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.impl.compile.BitmapReplication.BitmapDecision;

import java.util.Set;
import java.util.function.LongSupplier;

/**
 * One compile of a group, recorded with a single store write: COMPILING and the state compiling led to
 * (INSTALLING, INSTALLED, DEGRADED or FAILED) are appended to the history together, with the replication
 * mode and the unreachable receivers decided. The compile runs on the record as read, so the write happens
 * only if the record is still that version; otherwise whoever changed it has scheduled another reconcile.
 * A compile takes microseconds: writing COMPILING on its own would cost every group one more store write and
 * one more event for a state nobody could act on.
 */
public final class CompileStep {
    private final P2mpGroupStore store;
    private final P2mpGroup read;
    private final String why;
    private final LongSupplier clock;
    private BitmapDecision mode;

    /**
     * @param store the store
     * @param read  the record as read before compiling
     * @param why   what asked for the compile (the COMPILING reason)
     * @param clock wall clock, ms
     */
    public CompileStep(P2mpGroupStore store, P2mpGroup read, String why, LongSupplier clock) {
        this.store = store;
        this.read = read;
        this.why = why;
        this.clock = clock;
    }

    /** @return the record as read */
    public P2mpGroup group() {
        return read;
    }

    /**
     * Records the replication mode the group gets, with the next {@link #finish}.
     *
     * @param decision the decision
     */
    public void mode(BitmapDecision decision) {
        this.mode = decision;
    }

    /**
     * Writes COMPILING and the outcome.
     *
     * @param to          the state compiling led to
     * @param reason      its reason
     * @param unreachable receivers the group cannot reach, or null to keep the recorded ones
     * @return the record written, or null if the record changed since it was read (nothing is written)
     */
    public P2mpGroup finish(GroupState to, String reason, Set<Endpoint> unreachable) {
        return finish(to, reason, unreachable, null);
    }

    /**
     * Like {@link #finish(GroupState, String, Set)}, with the kind of failure when {@code to} is FAILED.
     *
     * @param to          the state the compile leads to
     * @param reason      why
     * @param unreachable receivers it cannot reach, or null to keep the record's
     * @param failure     the kind of failure (FAILED only)
     * @return the group written, or null if the record changed since it was read
     */
    public P2mpGroup finish(GroupState to, String reason, Set<Endpoint> unreachable,
                            FailureKind failure) {
        boolean[] written = {false};
        P2mpGroup result = store.update(read.id(), cur -> {
            written[0] = false;
            if (cur.version() != read.version() || cur.state() != read.state()) {
                return cur;
            }
            long now = clock.getAsLong();
            P2mpGroup next = cur.withState(GroupState.COMPILING, now, why);
            if (mode != null && !recorded(next, mode)) {
                next = next.withEffectiveMode(mode.choice.mode(), mode.choice.reason());
            }
            if (unreachable != null) {
                next = next.withUnreachable(unreachable);
            }
            written[0] = true;
            return to == GroupState.FAILED ? next.withFailure(failure, now, reason) : next.withState(to, now, reason);
        });
        return written[0] ? result : null;
    }

    /**
     * @param group    a group
     * @param decision a replication decision
     * @return true if the group's record already holds the decided mode and reason
     */
    public static boolean recorded(P2mpGroup group, BitmapDecision decision) {
        ReplicationMode m = decision.choice.mode();
        String reason = decision.choice.reason().isEmpty() ? group.modeReason() : decision.choice.reason();
        return group.effectiveMode() == m && group.modeReason().equals(reason);
    }
}
