package org.mcast4ai.api;

import org.onosproject.event.AbstractEvent;

/** Something happened to a group. The subject is the group after the change. */
public class P2mpGroupEvent extends AbstractEvent<P2mpGroupEvent.Type, P2mpGroup> {

    /** Event kinds. */
    public enum Type {
        /** A group was submitted. */
        GROUP_ADDED,
        /** A group's receivers, mode or plan changed. */
        GROUP_UPDATED,
        /** A group changed lifecycle state (the subject's last history entry says to what and why). */
        GROUP_STATE_CHANGED,
        /** A group's record was removed (after withdrawal, by purge). */
        GROUP_REMOVED
    }

    /**
     * @param type  kind
     * @param group the group after the change
     */
    public P2mpGroupEvent(Type type, P2mpGroup group) {
        super(type, group);
    }
}
