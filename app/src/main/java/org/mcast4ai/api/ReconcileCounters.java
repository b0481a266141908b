package org.mcast4ai.api;

import java.util.Objects;

/**
 * What the reconcile loop has done since the app started on this instance: audits of the groups' records against
 * ONOS's flow store, groups whose entries were found missing and sent again, and rules of the app that no group
 * needed and were removed. Immutable.
 */
public final class ReconcileCounters {
    private final long audits;
    private final long repairs;
    private final long orphansRemoved;

    /**
     * @param audits         audits run
     * @param repairs        times a group's entries were found missing and sent again
     * @param orphansRemoved rules removed because no group needed them
     */
    public ReconcileCounters(long audits, long repairs, long orphansRemoved) {
        this.audits = audits;
        this.repairs = repairs;
        this.orphansRemoved = orphansRemoved;
    }

    /** @return audits run */
    public long audits() {
        return audits;
    }

    /** @return times a group's entries were found missing from the switches and sent again */
    public long repairs() {
        return repairs;
    }

    /** @return rules removed because no group needed them */
    public long orphansRemoved() {
        return orphansRemoved;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ReconcileCounters)) {
            return false;
        }
        ReconcileCounters c = (ReconcileCounters) o;
        return c.audits == audits && c.repairs == repairs && c.orphansRemoved == orphansRemoved;
    }

    @Override
    public int hashCode() {
        return Objects.hash(audits, repairs, orphansRemoved);
    }

    @Override
    public String toString() {
        return "audits=" + audits + " repairs=" + repairs + " orphansRemoved=" + orphansRemoved;
    }
}
