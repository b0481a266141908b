package org.mcast4ai.testing;

import com.google.common.collect.ImmutableList;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupListener;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.impl.bitmap.EthSrcBitmap;
import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * A small in-memory {@link P2mpGroupAdminService} that follows the interface contract: it validates fully
 * before changing anything, refuses with the documented {@link GroupException} kinds, and installs groups
 * synchronously (SUBMITTED, COMPILING, INSTALLING, INSTALLED) with a fake one-switch plan. Hosts are known
 * when listed in the constructor. Not thread-safe beyond what the tests need.
 */
public class InMemoryGroupService implements P2mpGroupAdminService {
    /** The one device of the fake plans. */
    public static final DeviceId LEAF = DeviceId.deviceId("of:0000000000000001");

    private final Set<String> knownHosts;
    private final int maxReceivers;
    private final int maxGroupsPerTenant;
    private final int addressPoolSize;
    private final TreeMap<P2mpGroupId, P2mpGroup> groups = new TreeMap<>();
    private final Map<P2mpGroupId, GroupPlan> plans = new HashMap<>();
    private final List<P2mpGroupListener> listeners = new CopyOnWriteArrayList<>();
    private boolean asyncWithdraw;
    private long nextId = 1;
    private long clock = 1_700_000_000_000L;

    /**
     * @param knownHosts         hosts (as named in requests) the fabric knows
     * @param maxReceivers       limit of receivers per group
     * @param maxGroupsPerTenant limit of groups per tenant
     * @param addressPoolSize    number of multicast addresses
     */
    public InMemoryGroupService(Set<String> knownHosts, int maxReceivers, int maxGroupsPerTenant,
                                int addressPoolSize) {
        this.knownHosts = Collections.unmodifiableSet(new LinkedHashSet<>(knownHosts));
        this.maxReceivers = maxReceivers;
        this.maxGroupsPerTenant = maxGroupsPerTenant;
        this.addressPoolSize = addressPoolSize;
    }

    /**
     * @return a service knowing hosts 10.0.0.1 to 10.0.0.20, with at most 8 receivers per group, 3 groups
     *         per tenant and 16 addresses
     */
    public static InMemoryGroupService withHosts() {
        Set<String> hosts = new LinkedHashSet<>();
        for (int i = 1; i <= 20; i++) {
            hosts.add("10.0.0." + i);
        }
        return new InMemoryGroupService(hosts, 8, 3, 16);
    }

    @Override
    public synchronized P2mpGroup submit(P2mpGroupRequest request) {
        checkKnown(request.source());
        request.receivers().forEach(this::checkKnown);
        if (groups.values().stream().anyMatch(g -> g.key().equals(request.key()))) {
            throw GroupException.conflict("a group named " + request.key() + " already exists");
        }
        if (request.receivers().size() > maxReceivers) {
            throw GroupException.limit("at most " + maxReceivers + " receivers per group");
        }
        long ofTenant = groups.values().stream().filter(g -> g.key().tenant().equals(request.key().tenant())).count();
        if (ofTenant >= maxGroupsPerTenant) {
            throw GroupException.limit("tenant " + request.key().tenant() + " has its " + maxGroupsPerTenant
                    + " groups");
        }
        if (groups.size() >= addressPoolSize) {
            throw GroupException.limit("the multicast address pool (" + addressPoolSize + ") is exhausted");
        }
        P2mpGroupId id = P2mpGroupId.of(nextId++);
        P2mpGroup g = P2mpGroup.submitted(id, request, IpAddress.valueOf("239.255.0." + id.value()), tick());
        store(g, P2mpGroupEvent.Type.GROUP_ADDED);
        return install(g);
    }

    @Override
    public synchronized P2mpGroup addReceivers(P2mpGroupId id, Set<Endpoint> receivers) {
        P2mpGroup g = live(id);
        if (receivers.isEmpty()) {
            throw GroupException.invalid("no receivers to add");
        }
        for (Endpoint r : receivers) {
            checkKnown(r);
            if (g.request().receivers().contains(r)) {
                throw GroupException.invalid("receiver " + r + " is already in group " + id);
            }
        }
        P2mpGroupRequest changed = g.request().toBuilder().addReceivers(receivers).build();
        if (changed.receivers().size() > maxReceivers) {
            throw GroupException.limit("at most " + maxReceivers + " receivers per group");
        }
        return install(store(g.withRequest(changed), P2mpGroupEvent.Type.GROUP_UPDATED));
    }

