package org.mcast4ai.testing;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import org.onlab.packet.ChassisId;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.DefaultHost;
import org.onosproject.net.DefaultLink;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Host;
import org.onosproject.net.HostId;
import org.onosproject.net.HostLocation;
import org.onosproject.net.Link;
import org.onosproject.net.Port;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.host.HostEvent;
import org.onosproject.net.host.HostListener;
import org.onosproject.net.host.HostServiceAdapter;
import org.onosproject.net.link.LinkEvent;
import org.onosproject.net.link.LinkListener;
import org.onosproject.net.link.LinkServiceAdapter;
import org.onosproject.net.provider.ProviderId;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * A leaf-spine fabric served through ONOS's device, link and host service adapters, with methods to take
 * links and devices down and to move hosts (each fires the event ONOS would).
 *
 * <p>Spines are {@code of:00000000000001SS}, leaves {@code of:00000000000002LL}; leaf port h (1..hosts)
 * faces host h, leaf port hosts+s faces spine s, spine port l faces leaf l. Host h of leaf l has MAC
 * {@code 00:00:00:00:LL:HH}, IP {@code 10.0.L.H} and VLAN none.
 */
public final class TestFabric {
    public static final ProviderId PID = new ProviderId("of", "org.mcast4ai.test");

    public final int spines;
    public final int leaves;
    public final int hostsPerLeaf;
    public final Devices devices = new Devices();
    public final Links links = new Links();
    public final Hosts hosts = new Hosts();

    private final Map<DeviceId, Device> deviceMap = new LinkedHashMap<>();
    private final Set<DeviceId> down = new java.util.HashSet<>();
    private final List<Link> linkList = new ArrayList<>();
    private final Map<HostId, Host> hostMap = new LinkedHashMap<>();

    public TestFabric(int spines, int leaves, int hostsPerLeaf) {
        this.spines = spines;
        this.leaves = leaves;
        this.hostsPerLeaf = hostsPerLeaf;
        for (int s = 1; s <= spines; s++) {
            addDevice(spine(s));
        }
        for (int l = 1; l <= leaves; l++) {
            addDevice(leaf(l));
            for (int s = 1; s <= spines; s++) {
                addLink(leaf(l), hostsPerLeaf + s, spine(s), l);
                addLink(spine(s), l, leaf(l), hostsPerLeaf + s);
            }
            for (int h = 1; h <= hostsPerLeaf; h++) {
                Host host = host(l, h, leaf(l), h);
                hostMap.put(host.id(), host);
            }
        }
    }

    /** @return the default lab fabric: 2 spines, 4 leaves, 2 hosts per leaf */
    public static TestFabric leafSpine() {
        return new TestFabric(2, 4, 2);
    }

    public static DeviceId spine(int s) {
        return DeviceId.deviceId(String.format("of:00000000000001%02x", s));
    }

    public static DeviceId leaf(int l) {
        return DeviceId.deviceId(String.format("of:00000000000002%02x", l));
    }

    public static MacAddress mac(int leaf, int host) {
        return MacAddress.valueOf(String.format("00:00:00:00:%02x:%02x", leaf, host));
    }

    /** @return host id string of host h on leaf l, as users name it */
    public static String hostId(int leaf, int host) {
        return HostId.hostId(mac(leaf, host), VlanId.NONE).toString();
    }

    public static String ip(int leaf, int host) {
        return "10.0." + leaf + "." + host;
    }

    public static PortNumber port(long p) {
        return PortNumber.portNumber(p);
    }

    /** @return the leaf port facing spine s */
    public PortNumber uplink(int s) {
        return port(hostsPerLeaf + s);
    }

    private static Host host(int l, int h, DeviceId at, long port) {
        return new DefaultHost(PID, HostId.hostId(mac(l, h), VlanId.NONE), mac(l, h), VlanId.NONE,
                new HostLocation(at, port(port), 0L), ImmutableSet.of(IpAddress.valueOf(ip(l, h))));
    }

    private void addDevice(DeviceId id) {
        deviceMap.put(id, new DefaultDevice(PID, id, Device.Type.SWITCH, "mcast4ai", "1", "1", "1",
                new ChassisId()));
    }

    private void addLink(DeviceId a, long ap, DeviceId b, long bp) {
        linkList.add(DefaultLink.builder().providerId(PID)
                .src(new ConnectPoint(a, port(ap))).dst(new ConnectPoint(b, port(bp)))
                .type(Link.Type.DIRECT).state(Link.State.ACTIVE).build());
    }

