package org.mcast4ai.impl.p4;

import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.P2mpGroupId;
import org.onosproject.net.DeviceId;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * The controller's side of the source leaves' aggregators: starts each group with CONFIG and its receivers' JOINs
 * once its table entries are acknowledged (again after its switch came back empty), LEAVEs the receivers it lost,
 * ticks the stall rule, and turns the switches' reports of stalled receivers, and the joins it made, into the
 * group's {@link AggregationReport}. The frames go out through a sink (ONOS's packet service on the device); what
 * it knows of a switch's registers is forgotten when the switch returns. Called from the P4 fabric's run and the
 * packet processor; synchronized.
 */
public final class P4AggControl {
    /** Sends a frame to a device's aggregator. */
    public interface Sink {
        /**
         * @param device the source leaf
         * @param point  the group it is for (its sender's port names the packet-out's port, which is not read)
         * @param frame  the control frame
         */
        void send(DeviceId device, P4AggPlanner.Point point, byte[] frame);
    }

    private final Sink sink;
    private final BiConsumer<P2mpGroupId, AggregationReport> reports;
    private final java.util.function.LongSupplier clock;
    // per switch, per group index: what its registers were started with
    private final Map<DeviceId, Map<Integer, P4AggPlanner.Point>> started = new HashMap<>();
    // per switch, per group index: the receivers its reports stalled (cleared when the group starts again)
    private final Map<DeviceId, Map<Integer, Set<String>>> stalled = new HashMap<>();
    // per switch, per group index, per slot: receivers added to a running group, the PSN the switch joined them at
    // (null until its JOINED report came: asked again at every tick)
    private final Map<DeviceId, Map<Integer, Map<Integer, Integer>>> late = new HashMap<>();

    /**
     * @param sink    sends frames
     * @param reports takes what the aggregators report, per group
     * @param clock   milliseconds
     */
    public P4AggControl(Sink sink, BiConsumer<P2mpGroupId, AggregationReport> reports,
                        java.util.function.LongSupplier clock) {
        this.sink = sink;
        this.reports = reports;
        this.clock = clock;
    }

    /**
     * Brings the aggregators in line with the plan: a group whose switch acknowledged its entries and whose
     * registers were not started with it starts (CONFIG, then a JOIN per receiver); a started group whose receivers
     * changed has those gone LEFT and those new joined at the next PSN its sender sends (JOIN_NOW: only the switch
     * knows it; the group's record has it once the switch's JOINED report came, and until then the receiver is not
     * reported joined). A group no longer planned is forgotten (its entries go with the plan).
     *
     * @param points the groups planned
     * @param ready  whether a group's entries are in place on its switch (ONOS lists them ADDED)
     * @return the groups started now
     */
    public synchronized List<P4AggPlanner.Point> sync(List<P4AggPlanner.Point> points,
                                                      java.util.function.Predicate<P4AggPlanner.Point> ready) {
        Map<DeviceId, Map<Integer, P4AggPlanner.Point>> planned = new HashMap<>();
        for (P4AggPlanner.Point p : points) {
            planned.computeIfAbsent(p.device(), d -> new HashMap<>()).put(p.index(), p);
        }
        started.forEach((d, groups) -> groups.keySet().removeIf(i -> !planned.getOrDefault(d, Map.of())
                .containsKey(i)));
        late.forEach((d, groups) -> groups.keySet().removeIf(i -> !started.getOrDefault(d, Map.of())
                .containsKey(i)));
        List<P4AggPlanner.Point> now = new java.util.ArrayList<>();
        for (P4AggPlanner.Point p : points) {
            if (!ready.test(p)) {
                continue;
            }
            Map<Integer, P4AggPlanner.Point> on = started.computeIfAbsent(p.device(), d -> new HashMap<>());
            P4AggPlanner.Point was = on.get(p.index());
            if (p.equals(was)) {
                continue;
            }
            if (was != null && was.id().equals(p.id()) && was.startPsn() == p.startPsn()) {
                // a running group's receivers changed: those gone no longer hold the minimum, those new join at the
                // next PSN the sender sends (the data before it went out without them)
                Map<Integer, Integer> added = late.computeIfAbsent(p.device(), d -> new HashMap<>())
                        .computeIfAbsent(p.index(), i -> new TreeMap<>());
                for (Map.Entry<Integer, Long> r : was.keys().entrySet()) {
                    if (!r.getValue().equals(p.keys().get(r.getKey()))) {
                        sink.send(p.device(), p, P4AggFrames.frame(P4AggFrames.LEAVE, p.index(), r.getKey(), 0, 0));
                        added.remove(r.getKey());
                    }
                }
                for (Map.Entry<Integer, Long> r : new TreeMap<>(p.keys()).entrySet()) {
                    if (!r.getValue().equals(was.keys().get(r.getKey()))) {
                        sink.send(p.device(), p, P4AggFrames.frame(P4AggFrames.JOIN_NOW, p.index(), r.getKey(), 0,
                                r.getValue()));
                        added.put(r.getKey(), null);
                    }
                }
                on.put(p.index(), p);
                report(p);
                continue;
            }
            // the same CONFIG to a switch that still runs the group changes nothing, nor do the JOINs after it (a
            // controller restarted, a switch reconnected); receivers the record has stalled out are not joined
            sink.send(p.device(), p, P4AggFrames.frame(P4AggFrames.CONFIG, p.index(), 0, p.startPsn(),
                    p.configKey()));
            Set<String> out = new TreeSet<>();
            for (Map.Entry<Integer, Long> r : new TreeMap<>(p.keys()).entrySet()) {
                if (p.stalled().contains(r.getKey())) {
                    out.add(p.names().getOrDefault(r.getKey(), "slot " + r.getKey()));
                    continue;
                }
                sink.send(p.device(), p, P4AggFrames.frame(P4AggFrames.JOIN, p.index(), r.getKey(),
                        p.joinPsn().getOrDefault(r.getKey(), p.startPsn()), r.getValue()));
            }
            on.put(p.index(), p);
            stalled.computeIfAbsent(p.device(), d -> new HashMap<>()).put(p.index(), out);
            late.getOrDefault(p.device(), new HashMap<>()).remove(p.index());
            now.add(p);
            report(p);
        }
        return now;
    }

