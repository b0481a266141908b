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
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.core.GroupId;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficTreatment;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mcast4ai.lab.LabHarness.flows;
import static org.mcast4ai.lab.LabHarness.groupJson;
import static org.mcast4ai.lab.LabHarness.hostsJson;
import static org.mcast4ai.lab.LabHarness.run;

/**
 * The lab runner on real Open vSwitch: the default 2-spine 4-leaf fabric from {@code tools/lab/fabric},
 * the runner in-process, TREE groups over real HTTP, real RoCEv2 packets from the source namespace.
 */
@Tag("ovs")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LabOvsIT {

    private static final int PACKETS = 20;

    private Path fabricFile;
    private LabHarness.RunningLab running;
    private Lab lab;
    private LabHarness.Rest rest;
    private long groupId;
    private String address;

    @BeforeAll
    void up() throws Exception {
        running = LabHarness.RunningLab.start("ovs-it", 180_000);
        fabricFile = running.fabricFile;
        lab = running.lab;
        rest = running.rest;
    }

    @AfterAll
    void down() {
        if (running != null) {
            running.close();
        }
    }

    private void assertDelivery(List<String> members) throws Exception {
        JsonNode s = LabHarness.deliver(fabricFile, "h1", address, members, PACKETS);
        String why = s.toString();
        assertEquals(members.size(), s.path("receivers").asInt(), why);
        assertEquals(members.size(), s.path("delivered").asInt(), why);
        assertEquals(0, s.path("duplicates").asInt(), why);
        assertEquals(0, s.path("strays").asInt(), why);
    }

    private List<String> ips(String... names) {
        return java.util.Arrays.stream(names).map(n -> lab.fabric().host(n).orElseThrow().ip())
                .collect(java.util.stream.Collectors.toList());
    }

    private int totalFlows() {
        return lab.fabric().switches().stream().mapToInt(sw -> groupFlows(sw.bridge()).size()).sum();
    }

    /** The flows of groups (their addresses come from 239.77.0.0/16); the static BITMAP tables are always there. */
    private static List<String> groupFlows(String bridge) {
        return flows(bridge).stream().filter(f -> f.contains("nw_dst=239.77."))
                .collect(java.util.stream.Collectors.toList());
    }

    @Test
    @Order(1)
    void treeGroupDeliversOneCopyToEveryReceiverAndNoneElsewhere() throws Exception {
        JsonNode created = rest.call("POST", "groups", groupJson("it-1", "10.77.1.1",
                List.of("10.77.1.2", "10.77.2.1", "02:00:00:00:03:01/None", "02:00:00:00:04:01")), 201);
        groupId = created.path("id").asLong();
        JsonNode g = rest.await(groupId, 20_000);
        assertEquals("INSTALLED", g.path("state").asText(), g.toString());
        address = g.path("address").asText();
        assertTrue(totalFlows() > 0, "no flow on any bridge");
        assertDelivery(List.of("h2", "h3", "h5", "h7"));
    }

    @Test
    @Order(2)
    void traceFollowsTheTreeToExactlyTheReceivers() throws Exception {
        // ofproto/trace walks the flow tables through the patch ports; the datapath actions that are left
        // are the outputs to host interfaces: they must be exactly the receivers' ports
        MacAddress mcastMac = MacAddress.valueOf(0x01005e000000L
                | (IpAddress.valueOf(address).getIp4Address().toInt() & 0x7fffff));
        LabHarness.Run trace = run(List.of("ovs-appctl", "ofproto/trace", "m4leaf1",
                "in_port=1,udp,dl_src=02:00:00:00:01:01,dl_dst=" + mcastMac + ",nw_src=10.77.1.1,nw_dst="
                        + address + ",udp_dst=4791"), 20);
        assertEquals(0, trace.code, trace.out);
        Matcher m = Pattern.compile("Datapath actions: (.*)").matcher(trace.out);
        assertTrue(m.find(), trace.out);
        Set<String> outputs = new HashSet<>(List.of(m.group(1).trim().split(",")));
        Map<String, String> hostByOdp = BitmapLab.hostsByDatapathPort(lab.fabric());
        Set<String> reached = new HashSet<>();
        for (String o : outputs) {
            String h = hostByOdp.get(o.trim());
            assertTrue(h != null, "datapath output " + o + " is not a host port:\n" + trace.out);
            reached.add(h);
        }
        assertEquals(Set.of("h2", "h3", "h5", "h7"), reached, trace.out);
        assertEquals(4, m.group(1).split(",").length, "one copy per receiver: " + trace.out);
    }

    @Test
    @Order(3)
    void addingAndRemovingReceiversChangesDelivery() throws Exception {
        rest.call("POST", "groups/" + groupId + "/receivers", "{\"receivers\":" + hostsJson(ips("h8", "h4"))
                + "}", 200);
        assertEquals("INSTALLED", rest.await(groupId, 20_000).path("state").asText());
        assertDelivery(List.of("h2", "h3", "h4", "h5", "h7", "h8"));

        // h5 joined by ONOS host id: it is removed by the same key
        rest.call("DELETE", "groups/" + groupId + "/receivers", "{\"receivers\":"
                + hostsJson(List.of("02:00:00:00:03:01/None", "10.77.1.2")) + "}", 200);
        assertEquals("INSTALLED", rest.await(groupId, 20_000).path("state").asText());
        assertDelivery(List.of("h3", "h4", "h7", "h8"));
    }

    @Test
    @Order(4)
    void withdrawLeavesEveryFlowTableEmpty() throws Exception {
        rest.call("DELETE", "groups/" + groupId, null, 200);
        assertEquals("WITHDRAWN", rest.await(groupId, 20_000).path("state").asText());
        for (LabFabric.Switch sw : lab.fabric().switches()) {
            assertEquals(List.of(), groupFlows(sw.bridge()), sw.bridge());
        }
    }

    @Test
    @Order(5)
    void ruleTheSwitchRejectsFailsTheGroupWithTheSwitchMessage() throws Exception {
        // every rule now also points at a group that does not exist: OVS refuses it (OFPBAC_BAD_OUT_GROUP)
        lab.flows().setRuleHook(rule -> DefaultFlowRule.builder().forDevice(rule.deviceId())
                .withSelector(rule.selector()).withPriority(rule.priority())
                .forTable(rule.tableId()).makePermanent()
                .withTreatment(DefaultTrafficTreatment.builder(rule.treatment()).group(GroupId.valueOf(0xdead))
                                       .build())
                .withCookie(rule.id().value()).build());
        try {
            JsonNode created = rest.call("POST", "groups", groupJson("it-bad", "10.77.1.1", ips("h3")), 201);
            long id = created.path("id").asLong();
            JsonNode g = rest.await(id, 20_000);
            assertEquals("FAILED", g.path("state").asText(), g.toString());
            // FlowRuleOperationsContext.onError carries the failed rules but no text (as under ONOS): the group
            // names the switches that refused; the lab keeps OVS's own message for each of their rules
            String reason = g.path("reason").asText();
            assertTrue(reason.contains("of:0000000000000101"), reason);
            Map<org.onosproject.net.flow.FlowId, String> failures = lab.flows().failures();
            assertTrue(!failures.isEmpty() && failures.values().stream()
                    .allMatch(msg -> msg.contains("OFPBAC_BAD_OUT_GROUP")), failures.toString());
            lab.flows().setRuleHook(null);
            rest.call("DELETE", "groups/" + id, null, 200);
            assertEquals("WITHDRAWN", rest.await(id, 20_000).path("state").asText());
        } finally {
            lab.flows().setRuleHook(null);
        }
        for (LabFabric.Switch sw : lab.fabric().switches()) {
            assertEquals(List.of(), groupFlows(sw.bridge()), sw.bridge());
        }
    }

    // the next event other than GROUP_UPDATED, which every group poll gives for each group it finds ADDED, as
    // ONOS's store does
    private static org.onosproject.net.group.GroupEvent nextChange(
            java.util.concurrent.BlockingQueue<org.onosproject.net.group.GroupEvent> events)
            throws InterruptedException {
        org.onosproject.net.group.GroupEvent e = events.poll(20, java.util.concurrent.TimeUnit.SECONDS);
        while (e != null && e.type() == org.onosproject.net.group.GroupEvent.Type.GROUP_UPDATED) {
            e = events.poll(20, java.util.concurrent.TimeUnit.SECONDS);
        }
        return e;
    }

    @Test
    @Order(6)
    void groupsOfEveryMappedTypeReachTheSwitchAndGoAway() throws Exception {
        org.onosproject.net.DeviceId leaf1 = org.onosproject.net.DeviceId.deviceId("of:0000000000000101");
        org.onosproject.core.ApplicationId app = new org.onosproject.core.DefaultApplicationId(1, "it");
        java.util.concurrent.BlockingQueue<org.onosproject.net.group.GroupEvent> events =
                new java.util.concurrent.LinkedBlockingQueue<>();
        lab.groups().addListener(events::add);
        org.onosproject.net.flow.TrafficTreatment out2 = DefaultTrafficTreatment.builder()
                .setOutput(org.onosproject.net.PortNumber.portNumber(2)).build();
        org.onosproject.net.flow.TrafficTreatment rewrite3 = DefaultTrafficTreatment.builder()
                .setEthSrc(MacAddress.valueOf("02:00:00:00:00:09"))
                .setOutput(org.onosproject.net.PortNumber.portNumber(3)).build();
        List<org.onosproject.net.group.GroupDescription> descs = List.of(
                new org.onosproject.net.group.DefaultGroupDescription(leaf1,
                        org.onosproject.net.group.GroupDescription.Type.ALL,
                        new org.onosproject.net.group.GroupBuckets(List.of(
                                org.onosproject.net.group.DefaultGroupBucket.createAllGroupBucket(out2),
                                org.onosproject.net.group.DefaultGroupBucket.createAllGroupBucket(rewrite3))),
                        new org.onosproject.net.group.DefaultGroupKey(new byte[]{1}), null, app),
                new org.onosproject.net.group.DefaultGroupDescription(leaf1,
                        org.onosproject.net.group.GroupDescription.Type.INDIRECT,
                        new org.onosproject.net.group.GroupBuckets(List.of(
                                org.onosproject.net.group.DefaultGroupBucket.createIndirectGroupBucket(rewrite3))),
                        new org.onosproject.net.group.DefaultGroupKey(new byte[]{2}), null, app),
                new org.onosproject.net.group.DefaultGroupDescription(leaf1,
                        org.onosproject.net.group.GroupDescription.Type.SELECT,
                        new org.onosproject.net.group.GroupBuckets(List.of(
                                org.onosproject.net.group.DefaultGroupBucket.createSelectGroupBucket(out2),
                                org.onosproject.net.group.DefaultGroupBucket.createSelectGroupBucket(rewrite3))),
                        new org.onosproject.net.group.DefaultGroupKey(new byte[]{3}), null, app));
        descs.forEach(lab.groups()::addGroup);
        for (int i = 0; i < descs.size(); i++) {
            org.onosproject.net.group.GroupEvent e = nextChange(events);
            assertEquals(org.onosproject.net.group.GroupEvent.Type.GROUP_ADDED, e == null ? null : e.type(),
                         String.valueOf(e));
        }
        String dump = run(List.of("ovs-ofctl", "-O", "OpenFlow13", "dump-groups", "m4leaf1"), 10).out;
        assertTrue(dump.contains("type=all,bucket=actions=output:2,bucket=actions=set_field:02:00:00:00:00:09"
                                         + "->eth_src,output:3"), dump);
        assertTrue(dump.contains("type=indirect,bucket=actions=set_field:02:00:00:00:00:09->eth_src,output:3"), dump);
        assertTrue(dump.contains("type=select"), dump);
        for (org.onosproject.net.group.GroupDescription d : descs) {
            lab.groups().removeGroup(leaf1, d.appCookie(), app);
        }
        for (int i = 0; i < descs.size(); i++) {
            org.onosproject.net.group.GroupEvent e = nextChange(events);
            assertEquals(org.onosproject.net.group.GroupEvent.Type.GROUP_REMOVED, e == null ? null : e.type());
        }
        dump = run(List.of("ovs-ofctl", "-O", "OpenFlow13", "dump-groups", "m4leaf1"), 10).out;
        // what is left are the static BITMAP egress groups (INDIRECT, the leaf's restore address)
        assertTrue(!dump.contains("type=all") && !dump.contains("type=select")
                && !dump.contains("02:00:00:00:00:09"), dump);
    }
}
