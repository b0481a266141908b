package org.mcast4ai.codec;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.BitmapPlan;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.StateChange;
import org.onosproject.codec.CodecService;

import java.util.List;

/**
 * Registers every mcast4ai codec with a {@link CodecService}. Used by {@link Mcast4aiCodecRegistrator}
 * inside ONOS and directly by code that runs the REST resources outside OSGi (tests, the lab runner).
 */
public final class Mcast4aiCodecs {

    /** Model classes that have a codec. */
    public static final List<Class<?>> CLASSES = List.of(
            P2mpGroup.class, P2mpGroupRequest.class, Endpoint.class, GroupPlan.class, StateChange.class,
            GroupBitmap.class, BitmapPlan.class, org.mcast4ai.api.StampPlan.class,
            org.mcast4ai.api.AggregationContext.class, org.mcast4ai.api.AggregationReport.class,
            org.mcast4ai.api.P4FabricStatus.class, org.mcast4ai.api.GroupTree.class);

    private Mcast4aiCodecs() {
    }

    /**
     * Registers the codecs.
     *
     * @param codecService where to register them
     */
    public static void registerAll(CodecService codecService) {
        codecService.registerCodec(P2mpGroup.class, new P2mpGroupCodec());
        codecService.registerCodec(P2mpGroupRequest.class, new P2mpGroupRequestCodec());
        codecService.registerCodec(Endpoint.class, new EndpointCodec());
        codecService.registerCodec(GroupPlan.class, new GroupPlanCodec());
        codecService.registerCodec(StateChange.class, new StateChangeCodec());
        codecService.registerCodec(GroupBitmap.class, new GroupBitmapCodec());
        codecService.registerCodec(BitmapPlan.class, new BitmapPlanCodec());
        codecService.registerCodec(org.mcast4ai.api.StampPlan.class, new StampPlanCodec());
        codecService.registerCodec(org.mcast4ai.api.AggregationContext.class, new AggregationContextCodec());
        codecService.registerCodec(org.mcast4ai.api.AggregationReport.class, new AggregationReportCodec());
        codecService.registerCodec(org.mcast4ai.api.P4FabricStatus.class, new P4FabricStatusCodec());
        codecService.registerCodec(org.mcast4ai.api.GroupTree.class, new GroupTreeCodec());
    }

    /**
     * Unregisters the codecs.
     *
     * @param codecService where they were registered
     */
    public static void unregisterAll(CodecService codecService) {
        CLASSES.forEach(codecService::unregisterCodec);
    }
}
