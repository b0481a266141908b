package org.mcast4ai.impl.program;

import org.mcast4ai.api.P2mpGroup;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.PortCriterion;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A programmer whose entries are flow rules, sent as one staged {@link FlowRuleOperations} batch per call:
 * rules for devices new to the group first, then rules replacing what a device holds, and only then removals
 * of rules no target keeps (make-before-break; a rule whose flow id a target reuses is replaced, never
 * removed, so no device holds two rules that both deliver a receiver).
 *
 * <p>Acknowledgement per device follows how ONOS's FlowRuleManager answers: {@code onSuccess} when every
 * device completed every stage; {@code onError} as soon as one device failed, with that device's failed rules,
 * while the other devices of the stage may still be pending and later stages still run. So on error only
 * devices whose writes were all in stages before the failed one count as acknowledged; the others stay
 * uncertain in the group's record and the next reconcile sends their targets again.
 */
public abstract class FlowRuleProgrammer implements Programmer {
    private final FlowRuleService flowRuleService;

    /** @param flowRuleService ONOS's flow rule service */
    protected FlowRuleProgrammer(FlowRuleService flowRuleService) {
        this.flowRuleService = flowRuleService;
    }

    /** @return the flow rule service */
    protected FlowRuleService flowRuleService() {
        return flowRuleService;
    }

    /**
     * @param group the group
     * @param entry one of its entries of this programmer's kind
     * @return the flow rules the entry consists of (their flow ids identify them on the device)
     */
    public abstract List<FlowRule> rules(P2mpGroup group, DeviceEntry entry);

    /**
     * The entry's rules as far as a removal or a lookup needs them: ONOS finds a rule by its flow id and removes
     * it by its match, never by its actions, so a programmer may leave the actions out (cheaper to build).
     *
     * @param group the group
     * @param entry one of its entries of this programmer's kind
     * @return rules with the ids and matches of {@link #rules}
     */
    protected List<FlowRule> handles(P2mpGroup group, DeviceEntry entry) {
        return rules(group, entry);
    }

    /**
     * @param group the group
     * @param entry one of its entries
     * @return the flow ids of its rules (what the app's orphan sweep keeps)
     */
    public Set<FlowId> flowIds(P2mpGroup group, DeviceEntry entry) {
        Set<FlowId> ids = new HashSet<>();
        handles(group, entry).forEach(r -> ids.add(r.id()));
        return ids;
    }

