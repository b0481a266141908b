package org.mcast4ai.bench;

import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.lab.LabFabric;
import org.onlab.packet.MacAddress;
import org.onosproject.net.HostId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A generated fabric ({@link FabricGenerators}) in the shapes the churn benchmark needs: as a
 * {@link LabFabric}, so the lab's Device/Link/Host service doubles serve it to the hosted components, and
 * as the {@link FabricSnapshot} the group manager builds from those services (switch names are device
 * ids, host names host ids, roles inferred), for the compile-only baseline on the same graph.
 */
final class ChurnFabric {

    final String name;
    final LabFabric lab;
    final FabricSnapshot snapshot;
    /** ONOS host ids ({@code MAC/None}) in host index order of the generated fabric. */
    final List<String> hostIds;

    private ChurnFabric(String name, LabFabric lab, FabricSnapshot snapshot, List<String> hostIds) {
        this.name = name;
        this.lab = lab;
        this.snapshot = snapshot;
        this.hostIds = hostIds;
    }

    /**
     * @param spec {@code leafspine:S,L,H} or {@code fattree:K}
     * @return the fabric
     * @throws IllegalArgumentException on a malformed spec
     */
    static ChurnFabric parse(String spec) {
        String[] kv = spec.split(":", 2);
        if (kv.length != 2) {
            throw new IllegalArgumentException("fabric '" + spec + "': use leafspine:S,L,H or fattree:K");
        }
        try {
            if (kv[0].equals("fattree")) {
                int k = Integer.parseInt(kv[1].trim());
                return of("fat tree k=" + k, FabricGenerators.fatTree(k));
            }
            if (kv[0].equals("leafspine")) {
                String[] n = kv[1].split(",");
                if (n.length != 3) {
                    throw new IllegalArgumentException("leafspine needs S,L,H");
                }
                int s = Integer.parseInt(n[0].trim());
                int l = Integer.parseInt(n[1].trim());
                int h = Integer.parseInt(n[2].trim());
                return of("leaf-spine " + s + "x" + l + "x" + h, FabricGenerators.leafSpine(s, l, h));
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fabric '" + spec + "': " + e.getMessage(), e);
        }
        throw new IllegalArgumentException("fabric '" + spec + "': unknown kind " + kv[0]);
    }

    static ChurnFabric of(String name, FabricSnapshot gen) {
        List<String> deviceIds = new ArrayList<>();
        List<LabFabric.Switch> switches = new ArrayList<>();
        for (int sw = 0; sw < gen.switchCount(); sw++) {
            String dpid = String.format(Locale.ROOT, "%016x", sw + 1L);
            String id = "of:" + dpid;
            deviceIds.add(id);
            String role = gen.role(sw) == null ? "" : gen.role(sw).name().toLowerCase(Locale.ROOT);
            switches.add(new LabFabric.Switch(gen.switchName(sw), "br" + sw, dpid, id, role));
        }
        List<LabFabric.Link> links = new ArrayList<>();
        for (int sw = 0; sw < gen.switchCount(); sw++) {
            for (int e = gen.linkStart(sw); e < gen.linkStart(sw + 1); e++) {
                int to = gen.linkTo(e);
                if (sw < to) {   // the lab lists each bidirectional link once
                    links.add(new LabFabric.Link(deviceIds.get(sw), gen.linkFromPort(e), "br" + sw,
                                                 deviceIds.get(to), gen.linkToPort(e), "br" + to));
                }
            }
        }
        List<LabFabric.Host> hosts = new ArrayList<>();
        List<String> hostIds = new ArrayList<>();
        for (int h = 0; h < gen.hostCount(); h++) {
            int n = h + 1;
            MacAddress mac = MacAddress.valueOf(0x020000000000L + n);
            String ip = "10." + ((n >> 16) & 0xff) + "." + ((n >> 8) & 0xff) + "." + (n & 0xff);
            hosts.add(new LabFabric.Host(gen.hostName(h), "ns" + n, "eth0", mac.toString(), ip,
                                         deviceIds.get(gen.hostSwitch(h)), gen.hostPort(h)));
            hostIds.add(HostId.hostId(mac).toString());
        }
        LabFabric lab = new LabFabric(name, switches, links, hosts);
        return new ChurnFabric(name, lab, managerView(lab), hostIds);
    }

    /** The snapshot as the manager's snapshot factory builds it from the lab services. */
    private static FabricSnapshot managerView(LabFabric lab) {
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        lab.switches().forEach(s -> b.addSwitch(s.deviceId(), null));
        for (LabFabric.Link l : lab.links()) {
            b.addLink(l.a(), l.aPort(), l.b(), l.bPort());
            b.addLink(l.b(), l.bPort(), l.a(), l.aPort());
        }
        for (LabFabric.Host h : lab.hosts()) {
            ConnectPoint at = new ConnectPoint(DeviceId.deviceId(h.deviceId()), PortNumber.portNumber(h.port()));
            b.addHost(HostId.hostId(MacAddress.valueOf(h.mac())).toString(), at.deviceId().toString(),
                      at.port().toLong());
        }
        return b.build();
    }
}
