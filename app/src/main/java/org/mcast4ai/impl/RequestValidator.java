package org.mcast4ai.impl;

import org.mcast4ai.impl.fabric.HostResolver;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.api.VirtualPeer;
import org.mcast4ai.impl.bitmap.BitmapPlanner;
import org.onosproject.net.HostId;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The checks a request passes before anything is stored: what ACK_AGGREGATION needs (QPNs, TREE, at most 1,024
 * receivers), a priority above
 * the BITMAP tables' entry rules, the receiver limit,
 * that every endpoint names exactly one located host, distinct from the source and from each other, and that no
 * endpoint is a host of another tenant ({@link HostTenants}).
 */
final class RequestValidator {
    private final HostResolver hosts;
    private final java.util.function.Supplier<HostTenants> owners;

    RequestValidator(HostResolver hosts, java.util.function.Supplier<HostTenants> owners) {
        this.hosts = hosts;
        this.owners = owners;
    }

    /**
     * @param request      a new group
     * @param maxReceivers receiver limit
     */
    void checkNew(P2mpGroupRequest request, int maxReceivers) {
        if (request.priority() <= BitmapPlanner.ENTRY_PRIORITY) {
            // BITMAP's static entry rules sit at this priority on every switch; a group's rules must win
            throw GroupException.invalid("priority must be above " + BitmapPlanner.ENTRY_PRIORITY
                    + " (the BITMAP tables' entry rules); got " + request.priority());
        }
        checkCount(request.receivers().size(), maxReceivers);
        if (request.reliability() == Reliability.ACK_AGGREGATION) {
            checkReliable(request);
        }
        String tenant = request.key().tenant();
        org.onosproject.net.Host sourceHost = hosts.resolve(request.source());
        owners.get().check(tenant, "source", request.source(), sourceHost);
        HostId source = sourceHost.id();
        Map<HostId, Endpoint> seen = new HashMap<>();
        for (Endpoint r : request.receivers()) {
            checkReceiver(tenant, r, source, request.source(), seen);
        }
    }

    /**
     * @param group        the group
     * @param added        receivers to add
     * @param maxReceivers receiver limit
     */
    void checkAdd(P2mpGroup group, Set<Endpoint> added, int maxReceivers) {
        if (added == null || added.isEmpty()) {
            throw GroupException.invalid("name at least one receiver to add");
        }
        Set<Endpoint> current = group.request().receivers();
        // members already there (exactly, or by host name with another QPN) are not new: the count is of the
        // receivers the group will have
        int fresh = 0;
        for (Endpoint r : added) {
            if (find(current, r) == null) {
                fresh++;
            }
        }
        checkCount(current.size() + fresh, maxReceivers);
        if (group.request().reliability() == Reliability.ACK_AGGREGATION) {
            checkReliableCount(current.size() + fresh);
            for (Endpoint r : added) {
                checkQpn("receiver", r);
            }
        }
        Endpoint sourceEndpoint = group.request().source();
        HostId source = hosts.resolve(sourceEndpoint).id();
        Map<HostId, Endpoint> seen = new HashMap<>();
        for (Endpoint r : current) {
            HostId id = hosts.resolveOrNull(r);
            if (id != null) {
                seen.put(id, r);
            }
        }
        for (Endpoint r : added) {
            if (find(current, r) != null) {
                continue; // a member again, or a QPN change in place: its host was checked when it joined
            }
            checkReceiver(group.key().tenant(), r, source, sourceEndpoint, seen);
        }
    }

