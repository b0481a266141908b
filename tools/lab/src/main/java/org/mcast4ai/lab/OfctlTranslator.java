package org.mcast4ai.lab;

import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
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
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.L2ModificationInstruction;
import org.onosproject.net.flow.instructions.L3ModificationInstruction;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupDescription;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static org.mcast4ai.lab.MappingRules.describe;

/**
 * Translates ONOS flow rules and group descriptions to {@code ovs-ofctl} (OpenFlow 1.3) text.
 * Anything not in the table below is refused with {@link UnmappedException}, never ignored.
 *
 * <table>
 * <caption>ONOS to ovs-ofctl mapping</caption>
 * <tr><th>ONOS</th><th>ovs-ofctl</th><th>OpenFlow 1.3</th></tr>
 * <tr><td>FlowRule tableId / priority / id</td><td>{@code table=N,priority=P,cookie=0xID}</td>
 *     <td>flow-mod table_id, priority, cookie</td></tr>
 * <tr><td>timeout (not permanent) / hardTimeout</td><td>{@code idle_timeout=S}, {@code hard_timeout=S}</td>
 *     <td>idle / hard timeout</td></tr>
 * <tr><td>Criterion IN_PORT</td><td>{@code in_port=N}</td><td>OXM IN_PORT</td></tr>
 * <tr><td>Criterion ETH_TYPE</td><td>{@code dl_type=0xTTTT}</td><td>OXM ETH_TYPE</td></tr>
 * <tr><td>Criterion ETH_SRC / ETH_DST</td><td>{@code dl_src=M} / {@code dl_dst=M}</td>
 *     <td>OXM ETH_SRC / ETH_DST</td></tr>
 * <tr><td>Criterion ETH_SRC_MASKED / ETH_DST_MASKED</td><td>{@code dl_src=M/MASK} / {@code dl_dst=M/MASK}</td>
 *     <td>masked OXM; a value bit outside the mask is refused (OFPBMC_BAD_WILDCARDS)</td></tr>
 * <tr><td>Criterion IPV4_SRC / IPV4_DST</td><td>{@code nw_src=A[/LEN]} / {@code nw_dst=A[/LEN]}</td>
 *     <td>OXM IPV4_SRC / IPV4_DST (prefix = mask); host bits set in a prefix are refused</td></tr>
 * <tr><td>Criterion IP_PROTO</td><td>{@code nw_proto=N}</td><td>OXM IP_PROTO</td></tr>
 * <tr><td>Criterion UDP_DST</td><td>{@code udp_dst=N}</td><td>OXM UDP_DST</td></tr>
 * <tr><td>Criterion METADATA</td><td>{@code metadata=0xV}</td><td>OXM METADATA</td></tr>
 * <tr><td>Instruction OUTPUT (immediate)</td><td>{@code output:N}, {@code in_port} for IN_PORT</td>
 *     <td>apply-actions OUTPUT</td></tr>
 * <tr><td>L2MODIFICATION ETH_SRC / ETH_DST</td><td>{@code set_field:M->eth_src} / {@code ->eth_dst}</td>
 *     <td>apply-actions SET_FIELD</td></tr>
 * <tr><td>L3MODIFICATION IPV4_DST</td><td>{@code set_field:A->ip_dst}</td><td>apply-actions SET_FIELD</td></tr>
 * <tr><td>Instruction GROUP</td><td>{@code group:N}</td><td>apply-actions GROUP</td></tr>
 * <tr><td>deferred instructions (same actions)</td><td>{@code write_actions(...)}</td><td>WRITE_ACTIONS</td></tr>
 * <tr><td>clearedDeferred</td><td>{@code clear_actions}</td><td>CLEAR_ACTIONS</td></tr>
 * <tr><td>METADATA (writeMetadata)</td><td>{@code write_metadata:0xV/0xM}</td><td>WRITE_METADATA</td></tr>
 * <tr><td>TABLE (transition)</td><td>{@code goto_table:N}</td><td>GOTO_TABLE</td></tr>
 * <tr><td>no instruction, NOACTION (drop)</td><td>{@code drop}</td><td>no instructions</td></tr>
 * <tr><td>Group ALL / INDIRECT / SELECT</td><td>{@code group_id=N,type=all|indirect|select}</td>
 *     <td>group-mod type</td></tr>
 * <tr><td>GroupBucket treatment (immediate actions above)</td>
 *     <td>{@code bucket=[weight:W,]actions=...}</td><td>bucket actions; weight for SELECT</td></tr>
 * </table>
 * Refused: every other criterion (VLAN PCP, IPv6, TCP, ...), other ports (CONTROLLER, FLOOD, ...),
 * meters, stat triggers, other L2/L3 modifications, FAILOVER groups and watch ports.
 */
