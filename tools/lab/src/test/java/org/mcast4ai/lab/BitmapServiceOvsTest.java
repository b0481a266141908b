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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mcast4ai.lab.LabHarness.run;

/**
 * BITMAP end to end on real Open vSwitch, through the group service and its REST API only: the default
 * 2-spine 4-leaf lab, the runner in-process, groups created over real HTTP with {@code "mode":"BITMAP"},
 * real RoCEv2 packets from the unmodified sender and from a sender stamping receiver subsets with the
 * source MAC the {@code /bitmap} resource describes, the spines' tables unchanged by 20 more groups, an
 * AUTO group moved to BITMAP, and withdrawal back to the static tables.
 */
@Tag("ovs")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BitmapServiceOvsTest {

    private static final int PACKETS = 20;
    private static final long SETTLE_MS = 30_000;
    private static final String SOURCE = "h1";
    // h2 shares the source's leaf; h3, h6 and h8 sit on the three other leaves
    private static final List<String> MEMBERS = List.of("h2", "h3", "h6", "h8");

    private Path fabricFile;
    private LabHarness.RunningLab running;
    private Lab lab;
    private LabHarness.Rest rest;
    private long groupId;
    private String address;
    private JsonNode bitmap;
    private final List<Long> created = new ArrayList<>();
    /** Flow entries per bridge (no counters) with the first group only. */
    private final Map<String, TreeSet<String>> firstFlows = new HashMap<>();
    private final Map<String, List<String>> firstGroups = new HashMap<>();
    private String sourceLeaf;
    private int installedSourceLeaf;

    @BeforeAll
    void up() throws Exception {
        running = LabHarness.RunningLab.start("bitmap-service-ovs", 300_000);
        fabricFile = running.fabricFile;
        lab = running.lab;
        rest = running.rest;
        sourceLeaf = bridgeOf(SOURCE);
    }

    @AfterAll
    void down() {
        if (running != null) {
            running.close();
        }
    }

    private LabFabric.Host host(String name) {
        return lab.fabric().host(name).orElseThrow();
    }

    private String bridgeOf(String hostName) {
        return lab.fabric().switchById(host(hostName).deviceId()).orElseThrow().bridge();
    }

    private List<String> ips(List<String> names) {
        return names.stream().map(n -> host(n).ip()).collect(Collectors.toList());
    }

    private long create(String name, String mode, String source, List<String> receivers) throws Exception {
        String body = LabHarness.groupJson(name, host(source).ip(), ips(receivers))
                .replace("\"mode\":\"TREE\"", "\"mode\":\"" + mode + "\"");
        long id = rest.call("POST", "groups", body, 201).path("id").asLong();
        created.add(id);
        return id;
    }

    private JsonNode awaitInstalled(long id) throws Exception {
        JsonNode g = rest.await(id, SETTLE_MS);
        assertEquals("INSTALLED", g.path("state").asText(), g.toString());
        return g;
    }

    private JsonNode deliver(String srcMac, List<String> members) throws Exception {
        JsonNode summary = LabHarness.deliver(fabricFile, SOURCE, address, members, PACKETS, srcMac);
        System.out.println("bitmap-service-ovs: src " + (srcMac == null ? "own" : srcMac) + " to " + members + ": "
                + summary);
        return summary;
    }

    /** Flow entries of a bridge as {@code ovs-ofctl --no-stats dump-flows} prints them (no counters), sorted. */
    private static TreeSet<String> flowsNoStats(String bridge) {
        LabHarness.Run r = run(List.of("ovs-ofctl", "-O", "OpenFlow13", "--no-stats", "dump-flows", bridge), 10);
        assertEquals(0, r.code, "dump-flows " + bridge + ": " + r.out);
        TreeSet<String> out = new TreeSet<>();
        for (String line : r.out.split("\n")) {
            if (line.contains("actions=")) {
                out.add(line.trim());
            }
        }
        return out;
    }

    /** The sender's stamp for some receivers, computed by subset_stamp.py from the /bitmap JSON. */
    private String subsetStamp(List<String> members) throws Exception {
        Path json = fabricFile.resolveSibling("bitmap.json");
        Files.writeString(json, bitmap.toString());
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/python3",
                LabHarness.root().resolve("tools/traffic/subset_stamp.py").toString(), json.toString()));
        members.forEach(m -> cmd.add(host(m).ip()));
        LabHarness.Run r = run(cmd, 20);
        assertEquals(0, r.code, r.out);
        return r.out.trim();
    }

    /** The receiver bit of a member, from the /bitmap JSON (receivers named as the group request names them). */
    private int bitOf(String member) {
        String id = host(member).ip();
        for (JsonNode r : bitmap.path("receivers")) {
            if (r.path("host").asText().equals(id)) {
                return r.path("bit").asInt();
            }
        }
        throw new AssertionError(member + " (" + id + ") is not in the bit map " + bitmap);
    }

    /** The eth_src encoding of receiver bits (as subset_stamp.py and EthSrcBitmap do). */
    private static String stampOf(long bits) {
        long v = (0x02L << 40) | (bits & ((1L << 40) - 1)) | ((bits >> 40) << 42);
        StringBuilder sb = new StringBuilder();
        for (int s = 40; s >= 0; s -= 8) {
            sb.append(sb.length() == 0 ? "" : ":").append(String.format("%02x", (v >> s) & 0xff));
        }
        return sb.toString();
    }

    @Test
    @Order(1)
    void bitmapGroupIsInstalledOverRest() throws Exception {
        long t0 = System.nanoTime();
        groupId = create("bm-1", "BITMAP", SOURCE, MEMBERS);
        JsonNode g = awaitInstalled(groupId);
        System.out.printf("bitmap-service-ovs: first BITMAP group INSTALLED in %.1f ms%n",
                          (System.nanoTime() - t0) / 1e6);
        installedSourceLeaf = LabHarness.flows(sourceLeaf).size();
        assertEquals("BITMAP", g.path("effectiveMode").asText(), g.toString());
        address = g.path("address").asText();
        // the other leaves hold the static tables only; the source leaf those plus the group's two entries
        // (waited for here so that the later tests compare against the full tables, see the next test)
        String otherLeaf = bridgeOf("h3");
        long deadline = System.currentTimeMillis() + SETTLE_MS;
        while (LabHarness.flows(sourceLeaf).size() != LabHarness.flows(otherLeaf).size() + 2
                && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        System.out.printf("bitmap-service-ovs: source leaf tables complete %.1f ms after the request%n",
                          (System.nanoTime() - t0) / 1e6);
        for (LabFabric.Switch s : lab.fabric().switches()) {
            firstFlows.put(s.bridge(), flowsNoStats(s.bridge()));
            firstGroups.put(s.bridge(), BitmapLab.groups(s.bridge()));
            System.out.printf("bitmap-service-ovs: %s (%s) flows=%d groups=%d%n", s.name(), s.role(),
                              firstFlows.get(s.bridge()).size(), firstGroups.get(s.bridge()).size());
        }
        assertEquals(firstFlows.get(otherLeaf).size() + 2, firstFlows.get(sourceLeaf).size(),
                     firstFlows.toString());
    }

    @Test
    @Order(2)
    void sourceLeafHoldsTheStaticTablesWhenTheGroupIsInstalled() {
        // INSTALLED must mean deliverable: the group's stamp sends packets to the static tables (table 10 on),
        // so those must be on the source leaf by then
        assertEquals(firstFlows.get(sourceLeaf).size(), installedSourceLeaf,
                     "flow entries on the source leaf when the group became INSTALLED vs once settled");
    }

    @Test
    @Order(3)
    void unmodifiedSenderReachesEveryReceiverOnce() throws Exception {
        LabHarness.assertExactlyOnce(deliver(null, MEMBERS), MEMBERS.size());
    }

    @Test
    @Order(4)
    void subsetsStampedFromTheRestBitmapReachExactlyThoseReceivers() throws Exception {
        bitmap = rest.call("GET", "groups/" + groupId + "/bitmap", null, 200);
        assertEquals("BITMAP", bitmap.path("mode").asText(), bitmap.toString());
        assertEquals("eth_src", bitmap.path("carrier").asText(), bitmap.toString());
        assertEquals(MEMBERS.size(), bitmap.path("receivers").size(), bitmap.toString());
        long all = 0;
        for (String m : MEMBERS) {
            all |= 1L << bitOf(m);
        }
        assertEquals(all, Long.parseLong(bitmap.path("groupBits").asText().substring(2), 16), bitmap.toString());
        assertEquals(stampOf(all), bitmap.path("stampMac").asText().toLowerCase(), bitmap.toString());

        List<List<String>> subsets = List.of(List.of("h3"), List.of("h2", "h8"), List.of("h6", "h8"),
                                             List.of("h2", "h3", "h6"));
        for (List<String> subset : subsets) {
            long bits = 0;
            for (String m : subset) {
                bits |= 1L << bitOf(m);
            }
            String mac = subsetStamp(subset);
            assertEquals(stampOf(bits), mac, "subset_stamp.py and the OR of the bits agree for " + subset);
            LabHarness.assertExactlyOnce(deliver(mac, subset), subset.size());
        }
    }

    @Test
    @Order(5)
    void aStampWithABitOutsideTheGroupReachesNobody() throws Exception {
        long group = Long.parseLong(bitmap.path("groupBits").asText().substring(2), 16);
        // every bit below the group's highest that the group does not own (the source's, the other hosts')
        List<Integer> outside = new ArrayList<>();
        for (int b = 0; b < 64 - Long.numberOfLeadingZeros(group); b++) {
            if ((group & (1L << b)) == 0) {
                outside.add(b);
            }
        }
        assertFalse(outside.isEmpty(), bitmap.toString());
        for (int b : outside) {
            JsonNode s = deliver(stampOf(1L << b), List.of());
            assertEquals(0, s.path("delivered").asInt(), s.toString());
            assertEquals(0, s.path("strays").asInt(), s.toString());
        }
        // a member's bit does not carry an outside bit through
        JsonNode s = deliver(stampOf((1L << bitOf("h3")) | (1L << outside.get(outside.size() - 1))), List.of());
        assertEquals(0, s.path("delivered").asInt(), s.toString());
        assertEquals(0, s.path("strays").asInt(), s.toString());
    }

    @Test
    @Order(6)
    void twentyMoreGroupsLeaveTheSpinesUnchangedAndAddTwoEntriesPerSourceLeaf() throws Exception {
        List<String> names = lab.fabric().hosts().stream().map(LabFabric.Host::name).collect(Collectors.toList());
        Map<String, Integer> added = new LinkedHashMap<>();
        List<Long> ids = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int g = 0; g < 20; g++) {
            String source = names.get(g % names.size());
            List<String> receivers = new ArrayList<>();
            for (int k = 1; k <= 1 + g % 5; k++) {
                receivers.add(names.get((g + k * 3) % names.size()));
            }
            receivers.remove(source);
            receivers = receivers.stream().distinct().collect(Collectors.toList());
            if (receivers.isEmpty()) {
                receivers.add(names.get((g + 1) % names.size()));
            }
            ids.add(create("bm-more-" + g, "BITMAP", source, receivers));
            added.merge(bridgeOf(source), 2, Integer::sum);
        }
        for (long id : ids) {
            JsonNode g = awaitInstalled(id);
            assertEquals("BITMAP", g.path("effectiveMode").asText(), g.toString());
        }
        System.out.printf("bitmap-service-ovs: 20 more BITMAP groups INSTALLED in %.1f ms%n",
                          (System.nanoTime() - t0) / 1e6);
        for (LabFabric.Switch s : lab.fabric().switches()) {
            TreeSet<String> now = flowsNoStats(s.bridge());
            System.out.printf("bitmap-service-ovs: %s (%s) with 21 groups flows=%d%n", s.name(), s.role(),
                              now.size());
            if (!s.role().equals("LEAF")) {
                assertEquals(firstFlows.get(s.bridge()), now, s.name());
                assertEquals(firstGroups.get(s.bridge()), BitmapLab.groups(s.bridge()), s.name());
            } else {
                assertEquals(firstFlows.get(s.bridge()).size() + added.getOrDefault(s.bridge(), 0), now.size(),
                             s.name());
                assertTrue(now.containsAll(firstFlows.get(s.bridge())), s.name());
            }
        }
        // the first group still delivers exactly among the others
        LabHarness.assertExactlyOnce(deliver(null, MEMBERS), MEMBERS.size());
    }

    @Test
    @Order(7)
    void autoGroupGetsBitmapWithAReason() throws Exception {
        long id = create("auto-1", "AUTO", "h4", List.of("h1", "h5", "h7"));
        awaitInstalled(id);
        long deadline = System.currentTimeMillis() + SETTLE_MS;
        JsonNode g;
        do {
            g = rest.call("GET", "groups/" + id, null, 200);
            if ("BITMAP".equals(g.path("effectiveMode").asText()) && "INSTALLED".equals(g.path("state").asText())) {
                break;
            }
            Thread.sleep(50);
        } while (System.currentTimeMillis() < deadline);
        System.out.println("bitmap-service-ovs: AUTO group: " + g.path("effectiveMode") + " / "
                                   + g.path("modeReason"));
        assertEquals("BITMAP", g.path("effectiveMode").asText(), g.toString());
        assertEquals("INSTALLED", g.path("state").asText(), g.toString());
        assertFalse(g.path("modeReason").asText().isBlank(), g.toString());
    }

    @Test
    @Order(8)
    void withdrawingEveryGroupLeavesOnlyTheStaticTables() throws Exception {
        for (long id : created) {
            rest.call("DELETE", "groups/" + id, null, 200);
        }
        for (long id : created) {
            assertEquals("WITHDRAWN", rest.await(id, SETTLE_MS).path("state").asText(), "group " + id);
        }
        for (LabFabric.Switch s : lab.fabric().switches()) {
            TreeSet<String> now = flowsNoStats(s.bridge());
            TreeSet<String> first = firstFlows.get(s.bridge());
            if (s.bridge().equals(sourceLeaf)) {
                // the first group's two entries are gone, nothing else changed
                assertEquals(first.size() - 2, now.size(), s.name());
                assertTrue(first.containsAll(now), s.name());
            } else {
                assertEquals(first, now, s.name());
            }
            assertEquals(firstGroups.get(s.bridge()), BitmapLab.groups(s.bridge()), s.name());
        }
    }
}
