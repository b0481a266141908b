package org.mcast4ai.impl.fabric;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.Host;
import org.onosproject.net.HostId;
import org.onosproject.net.HostLocation;
import org.onosproject.net.host.HostService;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Finds the ONOS host an endpoint names: an ONOS host id ({@code MAC/VLAN}), else a MAC address, else an IP
 * address. A name that matches no host, or several, or a host without a location, is refused with a
 * message that says which.
 */
public final class HostResolver {
    private static final Pattern MAC = Pattern.compile("(?i)[0-9a-f]{2}([:-][0-9a-f]{2}){5}");
    /** Parsed host ids by name; names repeat across requests and parsing them is regex work. */
    private static final int MAX_PARSED = 1 << 16;

    private final HostService hostService;
    private final Map<String, HostId> parsed = new ConcurrentHashMap<>();
    private final Map<HostId, String> names = new ConcurrentHashMap<>();

    public HostResolver(HostService hostService) {
        this.hostService = hostService;
    }

    /**
     * @param endpoint endpoint as the user named it
     * @return the host, which has a location
     * @throws GroupException INVALID if the name is malformed, unknown, ambiguous or the host is unlocated
     */
    public Host resolve(Endpoint endpoint) {
        Host host = find(endpoint.host());
        HostLocation location = locationOf(host);
        if (location == null || location.equals(HostLocation.NONE)) {
            throw GroupException.invalid("host " + endpoint.host() + " has no known location in the fabric");
        }
        return host;
    }

    /**
     * What {@link Host#location()} answers, the most recent of the host's locations (the first of those as
     * recent), without the sorted stream ONOS 2.7's {@code DefaultHost} builds on every call: a 64-receiver
     * request asks 65 times and a fabric snapshot once per host.
     *
     * @param host a host
     * @return its most recent location, or null if it has none
     */
    public static HostLocation locationOf(Host host) {
        Set<HostLocation> all = host.locations();
        if (all == null) {
            return host.location();
        }
        HostLocation best = null;
        for (HostLocation l : all) {
            if (best == null || l.time() > best.time()) {
                best = l;
            }
        }
        return best;
    }

    /**
     * Like {@link #resolve} but without throwing.
     *
     * @param endpoint endpoint
     * @return the host id, or null if the endpoint does not resolve to a located host
     */
    public HostId resolveOrNull(Endpoint endpoint) {
        try {
            return resolve(endpoint).id();
        } catch (GroupException e) {
            return null;
        }
    }

    /**
     * The host id an endpoint names, for placing it in a {@link FabricView} (which holds only located hosts):
     * a host id name is parsed without asking the host service.
     *
     * @param endpoint endpoint
     * @return the host id, or null if the name is malformed, unknown or ambiguous
     */
    public HostId idOrNull(Endpoint endpoint) {
        String name = endpoint.host();
        try {
            return name.indexOf('/') >= 0 ? parse(name) : find(name).id();
        } catch (GroupException e) {
            return null;
        }
    }

    /**
     * @param id a host id
     * @return its text ({@code MAC/VLAN}), as the fabric snapshot names hosts; kept, since formatting a MAC
     *         address costs a {@code String.format} per byte
     */
    public String nameOf(HostId id) {
        String name = names.get(id);
        if (name == null) {
            name = id.toString();
            if (names.size() >= MAX_PARSED) {
                names.clear();
            }
            names.put(id, name);
        }
        return name;
    }

    private HostId parse(String name) {
        HostId id = parsed.get(name);
        if (id == null) {
            try {
                id = HostId.hostId(name);
            } catch (IllegalArgumentException e) {
                throw GroupException.invalid("'" + name + "' is not a valid ONOS host id (MAC/VLAN)");
            }
            if (parsed.size() >= MAX_PARSED) {
                parsed.clear();
            }
            parsed.put(name, id);
        }
        return id;
    }

    private Host find(String name) {
        if (name.indexOf('/') >= 0) {
            HostId id = parse(name);
            Host host = hostService.getHost(id);
            if (host == null) {
                throw GroupException.invalid("unknown host " + name);
            }
            return host;
        }
        if (MAC.matcher(name).matches()) {
            return single(name, hostService.getHostsByMac(MacAddress.valueOf(name.replace('-', ':'))));
        }
        IpAddress ip;
        try {
            ip = IpAddress.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw GroupException.invalid("'" + name + "' is neither an ONOS host id, a MAC address nor an IP address");
        }
        return single(name, hostService.getHostsByIp(ip));
    }

    private static Host single(String name, Set<Host> hosts) {
        if (hosts == null || hosts.isEmpty()) {
            throw GroupException.invalid("unknown host " + name);
        }
        if (hosts.size() > 1) {
            throw GroupException.invalid("host name " + name + " is ambiguous: it matches " + hosts.size()
                    + " hosts; name the host by its ONOS host id (MAC/VLAN)");
        }
        return hosts.iterator().next();
    }
}
