package org.mcast4ai.gui;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.BitmapPlan;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupOwner;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupTree;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupService;
import org.mcast4ai.api.ReconcileCounters;
import org.mcast4ai.api.StampPlan;
import org.mcast4ai.api.StateChange;
import org.onosproject.net.DeviceId;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The overlay's detail panel for one group, as JSON: {@code title}, {@code props} (label and value lines: state
 * and reason, mode and why, what carries it, header bytes and packets per send, owner, last change, the reconcile
 * loop's counters) and {@code sections} (entries per switch, path per receiver, unreachable receivers, failed
 * links, and for ACK_AGGREGATION the aggregation point's report: the sender's lag and each receiver's state).
 */
final class GroupDetail {
    private GroupDetail() {
    }

    /**
     * @param groups the group service
     * @param g      the group
     * @param tree   its tree now
     * @param failed links its previous tree used that are down
     * @return the panel's content
     */
    static ObjectNode json(P2mpGroupService groups, P2mpGroup g, GroupTree tree, List<String> failed) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("id", g.id().value());
        n.put("title", "Group " + g.id().value() + ": " + g.key().tenant() + "/" + g.key().name());
        ArrayNode props = n.putArray("props");
        prop(props, "State", g.state() + (g.reason().isEmpty() ? "" : ": " + g.reason()));
        prop(props, "Mode", g.effectiveMode() + (g.modeReason().isEmpty() ? "" : " (" + g.modeReason() + ")"));
        prop(props, "Carried by", tree.carrier());
        Optional<StampPlan> stamp = groups.getStampPlan(g.id());
        Optional<BitmapPlan> bitmap = groups.getBitmapPlan(g.id());
        stamp.ifPresent(s -> prop(props, "Header", s.headers().size() + " packet(s) per send, " + s.headerBytes()
                + " header bytes"));
        bitmap.ifPresent(b -> prop(props, "Stamp", b.stampMac() + " (bits 0x" + Long.toHexString(b.bits())
                + "), uplink " + b.uplink()));
        prop(props, "Receivers", tree.paths().size() + " of " + g.request().receivers().size() + " reached");
        prop(props, "Job", g.request().jobId().isEmpty() ? "-" : g.request().jobId());
        prop(props, "Address", g.address().toString());
        prop(props, "Owner", owner(groups, g));
        List<StateChange> h = g.history();
        if (!h.isEmpty()) {
            StateChange last = h.get(h.size() - 1);
            prop(props, "Last change", last.state() + " at " + Instant.ofEpochMilli(last.timeMillis())
                    + (last.reason().isEmpty() ? "" : " (" + last.reason() + ")"));
        }
        // a repair (entries the switches lost, sent again) is a step of the group's history
        StateChange repair = null;
        for (StateChange c : h) {
            if (c.reason().startsWith("repairing")) {
                repair = c;
            }
        }
        prop(props, "Last repair", repair == null ? "none" : Instant.ofEpochMilli(repair.timeMillis()) + " ("
                + repair.reason() + ")");
        ReconcileCounters rc = groups.reconcileCounters();
        prop(props, "Reconcile loop", rc.audits() + " audits, " + rc.repairs() + " repairs, " + rc.orphansRemoved()
                + " orphans removed on this instance");
        ArrayNode sections = n.putArray("sections");
        section(sections, "Entries per switch", entries(groups, g, stamp, bitmap));
        section(sections, "Devices (role, in, out, serves)", tree.hops().stream().map(hop -> hop.device() + " "
                + hop.roles() + " in " + hop.inPort() + " out " + hop.outPorts()
                + (hop.serves().isEmpty() ? "" : " " + hop.serves())).collect(Collectors.toList()));
        section(sections, "Paths", tree.paths().entrySet().stream().map(GroupDetail::path)
                .collect(Collectors.toList()));
        section(sections, "Unreachable", tree.unreachable().stream().map(Endpoint::host)
                .collect(Collectors.toList()));
        section(sections, "Failed links the tree left", failed);
        if (!tree.strays().isEmpty()) {
            section(sections, "Strays", List.copyOf(tree.strays()));
        }
        if (g.peer().isPresent()) {
            section(sections, "ACK aggregation", aggregation(groups, g));
        }
        return n;
    }

    private static String owner(P2mpGroupService groups, P2mpGroup g) {
        try {
            GroupOwner o = groups.owner(g.id());
            return (o.instance() == null ? "none yet" : o.instance()) + (o.here() ? " (this instance)" : "");
        } catch (GroupException e) {
            return e.getMessage();
        }
    }

    private static List<String> entries(P2mpGroupService groups, P2mpGroup g, Optional<StampPlan> stamp,
                                        Optional<BitmapPlan> bitmap) {
        if (stamp.isPresent()) {
            StampPlan s = stamp.get();
            return List.of(s.device() + ": " + s.tableEntries() + " table entries and multicast group "
                    + s.multicastGroup(), "every other switch: 0 (the static state serves all groups)");
        }
        if (bitmap.isPresent()) {
            BitmapPlan b = bitmap.get();
            return List.of(b.stampDevice() + ": " + (b.switchStamped() ? 2 : 1) + " stamp rule(s)",
                    "every other switch: 0 (the static tables serve all groups)");
        }
        GroupPlan plan = groups.getInstalledPlan(g.id());
        return plan.branches().keySet().stream().map(d -> d + ": 1 rule").sorted().collect(Collectors.toList());
    }

    private static String path(Map.Entry<Endpoint, List<DeviceId>> p) {
        return p.getKey().host() + ": " + p.getValue().stream().map(DeviceId::toString)
                .collect(Collectors.joining(" > "));
    }

    private static List<String> aggregation(P2mpGroupService groups, P2mpGroup g) {
        Optional<AggregationContext> c;
        try {
            c = groups.getAggregation(g.id());
        } catch (GroupException e) {
            return List.of(e.getMessage());
        }
        if (c.isEmpty() || c.get().report().isEmpty()) {
            return List.of("no report from the aggregation point yet");
        }
        AggregationReport r = c.get().report().get();
        String lag = r.sentNext() < 0 || r.acked() < 0 ? "unknown"
                : Long.toString(Math.floorMod(r.sentNext() - 1 - r.acked(), 1L << 24));
        List<String> lines = new java.util.ArrayList<>();
        lines.add("report from " + r.agent() + " at " + Instant.ofEpochMilli(r.timeMillis()) + ": sender next PSN "
                + r.sentNext() + ", acknowledged to the sender " + r.acked() + ", lag " + lag + " PSN(s)");
        for (AggregationContext.Member m : c.get().receivers()) {
            boolean stalled = r.stalled().contains(m.host());
            Integer join = r.joinPsn().get(m.host());
            long behind = r.lag(m.host());
            lines.add(m.host() + ": " + (stalled ? "STALLED (left out of the minimum)" : m.joined()
                    ? "held in the minimum" : "not joined yet")
                    + (behind < 0 ? "" : ", acknowledged PSN " + r.receiverAcked().get(m.host()) + ", lag " + behind)
                    + (join == null ? "" : ", joined at PSN " + join));
        }
        return lines;
    }

    private static void prop(ArrayNode props, String label, String value) {
        props.addObject().put("label", label).put("value", value);
    }

    private static void section(ArrayNode sections, String title, List<String> lines) {
        ObjectNode s = sections.addObject().put("title", title);
        ArrayNode a = s.putArray("lines");
        lines.forEach(a::add);
    }
}
