package org.mcast4ai.impl.bitmap;

import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.impl.program.DeviceEntry;
import org.mcast4ai.impl.program.FlowRuleProgrammer;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;

import java.util.List;

/**
 * Writes BITMAP groups' only per-group state, the source leaf's {@link BitmapStamp} (one or two flow rules, see
 * {@link BitmapPlanner#stampRules}). A changed stamp's rules keep their flow ids (they are the match), so the
 * new rules replace the old in place; rules the new stamp no longer has are removed after it is in.
 */
public final class OpenFlowStampProgrammer extends FlowRuleProgrammer {
    private final BitmapPlanner planner;

    /**
     * @param flowRuleService ONOS's flow rule service
     * @param planner         the planner whose tables the stamps hand packets to
     */
    public OpenFlowStampProgrammer(FlowRuleService flowRuleService, BitmapPlanner planner) {
        super(flowRuleService);
        this.planner = planner;
    }

    @Override
    public String kind() {
        return BitmapStamp.KIND;
    }

    @Override
    public List<FlowRule> rules(P2mpGroup group, DeviceEntry entry) {
        return planner.stampRules((BitmapStamp) entry);
    }
}
