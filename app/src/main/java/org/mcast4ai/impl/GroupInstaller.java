package org.mcast4ai.impl;

import com.google.common.collect.ImmutableSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.FailureKind;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.impl.BitmapReplication.BitmapDecision;
import org.mcast4ai.impl.bitmap.BitmapStamp;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.slf4j.Logger;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Drives one instance's groups through their lifecycle: COMPILING (tree over the current snapshot),
 * INSTALLING (one flow-rule batch for the devices whose branch changed), then INSTALLED, DEGRADED or FAILED
 * when the switches answer; WITHDRAWING to WITHDRAWN likewise. A group's work runs on its lane of the
 * manager's {@link GroupLanes}, one task at a time, so a group never has two batches in flight: work requested
 * while a batch is pending is remembered and done when the batch completes. Different groups run in parallel
 * on different lanes: everything shared here is thread-safe.
 */
final class GroupInstaller {
    private final Logger log = getLogger(getClass());

    private final P2mpGroupStore store;
    private final GroupCompiler compiler;
    private final FabricSnapshotFactory snapshots;
    private final OpenFlowTreeProgrammer programmer;
    private final BitmapReplication bitmaps;
    private final GroupIndex index;
    private final GroupLanes lanes;
    private final ScheduledExecutorService timer;
    private final LongSupplier clock;
    private final IntSupplier timeoutMs;

    private final Map<Long, InstallAttempt> inFlight = new ConcurrentHashMap<>();
    private final LongAdder repairs = new LongAdder();
    private final Set<Long> waitingForFabric = ConcurrentHashMap.newKeySet();

    GroupInstaller(P2mpGroupStore store, GroupCompiler compiler, FabricSnapshotFactory snapshots,
                   OpenFlowTreeProgrammer programmer, BitmapReplication bitmaps, GroupIndex index,
                   GroupLanes lanes, ScheduledExecutorService timer, LongSupplier clock, IntSupplier timeoutMs) {
        this.store = store;
        this.compiler = compiler;
        this.snapshots = snapshots;
        this.programmer = programmer;
        this.bitmaps = bitmaps;
        this.index = index;
        this.lanes = lanes;
        this.timer = timer;
        this.clock = clock;
        this.timeoutMs = timeoutMs;
    }

    /**
     * @param group a settled group
     * @return true if ONOS's flow store lacks an entry its record says is installed (reads only)
     */
    boolean needsRepair(P2mpGroup group) {
        P2mpGroupId id = group.id();
        if (!programmer.missing(group, store.installedPlan(id)).branches().isEmpty()) {
            return true;
        }
        BitmapStamp stamp = store.installedStamp(id);
        return stamp != null && bitmaps.programmer() != null
                && !bitmaps.programmer().holds(stamp, programmer::connected);
    }

    /** @return how many times a group's entries were found missing from the switches and sent again */
    long repairCount() {
        return repairs.sum();
    }

    /** @return ids of groups that wait for the fabric to reach more receivers (DEGRADED or unreachable) */
    Set<Long> waitingForFabric() {
        return ImmutableSet.copyOf(waitingForFabric);
    }

    /**
     * Brings a group's switches in line with its record: installs or re-installs a live group, removes a
     * withdrawing one. Runs on the group's lane.
     *
     * @param id  group id
     * @param why what asked for it (recorded with the COMPILING state), empty if the record says
     */
    void reconcile(P2mpGroupId id, String why) {
        P2mpGroup group = store.get(id).orElse(null);
        if (group == null) {
            index.remove(id.value());
            waitingForFabric.remove(id.value());
            return;
        }
        InstallAttempt pending = inFlight.get(id.value());
        if (pending != null) {
            pending.rerun = true;
            return;
        }
        switch (group.state()) {
            case WITHDRAWN:
                index.remove(id.value());
                if (programmer.reachable(store.uncertainPlan(id))) {
                    // entries left on a switch that was gone when the group was withdrawn: it is back
                    send(group, new InstallAttempt(GroupPlan.empty(), store.uncertainPlan(id), GroupPlan.empty(),
                            GroupState.WITHDRAWN, "removed entries left on a switch that came back"));
                }
                break;
            case WITHDRAWING:
                withdraw(group);
                break;
            default:
                install(group, why);
                break;
        }
    }

