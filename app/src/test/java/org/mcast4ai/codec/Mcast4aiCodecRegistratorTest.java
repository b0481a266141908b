package org.mcast4ai.codec;

import org.junit.jupiter.api.Test;
import org.onosproject.codec.impl.CodecManager;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

class Mcast4aiCodecRegistratorTest {

    @Test
    void registersOnActivateAndUnregistersOnDeactivate() {
        CodecManager codecs = new CodecManager();
        codecs.activate();
        Mcast4aiCodecRegistrator registrator = new Mcast4aiCodecRegistrator();
        registrator.codecService = codecs;

        registrator.activate();
        assertInstanceOf(P2mpGroupCodec.class, codecs.getCodec(org.mcast4ai.api.P2mpGroup.class));
        assertInstanceOf(P2mpGroupRequestCodec.class, codecs.getCodec(org.mcast4ai.api.P2mpGroupRequest.class));
        assertInstanceOf(EndpointCodec.class, codecs.getCodec(org.mcast4ai.api.Endpoint.class));
        assertInstanceOf(GroupPlanCodec.class, codecs.getCodec(org.mcast4ai.api.GroupPlan.class));
        assertInstanceOf(StateChangeCodec.class, codecs.getCodec(org.mcast4ai.api.StateChange.class));
        assertInstanceOf(GroupBitmapCodec.class, codecs.getCodec(org.mcast4ai.api.GroupBitmap.class));

        registrator.deactivate();
        for (Class<?> c : Mcast4aiCodecs.CLASSES) {
            assertNull(codecs.getCodec(c), c.getSimpleName());
        }
    }
}
