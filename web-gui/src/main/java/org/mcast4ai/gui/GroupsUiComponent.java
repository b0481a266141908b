package org.mcast4ai.gui;

import org.mcast4ai.api.P2mpGroupService;
import org.mcast4ai.api.P4FabricService;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.link.LinkService;
import org.onosproject.net.statistic.PortStatisticsService;
import org.onosproject.ui.UiExtension;
import org.onosproject.ui.UiExtensionService;
import org.onosproject.ui.UiMessageHandlerFactory;
import org.onosproject.ui.UiTopoOverlayFactory;
import org.onosproject.ui.UiView;
import org.onosproject.ui.UiViewHidden;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.onlab.util.Tools.groupedThreads;

/**
 * Registers the mcast4ai views with the ONOS GUI: the groups table, and the topology overlay (a hidden view whose
 * scripts register the overlay with the topology view). The resources live on this bundle's class path under
 * {@code app/view/<view id>/} and {@value #RESOURCE_PATH}/ (css.html, js.html).
 */
@Component(immediate = true)
public class GroupsUiComponent {

    /** View id of the groups table; names the resource folder and the angular module. */
    public static final String GROUPS_VIEW = "mcast4aiGroups";
    /** View id of the topology overlay's scripts. */
    public static final String TOPO_VIEW = "mcast4aiTopov";
    static final String RESOURCE_PATH = "mcast4aiGroups";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected UiExtensionService uiExtensionService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected P2mpGroupService groupService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected LinkService linkService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL)
    protected PortStatisticsService portStatisticsService;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    protected volatile P4FabricService p4FabricService;

    private UiExtension extension;
    private ScheduledExecutorService timer;

    @Activate
    protected void activate() {
        timer = Executors.newSingleThreadScheduledExecutor(groupedThreads("onos/mcast4ai", "gui", log));
        UiMessageHandlerFactory handlers = () -> List.of(new GroupTableMessageHandler(groupService),
                new TopoOverlayMessageHandler(groupService, () -> p4FabricService, linkService, deviceService,
                        portStatisticsService, timer));
        UiTopoOverlayFactory overlays = () -> List.of(new Mcast4aiTopoOverlay(groupService, () -> p4FabricService));
        extension = new UiExtension.Builder(getClass().getClassLoader(),
                List.of(new UiView(UiView.Category.NETWORK, GROUPS_VIEW, "Multicast Groups"),
                        new UiViewHidden(TOPO_VIEW)))
                .resourcePath(RESOURCE_PATH)
                .messageHandlerFactory(handlers)
                .topoOverlayFactory(overlays)
                .build();
        uiExtensionService.register(extension);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        uiExtensionService.unregister(extension);
        timer.shutdownNow();
        log.info("Stopped");
    }
}