    private void install(P2mpGroup group, String why) {
        P2mpGroupId id = group.id();
        // a settled group is recompiled quietly: its record changes only if its switches or outcome do
        boolean settled = group.state() == GroupState.INSTALLED || group.state() == GroupState.DEGRADED;
        CompileStep step = new CompileStep(store, group, why, clock);
        FabricView view = snapshots.view();
        FabricSnapshot fabric = view.snapshot();
        BitmapDecision bd = bitmaps.decide(group, fabric);
        BitmapStamp installedStamp = store.installedStamp(id);
        if (installedStamp != null && store.uncertainStamp(id) == null && bitmaps.programmer() != null
                && !bitmaps.programmer().holds(installedStamp, programmer::connected)) {
            // the stamp is sent again in full, as an unacknowledged one would be
            repairs.increment();
            log.info("Group {}: stamp rules missing on the source leaf; sending them again", id);
            store.setUncertainStamp(id, installedStamp);
        }
        if (bd.choice.failure() == null && bd.choice.mode() == ReplicationMode.BITMAP) {
            installBitmap(step, settled, bd, installedStamp, fabric);
            return;
        }
        GroupCompiler.Result compiled;
        try {
            compiled = bd.choice.failure() != null ? null : compiler.compile(group, view);
        } catch (RuntimeException e) {
            log.warn("Compiling group {} failed", id, e);
            compiled = null;
        }
        GroupPlan installed = store.installedPlan(id);
        GroupPlan uncertain = store.uncertainPlan(id);
        // level-triggered: what the record says is installed is checked against ONOS's flow store, and what is
        // missing there (a restart of ONOS, a purge) is sent again with the rest
        GroupPlan lost = programmer.missing(group, installed);
        if (!lost.branches().isEmpty()) {
            repairs.increment();
            log.info("Group {}: rules missing on {}; sending them again", id, lost.branches().keySet());
            uncertain = InstallAttempt.union(uncertain, lost);
        }
        GroupPlan target;
        GroupState outcome;
        String reason;
        Set<Endpoint> unreachable;
        FailureKind failure = null;
        if (bd.choice.failure() != null) {
            target = GroupPlan.empty();
            outcome = GroupState.FAILED;
            failure = FailureKind.MODE_UNAVAILABLE;
            reason = bd.choice.failure();
            unreachable = ImmutableSet.of();
        } else if (compiled == null) {
            target = GroupPlan.empty();
            outcome = GroupState.FAILED;
            failure = FailureKind.COMPILE_ERROR;
            reason = "the tree computation failed; see the ONOS log";
            unreachable = ImmutableSet.of();
        } else {
            index.put(id.value(), compiled.failed() ? installed : compiled.plan, compiled.hosts);
            target = compiled.plan;
            unreachable = compiled.unreachable;
            if (compiled.failed()) {
                outcome = GroupState.FAILED;
                failure = compiled.kind;
                reason = compiled.failure + InstallAttempt.describe(unreachable);
            } else if (!unreachable.isEmpty()) {
                outcome = GroupState.DEGRADED;
                reason = unreachable.size() + " of " + group.request().receivers().size()
                        + " receivers unreachable" + InstallAttempt.describe(unreachable);
            } else {
                outcome = GroupState.INSTALLED;
                reason = "";
            }
        }
        waitsForFabric(id, outcome);
        Set<DeviceId> changed = target.changedDevices(installed);
        boolean quiet = changed.isEmpty() && !programmer.reachable(uncertain);
        BitmapStamp uncertainStamp = store.uncertainStamp(id);
        if (settled && quiet && installedStamp == null && uncertainStamp == null
                && CompileStep.recorded(group, bd) && outcome == group.state()
                && unreachable.equals(group.unreachable())) {
            return;
        }
        step.mode(bd);
        if (uncertainStamp != null || installedStamp != null) {
            // the group leaves BITMAP: its stamp goes first (it shares the tree rule's match on the source leaf)
            removeStampFirst(step, uncertainStamp != null ? uncertainStamp : installedStamp, uncertainStamp != null);
            return;
        }
        if (quiet) {
            step.finish(outcome, reason, unreachable, failure);
            return;
        }
        P2mpGroup sending = step.finish(GroupState.INSTALLING, lost.branches().isEmpty()
                ? "programming " + Math.max(1, changed.size()) + " switch(es)"
                : "repairing: rules missing on " + lost.branches().keySet(), unreachable);
        if (sending != null) {
            InstallAttempt a = new InstallAttempt(installed, uncertain, target, outcome, reason);
            a.failure = failure;
            send(sending, a);
        }
    }

