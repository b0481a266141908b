package org.mcast4ai.impl.program;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import org.mcast4ai.api.GroupPlan;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The one stored record of what a group has on the switches: the entries each device acknowledged
 * ({@link #installed()}), and the entries that may be on a device without acknowledgement ({@link #uncertain()}:
 * written before a batch is sent, cleared per device as devices acknowledge, kept for devices that refused,
 * never answered or were gone). The links of the installed tree are kept for the topology index and
 * {@code /plan}. Immutable; at most one installed entry per device and kind.
 */
public final class Programmed {
    private static final Programmed EMPTY = new Programmed(Set.of(), Set.of(), List.of());

    private final ImmutableSet<DeviceEntry> installed;
    private final ImmutableSet<DeviceEntry> uncertain;
    private final ImmutableList<ConnectPoint[]> links;

    /**
     * @param installed acknowledged entries
     * @param uncertain entries that may be on the devices
     * @param links     switch-to-switch links of the installed tree, {from, to}
     */
    public Programmed(Collection<? extends DeviceEntry> installed, Collection<? extends DeviceEntry> uncertain,
                      List<ConnectPoint[]> links) {
        this.installed = ImmutableSet.copyOf(installed);
        this.uncertain = ImmutableSet.copyOf(uncertain);
        this.links = ImmutableList.copyOf(links);
    }

    /** @return the record of a group with nothing on any switch */
    public static Programmed empty() {
        return EMPTY;
    }

    /** @return acknowledged entries */
    public Set<DeviceEntry> installed() {
        return installed;
    }

    /** @return entries that may be on a device without acknowledgement */
    public Set<DeviceEntry> uncertain() {
        return uncertain;
    }

    /** @return links of the installed tree */
    public List<ConnectPoint[]> links() {
        return links;
    }

    /** @return true if no device holds or may hold anything of the group */
    public boolean isEmpty() {
        return installed.isEmpty() && uncertain.isEmpty();
    }

    /** @return every device that holds or may hold an entry */
    public Set<DeviceId> devices() {
        Set<DeviceId> out = new LinkedHashSet<>();
        installed.forEach(e -> out.add(e.device()));
        uncertain.forEach(e -> out.add(e.device()));
        return out;
    }

    /** @return the kinds of every entry held or maybe held */
    public Set<String> kinds() {
        Set<String> out = new LinkedHashSet<>();
        installed.forEach(e -> out.add(e.kind()));
        uncertain.forEach(e -> out.add(e.kind()));
        return out;
    }

    /**
     * @param connected which devices are connected
     * @return true if an uncertain entry is on a connected device (a batch can do something about it)
     */
    public boolean uncertainReachable(Predicate<DeviceId> connected) {
        return uncertain.stream().anyMatch(e -> connected.test(e.device()));
    }

    /**
     * @param type an entry class
     * @param <E>  the entry type
     * @return the installed entry of that class, or null (for kinds with one entry per group, e.g. a stamp)
     */
    public <E extends DeviceEntry> E installedOne(Class<E> type) {
        return installed.stream().filter(type::isInstance).map(type::cast).findFirst().orElse(null);
    }

    /**
     * @param type an entry class
     * @param <E>  the entry type
     * @return an uncertain entry of that class, or null
     */
    public <E extends DeviceEntry> E uncertainOne(Class<E> type) {
        return uncertain.stream().filter(type::isInstance).map(type::cast).findFirst().orElse(null);
    }

    /**
     * @param entries more entries that may be on the devices
     * @return this record with them added to the uncertain ones
     */
    public Programmed withUncertain(Collection<? extends DeviceEntry> entries) {
        if (uncertain.containsAll(entries)) {
            return this;
        }
        Set<DeviceEntry> u = new LinkedHashSet<>(uncertain);
        u.addAll(entries);
        return new Programmed(installed, u, links);
    }

    /**
     * The installed tree as a plan (the branches of the {@link TreeBranch} entries and the links).
     *
     * @return the plan, empty if the group has no tree entries
     */
    public GroupPlan treePlan() {
        return plan(installed);
    }

    /** @return the tree entries that may be on the switches, as a plan without links */
    public GroupPlan uncertainTreePlan() {
        GroupPlan p = plan(uncertain);
        return new GroupPlan(p.branches(), List.of());
    }

    private GroupPlan plan(Set<DeviceEntry> entries) {
        Map<DeviceId, GroupPlan.Branch> branches = new LinkedHashMap<>();
        for (DeviceEntry e : entries) {
            if (e instanceof TreeBranch) {
                branches.put(e.device(), ((TreeBranch) e).branch());
            }
        }
        return branches.isEmpty() ? GroupPlan.empty() : new GroupPlan(branches, links);
    }

    /**
     * @param plan a tree plan
     * @return its branches as entries
     */
    public static Set<DeviceEntry> entriesOf(GroupPlan plan) {
        ImmutableSet.Builder<DeviceEntry> out = ImmutableSet.builder();
        plan.branches().forEach((d, b) -> out.add(new TreeBranch(d, b)));
        return out.build();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Programmed)) {
            return false;
        }
        Programmed p = (Programmed) o;
        return p.installed.equals(installed) && p.uncertain.equals(uncertain);
    }

    @Override
    public int hashCode() {
        return Objects.hash(installed, uncertain);
    }

    @Override
    public String toString() {
        return "Programmed{installed=" + installed + ", uncertain=" + uncertain + "}";
    }
}
