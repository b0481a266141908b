package org.mcast4ai.impl.p4;

import org.onlab.packet.EthType;
import org.onlab.packet.IPv6;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.behaviour.NextGroup;
import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.behaviour.PipelinerContext;
import org.onosproject.net.driver.AbstractHandlerBehaviour;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.EthTypeCriterion;
import org.onosproject.net.flow.criteria.IPProtocolCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions.OutputInstruction;
import org.onosproject.net.flowobjective.FilteringObjective;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.NextObjective;
import org.onosproject.net.flowobjective.Objective;
import org.onosproject.net.flowobjective.ObjectiveError;

import java.util.List;
import java.util.Set;

/**
 * Flow objectives on {@code mcast4ai.p4}, which has no forwarding tables for them: the program itself sends
 * every LLDP, BDDP, ARP and ICMPv6 frame to the CPU port, so a forwarding objective that only asks for such
 * frames to be punted (what ONOS's packet service asks for link discovery and host learning) is already true
 * and succeeds without a write. Every other objective fails with {@link ObjectiveError#UNSUPPORTED}, so an app
 * that needs forwarding the program does not do learns it at once instead of believing it installed.
 */
public class Mcast4aiPipeliner extends AbstractHandlerBehaviour implements Pipeliner {
    /** Ethernet types the program punts from every port. */
    public static final Set<Short> PUNTED = Set.of(EthType.EtherType.LLDP.ethType().toShort(),
            EthType.EtherType.BDDP.ethType().toShort(), EthType.EtherType.ARP.ethType().toShort());
    private static final short IPV6 = EthType.EtherType.IPV6.ethType().toShort();

    @Override
    public void init(DeviceId deviceId, PipelinerContext context) {
        // nothing to set up: the program's punting needs no entries
    }

    @Override
    public void filter(FilteringObjective objective) {
        fail(objective);
    }

    @Override
    public void forward(ForwardingObjective objective) {
        if (punted(objective.selector()) && puntOnly(objective.treatment() == null ? List.of()
                : objective.treatment().allInstructions())) {
            objective.context().ifPresent(c -> c.onSuccess(objective));
        } else {
            fail(objective);
        }
    }

    @Override
    public void next(NextObjective objective) {
        fail(objective);
    }

    @Override
    public void purgeAll(ApplicationId appId) {
        // it installs nothing
    }

    @Override
    public List<String> getNextMappings(NextGroup nextGroup) {
        return List.of();
    }

    /**
     * @param selector a forwarding objective's selector
     * @return true if the program punts every frame it matches
     */
    static boolean punted(TrafficSelector selector) {
        Criterion type = selector.getCriterion(Criterion.Type.ETH_TYPE);
        if (type == null) {
            return false;
        }
        short t = ((EthTypeCriterion) type).ethType().toShort();
        if (PUNTED.contains(t)) {
            return true;
        }
        Criterion proto = selector.getCriterion(Criterion.Type.IP_PROTO);
        return t == IPV6 && proto != null && ((IPProtocolCriterion) proto).protocol() == IPv6.PROTOCOL_ICMP6;
    }

    private static boolean puntOnly(List<Instruction> instructions) {
        boolean punt = false;
        for (Instruction i : instructions) {
            if (i.type() == Instruction.Type.OUTPUT) {
                if (!PortNumber.CONTROLLER.equals(((OutputInstruction) i).port())) {
                    return false;
                }
                punt = true;
            } else if (i.type() != Instruction.Type.NOACTION) {
                return false;
            }
        }
        return punt;
    }

    private static void fail(Objective objective) {
        objective.context().ifPresent(c -> c.onError(objective, ObjectiveError.UNSUPPORTED));
    }
}