public final class OfctlTranslator {

    /** The criteria this translator maps. */
    public static final Set<Criterion.Type> MAPPED_CRITERIA = Set.of(
            Criterion.Type.IN_PORT, Criterion.Type.ETH_TYPE, Criterion.Type.ETH_SRC, Criterion.Type.ETH_DST,
            Criterion.Type.ETH_SRC_MASKED, Criterion.Type.ETH_DST_MASKED, Criterion.Type.IPV4_SRC,
            Criterion.Type.IPV4_DST, Criterion.Type.IP_PROTO, Criterion.Type.UDP_DST, Criterion.Type.METADATA);

    private OfctlTranslator() {
    }

    /**
     * Returns the {@code add} line of a flow rule for {@code ovs-ofctl add-flows}.
     *
     * @param rule flow rule
     * @return e.g. {@code add table=0,priority=100,cookie=0x1,in_port=1,send_flow_rem,actions=output:2}
     * @throws UnmappedException if the rule uses something not mapped
     */
    public static String addLine(FlowRule rule) throws UnmappedException {
        // send_flow_rem as ONOS's OpenFlow provider sets it: the switch reports a flow deleted around the lab
        StringBuilder sb = new StringBuilder("add ").append(match(rule, false)).append(",send_flow_rem");
        if (!rule.isPermanent() && rule.timeout() > 0) {
            sb.append(",idle_timeout=").append(rule.timeout());
        }
        if (rule.hardTimeout() > 0) {
            sb.append(",hard_timeout=").append(rule.hardTimeout());
        }
        return sb.append(",actions=").append(instructions(rule.treatment(), rule)).toString();
    }

    /**
     * Returns the {@code modify_strict} line of a flow rule (new actions for the same match).
     *
     * @param rule flow rule
     * @return the line
     * @throws UnmappedException if the rule uses something not mapped
     */
    public static String modifyLine(FlowRule rule) throws UnmappedException {
        return "modify_strict " + match(rule, true) + ",actions=" + instructions(rule.treatment(), rule);
    }

    /**
     * Returns the {@code delete_strict} line of a flow rule: same table, priority, match and cookie.
     *
     * @param rule flow rule
     * @return the line
     * @throws UnmappedException if the rule uses something not mapped
     */
    public static String deleteLine(FlowRule rule) throws UnmappedException {
        return "delete_strict " + match(rule, true);
    }

    /**
     * Returns the table, priority, cookie and match fields of a rule.
     *
     * @param rule         flow rule
     * @param cookieMasked true to write the cookie as an exact cookie match ({@code /-1}) for
     *                     modify and delete
     * @return comma-separated fields
     * @throws UnmappedException if a criterion is not mapped or a masked value is invalid
     */
    static String match(FlowRule rule, boolean cookieMasked) throws UnmappedException {
        StringBuilder sb = new StringBuilder();
        sb.append("table=").append(rule.tableId())
                .append(",priority=").append(rule.priority())
                .append(",cookie=0x").append(Long.toHexString(rule.id().value()));
        if (cookieMasked) {
            sb.append("/-1");
        }
        for (Criterion c : rule.selector().criteria()) {
            sb.append(',').append(criterion(c, rule));
        }
        return sb.toString();
    }

