package org.mcast4ai.impl.fabric;

import com.google.common.collect.ImmutableMap;
import org.mcast4ai.engine.FabricSnapshot;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.PortNumber;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A fabric snapshot with its ONOS identifiers: the {@link DeviceId} of every switch index and the index of
 * every {@link HostId}, built once with the snapshot so that compiling a group maps between engine indices
 * and ONOS ids without parsing or formatting names.
 */
public final class FabricView {
    private final FabricSnapshot snapshot;
    private final DeviceId[] devices;
    private final Map<HostId, Integer> hosts;
    // each directed link's end points, made when a tree first crosses it: plans share them
    private final AtomicReferenceArray<ConnectPoint[]> links;
    // PortNumber's constructor formats its name; switch ports are small numbers, made once
    private static final PortNumber[] PORTS = new PortNumber[4096];

    FabricView(FabricSnapshot snapshot, Map<String, DeviceId> deviceIds, Map<String, HostId> hostIds) {
        this.snapshot = snapshot;
        this.devices = new DeviceId[snapshot.switchCount()];
        for (int sw = 0; sw < devices.length; sw++) {
            String name = snapshot.switchName(sw);
            DeviceId id = deviceIds.get(name);
            devices[sw] = id != null ? id : DeviceId.deviceId(name);
        }
        ImmutableMap.Builder<HostId, Integer> b = ImmutableMap.builder();
        for (int h = 0; h < snapshot.hostCount(); h++) {
            String name = snapshot.hostName(h);
            HostId id = hostIds.get(name);
            b.put(id != null ? id : HostId.hostId(name), h);
        }
        this.hosts = b.build();
        this.links = new AtomicReferenceArray<>(snapshot.linkCount());
    }

    /**
     * @param from the switch the link leaves
     * @param e    a directed link of the snapshot leaving it (between {@code linkStart(from)} and
     *             {@code linkStart(from + 1)})
     * @return its end points {from, to}, the same array for every caller (not to be changed)
     */
    public ConnectPoint[] link(int from, int e) {
        ConnectPoint[] ends = links.get(e);
        if (ends == null) {
            ends = new ConnectPoint[]{new ConnectPoint(devices[from], port(snapshot.linkFromPort(e))),
                    new ConnectPoint(devices[snapshot.linkTo(e)], port(snapshot.linkToPort(e)))};
            links.set(e, ends);
        }
        return ends;
    }

    /** @return the engine's snapshot */
    public FabricSnapshot snapshot() {
        return snapshot;
    }

    /**
     * @param sw switch index of the snapshot
     * @return its device id
     */
    public DeviceId device(int sw) {
        return devices[sw];
    }

    /**
     * @param number an OpenFlow port number
     * @return its PortNumber (shared for numbers below 4096)
     */
    public static PortNumber port(long number) {
        if (number < 0 || number >= PORTS.length) {
            return PortNumber.portNumber(number);
        }
        PortNumber p = PORTS[(int) number];
        if (p == null) {
            p = PortNumber.portNumber(number);
            PORTS[(int) number] = p;
        }
        return p;
    }

    /**
     * @param host ONOS host id
     * @return its host index in the snapshot, or -1 if the snapshot has no such (located) host
     */
    public int hostIndex(HostId host) {
        Integer i = hosts.get(host);
        return i == null ? -1 : i;
    }
}
