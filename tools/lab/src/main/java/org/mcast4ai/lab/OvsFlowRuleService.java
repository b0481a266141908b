package org.mcast4ai.lab;

import com.google.common.collect.ImmutableList;
import org.onosproject.core.ApplicationId;
import org.onosproject.event.ListenerRegistry;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleEvent;
import org.onosproject.net.flow.FlowRuleListener;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flow.TableStatisticsEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * FlowRuleService that programs the lab's Open vSwitch bridges through an {@link Ofctl} (the lab's OpenFlow
 * connections, {@link OvsOpenFlow}, or {@code ovs-ofctl} processes).
 *
 * <p>Each stage of a {@link FlowRuleOperations} batch becomes ONE atomic OpenFlow bundle per bridge
 * ({@code ovs-ofctl -O OpenFlow13 --bundle add-flows BRIDGE -} with {@code add},
 * {@code modify_strict} and {@code delete_strict} lines on standard input); batches queued together run in
 * waves, stage k of each in one bundle per bridge ({@link SwitchQueue}). The bundle commit is the
 * switch's acknowledgement: when every bridge of every stage committed, the batch context gets
 * {@code onSuccess}; when a bridge refused its bundle (nothing of it is applied) or a rule cannot be
 * translated, later stages are not run, the failed rules are recorded as FAILED entries with the
 * switch's message ({@link #failure(FlowRule)}) and the context gets {@code onError} with exactly
 * the failed operations. Work runs in submission order on the executor shared with
 * {@link OvsGroupService}, so a group added before a flow that uses it reaches the switch first.
 * The criterion/instruction mapping is documented on {@link OfctlTranslator}.</p>
 */
public class OvsFlowRuleService implements FlowRuleService {

    private static final Logger log = LoggerFactory.getLogger(OvsFlowRuleService.class);

    private final Map<DeviceId, String> bridges;
    private final Ofctl ofctl;
    private final Executor executor;
    private final Executor switchPool;
    private final Map<DeviceId, Map<FlowId, FlowEntry>> entries = new ConcurrentHashMap<>();
    private final Map<FlowId, String> failures = new ConcurrentHashMap<>();
    private final ListenerRegistry<FlowRuleEvent, FlowRuleListener> listeners = new ListenerRegistry<>();
    private volatile UnaryOperator<FlowRule> ruleHook = UnaryOperator.identity();
    private volatile Predicate<DeviceId> available = d -> true;
    private final AtomicLong reinstalled = new AtomicLong();
    private final AtomicLong extraneous = new AtomicLong();
    private final WriteMarks<String> marks = new WriteMarks<>();
    private final FlowRemovalRepair removals;

    /**
     * Creates the service.
     *
     * @param fabric   lab fabric (device id to bridge)
     * @param ofctl    ovs-ofctl runner
     * @param executor executor that runs batches in submission order (single thread); the switches
     *                 of a stage are then programmed one after another
     */
    public OvsFlowRuleService(LabFabric fabric, Ofctl ofctl, Executor executor) {
        this(fabric, ofctl, executor, Runnable::run);
    }

    /**
     * Creates the service with an explicit pool for the per-switch calls of a stage.
     *
     * @param fabric     lab fabric (device id to bridge)
     * @param ofctl      ovs-ofctl runner
     * @param executor   executor that runs batches in submission order (single thread)
     * @param switchPool executor for the parallel per-switch calls inside a stage
     */
    public OvsFlowRuleService(LabFabric fabric, Ofctl ofctl, Executor executor, Executor switchPool) {
        this.bridges = fabric.switches().stream().collect(Collectors.toMap(
                s -> DeviceId.deviceId(s.deviceId()), LabFabric.Switch::bridge));
        this.ofctl = ofctl;
        this.executor = executor;
        this.switchPool = switchPool;
        this.removals = new FlowRemovalRepair(bridges, ofctl, executor, d -> entries.getOrDefault(d, Map.of()),
                d -> available.test(d), r -> ruleHook.apply(r), marks);
        ofctl.onFlowRemoved(removals);
    }

    /**
     * Test hook: rewrites every rule to add or modify just before it is translated, e.g. to
     * inject a rule the switch rejects. The stored entry keeps the original rule.
     *
     * @param hook rewriting function; identity to turn it off
     */
    public void setRuleHook(UnaryOperator<FlowRule> hook) {
        this.ruleHook = hook == null ? UnaryOperator.identity() : hook;
    }

