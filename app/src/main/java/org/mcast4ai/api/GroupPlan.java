package org.mcast4ai.api;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.ImmutableSortedSet;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a compiled group needs on each device, in a switch-neutral form: where its packets enter the device
 * and which ports they leave by. Data only; programmers turn it into switch entries, and two plans can be
 * diffed so that an update touches only the devices whose branches changed. Immutable.
 */
public final class GroupPlan {

    /** One device's part of the plan. Immutable. */
    public static final class Branch {
        private static final Comparator<PortNumber> BY_NUMBER = Comparator.comparingLong(PortNumber::toLong);

        private final PortNumber inPort;
        // ascending by number; a set in insertion order, since the compiler hands the ports over ascending
        private final ImmutableSet<PortNumber> outPorts;
        private final int hash;

        /**
         * @param inPort   port the group's packets arrive on
         * @param outPorts ports a copy leaves by (never the in port); repeats count once
         */
        public Branch(PortNumber inPort, Collection<PortNumber> outPorts) {
            this.inPort = Objects.requireNonNull(inPort);
            this.outPorts = ascending(outPorts) ? ImmutableSet.copyOf(outPorts)
                    : ImmutableSet.copyOf(ImmutableSortedSet.copyOf(BY_NUMBER, outPorts));
            if (this.outPorts.contains(inPort)) {
                throw new IllegalArgumentException("a branch never sends back out of its in port " + inPort);
            }
            if (this.outPorts.isEmpty()) {
                throw new IllegalArgumentException("a branch has at least one out port");
            }
            this.hash = Objects.hash(inPort, this.outPorts);
        }

        private static boolean ascending(Collection<PortNumber> ports) {
            long last = Long.MIN_VALUE;
            for (PortNumber p : ports) {
                if (p.toLong() <= last) {
                    return false;
                }
                last = p.toLong();
            }
            return true;
        }

        /** @return the in port */
        public PortNumber inPort() {
            return inPort;
        }

        /** @return out ports in ascending order */
        public Set<PortNumber> outPorts() {
            return outPorts;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Branch && ((Branch) o).hash == hash && ((Branch) o).inPort.equals(inPort)
                    && ((Branch) o).outPorts.equals(outPorts);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public String toString() {
            return inPort + "->" + outPorts;
        }
    }

    private final ImmutableMap<DeviceId, Branch> branches;
    private final ImmutableList<ConnectPoint[]> links;

    /**
     * @param branches per device branch
     * @param links    fabric links the tree uses, each as {from, to}, parent to child
     */
    public GroupPlan(Map<DeviceId, Branch> branches, List<ConnectPoint[]> links) {
        this.branches = ImmutableMap.copyOf(branches);
        this.links = ImmutableList.copyOf(links);
    }

    private static final GroupPlan EMPTY = new GroupPlan(ImmutableMap.of(), ImmutableList.of());

    /** @return an empty plan */
    public static GroupPlan empty() {
        return EMPTY;
    }

    /** @return per device branch */
    public Map<DeviceId, Branch> branches() {
        return branches;
    }

    /** @return switch-to-switch links the tree uses, {from, to} */
    public List<ConnectPoint[]> links() {
        return links;
    }

    /**
     * @param other the plan currently installed
     * @return devices whose branch differs between the two plans (added, removed or changed)
     */
    public Set<DeviceId> changedDevices(GroupPlan other) {
        ImmutableSet.Builder<DeviceId> b = ImmutableSet.builder();
        for (Map.Entry<DeviceId, Branch> e : branches.entrySet()) {
            if (!e.getValue().equals(other.branches.get(e.getKey()))) {
                b.add(e.getKey());
            }
        }
        for (DeviceId d : other.branches.keySet()) {
            if (!branches.containsKey(d)) {
                b.add(d);
            }
        }
        return b.build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GroupPlan && ((GroupPlan) o).branches.equals(branches);
    }

    @Override
    public int hashCode() {
        return branches.hashCode();
    }

    @Override
    public String toString() {
        return "GroupPlan" + branches;
    }
}
