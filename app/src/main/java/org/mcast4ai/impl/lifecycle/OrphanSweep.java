package org.mcast4ai.impl.lifecycle;

import org.mcast4ai.impl.store.P2mpGroupStore;
import java.util.HashMap;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.impl.bitmap.OpenFlowBitmapProgrammer;
import org.mcast4ai.impl.program.DeviceEntry;
import org.mcast4ai.impl.program.FlowRuleProgrammer;
import org.mcast4ai.impl.program.GroupWriter;
import org.mcast4ai.impl.program.Programmed;
import org.mcast4ai.impl.program.Programmer;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupService;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.function.Supplier;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Finds the flow rules ONOS holds under the app's id that no group's record and no static table needs, and the
 * ONOS groups that group entries hold and no record needs (a P4 stamp's multicast group), (left by
 * a crash between two steps, a purge while a switch was gone, a takeover) and removes them. ONOS removes what is
 * on a switch and not in its store; this removes what is in its store and not in the app's records. Reads the
 * flow store first and the records second: a rule is written into its group's record before it is sent, so a
 * rule being installed is never taken for an orphan.
 */
public final class OrphanSweep {
    private final Logger log = getLogger(getClass());

    private final P2mpGroupStore store;
    private final FlowRuleService flows;
    private final ApplicationId appId;
    private final Predicate<DeviceId> connected;
    private final Map<String, Programmer> programmers;
    private final OpenFlowBitmapProgrammer bitmap;
    private final LongAdder removed = new LongAdder();
    // the app's ONOS groups: those a group's entries hold (a P4 stamp's multicast group) are swept too
    private GroupService groups;
    private Supplier<Iterable<DeviceId>> devices = List::of;

    public OrphanSweep(P2mpGroupStore store, FlowRuleService flows, ApplicationId appId, Predicate<DeviceId> connected,
                       Map<String, Programmer> programmers, OpenFlowBitmapProgrammer bitmap) {
        this.store = store;
        this.flows = flows;
        this.appId = appId;
        this.connected = connected;
        this.programmers = programmers;
        this.bitmap = bitmap;
    }

    /**
     * Sweeps the app's ONOS groups that group entries hold as well (those a {@link GroupWriter} writes).
     *
     * @param groupService ONOS's group service
     * @param available    the connected devices
     * @return this sweep
     */
    public OrphanSweep withGroups(GroupService groupService, Supplier<Iterable<DeviceId>> available) {
        this.groups = groupService;
        this.devices = available;
        return this;
    }

    /** @return rules removed as orphans so far */
    public long removedCount() {
        return removed.sum();
    }

    /**
     * Removes the app's rules that nothing needs, on connected switches.
     *
     * @return how many were removed now
     */
    public int sweep() {
        List<FlowEntry> mine = new ArrayList<>();
        Iterable<FlowEntry> held = flows.getFlowEntriesById(appId);
        if (held != null) {
            held.forEach(mine::add);
        }
        // ONOS's stores first, the records second (see above): groups too
        Map<DeviceId, List<Group>> heldGroups = heldGroups();
        if (mine.isEmpty() && heldGroups.isEmpty()) {
            return 0;
        }
        Set<FlowId> needed = needed();
        List<FlowRule> orphans = new ArrayList<>();
        for (FlowEntry e : mine) {
            if (!needed.contains(e.id()) && connected.test(e.deviceId())
                    && e.state() != FlowEntry.FlowEntryState.PENDING_REMOVE) {
                orphans.add(e);
            }
        }
        int n = orphans.size();
        if (!orphans.isEmpty()) {
            Set<DeviceId> on = new HashSet<>();
            orphans.forEach(r -> on.add(r.deviceId()));
            log.info("Removing {} rule(s) of the app that no group needs, on {}", orphans.size(), on);
            flows.removeFlowRules(orphans.toArray(new FlowRule[0]));
        }
        if (!heldGroups.isEmpty()) {
            Set<List<Object>> neededGroups = neededGroups();
            heldGroups.forEach((d, gs) -> gs.forEach(g -> {
                if (!neededGroups.contains(List.of(d, g.appCookie())) && g.state() != Group.GroupState.PENDING_DELETE) {
                    log.info("Removing group {} of the app on {}: no group needs it", g.id(), d);
                    groups.removeGroup(d, g.appCookie(), appId);
                }
            }));
        }
        removed.add(n);
        return n;
    }

    // the app's groups of the kinds group entries hold, on connected devices
    private Map<DeviceId, List<Group>> heldGroups() {
        Map<DeviceId, List<Group>> out = new HashMap<>();
        if (groups == null) {
            return out;
        }
        for (DeviceId d : devices.get()) {
            if (!connected.test(d)) {
                continue;
            }
            Iterable<Group> on = groups.getGroups(d, appId);
            if (on == null) {
                continue;
            }
            for (Group g : on) {
                if (g.appCookie() != null && programmers.values().stream().anyMatch(p -> p instanceof GroupWriter
                        && ((GroupWriter) p).writes(g.appCookie()))) {
                    out.computeIfAbsent(d, x -> new ArrayList<>()).add(g);
                }
            }
        }
        return out;
    }

    private Set<List<Object>> neededGroups() {
        Set<List<Object>> keys = new HashSet<>();
        for (P2mpGroup g : store.getAll()) {
            Programmed record = store.programmed(g.id());
            for (Set<DeviceEntry> entries : List.of(record.installed(), record.uncertain())) {
                for (DeviceEntry e : entries) {
                    Programmer p = programmers.get(e.kind());
                    if (p instanceof GroupWriter) {
                        ((GroupWriter) p).groupKeys(g, e).forEach(k -> keys.add(List.of(e.device(), k)));
                    }
                }
            }
        }
        return keys;
    }

    private Set<FlowId> needed() {
        Set<FlowId> ids = new HashSet<>();
        Map<Long, P2mpGroup> groups = new HashMap<>();
        store.getAll().forEach(g -> groups.put(g.id().value(), g));
        for (P2mpGroup g : groups.values()) {
            Programmed record = store.programmed(g.id());
            for (Set<DeviceEntry> entries : List.of(record.installed(), record.uncertain())) {
                for (DeviceEntry e : entries) {
                    Programmer p = programmers.get(e.kind());
                    if (p instanceof FlowRuleProgrammer) {
                        ids.addAll(((FlowRuleProgrammer) p).flowIds(g, e));
                    }
                }
            }
        }
        if (bitmap != null) {
            ids.addAll(bitmap.staticRuleIds());
        }
        return ids;
    }
}