    /**
     * Says which devices are connected: operations on any other fail, as ONOS fails a batch for a device that
     * has no master, and the audit skips them.
     *
     * @param available true for a device that is connected
     */
    public void setAvailability(Predicate<DeviceId> available) {
        this.available = available == null ? d -> true : available;
    }

    /**
     * Compares every connected bridge's flow table with the stored entries, as ONOS's FlowRuleManager does on
     * each flow statistics poll: an ADDED entry the switch does not hold is installed again ({@code flowMissing}),
     * a flow the store does not know is deleted ({@code extraneousFlow}). The switches are read on the calling
     * thread, beside the programming (a statistics poll does not hold up flow batches); the comparison and the
     * repair run on the batch executor and leave out the entries written since the read began.
     */
    public void audit() {
        executor.execute(startAudit().join());
    }

    /**
     * Starts reading every connected bridge's flow table, for an {@link #audit} that the caller runs in step with
     * another (the lab reads flows and groups at once, then compares groups first).
     *
     * @return the comparison and repair, to run on the batch executor once the tables are read
     */
    public CompletableFuture<Runnable> startAudit() {
        return startAudit(d -> true);
    }

    /**
     * Starts reading some connected bridges' flow tables, for the poll ONOS's provider makes of a switch soon
     * after it connects.
     *
     * @param which true for a device to read
     * @return the comparison and repair, to run on the batch executor once the tables are read
     */
    public CompletableFuture<Runnable> startAudit(Predicate<DeviceId> which) {
        long mark = marks.now();
        return ofctl.readAll("dump-flows", bridges, d -> available.test(d) && which.test(d), switchPool)
                .thenApply(read -> () -> compare(read, mark));
    }

    /** @return flows the audit installed again because their switch had lost them */
    public long reinstalledCount() {
        return reinstalled.get();
    }

    /** @return flows applied again at once because their switch reported them removed (FLOW_REMOVED) */
    public long reappliedCount() {
        return removals.reappliedCount();
    }

    /** @return flows the audit deleted because the store did not know them */
    public long extraneousCount() {
        return extraneous.get();
    }

    private static final Pattern COOKIE = Pattern.compile("cookie=0x([0-9a-f]+)");

    private void compare(Map<DeviceId, Ofctl.Result> dumps, long mark) {
        dumps.forEach((device, dump) -> {
            String bridge = bridges.get(device);
            if (!dump.ok() || !available.test(device)) {
                return;
            }
            Set<Long> held = new java.util.HashSet<>();
            Matcher m = COOKIE.matcher(dump.output());
            while (m.find()) {
                held.add(Long.parseUnsignedLong(m.group(1), 16));
            }
            Map<FlowId, FlowEntry> table = entries.getOrDefault(device, Map.of());
            List<SwitchOp> repair = new ArrayList<>();
            List<FlowEntry> missing = new ArrayList<>();
            for (FlowEntry e : table.values()) {
                if (e.state() == FlowEntry.FlowEntryState.ADDED && !held.contains(e.id().value())
                        && !marks.writtenSince(markKey(device, e.id().value()), mark)) {
                    repair.add(SwitchOp.flow(SwitchOp.Kind.ADD_FLOW, ruleHook.apply(e)));
                    missing.add(e);
                }
            }
            int unknown = 0;
            for (long cookie : held) {
                if (!table.containsKey(FlowId.valueOf(cookie)) && !marks.writtenSince(markKey(device, cookie), mark)) {
                    repair.add(SwitchOp.deleteCookie(cookie));
                    unknown++;
                }
            }
            if (repair.isEmpty()) {
                return;
            }
            Ofctl.Result r = ofctl.bundle(bridge, repair);
            if (r.ok()) {
                reinstalled.addAndGet(missing.size());
                extraneous.addAndGet(unknown);
                log.info("audit {}: re-installed {} missing flow(s), deleted {} extraneous", bridge,
                        missing.size(), unknown);
            } else {
                log.warn("audit {}: repair refused: {}", bridge, r.errors());
            }
        });
        marks.forgetUpTo(mark);
    }

    // after the switch answered: an audit whose read began before then leaves these entries out
    private void marked(DeviceId device, List<FlowRuleOperation> ops) {
        ops.forEach(op -> marks.wrote(markKey(device, op.rule().id().value())));
    }

