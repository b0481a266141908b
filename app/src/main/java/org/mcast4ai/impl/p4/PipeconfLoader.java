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
 * Registers the pipeconf of each build of {@link Mcast4aiPipeconf} while the app is active. ONOS's P4Info parser
 * comes with its P4Runtime protocol app, which an OpenFlow-only install does not run: then nothing is registered,
 * one line in the log says why, and the rest of the app works as before.
 */
@Component(immediate = true, service = PipeconfLoader.class)
public class PipeconfLoader {
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PiPipeconfService pipeconfService;

    private final java.util.Set<Mcast4aiPipeconf.Build> registered = java.util.EnumSet.noneOf(
            Mcast4aiPipeconf.Build.class);

    /** Registers the builds' pipeconfs, replacing those left by an earlier version of the app. */
    @Activate
    protected void activate() {
        for (Mcast4aiPipeconf.Build b : Mcast4aiPipeconf.Build.values()) {
            try {
                if (pipeconfService.getPipeconf(b.id()).isPresent()) {
                    pipeconfService.unregister(b.id());
                }
                pipeconfService.register(Mcast4aiPipeconf.build(b));
                registered.add(b);
                log.info("Registered pipeconf {}", b.id());
            } catch (NoClassDefFoundError e) {
                log.info("Pipeconfs not registered: ONOS's P4Runtime app is not active ({} missing); activate "
                        + "org.onosproject.drivers.bmv2 before mcast4ai to program P4 switches", e.getMessage());
                return;
            } catch (Exception e) {
                log.error("Pipeconf {} not registered: {}", b.id(), e.toString());
            }
        }
    }

    /** Unregisters them. */
    @Deactivate
    protected void deactivate() {
        for (Mcast4aiPipeconf.Build b : registered) {
            if (pipeconfService.getPipeconf(b.id()).isPresent()) {
                pipeconfService.unregister(b.id());
            }
        }
        registered.clear();
    }

    /** @return true while the default build's pipeconf is registered by this component */
    public boolean registered() {
        return registered.contains(Mcast4aiPipeconf.Build.DEFAULT);
    }
}
