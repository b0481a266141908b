package org.mcast4ai.codec;

import org.onosproject.codec.CodecService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Registers the mcast4ai JSON codecs with the ONOS codec service while the app bundle is active. */
@Component(immediate = true)
public class Mcast4aiCodecRegistrator {
    private static final Logger log = LoggerFactory.getLogger(Mcast4aiCodecRegistrator.class);

    /** The ONOS codec service. */
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CodecService codecService;

    /** Registers the codecs. */
    @Activate
    protected void activate() {
        Mcast4aiCodecs.registerAll(codecService);
        log.info("Registered codecs for {} model classes", Mcast4aiCodecs.CLASSES.size());
    }

    /** Unregisters the codecs. */
    @Deactivate
    protected void deactivate() {
        Mcast4aiCodecs.unregisterAll(codecService);
        log.info("Unregistered codecs");
    }
}
