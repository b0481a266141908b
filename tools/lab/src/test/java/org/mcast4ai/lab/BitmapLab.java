package org.mcast4ai.lab;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.HostId;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.mcast4ai.lab.LabHarness.run;

/** Test support for {@link BitmapOvsTest}: the lab fabric as an engine snapshot, dumps and traces. */
final class BitmapLab {
    private BitmapLab() {
    }

    /**
     * @param fabric the lab description
     * @return the snapshot the manager would build (device ids, {@code MAC/None} host ids)
     */
    static FabricSnapshot snapshot(LabFabric fabric) {
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        for (LabFabric.Switch s : fabric.switches()) {
            b.addSwitch(s.deviceId(), Role.valueOf(s.role()));
        }
        for (LabFabric.Link l : fabric.links()) {
            b.addBiLink(l.a(), l.aPort(), l.b(), l.bPort());
        }
        for (LabFabric.Host h : fabric.hosts()) {
            b.addHost(hostId(h), h.deviceId(), h.port());
        }
        return b.build();
    }

    static String hostId(LabFabric.Host h) {
        return HostId.hostId(MacAddress.valueOf(h.mac()), VlanId.NONE).toString();
    }

    /** @return flow entries of a bridge without counters and durations, sorted */
    static TreeSet<String> flowSet(String bridge) {
        TreeSet<String> out = new TreeSet<>();
        for (String f : LabHarness.flows(bridge)) {
            out.add(f.replaceAll("(duration|n_packets|n_bytes|idle_age|hard_age)=[^,]*, ?", ""));
        }
        return out;
    }

    /** @return group entries of a bridge */
    static List<String> groups(String bridge) {
        LabHarness.Run r = run(List.of("ovs-ofctl", "-O", "OpenFlow13", "dump-groups", bridge), 10);
        if (r.code != 0) {
            throw new AssertionError("dump-groups " + bridge + " failed: " + r.out);
        }
        List<String> out = new ArrayList<>();
        for (String line : r.out.split("\n")) {
            if (line.contains("group_id=")) {
                out.add(line.trim());
            }
        }
        return out;
    }

    /** Datapath port number to host name, from {@code ovs-appctl dpif/show} and the fabric. */
    static Map<String, String> hostsByDatapathPort(LabFabric fabric) {
        LabHarness.Run r = run(List.of("ovs-appctl", "dpif/show"), 20);
        Map<String, String> byOdp = new HashMap<>();
        String bridge = null;
        Pattern bridgeLine = Pattern.compile("^\\s{2}(\\S+):$");
        Pattern portLine = Pattern.compile("^\\s{4}\\S+ (\\d+)/(\\d+):");
        for (String line : r.out.split("\n")) {
            Matcher b = bridgeLine.matcher(line);
            if (b.find()) {
                bridge = b.group(1);
                continue;
            }
            Matcher p = portLine.matcher(line);
            if (p.find() && bridge != null) {
                String br = bridge;
                long ofport = Long.parseLong(p.group(1));
                fabric.hosts().stream()
                        .filter(h -> fabric.switchById(h.deviceId()).get().bridge().equals(br) && h.port() == ofport)
                        .forEach(h -> byOdp.put(p.group(2), h.name()));
            }
        }
        return byOdp;
    }

    /** What {@code ofproto/trace} says a packet does. */
    static final class Trace {
        final List<String> hosts = new ArrayList<>();
        final List<String> sources = new ArrayList<>();
        final String text;

        Trace(String text) {
            this.text = text;
        }
    }

    /**
     * Traces a RoCEv2 packet from a host through the whole fabric (patch ports are followed).
     *
     * @param fabric the lab
     * @param from   source host
     * @param ethSrc Ethernet source
     * @param group  group address
     * @return the host outputs (datapath ports mapped to hosts) and the source addresses written
     */
    static Trace trace(LabFabric fabric, LabFabric.Host from, String ethSrc, String group) {
        String bridge = fabric.switchById(from.deviceId()).get().bridge();
        int ip = org.onlab.packet.Ip4Address.valueOf(group).toInt();
        MacAddress mcast = MacAddress.valueOf(0x01005e000000L | (ip & 0x7fffff));
        LabHarness.Run r = run(List.of("ovs-appctl", "ofproto/trace", bridge, "in_port=" + from.port()
                + ",udp,dl_src=" + ethSrc + ",dl_dst=" + mcast + ",nw_src=" + from.ip() + ",nw_dst=" + group
                + ",udp_dst=4791"), 20);
        if (r.code != 0) {
            throw new AssertionError("ofproto/trace failed: " + r.out);
        }
        Trace t = new Trace(r.out);
        Matcher m = Pattern.compile("Datapath actions: (.*)").matcher(r.out);
        if (!m.find() || m.group(1).trim().equals("drop")) {
            return t;
        }
        Map<String, String> hostByOdp = hostsByDatapathPort(fabric);
        Matcher a = Pattern.compile("set\\(eth\\(src=([0-9a-f:]+)[^)]*\\)\\)|(?<![\\w:=])(\\d+)(?![\\w:])")
                .matcher(m.group(1));
        while (a.find()) {
            if (a.group(1) != null) {
                t.sources.add(a.group(1));
            } else {
                String h = hostByOdp.get(a.group(2));
                if (h == null) {
                    throw new AssertionError("datapath output " + a.group(2) + " is not a host port:\n" + r.out);
                }
                t.hosts.add(h);
            }
        }
        return t;
    }
}
