package org.mcast4ai.gui;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.GroupTree;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupListener;
import org.mcast4ai.api.P2mpGroupService;
import org.mcast4ai.api.P4FabricService;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.link.LinkEvent;
import org.onosproject.net.link.LinkListener;
import org.onosproject.net.link.LinkService;
import org.onosproject.net.statistic.PortStatisticsService;
import org.onosproject.ui.JsonUtils;
import org.onosproject.ui.RequestHandler;
import org.onosproject.ui.UiMessageHandler;
import org.onosproject.ui.topo.Highlights;
import org.onosproject.ui.topo.TopoJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The server side of the mcast4ai topology overlay, one per GUI connection. The overlay shows either one group
 * (its tree highlighted, everything else subdued, the detail panel) or the fabric (links coloured by groups
 * crossing them or by load, P4 switches badged with their static state). What is shown follows changes live: a
 * group, link or device event brings a new picture within {@value #FOLLOW_MS} ms ({@value #FABRIC_FOLLOW_MS} ms
 * for the groups-per-link picture, which traces every group), and the load picture is refreshed every
 * {@value #LOAD_MS} ms, as ONOS's port statistics change.
 *
 * <p>Requests: {@value #START} (optionally {@code group}), {@value #SHOW_GROUP} ({@code id}),
 * {@value #STEP} ({@code delta}: the next or previous group), {@value #SHOW_FABRIC} ({@code metric}:
 * {@code groups} or {@code load}), {@value #STOP}. Messages out: ONOS's {@code showHighlights},
 * {@value #GROUPS} (the picker's list), {@value #DETAIL} (a group's panel), {@value #FABRIC} (the fabric
 * summary), {@value #ERROR}.
 */
public class TopoOverlayMessageHandler extends UiMessageHandler {
    static final String START = "mcast4aiTopoStart";
    static final String SHOW_GROUP = "mcast4aiTopoShowGroup";
    static final String STEP = "mcast4aiTopoStep";
    static final String SHOW_FABRIC = "mcast4aiTopoShowFabric";
    static final String STOP = "mcast4aiTopoStop";
    static final String GROUPS = "mcast4aiTopoGroups";
    static final String DETAIL = "mcast4aiTopoGroupDetail";
    static final String FABRIC = "mcast4aiTopoFabric";
    static final String ERROR = "mcast4aiTopoError";

    /** How soon a change is shown. */
    static final long FOLLOW_MS = 300;
    /** How often the load picture is refreshed. */
    static final long LOAD_MS = 5000;
    /**
     * How soon a change is shown in the groups-per-link picture, which traces every live group: under churn it is
     * drawn at most this often.
     */
    static final long FABRIC_FOLLOW_MS = 2000;

    private final Logger log = LoggerFactory.getLogger(getClass());

    private final P2mpGroupService groups;
    private final Supplier<P4FabricService> p4;
    private final LinkService links;
    private final DeviceService devices;
    private final PortStatisticsService stats;
    private final ScheduledExecutorService timer;

    private final P2mpGroupListener groupListener = this::groupEvent;
    private final LinkListener linkListener = (LinkEvent e) -> follow();
    private final DeviceListener deviceListener = (DeviceEvent e) -> follow();

    // what is shown: one group, or the fabric by a metric, or nothing
    private P2mpGroupId shown;
    private FabricHeat.Metric metric;
    // every link the shown group's tree crossed since it was picked: those down now are its failed links
    private final Map<String, ConnectPoint[]> used = new LinkedHashMap<>();
    private boolean listening;
    private ScheduledFuture<?> pending;
    private ScheduledFuture<?> loadTimer;

    /**
     * @param groups  the group service
     * @param p4      the P4 fabric service, or null while there is none
     * @param links   ONOS's links
     * @param devices ONOS's devices
     * @param stats   ONOS's port statistics, or null
     * @param timer   runs the refreshes
     */
    public TopoOverlayMessageHandler(P2mpGroupService groups, Supplier<P4FabricService> p4, LinkService links,
                                     DeviceService devices, PortStatisticsService stats,
                                     ScheduledExecutorService timer) {
        this.groups = Objects.requireNonNull(groups);
        this.p4 = p4;
        this.links = Objects.requireNonNull(links);
        this.devices = Objects.requireNonNull(devices);
        this.stats = stats;
        this.timer = Objects.requireNonNull(timer);
    }

    @Override
    protected Collection<RequestHandler> createRequestHandlers() {
        return List.of(
                new Handler(START, p -> {
                    startListening();
                    sendGroups();
                    if (p.hasNonNull("group")) {
                        showGroup(p.get("group").asText());
                    }
                }),
                new Handler(SHOW_GROUP, p -> showGroup(p.path("id").asText())),
                new Handler(STEP, p -> step(p.path("delta").asInt(1))),
                new Handler(SHOW_FABRIC, p -> showFabric(p.path("metric").asText())),
                new Handler(STOP, p -> stop()));
    }

    @Override
    public void destroy() {
        // the connection is closing: nothing to clear on its screen
        quiet();
        super.destroy();
    }

    private final class Handler extends RequestHandler {
        private final java.util.function.Consumer<ObjectNode> work;

        Handler(String type, java.util.function.Consumer<ObjectNode> work) {
            super(type);
            this.work = work;
        }

        @Override
        public void process(ObjectNode payload) {
            work.accept(payload == null ? objectNode() : payload);
        }
    }

    private synchronized void startListening() {
        if (!listening) {
            groups.addListener(groupListener);
            links.addListener(linkListener);
            devices.addListener(deviceListener);
            listening = true;
        }
    }

    private synchronized void stop() {
        quiet();
        sendMessage(TopoJson.highlightsMessage(new Highlights()));
    }

    // no listeners, no timers, nothing shown
    private synchronized void quiet() {
        if (listening) {
            groups.removeListener(groupListener);
            links.removeListener(linkListener);
            devices.removeListener(deviceListener);
            listening = false;
        }
        cancelLoadTimer();
        if (pending != null) {
            pending.cancel(false);
            pending = null;
        }
        shown = null;
        metric = null;
        used.clear();
    }

    private synchronized void showGroup(String text) {
        P2mpGroupId id;
        try {
            id = P2mpGroupId.parse(text);
        } catch (RuntimeException e) {
            error("'" + text + "' is not a group id");
            return;
        }
        if (groups.getGroup(id).isEmpty()) {
            error("no group " + text);
            return;
        }
        startListening();
        cancelLoadTimer();
        shown = id;
        metric = null;
        used.clear();
        refresh();
    }

    private synchronized void step(int delta) {
        List<P2mpGroup> all = new ArrayList<>(groups.getGroups());
        if (all.isEmpty()) {
            error("no groups");
            return;
        }
        int at = -1;
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).id().equals(shown)) {
                at = i;
            }
        }
        int next = at < 0 ? (delta >= 0 ? 0 : all.size() - 1) : Math.floorMod(at + delta, all.size());
        showGroup(Long.toString(all.get(next).id().value()));
    }

    private synchronized void showFabric(String name) {
        FabricHeat.Metric m;
        try {
            m = FabricHeat.Metric.valueOf(name.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            error("metric must be one of groups, load; not '" + name + "'");
            return;
        }
        startListening();
        shown = null;
        metric = m;
        used.clear();
        cancelLoadTimer();
        if (m == FabricHeat.Metric.LOAD) {
            loadTimer = timer.scheduleWithFixedDelay(this::refreshSafely, LOAD_MS, LOAD_MS, TimeUnit.MILLISECONDS);
        }
        refresh();
    }

    private void cancelLoadTimer() {
        if (loadTimer != null) {
            loadTimer.cancel(false);
            loadTimer = null;
        }
    }

    private void groupEvent(P2mpGroupEvent event) {
        follow();
    }

    // a burst of events brings one new picture
    private synchronized void follow() {
        if (!listening || pending != null && !pending.isDone()) {
            return;
        }
        pending = timer.schedule(() -> {
            refreshSafely();
            sendGroupsSafely();
        }, metric == FabricHeat.Metric.GROUPS ? FABRIC_FOLLOW_MS : FOLLOW_MS, TimeUnit.MILLISECONDS);
    }

    private void refreshSafely() {
        try {
            refresh();
        } catch (RuntimeException e) {
            log.warn("Refreshing the mcast4ai overlay failed", e);
        }
    }

    private void sendGroupsSafely() {
        try {
            sendGroups();
        } catch (RuntimeException e) {
            log.warn("Sending the mcast4ai groups failed", e);
        }
    }

    /** Sends the picture of what is shown now. */
    synchronized void refresh() {
        if (shown != null) {
            P2mpGroup g = groups.getGroup(shown).orElse(null);
            if (g == null) {
                error("group " + shown + " is gone");
                stop();
                return;
            }
            GroupTree tree = groups.tree(shown);
            TreeHighlights.Result r = TreeHighlights.of(tree, new ArrayList<>(used.values()), links, devices);
            tree.links().forEach(l -> used.putIfAbsent(LinkIndex.ends(l[0], l[1]), l));
            sendMessage(TopoJson.highlightsMessage(r.highlights));
            sendMessage(JsonUtils.envelope(DETAIL, GroupDetail.json(groups, g, tree, r.failed)));
        } else if (metric != null) {
            FabricHeat.Result r = FabricHeat.of(metric, groups, stats, links);
            P4FabricService fabric = p4 == null ? null : p4.get();
            int[] p4Counts = FabricHeat.p4(r.highlights, fabric == null ? null : fabric.status());
            sendMessage(TopoJson.highlightsMessage(r.highlights));
            ObjectNode n = objectNode().put("metric", metric.name().toLowerCase(java.util.Locale.ROOT))
                    .put("links", r.linksUsed).put("max", r.max).put("hottest", r.hottest == null ? "" : r.hottest);
            n.putObject("p4").put("inPlace", p4Counts[0]).put("pending", p4Counts[1]).put("failed", p4Counts[2])
                    .put("problem", fabric == null || fabric.status().problem() == null ? ""
                            : fabric.status().problem());
            sendMessage(JsonUtils.envelope(FABRIC, n));
        }
    }

    private void sendGroups() {
        ObjectNode n = objectNode();
        ArrayNode list = n.putArray("groups");
        for (P2mpGroup g : groups.getGroups()) {
            list.addObject().put("id", g.id().value()).put("name", g.key().tenant() + "/" + g.key().name())
                    .put("state", g.state().name()).put("mode", g.effectiveMode().name())
                    .put("receivers", g.request().receivers().size());
        }
        synchronized (this) {
            n.put("shown", shown == null ? -1 : shown.value());
        }
        sendMessage(JsonUtils.envelope(GROUPS, n));
    }

    private void error(String message) {
        sendMessage(JsonUtils.envelope(ERROR, objectNode().put("message", message)));
    }
}
