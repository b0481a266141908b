package org.mcast4ai.impl.lifecycle;

import org.onosproject.net.DeviceId;

/**
 * Switch state that names no group but that groups depend on, kept in line by the reconcile loop on its fabric
 * lane (lane 0) before the groups it concerns: the P4 switches' static state. Every method runs on that lane.
 */
public interface FabricState {

    /**
     * Brings the switches in line with the fabric as it is now: after a burst of topology events, on every audit
     * and when this instance takes over.
     *
     * @param why what happened, for the log
     */
    void reconcile(String why);

    /**
     * A switch is connected again and may be empty: its state counts as unacknowledged until written again.
     *
     * @param device the switch
     */
    void deviceReturned(DeviceId device);
}
