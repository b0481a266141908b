package org.mcast4ai.impl;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onosproject.net.Host;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which tenant owns which hosts, from the {@code hostTenants} setting:
 * {@code t1=10.77.1.0/24,02:00:00:00:02:01;t2=10.77.3.0/24}: per tenant, IPv4/IPv6 prefixes and MAC addresses.
 * A group may name as its source or receivers only hosts its tenant owns or no tenant owns, so no tenant can
 * send copies to another tenant's hosts or take their traffic. A host that no entry names is anyone's (the
 * default, with the setting empty).
 */
final class HostTenants {
    static final HostTenants NONE = new HostTenants(Map.of(), List.of());

    private final Map<MacAddress, String> macs;
    private final List<Map.Entry<IpPrefix, String>> prefixes;

    private HostTenants(Map<MacAddress, String> macs, List<Map.Entry<IpPrefix, String>> prefixes) {
        this.macs = macs;
        this.prefixes = prefixes;
    }

    /**
     * @param text the setting; null or blank for none
     * @return the ownership it describes
     * @throws IllegalArgumentException naming the entry that is not {@code tenant=prefix-or-mac,...}, or a host
     *                                  given to two tenants
     */
    static HostTenants parse(String text) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        Map<MacAddress, String> macs = new HashMap<>();
        List<Map.Entry<IpPrefix, String>> prefixes = new ArrayList<>();
        for (String entry : text.split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            int eq = entry.indexOf('=');
            String tenant = eq < 0 ? "" : entry.substring(0, eq).trim();
            if (tenant.isEmpty()) {
                throw new IllegalArgumentException("'" + entry.trim() + "' is not tenant=prefix-or-mac,...");
            }
            for (String h : entry.substring(eq + 1).split(",")) {
                String host = h.trim();
                if (host.isEmpty()) {
                    continue;
                }
                String before;
                if (host.matches("(?i)[0-9a-f]{2}(:[0-9a-f]{2}){5}")) {
                    before = macs.put(MacAddress.valueOf(host), tenant);
                } else {
                    IpPrefix p;
                    try {
                        p = host.contains("/") ? IpPrefix.valueOf(host) : IpAddress.valueOf(host).toIpPrefix();
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("'" + host + "' (tenant " + tenant + ") is neither a MAC "
                                + "nor an IP prefix");
                    }
                    before = null;
                    for (Map.Entry<IpPrefix, String> e : prefixes) {
                        if ((e.getKey().contains(p) || p.contains(e.getKey())) && !e.getValue().equals(tenant)) {
                            before = e.getValue();
                        }
                    }
                    prefixes.add(Map.entry(p, tenant));
                }
                if (before != null && !before.equals(tenant)) {
                    throw new IllegalArgumentException("'" + host + "' is given to tenants " + before + " and "
                            + tenant);
                }
            }
        }
        return new HostTenants(Map.copyOf(macs), List.copyOf(prefixes));
    }

    /**
     * @param host a host
     * @return the tenant that owns it, or null if none does
     */
    String ownerOf(Host host) {
        String byMac = macs.get(host.mac());
        if (byMac != null) {
            return byMac;
        }
        for (IpAddress ip : host.ipAddresses()) {
            for (Map.Entry<IpPrefix, String> e : prefixes) {
                if (e.getKey().contains(ip)) {
                    return e.getValue();
                }
            }
        }
        return null;
    }

    /**
     * @param tenant   the group's tenant
     * @param role     "source" or "receiver", for the message
     * @param endpoint the endpoint as given
     * @param host     the host it names
     * @throws GroupException FORBIDDEN if another tenant owns the host
     */
    void check(String tenant, String role, Endpoint endpoint, Host host) {
        String owner = ownerOf(host);
        if (owner != null && !owner.equals(tenant)) {
            throw GroupException.forbidden(role + " " + endpoint + " is a host of tenant " + owner
                    + " (hostTenants); tenant " + tenant + " may not use it");
        }
    }

    /** @return whether no host is owned */
    boolean isEmpty() {
        return macs.isEmpty() && prefixes.isEmpty();
    }
}
