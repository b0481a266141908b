package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.impl.bitmap.BitmapLayout;
import org.mcast4ai.impl.bitmap.BitmapPlanner;
import org.mcast4ai.impl.bitmap.BitmapStamp;
import org.mcast4ai.impl.bitmap.EthSrcBitmap;
import org.mcast4ai.impl.bitmap.OpenFlowBitmapProgrammer;
import org.mcast4ai.impl.bitmap.OpenFlowStampProgrammer;
import org.mcast4ai.impl.program.Move;
import org.onlab.packet.IpAddress;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.mcast4ai.lab.LabHarness.run;

/**
 * BITMAP replication on real Open vSwitch: the default 2-spine 4-leaf lab, the static tables and egress
 * groups installed by {@link OpenFlowBitmapProgrammer} through the lab's ovs-ofctl flow and group services,
 * per-group stamps on the source leaf, real RoCEv2 packets from the source namespace (whole group from an
 * unmodified sender, subsets stamped by the sender, a bitmap outside the group), {@code ofproto/trace} as a
 * second opinion, and the tables of every switch above the leaves unchanged between 1 and 1,000 groups.
 */
@Tag("ovs")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BitmapOvsTest {
    private static final int PACKETS = 20;
    private static final String GROUP = "239.77.1.1";
    private static final List<String> MEMBERS = List.of("h2", "h3", "h6", "h8");

    private final DefaultApplicationId appId = new DefaultApplicationId(77, "org.mcast4ai");
    private Path fabricFile;
    private boolean fabricUp;
    private ExecutorService executor;
    private LabFabric fabric;
    private BitmapLayout layout;
    private OvsFlowRuleService flows;
    private OpenFlowBitmapProgrammer programmer;
    private BitmapStamp stamp;
    private final Map<String, TreeSet<String>> spineFlows = new HashMap<>();
    private final Map<String, List<String>> spineGroups = new HashMap<>();

    @BeforeAll
    void up() throws Exception {
        assumeTrue(LabHarness.isRoot(), "the Open vSwitch lab needs root");
        Path dir = LabHarness.root().resolve("tools/lab/target/bitmap-ovs");
        Files.createDirectories(dir);
        fabricFile = dir.resolve("fabric.json");
        LabHarness.waitForNoOtherLab(240_000);
        // -Dmcast4ai.bitmap.topo=fattree runs the same checks on the k=4 fat tree (3 tiers)
        String topo = System.getProperty("mcast4ai.bitmap.topo", "leafspine");
        LabHarness.Run r = run(List.of(LabHarness.root().resolve("tools/lab/fabric").toString(), "up",
                "--topo", topo, "--out", fabricFile.toString()), 300);
        fabricUp = true;
        if (r.code != 0) {
            assumeTrue(LabHarness.ovsRunning(), "Open vSwitch cannot start here: " + r.out);
            throw new AssertionError("fabric up failed: " + r.out);
        }
        fabric = LabFabric.read(fabricFile);
        executor = Executors.newSingleThreadExecutor();
        flows = new OvsFlowRuleService(fabric, Ofctl.lab(), executor);
        OvsGroupService groups = new OvsGroupService(fabric, Ofctl.lab(), executor);
        programmer = new OpenFlowBitmapProgrammer(flows, groups, appId, 0, BitmapPlanner.DEFAULT_CHAIN_BASE);
        FabricSnapshot snapshot = BitmapLab.snapshot(fabric);
        layout = BitmapLayout.of(snapshot);
        assertTrue(layout.fits(), layout.whyNot().orElse(""));
        long t0 = System.nanoTime();
        programmer.applyStatic(layout).get(60, TimeUnit.SECONDS);
        System.out.printf("bitmap-ovs: static tables on %d switches in %.1f ms%n", fabric.switches().size(),
                (System.nanoTime() - t0) / 1e6);
    }

    @AfterAll
    void down() {
        try {
            if (executor != null) {
                executor.shutdownNow();
            }
        } finally {
            if (fabricUp) {
                run(List.of(LabHarness.root().resolve("tools/lab/fabric").toString(), "down",
                        "--fabric", fabricFile.toString()), 120);
            }
        }
    }

    private LabFabric.Host host(String name) {
        return fabric.host(name).orElseThrow();
    }

    private long bits(List<String> hosts) {
        long b = 0;
        for (String h : hosts) {
            int bit = layout.bitOfHost(BitmapLab.hostId(host(h)));
            assertTrue(bit >= 0, h);
            b |= 1L << bit;
        }
        return b;
    }

    private BitmapStamp compile(String source, List<String> members, String address, long key) {
        BitmapStamp.Result r = BitmapStamp.compile(layout, BitmapLab.hostId(host(source)),
                members.stream().map(m -> BitmapLab.hostId(host(m))).collect(Collectors.toList()),
                IpAddress.valueOf(address), 40000, key);
        assertTrue(r.stamp() != null, r.failure());
        return r.stamp();
    }

    private FlowRuleOperationsContext context(CompletableFuture<Void> done) {
        return new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations ops) {
                done.complete(null);
            }

            @Override
            public void onError(FlowRuleOperations ops) {
                done.completeExceptionally(new AssertionError("switch refused the batch: "
                        + new TreeSet<>(flows.failures().values())));
            }
        };
    }

    private JsonNode deliver(String source, String srcMac, List<String> members) throws Exception {
        JsonNode summary = LabHarness.deliver(fabricFile, source, GROUP, members, PACKETS, srcMac);
        System.out.println("bitmap-ovs: from " + source + " src " + (srcMac == null ? "own" : srcMac) + " to "
                + members + ": " + summary);
        return summary;
    }

    @Test
    @Order(1)
    void staticTablesAreWhatThePlannerSays() {
        Map<DeviceId, BitmapPlanner.DeviceEntries> planned = programmer.planner().staticEntries(layout);
        for (LabFabric.Switch s : fabric.switches()) {
            BitmapPlanner.DeviceEntries e = planned.get(DeviceId.deviceId(s.deviceId()));
            int flowCount = LabHarness.flows(s.bridge()).size();
            int groupCount = BitmapLab.groups(s.bridge()).size();
            System.out.printf("bitmap-ovs: %s (%s) static flows=%d groups=%d%n", s.name(), s.role(), flowCount,
                    groupCount);
            assertEquals(e.rules().size(), flowCount, s.name());
            assertEquals(e.groups().size(), groupCount, s.name());
            if (!s.role().equals("LEAF")) {
                spineFlows.put(s.bridge(), BitmapLab.flowSet(s.bridge()));
                spineGroups.put(s.bridge(), BitmapLab.groups(s.bridge()));
            }
        }
        // nothing is stamped yet: a group's packets go nowhere
        assertTrue(BitmapLab.trace(fabric, host("h1"), host("h1").mac(), GROUP).hosts.isEmpty());
    }

    @Test
    @Order(2)
    void wholeGroupFromAnUnmodifiedSender() throws Exception {
        stamp = compile("h1", MEMBERS, GROUP, 0);
        CompletableFuture<Void> done = new CompletableFuture<>();
        long t0 = System.nanoTime();
        new OpenFlowStampProgrammer(flows, programmer.planner()).apply(null,
                List.of(new Move(stamp.device(), null, Set.of(), stamp)), (ok, refused) -> {
                    if (refused.isEmpty()) {
                        done.complete(null);
                    } else {
                        done.completeExceptionally(new IllegalStateException("refused: " + refused));
                    }
                });
        done.get(30, TimeUnit.SECONDS);
        System.out.printf("bitmap-ovs: group stamp acknowledged in %.1f ms (%d rules on %s)%n",
                (System.nanoTime() - t0) / 1e6, programmer.planner().stampRules(stamp).size(), stamp.device());
        LabHarness.assertExactlyOnce(deliver("h1", null, MEMBERS), MEMBERS.size());
    }

    @Test
    @Order(3)
    void traceShowsOneCopyPerReceiverWithTheLeafAddress() {
        BitmapLab.Trace t = BitmapLab.trace(fabric, host("h1"), host("h1").mac(), GROUP);
        assertEquals(new TreeSet<>(MEMBERS), new TreeSet<>(t.hosts), t.text);
        assertEquals(MEMBERS.size(), t.hosts.size(), "one copy each:\n" + t.text);
        assertTrue(!t.sources.isEmpty() && t.sources.stream().allMatch(m -> m.startsWith("02:6d:34:61:")),
                "host copies carry the leaf's fixed source, not the bitmap: " + t.sources + "\n" + t.text);
    }

    @Test
    @Order(4)
    void subsetsStampedByTheSenderReachExactlyThoseReceivers() throws Exception {
        List<List<String>> subsets = List.of(List.of("h3"), List.of("h2", "h8"), List.of("h6", "h8"),
                List.of("h2", "h3", "h6"), MEMBERS);
        for (List<String> subset : subsets) {
            String mac = EthSrcBitmap.stamp(bits(subset)).toString();
            LabHarness.assertExactlyOnce(deliver("h1", mac, subset), subset.size());
            BitmapLab.Trace t = BitmapLab.trace(fabric, host("h1"), mac, GROUP);
            assertEquals(new TreeSet<>(subset), new TreeSet<>(t.hosts), t.text);
            assertEquals(subset.size(), t.hosts.size(), t.text);
        }
    }

    @Test
    @Order(5)
    void aBitmapNamingANonMemberIsDroppedAtTheSourceLeaf() throws Exception {
        String mac = EthSrcBitmap.stamp(bits(List.of("h3", "h4"))).toString();
        JsonNode s = deliver("h1", mac, List.of());
        assertEquals(0, s.path("strays").asInt(), s.toString());
        BitmapLab.Trace t = BitmapLab.trace(fabric, host("h1"), mac, GROUP);
        assertTrue(t.hosts.isEmpty(), t.text);
        assertTrue(t.text.contains("Datapath actions: drop"), t.text);
        // another host of the fabric cannot use the group either
        assertTrue(BitmapLab.trace(fabric, host("h5"), EthSrcBitmap.stamp(bits(List.of("h3"))).toString(), GROUP)
                .hosts.isEmpty());
    }

    @Test
    @Order(6)
    void spinesAreIdenticalWithOneAndWithAThousandGroups() throws Exception {
        List<String> names = fabric.hosts().stream().map(LabFabric.Host::name).collect(Collectors.toList());
        Random rnd = new Random(5);
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        Map<String, Integer> perLeaf = new HashMap<>();
        int rules = 0;
        for (int g = 1; g < 1000; g++) {
            String source = names.get(g % names.size());
            List<String> members = new ArrayList<>();
            for (String n : names) {
                if (!n.equals(source) && rnd.nextInt(3) == 0) {
                    members.add(n);
                }
            }
            if (members.isEmpty()) {
                members.add(names.get((g + 1) % names.size()));
            }
            BitmapStamp s = compile(source, members, "239.78." + (g / 250) + "." + (g % 250 + 1), g);
            for (FlowRule r : programmer.planner().stampRules(s)) {
                ops.add(r);
                rules++;
            }
            perLeaf.merge(s.device().toString(), 2, Integer::sum);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        long t0 = System.nanoTime();
        flows.apply(ops.build(context(done)));
        done.get(120, TimeUnit.SECONDS);
        System.out.printf("bitmap-ovs: 999 more group stamps (%d rules) installed in %.1f ms%n", rules,
                (System.nanoTime() - t0) / 1e6);
        Map<DeviceId, BitmapPlanner.DeviceEntries> planned = programmer.planner().staticEntries(layout);
        for (LabFabric.Switch s : fabric.switches()) {
            int flowCount = LabHarness.flows(s.bridge()).size();
            int groupCount = BitmapLab.groups(s.bridge()).size();
            System.out.printf("bitmap-ovs: %s (%s) with 1000 groups flows=%d groups=%d%n", s.name(), s.role(),
                    flowCount, groupCount);
            BitmapPlanner.DeviceEntries e = planned.get(DeviceId.deviceId(s.deviceId()));
            int stamps = perLeaf.getOrDefault(s.deviceId(), 0)
                    + (s.deviceId().equals(stamp.device().toString()) ? 2 : 0);
            assertEquals(e.rules().size() + stamps, flowCount, s.name());
            assertEquals(e.groups().size(), groupCount, s.name());
            if (!s.role().equals("LEAF")) {
                assertEquals(spineFlows.get(s.bridge()), BitmapLab.flowSet(s.bridge()), s.name());
                assertEquals(spineGroups.get(s.bridge()), BitmapLab.groups(s.bridge()), s.name());
            }
        }
        // the first group still delivers exactly, among a thousand
        LabHarness.assertExactlyOnce(deliver("h1", null, MEMBERS), MEMBERS.size());
        String mac = EthSrcBitmap.stamp(bits(List.of("h6"))).toString();
        LabHarness.assertExactlyOnce(deliver("h1", mac, List.of("h6")), 1);
    }
}
