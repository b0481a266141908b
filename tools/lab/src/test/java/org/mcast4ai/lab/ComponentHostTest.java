package org.mcast4ai.lab;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.P2mpGroup;
import org.onosproject.codec.CodecService;

import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.core.CoreService;
import org.onosproject.event.EventDeliveryService;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flow.FlowRuleServiceAdapter;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.group.GroupServiceAdapter;
import org.onosproject.net.host.HostService;
import org.onosproject.net.intent.WorkPartitionService;
import org.onosproject.net.link.LinkService;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.TestStorageService;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ComponentHostTest {

    @Test
    void activatesInDependencyOrderAndRegistersProvidedServices() {
        ServiceRegistry registry = new ServiceRegistry();
        ComponentHost host = new ComponentHost(registry);
        // the registrator needs the CodecService the CodecManager provides: given first, activated second
        host.activate(List.of("org.mcast4ai.codec.Mcast4aiCodecRegistrator",
                              "org.onosproject.codec.impl.CodecManager"));
        CodecService codecs = registry.get(CodecService.class);
        assertNotNull(codecs.getCodec(P2mpGroup.class), "the registrator's activate ran and registered codecs");
        host.close();
        assertTrue(registry.find(CodecService.class).isEmpty(), "services are withdrawn on close");
    }

    @Test
    void unsatisfiedMandatoryReferenceFailsLoudly() {
        ComponentHost host = new ComponentHost(new ServiceRegistry());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> host.activate(List.of("org.mcast4ai.impl.store.DistributedP2mpGroupStore")));
        assertTrue(e.getMessage().contains("org.onosproject.store.service.StorageService"), e.getMessage());
    }

    @Test
    void classWithoutDescriptorIsRefused() {
        ComponentHost host = new ComponentHost(new ServiceRegistry());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> host.activate(List.of(ComponentHostTest.class.getName())));
        assertTrue(e.getMessage().contains("no component descriptor"), e.getMessage());
    }

    @Test
    void configuredPropertiesReachActivate() {
        LabFabric fabric = new LabFabric("one-switch", List.of(new LabFabric.Switch("s1", "br0", "0000000000000001",
                "of:0000000000000001", "leaf")), List.of(), List.of());
        ServiceRegistry registry = new ServiceRegistry();
        LabEventDispatcher events = new LabEventDispatcher();
        registry.register(CoreService.class, new LabCoreService())
                .register(StorageService.class, new TestStorageService())
                .register(DeviceService.class, new LabDeviceService(fabric))
                .register(LinkService.class, new LabLinkService(fabric))
                .register(HostService.class, new LabHostService(fabric))
                .register(FlowRuleService.class, new FlowRuleServiceAdapter())
                .register(GroupService.class, new GroupServiceAdapter())
                .register(WorkPartitionService.class, new LabWorkPartitionService())
                .register(ComponentConfigService.class, new ComponentConfigAdapter())
                .register(EventDeliveryService.class, events);
        ComponentHost host = new ComponentHost(registry)
                .configure("org.mcast4ai.impl.P2mpGroupManager", "installerThreads", 3);
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        try {
            host.activate(List.of("org.mcast4ai.impl.store.DistributedP2mpGroupStore",
                                  "org.mcast4ai.impl.P2mpGroupManager"));
            long lanes = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> !before.contains(t) && t.getName().contains("mcast4ai-installer-")).count();
            assertEquals(3, lanes, "the manager started the configured installer threads");
        } finally {
            host.close();
            events.close();
        }
    }
}
