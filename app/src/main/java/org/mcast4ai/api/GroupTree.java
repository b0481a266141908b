package org.mcast4ai.api;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.Sets;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.PortNumber;

import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Where a group's packets go now: one packet from the source followed through what the switches were given for
 * it (the tree's rules; for BITMAP the static tables and the group's stamp, by the same code that plans them),
 * over the fabric ONOS sees. Per device the role, the port the packets come in by, the ports copies leave by
 * and, for BITMAP, what part of the header or stamp it serves; the switch-to-switch links copies cross; the path
 * to each receiver reached; the receivers not reached. Immutable.
 */
public final class GroupTree {

    /** What a device does for the group. */
    public enum Role {
        /** It holds the sender's port. */
        INGRESS,
        /** It passes copies between switches only. */
        TRANSIT,
        /** It hands copies to receivers. */
        EGRESS
    }

    /** One device's part. Immutable. */
    public static final class Hop {
        private final DeviceId device;
        private final Set<Role> roles;
        private final PortNumber inPort;
        private final List<PortNumber> outPorts;
        private final String serves;

        /**
         * @param device   the device
         * @param roles    what it does (at least one)
         * @param inPort   the port the group's packets arrive on
         * @param outPorts ports copies leave by, ascending
         * @param serves   for BITMAP, the part of the header or stamp the device acts on; empty for TREE
         */
        public Hop(DeviceId device, Collection<Role> roles, PortNumber inPort, List<PortNumber> outPorts,
                   String serves) {
            this.device = Objects.requireNonNull(device);
            if (roles.isEmpty()) {
                throw new IllegalArgumentException("a hop has a role");
            }
            this.roles = Sets.immutableEnumSet(EnumSet.copyOf(roles));
            this.inPort = Objects.requireNonNull(inPort);
            this.outPorts = ImmutableList.copyOf(outPorts);
            this.serves = Objects.requireNonNull(serves);
        }

        /** @return the device */
        public DeviceId device() {
            return device;
        }

        /** @return what it does for the group */
        public Set<Role> roles() {
            return roles;
        }

        /** @return the port the packets arrive on */
        public PortNumber inPort() {
            return inPort;
        }

        /** @return ports copies leave by, ascending */
        public List<PortNumber> outPorts() {
            return outPorts;
        }

        /** @return the header or stamp part it acts on (BITMAP), or empty */
        public String serves() {
            return serves;
        }

        @Override
        public String toString() {
            return device + roles.toString() + inPort + "->" + outPorts + (serves.isEmpty() ? "" : " " + serves);
        }
    }

    private final P2mpGroupId id;
    private final ReplicationMode mode;
    private final String carrier;
    private final ImmutableList<Hop> hops;
    private final ImmutableList<ConnectPoint[]> links;
    private final ImmutableMap<Endpoint, List<DeviceId>> paths;
    private final ImmutableSet<Endpoint> unreachable;
    private final ImmutableSet<String> strays;
    private final ImmutableMap<Endpoint, HostId> hostIds;

    /**
     * @param id          the group
     * @param mode        how it replicates
     * @param carrier     what carries it on the switches, in words (rules, stamp, header)
     * @param hops        devices in the order the packets reach them, the source's first
     * @param links       switch-to-switch links copies cross, each {from, to}
     * @param paths       per receiver reached, the devices from the source's to the receiver's
     * @param unreachable receivers the packets do not reach
     * @param strays      hosts that get a copy without being receivers (none when the switches are right)
     * @param hostIds     the ONOS host of the source and of each receiver the fabric knows
     */
    public GroupTree(P2mpGroupId id, ReplicationMode mode, String carrier, List<Hop> hops,
                     List<ConnectPoint[]> links, Map<Endpoint, List<DeviceId>> paths, Set<Endpoint> unreachable,
                     Set<String> strays, Map<Endpoint, HostId> hostIds) {
        this.id = Objects.requireNonNull(id);
        this.mode = Objects.requireNonNull(mode);
        this.carrier = Objects.requireNonNull(carrier);
        this.hops = ImmutableList.copyOf(hops);
        this.links = ImmutableList.copyOf(links);
        ImmutableMap.Builder<Endpoint, List<DeviceId>> p = ImmutableMap.builder();
        paths.forEach((k, v) -> p.put(k, ImmutableList.copyOf(v)));
        this.paths = p.build();
        this.unreachable = ImmutableSet.copyOf(unreachable);
        this.strays = ImmutableSet.copyOf(strays);
        this.hostIds = ImmutableMap.copyOf(hostIds);
    }

    /**
     * @param id      the group
     * @param mode    how it replicates
     * @param carrier why there is nothing to follow
     * @param all     its receivers, all unreachable
     * @param hostIds the ONOS host of the source and of each receiver the fabric knows
     * @return a tree with no devices
     */
    public static GroupTree none(P2mpGroupId id, ReplicationMode mode, String carrier, Set<Endpoint> all,
                                 Map<Endpoint, HostId> hostIds) {
        return new GroupTree(id, mode, carrier, List.of(), List.of(), Map.of(), all, Set.of(), hostIds);
    }

    /** @return the group */
    public P2mpGroupId id() {
        return id;
    }

    /** @return how it replicates */
    public ReplicationMode mode() {
        return mode;
    }

    /** @return what carries it on the switches, in words */
    public String carrier() {
        return carrier;
    }

    /** @return devices in the order the packets reach them */
    public List<Hop> hops() {
        return hops;
    }

    /**
     * @param device a device
     * @return its hop, or null if the packets do not reach it
     */
    public Hop hop(DeviceId device) {
        for (Hop h : hops) {
            if (h.device.equals(device)) {
                return h;
            }
        }
        return null;
    }

    /** @return switch-to-switch links copies cross, {from, to} */
    public List<ConnectPoint[]> links() {
        return links;
    }

    /** @return per receiver reached, the devices from the source's to its own */
    public Map<Endpoint, List<DeviceId>> paths() {
        return paths;
    }

    /** @return receivers the packets do not reach */
    public Set<Endpoint> unreachable() {
        return unreachable;
    }

    /** @return hosts that get a copy without being receivers */
    public Set<String> strays() {
        return strays;
    }

    /** @return the ONOS host of the source and of each receiver the fabric knows */
    public Map<Endpoint, HostId> hostIds() {
        return hostIds;
    }
}