    private void waitsForFabric(P2mpGroupId id, GroupState outcome) {
        if (outcome == GroupState.INSTALLED) {
            waitingForFabric.remove(id.value());
        } else {
            waitingForFabric.add(id.value());
        }
    }

    private void installBitmap(CompileStep step, boolean settled, BitmapDecision bd, BitmapStamp installedStamp,
                               FabricSnapshot fabric) {
        P2mpGroup group = step.group();
        P2mpGroupId id = group.id();
        BitmapStamp target = bd.result.stamp();
        Set<Endpoint> unreachable = bd.unreachable;
        GroupState outcome = unreachable.isEmpty() ? GroupState.INSTALLED : GroupState.DEGRADED;
        String reason = unreachable.isEmpty() ? "" : unreachable.size() + " of "
                + group.request().receivers().size() + " receivers have no bit in the fabric's bitmap"
                + InstallAttempt.describe(unreachable);
        index.put(id.value(), GroupPlan.empty(), bd.hosts);
        waitsForFabric(id, outcome);
        GroupPlan treePlan = store.installedPlan(id);
        GroupPlan treeUncertain = store.uncertainPlan(id);
        boolean treeLeft = !treePlan.branches().isEmpty() || !treeUncertain.branches().isEmpty();
        BitmapStamp uncertainStamp = store.uncertainStamp(id);
        boolean quiet = target.equals(installedStamp) && !treeLeft && uncertainStamp == null;
        if (settled && quiet && CompileStep.recorded(group, bd) && outcome == group.state()
                && unreachable.equals(group.unreachable())) {
            return;
        }
        step.mode(bd);
        if (treeLeft) {
            // the group leaves TREE: its branches go first (the stamp shares their match on the source leaf)
            P2mpGroup sending = step.finish(GroupState.INSTALLING, "removing the group's tree entries", unreachable);
            if (sending != null) {
                InstallAttempt a = new InstallAttempt(treePlan, treeUncertain, GroupPlan.empty(),
                        GroupState.INSTALLING, "");
                a.chain = true;
                send(sending, a);
            }
            return;
        }
        if (uncertainStamp != null && !uncertainStamp.equals(target)) {
            // an unacknowledged stamp may be on the leaf: it goes first (the target's rules are all re-sent)
            removeStampFirst(step, uncertainStamp, true);
            return;
        }
        if (quiet) {
            step.finish(outcome, reason, unreachable);
            return;
        }
        if (!bitmaps.staticReady(fabric)) {
            // the stamp hands packets to the static tables: until the switches acknowledged those, the group
            // would be reported INSTALLED while its packets were dropped; it is rescheduled when they are in place
            P2mpGroup waiting = step.finish(GroupState.INSTALLING, WAITING_FOR_STATIC, unreachable);
            if (waiting != null) {
                staticDeadline(waiting);
            }
            return;
        }
        P2mpGroup sending = step.finish(GroupState.INSTALLING, "programming the source leaf's stamp", unreachable);
        if (sending != null) {
            // an unacknowledged stamp equal to the target is sent again whole: it may be missing from the leaf
            send(sending, new InstallAttempt(uncertainStamp != null ? null : installedStamp, target,
                    GroupState.INSTALLING, outcome, reason));
        }
    }

    /** The reason a BITMAP group waits in INSTALLING before its stamp is sent. */
    static final String WAITING_FOR_STATIC = "waiting for the switches to acknowledge the static BITMAP tables";

    /** How the FAILED reason of a BITMAP group whose static tables never came starts. */
    static final String STATIC_TIMED_OUT = "the switches did not acknowledge the static BITMAP tables within ";