    @Override
    public synchronized P2mpGroup removeReceivers(P2mpGroupId id, Set<Endpoint> receivers) {
        P2mpGroup g = live(id);
        if (receivers.isEmpty()) {
            throw GroupException.invalid("no receivers to remove");
        }
        for (Endpoint r : receivers) {
            if (!g.request().receivers().contains(r)) {
                throw GroupException.invalid("receiver " + r + " is not in group " + id);
            }
        }
        List<Endpoint> left = g.request().receivers().stream()
                .filter(r -> !receivers.contains(r)).collect(Collectors.toList());
        if (left.isEmpty()) {
            throw GroupException.invalid("at least one receiver must remain; withdraw the group instead");
        }
        P2mpGroupRequest changed = g.request().toBuilder().receivers(left).build();
        return install(store(g.withRequest(changed), P2mpGroupEvent.Type.GROUP_UPDATED));
    }

    @Override
    public synchronized P2mpGroup withdraw(P2mpGroupId id) {
        P2mpGroup g = existing(id);
        if (!g.state().isLive()) {
            return g;
        }
        g = store(g.withState(GroupState.WITHDRAWING, tick(), "withdrawn by request"),
                P2mpGroupEvent.Type.GROUP_STATE_CHANGED);
        return asyncWithdraw ? g : finishWithdrawal(g);
    }

    private P2mpGroup finishWithdrawal(P2mpGroup g) {
        plans.remove(g.id());
        return store(g.withState(GroupState.WITHDRAWN, tick(), ""), P2mpGroupEvent.Type.GROUP_STATE_CHANGED);
    }

    /**
     * Makes withdrawals stop at WITHDRAWING, as when switches have not yet confirmed the removals.
     *
     * @param async whether withdrawals wait for {@link #completeWithdrawals()}
     */
    public synchronized void withdrawAsynchronously(boolean async) {
        this.asyncWithdraw = async;
    }

    /** Completes every pending withdrawal (WITHDRAWING to WITHDRAWN). */
    public synchronized void completeWithdrawals() {
        List.copyOf(groups.values()).stream().filter(g -> g.state() == GroupState.WITHDRAWING)
                .forEach(this::finishWithdrawal);
    }

    @Override
    public synchronized void purge(P2mpGroupId id) {
        P2mpGroup g = existing(id);
        boolean holdsEntries = plans.containsKey(id);
        if (g.state() != GroupState.WITHDRAWN && !(g.state() == GroupState.FAILED && !holdsEntries)) {
            throw GroupException.conflict("group " + id + " is " + g.state()
                    + (holdsEntries ? " and holds switch entries" : "") + "; withdraw it before purging");
        }
        groups.remove(id);
        plans.remove(id);
        post(P2mpGroupEvent.Type.GROUP_REMOVED, g);
    }

    @Override
    public synchronized P2mpGroup recompile(P2mpGroupId id) {
        return install(live(id));
    }

    @Override
    public synchronized Optional<P2mpGroup> getGroup(P2mpGroupId id) {
        return Optional.ofNullable(groups.get(id));
    }

    @Override
    public synchronized Optional<P2mpGroup> getGroup(GroupKey key) {
        return groups.values().stream().filter(g -> g.key().equals(key)).findFirst();
    }

    @Override
    public synchronized Collection<P2mpGroup> getGroups() {
        return ImmutableList.copyOf(groups.values());
    }

    @Override
    public synchronized Collection<P2mpGroup> getGroups(String tenant, String jobId, GroupState state) {
        return groups.values().stream()
                .filter(g -> tenant == null || g.key().tenant().equals(tenant))
                .filter(g -> jobId == null || g.request().jobId().equals(jobId))
                .filter(g -> state == null || g.state() == state)
                .collect(ImmutableList.toImmutableList());
    }

    @Override
    public synchronized GroupPlan getInstalledPlan(P2mpGroupId id) {
        return plans.getOrDefault(id, GroupPlan.empty());
    }

