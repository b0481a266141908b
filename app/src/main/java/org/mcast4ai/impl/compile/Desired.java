package org.mcast4ai.impl.compile;

import org.mcast4ai.impl.fabric.FabricView;
import org.mcast4ai.impl.lifecycle.InstallAttempt;
import com.google.common.collect.ImmutableSet;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.FailureKind;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.impl.compile.BitmapReplication.BitmapDecision;
import org.mcast4ai.impl.p4.P4Stamp;
import org.mcast4ai.impl.program.DeviceEntry;
import org.mcast4ai.impl.program.Programmed;
import org.mcast4ai.impl.program.TreeBranch;
import org.onosproject.net.HostId;
import org.slf4j.Logger;

import java.util.LinkedHashSet;
import java.util.Set;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * What a group should have on the switches, compiled from its request and one fabric snapshot: the device
 * entries, the state they lead to, and what the reconcile loop needs besides (the hosts and links the topology
 * index watches, the replication mode to record, a precondition the entries wait for). This is the only place
 * that knows the replication modes; the loop that programs the difference does not.
 */
public final class Desired {
    public final Set<DeviceEntry> entries;
    public final Set<String> kinds;
    public final GroupPlan plan;
    public final Set<HostId> hosts;
    public final GroupState outcome;
    public final String reason;
    public final Set<Endpoint> unreachable;
    public final FailureKind failure;
    public final BitmapDecision mode;
    // non-null: the entries must not go out yet (the reason the group waits with in INSTALLING)
    public final String waitingFor;
    // what the group FAILS with if the wait lasts past the install timeout; AGGREGATION_TIMEOUT: it waits even
    // when the switches hold its entries already (what it waits for is beside the sender, not on a switch)
    public final FailureKind waitTimeout;

    private Desired(Set<DeviceEntry> entries, Set<String> kinds, GroupPlan plan, Set<HostId> hosts,
                    GroupState outcome, String reason, Set<Endpoint> unreachable, FailureKind failure,
                    BitmapDecision mode, String waitingFor) {
        this(entries, kinds, plan, hosts, outcome, reason, unreachable, failure, mode, waitingFor,
                waitingFor == null ? null : FailureKind.STATIC_TABLES_TIMEOUT);
    }

    private Desired(Set<DeviceEntry> entries, Set<String> kinds, GroupPlan plan, Set<HostId> hosts,
                    GroupState outcome, String reason, Set<Endpoint> unreachable, FailureKind failure,
                    BitmapDecision mode, String waitingFor, FailureKind waitTimeout) {
        this.entries = ImmutableSet.copyOf(entries);
        this.kinds = ImmutableSet.copyOf(kinds);
        this.plan = plan;
        this.hosts = ImmutableSet.copyOf(hosts);
        this.outcome = outcome;
        this.reason = reason;
        this.unreachable = ImmutableSet.copyOf(unreachable);
        this.failure = failure;
        this.mode = mode;
        this.waitingFor = waitingFor;
        this.waitTimeout = waitTimeout;
    }

    /** The reason a BITMAP group waits in INSTALLING before its stamp is sent. */
    public static final String WAITING_FOR_STATIC = "waiting for the switches to acknowledge the static BITMAP tables";
    /** How the DEGRADED reason names receivers behind switches that do not hold the static tables yet. */
    public static final String WAITING_ON = "wait for switch(es) ";
    /** Reason of an ACK_AGGREGATION group whose aggregation point has not joined every receiver yet. */
    private static final String WAITING_FOR_AGGREGATION = "waiting for the aggregation point beside ";

    /** Compiles desired state: TREE through the tree compiler, BITMAP through the bitmap decision. */
    public static final class Compiler {
        private final Logger log = getLogger(getClass());
        private final GroupCompiler trees;
        private final BitmapReplication bitmaps;
        private final P4Replication p4;

        public Compiler(GroupCompiler trees, BitmapReplication bitmaps) {
            this(trees, bitmaps, null);
        }

        /**
         * @param trees   TREE groups
         * @param bitmaps BITMAP and AUTO groups on OpenFlow
         * @param p4      groups on a fabric of P4 switches, or null if there is none
         */
        public Compiler(GroupCompiler trees, BitmapReplication bitmaps, P4Replication p4) {
            this.trees = trees;
            this.bitmaps = bitmaps;
            this.p4 = p4;
        }

