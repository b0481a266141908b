package org.mcast4ai.api;

/**
 * Why a group is FAILED, for code that acts on it (retry, alert, move to another mode); the group's reason says
 * it in words for people, naming the switch, the receivers or the setting involved.
 */
public enum FailureKind {
    /** The source is not attached to a switch the app can use. */
    SOURCE_UNREACHABLE,
    /** No receiver can be reached from the source. */
    NO_RECEIVER_REACHABLE,
    /** The replication mode asked for cannot serve the group here (BITMAP on a fabric it does not fit). */
    MODE_UNAVAILABLE,
    /** The tree computation failed (a defect: see the log). */
    COMPILE_ERROR,
    /** A switch refused the group's entries. */
    SWITCH_REFUSED,
    /** The switches did not acknowledge the group's entries in time ({@code installTimeoutMs}). */
    SWITCH_TIMEOUT,
    /** The switches did not acknowledge the static BITMAP tables in time; installed once they do. */
    STATIC_TABLES_TIMEOUT,
    /** No aggregation point (the agent beside the sender) configured an ACK_AGGREGATION group's receivers in time. */
    AGGREGATION_TIMEOUT
}
