package org.mcast4ai.impl;

import org.mcast4ai.testing.TestFabric;
import org.mcast4ai.testing.FakeFlowRuleService;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Host;
import org.onosproject.net.Link;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.IPCriterion;
import org.onosproject.net.flow.criteria.PortCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Follows one packet to a group address through the rules the switches hold (the
 * {@link FakeFlowRuleService} model) over the {@link TestFabric}, and counts the copies each host
 * receives. A copy that would loop forever is cut off after a fixed number of hops.
 */
final class Delivery {
    private Delivery() {
    }

    /**
     * @param fabric  fabric
     * @param flows   switch tables
     * @param address group address
     * @param source  the sending host
     * @return copies per host id string (the sender excluded)
     */
    static Map<String, Integer> trace(TestFabric fabric, FakeFlowRuleService flows, IpAddress address,
                                      Host source) {
        return trace(fabric, flows, address, source, new java.util.ArrayList<>());
    }

    /**
     * @param fabric  fabric
     * @param flows   switch tables
     * @param address group address
     * @param source  the sending host
     * @param crossed gets every switch port a copy left by onto a link, in order
     * @return copies per host id string (the sender excluded)
     */
    static Map<String, Integer> trace(TestFabric fabric, FakeFlowRuleService flows, IpAddress address,
                                      Host source, java.util.List<ConnectPoint> crossed) {
        Map<ConnectPoint, ConnectPoint> wires = new HashMap<>();
        for (Link l : fabric.links.getActiveLinks()) {
            wires.put(l.src(), l.dst());
        }
        Map<ConnectPoint, String> hostPorts = new HashMap<>();
        for (Host h : fabric.hosts.getHosts()) {
            if (h.location() != null) {
                hostPorts.put(new ConnectPoint(h.location().deviceId(), h.location().port()), h.id().toString());
            }
        }
        Map<String, Integer> copies = new HashMap<>();
        Deque<ConnectPoint> arrivals = new ArrayDeque<>();
        arrivals.add(new ConnectPoint(source.location().deviceId(), source.location().port()));
        int hops = 0;
        while (!arrivals.isEmpty() && hops++ < 1000) {
            ConnectPoint at = arrivals.poll();
            FlowRule rule = match(flows, at.deviceId(), at.port(), address);
            if (rule == null) {
                continue;
            }
            for (Instruction i : rule.treatment().immediate()) {
                if (!(i instanceof Instructions.OutputInstruction)) {
                    continue;
                }
                PortNumber out = ((Instructions.OutputInstruction) i).port();
                if (out.equals(at.port())) {
                    continue; // OpenFlow suppresses output to the in port
                }
                ConnectPoint egress = new ConnectPoint(at.deviceId(), out);
                if (wires.containsKey(egress)) {
                    crossed.add(egress);
                    arrivals.add(wires.get(egress));
                } else if (hostPorts.containsKey(egress)) {
                    copies.merge(hostPorts.get(egress), 1, Integer::sum);
                }
            }
        }
        return copies;
    }

    private static FlowRule match(FakeFlowRuleService flows, DeviceId device, PortNumber in,
                                  IpAddress address) {
        FlowRule best = null;
        for (FlowRule r : flows.rulesOn(device)) {
            PortCriterion port = (PortCriterion) r.selector().getCriterion(Criterion.Type.IN_PORT);
            IPCriterion dst = (IPCriterion) r.selector().getCriterion(Criterion.Type.IPV4_DST);
            if (port != null && port.port().equals(in) && dst != null
                    && dst.ip().equals(IpPrefix.valueOf(address, 32))
                    && (best == null || r.priority() > best.priority())) {
                best = r;
            }
        }
        return best;
    }
}
