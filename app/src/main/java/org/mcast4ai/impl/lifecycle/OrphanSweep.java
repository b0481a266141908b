package org.mcast4ai.impl.lifecycle;

import org.mcast4ai.impl.store.P2mpGroupStore;
import java.util.HashMap;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.impl.bitmap.OpenFlowBitmapProgrammer;
import org.mcast4ai.impl.program.DeviceEntry;
import org.mcast4ai.impl.program.FlowRuleProgrammer;
import org.mcast4ai.impl.program.Programmed;
import org.mcast4ai.impl.program.Programmer;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Finds the flow rules ONOS holds under the app's id that no group's record and no static table needs (left by
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

    public OrphanSweep(P2mpGroupStore store, FlowRuleService flows, ApplicationId appId, Predicate<DeviceId> connected,
                       Map<String, Programmer> programmers, OpenFlowBitmapProgrammer bitmap) {
        this.store = store;
        this.flows = flows;
        this.appId = appId;
        this.connected = connected;
        this.programmers = programmers;
        this.bitmap = bitmap;
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
        if (mine.isEmpty()) {
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
        if (orphans.isEmpty()) {
            return 0;
        }
        Set<DeviceId> on = new HashSet<>();
        orphans.forEach(r -> on.add(r.deviceId()));
        log.info("Removing {} rule(s) of the app that no group needs, on {}", orphans.size(), on);
        flows.removeFlowRules(orphans.toArray(new FlowRule[0]));
        removed.add(orphans.size());
        return orphans.size();
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
