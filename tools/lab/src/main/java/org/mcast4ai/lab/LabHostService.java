package org.mcast4ai.lab;

import com.google.common.collect.ImmutableMap;
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

import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * HostService over the lab fabric: every namespace host with its MAC, IPv4 address and location,
 * with id {@code MAC/None}.
 */
public class LabHostService extends HostServiceAdapter {

    private final Map<HostId, Host> hosts;
    private final ListenerRegistry<HostEvent, HostListener> listeners = new ListenerRegistry<>();

    /**
     * Creates the host service of a fabric.
     *
     * @param fabric lab fabric
     */
    public LabHostService(LabFabric fabric) {
        ImmutableMap.Builder<HostId, Host> b = ImmutableMap.builder();
        for (LabFabric.Host h : fabric.hosts()) {
            MacAddress mac = MacAddress.valueOf(h.mac());
            HostId id = HostId.hostId(mac, VlanId.NONE);
            HostLocation location = new HostLocation(DeviceId.deviceId(h.deviceId()),
                                                     PortNumber.portNumber(h.port()), 0L);
            b.put(id, new DefaultHost(LabDeviceService.PID, id, mac, VlanId.NONE, location,
                                      ImmutableSet.of(IpAddress.valueOf(h.ip())),
                                      DefaultAnnotations.builder().set("name", h.name()).build()));
        }
        hosts = b.build();
    }

    private Set<Host> select(Predicate<Host> p) {
        return hosts.values().stream().filter(p).collect(ImmutableSet.toImmutableSet());
    }

    @Override
    public int getHostCount() {
        return hosts.size();
    }

    @Override
    public Iterable<Host> getHosts() {
        return hosts.values();
    }

    @Override
    public Host getHost(HostId hostId) {
        return hosts.get(hostId);
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
        return select(h -> h.location().equals(connectPoint)
                || new ConnectPoint(h.location().deviceId(), h.location().port()).equals(connectPoint));
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
