package org.mcast4ai.gui;

import org.mcast4ai.api.P2mpGroupService;
import org.onosproject.ui.UiExtension;
import org.onosproject.ui.UiExtensionService;
import org.onosproject.ui.UiMessageHandlerFactory;
import org.onosproject.ui.UiView;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Registers the mcast4ai views with the ONOS GUI. The view resources live on this bundle's class path
 * under {@code app/view/<view id>/} and {@value #RESOURCE_PATH}/ (css.html, js.html).
 */
@Component(immediate = true)
public class GroupsUiComponent {

    /** View id of the groups table; names the resource folder and the angular module. */
    public static final String GROUPS_VIEW = "mcast4aiGroups";
    static final String RESOURCE_PATH = "mcast4aiGroups";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected UiExtensionService uiExtensionService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected P2mpGroupService groupService;

    private UiExtension extension;

    @Activate
    protected void activate() {
        UiMessageHandlerFactory handlers = () -> List.of(new GroupTableMessageHandler(groupService));
        extension = new UiExtension.Builder(getClass().getClassLoader(),
                List.of(new UiView(UiView.Category.NETWORK, GROUPS_VIEW, "Multicast Groups")))
                .resourcePath(RESOURCE_PATH)
                .messageHandlerFactory(handlers)
                .build();
        uiExtensionService.register(extension);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        uiExtensionService.unregister(extension);
        log.info("Stopped");
    }
}
