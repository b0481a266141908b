package org.mcast4ai.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An immutable, compact graph of the fabric: switches (dense indices 0..S-1) with roles, directed links
 * between switch ports, and hosts (dense indices 0..H-1) with their attachment port. Adjacency is stored
 * in compressed arrays so that tree computation walks it without allocation.
 *
 * <p>Names are opaque strings (the ONOS adapter uses device and host id strings). Roles not given are
 * inferred: switches with hosts are leaves, switches one hop from a leaf are spines, the rest super-spines.
 */
public final class FabricSnapshot {
    private final String[] switchNames;
    private final Role[] roles;
    private final Map<String, Integer> switchIndex;
    // CSR adjacency of directed links, sorted by (from switch, from port)
    private final int[] adjStart;
    private final int[] adjTo;
    private final long[] adjFromPort;
    private final long[] adjToPort;
    private final String[] hostNames;
    private final int[] hostSwitch;
    private final long[] hostPort;
    private final Map<String, Integer> hostIndex;
    private final int[] hostStart;   // CSR: hosts per switch
    private final int[] hostsBySwitch;

    private FabricSnapshot(Builder b) {
        int s = b.switches.size();
        switchNames = b.switches.keySet().toArray(new String[0]);
        roles = new Role[s];
        switchIndex = new HashMap<>(s * 2);
        for (int i = 0; i < s; i++) {
            switchIndex.put(switchNames[i], i);
        }
        List<long[]> links = new ArrayList<>(b.links.size());
        for (Object[] l : b.links) {
            Integer from = switchIndex.get((String) l[0]);
            Integer to = switchIndex.get((String) l[2]);
            if (from == null || to == null) {
                throw new IllegalArgumentException("link between unknown switches " + l[0] + " -> " + l[2]);
            }
            if (from.equals(to)) {
                continue; // self loops carry no multicast traffic
            }
            links.add(new long[]{from, (Long) l[1], to, (Long) l[3]});
        }
        links.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
        adjStart = new int[s + 1];
        adjTo = new int[links.size()];
        adjFromPort = new long[links.size()];
        adjToPort = new long[links.size()];
        for (int i = 0; i < links.size(); i++) {
            long[] l = links.get(i);
            adjStart[(int) l[0] + 1]++;
            adjTo[i] = (int) l[2];
            adjFromPort[i] = l[1];
            adjToPort[i] = l[3];
        }
        for (int i = 0; i < s; i++) {
            adjStart[i + 1] += adjStart[i];
        }

        int h = b.hosts.size();
        hostNames = new String[h];
        hostSwitch = new int[h];
        hostPort = new long[h];
        hostIndex = new HashMap<>(h * 2);
        int[] perSwitch = new int[s + 1];
        int i = 0;
        for (Map.Entry<String, Object[]> e : b.hosts.entrySet()) {
            Integer sw = switchIndex.get((String) e.getValue()[0]);
            if (sw == null) {
                throw new IllegalArgumentException("host " + e.getKey() + " on unknown switch " + e.getValue()[0]);
            }
            hostNames[i] = e.getKey();
            hostSwitch[i] = sw;
            hostPort[i] = (Long) e.getValue()[1];
            hostIndex.put(e.getKey(), i);
            perSwitch[sw + 1]++;
            i++;
        }
        for (int k = 0; k < s; k++) {
            perSwitch[k + 1] += perSwitch[k];
        }
        hostStart = perSwitch.clone();
        hostsBySwitch = new int[h];
        int[] fill = Arrays.copyOf(perSwitch, s);
        for (int k = 0; k < h; k++) {
            hostsBySwitch[fill[hostSwitch[k]]++] = k;
        }

        inferRoles(b);
    }

    private void inferRoles(Builder b) {
        int s = switchNames.length;
        int[] dist = new int[s];
        Arrays.fill(dist, -1);
        int[] queue = new int[s];
        int head = 0;
        int tail = 0;
        for (int i = 0; i < s; i++) {
            if (hostStart[i + 1] > hostStart[i]) {
                dist[i] = 0;
                queue[tail++] = i;
            }
        }
        while (head < tail) {
            int u = queue[head++];
            for (int e = adjStart[u]; e < adjStart[u + 1]; e++) {
                int v = adjTo[e];
                if (dist[v] < 0) {
                    dist[v] = dist[u] + 1;
                    queue[tail++] = v;
                }
            }
        }
        for (int i = 0; i < s; i++) {
            Role given = b.switches.get(switchNames[i]);
            if (given != null) {
                roles[i] = given;
            } else if (dist[i] == 0) {
                roles[i] = Role.LEAF;
            } else if (dist[i] == 1) {
                roles[i] = Role.SPINE;
            } else {
                roles[i] = Role.SUPER_SPINE;
            }
        }
    }

