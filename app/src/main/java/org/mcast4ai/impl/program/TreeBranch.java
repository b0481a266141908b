package org.mcast4ai.impl.program;

import org.mcast4ai.api.GroupPlan;
import org.onosproject.net.DeviceId;

import java.util.Objects;

/** A TREE group's branch on one switch: one flow rule matching the in port, copying to the out ports. */
public final class TreeBranch implements DeviceEntry {
    /** The kind of the OpenFlow tree programmer. */
    public static final String KIND = "openflow-tree";

    private final DeviceId device;
    private final GroupPlan.Branch branch;
    // records hold thousands of entries and are diffed on every reconcile: the hash is computed once
    private final int hash;
    // the flow rules last built for this entry and what they were built from: a group's entries are built
    // when it is installed and again when it is withdrawn or rerouted; not part of the value, not stored
    private volatile Object built;

    /**
     * @param device the switch
     * @param branch its in port and out ports
     */
    public TreeBranch(DeviceId device, GroupPlan.Branch branch) {
        this.device = Objects.requireNonNull(device);
        this.branch = Objects.requireNonNull(branch);
        this.hash = Objects.hash(device, branch);
    }

    @Override
    public DeviceId device() {
        return device;
    }

    @Override
    public String kind() {
        return KIND;
    }

    /** @return the branch */
    public GroupPlan.Branch branch() {
        return branch;
    }

    /** @return what {@link OpenFlowTreeProgrammer} last built for this entry, or null */
    Object built() {
        return built;
    }

    /** @param built what {@link OpenFlowTreeProgrammer} built for this entry */
    void built(Object built) {
        this.built = built;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TreeBranch && ((TreeBranch) o).hash == hash && ((TreeBranch) o).device.equals(device)
                && ((TreeBranch) o).branch.equals(branch);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return device + ":" + branch;
    }
}