    static String markKey(DeviceId device, long flowId) {
        return device + "/" + flowId;
    }

    /**
     * Returns the switch's (or translator's) message for a rule that failed, if it did.
     *
     * @param rule flow rule
     * @return the error message
     */
    public Optional<String> failure(FlowRule rule) {
        return Optional.ofNullable(failures.get(rule.id()));
    }

    /**
     * Returns every failure message recorded so far, by flow id.
     *
     * @return failures
     */
    public Map<FlowId, String> failures() {
        return Map.copyOf(failures);
    }

    @Override
    public void apply(FlowRuleOperations ops) {
        executor.execute(new BatchTask(ops));
    }

    /** One batch on the switch queue; consecutive batches run together ({@link #runTogether}). */
    private final class BatchTask implements SwitchQueue.Joinable {
        final FlowRuleOperations ops;
        final List<Set<FlowRuleOperation>> stages;
        List<FlowRuleOperation> failed;
        // the wave that runs its first stage (a batch that joined late starts after the others)
        int offset;
        boolean answered;

        BatchTask(FlowRuleOperations ops) {
            this.ops = ops;
            this.stages = ops.stages();
        }

        @Override
        public SwitchQueue.Runner runner() {
            return joined;
        }

        @Override
        public void run() {
            joined.runTogether(List.of(this));
        }
    }

    private final SwitchQueue.Runner joined = this::runTogether;

    /**
     * Runs batches together in waves: wave k is stage k of every batch still running, one bundle per switch
     * holding every batch's lines for it in submission order. A switch that refuses a joined bundle gets each
     * batch's part again on its own, so that only the batch with the bad rule fails. A batch whose stage failed
     * stops there and gets onError; the others go on, and get onSuccess after their last stage.
     */
    private void runTogether(List<SwitchQueue.Joinable> work) {
        List<BatchTask> batches = new ArrayList<>();
        work.forEach(w -> batches.add((BatchTask) w));
        joinedBatches.addAndGet(batches.size());
        for (int wave = 0; ; wave++) {
            if (wave > 0 && executor instanceof SwitchQueue) {
                lateJoiners((SwitchQueue) executor, batches, wave);
            }
            Map<DeviceId, List<Part>> byDevice = new LinkedHashMap<>();
            boolean any = false;
            for (BatchTask b : batches) {
                int stage = wave - b.offset;
                if (b.failed != null || stage >= b.stages.size()) {
                    continue;
                }
                any = true;
                Map<DeviceId, List<FlowRuleOperation>> mine = new LinkedHashMap<>();
                b.stages.get(stage).forEach(op -> mine.computeIfAbsent(op.rule().deviceId(),
                        d -> new ArrayList<>()).add(op));
                mine.forEach((d, ops) -> byDevice.computeIfAbsent(d, x -> new ArrayList<>()).add(new Part(b, ops)));
            }
            if (!any) {
                break;
            }
            long waveStart = System.nanoTime();
            List<CompletableFuture<Void>> answers = new ArrayList<>();
            byDevice.forEach((device, parts) -> answers.add(byDevice.size() == 1
                    ? CompletableFuture.completedFuture(runParts(device, parts))
                    : CompletableFuture.runAsync(() -> runParts(device, parts), switchPool)));
            answers.forEach(CompletableFuture::join);
            log.debug("wave {} of {} batch(es): {} switch(es) in {} ms", wave, batches.size(), byDevice.size(),
                    (System.nanoTime() - waveStart) / 1_000_000);
            for (BatchTask b : batches) {
                if (b.failed != null && !b.failed.isEmpty() && b.ops.callback() == null) {
                    b.failed = List.of();
                } else if (b.failed != null && !b.failed.isEmpty()) {
                    FlowRuleOperations.Builder fb = FlowRuleOperations.builder();
                    b.failed.forEach(fb::operation);
                    b.ops.callback().onError(fb.build());
                    b.failed = List.of();
                } else if (b.failed == null && !b.answered && wave - b.offset >= b.stages.size() - 1) {
                    // its last stage is acknowledged: answered now, not after the stages of the batches beside it
                    b.answered = true;
                    if (b.ops.callback() != null) {
                        b.ops.callback().onSuccess(b.ops);
                    }
                }
            }
        }
        for (BatchTask b : batches) {
            if (b.failed == null && !b.answered && b.ops.callback() != null) {
                b.answered = true;
                b.ops.callback().onSuccess(b.ops);
            }
        }
    }

