package org.mcast4ai.impl.reliable;

import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.VirtualPeer;
import org.mcast4ai.impl.fabric.HostResolver;
import org.mcast4ai.impl.store.P2mpGroupStore;
import org.onlab.packet.IpAddress;
import org.onosproject.net.Host;
import org.onosproject.net.HostLocation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The controller's side of ACK aggregation: the context an aggregation point is configured from (computed from
 * the stored group and ONOS's hosts on every read, so a host that moves or changes its address is followed), and
 * the reports it sends back. Reports are kept in memory on the instance that received them (the agent reports
 * again every few hundred milliseconds); the receivers it stopped waiting for are stored with the group, since
 * they change its state.
 */
public final class Aggregations {
    private final P2mpGroupStore store;
    private final HostResolver hosts;
    private final LongSupplier clock;
    private final Map<Long, AggregationReport> reports = new ConcurrentHashMap<>();

    /**
     * @param store the group store
     * @param hosts resolves endpoints to ONOS hosts
     * @param clock milliseconds
     */
    public Aggregations(P2mpGroupStore store, HostResolver hosts, LongSupplier clock) {
        this.store = store;
        this.hosts = hosts;
        this.clock = clock;
    }

    /**
     * @param id a group id
     * @return its context, empty if there is no such group
     * @throws GroupException CONFLICT if the group is not ACK_AGGREGATION
     */
    public Optional<AggregationContext> context(P2mpGroupId id) {
        return store.get(id).map(this::context);
    }

    /**
     * @param group a group
     * @return its context
     * @throws GroupException CONFLICT if the group is not ACK_AGGREGATION
     */
    public AggregationContext context(P2mpGroup group) {
        VirtualPeer peer = group.peer().orElseThrow(() -> GroupException.conflict("group " + group.id()
                + " has reliability " + group.request().reliability() + ", not ACK_AGGREGATION"));
        AggregationReport report = reports.get(group.id().value());
        AggregationContext.Member sender = member(group.request().source(), -1, peer.qpn(), peer.startPsn(), true);
        List<AggregationContext.Member> receivers = new ArrayList<>();
        List<String> unresolved = new ArrayList<>();
        if (sender == null) {
            unresolved.add(group.request().source().host());
            sender = new AggregationContext.Member(group.request().source().host(), IpAddress.valueOf(0),
                    org.onlab.packet.MacAddress.ZERO, group.request().source().qpn().orElse(0), -1, peer.qpn(),
                    null, peer.startPsn(), true);
        }
        for (Endpoint r : group.request().receivers()) {
            Integer slot = peer.slots().get(r.host());
            int join = peer.joined().getOrDefault(r.host(), peer.startPsn());
            AggregationContext.Member m = slot == null ? null : member(r, slot, peer.peerQpn(r.host()), join,
                    peer.joined().containsKey(r.host()));
            if (m == null) {
                unresolved.add(r.host());
            } else {
                receivers.add(m);
            }
        }
        return new AggregationContext(group, sender, receivers, unresolved, report);
    }

    private AggregationContext.Member member(Endpoint e, int slot, int peerQpn, int joinPsn, boolean joined) {
        Host host;
        try {
            host = hosts.resolve(e);
        } catch (GroupException notThere) {
            return null;
        }
        IpAddress ip = null;
        try {
            IpAddress named = IpAddress.valueOf(e.host());
            ip = named.isIp4() ? named : null;
        } catch (IllegalArgumentException notAnAddress) {
            // named by MAC or host id: the host's first IPv4 address
        }
        if (ip == null) {
            ip = host.ipAddresses().stream().filter(IpAddress::isIp4).sorted().findFirst().orElse(null);
        }
        if (ip == null) {
            return null;
        }
        HostLocation loc = HostResolver.locationOf(host);
        return new AggregationContext.Member(e.host(), ip, host.mac(), e.qpn().orElse(0), slot, peerQpn, loc,
                joinPsn, joined);
    }

    /**
     * @param id     group id
     * @param report what the aggregation point reports
     * @throws GroupException NOT_FOUND, CONFLICT (not ACK_AGGREGATION, not live), INVALID (unknown receiver)
     */
    public void report(P2mpGroupId id, AggregationReport report) {
        P2mpGroup group = store.get(id).orElseThrow(() -> GroupException.notFound(id));
        VirtualPeer peer = group.peer().orElseThrow(() -> GroupException.conflict("group " + id
                + " has reliability " + group.request().reliability() + ", not ACK_AGGREGATION"));
        if (!group.state().isLive()) {
            throw GroupException.conflict("group " + id + " is " + group.state() + "; its aggregation is freed");
        }
        for (String s : report.stalled()) {
            if (!peer.slots().containsKey(s)) {
                throw GroupException.invalid("stalled: " + s + " is not a receiver of group " + id);
            }
        }
        reports.put(id.value(), report.receivedAt(clock.getAsLong()));
        if (next(peer, report) != peer) {
            store.update(id, cur -> {
                VirtualPeer p = cur.peer().orElse(null);
                if (p == null || !cur.state().isLive() || next(p, report) == p) {
                    return cur;
                }
                // recompiled like any change: the outcome (waiting for receivers to join, DEGRADED while one is
                // stalled) is the compiler's
                VirtualPeer n = next(p, report);
                return cur.withPeer(n).withState(GroupState.SUBMITTED, clock.getAsLong(), why(p, n));
            });
        }
    }

    // what the group keeps of a report: who is stalled, who joined at which PSN
    private static VirtualPeer next(VirtualPeer p, AggregationReport report) {
        return p.withStalled(report.stalled()).withJoined(report.joinPsn());
    }

    private static String why(VirtualPeer was, VirtualPeer now) {
        if (!now.stalled().equals(was.stalled())) {
            return now.stalled().isEmpty() ? "every receiver acknowledges again"
                    : "the aggregation point stopped waiting for " + String.join(", ", now.stalled());
        }
        return now.waitingToJoin().isEmpty() ? "the aggregation point joined every receiver"
                : "the aggregation point joined " + now.joined().size() + " of " + now.slots().size() + " receivers";
    }

    /** @param id a group that is gone: its report goes too */
    public void forget(P2mpGroupId id) {
        reports.remove(id.value());
    }
}
