package org.mcast4ai.lab;

import org.onlab.packet.IpPrefix;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.EthCriterion;
import org.onosproject.net.flow.criteria.EthTypeCriterion;
import org.onosproject.net.flow.criteria.IPCriterion;
import org.onosproject.net.flow.criteria.IPProtocolCriterion;
import org.onosproject.net.flow.criteria.MetadataCriterion;
import org.onosproject.net.flow.criteria.PortCriterion;
import org.onosproject.net.flow.criteria.UdpPortCriterion;
import org.onosproject.net.flow.criteria.VlanIdCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.L2ModificationInstruction;
import org.onosproject.net.flow.instructions.L3ModificationInstruction;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupDescription;
import org.projectfloodlight.openflow.protocol.OFBucket;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowAdd;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.protocol.instruction.OFInstruction;
import org.projectfloodlight.openflow.protocol.match.Match;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.types.EthType;
import org.projectfloodlight.openflow.types.IPv4Address;
import org.projectfloodlight.openflow.types.IPv4AddressWithMask;
import org.projectfloodlight.openflow.types.IpProtocol;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFMetadata;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.OFVlanVidMatch;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.TransportPort;
import org.projectfloodlight.openflow.types.U64;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.mcast4ai.lab.MappingRules.describe;

/**
 * Translates the lab's switch writes ({@link SwitchOp}) to OpenFlow 1.4 messages, the mapping of
 * {@link OfctlTranslator} (documented there and in {@code tools/lab/OPENFLOW-MAPPING.md}) with the encoding
 * {@code ovs-ofctl} gives it: the same matches, instructions in the same order, buckets with the same weights.
 * Anything not mapped is refused with {@link UnmappedException}, never ignored.
 */
public final class OpenFlowTranslator {

    /** The factory of the lab's connections: OpenFlow 1.4 has bundles without extensions. */
    public static final OFFactory OF = OFFactories.getFactory(OFVersion.OF_14);

    private OpenFlowTranslator() {
    }

