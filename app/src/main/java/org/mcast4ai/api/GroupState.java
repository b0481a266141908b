package org.mcast4ai.api;

/**
 * Lifecycle of a P2MP group, modelled on ONOS intents.
 *
 * <pre>
 * SUBMITTED -> COMPILING -> INSTALLING -> INSTALLED
 *                  |             |-> FAILED (reason)
 *                  |-> DEGRADED (installed, some receivers unreachable)
 * any live state -> WITHDRAWING -> WITHDRAWN
 * </pre>
 */
public enum GroupState {
    /** Accepted and stored; nothing computed yet. */
    SUBMITTED,
    /** The tree or bitmap plan is being computed. */
    COMPILING,
    /** Switch entries were sent; waiting for the switches to acknowledge them. */
    INSTALLING,
    /** Every switch acknowledged every entry the group needs. */
    INSTALLED,
    /** Installed, but some receivers are unreachable in the current fabric. */
    DEGRADED,
    /** Could not be compiled or a switch rejected an entry; the reason says which. */
    FAILED,
    /** Entries are being removed. */
    WITHDRAWING,
    /** Every entry is removed; the group keeps its record until purged. */
    WITHDRAWN;

    /** @return true for states in which the group holds (or is acquiring) switch entries */
    public boolean isLive() {
        return this != WITHDRAWING && this != WITHDRAWN;
    }
}