    // Batches queued while these run join them at this wave, unless one touches a rule a later stage of a running
    // batch touches too (joined, its stage would run before that stage instead of after it).
    private void lateJoiners(SwitchQueue queue, List<BatchTask> batches, int wave) {
        Set<FlowId> ahead = new java.util.HashSet<>();
        for (BatchTask b : batches) {
            if (b.failed != null) {
                continue;
            }
            for (int st = Math.max(0, wave - b.offset); st < b.stages.size(); st++) {
                b.stages.get(st).forEach(op -> ahead.add(op.rule().id()));
            }
        }
        for (SwitchQueue.Joinable j : queue.takeMore(joined, batches.size(),
                j -> j instanceof BatchTask && !touches((BatchTask) j, ahead))) {
            BatchTask b = (BatchTask) j;
            b.offset = wave;
            batches.add(b);
            joinedBatches.incrementAndGet();
        }
    }

    private static boolean touches(BatchTask b, Set<FlowId> rules) {
        return b.stages.stream().flatMap(Set::stream).anyMatch(op -> rules.contains(op.rule().id()));
    }

    private final AtomicLong joinedBatches = new AtomicLong();
    private final AtomicLong bundles = new AtomicLong();

    /** @return flow batches run so far */
    public long batchCount() {
        return joinedBatches.get();
    }

    /** @return {@code ovs-ofctl} bundles sent for flow batches so far */
    public long bundleCount() {
        return bundles.get();
    }

    /** One batch's operations for one switch in one wave. */
    private static final class Part {
        final BatchTask batch;
        final List<FlowRuleOperation> ops;

        Part(BatchTask batch, List<FlowRuleOperation> ops) {
            this.batch = batch;
            this.ops = ops;
        }
    }

    private Void runParts(DeviceId device, List<Part> parts) {
        try {
            List<Part> sendable = new ArrayList<>();
            List<SwitchOp> writes = new ArrayList<>();
            for (Part p : parts) {
                List<SwitchOp> w = precheck(device, p.ops);
                if (w == null) {
                    markFailed(p);
                    continue;
                }
                sendable.add(p);
                writes.addAll(w);
            }
            if (sendable.isEmpty()) {
                return null;
            }
            String bridge = bridges.get(device);
            Ofctl.Result r = ofctl.bundle(bridge, writes);
            sendable.forEach(p -> marked(device, p.ops));
            bundles.incrementAndGet();
            if (r.ok()) {
                sendable.forEach(p -> record(device, p.ops));
            } else if (sendable.size() == 1) {
                failPart(sendable.get(0), bridge + " refused the bundle: " + r.errors());
            } else {
                // a joined bundle is atomic: find the batch that the switch refuses by sending each part alone
                for (Part p : sendable) {
                    Ofctl.Result alone = ofctl.bundle(bridge, precheck(device, p.ops));
                    bundles.incrementAndGet();
                    marked(device, p.ops);
                    if (alone.ok()) {
                        record(device, p.ops);
                    } else {
                        failPart(p, bridge + " refused the bundle: " + alone.errors());
                    }
                }
            }
        } catch (RuntimeException e) {
            // never leave a batch without an answer
            parts.forEach(p -> failPart(p, "lab error: " + e));
        }
        return null;
    }

    // the writes of one part, or null when the part failed before reaching the switch; a rule that is not mapped
    // makes the switch access refuse the bundle (atomic: the device's whole part fails)
    private List<SwitchOp> precheck(DeviceId device, List<FlowRuleOperation> ops) {
        if (!bridges.containsKey(device)) {
            return failText(ops, "device " + device + " is not in the lab fabric");
        }
        if (!available.test(device)) {
            return failText(ops, "device " + device + " is not connected");
        }
        List<SwitchOp> writes = new ArrayList<>(ops.size());
        for (FlowRuleOperation op : ops) {
            switch (op.type()) {
                case ADD:
                    writes.add(SwitchOp.flow(SwitchOp.Kind.ADD_FLOW, ruleHook.apply(op.rule())));
                    break;
                case MODIFY:
                    writes.add(SwitchOp.flow(SwitchOp.Kind.MODIFY_FLOW, ruleHook.apply(op.rule())));
                    break;
                default:
                    writes.add(SwitchOp.flow(SwitchOp.Kind.DELETE_FLOW, op.rule()));
                    break;
            }
        }
        return writes;
    }

