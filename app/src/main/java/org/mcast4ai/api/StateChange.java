package org.mcast4ai.api;

import java.util.Objects;

/** One step of a group's state history. Immutable. */
public final class StateChange {
    private final GroupState state;
    private final long timeMillis;
    private final String reason;
    private final FailureKind failure;

    /**
     * @param state      the state entered
     * @param timeMillis wall-clock time it was entered
     * @param reason     why (empty if self-evident)
     */
    public StateChange(GroupState state, long timeMillis, String reason) {
        this(state, timeMillis, reason, null);
    }

    /**
     * @param state      the state entered
     * @param timeMillis wall-clock time it was entered
     * @param reason     why (empty if self-evident)
     * @param failure    for FAILED, the kind of failure; null otherwise
     */
    public StateChange(GroupState state, long timeMillis, String reason, FailureKind failure) {
        this.state = Objects.requireNonNull(state);
        this.timeMillis = timeMillis;
        this.reason = reason == null ? "" : reason;
        this.failure = state == GroupState.FAILED ? failure : null;
    }

    /** @return for a FAILED step, the kind of failure (null if not FAILED, or not known) */
    public FailureKind failure() {
        return failure;
    }

    /** @return the state entered */
    public GroupState state() {
        return state;
    }

    /** @return when, in milliseconds since the epoch */
    public long timeMillis() {
        return timeMillis;
    }

    /** @return why */
    public String reason() {
        return reason;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof StateChange)) {
            return false;
        }
        StateChange s = (StateChange) o;
        return state == s.state && timeMillis == s.timeMillis && reason.equals(s.reason) && failure == s.failure;
    }

    @Override
    public int hashCode() {
        return Objects.hash(state, timeMillis, reason, failure);
    }

    @Override
    public String toString() {
        return state + "@" + timeMillis + (reason.isEmpty() ? "" : "(" + reason + ")");
    }
}
