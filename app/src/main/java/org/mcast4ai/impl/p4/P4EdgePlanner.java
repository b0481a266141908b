package org.mcast4ai.impl.p4;

import org.mcast4ai.api.AggregationContext;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiActionParamId;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The receivers' rewrites of ACK_AGGREGATION groups on P4 leaves: for every receiver attached to a P4 switch,
 * one {@code rewrite4} entry keyed by its port and the virtual peer's address (what the copy is addressed to: the
 * sender's QP sends to the peer, and the source leaf aggregates its ACKs, {@link P4AggPlanner}), giving
 * its MAC, address and QPN and the virtual peer's address as the copy's new source. The program updates the
 * ICRC from the rewritten fields with the static shift tables {@link P4FabricPlanner} writes. The eBPF
 * receiver edge keeps the same key and values in its map. Pure.
 */
public final class P4EdgePlanner {
    /** Table and action names of the program's P4Info. */
    public static final String REWRITE4 = "McastEgress.rewrite4";
    public static final String RECEIVER4 = "McastEgress.receiver4";

    private final ApplicationId appId;

    /** @param appId owning application (the P4 fabric's: its static state and these entries go together) */
    public P4EdgePlanner(ApplicationId appId) {
        this.appId = appId;
    }

    /**
     * @param contexts the ACK_AGGREGATION groups' contexts
     * @param only     the P4 switches
     * @return per switch its rewrite entries; of two receivers on one port of one group, the first in the
     *         groups' and receivers' order (the copy can only be rewritten for one)
     */
    public Map<DeviceId, List<FlowRule>> plan(Collection<AggregationContext> contexts, Set<DeviceId> only) {
        Map<DeviceId, List<FlowRule>> out = new LinkedHashMap<>();
        Set<String> keys = new HashSet<>();
        for (AggregationContext c : contexts) {
            if (!c.peer().address().isIp4()) {
                continue;
            }
            byte[] group = c.peer().address().toOctets();
            for (AggregationContext.Member r : c.receivers()) {
                if (r.location().isEmpty() || !only.contains(r.location().get().deviceId())) {
                    continue;
                }
                ConnectPoint at = r.location().get();
                if (!keys.add(at + "/" + c.peer().address())) {
                    continue;
                }
                TrafficSelector key = DefaultTrafficSelector.builder().matchPi(PiCriterion.builder()
                        .matchExact(PiMatchFieldId.of("egress_port"), (int) at.port().toLong())
                        .matchExact(PiMatchFieldId.of("dst"), group).build()).build();
                PiAction action = PiAction.builder().withId(PiActionId.of(RECEIVER4))
                        .withParameter(new PiActionParam(PiActionParamId.of("mac"),
                                ImmutableByteSequence.copyFrom(r.mac().toBytes())))
                        .withParameter(new PiActionParam(PiActionParamId.of("ip"),
                                ImmutableByteSequence.copyFrom(r.ip().toOctets())))
                        .withParameter(P4FabricPlanner.param("qpn", r.qpn(), 3))
                        .withParameter(new PiActionParam(PiActionParamId.of("vp"),
                                ImmutableByteSequence.copyFrom(c.peer().address().toOctets()))).build();
                out.computeIfAbsent(at.deviceId(), d -> new ArrayList<>())
                        .add(P4FabricPlanner.rule(appId, at.deviceId(), REWRITE4, key, action));
            }
        }
        return out;
    }
}
