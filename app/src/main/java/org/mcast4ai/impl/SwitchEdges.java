package org.mcast4ai.impl;

import org.mcast4ai.impl.program.OpenFlowTreeProgrammer;
import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Host;
import org.onosproject.net.Link;
import org.onosproject.net.host.HostService;
import org.onosproject.net.link.LinkService;

import java.util.Set;

/**
 * Which switch ports face other switches (ONOS has a link from or to them) and which host sits on the others,
 * with the MAC and IPv4 address ONOS knows it by: what a reliable group's return routes bind their ports to.
 */
final class SwitchEdges implements OpenFlowTreeProgrammer.Edges {
    private final LinkService links;
    private final HostService hosts;

    SwitchEdges(LinkService links, HostService hosts) {
        this.links = links;
        this.hosts = hosts;
    }

    @Override
    public boolean fabric(ConnectPoint port) {
        return nonEmpty(links.getEgressLinks(port)) || nonEmpty(links.getIngressLinks(port));
    }

    private static boolean nonEmpty(Set<Link> s) {
        return s != null && !s.isEmpty();
    }

    @Override
    public OpenFlowTreeProgrammer.HostAddress host(ConnectPoint port) {
        Set<Host> on = hosts.getConnectedHosts(port);
        if (on == null) {
            return null;
        }
        for (Host h : on) {
            for (IpAddress ip : h.ipAddresses()) {
                if (ip.isIp4()) {
                    return new OpenFlowTreeProgrammer.HostAddress(h.mac(), ip.getIp4Address());
                }
            }
        }
        return null;
    }
}
