package org.mcast4ai.impl.program;

import com.google.common.collect.ImmutableSet;
import org.onosproject.net.DeviceId;

import java.util.Objects;
import java.util.Set;

/**
 * One device's change of one kind of entry: from what it acknowledged and what it may hold without
 * acknowledgement, to the target (null: the entry goes).
 */
public final class Move {
    private final DeviceId device;
    private final DeviceEntry installed;
    private final Set<DeviceEntry> uncertain;
    private final DeviceEntry target;

    /**
     * @param device    the device
     * @param installed the acknowledged entry, or null
     * @param uncertain entries that may be on it without acknowledgement
     * @param target    what it should hold, or null
     */
    public Move(DeviceId device, DeviceEntry installed, Set<? extends DeviceEntry> uncertain, DeviceEntry target) {
        this.device = Objects.requireNonNull(device);
        this.installed = installed;
        this.uncertain = ImmutableSet.copyOf(uncertain);
        this.target = target;
    }

    /** @return the device */
    public DeviceId device() {
        return device;
    }

    /** @return the acknowledged entry, or null */
    public DeviceEntry installed() {
        return installed;
    }

    /** @return entries that may be on the device */
    public Set<DeviceEntry> uncertain() {
        return uncertain;
    }

    /** @return the target, or null if the device should hold nothing of this kind */
    public DeviceEntry target() {
        return target;
    }

    /** @return true if the device may hold nothing of the kind before the move */
    public boolean fresh() {
        return installed == null && uncertain.isEmpty();
    }

    @Override
    public String toString() {
        return device + ": " + installed + (uncertain.isEmpty() ? "" : " (maybe " + uncertain + ")") + " -> "
                + target;
    }
}
