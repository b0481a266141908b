package org.mcast4ai.gui;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupTree;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.HostId;
import org.onosproject.net.Link;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.link.LinkService;
import org.onosproject.ui.topo.BiLink;
import org.onosproject.ui.topo.DeviceHighlight;
import org.onosproject.ui.topo.Highlights;
import org.onosproject.ui.topo.HostHighlight;
import org.onosproject.ui.topo.LinkHighlight;
import org.onosproject.ui.topo.Mod;
import org.onosproject.ui.topo.NodeBadge;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The topology view's highlights for one group's tree: everything else subdued; the links the tree's copies
 * cross (the tree the service traced, not redrawn here); its switches, badged with their role; its source and
 * receivers, an unreachable receiver badged as such; links and switches the group's previous tree used that
 * are now down marked as failed.
 */
final class TreeHighlights {
    /** The CSS class of a link a group's copies cross. */
    static final Mod TREE = new Mod("mcast4ai-tree");
    /** The CSS class of a link the group's previous tree used that is down now. */
    static final Mod FAILED = new Mod("mcast4ai-failed");

    private TreeHighlights() {
    }

    /** The highlights, and the tree's links and failures in words for the detail panel. */
    static final class Result {
        final Highlights highlights;
        final Set<String> treeLinks;
        final List<String> failed;

        Result(Highlights highlights, Set<String> treeLinks, List<String> failed) {
            this.highlights = highlights;
            this.treeLinks = treeLinks;
            this.failed = failed;
        }
    }

    /**
     * @param tree     the group's tree now
     * @param previous the links of the tree shown before, {from, to} (empty for the first)
     * @param links    ONOS's links
     * @param devices  ONOS's devices
     * @return what to highlight
     */
    static Result of(GroupTree tree, List<ConnectPoint[]> previous, LinkService links, DeviceService devices) {
        Highlights h = new Highlights().subdueAllElse(Highlights.Amount.MINIMALLY);
        LinkIndex index = new LinkIndex(links);
        Set<String> treeLinks = new LinkedHashSet<>();
        Map<String, LinkHighlight> shown = new HashMap<>();
        for (ConnectPoint[] e : tree.links()) {
            treeLinks.add(LinkIndex.ends(e[0], e[1]));
            Link l = index.link(e[0], e[1]);
            if (l != null) {
                BiLink b = index.line(l);
                shown.computeIfAbsent(b.linkId(), id -> new LinkHighlight(id, LinkHighlight.Flavor.PRIMARY_HIGHLIGHT)
                        .addMod(TREE));
            }
        }
        List<String> failed = new ArrayList<>();
        for (ConnectPoint[] e : previous) {
            String key = LinkIndex.ends(e[0], e[1]);
            Link l = index.link(e[0], e[1]);
            if (treeLinks.contains(key) || l != null && l.state() == Link.State.ACTIVE) {
                continue;
            }
            failed.add(e[0] + " > " + e[1]);
            Link other = l != null ? l : index.link(e[1], e[0]);
            if (other != null) {
                // one direction left in ONOS's view: the GUI still draws the link, so it can be marked
                BiLink b = index.line(other);
                shown.put(b.linkId(), new LinkHighlight(b.linkId(), LinkHighlight.Flavor.SECONDARY_HIGHLIGHT)
                        .addMod(FAILED).setLabel("failed"));
            }
            for (ConnectPoint end : e) {
                if (!devices.isAvailable(end.deviceId())) {
                    DeviceHighlight d = new DeviceHighlight(end.deviceId().toString());
                    d.setBadge(NodeBadge.text(NodeBadge.Status.ERROR, "x", "down: the group's tree left it"));
                    h.add(d);
                }
            }
        }
        shown.values().forEach(h::add);
        for (GroupTree.Hop hop : tree.hops()) {
            h.add(device(hop));
        }
        Map<Endpoint, HostId> ids = tree.hostIds();
        for (Map.Entry<Endpoint, HostId> e : ids.entrySet()) {
            HostHighlight host = new HostHighlight(e.getValue().toString());
            if (tree.unreachable().contains(e.getKey())) {
                host.setBadge(NodeBadge.text(NodeBadge.Status.ERROR, "!", "unreachable receiver of group "
                        + tree.id()));
            } else if (!tree.paths().containsKey(e.getKey())) {
                host.setBadge(NodeBadge.text(NodeBadge.Status.INFO, "S", "source of group " + tree.id()));
            }
            h.add(host);
        }
        return new Result(h, treeLinks, failed);
    }

    private static DeviceHighlight device(GroupTree.Hop hop) {
        DeviceHighlight d = new DeviceHighlight(hop.device().toString());
        String roles = hop.roles().toString();
        if (hop.roles().contains(GroupTree.Role.INGRESS)) {
            d.setBadge(NodeBadge.text(NodeBadge.Status.INFO, "S", "ingress " + roles + ", in " + hop.inPort()
                    + ", out " + hop.outPorts()));
        } else {
            d.setBadge(NodeBadge.number(NodeBadge.Status.INFO, hop.outPorts().size(), roles + ", in "
                    + hop.inPort() + ", out " + hop.outPorts()));
        }
        return d;
    }
}