    /**
     * A BITMAP group waits for the static tables as long as a batch waits for its acknowledgement; then it is
     * FAILED (and installed after all if the tables arrive later: see the manager's staticTablesInPlace).
     */
    private void staticDeadline(P2mpGroup waiting) {
        int timeout = timeoutMs.getAsInt();
        if (timer == null || timeout <= 0) {
            return;
        }
        P2mpGroupId id = waiting.id();
        long version = waiting.version();
        try {
            timer.schedule(() -> later(id, () -> store.update(id, cur -> cur.version() != version
                    || cur.state() != GroupState.INSTALLING || !WAITING_FOR_STATIC.equals(cur.reason()) ? cur
                    : cur.withFailure(FailureKind.STATIC_TABLES_TIMEOUT, clock.getAsLong(),
                        STATIC_TIMED_OUT + timeout + " ms"))),
                    timeout, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("Stopped; no deadline for group {}", id);
        }
    }

    private void removeStampFirst(CompileStep step, BitmapStamp stamp, boolean uncertain) {
        P2mpGroup sending = step.finish(GroupState.INSTALLING, "removing the group's BITMAP stamp", null);
        if (sending == null) {
            return;
        }
        InstallAttempt a = new InstallAttempt(stamp, null, GroupState.INSTALLING, GroupState.INSTALLING, "");
        a.chain = true;
        a.clearsUncertain = uncertain;
        send(sending, a);
    }

    private void withdraw(P2mpGroup group) {
        P2mpGroupId id = group.id();
        waitingForFabric.remove(id.value());
        BitmapStamp uncertainStamp = store.uncertainStamp(id);
        BitmapStamp stamp = uncertainStamp != null ? uncertainStamp : store.installedStamp(id);
        if (stamp != null) {
            // stamps go first (unacknowledged, then installed); the rerun then removes tree entries left from an
            // earlier mode, if any
            InstallAttempt a = new InstallAttempt(stamp, null, GroupState.WITHDRAWING, GroupState.WITHDRAWING, "");
            a.chain = true;
            a.clearsUncertain = uncertainStamp != null;
            send(group, a);
            return;
        }
        GroupPlan installed = store.installedPlan(id);
        GroupPlan uncertain = store.uncertainPlan(id);
        if (installed.branches().isEmpty() && uncertain.branches().isEmpty()) {
            index.remove(id.value());
            transition(id, GroupState.WITHDRAWING, GroupState.WITHDRAWN, "no switch held entries for the group",
                    group.unreachable());
            return;
        }
        send(group, new InstallAttempt(installed, uncertain, GroupPlan.empty(), GroupState.WITHDRAWN,
                "removed the group's entries from its switches"));
    }

    private void send(P2mpGroup group, InstallAttempt attempt) {
        long id = group.id().value();
        inFlight.put(id, attempt);
        FlowRuleOperationsContext context = new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations ops) {
                later(group.id(), () -> completed(group.id(), attempt, null, null));
            }

            @Override
            public void onError(FlowRuleOperations ops) {
                Set<DeviceId> failed = InstallAttempt.devicesOf(ops);
                if (!failed.isEmpty() && failed.stream().noneMatch(programmer::connected)) {
                    // the switches went away under the batch: not the group's failure; the topology change
                    // recompiles it, and the uncertain record written ahead says what may be left
                    later(group.id(), () -> interrupted(group.id(), attempt, failed));
                    return;
                }
                String why = InstallAttempt.rejected(ops);
                later(group.id(), () -> completed(group.id(), attempt, why, FailureKind.SWITCH_REFUSED));
            }
        };
        try {
            if (attempt.bitmap) {
                if (attempt.stampTo != null) {
                    // write-ahead, as for trees: a failed or interrupted batch leaves a record of what it may have
                    // left on the leaf
                    store.setUncertainStamp(group.id(), attempt.stampTo);
                }
                attempt.devices = bitmaps.programmer().program(attempt.stampFrom, attempt.stampTo, context);
            } else {
                // write-ahead: whatever happens to the batch, a later install or withdraw knows what it may have
                // left
                store.setUncertainPlan(group.id(), InstallAttempt.union(attempt.uncertain, attempt.target));
                OpenFlowTreeProgrammer.Batch batch = programmer.program(group, attempt.installed, attempt.uncertain,
                        attempt.target, context);
                attempt.left = batch.left;
                attempt.devices = batch.devices;
            }
        } catch (RuntimeException e) {
            log.warn("Sending the entries of group {} failed", group.id(), e);
            completed(group.id(), attempt, "the flow rule service refused the batch: " + e.getMessage(),
                    FailureKind.SWITCH_REFUSED);
            return;
        }
        if (attempt.devices.isEmpty()) {
            completed(group.id(), attempt, null, null);
            return;
        }
        int timeout = timeoutMs.getAsInt();
        if (timer != null && timeout > 0 && inFlight.get(id) == attempt) {
            String why = "no acknowledgement from switch(es) " + attempt.devices.stream().map(DeviceId::toString)
                    .sorted().collect(Collectors.joining(", ", "[", "]")) + " within " + timeout + " ms";
            try {
                attempt.timeout = timer.schedule(() -> later(group.id(),
                        () -> completed(group.id(), attempt, why, FailureKind.SWITCH_TIMEOUT)), timeout,
                        TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                log.debug("Stopped; no timeout for group {}", group.id());
            }
        }
    }

