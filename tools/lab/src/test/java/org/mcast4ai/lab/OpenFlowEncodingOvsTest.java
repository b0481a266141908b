package org.mcast4ai.lab;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.onlab.packet.Ethernet;
import org.onlab.packet.IPv4;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onlab.packet.TpPort;
import org.onlab.packet.VlanId;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.group.DefaultGroupBucket;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.DefaultGroupKey;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;

import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The lab's OpenFlow connection and {@code ovs-ofctl} write the same entries: every mapped criterion, action,
 * instruction and group type sent both ways to two real bridges, whose tables Open vSwitch then prints alike; a
 * refused bundle applies nothing on either; a bridge deleted and created again is reached again.
 */
@Tag("ovs")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenFlowEncodingOvsTest {
    private static final String BY_OFCTL = "e4enc1";
    private static final String BY_OPENFLOW = "e4enc2";
    private static final DeviceId DEV = DeviceId.deviceId("of:00000000000000e1");

    private final Ofctl ofctl = Ofctl.process();
    private final OvsOpenFlow openFlow = new OvsOpenFlow();

    @BeforeAll
    void up() {
        assumeTrue(LabHarness.isRoot(), "the Open vSwitch lab needs root");
        assumeTrue(LabHarness.ovsRunning(), "Open vSwitch is not running");
        bridge(BY_OFCTL);
        bridge(BY_OPENFLOW);
    }

    @BeforeEach
    void empty() {
        for (String b : List.of(BY_OFCTL, BY_OPENFLOW)) {
            LabHarness.run(List.of("ovs-ofctl", "-O", "OpenFlow13", "del-flows", b), 30);
            LabHarness.run(List.of("ovs-ofctl", "-O", "OpenFlow13", "del-groups", b), 30);
        }
    }

    @AfterAll
    void down() {
        openFlow.close();
        LabHarness.run(List.of("ovs-vsctl", "--if-exists", "del-br", BY_OFCTL), 30);
        LabHarness.run(List.of("ovs-vsctl", "--if-exists", "del-br", BY_OPENFLOW), 30);
    }

    private static void bridge(String name) {
        LabHarness.Run r = LabHarness.run(List.of("ovs-vsctl", "--may-exist", "add-br", name, "--", "set", "bridge",
                name, "datapath_type=netdev", "fail_mode=secure", "protocols=OpenFlow13,OpenFlow14,OpenFlow15"), 30);
        assertEquals(0, r.code, r.out);
    }

    private static FlowRule rule(int table, TrafficSelector s, TrafficTreatment t) {
        return DefaultFlowRule.builder().forDevice(DEV).withSelector(s).withTreatment(t).withPriority(40000 + table)
                .fromApp(new DefaultApplicationId(7, "test")).makePermanent().forTable(table).build();
    }

    private static GroupDescription group(GroupDescription.Type type, int id, List<TrafficTreatment> buckets) {
        return new DefaultGroupDescription(DEV, type, new GroupBuckets(buckets.stream()
                .map(t -> type == GroupDescription.Type.ALL ? DefaultGroupBucket.createAllGroupBucket(t)
                        : type == GroupDescription.Type.SELECT ? DefaultGroupBucket.createSelectGroupBucket(t,
                        (short) 3) : DefaultGroupBucket.createIndirectGroupBucket(t))
                .collect(Collectors.toList())), new DefaultGroupKey(new byte[]{(byte) id}), id,
                new DefaultApplicationId(7, "test"));
    }

    private static PortNumber port(long p) {
        return PortNumber.portNumber(p);
    }

    private static List<SwitchOp> groups(SwitchOp.Kind kind) {
        TrafficTreatment out2 = DefaultTrafficTreatment.builder().setOutput(port(2)).build();
        TrafficTreatment rewrite3 = DefaultTrafficTreatment.builder()
                .setEthSrc(MacAddress.valueOf("02:00:00:00:00:09")).setOutput(port(3)).build();
        return List.of(
                SwitchOp.group(kind, 16, group(GroupDescription.Type.ALL, 16, List.of(out2, rewrite3))),
                SwitchOp.group(kind, 17, group(GroupDescription.Type.INDIRECT, 17, List.of(rewrite3))),
                SwitchOp.group(kind, 18, group(GroupDescription.Type.SELECT, 18, List.of(out2, rewrite3))));
    }

    private static List<FlowRule> rules() {
        return List.of(
                rule(0, DefaultTrafficSelector.builder().matchInPort(port(1)).matchEthType(Ethernet.TYPE_IPV4)
                                .matchEthSrc(MacAddress.valueOf("02:00:00:00:01:01"))
                                .matchEthDst(MacAddress.valueOf("01:00:5e:4d:00:01"))
                                .matchIPSrc(IpPrefix.valueOf("10.77.0.0/16"))
                                .matchIPDst(IpPrefix.valueOf("239.77.0.1/32")).matchIPProtocol(IPv4.PROTOCOL_UDP)
                                .matchUdpDst(TpPort.tpPort(4791)).matchMetadata(0x2a).build(),
                        DefaultTrafficTreatment.builder().setEthDst(MacAddress.valueOf("02:00:00:00:00:07"))
                                .setIpDst(Ip4Address.valueOf("10.77.3.1")).setOutput(port(2)).setOutput(port(3))
                                .group(GroupId.valueOf(16)).build()),
                rule(0, DefaultTrafficSelector.builder().matchEthType(Ethernet.TYPE_IPV4)
                                .matchEthSrcMasked(MacAddress.valueOf("02:00:00:00:00:40"),
                                        MacAddress.valueOf("ff:ff:ff:ff:ff:c0")).build(),
                        DefaultTrafficTreatment.builder().writeMetadata(0x5, 0xff).transition(1).build()),
                rule(1, DefaultTrafficSelector.builder().matchMetadata(0x5).build(),
                        DefaultTrafficTreatment.builder().wipeDeferred().deferred().setOutput(port(4)).build()),
                rule(2, DefaultTrafficSelector.builder().matchVlanId(VlanId.vlanId((short) 10)).build(),
                        DefaultTrafficTreatment.builder().popVlan().setOutput(PortNumber.IN_PORT).build()),
                rule(3, DefaultTrafficSelector.builder().matchInPort(port(5)).build(),
                        DefaultTrafficTreatment.builder().pushVlan().setVlanId(VlanId.vlanId((short) 20))
                                .setOutput(port(6)).group(GroupId.valueOf(18)).build()),
                rule(4, DefaultTrafficSelector.builder().matchEthDst(MacAddress.valueOf("02:00:00:00:00:08")).build(),
                        DefaultTrafficTreatment.builder().drop().build()));
    }

    private static List<SwitchOp> flows(SwitchOp.Kind kind) {
        return rules().stream().map(r -> SwitchOp.flow(kind, r)).collect(Collectors.toList());
    }

    // what Open vSwitch holds, as it prints it, without the header line (it names the transaction)
    private static String table(String command, String bridge) {
        LabHarness.Run r = LabHarness.run(List.of("ovs-ofctl", "-O", "OpenFlow13", command, "--no-stats", bridge)
                .stream().filter(a -> !("--no-stats".equals(a) && command.equals("dump-groups")))
                .collect(Collectors.toList()), 30);
        assertEquals(0, r.code, r.out);
        return r.out.lines().filter(l -> !l.startsWith("OFPST_") && !l.isBlank()).map(String::trim).sorted()
                .collect(Collectors.joining("\n"));
    }

    private void both(List<SwitchOp> ops) {
        Ofctl.Result a = ofctl.bundle(BY_OFCTL, ops);
        Ofctl.Result b = openFlow.bundle(BY_OPENFLOW, ops);
        assertTrue(a.ok(), a.errors());
        assertTrue(b.ok(), b.errors());
    }

    @Test
    void bothWriteTheSameEntriesAndRemoveThemAlike() {
        both(groups(SwitchOp.Kind.ADD_GROUP));
        both(flows(SwitchOp.Kind.ADD_FLOW));
        String flows = table("dump-flows", BY_OFCTL);
        assertEquals(rules().size(), flows.lines().count(), flows);
        assertEquals(flows, table("dump-flows", BY_OPENFLOW));
        assertEquals(table("dump-groups", BY_OFCTL), table("dump-groups", BY_OPENFLOW));
        assertEquals(3, table("dump-groups", BY_OPENFLOW).lines().count());

        // the audit's read over the connection sees every cookie ovs-ofctl prints
        Ofctl.Result read = openFlow.run(List.of("dump-flows", BY_OPENFLOW), null);
        assertTrue(read.ok(), read.errors());
        for (FlowRule r : rules()) {
            assertTrue(read.output().contains("cookie=0x" + Long.toHexString(r.id().value())), read.output());
        }

        List<SwitchOp> remove = flows(SwitchOp.Kind.DELETE_FLOW).subList(0, 3);
        List<SwitchOp> rest = List.of(SwitchOp.deleteCookie(rules().get(3).id().value()),
                SwitchOp.deleteCookie(rules().get(4).id().value()), SwitchOp.deleteCookie(rules().get(5).id().value()));
        both(remove);
        assertEquals(table("dump-flows", BY_OFCTL), table("dump-flows", BY_OPENFLOW));
        both(rest);
        both(List.of(SwitchOp.group(SwitchOp.Kind.DELETE_GROUP, 16, null),
                SwitchOp.group(SwitchOp.Kind.DELETE_GROUP, 17, null),
                SwitchOp.group(SwitchOp.Kind.DELETE_GROUP, 18, null)));
        assertEquals("", table("dump-flows", BY_OPENFLOW));
        assertEquals("", table("dump-groups", BY_OPENFLOW));
        assertEquals("", table("dump-flows", BY_OFCTL));
    }

    @Test
    void aRefusedBundleAppliesNothingAndNamesTheSwitchError() {
        FlowRule good = rules().get(5);
        FlowRule bad = rule(0, DefaultTrafficSelector.builder().matchInPort(port(9)).build(),
                DefaultTrafficTreatment.builder().group(GroupId.valueOf(0xdead)).build());
        List<SwitchOp> ops = List.of(SwitchOp.flow(SwitchOp.Kind.ADD_FLOW, good),
                SwitchOp.flow(SwitchOp.Kind.ADD_FLOW, bad));
        Ofctl.Result viaOpenFlow = openFlow.bundle(BY_OPENFLOW, ops);
        assertFalse(viaOpenFlow.ok());
        assertTrue(viaOpenFlow.errors().contains("OFPBAC_BAD_OUT_GROUP"), viaOpenFlow.errors());
        assertFalse(ofctl.bundle(BY_OFCTL, ops).ok());
        assertEquals("", table("dump-flows", BY_OPENFLOW));
        assertEquals("", table("dump-flows", BY_OFCTL));

        both(groups(SwitchOp.Kind.ADD_GROUP).subList(0, 1));
        Ofctl.Result again = openFlow.bundle(BY_OPENFLOW, groups(SwitchOp.Kind.ADD_GROUP).subList(0, 1));
        assertTrue(again.errors().contains("OFPGMFC_GROUP_EXISTS"), again.errors());
        both(List.of(SwitchOp.group(SwitchOp.Kind.DELETE_GROUP, 16, null)));
    }

    @Test
    void aBridgeCreatedAgainIsReachedAgain() {
        both(flows(SwitchOp.Kind.ADD_FLOW).subList(5, 6));
        LabHarness.run(List.of("ovs-vsctl", "del-br", BY_OPENFLOW), 30);
        Ofctl.Result gone = openFlow.bundle(BY_OPENFLOW, flows(SwitchOp.Kind.ADD_FLOW).subList(5, 6));
        assertFalse(gone.ok(), "a deleted bridge cannot commit");
        bridge(BY_OPENFLOW);
        Ofctl.Result back = openFlow.bundle(BY_OPENFLOW, flows(SwitchOp.Kind.ADD_FLOW).subList(5, 6));
        assertTrue(back.ok(), back.errors());
        assertEquals(1, table("dump-flows", BY_OPENFLOW).lines().count());
        both(List.of(SwitchOp.deleteCookie(rules().get(5).id().value())));
    }
    // A random rule from the mapped set, with the prerequisites Open vSwitch checks (IPv4 fields under
    // dl_type=0x0800, udp_dst under nw_proto=17, pop_vlan and vlan rewrites only on a VLAN frame).
    private static FlowRule randomRule(Random rnd, int n) {
        TrafficSelector.Builder s = DefaultTrafficSelector.builder();
        TrafficTreatment.Builder t = DefaultTrafficTreatment.builder();
        if (rnd.nextBoolean()) {
            s.matchInPort(port(1 + rnd.nextInt(8)));
        }
        if (rnd.nextInt(3) == 0) {
            s.matchEthSrc(MacAddress.valueOf(0x020000000000L | rnd.nextInt(1 << 16)));
        } else if (rnd.nextInt(3) == 0) {
            int bits = 40 + rnd.nextInt(8);
            long mask = (0xffffffffffffL << (48 - bits)) & 0xffffffffffffL;
            s.matchEthSrcMasked(MacAddress.valueOf((0x020000000000L | rnd.nextInt(1 << 16)) & mask),
                    MacAddress.valueOf(mask));
        }
        if (rnd.nextInt(3) == 0) {
            s.matchEthDst(MacAddress.valueOf(0x01005e000000L | rnd.nextInt(1 << 23)));
        }
        boolean vlan = rnd.nextInt(4) == 0;
        boolean ip = !vlan && rnd.nextInt(3) != 0;
        if (vlan) {
            s.matchVlanId(VlanId.vlanId((short) (1 + rnd.nextInt(4000))));
        }
        if (ip) {
            s.matchEthType(Ethernet.TYPE_IPV4);
            if (rnd.nextBoolean()) {
                s.matchIPDst(IpPrefix.valueOf(Ip4Address.valueOf(0xef000000 | rnd.nextInt(1 << 24)),
                        24 + rnd.nextInt(9)));
            }
            if (rnd.nextBoolean()) {
                s.matchIPSrc(IpPrefix.valueOf(Ip4Address.valueOf(0x0a000000 | rnd.nextInt(1 << 24)),
                        8 + rnd.nextInt(25)));
            }
            if (rnd.nextBoolean()) {
                s.matchIPProtocol(IPv4.PROTOCOL_UDP);
                if (rnd.nextBoolean()) {
                    s.matchUdpDst(TpPort.tpPort(1 + rnd.nextInt(65535)));
                }
            }
        }
        if (rnd.nextInt(4) == 0) {
            s.matchMetadata(rnd.nextInt(1 << 16));
        }
        switch (rnd.nextInt(6)) {
            case 0:
                return rule(0, n, s.build(), t.drop().build());
            case 1:
                return rule(0, n, s.build(), t.writeMetadata(rnd.nextInt(256), 0xff).transition(1 + rnd.nextInt(3))
                        .build());
            case 2:
                return rule(0, n, s.build(), t.wipeDeferred().deferred().setOutput(port(1 + rnd.nextInt(8))).build());
            default:
                break;
        }
        for (int a = 1 + rnd.nextInt(4); a > 0; a--) {
            switch (rnd.nextInt(7)) {
                case 0:
                    t.setEthSrc(MacAddress.valueOf(0x020000000000L | rnd.nextInt(1 << 20)));
                    break;
                case 1:
                    t.setEthDst(MacAddress.valueOf(0x020000000000L | rnd.nextInt(1 << 20)));
                    break;
                case 2:
                    if (ip) {
                        t.setIpDst(Ip4Address.valueOf(0x0a000000 | rnd.nextInt(1 << 24)));
                    }
                    break;
                case 3:
                    if (vlan) {
                        t.popVlan();
                        vlan = false;
                    } else {
                        t.pushVlan().setVlanId(VlanId.vlanId((short) (1 + rnd.nextInt(4000))));
                        vlan = true;
                    }
                    break;
                case 4:
                    t.group(GroupId.valueOf(16 + rnd.nextInt(3)));
                    break;
                case 5:
                    t.setOutput(PortNumber.IN_PORT);
                    break;
                default:
                    t.setOutput(port(1 + rnd.nextInt(8)));
                    break;
            }
        }
        return rule(0, n, s.build(), t.build());
    }

    private static FlowRule rule(int table, int n, TrafficSelector s, TrafficTreatment t) {
        return DefaultFlowRule.builder().forDevice(DEV).withSelector(s).withTreatment(t).withPriority(1000 + n)
                .fromApp(new DefaultApplicationId(7, "test")).makePermanent().forTable(table).build();
    }

    @Test
    void randomRulesAreEncodedAlikeAndAcceptedAlike() {
        long seed = Long.getLong("mcast4ai.encoding.seed", System.nanoTime());
        Random rnd = new Random(seed);
        both(groups(SwitchOp.Kind.ADD_GROUP));
        int accepted = 0;
        for (int round = 0; round < 8; round++) {
            List<SwitchOp> ops = new java.util.ArrayList<>();
            for (int n = 0; n < 25; n++) {
                ops.add(SwitchOp.flow(SwitchOp.Kind.ADD_FLOW, randomRule(rnd, round * 25 + n)));
            }
            // each rule alone: the two paths accept and refuse the same rules
            for (SwitchOp op : ops) {
                Ofctl.Result a = ofctl.bundle(BY_OFCTL, List.of(op));
                Ofctl.Result b = openFlow.bundle(BY_OPENFLOW, List.of(op));
                assertEquals(a.ok(), b.ok(), "seed " + seed + ": " + op.rule() + " ovs-ofctl: " + a.errors()
                        + " / connection: " + b.errors());
                accepted += a.ok() ? 1 : 0;
            }
            assertEquals(table("dump-flows", BY_OFCTL), table("dump-flows", BY_OPENFLOW), "seed " + seed);
        }
        // most drawn rules are valid: the property is about encoding, not about refusals
        assertTrue(accepted > 150, "seed " + seed + ": only " + accepted + " of 200 rules accepted");
        System.out.println("encoding: " + accepted + " of 200 random rules accepted alike, tables identical (seed "
                + seed + ")");
    }
}
