package org.mcast4ai.gui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.GroupTree;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.P4FabricService;
import org.mcast4ai.api.P4FabricStatus;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.impl.HostedManager;
import org.mcast4ai.testing.TestFabric;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Link;
import org.onosproject.net.statistic.DefaultLoad;
import org.onosproject.net.statistic.PortStatisticsService;
import org.onosproject.ui.topo.PropertyPanel;
import org.onosproject.ui.topo.TopoUtils;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The topology overlay's handler driven as the GUI drives it, against the real group manager over a test fabric:
 * the highlighted links are the group's traced tree in the ids the topology view knows its links by, a link
 * failure re-highlights the rerouted tree and names the failed link without a request, the fabric pictures
 * count groups per link and show load, and bad requests get an error message and change nothing.
 */
class TopoOverlayTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private HostedManager hosted;
    private P2mpGroupAdminService groups;
    private TestFabric fabric;
    private ScheduledExecutorService timer;
    private RecordingConnection gui;
    private TopoOverlayMessageHandler handler;
    private final Map<ConnectPoint, Long> rates = new HashMap<>();
    private P4FabricStatus p4Status;

    @BeforeEach
    void setUp() {
        hosted = HostedManager.withHosts(8);
        groups = hosted.service();
        fabric = hosted.fabric();
        timer = Executors.newSingleThreadScheduledExecutor();
        PortStatisticsService stats = cp -> rates.containsKey(cp) ? new DefaultLoad(rates.get(cp), 0, 1) : null;
        P4FabricService p4 = () -> p4Status;
        handler = new TopoOverlayMessageHandler(groups, () -> p4Status == null ? null : p4, fabric.links,
                fabric.devices, stats, timer);
        gui = new RecordingConnection("topo");
        handler.init(gui, null);
    }

    @AfterEach
    void tearDown() {
        handler.destroy();
        timer.shutdownNow();
        hosted.close();
    }

    private P2mpGroup group(String name, String source, String... receivers) {
        P2mpGroupRequest.Builder b = P2mpGroupRequest.builder().key(GroupKey.of("t1", name))
                .source(Endpoint.of(source)).mode(ReplicationMode.TREE);
        for (String r : receivers) {
            b.addReceiver(Endpoint.of(r));
        }
        P2mpGroup g = groups.submit(b.build());
        assertEquals(GroupState.INSTALLED, groups.getGroup(g.id()).orElseThrow().state());
        return g;
    }

    private void send(String type, String payload) {
        ObjectNode m = MAPPER.createObjectNode().put("event", type);
        try {
            m.set("payload", MAPPER.readTree(payload.replace('\'', '"')));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        handler.process(m);
    }

    private JsonNode last(String event) {
        List<ObjectNode> sent = gui.sent();
        for (int i = sent.size() - 1; i >= 0; i--) {
            if (sent.get(i).get("event").asText().equals(event)) {
                return sent.get(i).get("payload");
            }
        }
        throw new AssertionError("no " + event + " in " + sent);
    }

    private JsonNode await(String event, Predicate<JsonNode> ok) throws InterruptedException {
        long end = System.currentTimeMillis() + TopoOverlayMessageHandler.LOAD_MS + 3000;
        while (System.currentTimeMillis() < end) {
            for (ObjectNode m : gui.sent()) {
                if (m.get("event").asText().equals(event) && ok.test(m.get("payload"))) {
                    return m.get("payload");
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no matching " + event + " in " + gui.sent());
    }

    private static Set<String> ids(JsonNode array) {
        Set<String> s = new HashSet<>();
        array.forEach(n -> s.add(n.get("id").asText()));
        return s;
    }

    // the topology view's id of each link the tree crosses, computed from ONOS's links
    private Set<String> viewIds(GroupTree t) {
        Set<String> s = new HashSet<>();
        for (ConnectPoint[] e : t.links()) {
            Link l = null;
            for (Link k : fabric.links.getLinks()) {
                if (k.src().equals(e[0]) && k.dst().equals(e[1])) {
                    l = k;
                }
            }
            assertNotNull(l, "the tree crosses a link ONOS has: " + e[0] + ">" + e[1]);
            s.add(TopoUtils.canonicalLinkKey(l).asId());
        }
        return s;
    }

    private static List<String> section(JsonNode detail, String title) {
        for (JsonNode s : detail.get("sections")) {
            if (s.get("title").asText().equals(title)) {
                List<String> out = new java.util.ArrayList<>();
                s.get("lines").forEach(l -> out.add(l.asText()));
                return out;
            }
        }
        throw new AssertionError("no section " + title + " in " + detail);
    }

    private static String prop(JsonNode detail, String label) {
        for (JsonNode p : detail.get("props")) {
            if (p.get("label").asText().equals(label)) {
                return p.get("value").asText();
            }
        }
        throw new AssertionError("no " + label + " in " + detail);
    }

    @Test
    void aGroupsTreeIsHighlightedAndFollowsALinkFailureWithoutARequest() throws Exception {
        P2mpGroup g = group("a", "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.5");
        send(TopoOverlayMessageHandler.START, "{}");
        assertEquals(1, last(TopoOverlayMessageHandler.GROUPS).get("groups").size());
        send(TopoOverlayMessageHandler.SHOW_GROUP, "{'id':'" + g.id().value() + "'}");

        GroupTree tree = groups.tree(g.id());
        JsonNode hl = last("showHighlights");
        assertEquals("min", hl.get("subdue").asText(), "everything else subdued");
        assertEquals(viewIds(tree), ids(hl.get("links")));
        hl.get("links").forEach(l -> assertTrue(l.get("css").asText().contains("mcast4ai-tree"), l.toString()));
        Set<String> devices = new HashSet<>();
        tree.hops().forEach(h -> devices.add(h.device().toString()));
        assertEquals(devices, ids(hl.get("devices")));
        assertEquals(4, hl.get("hosts").size(), "the source and three receivers");
        JsonNode detail = last(TopoOverlayMessageHandler.DETAIL);
        assertTrue(prop(detail, "State").startsWith("INSTALLED"), detail.toString());
        assertTrue(prop(detail, "Mode").startsWith("TREE"), detail.toString());
        assertEquals("instance-1 (this instance)", prop(detail, "Owner"));
        assertEquals(3, section(detail, "Paths").size());
        assertEquals(List.of(), section(detail, "Failed links the tree left"));

        // the spine the tree goes up to from the source's leaf fails: no request, a new picture
        DeviceId spine = tree.paths().get(Endpoint.of("10.0.0.2")).get(1);
        int s = spine.equals(TestFabric.spine(1)) ? 1 : 2;
        gui.clear();
        fabric.linkDown(1, s);
        JsonNode after = await(TopoOverlayMessageHandler.DETAIL,
                d -> !section(d, "Failed links the tree left").isEmpty());
        List<String> failed = section(after, "Failed links the tree left");
        assertTrue(failed.stream().allMatch(f -> f.contains(spine.toString())), failed.toString());
        assertTrue(failed.stream().anyMatch(f -> f.startsWith(TestFabric.leaf(1).toString())), failed.toString());
        GroupTree rerouted = groups.tree(g.id());
        assertEquals(3, rerouted.paths().size(), "rerouted over the other spine");
        assertEquals(viewIds(rerouted), ids(last("showHighlights").get("links")));
        assertFalse(rerouted.links().stream().anyMatch(l -> l[0].deviceId().equals(TestFabric.leaf(1))
                && l[1].deviceId().equals(spine)));
    }

    @Test
    void groupsPerLinkCountsEveryLiveGroupsCopiesAndLoadComesFromPortStatistics() throws Exception {
        P2mpGroup a = group("a", "10.0.0.1", "10.0.0.2");
        P2mpGroup b = group("b", "10.0.0.1", "10.0.0.2", "10.0.0.3");
        send(TopoOverlayMessageHandler.SHOW_FABRIC, "{'metric':'groups'}");
        Map<String, Integer> count = new HashMap<>();
        for (P2mpGroup g : List.of(a, b)) {
            viewIds(groups.tree(g.id())).forEach(id -> count.merge(id, 1, Integer::sum));
        }
        JsonNode hl = last("showHighlights");
        assertEquals(count.keySet(), ids(hl.get("links")));
        int max = count.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        for (JsonNode l : hl.get("links")) {
            int n = count.get(l.get("id").asText());
            assertEquals(n + (n == 1 ? " group" : " groups"), l.get("label").asText());
            assertTrue(l.get("css").asText().contains("mcast4ai-heat-" + FabricHeat.step(n, max)), l.toString());
        }
        JsonNode summary = last(TopoOverlayMessageHandler.FABRIC);
        assertEquals(max, summary.get("max").asInt());
        assertEquals(count.size(), summary.get("links").asInt());

        // load: the busier direction of each link, from ONOS's port statistics
        Link busy = fabric.links.getLinks().iterator().next();
        rates.put(busy.src(), 125_000_000L);
        send(TopoOverlayMessageHandler.SHOW_FABRIC, "{'metric':'load'}");
        JsonNode load = last("showHighlights");
        assertEquals(Set.of(TopoUtils.canonicalLinkKey(busy).asId()), ids(load.get("links")));
        assertTrue(load.get("links").get(0).get("css").asText().contains("mcast4ai-heat-5"));
        assertEquals(TopoUtils.formatClippedBitRate(125_000_000L).toString(),
                load.get("links").get(0).get("label").asText());
        // refreshed as statistics change, with no request
        Link other = null;
        for (Link k : fabric.links.getLinks()) {
            if (!TopoUtils.canonicalLinkKey(k).equals(TopoUtils.canonicalLinkKey(busy))) {
                other = k;
            }
        }
        rates.put(other.src(), 500L);
        String otherId = TopoUtils.canonicalLinkKey(other).asId();
        JsonNode later = await("showHighlights", h -> ids(h.get("links")).contains(otherId));
        assertEquals(2, later.get("links").size());
    }

    @Test
    void p4SwitchesAreBadgedWithTheirStaticState() {
        p4Status = new P4FabricStatus(true, List.of(TestFabric.leaf(1).toString(), TestFabric.leaf(2).toString(),
                TestFabric.spine(1).toString()), 3, 1, 10, 0, 2, null, List.of(TestFabric.leaf(2).toString()),
                List.of(), "org.mcast4ai.p4.bmv2");
        send(TopoOverlayMessageHandler.SHOW_FABRIC, "{'metric':'groups'}");
        Map<String, String> badge = new HashMap<>();
        last("showHighlights").get("devices").forEach(d -> badge.put(d.get("id").asText(),
                d.get("badge").get("status").asText() + ":" + d.get("badge").get("msg").asText()));
        assertTrue(badge.get(TestFabric.leaf(1).toString()).startsWith("i:P4 static state in place"), badge.toString());
        assertTrue(badge.get(TestFabric.leaf(2).toString()).startsWith("w:P4 static state pending"), badge.toString());
        JsonNode p4 = last(TopoOverlayMessageHandler.FABRIC).get("p4");
        assertEquals(2, p4.get("inPlace").asInt());
        assertEquals(1, p4.get("pending").asInt());
    }

    @Test
    void thePanelNamesTheLastRepair() {
        P2mpGroup g = group("a", "10.0.0.1", "10.0.0.2");
        send(TopoOverlayMessageHandler.SHOW_GROUP, "{'id':'" + g.id().value() + "'}");
        assertEquals("none", prop(last(TopoOverlayMessageHandler.DETAIL), "Last repair"));
        // a switch loses the group's rule; the recompile (as the audit does) sends it again
        hosted.flows().lose(hosted.flows().rulesOn(TestFabric.leaf(2)).stream().filter(r -> {
            org.onosproject.net.flow.criteria.Criterion c = r.selector()
                    .getCriterion(org.onosproject.net.flow.criteria.Criterion.Type.IPV4_DST);
            return c != null && ((org.onosproject.net.flow.criteria.IPCriterion) c).ip().address()
                    .equals(g.address());
        }).findFirst().orElseThrow());
        groups.recompile(g.id());
        send(TopoOverlayMessageHandler.SHOW_GROUP, "{'id':'" + g.id().value() + "'}");
        String repair = prop(last(TopoOverlayMessageHandler.DETAIL), "Last repair");
        assertTrue(repair.contains("(repairing: entries missing on [" + TestFabric.leaf(2) + "])"), repair);
    }

    @Test
    void badRequestsGetAnErrorAndLeaveWhatIsShown() {
        P2mpGroup g = group("a", "10.0.0.1", "10.0.0.2");
        send(TopoOverlayMessageHandler.SHOW_GROUP, "{'id':'" + g.id().value() + "'}");
        JsonNode shown = last("showHighlights");
        gui.clear();
        send(TopoOverlayMessageHandler.SHOW_GROUP, "{'id':'x'}");
        assertEquals("'x' is not a group id", last(TopoOverlayMessageHandler.ERROR).get("message").asText());
        send(TopoOverlayMessageHandler.SHOW_GROUP, "{'id':'99'}");
        assertEquals("no group 99", last(TopoOverlayMessageHandler.ERROR).get("message").asText());
        send(TopoOverlayMessageHandler.SHOW_FABRIC, "{'metric':'heat'}");
        assertEquals("metric must be one of groups, load; not 'heat'",
                last(TopoOverlayMessageHandler.ERROR).get("message").asText());
        assertEquals(3, gui.sent().size(), "errors only: " + gui.sent());
        handler.refresh();
        assertEquals(shown, last("showHighlights"), "the group is still the one shown");
    }

    @Test
    void stepWalksTheGroupsAndStopClearsAndGoesQuiet() throws Exception {
        P2mpGroup a = group("a", "10.0.0.1", "10.0.0.2");
        P2mpGroup b = group("b", "10.0.0.3", "10.0.0.4");
        send(TopoOverlayMessageHandler.START, "{'group':'" + b.id().value() + "'}");
        assertEquals(b.id().value(), last(TopoOverlayMessageHandler.DETAIL).get("id").asLong());
        send(TopoOverlayMessageHandler.STEP, "{'delta':1}");
        assertEquals(a.id().value(), last(TopoOverlayMessageHandler.DETAIL).get("id").asLong(), "wraps round");
        send(TopoOverlayMessageHandler.STOP, "{}");
        JsonNode cleared = last("showHighlights");
        assertEquals(0, cleared.get("links").size());
        assertFalse(cleared.has("subdue"));
        gui.clear();
        fabric.linkDown(1, 1);
        Thread.sleep(2 * TopoOverlayMessageHandler.FOLLOW_MS);
        assertEquals(List.of(), gui.sent(), "no listener left");
    }

    @Test
    void aReliableGroupsPanelShowsEachReceiversLagAndStallFromTheAggregationReport() {
        P2mpGroup g = groups.submit(P2mpGroupRequest.builder().key(GroupKey.of("t1", "rc"))
                .source(Endpoint.of("10.0.0.1", 51)).addReceiver(Endpoint.of("10.0.0.3", 18))
                .addReceiver(Endpoint.of("10.0.0.8", 19)).reliability(Reliability.ACK_AGGREGATION).build());
        groups.reportAggregation(g.id(), new AggregationReport("h1", 0, Map.of("acksIn", 40L), Set.of("10.0.0.8"),
                Map.of(), 100, 40, Map.of("10.0.0.3", 99, "10.0.0.8", 40)));
        send(TopoOverlayMessageHandler.SHOW_GROUP, "{'id':'" + g.id().value() + "'}");
        List<String> lines = section(last(TopoOverlayMessageHandler.DETAIL), "ACK aggregation");
        assertTrue(lines.get(0).contains("sender next PSN 100, acknowledged to the sender 40, lag 59"),
                lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("10.0.0.3: ")
                && l.contains("acknowledged PSN 99, lag 0")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("10.0.0.8: STALLED") && l.contains("lag 59")),
                lines.toString());
    }

    /** The scripts the GUI loads speak the handler's messages and register the overlay's id. */
    @Test
    void theScriptsUseTheHandlersMessagesAndTheOverlaysId() throws java.io.IOException {
        String js;
        try (java.io.InputStream in = getClass().getClassLoader()
                .getResourceAsStream("app/view/mcast4aiTopov/mcast4aiTopov.js")) {
            js = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        for (String m : List.of(TopoOverlayMessageHandler.START, TopoOverlayMessageHandler.SHOW_GROUP,
                TopoOverlayMessageHandler.STEP, TopoOverlayMessageHandler.SHOW_FABRIC, TopoOverlayMessageHandler.STOP,
                TopoOverlayMessageHandler.GROUPS, TopoOverlayMessageHandler.DETAIL, TopoOverlayMessageHandler.FABRIC,
                TopoOverlayMessageHandler.ERROR)) {
            assertTrue(js.contains(m), "the script knows " + m);
        }
        try (java.io.InputStream in = getClass().getClassLoader()
                .getResourceAsStream("app/view/mcast4aiTopov/mcast4aiTopovOverlay.js")) {
            String overlay = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(overlay.contains("overlayId: '" + Mcast4aiTopoOverlay.ID + "'"), overlay);
        }
        for (String css : List.of(TreeHighlights.TREE.toString(), TreeHighlights.FAILED.toString(),
                FabricHeat.heat(1).toString(), FabricHeat.heat(FabricHeat.STEPS).toString())) {
            try (java.io.InputStream in = getClass().getClassLoader()
                    .getResourceAsStream("app/view/mcast4aiTopov/mcast4aiTopov.css")) {
                assertTrue(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                        .contains(".link." + css), "the style sheet styles " + css);
            }
        }
    }

    @Test
    void theSummaryCountsGroupsByStateAndASwitchsDetailsCountTheGroupsThroughIt() {
        P2mpGroup g = group("a", "10.0.0.1", "10.0.0.2");
        Mcast4aiTopoOverlay overlay = new Mcast4aiTopoOverlay(groups, () -> null);
        PropertyPanel summary = new PropertyPanel("ONOS Summary", "node");
        overlay.modifySummary(summary);
        Map<String, String> props = new HashMap<>();
        summary.properties().forEach(p -> props.put(p.key(), p.value()));
        assertEquals("1", props.get("mcast4ai-groups"));
        assertEquals("1", props.get("mcast4ai-installed"));
        PropertyPanel leaf = new PropertyPanel("leaf", "switch");
        overlay.modifyDeviceDetails(leaf, TestFabric.leaf(1));
        assertEquals("1", leaf.properties().stream().filter(p -> p.key().equals("mcast4ai-crossing"))
                .findFirst().orElseThrow().value());
        PropertyPanel idle = new PropertyPanel("leaf", "switch");
        overlay.modifyDeviceDetails(idle, TestFabric.leaf(4));
        assertEquals("0", idle.properties().stream().filter(p -> p.key().equals("mcast4ai-crossing"))
                .findFirst().orElseThrow().value());
        assertEquals(GroupState.INSTALLED, groups.getGroup(g.id()).orElseThrow().state());
    }
}