    /**
     * Sends every started group's aggregator a TICK (the stall rule runs on the switch's clock), and a JOIN_NOW
     * again for each receiver whose JOINED report has not come (the switch answers a repeated one with the PSN it
     * joined the receiver at, changing nothing).
     */
    public synchronized void tick() {
        started.forEach((d, groups) -> groups.values().forEach(p -> {
            sink.send(d, p, P4AggFrames.frame(P4AggFrames.TICK, p.index(), 0, 0, 0));
            late.getOrDefault(d, Map.of()).getOrDefault(p.index(), Map.of()).forEach((slot, psn) -> {
                if (psn == null && p.keys().containsKey(slot)) {
                    sink.send(d, p, P4AggFrames.frame(P4AggFrames.JOIN_NOW, p.index(), slot, 0, p.keys().get(slot)));
                }
            });
        }));
    }

    /**
     * A frame a switch sent the controller.
     *
     * @param device the switch
     * @param frame  the frame
     * @return true if it was an aggregator's report (consumed)
     */
    public synchronized boolean received(DeviceId device, byte[] frame) {
        var r = P4AggFrames.report(frame);
        if (r.isEmpty()) {
            return false;
        }
        P4AggPlanner.Point p = started.getOrDefault(device, Map.of()).get(r.get().group());
        if (p == null) {
            return true;        // a group no longer started here: nothing to tell
        }
        if (r.get().joinedSlot() >= 0) {
            Map<Integer, Integer> added = late.getOrDefault(device, Map.of()).get(p.index());
            if (added != null && added.containsKey(r.get().joinedSlot())) {
                added.put(r.get().joinedSlot(), r.get().joinedPsn());
                report(p);
            }
            return true;
        }
        BitSet bits = r.get().stalled();
        Set<String> names = stalled.computeIfAbsent(device, d -> new HashMap<>())
                .computeIfAbsent(p.index(), i -> new TreeSet<>());
        for (int s = bits.nextSetBit(0); s >= 0; s = bits.nextSetBit(s + 1)) {
            String n = p.names().get(s);
            if (n != null) {
                names.add(n);
            }
        }
        report(p);
        return true;
    }

    /**
     * A switch came back (its registers empty): its groups start again once its entries are acknowledged.
     *
     * @param device the switch
     */
    public synchronized void forget(DeviceId device) {
        started.remove(device);
        stalled.remove(device);
        late.remove(device);
    }

    // what the group record keeps: every receiver joined at its PSN (one added to the running group once the switch
    // said where), and those stalled out
    private void report(P4AggPlanner.Point p) {
        Map<String, Integer> joined = new TreeMap<>();
        Map<Integer, Integer> added = late.getOrDefault(p.device(), Map.of()).getOrDefault(p.index(), Map.of());
        p.names().forEach((slot, name) -> {
            if (!added.containsKey(slot)) {
                joined.put(name, p.joinPsn().getOrDefault(slot, p.startPsn()));
            } else if (added.get(slot) != null) {
                joined.put(name, added.get(slot));
            }
        });
        Set<String> out = stalled.getOrDefault(p.device(), Map.of()).getOrDefault(p.index(), Set.of());
        reports.accept(p.id(), new AggregationReport(p.device().toString(), clock.getAsLong(), Map.of(), out,
                joined, -1, -1));
    }
}
