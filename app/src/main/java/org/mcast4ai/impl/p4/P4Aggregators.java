package org.mcast4ai.impl.p4;

import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.packet.DefaultOutboundPacket;
import org.onosproject.net.packet.PacketContext;
import org.onosproject.net.packet.PacketProcessor;
import org.onosproject.net.packet.PacketService;
import org.slf4j.Logger;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import static org.onlab.util.Tools.groupedThreads;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * The source leaves' ACK aggregators as the P4 fabric's run keeps them: their entries planned with the static
 * state ({@link P4AggPlanner}), started by packet-out once ONOS lists those entries ADDED and ticked every
 * {@link #TICK_MS} ms ({@link P4AggControl}), their reports of stalled receivers taken from packet-ins. Without a
 * packet service no aggregator starts (the groups wait for the join). Thin: the rules are the planner's and the
 * control's.
 */
final class P4Aggregators {
    /** Milliseconds between the aggregators' ticks (the stall rule runs on each; the stall time is 1 s). */
    static final long TICK_MS = 100;

    private final Logger log = getLogger(getClass());
    private final P4AggPlanner planner;
    private final P4AggControl control;
    private final FlowRuleService flows;
    private final PacketService packets;
    private final ScheduledExecutorService ticker =
            Executors.newSingleThreadScheduledExecutor(groupedThreads("mcast4ai", "p4-agg-tick"));
    // the groups aggregated in source leaves, as the last plan found them
    private volatile List<P4AggPlanner.Point> points = List.of();
    private List<String> problems = List.of();
    // the aggregators' reports (a higher priority than host learning: they are no host's)
    private final PacketProcessor reportsIn = new PacketProcessor() {
        @Override
        public void process(PacketContext context) {
            if (context.isHandled() || context.inPacket().receivedFrom() == null
                    || context.inPacket().unparsed() == null) {
                return;
            }
            ByteBuffer b = context.inPacket().unparsed().duplicate();
            byte[] frame = new byte[b.remaining()];
            b.get(frame);
            if (control.received(context.inPacket().receivedFrom().deviceId(), frame)) {
                context.block();
            }
        }
    };

    /**
     * @param appId   the P4 fabric's application
     * @param flows   ONOS's flow rule service (whether a group's entries are in place)
     * @param packets ONOS's packet service, or null
     * @param reports takes what an aggregator reports for a group
     */
    P4Aggregators(ApplicationId appId, FlowRuleService flows, PacketService packets,
                  BiConsumer<P2mpGroupId, AggregationReport> reports) {
        this.planner = new P4AggPlanner(appId);
        this.flows = flows;
        this.packets = packets;
        this.control = new P4AggControl(this::emit, reports, System::currentTimeMillis);
    }

    /** Takes reports and ticks the started aggregators from now on. */
    void start() {
        if (packets == null) {
            return;
        }
        packets.addProcessor(reportsIn, PacketProcessor.director(0));
        ticker.scheduleAtFixedRate(() -> {
            try {
                control.tick();
            } catch (RuntimeException e) {
                log.warn("aggregators' tick failed", e);
            }
        }, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    }

    /** Stops; the switches keep their registers. */
    void stop() {
        if (packets != null) {
            packets.removeProcessor(reportsIn);
        }
        ticker.shutdownNow();
    }

    /**
     * @param contexts the ACK_AGGREGATION groups' contexts
     * @param targets  the P4 switches
     * @param bits     the fabric's bit indices
     * @return the aggregation entries per switch, to write with the static state
     */
    Map<DeviceId, List<FlowRule>> plan(Collection<AggregationContext> contexts, Set<DeviceId> targets,
                                       BitIndexTable bits) {
        P4AggPlanner.Plan plan = planner.plan(contexts, targets, bits, P4AggPlanner.DEFAULT_TIMERS);
        if (!plan.problems().equals(problems)) {
            plan.problems().forEach(p -> log.warn("{}", p));
        }
        problems = plan.problems();
        points = plan.points();
        return plan.rules();
    }

    /** No group is planned (the fabric has no loop to run it). */
    void clear() {
        points = List.of();
    }

    /** After a write: the aggregators whose entries their switch holds start (CONFIG, JOINs). */
    void sync() {
        if (packets != null) {
            control.sync(points, this::inPlace);
        }
    }

    /** @param device a switch back (possibly empty): its aggregators start again */
    void forget(DeviceId device) {
        control.forget(device);
    }

    // a group's aggregation entries on its source leaf, as ONOS lists them: all ADDED as planned
    private boolean inPlace(P4AggPlanner.Point p) {
        Map<FlowId, FlowEntry> held = new HashMap<>();
        for (FlowEntry e : flows.getFlowEntries(p.device())) {
            held.put(e.id(), e);
        }
        for (FlowRule r : p.entries()) {
            FlowEntry e = held.get(r.id());
            if (e == null || e.state() != FlowEntry.FlowEntryState.ADDED || !e.treatment().equals(r.treatment())) {
                return false;
            }
        }
        return true;
    }

    // a control frame to a source leaf's aggregator, by packet-out (the program reads no port for it)
    private void emit(DeviceId device, P4AggPlanner.Point point, byte[] frame) {
        packets.emit(new DefaultOutboundPacket(device, DefaultTrafficTreatment.builder()
                .setOutput(point.senderPort()).build(), ByteBuffer.wrap(frame)));
    }
}
