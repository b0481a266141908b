package org.mcast4ai.lab;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What of the lab fabric is there now: which bridges exist, which ports they have, which links have both
 * patch ends, and where each host's veth is plugged in. The fabric description says what can exist; this
 * says what does. The device, link and host services read it and raise ONOS's events when it changes
 * ({@link #update}), so the app sees the lab fail and come back the way it sees a real fabric.
 */
public final class LabTopology {
    private static final Logger log = LoggerFactory.getLogger(LabTopology.class);

    /** Where a host is attached. */
    public static final class Attachment {
        private final String deviceId;
        private final long port;

        /**
         * @param deviceId device id string of the switch
         * @param port     OpenFlow port
         */
        public Attachment(String deviceId, long port) {
            this.deviceId = deviceId;
            this.port = port;
        }

        /** @return device id string */
        public String deviceId() {
            return deviceId;
        }

        /** @return OpenFlow port */
        public long port() {
            return port;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Attachment && ((Attachment) o).deviceId.equals(deviceId)
                    && ((Attachment) o).port == port;
        }

        @Override
        public int hashCode() {
            return Objects.hash(deviceId, port);
        }

        @Override
        public String toString() {
            return deviceId + "/" + port;
        }
    }

    /** One observation of the fabric: immutable. */
    public static final class State {
        private final Set<String> devices;
        private final Map<String, Set<Long>> ports;
        private final Set<LabFabric.Link> links;
        private final Map<String, Attachment> hosts;

        /**
         * @param devices device ids of the bridges present
         * @param ports   OpenFlow ports present per device
         * @param links   fabric links whose two ends are present
         * @param hosts   host name to where its veth is plugged in (hosts not plugged in are left out)
         */
        public State(Set<String> devices, Map<String, Set<Long>> ports, Set<LabFabric.Link> links,
                     Map<String, Attachment> hosts) {
            this.devices = ImmutableSet.copyOf(devices);
            ImmutableMap.Builder<String, Set<Long>> p = ImmutableMap.builder();
            ports.forEach((d, s) -> p.put(d, ImmutableSet.copyOf(s)));
            this.ports = p.build();
            this.links = ImmutableSet.copyOf(links);
            this.hosts = ImmutableMap.copyOf(hosts);
        }

        /**
         * Everything of a fabric description present, as {@code fabric up} leaves it.
         *
         * @param fabric the description
         * @return the state
         */
        public static State full(LabFabric fabric) {
            ImmutableSet.Builder<String> devices = ImmutableSet.builder();
            ImmutableMap.Builder<String, Attachment> hosts = ImmutableMap.builder();
            Map<String, Set<Long>> ports = new java.util.HashMap<>();
            for (LabFabric.Switch s : fabric.switches()) {
                devices.add(s.deviceId());
                ports.put(s.deviceId(), new java.util.TreeSet<>());
            }
            for (LabFabric.Link l : fabric.links()) {
                ports.get(l.a()).add(l.aPort());
                ports.get(l.b()).add(l.bPort());
            }
            for (LabFabric.Host h : fabric.hosts()) {
                ports.get(h.deviceId()).add(h.port());
                hosts.put(h.name(), new Attachment(h.deviceId(), h.port()));
            }
            return new State(devices.build(), ports, ImmutableSet.copyOf(fabric.links()), hosts.build());
        }

        /** @return device ids present */
        public Set<String> devices() {
            return devices;
        }

        /**
         * @param deviceId device id string
         * @return its ports present (empty if the device is not)
         */
        public Set<Long> ports(String deviceId) {
            return ports.getOrDefault(deviceId, Set.of());
        }

        /** @return links whose two ends are present */
        public Set<LabFabric.Link> links() {
            return links;
        }

        /** @return host name to attachment, for the hosts plugged in */
        public Map<String, Attachment> hosts() {
            return hosts;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof State)) {
                return false;
            }
            State s = (State) o;
            return devices.equals(s.devices) && ports.equals(s.ports) && links.equals(s.links)
                    && hosts.equals(s.hosts);
        }

        @Override
        public int hashCode() {
            return Objects.hash(devices, ports, links, hosts);
        }

        @Override
        public String toString() {
            return devices.size() + " devices, " + links.size() + " links, " + hosts.size() + " hosts";
        }
    }

    /** Told of every change, with the state before and after. */
    public interface Observer {
        /**
         * @param before the previous state
         * @param after  the new state
         */
        void changed(State before, State after);
    }

    private final LabFabric fabric;
    private final List<Observer> observers = new CopyOnWriteArrayList<>();
    private volatile State state;

    /**
     * @param fabric  what can exist
     * @param initial what exists now
     */
    public LabTopology(LabFabric fabric, State initial) {
        this.fabric = fabric;
        this.state = initial;
    }

    /**
     * A topology where all of the fabric is present and stays so.
     *
     * @param fabric the description
     * @return the topology
     */
    public static LabTopology full(LabFabric fabric) {
        return new LabTopology(fabric, State.full(fabric));
    }

    /** @return the fabric description */
    public LabFabric fabric() {
        return fabric;
    }

    /** @return what exists now */
    public State state() {
        return state;
    }

    /**
     * @param observer told of every later change, in order (called on the updating thread)
     */
    public void addObserver(Observer observer) {
        observers.add(observer);
    }

    /**
     * Records a new observation; if it differs, every observer is told (the services raise their events).
     *
     * @param next what exists now
     * @return true if something changed
     */
    public synchronized boolean update(State next) {
        State before = state;
        if (before.equals(next)) {
            return false;
        }
        state = next;
        log.debug("topology changed: {} -> {}", before, next);
        for (Observer o : observers) {
            o.changed(before, next);
        }
        return true;
    }
}
