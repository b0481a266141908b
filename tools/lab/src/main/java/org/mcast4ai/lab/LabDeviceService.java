package org.mcast4ai.lab;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import org.onlab.packet.ChassisId;
import org.onosproject.event.ListenerRegistry;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.MastershipRole;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.provider.ProviderId;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * DeviceService over the lab fabric: every bridge of the description is a switch; it is available while the
 * bridge exists, with the ports it has. Like ONOS, a switch that went keeps its device (unavailable): a bridge
 * deleted raises DEVICE_AVAILABILITY_CHANGED, re-created another one, and ports that come and go on an
 * available switch raise PORT_ADDED / PORT_REMOVED.
 */
public class LabDeviceService extends DeviceServiceAdapter {

    /** Provider id of everything the lab reports. */
    public static final ProviderId PID = new ProviderId("of", "org.mcast4ai.lab");

    private final LabTopology topology;
    private final Map<DeviceId, Device> devices;
    private final ListenerRegistry<DeviceEvent, DeviceListener> listeners = new ListenerRegistry<>();

    /**
     * Creates the device service of a fabric that is all present and stays so.
     *
     * @param fabric lab fabric
     */
    public LabDeviceService(LabFabric fabric) {
        this(LabTopology.full(fabric));
    }

    /**
     * Creates the device service of a lab topology.
     *
     * @param topology what exists
     */
    public LabDeviceService(LabTopology topology) {
        this.topology = topology;
        ImmutableMap.Builder<DeviceId, Device> d = ImmutableMap.builder();
        for (LabFabric.Switch s : topology.fabric().switches()) {
            DeviceId id = DeviceId.deviceId(s.deviceId());
            d.put(id, new DefaultDevice(PID, id, Device.Type.SWITCH, "Nicira, Inc.", "Open vSwitch 3.1",
                    "mcast4ai-lab", s.dpid(), new ChassisId(Long.parseUnsignedLong(s.dpid(), 16)),
                    DefaultAnnotations.builder().set("name", s.name()).set("role", s.role())
                            .set("bridge", s.bridge()).set("protocol", "OF_13").build()));
        }
        devices = d.build();
        topology.addObserver(this::changed);
    }

    private void changed(LabTopology.State before, LabTopology.State after) {
        for (Device device : devices.values()) {
            String id = device.id().toString();
            boolean was = before.devices().contains(id);
            boolean is = after.devices().contains(id);
            if (was != is) {
                listeners.process(new DeviceEvent(DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED, device));
                continue;
            }
            if (!is) {
                continue;
            }
            for (long p : before.ports(id)) {
                if (!after.ports(id).contains(p)) {
                    listeners.process(new DeviceEvent(DeviceEvent.Type.PORT_REMOVED, device, port(device, p)));
                }
            }
            for (long p : after.ports(id)) {
                if (!before.ports(id).contains(p)) {
                    listeners.process(new DeviceEvent(DeviceEvent.Type.PORT_ADDED, device, port(device, p)));
                }
            }
        }
    }

    private static Port port(Device device, long number) {
        return new DefaultPort(device, PortNumber.portNumber(number), true);
    }

    private List<Device> available() {
        Set<String> up = topology.state().devices();
        return devices.values().stream().filter(d -> up.contains(d.id().toString()))
                .collect(ImmutableList.toImmutableList());
    }

    @Override
    public int getDeviceCount() {
        return devices.size();
    }

    @Override
    public int getAvailableDeviceCount() {
        return available().size();
    }

    @Override
    public Iterable<Device> getDevices() {
        return devices.values();
    }

    @Override
    public Iterable<Device> getAvailableDevices() {
        return available();
    }

    @Override
    public Iterable<Device> getDevices(Device.Type type) {
        return type == Device.Type.SWITCH ? devices.values() : ImmutableList.of();
    }

    @Override
    public Iterable<Device> getAvailableDevices(Device.Type type) {
        return type == Device.Type.SWITCH ? available() : ImmutableList.of();
    }

    @Override
    public Device getDevice(DeviceId deviceId) {
        return devices.get(deviceId);
    }

    @Override
    public MastershipRole getRole(DeviceId deviceId) {
        return isAvailable(deviceId) ? MastershipRole.MASTER : MastershipRole.NONE;
    }

    @Override
    public List<Port> getPorts(DeviceId deviceId) {
        Device device = devices.get(deviceId);
        if (device == null) {
            return ImmutableList.of();
        }
        return topology.state().ports(deviceId.toString()).stream().sorted().map(n -> port(device, n))
                .collect(Collectors.toUnmodifiableList());
    }

    @Override
    public Port getPort(DeviceId deviceId, PortNumber portNumber) {
        return getPorts(deviceId).stream().filter(p -> p.number().equals(portNumber)).findFirst().orElse(null);
    }

    @Override
    public boolean isAvailable(DeviceId deviceId) {
        return topology.state().devices().contains(deviceId.toString());
    }

    @Override
    public void addListener(DeviceListener listener) {
        listeners.addListener(listener);
    }

    @Override
    public void removeListener(DeviceListener listener) {
        listeners.removeListener(listener);
    }
}
