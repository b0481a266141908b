package org.mcast4ai.impl.bitmap;

import java.util.concurrent.CompletionException;
import java.util.function.Predicate;
import org.mcast4ai.engine.FabricSnapshot;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupEvent;
import org.onosproject.net.group.GroupListener;
import org.onosproject.net.group.GroupService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Programs BITMAP replication on OpenFlow 1.3 switches: the static tables of every switch (once per fabric,
 * re-derived when the topology changes, {@link #applyStatic}) and each group's stamp rules on its source leaf
 * ({@link #program}, {@link #remove}) with the same acknowledgement path as the TREE programmer:
 * {@link FlowRuleService#apply(FlowRuleOperations)} with a {@link FlowRuleOperationsContext} that ONOS
 * completes on the switches' barrier replies.
 *
 * <p>Static egress groups go through {@link GroupService}. A new egress group is not waited for: ONOS sends its
 * group-mod at once, the rules that name it go down the same switch connection after it, and a switch refuses a
 * rule naming a group it lacks, so the rules' acknowledgement proves the group is there (where that order does not
 * hold, the refused rules fail the sync and it is tried again). ONOS reports a group ADDED only at its next group
 * statistics poll (10 s), which a host on a port the fabric never had would otherwise wait for. A group whose
 * buckets change is waited for until ONOS reports it updated. A switch's first sync after this instance starts
 * sends its rules at once (after a restart they are on the switch and must reach ONOS's store before its first
 * flow poll). A switch back from a disconnection may have lost its groups while ONOS's store still lists them
 * ADDED: its rules wait until ONOS's group audit has found them there or sent them again.
 */
public final class OpenFlowBitmapProgrammer {
    private static final Logger log = LoggerFactory.getLogger(OpenFlowBitmapProgrammer.class);
    private final FlowRuleService flowRuleService;
    private final GroupService groupService;
    private final ApplicationId appId;
    private final BitmapPlanner planner;

    private final Predicate<DeviceId> connected;
    private Map<DeviceId, BitmapPlanner.DeviceEntries> installed = Map.of();
    private Map<DeviceId, BitmapPlanner.DeviceEntries> pending = Map.of();
    private final Set<DeviceId> dirty = new HashSet<>();
    private CompletableFuture<Void> lastStatic = CompletableFuture.completedFuture(null);
    // the layout of the last applyStatic every connected switch acknowledged: what packets follow now
    private BitmapLayout inPlace;

    /**
     * @param flowRuleService flow rules
     * @param groupService    groups
     * @param appId           owning application
     * @param entryTable      table where packets enter (the TREE programmer's)
     * @param chainBase       first table of the replication chain
     */
    public OpenFlowBitmapProgrammer(FlowRuleService flowRuleService, GroupService groupService,
                                    ApplicationId appId, int entryTable, int chainBase) {
        this(flowRuleService, groupService, appId, entryTable, chainBase, d -> true);
    }

    /**
     * @param flowRuleService flow rules
     * @param groupService    groups
     * @param appId           owning application
     * @param entryTable      table where packets enter (the TREE programmer's)
     * @param chainBase       first table of the replication chain
     * @param connected       which switches are connected (the others are left out of every sync)
     */
    public OpenFlowBitmapProgrammer(FlowRuleService flowRuleService, GroupService groupService,
                                    ApplicationId appId, int entryTable, int chainBase,
                                    Predicate<DeviceId> connected) {
        this.connected = connected;
        this.flowRuleService = flowRuleService;
        this.groupService = groupService;
        this.appId = appId;
        this.planner = new BitmapPlanner(appId, entryTable, chainBase);
    }

    /** @return the planner (tables and priorities in use) */
    public BitmapPlanner planner() {
        return planner;
    }

    /**
     * Capacity check for the manager: can this fabric use BITMAP?
     *
     * @param layout the fabric's layout
     * @return why not, empty if it fits
     */
    public static Optional<String> whyNot(BitmapLayout layout) {
        return layout.whyNot();
    }

    /**
     * What a group's packets follow now: the layout the switches' static tables were last brought in line with
     * (every connected switch acknowledged it), not the current fabric's, which the tables follow only once
     * acknowledged (after a link comes back, for a few seconds, the current layout already uses it and the
     * tables do not).
     *
     * @return that layout, or null before the first or after {@link #removeStatic}
     */
    public synchronized BitmapLayout layoutInPlace() {
        return inPlace;
    }

    private synchronized void inPlace(BitmapLayout layout) {
        inPlace = layout;
    }

    /** @return the static entries the switches hold after the last completed {@link #applyStatic} */
    public synchronized Map<DeviceId, BitmapPlanner.DeviceEntries> installedStatic() {
        return installed;
    }

    /**
     * Brings every switch's static tables in line with a layout: adds missing egress groups, then (per
     * device, once its changed groups are updated) one flow batch adding new or changed rules and, in a second stage,
     * removing stale ones. Egress groups stay while their switch is connected (only {@link #removeStatic} takes
     * them away). Calls are serialized: a call waits for the previous one.
     *
     * @param layout the current fabric's layout (must fit)
     * @return completes when the switches acknowledged everything, exceptionally with the reason otherwise
     */
    public synchronized CompletableFuture<Void> applyStatic(BitmapLayout layout) {
        if (!layout.fits()) {
            return CompletableFuture.failedFuture(new IllegalStateException(layout.whyNot().orElse("")));
        }
        Map<DeviceId, BitmapPlanner.DeviceEntries> target = planner.staticEntries(layout);
        CompletableFuture<Void> next = lastStatic.handle((v, e) -> null)
                .thenCompose(x -> sync(target, false, layout.fabric()))
                .thenRun(() -> inPlace(layout));
        lastStatic = next;
        return next;
    }

    /**
     * Removes every static entry (the fabric stopped fitting, so no group can use them): the flow rules first,
     * then the egress groups they point to. Serialized with {@link #applyStatic}.
     *
     * @return completes when the switches acknowledged the removal of the rules
     */
    public synchronized CompletableFuture<Void> removeStatic() {
        CompletableFuture<Void> next = lastStatic.handle((v, e) -> null).thenCompose(x -> sync(Map.of(), true, null))
                .thenRun(() -> inPlace(null));
        lastStatic = next;
        return next;
    }

    // Every device on its own: a switch that is not connected is left out (its record stays; the switch is brought
    // in line when it is back), a device whose sync failed is marked dirty and gets everything again next time,
    // and what is sent is checked against ONOS's stores, not only against the record.
    // dropGroups: the egress groups go too (the fabric stopped fitting); otherwise a switch keeps them while
    // connected, even when a target leaves it out (one planned while it was away, or with none of its hosts)
    // fabric: what the target follows, for the order of the up rules (null: no order)
    private CompletableFuture<Void> sync(Map<DeviceId, BitmapPlanner.DeviceEntries> target, boolean dropGroups,
                                         FabricSnapshot fabric) {
        Map<DeviceId, BitmapPlanner.DeviceEntries> before;
        Set<DeviceId> unsure;
        synchronized (this) {
            before = installed;
            unsure = Set.copyOf(dirty);
            pending = target;
        }
        Set<DeviceId> devices = new LinkedHashSet<>(before.keySet());
        devices.addAll(target.keySet());
        List<CompletableFuture<Void>> all = new ArrayList<>();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        UpOrder order = new UpOrder(planner.chainBase());
        for (DeviceId d : devices) {
            if (!connected.test(d)) {
                // what it holds when it is back is unknown (a switch that restarted comes back empty)
                synchronized (this) {
                    dirty.add(d);
                }
                continue;
            }
            BitmapPlanner.DeviceEntries was = before.get(d);
            BitmapPlanner.DeviceEntries now = target.get(d);
            all.add(syncDevice(d, was, now, unsure.contains(d), dropGroups, order).handle((v, e) -> {
                synchronized (this) {
                    Map<DeviceId, BitmapPlanner.DeviceEntries> next = new LinkedHashMap<>(installed);
                    if (e == null) {
                        BitmapPlanner.DeviceEntries held = dropGroups ? now : withGroupsOf(now, was);
                        if (held == null) {
                            next.remove(d);
                            unconfirmed.keySet().removeIf(k -> k.startsWith(d + "|"));
                        } else {
                            next.put(d, held);
                        }
                        dirty.remove(d);
                    } else {
                        // partly applied, perhaps: the switch may hold old and new entries; all of the next
                        // target is sent again and whatever of both it does not keep is removed
                        dirty.add(d);
                        BitmapPlanner.DeviceEntries both = union(was, now);
                        if (both != null) {
                            next.put(d, both);
                        }
                        errors.add(e);
                    }
                    installed = Collections.unmodifiableMap(next);
                }
                return null;
            }));
        }
        order.allSent(fabric);
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).whenComplete((v, e) -> {
            synchronized (this) {
                pending = Map.of();
            }
            if (errors.isEmpty()) {
                done.complete(null);
            } else {
                Throwable first = errors.get(0);
                done.completeExceptionally(first instanceof CompletionException
                        && first.getCause() != null ? first.getCause() : first);
            }
        });
        return done;
    }

    private CompletableFuture<Void> syncDevice(DeviceId device, BitmapPlanner.DeviceEntries was,
                                               BitmapPlanner.DeviceEntries now, boolean unsure,
                                               boolean dropGroups, UpOrder order) {
        Map<String, GroupDescription> oldGroups = new LinkedHashMap<>();
        if (was != null) {
            was.groups().forEach(g -> oldGroups.put(groupKey(g), g));
        }
        List<GroupDescription> newGroups = new ArrayList<>();
        Set<String> keep = new HashSet<>();
        for (GroupDescription g : now == null ? List.<GroupDescription>of() : now.groups()) {
            keep.add(groupKey(g));
            GroupDescription old = oldGroups.get(groupKey(g));
            if (unsure || old == null || !old.buckets().equals(g.buckets())
                    || groupService.getGroup(device, g.appCookie()) == null) {
                newGroups.add(g);
            }
        }
        // an egress group no rule names any more stays: the port may get a host back (a leaf is back before its
        // hosts are), and ONOS's group store ignores an add for a key it still holds PENDING_DELETE, so removing
        // and adding one key again can leave the switch without it
        List<GroupDescription> staleGroups = new ArrayList<>();
        if (dropGroups) {
            staleGroups.addAll(oldGroups.values());
        }
        Map<RuleKey, FlowRule> oldRules = new LinkedHashMap<>();
        if (was != null) {
            was.rules().forEach(r -> oldRules.put(new RuleKey(r), r));
        }
        Set<RuleKey> keepRules = new HashSet<>();
        List<FlowRule> add = new ArrayList<>();
        for (FlowRule r : now == null ? List.<FlowRule>of() : now.rules()) {
            RuleKey key = new RuleKey(r);
            keepRules.add(key);
            FlowRule old = oldRules.get(key);
            if (unsure || old == null || !old.treatment().equals(r.treatment()) || !held(r)) {
                add.add(r);
            }
        }
        List<FlowRule> stale = new ArrayList<>();
        oldRules.forEach((k, r) -> {
            if (!keepRules.contains(k)) {
                stale.add(r);
            }
        });
        log.debug("static sync {}{}: {} group(s) to add, {} rule(s) to add, {} to remove, {} stale group(s)", device,
                unsure ? " (unsure)" : "", newGroups.size(), add.size(), stale.size(), staleGroups.size());
        Set<String> sent = new HashSet<>();
        EgressGroups watch = addGroups(newGroups, sent);
        CompletableFuture<Void> groups = watch.ready.thenCombine(confirmed(device, now, sent), (a, b) -> (Void) null);
        // nothing recorded for the switch (this instance has just started): after a restart the switch holds the
        // egress groups and these rules already, and ONOS's first flow poll removes the rules its store lacks, so
        // they go at once; a switch without the groups refuses them and the sync is tried again
        CompletableFuture<Void> gate = was == null ? CompletableFuture.completedFuture(null) : groups;
        // a switch with nothing recorded, or back from a disconnection, gets everything in one round
        List<FlowRule> up = was == null || unsure ? List.of() : order.takeUp(add);
        CompletableFuture<Void> flows;
        if (up.isEmpty()) {
            flows = gate.thenCompose(x -> applyFlows(add, stale));
            order.sent(device, !add.isEmpty(), flows, up);
        } else {
            CompletableFuture<Void> first = gate.thenCompose(x -> applyFlows(add, List.of()));
            order.sent(device, !add.isEmpty(), first, up);
            flows = first.thenCompose(x -> order.gate()).thenCompose(x -> applyFlows(up, stale));
        }
        // a switch that refused a group refuses the rules that name it too: the group's refusal is the reason
        CompletableFuture<Void> explained = flows.handle((v, e) -> e == null
                ? CompletableFuture.<Void>completedFuture(null)
                : watch.refused.isCompletedExceptionally() ? watch.refused : CompletableFuture.<Void>failedFuture(e))
                .thenCompose(f -> f);
        CompletableFuture<Void> all = explained.thenCombine(groups, (a, b) -> (Void) null);
        all.whenComplete((v, e) -> watch.close());
        return all
                .thenRun(() -> {
                    for (GroupDescription g : staleGroups) {
                        groupService.removeGroup(g.deviceId(), g.appCookie(), appId);
                    }
                });
    }

    private static final long RESENT_POLL_MS = 50;
    private static final long RESENT_WAIT_MS = 5000;

    // Egress groups of switches back from a disconnection: ONOS's store still lists them ADDED, but the switch
    // may have lost them, and a rule naming a group the switch lacks is refused. Each is unconfirmed until ONOS's
    // group audit has found it on the switch (GROUP_ADDED or GROUP_UPDATED) or sent it again (PENDING_ADD_RETRY;
    // the rules sent after it on the same connection are then accepted).
    private final Map<String, CompletableFuture<Void>> unconfirmed = new ConcurrentHashMap<>();
    private final GroupListener confirmations = event -> {
        if (event.type() == GroupEvent.Type.GROUP_ADDED || event.type() == GroupEvent.Type.GROUP_UPDATED) {
            Group g = event.subject();
            confirm(g.deviceId() + "|" + g.appCookie());
        }
    };
    private boolean listening;

    private void confirm(String key) {
        CompletableFuture<Void> f = unconfirmed.remove(key);
        if (f != null) {
            f.complete(null);
        }
        synchronized (this) {
            if (listening && unconfirmed.isEmpty()) {
                listening = false;
                groupService.removeListener(confirmations);
            }
        }
    }

    // Completes when every one of the device's groups that is in the target, left to ONOS's store (not sent
    // again: ADDED with the same buckets) and unconfirmed has been confirmed; exceptionally after RESENT_WAIT_MS,
    // when the sync is tried again.
    private CompletableFuture<Void> confirmed(DeviceId device, BitmapPlanner.DeviceEntries target,
                                             Set<String> sent) {
        ScheduledExecutorService t = timer;
        if (t == null || unconfirmed.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<GroupDescription> waiting = new ArrayList<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (GroupDescription g : target == null ? List.<GroupDescription>of() : target.groups()) {
            CompletableFuture<Void> f = unconfirmed.get(groupKey(g));
            if (f != null && !sent.contains(groupKey(g))) {
                waiting.add(g);
                all.add(f);
            }
        }
        if (waiting.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = CompletableFuture.allOf(all.toArray(new CompletableFuture[0]));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RESENT_WAIT_MS);
        Runnable[] poll = new Runnable[1];
        poll[0] = () -> {
            if (done.isDone()) {
                return;
            }
            for (GroupDescription g : waiting) {
                Group held = groupService.getGroup(g.deviceId(), g.appCookie());
                if (held == null) {
                    // gone from ONOS's store: the next sync adds it
                    done.completeExceptionally(new IllegalStateException("egress group " + groupKey(g)
                            + " left ONOS's group store"));
                    return;
                }
                if (held.state() == Group.GroupState.PENDING_ADD
                        || held.state() == Group.GroupState.PENDING_ADD_RETRY) {
                    // sent again
                    confirm(groupKey(g));
                }
            }
            if (done.isDone()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                done.completeExceptionally(new IllegalStateException("switch " + device + " did not confirm its "
                        + "egress groups within " + RESENT_WAIT_MS + " ms"));
                return;
            }
            try {
                t.schedule(poll[0], RESENT_POLL_MS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException stopped) {
                done.completeExceptionally(stopped);
            }
        };
        poll[0].run();
        return done;
    }

    private volatile ScheduledExecutorService timer;

    /**
     * @param timer where the wait for a returned switch's egress groups polls ONOS's group store (null: no wait;
     *              the switch refuses rules naming a group it lost and the sync is tried again)
     */
    public void setTimer(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /**
     * @return connected switches whose static tables are not known to be in place: back from a disconnection
     *         and not acknowledged since, or whose last sync failed
     */
    public synchronized Set<DeviceId> notInPlace() {
        if (dirty.isEmpty()) {
            return Set.of();
        }
        Set<DeviceId> out = new HashSet<>();
        for (DeviceId d : dirty) {
            if (connected.test(d)) {
                out.add(d);
            }
        }
        return out;
    }

    private static BitmapPlanner.DeviceEntries union(BitmapPlanner.DeviceEntries a, BitmapPlanner.DeviceEntries b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        Map<String, GroupDescription> groups = new LinkedHashMap<>();
        a.groups().forEach(g -> groups.put(groupKey(g), g));
        b.groups().forEach(g -> groups.put(groupKey(g), g));
        Map<RuleKey, FlowRule> rules = new LinkedHashMap<>();
        a.rules().forEach(r -> rules.put(new RuleKey(r), r));
        b.rules().forEach(r -> rules.put(new RuleKey(r), r));
        return new BitmapPlanner.DeviceEntries(new ArrayList<>(groups.values()), new ArrayList<>(rules.values()));
    }

    // the target's entries plus the egress groups kept from before
    private static BitmapPlanner.DeviceEntries withGroupsOf(BitmapPlanner.DeviceEntries now,
                                                            BitmapPlanner.DeviceEntries was) {
        if (was == null || was.groups().isEmpty()) {
            return now;
        }
        if (now == null) {
            return new BitmapPlanner.DeviceEntries(was.groups(), List.of());
        }
        Map<String, GroupDescription> groups = new LinkedHashMap<>();
        now.groups().forEach(g -> groups.put(groupKey(g), g));
        was.groups().forEach(g -> groups.putIfAbsent(groupKey(g), g));
        return groups.size() == now.groups().size() ? now
                : new BitmapPlanner.DeviceEntries(new ArrayList<>(groups.values()), now.rules());
    }

    private boolean held(FlowRule r) {
        FlowEntry e = flowRuleService.getFlowEntry(r);
        return e != null && e.state() != FlowEntry.FlowEntryState.FAILED
                && e.state() != FlowEntry.FlowEntryState.REMOVED;
    }

    /**
     * A switch connected again: whatever the record says it holds is sent again by the next
     * {@link #applyStatic}, and only its acknowledgement puts the tables in place.
     *
     * @param device the switch
     */
    public synchronized void deviceReturned(DeviceId device) {
        dirty.add(device);
        BitmapPlanner.DeviceEntries held = installed.get(device);
        if (held == null || held.groups().isEmpty()) {
            return;
        }
        held.groups().forEach(g -> unconfirmed.putIfAbsent(groupKey(g), new CompletableFuture<>()));
        if (!listening) {
            listening = true;
            groupService.addListener(confirmations);
        }
    }

    /** Stops listening to ONOS's group events (the application is stopping). */
    public synchronized void close() {
        if (listening) {
            listening = false;
            groupService.removeListener(confirmations);
        }
    }

    /**
     * @return the static flow rules that are on the switches or on their way there (the record and the sync
     *         in progress), so that an audit never takes one of them for an orphan
     */
    public synchronized Set<FlowId> staticRuleIds() {
        Set<FlowId> ids = new HashSet<>();
        installed.values().forEach(d -> d.rules().forEach(r -> ids.add(r.id())));
        pending.values().forEach(d -> d.rules().forEach(r -> ids.add(r.id())));
        return ids;
    }

    // sent: filled with the keys of the groups that go to the switch (the others are left to ONOS's store)
    private EgressGroups addGroups(List<GroupDescription> groups, Set<String> sent) {
        return EgressGroups.send(groupService, appId, groups, sent);
    }

    private CompletableFuture<Void> applyFlows(List<FlowRule> add, List<FlowRule> stale) {
        if (add.isEmpty() && stale.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        add.forEach(ops::add);
        if (!add.isEmpty() && !stale.isEmpty()) {
            ops.newStage();
        }
        stale.forEach(ops::remove);
        flowRuleService.apply(ops.build(new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations o) {
                done.complete(null);
            }

            @Override
            public void onError(FlowRuleOperations o) {
                Set<DeviceId> devices = new LinkedHashSet<>();
                o.stages().forEach(s -> s.forEach(op -> devices.add(op.rule().deviceId())));
                done.completeExceptionally(new IllegalStateException(
                        "switch(es) " + devices + " refused the static BITMAP tables"));
            }
        }));
        return done;
    }

    static String groupKey(GroupDescription g) {
        return g.deviceId() + "|" + g.appCookie();
    }
}