        /**
         * @param group     the group
         * @param view      the fabric
         * @param installed its record (a group whose tree cannot be computed keeps its index entry)
         * @return what the group should have
         */
        public Desired compile(P2mpGroup group, FabricView view, Programmed installed) {
            if (p4 != null && p4.serves(view)) {
                return onP4(p4.decide(group, view, installed), group, installed);
            }
            FabricSnapshot fabric = view.snapshot();
            BitmapDecision bd = bitmaps.decide(group, fabric);
            if (bd.choice.failure() != null) {
                return failed(bd, installed.treePlan(), Set.of(), FailureKind.MODE_UNAVAILABLE, bd.choice.failure(),
                        Set.of());
            }
            if (bd.choice.mode() == ReplicationMode.BITMAP) {
                Set<Endpoint> unreachable = bd.unreachable;
                String reason = unreachable.isEmpty() ? "" : unreachable.size() + " of "
                        + group.request().receivers().size() + " receivers have no bit in the fabric's bitmap"
                        + InstallAttempt.describe(unreachable);
                if (!bd.behindUnready.isEmpty()) {
                    // delivered to the others meanwhile; the group is decided again when the tables are in place
                    Set<Endpoint> all = new LinkedHashSet<>(unreachable);
                    all.addAll(bd.behindUnready);
                    unreachable = all;
                    reason = (reason.isEmpty() ? "" : reason + "; ") + bd.behindUnready.size() + " of "
                            + group.request().receivers().size() + " receivers " + WAITING_ON + bd.unready
                            + " to acknowledge the static BITMAP tables" + InstallAttempt.describe(bd.behindUnready);
                }
                GroupState outcome = unreachable.isEmpty() ? GroupState.INSTALLED : GroupState.DEGRADED;
                return new Desired(Set.of(bd.result.stamp()), Set.of(bd.result.stamp().kind()), GroupPlan.empty(),
                        bd.hosts, outcome, reason, unreachable, null, bd,
                        bitmaps.staticReady(fabric) ? null : WAITING_FOR_STATIC);
            }
            GroupCompiler.Result compiled;
            try {
                compiled = trees.compile(group, view);
            } catch (RuntimeException e) {
                log.warn("Compiling group {} failed", group.id(), e);
                return failed(bd, installed.treePlan(), Set.of(), FailureKind.COMPILE_ERROR,
                        "the tree computation failed; see the ONOS log", Set.of());
            }
            if (compiled.failed()) {
                return failed(bd, installed.treePlan(), compiled.hosts, compiled.kind,
                        compiled.failure + InstallAttempt.describe(compiled.unreachable), compiled.unreachable);
            }
            Set<Endpoint> unreachable = compiled.unreachable;
            Set<String> stalled = group.peer().map(p -> p.stalled()).orElse(Set.of());
            GroupState outcome = unreachable.isEmpty() && stalled.isEmpty() ? GroupState.INSTALLED
                    : GroupState.DEGRADED;
            String reason = unreachable.isEmpty() ? "" : unreachable.size() + " of "
                    + group.request().receivers().size() + " receivers unreachable"
                    + InstallAttempt.describe(unreachable);
            reason = withStalled(reason, stalled);
            Set<DeviceEntry> entries = Programmed.entriesOf(compiled.plan);
            String waiting = waitingForAggregation(group);
            return new Desired(entries, Set.of(TreeBranch.KIND), compiled.plan, compiled.hosts, outcome, reason,
                    unreachable, null, bd, waiting, waiting == null ? null : FailureKind.AGGREGATION_TIMEOUT);
        }

        // a P4 fabric: the source leaf's stamp, INSTALLED or DEGRADED with the receivers it cannot reach
        private static Desired onP4(P4Replication.Decision d, P2mpGroup group, Programmed installed) {
            if (d.stamp == null) {
                return failed(d.mode, installed.treePlan(), d.mode.hosts, d.kind, d.failure
                        + InstallAttempt.describe(d.unreachable), d.unreachable);
            }
            String reason = d.unreachable.isEmpty() ? "" : d.unreachable.size() + " of "
                    + group.request().receivers().size() + " receivers have no bit or no path in the P4 fabric"
                    + InstallAttempt.describe(d.unreachable);
            Set<Endpoint> unreachable = d.unreachable;
            if (!d.behindUnready.isEmpty()) {
                // delivered to the others meanwhile; decided again when the switches answered
                unreachable = new LinkedHashSet<>(d.unreachable);
                unreachable.addAll(d.behindUnready);
                reason = (reason.isEmpty() ? "" : reason + "; ") + d.behindUnready.size() + " of "
                        + group.request().receivers().size() + " receivers behind P4 switches that have not "
                        + "acknowledged their static state" + InstallAttempt.describe(d.behindUnready);
            }
            Set<String> stalled = group.peer().map(p -> p.stalled()).orElse(Set.of());
            reason = withStalled(reason, stalled);
            // the source leaf's aggregator joins the receivers once it holds the group's entries
            String joining = d.waiting == null ? waitingForAggregation(group) : null;
            return new Desired(Set.of(d.stamp), Set.of(P4Stamp.KIND), GroupPlan.empty(), d.mode.hosts,
                    unreachable.isEmpty() && stalled.isEmpty() ? GroupState.INSTALLED : GroupState.DEGRADED, reason,
                    unreachable, null, d.mode, joining == null ? d.waiting : joining,
                    joining != null ? FailureKind.AGGREGATION_TIMEOUT
                            : d.waiting == null ? null : FailureKind.STATIC_TABLES_TIMEOUT);
        }

        // the aggregation point (beside the sender, or the source leaf) left them out of the minimum: the sender goes
        // on without them
        private static String withStalled(String reason, Set<String> stalled) {
            if (stalled.isEmpty()) {
                return reason;
            }
            return (reason.isEmpty() ? "" : reason + "; ") + stalled.size() + " receiver(s) stopped "
                    + "acknowledging and no longer hold the sender back: " + String.join(", ", stalled);
        }

        // an ACK_AGGREGATION group delivers only once the aggregation point beside its sender has its receivers:
        // until then the sender's packets stop at the source leaf
        private static String waitingForAggregation(P2mpGroup group) {
            if (group.peer().isEmpty() || group.peer().get().waitingToJoin().isEmpty()) {
                return null;
            }
            Set<String> w = group.peer().get().waitingToJoin();
            return WAITING_FOR_AGGREGATION + group.request().source().host() + " to join " + w.size()
                    + " receiver(s)" + InstallAttempt.describe(w.stream().map(Endpoint::of)
                    .collect(java.util.stream.Collectors.toCollection(java.util.LinkedHashSet::new)));
        }

        private static Desired failed(BitmapDecision bd, GroupPlan keep, Set<HostId> hosts, FailureKind kind,
                                      String reason, Set<Endpoint> unreachable) {
            // a group that cannot be served has its entries removed; the index keeps what it had, so that the
            // fabric change that lets it be served again reaches it
            return new Desired(Set.of(), Set.of(), keep, hosts, GroupState.FAILED, reason, unreachable, kind, bd,
                    null);
        }
    }
}
