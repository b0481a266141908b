package org.mcast4ai.impl;

import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.impl.lifecycle.GroupScheduler;
import org.mcast4ai.impl.p4.P4FabricManager;

import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The group manager's reconcile loop as the P4 fabric's static state sees it: runs on the loop's fabric lane, the
 * groups whose entries P4 leaves hold, and the groups decided again when the state changed under them.
 */
final class P4FabricLane implements P4FabricManager.Loop {
    private final Supplier<GroupScheduler> scheduler;
    private final Supplier<ScheduledExecutorService> timer;
    private final Supplier<Collection<P2mpGroup>> groups;
    private final Function<P2mpGroupId, Optional<AggregationContext>> aggregations;
    private final BiConsumer<P2mpGroupId, AggregationReport> reports;

    /**
     * @param scheduler    the loop's scheduler (null while the manager is stopped)
     * @param timer        the manager's timer
     * @param groups       every group
     * @param aggregations an ACK_AGGREGATION group's context
     * @param reports      takes what a source leaf's aggregator reports
     */
    P4FabricLane(Supplier<GroupScheduler> scheduler, Supplier<ScheduledExecutorService> timer,
                 Supplier<Collection<P2mpGroup>> groups,
                 Function<P2mpGroupId, Optional<AggregationContext>> aggregations,
                 BiConsumer<P2mpGroupId, AggregationReport> reports) {
        this.scheduler = scheduler;
        this.timer = timer;
        this.groups = groups;
        this.aggregations = aggregations;
        this.reports = reports;
    }

    @Override
    public void later(Runnable work, long delayMs) {
        GroupScheduler s = scheduler.get();
        ScheduledExecutorService t = timer.get();
        if (s == null) {
            return;
        }
        if (delayMs <= 0 || t == null) {
            s.later(work);
        } else {
            t.schedule(() -> s.later(work), delayMs, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public Collection<P2mpGroup> groups() {
        return groups.get();
    }

    @Override
    public Optional<AggregationContext> aggregation(P2mpGroupId id) {
        return aggregations.apply(id);
    }

    @Override
    public void report(P2mpGroupId id, AggregationReport report) {
        reports.accept(id, report);
    }

    @Override
    public void stateChanged(String why) {
        GroupScheduler s = scheduler.get();
        if (s != null) {
            s.later(() -> s.fabricStateChanged(why));
        }
    }
}
