package org.mcast4ai.lab;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.event.ListenerRegistry;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DefaultHost;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Host;
import org.onosproject.net.HostId;
import org.onosproject.net.HostLocation;
import org.onosproject.net.PortNumber;
import org.onosproject.net.host.HostEvent;
import org.onosproject.net.host.HostListener;
import org.onosproject.net.host.HostServiceAdapter;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * HostService over the lab fabric: every namespace host whose veth is plugged into a lab bridge, with its MAC,
 * IPv4 address and where it is plugged in, with id {@code MAC/None}. A host unplugged (its port deleted, or its
 * switch gone) raises HOST_REMOVED, plugged back HOST_ADDED, plugged in elsewhere HOST_MOVED: what ONOS's host
 * location provider does when a port or a device goes down and when a host shows up on another port.
 */
public class LabHostService extends HostServiceAdapter {

    private final LabTopology topology;
    private final List<LabFabric.Host> described;
    private final ListenerRegistry<HostEvent, HostListener> listeners = new ListenerRegistry<>();
    // the hosts of the current state, built once per change (the app reads hosts on every compile)
    private volatile Map<HostId, Host> current;

    /**
     * Creates the host service of a fabric that is all present and stays so.
     *
     * @param fabric lab fabric
     */
    public LabHostService(LabFabric fabric) {
        this(LabTopology.full(fabric));
    }

    /**
     * Creates the host service of a lab topology.
     *
     * @param topology what exists
     */
    public LabHostService(LabTopology topology) {
        this.topology = topology;
        this.described = topology.fabric().hosts();
        this.current = hostsOf(topology.state());
        topology.addObserver(this::changed);
    }

    private static Host host(LabFabric.Host h, LabTopology.Attachment at) {
        MacAddress mac = MacAddress.valueOf(h.mac());
        HostId id = HostId.hostId(mac, VlanId.NONE);
        HostLocation location = new HostLocation(DeviceId.deviceId(at.deviceId()),
                PortNumber.portNumber(at.port()), 0L);
        return new DefaultHost(LabDeviceService.PID, id, mac, VlanId.NONE, location,
                ImmutableSet.of(IpAddress.valueOf(h.ip())),
                DefaultAnnotations.builder().set("name", h.name()).build());
    }

    private Map<HostId, Host> hostsOf(LabTopology.State state) {
        Map<HostId, Host> out = new java.util.LinkedHashMap<>();
        for (LabFabric.Host h : described) {
            LabTopology.Attachment a = state.hosts().get(h.name());
            if (a != null) {
                Host host = host(h, a);
                out.put(host.id(), host);
            }
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    private void changed(LabTopology.State before, LabTopology.State after) {
        current = hostsOf(after);
        for (LabFabric.Host h : described) {
            LabTopology.Attachment was = before.hosts().get(h.name());
            LabTopology.Attachment is = after.hosts().get(h.name());
            if (was == null && is != null) {
                listeners.process(new HostEvent(HostEvent.Type.HOST_ADDED, host(h, is)));
            } else if (was != null && is == null) {
                listeners.process(new HostEvent(HostEvent.Type.HOST_REMOVED, host(h, was)));
            } else if (was != null && !was.equals(is)) {
                listeners.process(new HostEvent(HostEvent.Type.HOST_MOVED, host(h, is), host(h, was)));
            }
        }
    }

    private Set<Host> select(Predicate<Host> p) {
        ImmutableSet.Builder<Host> out = ImmutableSet.builder();
        for (Host host : current.values()) {
            if (p.test(host)) {
                out.add(host);
            }
        }
        return out.build();
    }

    @Override
    public int getHostCount() {
        return current.size();
    }

    @Override
    public Iterable<Host> getHosts() {
        return ImmutableList.copyOf(current.values());
    }

    @Override
    public Host getHost(HostId hostId) {
        return current.get(hostId);
    }

    @Override
    public Set<Host> getHostsByVlan(VlanId vlanId) {
        return select(h -> h.vlan().equals(vlanId));
    }

    @Override
    public Set<Host> getHostsByMac(MacAddress mac) {
        return select(h -> h.mac().equals(mac));
    }

    @Override
    public Set<Host> getHostsByIp(IpAddress ip) {
        return select(h -> h.ipAddresses().contains(ip));
    }

    @Override
    public Set<Host> getConnectedHosts(ConnectPoint connectPoint) {
        return select(h -> new ConnectPoint(h.location().deviceId(), h.location().port()).equals(connectPoint));
    }

    @Override
    public Set<Host> getConnectedHosts(DeviceId deviceId) {
        return select(h -> h.location().deviceId().equals(deviceId));
    }

    @Override
    public void addListener(HostListener listener) {
        listeners.addListener(listener);
    }

    @Override
    public void removeListener(HostListener listener) {
        listeners.removeListener(listener);
    }
}