    @Override
    public Set<DeviceId> apply(P2mpGroup group, List<Move> moves, Outcome done) {
        List<FlowRule> fresh = new ArrayList<>(moves.size());
        List<FlowRule> replaced = new ArrayList<>(0);
        Map<FlowId, FlowRule> stale = new LinkedHashMap<>(0);
        // removals of moves that held exactly one entry and keep nothing: no rule of theirs can repeat
        List<FlowRule> gone = new ArrayList<>(0);
        Set<DeviceId> touched = new LinkedHashSet<>(Diff.capacity(moves.size()));
        for (Move m : moves) {
            List<FlowRule> target = m.target() == null ? List.of() : rules(group, m.target());
            (m.fresh() ? fresh : replaced).addAll(target);
            boolean hadEntries = m.installed() != null || !m.uncertain().isEmpty();
            if (hadEntries && m.target() == null && m.uncertain().isEmpty()) {
                gone.addAll(handles(group, m.installed()));
            } else if (hadEntries) {
                Set<FlowId> kept = new HashSet<>();
                target.forEach(r -> kept.add(r.id()));
                List<DeviceEntry> old = new ArrayList<>(m.uncertain());
                if (m.installed() != null) {
                    old.add(m.installed());
                }
                for (DeviceEntry e : old) {
                    for (FlowRule r : handles(group, e)) {
                        if (!kept.contains(r.id())) {
                            stale.putIfAbsent(r.id(), r);
                        }
                    }
                }
            }
            if (!target.isEmpty() || hadEntries) {
                touched.add(m.device());
            }
        }
        if (touched.isEmpty()) {
            return touched;
        }
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        List<FlowRule> removed = gone;
        removed.addAll(stale.values());
        List<List<FlowRule>> stages = new ArrayList<>(3);
        for (List<FlowRule> rules : List.of(fresh, replaced, removed)) {
            if (rules.isEmpty()) {
                continue;
            }
            if (!stages.isEmpty()) {
                ops.newStage();
            }
            stages.add(rules);
            for (FlowRule r : rules) {
                if (rules == removed) {
                    ops.remove(r);
                } else {
                    ops.add(r);
                }
            }
        }
        flowRuleService.apply(ops.build(new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations o) {
                done.done(touched, Map.of());
            }

            @Override
            public void onError(FlowRuleOperations failed) {
                failedBatch(stages, touched, failed, done);
            }
        }));
        return touched;
    }

    /**
     * Reports a failed staged batch: devices whose writes were all in stages before the failed one are
     * acknowledged, the others refused (worked out only when a batch failed).
     *
     * @param stages  the batch's stages, as sent
     * @param touched the devices the batch wrote
     * @param failed  the operations ONOS reports failed
     * @param done    the outcome to call
     */
    protected static void failedBatch(List<List<FlowRule>> stages, Set<DeviceId> touched, FlowRuleOperations failed,
                                      Outcome done) {
        Map<DeviceId, Integer> lastStage = new HashMap<>();
        Map<FlowId, Integer> stageOf = new HashMap<>();
        for (int i = 0; i < stages.size(); i++) {
            for (FlowRule r : stages.get(i)) {
                lastStage.merge(r.deviceId(), i, Math::max);
                stageOf.putIfAbsent(r.id(), i);
            }
        }
        int failedStage = Integer.MAX_VALUE;
        for (Set<FlowRuleOperation> s : failed.stages()) {
            for (FlowRuleOperation op : s) {
                failedStage = Math.min(failedStage, stageOf.getOrDefault(op.rule().id(), 0));
            }
        }
        Map<DeviceId, String> refused = new LinkedHashMap<>(rejected(failed));
        Set<DeviceId> acked = new LinkedHashSet<>();
        for (DeviceId d : touched) {
            if (!refused.containsKey(d)) {
                if (lastStage.getOrDefault(d, 0) < failedStage) {
                    acked.add(d);
                } else {
                    refused.put(d, "not acknowledged: another switch refused its part of the batch");
                }
            }
        }
        done.done(acked, refused);
    }

    @Override
    public boolean holds(P2mpGroup group, DeviceEntry entry) {
        for (FlowRule r : handles(group, entry)) {
            FlowEntry e = flowRuleService.getFlowEntry(r);
            if (e == null || e.state() == FlowEntry.FlowEntryState.FAILED
                    || e.state() == FlowEntry.FlowEntryState.REMOVED
                    || e.state() == FlowEntry.FlowEntryState.PENDING_REMOVE) {
                return false;
            }
        }
        return true;
    }

    /**
     * Names, per device, the in ports of the rules it refused.
     *
     * @param ops the failed operations ONOS reports
     * @return device to reason
     */
    static Map<DeviceId, String> rejected(FlowRuleOperations ops) {
        Map<DeviceId, Set<String>> byDevice = new LinkedHashMap<>();
        for (Set<FlowRuleOperation> stage : ops.stages()) {
            for (FlowRuleOperation op : stage) {
                FlowRule rule = op.rule();
                Criterion in = rule.selector().getCriterion(Criterion.Type.IN_PORT);
                byDevice.computeIfAbsent(rule.deviceId(), d -> new TreeSet<>())
                        .add(in == null ? "?" : ((PortCriterion) in).port().toString());
            }
        }
        Map<DeviceId, String> out = new LinkedHashMap<>();
        byDevice.forEach((d, ports) -> out.put(d, "switch " + d + " rejected the rule for in port(s) " + ports));
        return out;
    }
}
