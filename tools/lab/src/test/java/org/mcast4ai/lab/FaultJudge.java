package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Judges one scenario of the fault suite from the numbered stream's counts and the groups' states during and
 * after the fault: per receiver packets lost, duplicates, strays and the time until delivery is whole again.
 */
final class FaultJudge {
    static final double RATE = 150;
    /** Delivery must be whole again this long before the stream ends. */
    static final long END_MS = 500;
    /**
     * A group that says INSTALLED must deliver every packet sent this long after it first said so (what was on
     * the wire before the switches' acknowledgement may be lost) and after the restore settled.
     */
    static final long GRACE_MS = 200;
    /** Packets sent this long after the restore must reach a group's reachable receivers if it says INSTALLED. */
    static final long SETTLE_MS = 1500;

    private FaultJudge() {
    }

    static Map<String, Object> judge(FaultScenario s, Map<String, FaultGroup> groupsUnderTest, LabFabric fabric,
                                     JsonNode stream, long faultAt, long restoreAt, Map<String, JsonNode> during,
                                     Map<String, JsonNode> after, Map<String, Long> installedSince) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scenario", s.name);
        long dups = 0;
        long strayCount = 0;
        int silent = 0;
        long reroute = 0;
        boolean passed = true;
        Map<String, Object> groups = new LinkedHashMap<>();
        List<String> hard = new ArrayList<>();
        for (FaultGroup g : groupsUnderTest.values()) {
            JsonNode gs = stream.path("groups").path(Long.toString(g.id));
            JsonNode sent = gs.path("sent");
            double end = sent.get(sent.size() - 1).asDouble() * 1000;
            Set<String> cut = s.unreachable.getOrDefault(g.name, Set.of());
            boolean sourceGone = s.sourceGone.contains(g.name);
            Map<String, Object> gr = new LinkedHashMap<>();
            List<String> problems = new ArrayList<>();
            long groupReroute = 0;
            java.util.Iterator<String> hosts = stream.path("hosts").fieldNames();
            while (hosts.hasNext()) {
                String h = hosts.next();
                JsonNode e = stream.path("hosts").path(h).path(Long.toString(g.id));
                dups += e.path("duplicates").asLong();
                if (e.path("duplicates").asLong() > 0) {
                    problems.add(h + " got " + e.path("duplicates").asLong() + " duplicates");
                }
                if (!e.path("member").asBoolean()) {
                    strayCount += e.path("received").asLong();
                    if (e.path("received").asLong() > 0) {
                        long first = e.path("strays").path(0).path(0).asLong();
                        long at = Math.round(sent.get((int) first).asDouble() * 1000);
                        problems.add(h + " (not a member) got " + e.path("received").asLong() + " strays, the first "
                                + (at - faultAt) + " ms after the fault (restore at +" + (restoreAt - faultAt) + ")");
                    }
                    continue;
                }
                long lost = 0;
                double lastLossAfterFault = -1;
                double lastLossAfterRestore = -1;
                // losses the group's INSTALLED does not excuse: sent after it said so for good, and settled
                Long installed = installedSince.get(g.name);
                double heldFrom = installed == null ? Double.MAX_VALUE
                        : Math.max(installed + GRACE_MS, restoreAt + SETTLE_MS);
                long lostWhileInstalled = 0;
                for (JsonNode range : e.path("missing")) {
                    for (long q = range.get(0).asLong(); q <= range.get(1).asLong(); q++) {
                        lost++;
                        double t = sent.get((int) q).asDouble() * 1000;
                        if (t >= heldFrom) {
                            lostWhileInstalled++;
                        }
                        if (t >= faultAt && t < restoreAt) {
                            lastLossAfterFault = Math.max(lastLossAfterFault, t);
                        } else if (t >= restoreAt) {
                            lastLossAfterRestore = Math.max(lastLossAfterRestore, t);
                        }
                    }
                }
                Map<String, Object> hr = new LinkedHashMap<>();
                hr.put("lost", lost);
                boolean reachable = !cut.contains(h) && !sourceGone;
                long toWhole = lastLossAfterFault < 0 ? 0 : Math.round(lastLossAfterFault - faultAt + 1000 / RATE);
                long toWholeAfterRestore = lastLossAfterRestore < 0 ? 0
                        : Math.round(lastLossAfterRestore - restoreAt + 1000 / RATE);
                hr.put("msToWholeAfterFault", reachable ? toWhole : null);
                hr.put("msToWholeAfterRestore", toWholeAfterRestore);
                if (reachable) {
                    groupReroute = Math.max(groupReroute, toWhole);
                }
                if (lastLossAfterRestore >= end - END_MS) {
                    problems.add(h + " still losing " + END_MS + " ms before the end");
                }
                // every scenario's restore makes every member reachable again
                if (lostWhileInstalled > 0) {
                    silent++;
                    problems.add("SILENT: INSTALLED from +" + (installed - restoreAt) + " ms after the "
                            + "restore while " + h + " lost " + lostWhileInstalled + " packet(s) sent after +"
                            + Math.round(heldFrom - restoreAt) + " ms");
                }
                if (reachable && toWhole > s.targetMs) {
                    problems.add(h + " whole only " + toWhole + " ms after the fault");
                    if (toWhole > 2 * s.targetMs) {
                        hard.add(g.name + ": " + h + " whole only " + toWhole + " ms after the fault");
                    }
                }
                gr.put(h, hr);
            }
            JsonNode whileDown = during.get(g.name) != null ? during.get(g.name)
                    : LabHarness.MAPPER.createObjectNode().put("state", "INSTALLED");
            String stateDuring = whileDown.path("state").asText();
            Set<String> listed = new TreeSet<>();
            whileDown.path("unreachable").forEach(u -> listed.add(hostName(fabric, u.path("host").asText())));
            gr.put("stateDuringFault", stateDuring);
            gr.put("unreachableDuringFault", listed);
            gr.put("stateAfter", after.get(g.name).path("state").asText());
            if (sourceGone && "INSTALLED".equals(stateDuring)) {
                problems.add("INSTALLED while its source is gone");
            } else if (!cut.isEmpty() && !listed.containsAll(cut)) {
                problems.add("during the fault " + stateDuring + " lists " + listed + ", truth " + cut);
            } else if (cut.isEmpty() && !sourceGone && !"INSTALLED".equals(stateDuring)) {
                problems.add(stateDuring + " during a fault it routes around: " + whileDown.path("reason").asText());
            }
            if (!"INSTALLED".equals(after.get(g.name).path("state").asText())) {
                problems.add("after the repair " + after.get(g.name).path("state").asText() + ": "
                        + after.get(g.name).path("reason").asText());
            }
            for (String p : problems) {
                if (!p.contains(" whole only ")) {
                    hard.add(g.name + ": " + p);
                }
            }
            gr.put("problems", problems);
            gr.put("passed", problems.isEmpty());
            passed &= problems.isEmpty();
            reroute = Math.max(reroute, groupReroute);
            groups.put(g.name, gr);
        }
        out.put("groups", groups);
        out.put("duplicates", dups);
        out.put("strays", strayCount);
        out.put("silent", silent);
        out.put("rerouteMs", reroute);
        out.put("passed", passed);
        out.put("hardProblems", hard);
        StringBuilder summary = new StringBuilder(s.name + ": " + (passed ? "passed" : "FAILED"));
        summary.append(" reroute_ms=").append(reroute);
        groups.forEach((name, gr) -> {
            @SuppressWarnings("unchecked")
            List<String> p = (List<String>) ((Map<String, Object>) gr).get("problems");
            if (!p.isEmpty()) {
                summary.append("\n    ").append(name).append(": ").append(String.join("; ", p));
            }
        });
        out.put("summary", summary.toString());
        return out;
    }

    private static String hostName(LabFabric fabric, String hostId) {
        String mac = hostId.split("/")[0];
        return fabric.host(mac).map(LabFabric.Host::name).orElse(hostId);
    }
}
