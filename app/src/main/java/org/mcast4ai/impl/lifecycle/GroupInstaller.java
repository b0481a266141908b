package org.mcast4ai.impl.lifecycle;

import org.mcast4ai.impl.compile.CompileStep;
import org.mcast4ai.impl.compile.Desired;
import org.mcast4ai.impl.compile.P4Replication;
import org.mcast4ai.impl.fabric.FabricSnapshotFactory;
import org.mcast4ai.impl.monitor.GroupIndex;
import org.mcast4ai.impl.store.P2mpGroupStore;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.FailureKind;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.impl.program.DeviceEntry;
import org.mcast4ai.impl.program.Diff;
import org.mcast4ai.impl.program.Move;
import org.mcast4ai.impl.program.Programmed;
import org.mcast4ai.impl.program.Programmer;
import org.onosproject.net.DeviceId;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * The reconcile loop, one per instance, mode-neutral and level-triggered: desired = compile(group, fabric
 * snapshot) ({@link Desired}), installed = the group's one stored record ({@link Programmed}), checked against
 * ONOS's stores; the difference ({@link Diff}) goes to the {@link Programmer} of each kind of entry. A group
 * becomes INSTALLED or DEGRADED only when its devices acknowledged; the record is updated per device from what
 * each acknowledged. A mode change is the same diff, with the entries of the old mode removed first (they share
 * the group's match on the source leaf). A group's work runs on its lane of {@link GroupLanes}, one task at a
 * time, so a group never has two batches in flight: work asked for meanwhile is done when the batch completes.
 */
public final class GroupInstaller {
    private final Logger log = getLogger(getClass());

    private final P2mpGroupStore store;
    private final Desired.Compiler compiler;
    private final FabricSnapshotFactory snapshots;
    private final Map<String, Programmer> programmers;
    private final Predicate<DeviceId> connected;
    private final GroupIndex index;
    private final GroupLanes lanes;
    private final ScheduledExecutorService timer;
    private final LongSupplier clock;
    private final IntSupplier timeoutMs;

    private final Map<Long, InstallAttempt> inFlight = new ConcurrentHashMap<>();
    private final LongAdder repairs = new LongAdder();
    private final Set<Long> waitingForFabric = ConcurrentHashMap.newKeySet();

    public GroupInstaller(P2mpGroupStore store, Desired.Compiler compiler, FabricSnapshotFactory snapshots,
                          List<Programmer> programmers, Predicate<DeviceId> connected, GroupIndex index,
                          GroupLanes lanes, ScheduledExecutorService timer, LongSupplier clock, IntSupplier timeoutMs) {
        this.store = store;
        this.compiler = compiler;
        this.snapshots = snapshots;
        ImmutableMap.Builder<String, Programmer> b = ImmutableMap.builder();
        programmers.forEach(p -> b.put(p.kind(), p));
        this.programmers = b.build();
        this.connected = connected;
        this.index = index;
        this.lanes = lanes;
        this.timer = timer;
        this.clock = clock;
        this.timeoutMs = timeoutMs;
    }

    /** @return the programmers by kind */
    public Map<String, Programmer> programmers() {
        return programmers;
    }

    /**
     * @param group a settled group
     * @return true if ONOS's stores lack an entry its record says is installed (reads only)
     */
    public boolean needsRepair(P2mpGroup group) {
        return !lost(group, store.programmed(group.id())).isEmpty();
    }

    // entries the record says a connected device holds and ONOS's stores do not
    private List<DeviceEntry> lost(P2mpGroup group, Programmed record) {
        List<DeviceEntry> out = new ArrayList<>();
        for (DeviceEntry e : record.installed()) {
            Programmer p = programmers.get(e.kind());
            if (p != null && connected.test(e.device()) && !record.uncertain().contains(e) && !p.holds(group, e)) {
                out.add(e);
            }
        }
        return out;
    }

    /** @return how many times a group's entries were found missing from the switches and sent again */
    public long repairCount() {
        return repairs.sum();
    }

    /** @return ids of groups that wait for the fabric to reach more receivers (DEGRADED or unreachable) */
    public Set<Long> waitingForFabric() {
        return ImmutableSet.copyOf(waitingForFabric);
    }

    /**
     * Brings a group's switches in line with its record: installs or re-installs a live group, removes a
     * withdrawing one, removes what a withdrawn one left on a switch that was gone. Runs on the group's lane.
     *
     * @param id  group id
     * @param why what asked for it (recorded with the COMPILING state), empty if the record says
     */
    public void reconcile(P2mpGroupId id, String why) {
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
                Programmed left = store.programmed(id);
                if (left.uncertainReachable(connected)) {
                    Diff d = Diff.of(left, Set.of(), null, connected);
                    if (!d.nothingToSend()) {
                        send(group, left, d, new InstallAttempt(d.moves(), List.of(), GroupState.WITHDRAWN,
                                GroupState.WITHDRAWN, "removed entries left on a switch that came back", null, false));
                    }
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
        Programmed record = store.programmed(id);
        Desired desired = compiler.compile(group, snapshots.view(), record);
        index.put(id.value(), desired.plan, desired.hosts);
        waitsForFabric(id, desired.outcome);
        // level-triggered: what the record says is installed is checked against ONOS's stores, and what is missing
        // there (a restart of ONOS, a purge) is sent again with the rest
        List<DeviceEntry> lost = lost(group, record);
        if (!lost.isEmpty()) {
            repairs.increment();
            Set<DeviceId> where = lost.stream().map(DeviceEntry::device).collect(Collectors.toCollection(
                    LinkedHashSet::new));
            log.info("Group {}: entries missing on {}; sending them again", id, where);
            record = record.withUncertain(lost);
        }
        // the entries of a mode the group leaves go first: they share the group's match on the source leaf
        Set<String> leaving = new HashSet<>(record.kinds());
        leaving.removeAll(desired.kinds);
        if (!desired.kinds.isEmpty() && !leaving.isEmpty()) {
            Diff first = Diff.of(record, Set.of(), leaving, connected);
            record = settleLeft(id, record, first);
            if (!first.nothingToSend()) {
                step.mode(desired.mode);
                P2mpGroup sending = step.finish(GroupState.INSTALLING, "removing the group's " + leaving
                        + " entries", desired.unreachable);
                if (sending != null) {
                    send(sending, record, first, new InstallAttempt(first.moves(), record.links(),
                            GroupState.INSTALLING, GroupState.INSTALLING, "", null, true));
                }
                return;
            }
        }
        Diff diff = Diff.of(record, desired.entries, null, connected);
        if (diff.nothingToSend() && desired.waitTimeout == FailureKind.AGGREGATION_TIMEOUT) {
            // the switches hold what the group needs, the aggregation point not yet
            settleLeft(id, record, diff);
            step.mode(desired.mode);
            P2mpGroup waiting = step.finish(GroupState.INSTALLING, desired.waitingFor, desired.unreachable);
            if (waiting != null) {
                deadline(waiting, desired.waitTimeout);
            }
            return;
        }
        if (diff.nothingToSend()) {
            settleLeft(id, record, diff);
            if (settled && CompileStep.recorded(group, desired.mode) && desired.outcome == group.state()
                    && desired.unreachable.equals(group.unreachable())
                    && (group.peer().isEmpty() || desired.reason.equals(group.reason()))) {
                return;
            }
            step.mode(desired.mode);
            step.finish(desired.outcome, desired.reason, desired.unreachable, desired.failure);
            return;
        }
        step.mode(desired.mode);
        if (desired.waitingFor != null && onlyLost(diff, lost)) {
            // ONOS lost entries the switches still hold (a restart): its first flow audit would purge them as
            // extraneous while the state they hand packets to is acknowledged again, so they go again at once; the
            // group waits on, and is rescheduled when that state is in place
            waitingForFabric.add(id.value());
            P2mpGroup sending = step.finish(GroupState.INSTALLING, desired.waitingFor, desired.unreachable);
            if (sending != null) {
                send(sending, record, diff, new InstallAttempt(diff.moves(), desired.plan.links(),
                        GroupState.INSTALLING, GroupState.INSTALLING, desired.waitingFor, null, false));
            }
            return;
        }
        if (desired.waitingFor != null) {
            // the entries hand packets to state that is not acknowledged yet: until it is, the group would be
            // reported INSTALLED while its packets were dropped; it is rescheduled when the state is in place
            P2mpGroup waiting = step.finish(GroupState.INSTALLING, desired.waitingFor, desired.unreachable);
            if (waiting != null) {
                deadline(waiting, desired.waitTimeout);
            }
            return;
        }
        P2mpGroup sending = step.finish(GroupState.INSTALLING, lost.isEmpty()
                ? "programming " + diff.deviceCount() + " switch(es)"
                : "repairing: entries missing on " + lost.stream().map(DeviceEntry::device)
                        .collect(Collectors.toCollection(LinkedHashSet::new)), desired.unreachable);
        if (sending != null) {
            send(sending, record, diff, new InstallAttempt(diff.moves(), desired.plan.links(), GroupState.INSTALLING,
                    desired.outcome, desired.reason, desired.failure, false));
        }
    }

    // true if every entry the diff sends is one the record had installed and ONOS's stores no longer list
    private static boolean onlyLost(Diff diff, List<DeviceEntry> lost) {
        if (lost.isEmpty()) {
            return false;
        }
        Set<DeviceEntry> missing = new HashSet<>(lost);
        for (List<Move> moves : diff.moves().values()) {
            for (Move m : moves) {
                if (m.target() != null && !missing.contains(m.target())) {
                    return false;
                }
            }
        }
        return true;
    }

    // entries on gone devices that are no longer needed move from installed to uncertain in the record
    private Programmed settleLeft(P2mpGroupId id, Programmed record, Diff diff) {
        if (diff.left().isEmpty()) {
            // nothing to move: the record is the stored one (entries found lost always leave moves to send)
            return record;
        }
        Programmed next = diff.sending(record);
        store.setProgrammed(id, next);
        return next;
    }

    private void waitsForFabric(P2mpGroupId id, GroupState outcome) {
        if (outcome == GroupState.INSTALLED) {
            waitingForFabric.remove(id.value());
        } else {
            waitingForFabric.add(id.value());
        }
    }

    /** How the FAILED reason of a group whose awaited state never came starts. */
    public static final String STATIC_TIMED_OUT = "the switches did not acknowledge the static BITMAP tables within ";
    /** How the FAILED reason of a group on P4 switches that did not answer their static state in time starts. */
    public static final String P4_STATIC_TIMED_OUT = "the P4 switches did not acknowledge their static state within ";
    /** Reason of an ACK_AGGREGATION group whose aggregation point did not join its receivers in time. */
    public static final String AGGREGATION_TIMED_OUT = "no aggregation point joined the group's receivers within ";

    /**
     * A group waits for the state its entries need as long as a batch waits for its acknowledgement; then it is
     * FAILED (and installed after all if the state arrives later: see the scheduler's staticTablesInPlace).
     */
    private void deadline(P2mpGroup waiting, FailureKind kind) {
        int timeout = timeoutMs.getAsInt();
        if (timer == null || timeout <= 0) {
            return;
        }
        P2mpGroupId id = waiting.id();
        long version = waiting.version();
        String reason = waiting.reason();
        String why = kind == FailureKind.AGGREGATION_TIMEOUT
                ? AGGREGATION_TIMED_OUT + timeout + " ms: is mcast4ai-agent running beside "
                        + waiting.request().source().host() + "? (" + reason + ")"
                : reason.contains(P4Replication.WAITING_FOR_STATIC) ? P4_STATIC_TIMED_OUT + timeout + " ms ("
                        + reason + ")"
                : STATIC_TIMED_OUT + timeout + " ms";
        try {
            timer.schedule(() -> later(id, () -> {
                // a group withdrawn and purged while it waited has nothing left to fail
                if (store.get(id).isPresent()) {
                    store.update(id, cur -> cur.version() != version
                            || cur.state() != GroupState.INSTALLING || !reason.equals(cur.reason()) ? cur
                            : cur.withFailure(kind, clock.getAsLong(), why));
                }
            }), timeout, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("Stopped; no deadline for group {}", id);
        }
    }

    private void withdraw(P2mpGroup group) {
        P2mpGroupId id = group.id();
        waitingForFabric.remove(id.value());
        Programmed record = store.programmed(id);
        if (record.isEmpty()) {
            index.remove(id.value());
            transition(id, GroupState.WITHDRAWING, GroupState.WITHDRAWN, "no switch held entries for the group",
                    group.unreachable(), null);
            return;
        }
        Diff diff = Diff.of(record, Set.of(), null, connected);
        if (diff.nothingToSend()) {
            settleLeft(id, record, diff);
            index.remove(id.value());
            transition(id, GroupState.WITHDRAWING, GroupState.WITHDRAWN, "removed the group's entries from its "
                    + "switches; switch(es) not connected are cleaned when they return", group.unreachable(), null);
            return;
        }
        send(group, record, diff, new InstallAttempt(diff.moves(), List.of(), GroupState.WITHDRAWING,
                GroupState.WITHDRAWN, "removed the group's entries from its switches", null, false));
    }

    private void send(P2mpGroup group, Programmed record, Diff diff, InstallAttempt attempt) {
        P2mpGroupId id = group.id();
        inFlight.put(id.value(), attempt);
        // write-ahead: whatever happens to the batch, a later reconcile knows what it may have left
        Programmed ahead = diff.sending(record);
        store.setProgrammed(id, ahead);
        Set<DeviceId> devices = Set.of();
        List<Map.Entry<Programmer, List<Move>>> work = new ArrayList<>(diff.moves().size());
        diff.moves().forEach((kind, moves) -> work.add(Map.entry(programmers.get(kind), moves)));
        attempt.expect(work.size());
        try {
            for (Map.Entry<Programmer, List<Move>> w : work) {
                Set<DeviceId> touched = w.getKey().apply(group, w.getValue(), (ok, refused) -> {
                    if (attempt.answer(ok, refused)) {
                        later(id, () -> answered(id, diff, attempt));
                    }
                });
                if (touched.isEmpty() && attempt.answer(Set.of(), Map.of())) {
                    answered(id, diff, attempt);
                    return;
                }
                if (devices.isEmpty()) {
                    devices = touched;
                } else {
                    devices = new LinkedHashSet<>(devices);
                    devices.addAll(touched);
                }
            }
        } catch (RuntimeException e) {
            log.warn("Sending the entries of group {} failed", id, e);
            completed(id, diff, attempt, Set.of(), "the flow rule service refused the batch: " + e.getMessage(),
                    FailureKind.SWITCH_REFUSED);
            return;
        }
        attempt.devices = devices;
        log.debug("Group {}: sent to {}", id, devices);
        int timeout = timeoutMs.getAsInt();
        if (timer != null && timeout > 0 && inFlight.get(id.value()) == attempt && !devices.isEmpty()) {
            String why = "no acknowledgement from switch(es) " + devices.stream().map(DeviceId::toString)
                    .sorted().collect(Collectors.joining(", ", "[", "]")) + " within " + timeout + " ms";
            try {
                attempt.timeout = timer.schedule(() -> later(id,
                        () -> completed(id, diff, attempt, attempt.acked(), why, FailureKind.SWITCH_TIMEOUT)),
                        timeout, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                log.debug("Stopped; no timeout for group {}", id);
            }
        }
    }

    /** Hands a completion to the group's lane; after the manager stopped, the next owner takes the group on. */
    private void later(P2mpGroupId id, Runnable task) {
        if (!lanes.execute(id.value(), task)) {
            log.debug("Stopped; completion of group {} dropped", id);
        }
    }

    private void answered(P2mpGroupId id, Diff diff, InstallAttempt attempt) {
        Map<DeviceId, String> rejected = attempt.rejected();
        Set<DeviceId> acked = attempt.acked();
        log.debug("Group {}: answered by {}, refused by {}", id, acked, rejected.keySet());
        if (rejected.isEmpty()) {
            completed(id, diff, attempt, acked, null, null);
        } else if (rejected.keySet().stream().noneMatch(connected)) {
            // the switches went away under the batch: not the group's failure; the topology change recompiles
            // it, and the record says what may be left
            interrupted(id, diff, attempt, acked, rejected.keySet());
        } else {
            String why = rejected.entrySet().stream().filter(e -> connected.test(e.getKey()))
                    .map(Map.Entry::getValue).distinct().collect(Collectors.joining("; "));
            completed(id, diff, attempt, acked, why, FailureKind.SWITCH_REFUSED);
        }
    }

    // acked: the devices that acknowledged, null for all of them
    private boolean finish(P2mpGroupId id, Diff diff, InstallAttempt attempt, Set<DeviceId> acked) {
        if (!inFlight.remove(id.value(), attempt)) {
            return false;
        }
        Future<?> pending = attempt.timeout;
        if (pending != null) {
            pending.cancel(false);
        }
        store.setProgrammed(id, diff.acknowledged(store.programmed(id), acked, attempt.links));
        return true;
    }

    private void interrupted(P2mpGroupId id, Diff diff, InstallAttempt attempt, Set<DeviceId> acked,
                             Set<DeviceId> gone) {
        if (!finish(id, diff, attempt, acked)) {
            return;
        }
        log.info("Group {}: switch(es) {} disconnected during programming; reconciling again", id, gone);
        reconcile(id, "switch(es) " + gone + " disconnected during programming");
    }

    private void completed(P2mpGroupId id, Diff diff, InstallAttempt attempt, Set<DeviceId> acked, String error,
                           FailureKind kind) {
        if (!finish(id, diff, attempt, error == null ? null : acked)) {
            if (error != null) {
                log.debug("Late or repeated failure for group {} ignored: {}", id, error);
            }
            return;
        }
        GroupState expected = attempt.expected;
        if (error == null) {
            if (attempt.withdrawal()) {
                index.remove(id.value());
            }
            if (attempt.onSuccess != expected) {
                transition(id, expected, attempt.onSuccess, attempt.successReason, null, attempt.failure);
            }
        } else {
            // the record written before sending keeps track of what the batch may have left
            String prefix = attempt.withdrawal() ? "withdraw incomplete: " : "";
            transition(id, expected, GroupState.FAILED, prefix + error, null, kind);
        }
        if (attempt.rerun || (attempt.chain && error == null)) {
            reconcile(id, "");
        }
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
