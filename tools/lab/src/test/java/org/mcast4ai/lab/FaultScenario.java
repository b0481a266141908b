package org.mcast4ai.lab;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** One fault of the suite: what it does, how it is repaired, and the truth to judge the groups against. */
final class FaultScenario {
    static final double SECONDS = 7.0;
    static final long FAULT_AT_MS = 1500;
    static final long RESTORE_AT_MS = 4000;
    static final long REROUTE_TARGET_MS = 500;

    final String name;
    final Runnable fault;
    final Runnable restore;
    final Map<String, Set<String>> unreachable = new LinkedHashMap<>();
    // source of the group gone: the group cannot deliver and must not say INSTALLED
    final Set<String> sourceGone = new TreeSet<>();
    boolean routable = true;
    // the controller is down during the fault: nothing to ask it
    boolean controllerDown;
    // state deleted around the app: repaired by the audit, not rerouted
    long targetMs = REROUTE_TARGET_MS;
    double seconds = SECONDS;
    long faultAtMs = FAULT_AT_MS;
    long restoreAtMs = RESTORE_AT_MS;
    // problems the fault itself found (the churn's own groups)
    final List<String> own = new java.util.concurrent.CopyOnWriteArrayList<>();
    // what the fault did, for the report
    volatile String note = "";

    FaultScenario lasting(double streamSeconds, long restoreAt) {
        seconds = streamSeconds;
        restoreAtMs = restoreAt;
        return this;
    }

    FaultScenario(String name, Runnable fault, Runnable restore) {
        this.name = name;
        this.fault = fault;
        this.restore = restore;
    }

    FaultScenario cut(String group, String... members) {
        unreachable.put(group, Set.of(members));
        routable = false;
        return this;
    }

    FaultScenario controllerDown() {
        controllerDown = true;
        return this;
    }

    FaultScenario repairedWithin(long ms) {
        targetMs = ms;
        // a repair allowed longer than the usual window (ONOS's 10 s group poll) gets a window that holds it
        long window = ms + 1000;
        if (restoreAtMs - faultAtMs < window) {
            restoreAtMs = faultAtMs + window;
            seconds = Math.max(seconds, (restoreAtMs + 3000) / 1000.0);
        }
        return this;
    }

    FaultScenario sourceGone(String group) {
        sourceGone.add(group);
        routable = false;
        return this;
    }
}