    /**
     * @param group   the group
     * @param removed receivers to remove
     * @return the group's endpoints to remove (matched exactly, by host name ignoring the QPN, or by the host
     *         the name resolves to)
     */
    Set<Endpoint> checkRemove(P2mpGroup group, Set<Endpoint> removed) {
        if (removed == null || removed.isEmpty()) {
            throw GroupException.invalid("name at least one receiver to remove");
        }
        Set<Endpoint> matched = new LinkedHashSet<>();
        for (Endpoint r : removed) {
            Endpoint m = find(group.request().receivers(), r);
            if (m != null) {
                matched.add(m);
                continue;
            }
            // named differently (a MAC for a member added by IP, say): the members on the same host; none is
            // fine: removing a receiver that is not there (a retried call) succeeds and changes nothing
            matched.addAll(sameHost(group.request().receivers(), r));
        }
        if (matched.size() >= group.request().receivers().size()) {
            throw GroupException.invalid("removing every receiver would leave group " + group.id()
                    + " empty; withdraw the group instead");
        }
        return matched;
    }

    /**
     * @param receivers a receiver set
     * @param wanted    an endpoint
     * @return the member equal to it, else the member with the same host name, else null
     */
    static Endpoint find(Set<Endpoint> receivers, Endpoint wanted) {
        if (receivers.contains(wanted)) {
            return wanted;
        }
        for (Endpoint r : receivers) {
            if (r.host().equalsIgnoreCase(wanted.host())) {
                return r;
            }
        }
        return null;
    }

    /**
     * @param receivers a receiver set
     * @param wanted    an endpoint named by host id, MAC or IP, with or without a QPN
     * @return the members on the host it names (with its QPN if it has one); empty if it names no known host
     */
    private Set<Endpoint> sameHost(Set<Endpoint> receivers, Endpoint wanted) {
        HostId id = hosts.idOrNull(wanted);
        Set<Endpoint> out = new LinkedHashSet<>();
        if (id == null) {
            return out;
        }
        for (Endpoint r : receivers) {
            if (id.equals(hosts.idOrNull(r)) && (wanted.qpn().isEmpty() || wanted.qpn().equals(r.qpn()))) {
                out.add(r);
            }
        }
        return out;
    }

    /*
     * An RC sender's QP has one peer, and so does every receiver's: each endpoint names its QP (the edge rewrites
     * the copy to it, the aggregation point knows the receiver's ACKs by it), the replication is a tree (the ACKs
     * follow it back to the source) and the receivers fit the aggregation point's slots.
     */
    private static void checkReliable(P2mpGroupRequest request) {
        if (request.mode() == ReplicationMode.BITMAP) {
            throw GroupException.invalid("mode BITMAP cannot carry ACK_AGGREGATION: receivers' ACKs return along "
                    + "the group's tree; use TREE or AUTO");
        }
        checkQpn("source", request.source());
        for (Endpoint r : request.receivers()) {
            checkQpn("receiver", r);
        }
        checkReliableCount(request.receivers().size());
    }

    private static void checkQpn(String field, Endpoint e) {
        if (e.qpn().isEmpty()) {
            throw GroupException.invalid(field + " " + e + ": ACK_AGGREGATION needs the QPN of its RC queue pair "
                    + "({\"host\": ..., \"qpn\": N})");
        }
    }

    private static void checkReliableCount(int count) {
        if (count > VirtualPeer.MAX_RECEIVERS) {
            throw GroupException.limit("an ACK_AGGREGATION group has at most " + VirtualPeer.MAX_RECEIVERS
                    + " receivers (the aggregation point's slots); this one would have " + count);
        }
    }

    private static void checkCount(int count, int max) {
        if (count > max) {
            throw GroupException.limit("a group may have at most " + max + " receivers (maxReceiversPerGroup); "
                    + "this one would have " + count);
        }
    }

    private void checkReceiver(String tenant, Endpoint r, HostId source, Endpoint sourceEndpoint,
                               Map<HostId, Endpoint> seen) {
        org.onosproject.net.Host host = hosts.resolve(r);
        owners.get().check(tenant, "receiver", r, host);
        HostId id = host.id();
        if (id.equals(source)) {
            throw GroupException.invalid("receiver " + r + " is the source host " + sourceEndpoint);
        }
        Endpoint other = seen.putIfAbsent(id, r);
        if (other != null) {
            throw GroupException.invalid("receivers " + other + " and " + r + " are the same host " + id);
        }
    }
}
