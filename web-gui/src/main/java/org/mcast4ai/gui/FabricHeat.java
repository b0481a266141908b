package org.mcast4ai.gui;

import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.GroupTree;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupService;
import org.mcast4ai.api.P4FabricStatus;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Link;
import org.onosproject.net.link.LinkService;
import org.onosproject.net.statistic.Load;
import org.onosproject.net.statistic.PortStatisticsService;
import org.onosproject.ui.topo.BiLink;
import org.onosproject.ui.topo.DeviceHighlight;
import org.onosproject.ui.topo.Highlights;
import org.onosproject.ui.topo.LinkHighlight;
import org.onosproject.ui.topo.Mod;
import org.onosproject.ui.topo.NodeBadge;
import org.onosproject.ui.topo.TopoUtils;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fabric health at a glance: every link coloured by how many groups' copies cross it (each group's tree as the
 * service traces it) or by its load from ONOS's port statistics, in five steps of the fabric's hottest link;
 * every P4 switch badged with its static state (in place, pending, failed).
 */
final class FabricHeat {
    /** What colours the links. */
    enum Metric {
        /** The number of live groups whose copies cross the link. */
        GROUPS,
        /** The link's load, the busier direction, from ONOS's port statistics. */
        LOAD
    }

    /** Steps of heat; a link's step is its share of the hottest link's value. */
    static final int STEPS = 5;

    private FabricHeat() {
    }

    /** The highlights, and the hottest link for the panel. */
    static final class Result {
        final Highlights highlights;
        final String hottest;
        final long max;
        final int linksUsed;

        Result(Highlights highlights, String hottest, long max, int linksUsed) {
            this.highlights = highlights;
            this.hottest = hottest;
            this.max = max;
            this.linksUsed = linksUsed;
        }
    }

    /**
     * @param metric what colours the links
     * @param groups the group service (for GROUPS)
     * @param stats  ONOS's port statistics (for LOAD), or null
     * @param links  ONOS's links
     * @return the heat of every link
     */
    static Result of(Metric metric, P2mpGroupService groups, PortStatisticsService stats, LinkService links) {
        LinkIndex index = new LinkIndex(links);
        Map<String, Long> value = new LinkedHashMap<>();
        if (metric == Metric.GROUPS) {
            for (P2mpGroup g : groups.getGroups()) {
                if (g.state() != GroupState.INSTALLED && g.state() != GroupState.DEGRADED) {
                    continue;
                }
                GroupTree t = groups.tree(g.id());
                java.util.Set<String> counted = new java.util.HashSet<>();
                for (ConnectPoint[] e : t.links()) {
                    Link l = index.link(e[0], e[1]);
                    if (l != null) {
                        String id = index.line(l).linkId();
                        if (counted.add(id)) {
                            value.merge(id, 1L, Long::sum);
                        }
                    }
                }
            }
        } else if (stats != null) {
            for (BiLink b : index.lines()) {
                long rate = rate(stats, b.one().src());
                if (b.two() != null) {
                    rate = Math.max(rate, rate(stats, b.two().src()));
                }
                if (rate > 0) {
                    value.put(b.linkId(), rate);
                }
            }
        }
        long max = value.values().stream().mapToLong(Long::longValue).max().orElse(0);
        String hottest = null;
        Highlights h = new Highlights();
        for (Map.Entry<String, Long> e : value.entrySet()) {
            long v = e.getValue();
            if (v == max && hottest == null) {
                hottest = e.getKey();
            }
            String label = metric == Metric.GROUPS ? v + (v == 1 ? " group" : " groups")
                    : TopoUtils.formatClippedBitRate(v).toString();
            h.add(new LinkHighlight(e.getKey(), LinkHighlight.Flavor.PRIMARY_HIGHLIGHT)
                    .addMod(heat(step(v, max))).setLabel(label));
        }
        return new Result(h, hottest, max, value.size());
    }

    /**
     * @param v   a link's value
     * @param max the hottest link's
     * @return its step, 1 to {@link #STEPS}
     */
    static int step(long v, long max) {
        return max <= 0 ? 1 : (int) Math.max(1, Math.min(STEPS, (v * STEPS + max - 1) / max));
    }

    static Mod heat(int step) {
        return new Mod("mcast4ai-heat-" + step);
    }

    private static long rate(PortStatisticsService stats, ConnectPoint cp) {
        Load l = stats.load(cp);
        return l == null || !l.isValid() ? 0 : l.rate();
    }

    /**
     * Badges every P4 switch with its static state: in place (INFO), pending its acknowledgement or joining after
     * a failure (WARN), or failed with the fabric's problem (ERROR).
     *
     * @param h      the highlights to add to
     * @param status the P4 fabric's status, or null without one
     * @return switches in place, pending, failed
     */
    static int[] p4(Highlights h, P4FabricStatus status) {
        int[] counts = new int[3];
        if (status == null) {
            return counts;
        }
        for (String sw : status.switches()) {
            DeviceHighlight d = new DeviceHighlight(sw);
            if (status.problem() != null) {
                d.setBadge(NodeBadge.text(NodeBadge.Status.ERROR, "P", "P4 static state failed: " + status.problem()));
                counts[2]++;
            } else if (status.unacknowledged().contains(sw) || status.joining().contains(sw)) {
                d.setBadge(NodeBadge.text(NodeBadge.Status.WARN, "P", "P4 static state pending: "
                        + (status.joining().contains(sw) ? "joining after a failure" : "not acknowledged yet")));
                counts[1]++;
            } else {
                d.setBadge(NodeBadge.text(NodeBadge.Status.INFO, "P", "P4 static state in place ("
                        + status.pipeconf() + ")"));
                counts[0]++;
            }
            h.add(d);
        }
        return counts;
    }
}
