package org.mcast4ai.lab;

import org.junit.jupiter.api.Test;
import org.onlab.packet.EthType;
import org.onlab.packet.Ethernet;
import org.onlab.packet.IPv4;
import org.onlab.packet.IpAddress;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OfctlTranslatorTest {

    private static final DeviceId DEV = DeviceId.deviceId("of:0000000000000101");

    private static FlowRule rule(TrafficSelector selector, TrafficTreatment treatment) {
        return DefaultFlowRule.builder().forDevice(DEV).withSelector(selector).withTreatment(treatment)
                .withPriority(40000).fromApp(new DefaultApplicationId(7, "test")).makePermanent()
                .forTable(3).build();
    }

    private static String prefix(FlowRule r) {
        return "table=3,priority=40000,cookie=0x" + Long.toHexString(r.id().value());
    }

    @Test
    void mapsEveryCriterionAndImmediateAction() throws Exception {
        FlowRule r = rule(DefaultTrafficSelector.builder()
                                  .matchInPort(PortNumber.portNumber(1))
                                  .matchEthType(Ethernet.TYPE_IPV4)
                                  .matchEthSrc(MacAddress.valueOf("02:00:00:00:01:01"))
                                  .matchEthDst(MacAddress.valueOf("01:00:5e:4d:00:01"))
                                  .matchIPSrc(IpPrefix.valueOf("10.77.0.0/16"))
                                  .matchIPDst(IpPrefix.valueOf("239.77.0.1/32"))
                                  .matchIPProtocol(IPv4.PROTOCOL_UDP)
                                  .matchUdpDst(TpPort.tpPort(4791))
                                  .matchMetadata(0x2a)
                                  .build(),
                          DefaultTrafficTreatment.builder()
                                  .setEthSrc(MacAddress.valueOf("02:00:00:00:00:aa"))
                                  .setEthDst(MacAddress.valueOf("02:00:00:00:00:bb"))
                                  .setIpDst(IpAddress.valueOf("10.77.2.1"))
                                  .setOutput(PortNumber.portNumber(2))
                                  .setOutput(PortNumber.IN_PORT)
                                  .group(GroupId.valueOf(0x1001))
                                  .writeMetadata(0x5, 0xff)
                                  .transition(4)
                                  .build());
        String line = OfctlTranslator.addLine(r);
        assertTrue(line.startsWith("add " + prefix(r) + ","), line);
        for (String field : List.of("in_port=1", "dl_type=0x0800", "dl_src=02:00:00:00:01:01",
                                    "dl_dst=01:00:5E:4D:00:01", "nw_src=10.77.0.0/16", "nw_dst=239.77.0.1",
                                    "nw_proto=17", "udp_dst=4791", "metadata=0x2a")) {
            assertTrue(line.toLowerCase().contains("," + field.toLowerCase() + ","), field + " in " + line);
        }
        String actions = line.substring(line.indexOf(",actions=") + ",actions=".length());
        assertEquals("set_field:02:00:00:00:00:AA->eth_src,set_field:02:00:00:00:00:BB->eth_dst,"
                             + "set_field:10.77.2.1->ip_dst,output:2,in_port,group:4097,"
                             + "write_metadata:0x5/0xff,goto_table:4", actions);
    }

    @Test
    void maskedMacWithinMaskIsMapped() throws Exception {
        FlowRule r = rule(DefaultTrafficSelector.builder()
                                  .matchEthDstMasked(MacAddress.valueOf("01:00:5e:00:00:00"),
                                                     MacAddress.valueOf("ff:ff:ff:80:00:00"))
                                  .matchEthSrcMasked(MacAddress.valueOf("02:00:00:00:00:00"),
                                                     MacAddress.valueOf("ff:00:00:00:00:00"))
                                  .build(),
                          DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(5)).build());
        assertEquals("add " + prefix(r) + ",dl_dst=01:00:5E:00:00:00/FF:FF:FF:80:00:00"
                             + ",dl_src=02:00:00:00:00:00/FF:00:00:00:00:00,send_flow_rem,actions=output:5",
                     OfctlTranslator.addLine(r));
    }

    @Test
    void maskedMacWithBitsOutsideMaskIsRefusedLikeTheSwitch() {
        FlowRule r = rule(DefaultTrafficSelector.builder()
                                  .matchEthDstMasked(MacAddress.valueOf("01:00:5e:00:00:01"),
                                                     MacAddress.valueOf("ff:ff:ff:00:00:00"))
                                  .build(),
                          DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(5)).build());
        UnmappedException e = assertThrows(UnmappedException.class, () -> OfctlTranslator.addLine(r));
        assertTrue(e.getMessage().contains("OFPBMC_BAD_WILDCARDS"), e.getMessage());
    }

    @Test
    void noInstructionIsDrop() throws Exception {
        FlowRule r = rule(DefaultTrafficSelector.builder().matchInPort(PortNumber.portNumber(1)).build(),
                          DefaultTrafficTreatment.emptyTreatment());
        assertTrue(OfctlTranslator.addLine(r).endsWith(",actions=drop"));
        FlowRule dropped = rule(DefaultTrafficSelector.builder().matchInPort(PortNumber.portNumber(1)).build(),
                                DefaultTrafficTreatment.builder().drop().build());
        assertTrue(OfctlTranslator.addLine(dropped).endsWith(",actions=drop"));
    }

    @Test
    void deferredAndClearedActionsAreWriteAndClearActions() throws Exception {
        FlowRule r = rule(DefaultTrafficSelector.builder().matchInPort(PortNumber.portNumber(1)).build(),
                          DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).wipeDeferred()
                                  .deferred().setOutput(PortNumber.portNumber(3)).build());
        assertTrue(OfctlTranslator.addLine(r).endsWith(",actions=output:2,clear_actions,write_actions(output:3)"),
                   OfctlTranslator.addLine(r));
    }

    @Test
    void deleteAndModifyAreStrictOnCookieAndMatch() throws Exception {
        FlowRule r = rule(DefaultTrafficSelector.builder().matchInPort(PortNumber.portNumber(1)).build(),
                          DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).build());
        assertEquals("delete_strict " + prefix(r) + "/-1,in_port=1", OfctlTranslator.deleteLine(r));
        assertEquals("modify_strict " + prefix(r) + "/-1,in_port=1,actions=output:2", OfctlTranslator.modifyLine(r));
    }

    @Test
    void temporaryRuleGetsTimeouts() throws Exception {
        FlowRule r = DefaultFlowRule.builder().forDevice(DEV).withSelector(DefaultTrafficSelector.emptySelector())
                .withTreatment(DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).build())
                .withPriority(10).fromApp(new DefaultApplicationId(7, "test")).makeTemporary(30).build();
        String line = OfctlTranslator.addLine(r);
        assertTrue(line.endsWith(",idle_timeout=30,actions=output:2"), line);
    }

    @Test
    void unmappedCriterionIsRefused() {
        FlowRule r = rule(DefaultTrafficSelector.builder().matchVlanPcp((byte) 3).build(),
                          DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).build());
        UnmappedException e = assertThrows(UnmappedException.class, () -> OfctlTranslator.addLine(r));
        assertTrue(e.getMessage().contains("VLAN_PCP"), e.getMessage());
    }

    @Test
    void vlanMarkIsMatchedPushedAndPopped() throws UnmappedException {
        FlowRule r = rule(DefaultTrafficSelector.builder().matchVlanId(VlanId.vlanId((short) 4000)).build(),
                DefaultTrafficTreatment.builder().pushVlan().setVlanId(VlanId.vlanId((short) 4000))
                        .setOutput(PortNumber.portNumber(2)).build());
        String line = OfctlTranslator.addLine(r);
        assertTrue(line.contains(",dl_vlan=4000"), line);
        assertTrue(line.endsWith("actions=push_vlan:0x8100,mod_vlan_vid:4000,output:2"), line);
        FlowRule pop = rule(DefaultTrafficSelector.emptySelector(),
                DefaultTrafficTreatment.builder().popVlan().setOutput(PortNumber.portNumber(2)).build());
        assertTrue(OfctlTranslator.addLine(pop).endsWith("actions=pop_vlan,output:2"), OfctlTranslator.addLine(pop));
    }

    @Test
    void unmappedCriteriaOfOtherKindsAreRefused() {
        List<TrafficSelector> selectors = List.of(
                DefaultTrafficSelector.builder().matchTcpDst(TpPort.tpPort(80)).build(),
                DefaultTrafficSelector.builder().matchUdpSrc(TpPort.tpPort(80)).build(),
                DefaultTrafficSelector.builder().matchIPv6Dst(IpPrefix.valueOf("ff02::1/128")).build(),
                DefaultTrafficSelector.builder().matchIPDscp((byte) 3).build());
        for (TrafficSelector s : selectors) {
            FlowRule r = rule(s, DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).build());
            assertThrows(UnmappedException.class, () -> OfctlTranslator.addLine(r), s.toString());
        }
    }

    @Test
    void unmappedInstructionsAreRefused() {
        List<TrafficTreatment> treatments = List.of(
                DefaultTrafficTreatment.builder().setVlanPcp((byte) 2).build(),
                DefaultTrafficTreatment.builder().setIpSrc(IpAddress.valueOf("10.0.0.1")).build(),
                DefaultTrafficTreatment.builder().decNwTtl().build(),
                DefaultTrafficTreatment.builder().setOutput(PortNumber.CONTROLLER).build(),
                DefaultTrafficTreatment.builder().setOutput(PortNumber.FLOOD).build(),
                DefaultTrafficTreatment.builder().setVlanPcp((byte) 1).build(),
                DefaultTrafficTreatment.builder().setUdpDst(TpPort.tpPort(1)).build());
        for (TrafficTreatment t : treatments) {
            FlowRule r = rule(DefaultTrafficSelector.builder().matchEthType(EthType.EtherType.IPV4.ethType().toShort())
                                      .build(), t);
            assertThrows(UnmappedException.class, () -> OfctlTranslator.addLine(r), t.toString());
        }
    }

    private static GroupDescription group(GroupDescription.Type type, List<TrafficTreatment> buckets) {
        return new DefaultGroupDescription(DEV, type, new GroupBuckets(buckets.stream()
                .map(t -> type == GroupDescription.Type.SELECT ? DefaultGroupBucket.createSelectGroupBucket(t)
                        : type == GroupDescription.Type.ALL ? DefaultGroupBucket.createAllGroupBucket(t)
                        : DefaultGroupBucket.createIndirectGroupBucket(t))
                .collect(java.util.stream.Collectors.toList())),
                new DefaultGroupKey(new byte[]{1}), 0x10, new DefaultApplicationId(7, "test"));
    }

    @Test
    void mapsAllIndirectAndSelectGroups() throws Exception {
        TrafficTreatment out2 = DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).build();
        TrafficTreatment rewrite3 = DefaultTrafficTreatment.builder()
                .setEthSrc(MacAddress.valueOf("02:00:00:00:00:09")).setOutput(PortNumber.portNumber(3)).build();
        assertEquals("group_id=16,type=all,bucket=actions=output:2,bucket=actions=set_field:02:00:00:00:00:09"
                             + "->eth_src,output:3",
                     OfctlTranslator.group(16, group(GroupDescription.Type.ALL, List.of(out2, rewrite3))));
        assertEquals("group_id=16,type=indirect,bucket=actions=set_field:02:00:00:00:00:09->eth_src,output:3",
                     OfctlTranslator.group(16, group(GroupDescription.Type.INDIRECT, List.of(rewrite3))));
        assertEquals("group_id=16,type=select,bucket=weight:1,actions=output:2,bucket=weight:1,actions=output:3",
                     OfctlTranslator.group(16, group(GroupDescription.Type.SELECT, List.of(out2,
                             DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(3)).build()))));
    }

    @Test
    void refusesFailoverGroupsAndUnmappedBucketActions() {
        TrafficTreatment vlan = DefaultTrafficTreatment.builder().setVlanPcp((byte) 5)
                .setOutput(PortNumber.portNumber(2)).build();
        assertThrows(UnmappedException.class,
                     () -> OfctlTranslator.group(16, group(GroupDescription.Type.ALL, List.of(vlan))));
        GroupDescription failover = new DefaultGroupDescription(DEV, GroupDescription.Type.FAILOVER,
                new GroupBuckets(List.of(DefaultGroupBucket.createFailoverGroupBucket(
                        DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).build(),
                        PortNumber.portNumber(2), null))));
        assertThrows(UnmappedException.class, () -> OfctlTranslator.group(16, failover));
    }
}
