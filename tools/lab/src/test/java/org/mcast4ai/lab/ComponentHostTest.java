package org.mcast4ai.lab;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.P2mpGroup;
import org.onosproject.codec.CodecService;

import java.util.List;

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
                () -> host.activate(List.of("org.mcast4ai.impl.DistributedP2mpGroupStore")));
        assertTrue(e.getMessage().contains("org.onosproject.store.service.StorageService"), e.getMessage());
    }

    @Test
    void classWithoutDescriptorIsRefused() {
        ComponentHost host = new ComponentHost(new ServiceRegistry());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> host.activate(List.of(ComponentHostTest.class.getName())));
        assertTrue(e.getMessage().contains("no component descriptor"), e.getMessage());
    }
}