    /**
     * Adds a located host.
     *
     * @param leaf the leaf (1-based)
     * @param port its port there
     * @param mac  the host's MAC
     * @param ip   its IP
     */
    public void addHost(int leaf, long port, MacAddress mac, String ip) {
        Host h = new DefaultHost(PID, HostId.hostId(mac, VlanId.NONE), mac, VlanId.NONE,
                new HostLocation(leaf(leaf), port(port), 0L), ImmutableSet.of(IpAddress.valueOf(ip)));
        hostMap.put(h.id(), h);
    }

    /** Adds a host without a location (known to ONOS, not placed). */
    public void addUnlocatedHost(MacAddress mac, String ip) {
        Host h = new DefaultHost(PID, HostId.hostId(mac, VlanId.NONE), mac, VlanId.NONE, HostLocation.NONE,
                ImmutableSet.of(IpAddress.valueOf(ip)));
        hostMap.put(h.id(), h);
    }

    /** Adds a second host with the given IP on leaf 1 port 9 (makes that IP ambiguous). */
    public void addHostWithIp(MacAddress mac, String ip) {
        Host h = new DefaultHost(PID, HostId.hostId(mac, VlanId.NONE), mac, VlanId.NONE,
                new HostLocation(leaf(1), port(9), 0L), ImmutableSet.of(IpAddress.valueOf(ip)));
        hostMap.put(h.id(), h);
    }

    /** Takes both directions of the link between a leaf and a spine down. */
    public void linkDown(int leafNo, int spineNo) {
        List<Link> gone = linkList.stream()
                .filter(k -> k.src().deviceId().equals(leaf(leafNo)) && k.dst().deviceId().equals(spine(spineNo))
                        || k.src().deviceId().equals(spine(spineNo)) && k.dst().deviceId().equals(leaf(leafNo)))
                .collect(Collectors.toList());
        linkList.removeAll(gone);
        linksCut.addAll(gone);
        for (Link k : gone) {
            links.fire(new LinkEvent(LinkEvent.Type.LINK_REMOVED, k));
        }
    }

    private final java.util.Map<DeviceId, List<Link>> linksOfDown = new java.util.HashMap<>();
    private final List<Link> linksCut = new ArrayList<>();

    /** Brings both directions of a link taken down with {@link #linkDown} back. */
    public void linkUp(int leafNo, int spineNo) {
        List<Link> back = linksCut.stream()
                .filter(k -> k.src().deviceId().equals(leaf(leafNo)) && k.dst().deviceId().equals(spine(spineNo))
                        || k.src().deviceId().equals(spine(spineNo)) && k.dst().deviceId().equals(leaf(leafNo)))
                .collect(Collectors.toList());
        linksCut.removeAll(back);
        for (Link k : back) {
            linkList.add(k);
            links.fire(new LinkEvent(LinkEvent.Type.LINK_ADDED, k));
        }
    }

    /** Takes a device down (unavailable) and its links with it. */
    public void deviceDown(DeviceId id) {
        down.add(id);
        devices.fire(new DeviceEvent(DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED, deviceMap.get(id)));
        List<Link> gone = linkList.stream()
                .filter(k -> k.src().deviceId().equals(id) || k.dst().deviceId().equals(id))
                .collect(Collectors.toList());
        linksOfDown.put(id, gone);
        linkList.removeAll(gone);
        for (Link k : gone) {
            links.fire(new LinkEvent(LinkEvent.Type.LINK_REMOVED, k));
        }
    }

    /** Brings a device taken down back with its links, in ONOS's order: the device, then its links. */
    public void deviceUp(DeviceId id) {
        down.remove(id);
        devices.fire(new DeviceEvent(DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED, deviceMap.get(id)));
        for (Link k : linksOfDown.getOrDefault(id, List.of())) {
            linkList.add(k);
            links.fire(new LinkEvent(LinkEvent.Type.LINK_ADDED, k));
        }
    }

    /**
     * Attaches more hosts to a leaf: host h (first..first+count-1) on port 100+h, each announced with
     * HOST_ADDED.
     */
    public void addHosts(int l, int first, int count) {
        for (int h = first; h < first + count; h++) {
            Host host = host(l, h, leaf(l), 100 + h);
            hostMap.put(host.id(), host);
            hosts.fire(new HostEvent(HostEvent.Type.HOST_ADDED, host));
        }
    }

    /** Moves host h of leaf l to another leaf port. */
    public void moveHost(int l, int h, DeviceId to, long port) {
        Host before = hostMap.get(HostId.hostId(mac(l, h), VlanId.NONE));
        Host after = host(l, h, to, port);
        hostMap.put(after.id(), after);
        hosts.fire(new HostEvent(HostEvent.Type.HOST_MOVED, after, before));
    }

    /** Device service over the fabric. */
    public final class Devices extends DeviceServiceAdapter {
        private final List<DeviceListener> listeners = new CopyOnWriteArrayList<>();

