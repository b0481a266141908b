package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableList;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The lab fabric description written by {@code tools/lab/fabric}: switches (OVS bridges), links
 * between them (listed once, bidirectional) and hosts in network namespaces.
 */
public final class LabFabric {

    private final String name;
    private final List<Switch> switches;
    private final List<Link> links;
    private final List<Host> hosts;

    /**
     * Creates a fabric description.
     *
     * @param name     fabric name
     * @param switches switches
     * @param links    links, each listed once
     * @param hosts    hosts
     */
    public LabFabric(String name, List<Switch> switches, List<Link> links, List<Host> hosts) {
        this.name = name;
        this.switches = ImmutableList.copyOf(switches);
        this.links = ImmutableList.copyOf(links);
        this.hosts = ImmutableList.copyOf(hosts);
    }

    /**
     * Reads a fabric description file.
     *
     * @param file JSON file
     * @return the fabric
     * @throws IOException if the file cannot be read
     * @throws IllegalArgumentException if a required field is missing
     */
    public static LabFabric read(Path file) throws IOException {
        JsonNode root = new ObjectMapper().readTree(Files.readAllBytes(file));
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(file + ": not a JSON object");
        }
        ImmutableList.Builder<Switch> switches = ImmutableList.builder();
        for (JsonNode s : root.path("switches")) {
            switches.add(new Switch(text(s, "name"), text(s, "bridge"), text(s, "dpid"),
                                    text(s, "deviceId"), text(s, "role")));
        }
        ImmutableList.Builder<Link> links = ImmutableList.builder();
        for (JsonNode l : root.path("links")) {
            links.add(new Link(text(l, "a"), number(l, "aPort"), text(l, "aBridge"),
                               text(l, "b"), number(l, "bPort"), text(l, "bBridge")));
        }
        ImmutableList.Builder<Host> hosts = ImmutableList.builder();
        for (JsonNode h : root.path("hosts")) {
            hosts.add(new Host(text(h, "name"), text(h, "ns"), h.path("iface").asText("eth0"),
                               text(h, "mac"), text(h, "ip"), text(h, "deviceId"), number(h, "port")));
        }
        return new LabFabric(root.path("name").asText("lab"), switches.build(), links.build(), hosts.build());
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || !v.isValueNode() || v.asText().isEmpty()) {
            throw new IllegalArgumentException("fabric description: missing \"" + field + "\" in " + node);
        }
        return v.asText();
    }

    private static long number(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || !v.canConvertToLong()) {
            throw new IllegalArgumentException("fabric description: missing number \"" + field + "\" in " + node);
        }
        return v.asLong();
    }

    /**
     * Returns the fabric name.
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the switches.
     *
     * @return switches
     */
    public List<Switch> switches() {
        return switches;
    }

    /**
     * Returns the links, each listed once.
     *
     * @return links
     */
    public List<Link> links() {
        return links;
    }

    /**
     * Returns the hosts.
     *
     * @return hosts
     */
    public List<Host> hosts() {
        return hosts;
    }

    /**
     * Finds a switch by ONOS device id.
     *
     * @param deviceId device id string, e.g. {@code of:0000000000000101}
     * @return the switch, if any
     */
    public Optional<Switch> switchById(String deviceId) {
        return switches.stream().filter(s -> s.deviceId().equals(deviceId)).findFirst();
    }

    /**
     * Finds a host by name, MAC or IP.
     *
     * @param key name, MAC or IP
     * @return the host, if any
     */
    public Optional<Host> host(String key) {
        return hosts.stream()
                .filter(h -> h.name().equals(key) || h.mac().equalsIgnoreCase(key) || h.ip().equals(key))
                .findFirst();
    }

    /** A switch: one Open vSwitch bridge. */
    public static final class Switch {
        private final String name;
        private final String bridge;
        private final String dpid;
        private final String deviceId;
        private final String role;

        /**
         * Creates a switch.
         *
         * @param name     switch name
         * @param bridge   OVS bridge name
         * @param dpid     datapath id (16 hex digits)
         * @param deviceId ONOS device id
         * @param role     LEAF, SPINE or SUPER_SPINE
         */
        public Switch(String name, String bridge, String dpid, String deviceId, String role) {
            this.name = name;
            this.bridge = bridge;
            this.dpid = dpid;
            this.deviceId = deviceId;
            this.role = role;
        }

        /**
         * Returns the switch name.
         *
         * @return name
         */
        public String name() {
            return name;
        }

        /**
         * Returns the OVS bridge name.
         *
         * @return bridge
         */
        public String bridge() {
            return bridge;
        }

        /**
         * Returns the datapath id.
         *
         * @return dpid
         */
        public String dpid() {
            return dpid;
        }

        /**
         * Returns the ONOS device id string.
         *
         * @return device id
         */
        public String deviceId() {
            return deviceId;
        }

        /**
         * Returns the role.
         *
         * @return role
         */
        public String role() {
            return role;
        }
    }

    /** A bidirectional link between two switch ports. */
    public static final class Link {
        private final String a;
        private final long aPort;
        private final String aBridge;
        private final String b;
        private final long bPort;
        private final String bBridge;

        /**
         * Creates a link.
         *
         * @param a       device id of one end
         * @param aPort   OpenFlow port at that end
         * @param aBridge bridge at that end
         * @param b       device id of the other end
         * @param bPort   OpenFlow port at the other end
         * @param bBridge bridge at the other end
         */
        public Link(String a, long aPort, String aBridge, String b, long bPort, String bBridge) {
            this.a = a;
            this.aPort = aPort;
            this.aBridge = aBridge;
            this.b = b;
            this.bPort = bPort;
            this.bBridge = bBridge;
        }

        /**
         * Returns the device id of end a.
         *
         * @return device id
         */
        public String a() {
            return a;
        }

        /**
         * Returns the port of end a.
         *
         * @return port
         */
        public long aPort() {
            return aPort;
        }

        /**
         * Returns the bridge of end a.
         *
         * @return bridge
         */
        public String aBridge() {
            return aBridge;
        }

        /**
         * Returns the device id of end b.
         *
         * @return device id
         */
        public String b() {
            return b;
        }

        /**
         * Returns the port of end b.
         *
         * @return port
         */
        public long bPort() {
            return bPort;
        }

        /**
         * Returns the bridge of end b.
         *
         * @return bridge
         */
        public String bBridge() {
            return bBridge;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Link)) {
                return false;
            }
            Link l = (Link) o;
            return a.equals(l.a) && aPort == l.aPort && b.equals(l.b) && bPort == l.bPort;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(a, aPort, b, bPort);
        }

        @Override
        public String toString() {
            return a + "/" + aPort + "-" + b + "/" + bPort;
        }
    }

    /** A host: a network namespace attached to a switch port. */
    public static final class Host {
        private final String name;
        private final String ns;
        private final String iface;
        private final String mac;
        private final String ip;
        private final String deviceId;
        private final long port;

        /**
         * Creates a host.
         *
         * @param name     host name
         * @param ns       network namespace
         * @param iface    interface inside the namespace
         * @param mac      MAC address
         * @param ip       IPv4 address
         * @param deviceId device id of the switch it is attached to
         * @param port     OpenFlow port on that switch
         */
        public Host(String name, String ns, String iface, String mac, String ip, String deviceId, long port) {
            this.name = name;
            this.ns = ns;
            this.iface = iface;
            this.mac = mac;
            this.ip = ip;
            this.deviceId = deviceId;
            this.port = port;
        }

        /**
         * Returns the host name.
         *
         * @return name
         */
        public String name() {
            return name;
        }

        /**
         * Returns the namespace.
         *
         * @return namespace
         */
        public String ns() {
            return ns;
        }

        /**
         * Returns the interface inside the namespace.
         *
         * @return interface
         */
        public String iface() {
            return iface;
        }

        /**
         * Returns the MAC address.
         *
         * @return MAC
         */
        public String mac() {
            return mac;
        }

        /**
         * Returns the IPv4 address.
         *
         * @return IP
         */
        public String ip() {
            return ip;
        }

        /**
         * Returns the device id of the attachment switch.
         *
         * @return device id
         */
        public String deviceId() {
            return deviceId;
        }

        /**
         * Returns the attachment port.
         *
         * @return port
         */
        public long port() {
            return port;
        }
    }
}