    private static String criterion(Criterion c, FlowRule rule) throws UnmappedException {
        switch (c.type()) {
            case IN_PORT:
                return "in_port=" + port(((PortCriterion) c).port(), rule);
            case ETH_TYPE:
                return String.format("dl_type=0x%04x", ((EthTypeCriterion) c).ethType().toShort() & 0xffff);
            case ETH_SRC:
                return "dl_src=" + ((EthCriterion) c).mac();
            case ETH_DST:
                return "dl_dst=" + ((EthCriterion) c).mac();
            case ETH_SRC_MASKED:
                return "dl_src=" + maskedMac((EthCriterion) c, rule);
            case ETH_DST_MASKED:
                return "dl_dst=" + maskedMac((EthCriterion) c, rule);
            case IPV4_SRC:
                return "nw_src=" + prefix(((IPCriterion) c).ip());
            case IPV4_DST:
                return "nw_dst=" + prefix(((IPCriterion) c).ip());
            case IP_PROTO:
                return "nw_proto=" + ((IPProtocolCriterion) c).protocol();
            case UDP_DST:
                return "udp_dst=" + ((UdpPortCriterion) c).udpPort().toInt();
            case METADATA:
                return "metadata=0x" + Long.toHexString(((MetadataCriterion) c).metadata());
            case VLAN_VID:
                return "dl_vlan=" + ((org.onosproject.net.flow.criteria.VlanIdCriterion) c).vlanId().toShort();
            default:
                throw new UnmappedException("criterion " + c.type() + " is not mapped to OpenFlow (rule "
                        + describe(rule) + ")");
        }
    }

    private static String maskedMac(EthCriterion c, FlowRule rule) throws UnmappedException {
        MacAddress mac = c.mac();
        MacAddress mask = c.mask();
        if (mask == null) {
            return mac.toString();
        }
        if ((mac.toLong() & ~mask.toLong()) != 0) {
            throw new UnmappedException("OFPBMC_BAD_WILDCARDS: " + c.type() + " value " + mac
                    + " has bits outside mask " + mask + " (rule " + describe(rule) + ")");
        }
        return mac + "/" + mask;
    }

    private static String prefix(IpPrefix prefix) throws UnmappedException {
        if (!prefix.isIp4()) {
            throw new UnmappedException("IPv6 prefix " + prefix + " in an IPv4 criterion");
        }
        // IpPrefix clears host bits on construction, so a prefix never carries bits outside its mask
        return prefix.prefixLength() == IpPrefix.MAX_INET_MASK_LENGTH
                ? prefix.address().toString() : prefix.toString();
    }

    private static String port(PortNumber p, FlowRule rule) throws UnmappedException {
        if (p.equals(PortNumber.IN_PORT)) {
            return "in_port";
        }
        if (p.isLogical()) {
            throw new UnmappedException("logical port " + p + " is not mapped (rule " + describe(rule) + ")");
        }
        return Long.toString(p.toLong());
    }

