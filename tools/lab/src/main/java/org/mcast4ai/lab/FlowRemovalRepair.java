package org.mcast4ai.lab;

import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * What ONOS's {@code FlowRuleManager.flowRemoved} does for the lab: a flow the store holds as ADDED that its switch
 * reports removed (deleted around the lab, or with the group it pointed to) is applied again at once, without
 * waiting for the audit. The removals of flows the lab deleted itself are left alone: those entries are gone from
 * the store, or were written again after the report arrived. Removals arriving together are applied in one bundle
 * per bridge; when the bridge refuses it (a flow whose group is gone too), each flow is sent on its own, as ONOS
 * sends them, and the refused ones wait for the audit that restores their group.
 */
final class FlowRemovalRepair implements Ofctl.FlowRemoved {

    private static final Logger log = LoggerFactory.getLogger(FlowRemovalRepair.class);

    private final Map<String, DeviceId> devices = new ConcurrentHashMap<>();
    private final Map<DeviceId, String> bridges;
    private final Ofctl ofctl;
    private final Executor executor;
    private final Function<DeviceId, Map<FlowId, FlowEntry>> store;
    private final Predicate<DeviceId> available;
    private final UnaryOperator<FlowRule> hook;
    private final WriteMarks<String> marks;
    private final Map<DeviceId, Map<Long, Long>> reported = new ConcurrentHashMap<>();
    private final Set<DeviceId> scheduled = ConcurrentHashMap.newKeySet();
    private final AtomicLong reapplied = new AtomicLong();

    /**
     * Creates the repair.
     *
     * @param bridges   device to bridge name
     * @param ofctl     switch access
     * @param executor  the batch executor: repairs run in order with the batches
     * @param store     a device's stored entries
     * @param available true for a connected device
     * @param hook      the rewrite applied to every rule before it is sent
     * @param marks     the writes of the flow service, by device and flow id
     */
    FlowRemovalRepair(Map<DeviceId, String> bridges, Ofctl ofctl, Executor executor,
                      Function<DeviceId, Map<FlowId, FlowEntry>> store, Predicate<DeviceId> available,
                      UnaryOperator<FlowRule> hook, WriteMarks<String> marks) {
        this.bridges = bridges;
        bridges.forEach((d, b) -> devices.put(b, d));
        this.ofctl = ofctl;
        this.executor = executor;
        this.store = store;
        this.available = available;
        this.hook = hook;
        this.marks = marks;
    }

    /** @return flows applied again because their switch reported them removed */
    long reappliedCount() {
        return reapplied.get();
    }

    @Override
    public void removed(String bridge, long cookie, String reason) {
        DeviceId device = devices.get(bridge);
        if (device == null) {
            return;
        }
        // the moment it arrived: a write of this flow by the lab after it makes the report stale
        reported.computeIfAbsent(device, d -> new ConcurrentHashMap<>()).put(cookie, marks.now());
        if (scheduled.add(device)) {
            executor.execute(() -> repair(device));
        }
    }

    private void repair(DeviceId device) {
        scheduled.remove(device);
        Map<Long, Long> got = reported.getOrDefault(device, Map.of());
        Map<FlowId, FlowEntry> table = store.apply(device);
        List<FlowEntry> again = new ArrayList<>();
        for (Long cookie : new ArrayList<>(got.keySet())) {
            Long mark = got.remove(cookie);
            FlowEntry e = table.get(FlowId.valueOf(cookie));
            if (mark != null && e != null && e.state() == FlowEntry.FlowEntryState.ADDED
                    && !marks.writtenSince(OvsFlowRuleService.markKey(device, cookie), mark)) {
                again.add(e);
            }
        }
        if (again.isEmpty() || !available.test(device)) {
            return;
        }
        String bridge = bridges.get(device);
        Map<FlowEntry, SwitchOp> ops = new LinkedHashMap<>();
        again.forEach(e -> ops.put(e, SwitchOp.flow(SwitchOp.Kind.ADD_FLOW, hook.apply(e))));
        Ofctl.Result r = ofctl.bundle(bridge, new ArrayList<>(ops.values()));
        int applied = 0;
        if (r.ok()) {
            applied = again.size();
        } else if (again.size() > 1 && r.exitCode() == 1) {
            // the bridge refused the bundle (not a lost connection): send each flow on its own
            for (SwitchOp op : ops.values()) {
                if (ofctl.bundle(bridge, List.of(op)).ok()) {
                    applied++;
                }
            }
        }
        again.forEach(e -> marks.wrote(OvsFlowRuleService.markKey(device, e.id().value())));
        reapplied.addAndGet(applied);
        log.info("{} removed {} flow(s) the store holds: applied {} again, {} wait for the audit{}", bridge,
                again.size(), applied, again.size() - applied, r.ok() ? "" : " (" + r.errors() + ")");
    }
}
