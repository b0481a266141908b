package org.mcast4ai.api;

import com.google.common.collect.ImmutableList;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.List;
import java.util.Objects;

/**
 * What a BITMAP group holds on a P4 fabric: its stamp at the source leaf, and nothing on any other switch. The
 * leaf holds one entry for the sender's port and the group's address, one header entry per replica number and a
 * multicast group of one replica per header packet.
 */
public final class StampPlan {
    private final DeviceId device;
    private final PortNumber inPort;
    private final int slot;
    private final int multicastGroup;
    private final int tableEntries;
    private final ImmutableList<String> headers;

    /**
     * @param device         the source leaf
     * @param inPort         the sender's port
     * @param slot           the stamp's slot (a group has two; a change moves to the other)
     * @param multicastGroup the slot's multicast group id
     * @param tableEntries   table entries the stamp takes on the leaf
     * @param headers        the headers of one send, lowercase hex
     */
    public StampPlan(DeviceId device, PortNumber inPort, int slot, int multicastGroup, int tableEntries,
                     List<String> headers) {
        this.device = Objects.requireNonNull(device);
        this.inPort = Objects.requireNonNull(inPort);
        this.slot = slot;
        this.multicastGroup = multicastGroup;
        this.tableEntries = tableEntries;
        this.headers = ImmutableList.copyOf(headers);
    }

    /** @return the source leaf */
    public DeviceId device() {
        return device;
    }

    /** @return the sender's port */
    public PortNumber inPort() {
        return inPort;
    }

    /** @return the slot */
    public int slot() {
        return slot;
    }

    /** @return the slot's multicast group id */
    public int multicastGroup() {
        return multicastGroup;
    }

    /** @return the table entries on the leaf */
    public int tableEntries() {
        return tableEntries;
    }

    /** @return the headers of one send (lowercase hex) */
    public List<String> headers() {
        return headers;
    }

    /** @return the header bytes of one send */
    public int headerBytes() {
        return headers.stream().mapToInt(h -> h.length() / 2).sum();
    }
}
