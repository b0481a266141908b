package org.mcast4ai.api;

import com.google.common.collect.ImmutableList;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.List;
import java.util.Objects;

/**
 * What a BITMAP group uses on the switches: its one per-group entry (the stamp at the source leaf) and the
 * static tables every switch holds for all groups alike. Transit switches hold nothing for the group.
 */
public final class BitmapPlan {

    /** One switch's static tables: the same for 1 or 1,000,000 groups. */
    public static final class StaticDevice {
        private final DeviceId device;
        private final int rules;
        private final int groups;

        /**
         * @param device the switch
         * @param rules  its static flow rules
         * @param groups its static egress groups
         */
        public StaticDevice(DeviceId device, int rules, int groups) {
            this.device = Objects.requireNonNull(device);
            this.rules = rules;
            this.groups = groups;
        }

        /** @return the switch */
        public DeviceId device() {
            return device;
        }

        /** @return its static flow rules */
        public int rules() {
            return rules;
        }

        /** @return its static egress groups */
        public int groups() {
            return groups;
        }
    }

    private final DeviceId stampDevice;
    private final PortNumber inPort;
    private final long bits;
    private final String stampMac;
    private final boolean switchStamped;
    private final String uplink;
    private final long staticGeneration;
    private final boolean staticInPlace;
    private final ImmutableList<StaticDevice> staticDevices;

    /**
     * @param stampDevice      the source leaf, which holds the group's stamp
     * @param inPort           the source host's port on it
     * @param bits             the group's receiver bits
     * @param stampMac         the Ethernet source carrying them
     * @param switchStamped    whether the leaf writes the stamp into frames carrying the sender's own address
     * @param uplink           which uplink the group's copies take up, in words
     * @param staticGeneration the generation of the static tables the switches were last sent
     * @param staticInPlace    whether the switches acknowledged the static tables of the current fabric
     * @param staticDevices    each switch's static tables
     */
    public BitmapPlan(DeviceId stampDevice, PortNumber inPort, long bits, String stampMac, boolean switchStamped,
                      String uplink, long staticGeneration, boolean staticInPlace, List<StaticDevice> staticDevices) {
        this.stampDevice = Objects.requireNonNull(stampDevice);
        this.inPort = Objects.requireNonNull(inPort);
        this.bits = bits;
        this.stampMac = Objects.requireNonNull(stampMac);
        this.switchStamped = switchStamped;
        this.uplink = Objects.requireNonNull(uplink);
        this.staticGeneration = staticGeneration;
        this.staticInPlace = staticInPlace;
        this.staticDevices = ImmutableList.copyOf(staticDevices);
    }

    /** @return the source leaf */
    public DeviceId stampDevice() {
        return stampDevice;
    }

    /** @return the source host's port */
    public PortNumber inPort() {
        return inPort;
    }

    /** @return the group's receiver bits */
    public long bits() {
        return bits;
    }

    /** @return the stamp's Ethernet source address */
    public String stampMac() {
        return stampMac;
    }

    /** @return whether the leaf stamps frames that carry the sender's own address */
    public boolean switchStamped() {
        return switchStamped;
    }

    /** @return the uplink the group's copies go up by, in words */
    public String uplink() {
        return uplink;
    }

    /** @return the static tables' generation */
    public long staticGeneration() {
        return staticGeneration;
    }

    /** @return whether the static tables of the current fabric are acknowledged */
    public boolean staticInPlace() {
        return staticInPlace;
    }

    /** @return each switch's static tables */
    public List<StaticDevice> staticDevices() {
        return staticDevices;
    }
}
