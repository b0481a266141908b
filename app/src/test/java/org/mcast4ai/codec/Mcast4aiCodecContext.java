package org.mcast4ai.codec;

import org.onosproject.codec.JsonCodec;
import org.onosproject.codec.impl.CodecManager;
import org.onosproject.codec.impl.MockCodecContext;

/** ONOS's mock codec context with the mcast4ai codecs registered the way the registrator does it. */
final class Mcast4aiCodecContext extends MockCodecContext {
    private final CodecManager ours = new CodecManager();

    Mcast4aiCodecContext() {
        Mcast4aiCodecs.registerAll(ours);
    }

    @Override
    public <T> JsonCodec<T> codec(Class<T> entityClass) {
        JsonCodec<T> codec = ours.getCodec(entityClass);
        return codec != null ? codec : super.codec(entityClass);
    }
}