        @Override
        public int getDeviceCount() {
            return deviceMap.size();
        }

        @Override
        public int getAvailableDeviceCount() {
            return (int) deviceMap.keySet().stream().filter(d -> !down.contains(d)).count();
        }

        @Override
        public List<Port> getPorts(DeviceId id) {
            if (!isAvailable(id)) {
                return List.of();
            }
            Device d = deviceMap.get(id);
            Set<Long> numbers = new java.util.TreeSet<>();
            hostMap.values().stream().filter(h -> h.location().deviceId().equals(id))
                    .forEach(h -> numbers.add(h.location().port().toLong()));
            linkList.stream().filter(l -> l.src().deviceId().equals(id))
                    .forEach(l -> numbers.add(l.src().port().toLong()));
            return numbers.stream().map(n -> (Port) new DefaultPort(d, port(n), true))
                    .collect(ImmutableList.toImmutableList());
        }

        @Override
        public Iterable<Device> getAvailableDevices() {
            return deviceMap.values().stream().filter(d -> !down.contains(d.id()))
                    .collect(ImmutableList.toImmutableList());
        }

        @Override
        public Iterable<Device> getDevices() {
            return ImmutableList.copyOf(deviceMap.values());
        }

        @Override
        public Device getDevice(DeviceId id) {
            return deviceMap.get(id);
        }

        @Override
        public boolean isAvailable(DeviceId id) {
            return deviceMap.containsKey(id) && !down.contains(id);
        }

        @Override
        public void addListener(DeviceListener l) {
            listeners.add(l);
        }

        @Override
        public void removeListener(DeviceListener l) {
            listeners.remove(l);
        }

        void fire(DeviceEvent e) {
            listeners.stream().filter(l -> l.isRelevant(e)).forEach(l -> l.event(e));
        }
    }

    /** Link service over the fabric. */
    public final class Links extends LinkServiceAdapter {
        private final List<LinkListener> listeners = new CopyOnWriteArrayList<>();

        @Override
        public Iterable<Link> getActiveLinks() {
            return ImmutableList.copyOf(linkList);
        }

        @Override
        public Iterable<Link> getLinks() {
            return ImmutableList.copyOf(linkList);
        }

        @Override
        public int getLinkCount() {
            return linkList.size();
        }

        @Override
        public Set<Link> getEgressLinks(ConnectPoint cp) {
            return linkList.stream().filter(k -> k.src().equals(cp)).collect(Collectors.toSet());
        }

        @Override
        public Set<Link> getIngressLinks(ConnectPoint cp) {
            return linkList.stream().filter(k -> k.dst().equals(cp)).collect(Collectors.toSet());
        }

        @Override
        public void addListener(LinkListener l) {
            listeners.add(l);
        }

        @Override
        public void removeListener(LinkListener l) {
            listeners.remove(l);
        }

        void fire(LinkEvent e) {
            listeners.stream().filter(l -> l.isRelevant(e)).forEach(l -> l.event(e));
        }
    }

    /** Host service over the fabric. */
    public final class Hosts extends HostServiceAdapter {
        private final List<HostListener> listeners = new CopyOnWriteArrayList<>();

        @Override
        public Set<Host> getConnectedHosts(DeviceId id) {
            return hostMap.values().stream().filter(h -> h.location().deviceId().equals(id))
                    .collect(Collectors.toSet());
        }

        @Override
        public Set<Host> getConnectedHosts(ConnectPoint cp) {
            return hostMap.values().stream().filter(h -> h.location() != null
                    && h.location().deviceId().equals(cp.deviceId()) && h.location().port().equals(cp.port()))
                    .collect(Collectors.toSet());
        }

        @Override
        public Iterable<Host> getHosts() {
            return ImmutableList.copyOf(hostMap.values());
        }

        @Override
        public int getHostCount() {
            return hostMap.size();
        }

        @Override
        public Host getHost(HostId id) {
            return hostMap.get(id);
        }

        @Override
        public Set<Host> getHostsByMac(MacAddress mac) {
            return hostMap.values().stream().filter(h -> h.mac().equals(mac)).collect(Collectors.toSet());
        }

        @Override
        public Set<Host> getHostsByIp(IpAddress ip) {
            return hostMap.values().stream().filter(h -> h.ipAddresses().contains(ip)).collect(Collectors.toSet());
        }

        @Override
        public void addListener(HostListener l) {
            listeners.add(l);
        }

        @Override
        public void removeListener(HostListener l) {
            listeners.remove(l);
        }

        void fire(HostEvent e) {
            listeners.stream().filter(l -> l.isRelevant(e)).forEach(l -> l.event(e));
        }
    }
}