    /**
     * Translates a treatment to the {@code actions=} value: apply-actions, clear_actions,
     * write_actions, write_metadata, goto_table, in the order OpenFlow requires.
     *
     * @param t    treatment
     * @param rule the rule it belongs to, for messages (may be null)
     * @return actions text
     * @throws UnmappedException if an instruction is not mapped
     */
    static String instructions(TrafficTreatment t, FlowRule rule) throws UnmappedException {
        if (t.metered() != null || (t.meters() != null && !t.meters().isEmpty())) {
            throw new UnmappedException("meters are not mapped (rule " + describe(rule) + ")");
        }
        if (t.statTrigger() != null) {
            throw new UnmappedException("stat triggers are not mapped (rule " + describe(rule) + ")");
        }
        List<String> parts = new ArrayList<>();
        for (Instruction i : t.immediate()) {
            if (i.type() != Instruction.Type.NOACTION) {
                parts.add(action(i, rule));
            }
        }
        if (t.clearedDeferred()) {
            parts.add("clear_actions");
        }
        if (!t.deferred().isEmpty()) {
            List<String> deferred = new ArrayList<>();
            for (Instruction i : t.deferred()) {
                deferred.add(action(i, rule));
            }
            parts.add("write_actions(" + String.join(",", deferred) + ")");
        }
        Instructions.MetadataInstruction md = t.writeMetadata();
        if (md != null) {
            parts.add("write_metadata:0x" + Long.toHexString(md.metadata())
                              + "/0x" + Long.toHexString(md.metadataMask()));
        }
        Instructions.TableTypeTransition goTo = t.tableTransition();
        if (goTo != null) {
            parts.add("goto_table:" + goTo.tableId());
        }
        return parts.isEmpty() ? "drop" : String.join(",", parts);
    }

    private static String action(Instruction i, FlowRule rule) throws UnmappedException {
        switch (i.type()) {
            case OUTPUT:
                PortNumber p = ((Instructions.OutputInstruction) i).port();
                return p.equals(PortNumber.IN_PORT) ? "in_port" : "output:" + port(p, rule);
            case GROUP:
                return "group:" + Integer.toUnsignedString(((Instructions.GroupInstruction) i).groupId().id());
            case L2MODIFICATION:
                L2ModificationInstruction l2 = (L2ModificationInstruction) i;
                switch (l2.subtype()) {
                    case ETH_SRC:
                        return "set_field:" + ((L2ModificationInstruction.ModEtherInstruction) l2).mac()
                                + "->eth_src";
                    case ETH_DST:
                        return "set_field:" + ((L2ModificationInstruction.ModEtherInstruction) l2).mac()
                                + "->eth_dst";
                    case VLAN_PUSH:
                        return String.format("push_vlan:0x%04x", ((L2ModificationInstruction.ModVlanHeaderInstruction)
                                l2).ethernetType().toShort() & 0xffff);
                    case VLAN_ID:
                        return "mod_vlan_vid:"
                                + ((L2ModificationInstruction.ModVlanIdInstruction) l2).vlanId().toShort();
                    case VLAN_POP:
                        return "pop_vlan";
                    default:
                        break;
                }
                break;
            case L3MODIFICATION:
                L3ModificationInstruction l3 = (L3ModificationInstruction) i;
                if (l3.subtype() == L3ModificationInstruction.L3SubType.IPV4_DST) {
                    return "set_field:" + ((L3ModificationInstruction.ModIPInstruction) l3).ip() + "->ip_dst";
                }
                break;
            default:
                break;
        }
        throw new UnmappedException("instruction " + i + " is not mapped to OpenFlow (rule " + describe(rule) + ")");
    }

    /**
     * Returns the body of a group for {@code ovs-ofctl add-groups} (without the leading
     * {@code add}/{@code modify} keyword).
     *
     * @param groupId OpenFlow group id
     * @param desc    group description
     * @return e.g. {@code group_id=1,type=all,bucket=actions=output:2,bucket=actions=output:3}
     * @throws UnmappedException if the group type or a bucket action is not mapped
     */
    public static String group(int groupId, GroupDescription desc) throws UnmappedException {
        MappingRules.checkGroup(groupId, desc);
        StringBuilder sb = new StringBuilder("group_id=").append(Integer.toUnsignedString(groupId))
                .append(",type=").append(desc.type().name().toLowerCase(Locale.ROOT));
        for (GroupBucket b : desc.buckets().buckets()) {
            sb.append(",bucket=");
            if (desc.type() == GroupDescription.Type.SELECT) {
                sb.append("weight:").append(b.weight()).append(',');
            }
            sb.append("actions=").append(instructions(b.treatment(), null).replace("drop", ""));
        }
        return sb.toString();
    }
}