    /**
     * Returns the message of one write.
     *
     * @param op  the write
     * @param xid the message's transaction id (inside a bundle, the bundle-add message's)
     * @return a flow-mod or group-mod
     * @throws UnmappedException if the rule or group uses something not mapped
     */
    public static OFMessage message(SwitchOp op, long xid) throws UnmappedException {
        switch (op.kind()) {
            case ADD_FLOW:
                return flowMod(OF.buildFlowAdd(), op.rule(), xid, true);
            case MODIFY_FLOW:
                return flowMod(OF.buildFlowModifyStrict(), op.rule(), xid, true);
            case DELETE_FLOW:
                return flowMod(OF.buildFlowDeleteStrict(), op.rule(), xid, false);
            case DELETE_COOKIE:
                return OF.buildFlowDelete().setXid(xid).setTableId(TableId.ALL).setCookie(U64.of(op.cookie()))
                        .setCookieMask(U64.NO_MASK).setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY)
                        .setBufferId(OFBufferId.NO_BUFFER).setMatch(OF.buildMatch().build()).build();
            case ADD_GROUP:
                return groupMod(OF.buildGroupAdd(), op, xid);
            case MODIFY_GROUP:
                return groupMod(OF.buildGroupModify(), op, xid);
            default:
                return OF.buildGroupDelete().setXid(xid).setGroup(OFGroup.of(op.groupId()))
                        .setGroupType(OFGroupType.ALL).setBuckets(List.of()).build();
        }
    }

    private static OFFlowMod flowMod(OFFlowMod.Builder b, FlowRule rule, long xid, boolean withActions)
            throws UnmappedException {
        b.setXid(xid).setTableId(TableId.of(rule.tableId())).setPriority(rule.priority())
                .setCookie(U64.of(rule.id().value())).setBufferId(OFBufferId.NO_BUFFER)
                .setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY).setMatch(match(rule));
        if (!withActions) {
            // strict delete: only the flow with this cookie (ovs-ofctl's cookie=0xID/-1)
            return b.setCookieMask(U64.NO_MASK).build();
        }
        if (b instanceof OFFlowAdd.Builder) {
            b.setFlags(EnumSet.of(OFFlowModFlags.SEND_FLOW_REM));
        }
        if (!rule.isPermanent() && rule.timeout() > 0) {
            b.setIdleTimeout(rule.timeout());
        }
        if (rule.hardTimeout() > 0) {
            b.setHardTimeout(rule.hardTimeout());
        }
        return b.setInstructions(instructions(rule.treatment(), rule)).build();
    }

    private static Match match(FlowRule rule) throws UnmappedException {
        Match.Builder m = OF.buildMatch();
        for (Criterion c : rule.selector().criteria()) {
            switch (c.type()) {
                case IN_PORT:
                    m.setExact(MatchField.IN_PORT, port(((PortCriterion) c).port(), rule));
                    break;
                case ETH_TYPE:
                    m.setExact(MatchField.ETH_TYPE, EthType.of(((EthTypeCriterion) c).ethType().toShort() & 0xffff));
                    break;
                case ETH_SRC:
                    m.setExact(MatchField.ETH_SRC, MacAddress.of(((EthCriterion) c).mac().toLong()));
                    break;
                case ETH_DST:
                    m.setExact(MatchField.ETH_DST, MacAddress.of(((EthCriterion) c).mac().toLong()));
                    break;
                case ETH_SRC_MASKED:
                    maskedMac(m, MatchField.ETH_SRC, (EthCriterion) c, rule);
                    break;
                case ETH_DST_MASKED:
                    maskedMac(m, MatchField.ETH_DST, (EthCriterion) c, rule);
                    break;
                case IPV4_SRC:
                    ipv4(m, MatchField.IPV4_SRC, ((IPCriterion) c).ip());
                    break;
                case IPV4_DST:
                    ipv4(m, MatchField.IPV4_DST, ((IPCriterion) c).ip());
                    break;
                case IP_PROTO:
                    m.setExact(MatchField.IP_PROTO, IpProtocol.of((short) ((IPProtocolCriterion) c).protocol()));
                    break;
                case UDP_DST:
                    m.setExact(MatchField.UDP_DST, TransportPort.of(((UdpPortCriterion) c).udpPort().toInt()));
                    break;
                case METADATA:
                    m.setExact(MatchField.METADATA, OFMetadata.ofRaw(((MetadataCriterion) c).metadata()));
                    break;
                case VLAN_VID:
                    m.setExact(MatchField.VLAN_VID, OFVlanVidMatch.ofVlan(((VlanIdCriterion) c).vlanId().toShort()));
                    break;
                default:
                    throw new UnmappedException("criterion " + c.type() + " is not mapped to OpenFlow (rule "
                            + describe(rule) + ")");
            }
        }
        return m.build();
    }

    private static void maskedMac(Match.Builder m, MatchField<MacAddress> field, EthCriterion c, FlowRule rule)
            throws UnmappedException {
        long mac = c.mac().toLong();
        if (c.mask() == null) {
            m.setExact(field, MacAddress.of(mac));
            return;
        }
        long mask = c.mask().toLong();
        if ((mac & ~mask) != 0) {
            throw new UnmappedException("OFPBMC_BAD_WILDCARDS: " + c.type() + " value " + c.mac()
                    + " has bits outside mask " + c.mask() + " (rule " + describe(rule) + ")");
        }
        m.setMasked(field, MacAddress.of(mac), MacAddress.of(mask));
    }

    private static void ipv4(Match.Builder m, MatchField<IPv4Address> field, IpPrefix prefix)
            throws UnmappedException {
        if (!prefix.isIp4()) {
            throw new UnmappedException("IPv6 prefix " + prefix + " in an IPv4 criterion");
        }
        IPv4Address address = IPv4Address.of(prefix.address().getIp4Address().toInt());
        if (prefix.prefixLength() == IpPrefix.MAX_INET_MASK_LENGTH) {
            m.setExact(field, address);
        } else {
            m.setMasked(field, IPv4AddressWithMask.of(address, IPv4Address.ofCidrMaskLength(prefix.prefixLength())));
        }
    }

    private static OFPort port(PortNumber p, FlowRule rule) throws UnmappedException {
        if (p.equals(PortNumber.IN_PORT)) {
            return OFPort.IN_PORT;
        }
        if (p.isLogical()) {
            throw new UnmappedException("logical port " + p + " is not mapped (rule " + describe(rule) + ")");
        }
        return OFPort.of((int) p.toLong());
    }

    private static List<OFInstruction> instructions(TrafficTreatment t, FlowRule rule) throws UnmappedException {
        if (t.metered() != null || (t.meters() != null && !t.meters().isEmpty())) {
            throw new UnmappedException("meters are not mapped (rule " + describe(rule) + ")");
        }
        if (t.statTrigger() != null) {
            throw new UnmappedException("stat triggers are not mapped (rule " + describe(rule) + ")");
        }
        List<OFInstruction> out = new ArrayList<>(4);
        List<OFAction> apply = actions(t.immediate(), rule);
        if (!apply.isEmpty()) {
            out.add(OF.instructions().applyActions(apply));
        }
        if (t.clearedDeferred()) {
            out.add(OF.instructions().clearActions());
        }
        if (!t.deferred().isEmpty()) {
            out.add(OF.instructions().writeActions(actions(t.deferred(), rule)));
        }
        Instructions.MetadataInstruction md = t.writeMetadata();
        if (md != null) {
            out.add(OF.instructions().writeMetadata(U64.of(md.metadata()), U64.of(md.metadataMask())));
        }
        Instructions.TableTypeTransition goTo = t.tableTransition();
        if (goTo != null) {
            out.add(OF.instructions().gotoTable(TableId.of(goTo.tableId())));
        }
        return out;
    }

    private static List<OFAction> actions(List<Instruction> list, FlowRule rule) throws UnmappedException {
        List<OFAction> out = new ArrayList<>(list.size());
        for (Instruction i : list) {
            if (i.type() != Instruction.Type.NOACTION) {
                out.add(action(i, rule));
            }
        }
        return out;
    }

    private static OFAction action(Instruction i, FlowRule rule) throws UnmappedException {
        switch (i.type()) {
            case OUTPUT:
                return OF.actions().output(port(((Instructions.OutputInstruction) i).port(), rule), 0);
            case GROUP:
                return OF.actions().group(OFGroup.of(((Instructions.GroupInstruction) i).groupId().id()));
            case L2MODIFICATION:
                L2ModificationInstruction l2 = (L2ModificationInstruction) i;
                switch (l2.subtype()) {
                    case ETH_SRC:
                        return OF.actions().setField(OF.oxms().ethSrc(MacAddress.of(
                                ((L2ModificationInstruction.ModEtherInstruction) l2).mac().toLong())));
                    case ETH_DST:
                        return OF.actions().setField(OF.oxms().ethDst(MacAddress.of(
                                ((L2ModificationInstruction.ModEtherInstruction) l2).mac().toLong())));
                    case VLAN_PUSH:
                        return OF.actions().pushVlan(EthType.of(((L2ModificationInstruction.ModVlanHeaderInstruction)
                                l2).ethernetType().toShort() & 0xffff));
                    case VLAN_ID:
                        return OF.actions().setField(OF.oxms().vlanVid(OFVlanVidMatch.ofVlan(
                                ((L2ModificationInstruction.ModVlanIdInstruction) l2).vlanId().toShort())));
                    case VLAN_POP:
                        return OF.actions().popVlan();
                    default:
                        break;
                }
                break;
            case L3MODIFICATION:
                L3ModificationInstruction l3 = (L3ModificationInstruction) i;
                if (l3.subtype() == L3ModificationInstruction.L3SubType.IPV4_DST) {
                    return OF.actions().setField(OF.oxms().ipv4Dst(IPv4Address.of(
                            ((L3ModificationInstruction.ModIPInstruction) l3).ip().getIp4Address().toInt())));
                }
                break;
            default:
                break;
        }
        throw new UnmappedException("instruction " + i + " is not mapped to OpenFlow (rule " + describe(rule) + ")");
    }

    private static OFGroupMod groupMod(OFGroupMod.Builder b, SwitchOp op, long xid) throws UnmappedException {
        GroupDescription desc = op.groupDescription();
        int groupId = op.groupId();
        MappingRules.checkGroup(groupId, desc);
        List<OFBucket> buckets = new ArrayList<>();
        for (GroupBucket gb : desc.buckets().buckets()) {
            buckets.add(OF.buildBucket().setActions(actions(gb.treatment().immediate(), null))
                    .setWeight(desc.type() == GroupDescription.Type.SELECT ? gb.weight() : 0)
                    .setWatchPort(OFPort.ANY).setWatchGroup(OFGroup.ANY).build());
        }
        OFGroupType type = OFGroupType.valueOf(desc.type().name());
        return b.setXid(xid).setGroup(OFGroup.of(groupId)).setGroupType(type).setBuckets(buckets).build();
    }
}
