package org.mcast4ai.impl;

import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleServiceAdapter;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A flow rule service that records {@code apply} batches and lets the test acknowledge them (the batch's
 * stages are applied in order to a model of the switches' flow tables, then {@code onSuccess} is called) or
 * fail them for one device ({@code onError} with that device's rules, the other devices' applied).
 */
final class RecordingFlowRuleService extends FlowRuleServiceAdapter {
    private final Deque<FlowRuleOperations> pending = new ArrayDeque<>();
    private final List<FlowRuleOperations> history = new ArrayList<>();
    // device -> (match key -> rule): the switches' tables as the acknowledged batches left them
    private final Map<DeviceId, Map<String, FlowRule>> tables = new LinkedHashMap<>();

    @Override
    public void apply(FlowRuleOperations ops) {
        pending.add(ops);
        history.add(ops);
    }

    /** @return batches sent and not yet answered */
    int pendingCount() {
        return pending.size();
    }

    /** @return every batch ever sent */
    List<FlowRuleOperations> batches() {
        return history;
    }

    /** @return the last batch sent */
    FlowRuleOperations lastBatch() {
        return history.get(history.size() - 1);
    }

    /**
     * @param ops a batch
     * @return devices it touches
     */
    static Set<DeviceId> devices(FlowRuleOperations ops) {
        return ops.stages().stream().flatMap(Set::stream).map(op -> op.rule().deviceId())
                .collect(Collectors.toCollection(() -> new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()))));
    }

    /** Acknowledges the oldest pending batch. */
    void ack() {
        FlowRuleOperations ops = pending.poll();
        for (Set<FlowRuleOperation> stage : ops.stages()) {
            for (FlowRuleOperation op : stage) {
                Map<String, FlowRule> table = tables.computeIfAbsent(op.rule().deviceId(), d -> new LinkedHashMap<>());
                if (op.type() == FlowRuleOperation.Type.REMOVE) {
                    table.remove(key(op.rule()));
                } else {
                    table.put(key(op.rule()), op.rule());
                }
            }
        }
        if (ops.callback() != null) {
            ops.callback().onSuccess(ops);
        }
    }

    /** Acknowledges every pending batch, including those sent while acknowledging. */
    void ackAll() {
        while (!pending.isEmpty()) {
            ack();
        }
    }

    /**
     * Fails the oldest pending batch as ONOS's FlowRuleManager does when one switch answers with an error:
     * onError lists that device's rules, nothing of them is applied, and the other devices' rules are (ONOS
     * goes on with the stages; it only never calls onSuccess).
     *
     * @param device the refusing device
     */
    void fail(DeviceId device) {
        FlowRuleOperations ops = pending.poll();
        FlowRuleOperations.Builder failed = FlowRuleOperations.builder();
        for (Set<FlowRuleOperation> stage : ops.stages()) {
            for (FlowRuleOperation op : stage) {
                if (op.rule().deviceId().equals(device)) {
                    failed.add(op.rule());
                } else {
                    Map<String, FlowRule> table = tables.computeIfAbsent(op.rule().deviceId(),
                            d -> new LinkedHashMap<>());
                    if (op.type() == FlowRuleOperation.Type.REMOVE) {
                        table.remove(key(op.rule()));
                    } else {
                        table.put(key(op.rule()), op.rule());
                    }
                }
            }
        }
        ops.callback().onError(failed.build());
    }

    /** Drops the oldest pending batch without answering (a switch that never replies). */
    void drop() {
        pending.poll();
    }

    /**
     * @param device device
     * @return rules the model of that switch holds
     */
    List<FlowRule> rulesOn(DeviceId device) {
        return new ArrayList<>(tables.getOrDefault(device, Map.of()).values());
    }

    /** @return rules on every switch */
    List<FlowRule> allRules() {
        return tables.values().stream().flatMap(t -> t.values().stream()).collect(Collectors.toList());
    }

    @Override
    public org.onosproject.net.flow.FlowEntry getFlowEntry(FlowRule rule) {
        FlowRule r = tables.getOrDefault(rule.deviceId(), Map.of()).get(key(rule));
        return r == null ? null : new org.onosproject.net.flow.DefaultFlowEntry(r,
                org.onosproject.net.flow.FlowEntry.FlowEntryState.ADDED);
    }

    /**
     * Deletes a rule from the model of a switch and from what the flow store knows, as a purge or a restart
     * of ONOS would.
     *
     * @param rule the rule (its match)
     */
    void lose(FlowRule rule) {
        tables.getOrDefault(rule.deviceId(), new LinkedHashMap<>()).remove(key(rule));
    }

    private static String key(FlowRule r) {
        return r.deviceId() + "|" + r.tableId() + "|" + r.priority() + "|" + r.selector();
    }
}
