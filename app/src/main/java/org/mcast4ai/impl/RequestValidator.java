package org.mcast4ai.impl;

import org.mcast4ai.impl.fabric.HostResolver;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.impl.bitmap.BitmapPlanner;
import org.onosproject.net.HostId;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The checks a request passes before anything is stored: reliability this release supports, a priority above
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
        if (request.reliability() == Reliability.ACK_AGGREGATION) {
            throw GroupException.invalid("ACK_AGGREGATION reliability is not available yet; use NONE");
        }
        checkCount(request.receivers().size(), maxReceivers);
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