    /** Hands a completion to the group's lane; after the manager stopped, the next owner takes the group on. */
    private void later(P2mpGroupId id, Runnable task) {
        if (!lanes.execute(id.value(), task)) {
            log.debug("Stopped; completion of group {} dropped", id);
        }
    }

    private void interrupted(P2mpGroupId id, InstallAttempt attempt, Set<DeviceId> gone) {
        if (!inFlight.remove(id.value(), attempt)) {
            return;
        }
        Future<?> pending = attempt.timeout;
        if (pending != null) {
            pending.cancel(false);
        }
        log.info("Group {}: switch(es) {} disconnected during programming; reconciling again", id, gone);
        reconcile(id, "switch(es) " + gone + " disconnected during programming");
    }

    private void completed(P2mpGroupId id, InstallAttempt attempt, String error, FailureKind kind) {
        if (!inFlight.remove(id.value(), attempt)) {
            if (error != null) {
                log.debug("Late or repeated failure for group {} ignored: {}", id, error);
            }
            return;
        }
        Future<?> pending = attempt.timeout;
        if (pending != null) {
            pending.cancel(false);
        }
        GroupState expected = attempt.expected;
        if (error == null) {
            if (attempt.bitmap) {
                if (!attempt.clearsUncertain) {
                    store.setInstalledStamp(id, attempt.stampTo);
                }
                store.setUncertainStamp(id, null);
            } else {
                store.setInstalledPlan(id, attempt.target);
                store.setUncertainPlan(id, attempt.left);
            }
            if (attempt.withdrawal()) {
                index.remove(id.value());
            }
            if (attempt.onSuccess != expected) {
                transition(id, expected, attempt.onSuccess, attempt.successReason, null, attempt.failure);
            }
        } else {
            // the uncertain plan written before sending keeps track of what the batch may have left
            String prefix = attempt.withdrawal() ? "withdraw incomplete: " : "";
            transition(id, expected, GroupState.FAILED, prefix + error, null, kind);
        }
        if (attempt.rerun || (attempt.chain && error == null)) {
            reconcile(id, "");
        }
    }

    private void transition(P2mpGroupId id, GroupState from, GroupState to, String reason,
                            Set<Endpoint> unreachable) {
        transition(id, from, to, reason, unreachable, null);
    }

    private void transition(P2mpGroupId id, GroupState from, GroupState to, String reason,
                            Set<Endpoint> unreachable, FailureKind failure) {
        store.update(id, cur -> {
            if (cur.state() != from) {
                return cur;
            }
            P2mpGroup next = unreachable == null ? cur : cur.withUnreachable(unreachable);
            return to == GroupState.FAILED ? next.withFailure(failure, clock.getAsLong(), reason)
                    : next.withState(to, clock.getAsLong(), reason);
        });
    }
}
