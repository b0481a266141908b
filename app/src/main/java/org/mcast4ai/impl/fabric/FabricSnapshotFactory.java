package org.mcast4ai.impl.fabric;

import org.mcast4ai.engine.FabricSnapshot;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Host;
import org.onosproject.net.HostId;
import org.onosproject.net.HostLocation;
import org.onosproject.net.Link;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.host.HostService;
import org.onosproject.net.link.LinkService;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Builds the engine's {@link FabricSnapshot} from what ONOS sees: available devices, active links between
 * them and hosts located on an available device. Switch names are {@code DeviceId.toString()}, host names
 * {@code HostId.toString()}; roles are inferred by the snapshot (leaves carry hosts).
 *
 * <p>Topology events only {@link #invalidate()} the snapshot; it is rebuilt on the next
 * {@link #snapshot()}, so a burst of events costs one rebuild.
 */
public final class FabricSnapshotFactory {
    private final DeviceService deviceService;
    private final LinkService linkService;
    private final HostService hostService;

    private final AtomicLong generation = new AtomicLong();
    private volatile FabricView current;
    private volatile long builtFrom = -1;
    // HostId.toString formats the MAC byte by byte: a thousand hosts cost milliseconds on every rebuild, which
    // is on the path from a failure to the first reroute, so names come from a resolver's cache
    private final Function<HostId, String> hostNames;

    public FabricSnapshotFactory(DeviceService deviceService, LinkService linkService, HostService hostService) {
        this(deviceService, linkService, hostService, new HostResolver(hostService)::nameOf);
    }

    /**
     * @param deviceService ONOS's device service
     * @param linkService   ONOS's link service
     * @param hostService   ONOS's host service
     * @param hostNames     a host's name, {@code HostId.toString()} (the app's {@link HostResolver#nameOf})
     */
    public FabricSnapshotFactory(DeviceService deviceService, LinkService linkService, HostService hostService,
                                 Function<HostId, String> hostNames) {
        this.deviceService = deviceService;
        this.linkService = linkService;
        this.hostService = hostService;
        this.hostNames = hostNames;
    }

    /** Marks the snapshot stale; the next {@link #snapshot()} rebuilds it. */
    public void invalidate() {
        generation.incrementAndGet();
    }

    /** @return a snapshot no older than the last {@link #invalidate()} */
    public FabricSnapshot snapshot() {
        return view().snapshot();
    }

    /** @return the current snapshot with its ONOS ids, no older than the last {@link #invalidate()} */
    public FabricView view() {
        FabricView s = current;
        if (s != null && builtFrom == generation.get()) {
            return s;
        }
        synchronized (this) {
            long gen = generation.get();
            if (current == null || builtFrom != gen) {
                current = build();
                builtFrom = gen;
            }
            return current;
        }
    }

    private FabricView build() {
        FabricSnapshot.Builder b = FabricSnapshot.builder();
        Map<String, DeviceId> available = new HashMap<>();
        Map<String, HostId> hostIds = new HashMap<>();
        for (Device d : deviceService.getAvailableDevices()) {
            String name = d.id().toString();
            if (available.putIfAbsent(name, d.id()) == null) {
                b.addSwitch(name, null);
            }
        }
        for (Link l : linkService.getActiveLinks()) {
            if (l.state() == Link.State.ACTIVE && available.containsKey(l.src().deviceId().toString())
                    && available.containsKey(l.dst().deviceId().toString())) {
                b.addLink(l.src().deviceId().toString(), l.src().port().toLong(),
                        l.dst().deviceId().toString(), l.dst().port().toLong());
            }
        }
        for (Host h : hostService.getHosts()) {
            HostLocation loc = HostResolver.locationOf(h);
            if (loc != null && available.containsKey(loc.deviceId().toString())) {
                String name = hostNames.apply(h.id());
                hostIds.put(name, h.id());
                b.addHost(name, loc.deviceId().toString(), loc.port().toLong());
            }
        }
        return new FabricView(b.build(), available, hostIds);
    }
}