    @Override
    public synchronized int groupCount() {
        return groups.size();
    }

    @Override
    public void addListener(P2mpGroupListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(P2mpGroupListener listener) {
        listeners.remove(listener);
    }

    /**
     * Puts a group in a state directly, as a failing switch would.
     *
     * @param id     group
     * @param state  new state
     * @param reason why
     */
    public synchronized void force(P2mpGroupId id, GroupState state, String reason) {
        store(existing(id).withState(state, tick(), reason), P2mpGroupEvent.Type.GROUP_STATE_CHANGED);
    }

    /**
     * BITMAP groups get receiver bit i for the i-th known host (10.0.0.1 has bit 0).
     *
     * @param id group id
     * @return its bit map
     */
    @Override
    public synchronized GroupBitmap getBitmap(P2mpGroupId id) {
        P2mpGroup g = existing(id);
        if (g.effectiveMode() != ReplicationMode.BITMAP) {
            throw GroupException.conflict("group " + id + " is replicated as " + g.effectiveMode()
                    + ", not BITMAP; it has no bit map");
        }
        List<String> hosts = List.copyOf(knownHosts);
        Map<String, Integer> bits = new LinkedHashMap<>();
        long all = 0;
        for (Endpoint r : g.request().receivers()) {
            int bit = hosts.indexOf(r.host());
            bits.put(r.host(), bit);
            all |= 1L << bit;
        }
        return new GroupBitmap(id, GroupBitmap.CARRIER_ETH_SRC, bits, all, EthSrcBitmap.stamp(all).toString());
    }

    private P2mpGroup install(P2mpGroup g) {
        if (g.effectiveMode() == ReplicationMode.AUTO) {
            g = g.withEffectiveMode(ReplicationMode.TREE, "AUTO picks TREE: only TREE is implemented");
        }
        g = store(g.withState(GroupState.COMPILING, tick(), ""), P2mpGroupEvent.Type.GROUP_STATE_CHANGED);
        g = store(g.withState(GroupState.INSTALLING, tick(), ""), P2mpGroupEvent.Type.GROUP_STATE_CHANGED);
        plans.put(g.id(), plan(g));
        return store(g.withState(GroupState.INSTALLED, tick(), ""), P2mpGroupEvent.Type.GROUP_STATE_CHANGED);
    }

    // receiver i leaves by port i + 2; the source is on port 1; one uplink on port 99 for the link list
    private static GroupPlan plan(P2mpGroup g) {
        Set<PortNumber> outs = new LinkedHashSet<>();
        for (int i = 0; i < g.request().receivers().size(); i++) {
            outs.add(PortNumber.portNumber(i + 2L));
        }
        DeviceId spine = DeviceId.deviceId("of:0000000000000011");
        return new GroupPlan(Map.of(LEAF, new GroupPlan.Branch(PortNumber.portNumber(1), outs)),
                List.<ConnectPoint[]>of(new ConnectPoint[] {
                    new ConnectPoint(LEAF, PortNumber.portNumber(99)),
                    new ConnectPoint(spine, PortNumber.portNumber(1))}));
    }

    private void checkKnown(Endpoint e) {
        if (!knownHosts.contains(e.host())) {
            throw GroupException.invalid("unknown host " + e.host());
        }
    }

    private P2mpGroup existing(P2mpGroupId id) {
        P2mpGroup g = groups.get(id);
        if (g == null) {
            throw GroupException.notFound(id);
        }
        return g;
    }

    private P2mpGroup live(P2mpGroupId id) {
        P2mpGroup g = existing(id);
        if (!g.state().isLive()) {
            throw GroupException.conflict("group " + id + " is " + g.state());
        }
        return g;
    }

    private P2mpGroup store(P2mpGroup g, P2mpGroupEvent.Type type) {
        groups.put(g.id(), g);
        post(type, g);
        return g;
    }

    private void post(P2mpGroupEvent.Type type, P2mpGroup g) {
        P2mpGroupEvent event = new P2mpGroupEvent(type, g);
        listeners.forEach(l -> l.event(event));
    }

    private long tick() {
        return clock++;
    }
}
