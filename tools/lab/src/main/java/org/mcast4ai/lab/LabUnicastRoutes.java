package org.mcast4ai.lab;

import org.onlab.packet.Ethernet;
import org.onlab.packet.IpPrefix;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Link;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.link.LinkService;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Unicast IPv4 routes to every host of the lab, on every switch, along shortest paths of the links ONOS sees: what
 * a fabric's unicast routing application (ONOS's {@code fwd}, or a fabric's routing) gives the hosts beside
 * mcast4ai, so that a baseline of N unicast connections can run on the same switches. Another application's
 * rules, at a priority below every mcast4ai rule, installed once through the flow rule service (whose audit keeps
 * them); {@code LabRunner --unicast-routes} turns them on.
 */
final class LabUnicastRoutes {
    static final String APP = "org.mcast4ai.lab.unicast";
    static final int PRIORITY = 10;

    private LabUnicastRoutes() {
    }

    /**
     * @param fabric the lab fabric (hosts and where they attach)
     * @param links  the links ONOS sees
     * @param core   registers the routing application
     * @param flows  where the rules go
     * @return the number of rules applied
     */
    static int install(LabFabric fabric, LinkService links, CoreService core, FlowRuleService flows) {
        ApplicationId app = core.registerApplication(APP);
        Map<DeviceId, List<Link>> out = new HashMap<>();
        for (Link l : links.getLinks()) {
            out.computeIfAbsent(l.src().deviceId(), d -> new ArrayList<>()).add(l);
        }
        List<FlowRule> rules = new ArrayList<>();
        for (LabFabric.Host h : fabric.hosts()) {
            DeviceId home = DeviceId.deviceId(h.deviceId());
            rules.add(rule(app, home, h.ip(), PortNumber.portNumber(h.port())));
            // breadth first from the host's switch over reversed links: each switch's port toward it
            Map<DeviceId, PortNumber> toward = new HashMap<>();
            toward.put(home, PortNumber.portNumber(h.port()));
            ArrayDeque<DeviceId> queue = new ArrayDeque<>(List.of(home));
            while (!queue.isEmpty()) {
                DeviceId d = queue.poll();
                for (Link l : out.getOrDefault(d, List.of())) {
                    DeviceId n = l.dst().deviceId();
                    if (!toward.containsKey(n)) {
                        toward.put(n, l.dst().port());
                        rules.add(rule(app, n, h.ip(), l.dst().port()));
                        queue.add(n);
                    }
                }
            }
        }
        flows.applyFlowRules(rules.toArray(new FlowRule[0]));
        return rules.size();
    }

    private static FlowRule rule(ApplicationId app, DeviceId device, String ip, PortNumber port) {
        return DefaultFlowRule.builder().forDevice(device).fromApp(app)
                .withSelector(DefaultTrafficSelector.builder().matchEthType(Ethernet.TYPE_IPV4)
                        .matchIPDst(IpPrefix.valueOf(ip + "/32")).build())
                .withTreatment(DefaultTrafficTreatment.builder().setOutput(port).build())
                .withPriority(PRIORITY).makePermanent().build();
    }
}
