package org.mcast4ai.impl.p4;

import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.onosproject.net.DeviceId;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;

/**
 * Make before break for what comes back to a P4 fabric. A switch back after a failure has empty tables, and a link
 * back is a path its ends' tables do not hold yet: a switch that sent packets through either at once would lose
 * them. So what comes back joins first: a switch back gets the state of the whole fabric while the others keep
 * the state of the fabric without its links, until it acknowledged its own; a link back is written to its two ends
 * first, the others taking it into use once both acknowledged. Nothing joins on the first run (everything is
 * written at once, nothing carries traffic yet) or after a restart (the switches hold their state). Not
 * thread-safe: the P4 fabric loop's own.
 */
final class P4Joining {
    private final Set<DeviceId> switches = new HashSet<>();
    // undirected links by their ends' names, the smaller first
    private final Set<List<String>> links = new HashSet<>();
    private Set<DeviceId> lastTargets;
    private Set<List<String>> lastLinks;

    /**
     * Takes a run's switches and fabric: what came since the last run joins.
     *
     * @param targets the P4 switches the run programs
     * @param fabric  the fabric it plans for
     */
    void observe(Set<DeviceId> targets, FabricSnapshot fabric) {
        Set<List<String>> now = links(fabric);
        if (lastTargets != null) {
            targets.stream().filter(d -> !lastTargets.contains(d)).forEach(switches::add);
            for (List<String> l : now) {
                // a switch's links join with it
                if (!lastLinks.contains(l) && !switches.contains(DeviceId.deviceId(l.get(0)))
                        && !switches.contains(DeviceId.deviceId(l.get(1)))) {
                    links.add(l);
                }
            }
        }
        switches.retainAll(targets);
        links.retainAll(now);
        lastTargets = Set.copyOf(targets);
        lastLinks = now;
    }

    /**
     * @param fabric  the fabric
     * @param targets the switches to plan
     * @param planner plans the given switches on a fabric
     * @return every target's state: a joining switch's and a joining link's ends' on the fabric with them, the
     *         others' on the fabric without them
     */
    Map<DeviceId, P4FabricPlanner.SwitchState> plan(FabricSnapshot fabric, Set<DeviceId> targets,
            BiFunction<FabricSnapshot, Set<DeviceId>, Map<DeviceId, P4FabricPlanner.SwitchState>> planner) {
        if (switches.isEmpty() && links.isEmpty()) {
            return planner.apply(fabric, targets);
        }
        Set<String> away = new HashSet<>();
        switches.forEach(d -> away.add(d.toString()));
        Set<DeviceId> ends = new HashSet<>();
        links.forEach(l -> l.forEach(n -> ends.add(DeviceId.deviceId(n))));
        ends.retainAll(targets);
        Set<DeviceId> serving = new HashSet<>(targets);
        serving.removeAll(switches);
        serving.removeAll(ends);
        Set<DeviceId> joiningSwitches = new HashSet<>(switches);
        joiningSwitches.retainAll(targets);
        Map<DeviceId, P4FabricPlanner.SwitchState> out = new LinkedHashMap<>();
        if (!serving.isEmpty()) {
            FabricSnapshot without = FabricGenerators.withoutLinks(fabric,
                    (a, b) -> away.contains(a) || away.contains(b) || links.contains(key(a, b)));
            out.putAll(planner.apply(without, serving));
        }
        if (!ends.isEmpty()) {
            FabricSnapshot withLinks = FabricGenerators.withoutLinks(fabric,
                    (a, b) -> away.contains(a) || away.contains(b));
            out.putAll(planner.apply(withLinks, ends));
        }
        if (!joiningSwitches.isEmpty()) {
            out.putAll(planner.apply(fabric, joiningSwitches));
        }
        return out;
    }

    /**
     * @param unready the targets that have not acknowledged their state
     * @param targets the P4 switches (the others' ends count as answered: nothing to wait for)
     * @return true if something joined: the others may now forward through it
     */
    boolean answered(Set<DeviceId> unready, Set<DeviceId> targets) {
        boolean s = switches.removeIf(d -> !unready.contains(d));
        boolean l = links.removeIf(k -> k.stream().map(DeviceId::deviceId)
                .noneMatch(d -> targets.contains(d) && unready.contains(d)));
        return s || l;
    }

    /** @return the joining switches, and links as "a/b", sorted */
    List<String> describe() {
        Set<String> out = new TreeSet<>();
        switches.forEach(d -> out.add(d.toString()));
        links.forEach(l -> out.add(l.get(0) + "/" + l.get(1)));
        return new ArrayList<>(out);
    }

    private static Set<List<String>> links(FabricSnapshot fabric) {
        Set<List<String>> out = new HashSet<>();
        for (int s = 0; s < fabric.switchCount(); s++) {
            for (int e = fabric.linkStart(s); e < fabric.linkStart(s + 1); e++) {
                out.add(key(fabric.switchName(s), fabric.switchName(fabric.linkTo(e))));
            }
        }
        return out;
    }

    private static List<String> key(String a, String b) {
        return a.compareTo(b) <= 0 ? List.of(a, b) : List.of(b, a);
    }
}
