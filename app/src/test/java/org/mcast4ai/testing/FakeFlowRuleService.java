package org.mcast4ai.testing;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleServiceAdapter;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * The one flow rule service double of the app's tests and benchmarks, with the semantics of ONOS's
 * FlowRuleManager the app depends on: a batch's stages are applied in order to a model of the switches' flow
 * tables (keyed by flow id per device, as ONOS's store keys them) and acknowledged with {@code onSuccess}; a
 * device that refuses gets none of its rules applied and {@code onError} lists exactly its rules, while the
 * other devices' rules are applied (ONOS goes on with the stages; it only never calls onSuccess). Batches are
 * acknowledged when the test says ({@link #ack}, {@link #fail}, {@link #drop}) or, in {@link #autoAck} mode, at
 * once. Thread-safe.
 */
public final class FakeFlowRuleService extends FlowRuleServiceAdapter {
    private final Deque<FlowRuleOperations> pending = new ArrayDeque<>();
    private final List<FlowRuleOperations> history = new ArrayList<>();
    // concurrent: benchmarks read and write it from every installer lane without a lock
    private final Map<DeviceId, Map<FlowId, FlowRule>> tables = new ConcurrentHashMap<>();
    private volatile boolean autoAck;
    private volatile boolean recording = true;
    private final LongAdder batches = new LongAdder();
    private final LongAdder rules = new LongAdder();
    private final java.util.Queue<String> unknownRemovals = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicLong unknownCount = new java.util.concurrent.atomic.AtomicLong();

    /**
     * @param on true: every batch is acknowledged inside {@code apply}, as by switches that answer at once
     * @return this
     */
    public FakeFlowRuleService autoAck(boolean on) {
        autoAck = on;
        return this;
    }

    private volatile java.util.concurrent.Executor acknowledgements = Runnable::run;
    private volatile java.util.function.BiPredicate<DeviceId, org.onosproject.core.GroupId> groupHeld = (d, g) -> true;

    /**
     * @param held whether a switch holds a group: a rule naming a group its switch lacks is refused, as a switch
     *             answers OFPBAC_BAD_OUT_GROUP and ONOS fails the batch for that device (default: every group held)
     * @return this
     */
    public FakeFlowRuleService groupsFrom(java.util.function.BiPredicate<DeviceId, org.onosproject.core.GroupId> held) {
        groupHeld = held;
        return this;
    }

    // the devices that refuse a batch: those with a rule naming a group they do not hold
    private Set<DeviceId> refusing(FlowRuleOperations ops) {
        Set<DeviceId> out = new java.util.HashSet<>();
        for (Set<FlowRuleOperation> stage : ops.stages()) {
            for (FlowRuleOperation op : stage) {
                if (op.type() == FlowRuleOperation.Type.REMOVE || op.rule().treatment() == null) {
                    continue;
                }
                for (org.onosproject.net.flow.instructions.Instruction i : op.rule().treatment().allInstructions()) {
                    if (i instanceof org.onosproject.net.flow.instructions.Instructions.GroupInstruction
                            && !groupHeld.test(op.rule().deviceId(),
                            ((org.onosproject.net.flow.instructions.Instructions.GroupInstruction) i).groupId())) {
                        out.add(op.rule().deviceId());
                    }
                }
            }
        }
        return out;
    }

    // answers a batch: onSuccess, or onError with exactly the refusing devices' operations
    private static void answer(FlowRuleOperations ops, Set<DeviceId> refusing) {
        if (ops.callback() == null) {
            return;
        }
        if (refusing.isEmpty()) {
            ops.callback().onSuccess(ops);
            return;
        }
        FlowRuleOperations.Builder failed = FlowRuleOperations.builder();
        ops.stages().stream().flatMap(Set::stream).filter(op -> refusing.contains(op.rule().deviceId()))
                .forEach(op -> failed.add(op.rule()));
        ops.callback().onError(failed.build());
    }

    /**
     * @param executor where automatic acknowledgements are delivered (ONOS answers on its own threads, after
     *                 the switches' barriers); the default delivers them inside {@code apply}
     * @return this
     */
    public FakeFlowRuleService acknowledgeOn(java.util.concurrent.Executor executor) {
        acknowledgements = executor;
        return this;
    }

    /**
     * @param on false: batches are not kept for {@link #batches()} (benchmarks sending millions)
     * @return this
     */
    public FakeFlowRuleService recording(boolean on) {
        recording = on;
        return this;
    }

    private volatile long lastApplyNanos;

    /** @return {@link System#nanoTime()} of the last {@code apply} */
    public long lastApplyNanos() {
        return lastApplyNanos;
    }

    @Override
    public void apply(FlowRuleOperations ops) {
        lastApplyNanos = System.nanoTime();
        batches.increment();
        ops.stages().forEach(s -> rules.add(s.size()));
        if (recording || !autoAck) {
            synchronized (this) {
                if (recording) {
                    history.add(ops);
                }
                if (!autoAck) {
                    pending.add(ops);
                    return;
                }
            }
        }
        Set<DeviceId> refusing = refusing(ops);
        applyAll(ops, refusing);
        if (ops.callback() != null) {
            acknowledgements.execute(() -> answer(ops, refusing));
        }
    }

    /** @return batches sent so far */
    public long batchCount() {
        return batches.sum();
    }

    /** @return rule operations sent so far */
    public long ruleCount() {
        return rules.sum();
    }

    /**
     * @return removals of rules the switch did not hold (an app that loses track of its rules removes some twice
     *         or removes another group's); ONOS ignores them, a test should not
     */
    public List<String> unknownRemovals() {
        return new ArrayList<>(unknownRemovals);
    }

    /** @return batches sent and not yet answered */
    public synchronized int pendingCount() {
        return pending.size();
    }

    /** @return every batch sent while recording */
    public synchronized List<FlowRuleOperations> batches() {
        return new ArrayList<>(history);
    }

    /** @return the last batch sent */
    public synchronized FlowRuleOperations lastBatch() {
        return history.get(history.size() - 1);
    }

    /**
     * @param ops a batch
     * @return devices it touches
     */
    public static Set<DeviceId> devices(FlowRuleOperations ops) {
        return ops.stages().stream().flatMap(Set::stream).map(op -> op.rule().deviceId())
                .collect(Collectors.toCollection(() -> new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()))));
    }

    // applies a batch's operations, except those of the refusing devices
    private void applyAll(FlowRuleOperations ops, Set<DeviceId> refusing) {
        for (Set<FlowRuleOperation> stage : ops.stages()) {
            for (FlowRuleOperation op : stage) {
                if (refusing.contains(op.rule().deviceId())) {
                    continue;
                }
                Map<FlowId, FlowRule> table = tables.computeIfAbsent(op.rule().deviceId(),
                        d -> new ConcurrentHashMap<>());
                if (op.type() == FlowRuleOperation.Type.REMOVE) {
                    // the first 100 are kept: benchmarks send millions
                    if (table.remove(op.rule().id()) == null && unknownCount.getAndIncrement() < 100) {
                        unknownRemovals.add(op.rule().id() + " on " + op.rule().deviceId());
                    }
                } else {
                    table.put(op.rule().id(), op.rule());
                }
            }
        }
    }

    /** Acknowledges the oldest pending batch. */
    public void ack() {
        FlowRuleOperations ops;
        Set<DeviceId> refusing;
        synchronized (this) {
            ops = pending.poll();
            refusing = refusing(ops);
            applyAll(ops, refusing);
        }
        answer(ops, refusing);
    }

    /**
     * Answers the batches pending now (not those sent meanwhile): those with rules for the refusing device fail
     * as in {@link #fail}, the others are acknowledged.
     *
     * @param refusing the device that refuses
     */
    public void answerPending(DeviceId refusing) {
        for (int n = pendingCount(); n > 0; n--) {
            FlowRuleOperations ops;
            synchronized (this) {
                ops = pending.peek();
            }
            if (devices(ops).contains(refusing)) {
                fail(refusing);
            } else {
                ack();
            }
        }
    }

    /** Acknowledges the batches pending now, not those sent while acknowledging them. */
    public void ackPending() {
        for (int n = pendingCount(); n > 0; n--) {
            ack();
        }
    }

    /** Acknowledges every pending batch, including those sent while acknowledging. */
    public void ackAll() {
        while (pendingCount() > 0) {
            ack();
        }
    }

    /**
     * Fails the oldest pending batch as ONOS's FlowRuleManager does when one switch answers with an error.
     *
     * @param device the refusing device
     */
    public void fail(DeviceId device) {
        FlowRuleOperations ops;
        FlowRuleOperations.Builder failed = FlowRuleOperations.builder();
        synchronized (this) {
            ops = pending.poll();
            applyAll(ops, Set.of(device));
        }
        ops.stages().stream().flatMap(Set::stream).filter(op -> op.rule().deviceId().equals(device))
                .forEach(op -> failed.add(op.rule()));
        ops.callback().onError(failed.build());
    }

    /** Drops the oldest pending batch without answering (a switch that never replies). */
    public synchronized void drop() {
        pending.poll();
    }

    /**
     * @param device device
     * @return rules the model of that switch holds
     */
    public synchronized List<FlowRule> rulesOn(DeviceId device) {
        return new ArrayList<>(tables.getOrDefault(device, Map.of()).values());
    }

    /** @return rules on every switch */
    public synchronized List<FlowRule> allRules() {
        return tables.values().stream().flatMap(t -> t.values().stream()).collect(Collectors.toList());
    }

    @Override
    public FlowEntry getFlowEntry(FlowRule rule) {
        FlowRule r = tables.getOrDefault(rule.deviceId(), Map.of()).get(rule.id());
        return r == null ? null : new DefaultFlowEntry(r, FlowEntry.FlowEntryState.ADDED);
    }

    @Override
    public synchronized Iterable<FlowEntry> getFlowEntries(DeviceId deviceId) {
        List<FlowEntry> out = new ArrayList<>();
        tables.getOrDefault(deviceId, Map.of()).values()
                .forEach(r -> out.add(new DefaultFlowEntry(r, FlowEntry.FlowEntryState.ADDED)));
        return out;
    }

    @Override
    public synchronized Iterable<FlowEntry> getFlowEntriesById(ApplicationId id) {
        List<FlowEntry> out = new ArrayList<>();
        tables.values().forEach(t -> t.values().stream().filter(r -> r.appId() == id.id())
                .forEach(r -> out.add(new DefaultFlowEntry(r, FlowEntry.FlowEntryState.ADDED))));
        return out;
    }

    @Override
    public void removeFlowRules(FlowRule... flowRules) {
        FlowRuleOperations.Builder b = FlowRuleOperations.builder();
        for (FlowRule r : flowRules) {
            b.remove(r);
        }
        apply(b.build());
    }

    @Override
    public synchronized int getFlowRuleCount() {
        return tables.values().stream().mapToInt(Map::size).sum();
    }

    /**
     * Deletes a rule from the model of a switch and from what the flow store knows, as a purge or a restart
     * of ONOS would.
     *
     * @param rule the rule
     */
    public void lose(FlowRule rule) {
        tables.getOrDefault(rule.deviceId(), new ConcurrentHashMap<>()).remove(rule.id());
    }
}
