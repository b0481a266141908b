package org.mcast4ai.impl.p4;

import org.onosproject.net.pi.service.PiPipeconfService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Registers {@link Mcast4aiPipeconf} while the app is active. ONOS's P4Info parser comes with its P4Runtime
 * protocol app, which an OpenFlow-only install does not run: then nothing is registered, one line in the log says
 * why, and the rest of the app works as before.
 */
@Component(immediate = true, service = PipeconfLoader.class)
public class PipeconfLoader {
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PiPipeconfService pipeconfService;

    private boolean registered;

    /** Registers the pipeconf, replacing one left by an earlier version of the app. */
    @Activate
    protected void activate() {
        try {
            if (pipeconfService.getPipeconf(Mcast4aiPipeconf.ID).isPresent()) {
                pipeconfService.unregister(Mcast4aiPipeconf.ID);
            }
            pipeconfService.register(Mcast4aiPipeconf.build());
            registered = true;
            log.info("Registered pipeconf {}", Mcast4aiPipeconf.ID);
        } catch (NoClassDefFoundError e) {
            log.info("Pipeconf {} not registered: ONOS's P4Runtime app is not active ({} missing); activate "
                    + "org.onosproject.drivers.bmv2 before mcast4ai to program P4 switches",
                    Mcast4aiPipeconf.ID, e.getMessage());
        } catch (Exception e) {
            log.error("Pipeconf {} not registered: {}", Mcast4aiPipeconf.ID, e.toString());
        }
    }

    /** Unregisters it. */
    @Deactivate
    protected void deactivate() {
        if (registered && pipeconfService.getPipeconf(Mcast4aiPipeconf.ID).isPresent()) {
            pipeconfService.unregister(Mcast4aiPipeconf.ID);
        }
        registered = false;
    }

    /** @return true while the pipeconf is registered by this component */
    public boolean registered() {
        return registered;
    }
}
