package org.mcast4ai.impl.program;

import org.onosproject.net.DeviceId;

/**
 * What a group holds on one device, as one programmer writes it (a tree branch's flow rule, a BITMAP stamp,
 * later a P4 table entry or an aggregation agent's map entries). Immutable; two entries are equal when they
 * put the same state on the device.
 */
public interface DeviceEntry {

    /** @return the device that holds the entry */
    DeviceId device();

    /** @return the {@link Programmer#kind() kind} of the programmer that writes it */
    String kind();
}
