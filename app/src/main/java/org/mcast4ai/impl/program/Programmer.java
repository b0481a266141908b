package org.mcast4ai.impl.program;

import org.mcast4ai.api.P2mpGroup;
import org.onosproject.net.DeviceId;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes one kind of {@link DeviceEntry} onto devices: an OpenFlow tree rule, an OpenFlow BITMAP stamp, later
 * a P4 table entry or an aggregation agent's state. The reconcile loop computes the moves (it knows no
 * replication mode); a programmer turns them into device writes, make-before-break across the moves it is
 * given, and reports per device what was acknowledged.
 */
public interface Programmer {

    /** What the devices answered to one {@link #apply} call. */
    interface Outcome {
        /**
         * Called once per batch, from any thread. The sets and maps given are not changed afterwards (the
         * loop keeps them as they are).
         *
         * @param acked   devices that acknowledged all their writes (they hold the moves' targets)
         * @param refused devices whose writes were refused or may not have been applied, with the reason
         */
        void done(Set<DeviceId> acked, Map<DeviceId, String> refused);
    }

    /** @return the kind of the entries it writes ({@link DeviceEntry#kind()}) */
    String kind();

    /**
     * Sends one group's moves of this kind.
     *
     * @param group the group
     * @param moves the moves, at most one per device
     * @param done  called when the devices answered
     * @return the devices the batch touches; empty if nothing was sent (then {@code done} is not called)
     */
    Set<DeviceId> apply(P2mpGroup group, List<Move> moves, Outcome done);

    /**
     * Reads only.
     *
     * @param group the group
     * @param entry an entry the group's record says the device holds
     * @return false if ONOS's stores say the device lacks it (lost by a restart of ONOS, removed around the app)
     */
    boolean holds(P2mpGroup group, DeviceEntry entry);
}