    /** @return a new builder */
    public static Builder builder() {
        return new Builder();
    }

    /** @return number of switches */
    public int switchCount() {
        return switchNames.length;
    }

    /** @return number of hosts */
    public int hostCount() {
        return hostNames.length;
    }

    /** @return number of directed switch-to-switch links */
    public int linkCount() {
        return adjTo.length;
    }

    /**
     * @param sw switch index
     * @return its name
     */
    public String switchName(int sw) {
        return switchNames[sw];
    }

    /**
     * @param name switch name
     * @return its index, or -1 if unknown
     */
    public int switchIndex(String name) {
        Integer i = switchIndex.get(name);
        return i == null ? -1 : i;
    }

    /**
     * @param sw switch index
     * @return its role (given or inferred)
     */
    public Role role(int sw) {
        return roles[sw];
    }

    /**
     * First directed link out of a switch; links of switch {@code sw} are
     * {@code linkStart(sw) .. linkStart(sw + 1) - 1}, sorted by local port.
     *
     * @param sw switch index (0..switchCount())
     * @return index of its first link
     */
    public int linkStart(int sw) {
        return adjStart[sw];
    }

    /**
     * @param link directed link index
     * @return the switch it leads to
     */
    public int linkTo(int link) {
        return adjTo[link];
    }

    /**
     * @param link directed link index
     * @return the port it leaves by
     */
    public long linkFromPort(int link) {
        return adjFromPort[link];
    }

    /**
     * @param link directed link index
     * @return the port it arrives on
     */
    public long linkToPort(int link) {
        return adjToPort[link];
    }

    /**
     * @param from switch index
     * @param to   switch index
     * @return the lowest-port directed link from {@code from} to {@code to}, or -1
     */
    public int findLink(int from, int to) {
        for (int e = adjStart[from]; e < adjStart[from + 1]; e++) {
            if (adjTo[e] == to) {
                return e;
            }
        }
        return -1;
    }

    /**
     * @param host host index
     * @return its name
     */
    public String hostName(int host) {
        return hostNames[host];
    }

    /**
     * @param name host name
     * @return its index, or -1 if unknown
     */
    public int hostIndex(String name) {
        Integer i = hostIndex.get(name);
        return i == null ? -1 : i;
    }

    /**
     * @param host host index
     * @return the switch it attaches to
     */
    public int hostSwitch(int host) {
        return hostSwitch[host];
    }

    /**
     * @param host host index
     * @return the switch port it attaches to
     */
    public long hostPort(int host) {
        return hostPort[host];
    }

    /**
     * Hosts on switch {@code sw} are {@code hostAt(hostStart(sw)) .. hostAt(hostStart(sw + 1) - 1)}.
     *
     * @param sw switch index (0..switchCount())
     * @return position of its first host
     */
    public int hostStart(int sw) {
        return hostStart[sw];
    }

    /**
     * @param position position in the per-switch host order
     * @return host index
     */
    public int hostAt(int position) {
        return hostsBySwitch[position];
    }

    @Override
    public String toString() {
        return "FabricSnapshot{switches=" + switchCount() + ", links=" + linkCount() + ", hosts=" + hostCount() + "}";
    }

    /** Collects switches, links and hosts; {@link #build()} freezes them. */
    public static final class Builder {
        private final LinkedHashMap<String, Role> switches = new LinkedHashMap<>();
        private final List<Object[]> links = new ArrayList<>();
        private final LinkedHashMap<String, Object[]> hosts = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * @param name switch name (unique)
         * @param role its role, or null to infer it
         * @return this
         */
        public Builder addSwitch(String name, Role role) {
            switches.put(Objects.requireNonNull(name), role);
            return this;
        }

        /**
         * Adds one direction of a link; add both directions for a bidirectional link.
         *
         * @param from     switch name
         * @param fromPort port on {@code from}
         * @param to       switch name
         * @param toPort   port on {@code to}
         * @return this
         */
        public Builder addLink(String from, long fromPort, String to, long toPort) {
            links.add(new Object[]{from, fromPort, to, toPort});
            return this;
        }

        /**
         * Adds both directions of a link.
         *
         * @param a     switch name
         * @param aPort port on a
         * @param b     switch name
         * @param bPort port on b
         * @return this
         */
        public Builder addBiLink(String a, long aPort, String b, long bPort) {
            return addLink(a, aPort, b, bPort).addLink(b, bPort, a, aPort);
        }

        /**
         * @param name     host name (unique)
         * @param switchName switch it attaches to
         * @param port     switch port
         * @return this
         */
        public Builder addHost(String name, String switchName, long port) {
            hosts.put(Objects.requireNonNull(name), new Object[]{switchName, port});
            return this;
        }

        /** @return the snapshot */
        public FabricSnapshot build() {
            return new FabricSnapshot(this);
        }
    }
}