    private List<SwitchOp> failText(List<FlowRuleOperation> ops, String message) {
        fail(ops, message);
        return null;
    }

    private void failPart(Part p, String message) {
        fail(p.ops, message);
        markFailed(p);
    }

    private static void markFailed(Part p) {
        synchronized (p.batch) {
            if (p.batch.failed == null) {
                p.batch.failed = new ArrayList<>();
            }
            p.batch.failed.addAll(p.ops);
        }
    }

    private void record(DeviceId device, List<FlowRuleOperation> ops) {
        for (FlowRuleOperation op : ops) {
            FlowRule rule = op.rule();
            failures.remove(rule.id());
            Map<FlowId, FlowEntry> table = entries.computeIfAbsent(device, d -> new ConcurrentHashMap<>());
            if (op.type() == FlowRuleOperation.Type.REMOVE) {
                table.remove(rule.id());
                listeners.process(new FlowRuleEvent(FlowRuleEvent.Type.RULE_REMOVED, rule));
            } else {
                table.put(rule.id(), new DefaultFlowEntry(rule, FlowEntry.FlowEntryState.ADDED));
                listeners.process(new FlowRuleEvent(op.type() == FlowRuleOperation.Type.ADD
                        ? FlowRuleEvent.Type.RULE_ADDED : FlowRuleEvent.Type.RULE_UPDATED, rule));
            }
        }
    }

    private List<FlowRuleOperation> fail(List<FlowRuleOperation> ops, String message) {
        log.warn("flow batch failed: {}", message);
        for (FlowRuleOperation op : ops) {
            failures.put(op.rule().id(), message);
            if (op.type() != FlowRuleOperation.Type.REMOVE) {
                // errType/errCode are not known from ovs-ofctl's text; the message is in failure()
                entries.computeIfAbsent(op.rule().deviceId(), d -> new ConcurrentHashMap<>())
                        .put(op.rule().id(), new DefaultFlowEntry(op.rule(), FlowEntry.FlowEntryState.FAILED));
            }
        }
        return ops;
    }

    @Override
    public void applyFlowRules(FlowRule... flowRules) {
        FlowRuleOperations.Builder b = FlowRuleOperations.builder();
        for (FlowRule r : flowRules) {
            b.add(r);
        }
        apply(b.build());
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
    public void purgeFlowRules(DeviceId deviceId) {
        removeFlowRules(entries.getOrDefault(deviceId, Map.of()).values().toArray(new FlowRule[0]));
    }

    @Override
    public void removeFlowRulesById(ApplicationId id) {
        removeFlowRules(StreamSupport.stream(getFlowEntriesById(id).spliterator(), false).toArray(FlowRule[]::new));
    }

    @Override
    public int getFlowRuleCount() {
        return entries.values().stream().mapToInt(Map::size).sum();
    }

    @Override
    public FlowEntry getFlowEntry(FlowRule rule) {
        return entries.getOrDefault(rule.deviceId(), Map.of()).get(rule.id());
    }

    @Override
    public Iterable<FlowEntry> getFlowEntries(DeviceId deviceId) {
        return ImmutableList.copyOf(entries.getOrDefault(deviceId, Map.of()).values());
    }

    @Override
    public Iterable<FlowEntry> getFlowEntriesById(ApplicationId id) {
        return entries.values().stream().flatMap(m -> m.values().stream())
                .filter(e -> e.appId() == id.id()).collect(ImmutableList.toImmutableList());
    }

    @Override
    public Iterable<FlowRule> getFlowRulesByGroupId(ApplicationId appId, short groupId) {
        return entries.values().stream().flatMap(m -> m.values().stream())
                .filter(e -> e.appId() == appId.id() && e.groupId().id() == groupId)
                .collect(ImmutableList.toImmutableList());
    }

    @Override
    public Iterable<TableStatisticsEntry> getFlowTableStatistics(DeviceId deviceId) {
        return ImmutableList.of();
    }

    @Override
    public void addListener(FlowRuleListener listener) {
        listeners.addListener(listener);
    }

    @Override
    public void removeListener(FlowRuleListener listener) {
        listeners.removeListener(listener);
    }
}
