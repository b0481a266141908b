package org.mcast4ai.impl.store;

import org.onosproject.store.service.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serializer of the app's distributed maps. A class of its own: {@link P2mpSerializers}' namespace is built
 * when that class loads, and a JVM that cannot build it must get here to fall back.
 */
public final class MapSerializer {
    private static final Logger log = LoggerFactory.getLogger(MapSerializer.class);

    /**
     * The serializer for the app's distributed maps ({@link P2mpSerializers#API}).
     *
     * <p>Kryo needs java.base/java.lang.invoke opened on JDK 17; ONOS's JVM does that, a plain JVM hosting the
     * components (the lab, with in-process maps that never serialize) may not: there the maps get one that only
     * copies.
     *
     * @return the serializer
     */
    public static Serializer get() {
        try {
            return Serializer.using(P2mpSerializers.API);
        } catch (LinkageError e) {
            log.warn("Kryo serializer unavailable on this JVM ({}); the maps must be in-process", e.toString());
            return new Serializer() {
                @Override
                public <T> byte[] encode(T object) {
                    throw new UnsupportedOperationException("no serializer: open java.base/java.lang.invoke");
                }

                @Override
                public <T> T decode(byte[] bytes) {
                    throw new UnsupportedOperationException("no serializer: open java.base/java.lang.invoke");
                }

                @Override
                public <T> T copy(T object) {
                    return object; // stored values are immutable
                }
            };
        }
    }


    private MapSerializer() {
    }
}
