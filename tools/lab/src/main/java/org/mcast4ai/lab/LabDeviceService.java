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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * DeviceService over the lab fabric: every bridge is an available OpenFlow switch with the ports
 * the fabric description uses (links and hosts).
 */
public class LabDeviceService extends DeviceServiceAdapter {

    /** Provider id of everything the lab reports. */
    public static final ProviderId PID = new ProviderId("of", "org.mcast4ai.lab");

    private final Map<DeviceId, Device> devices;
    private final Map<DeviceId, List<Port>> ports;
    private final ListenerRegistry<DeviceEvent, DeviceListener> listeners = new ListenerRegistry<>();

    /**
     * Creates the device service of a fabric.
     *
     * @param fabric lab fabric
     */
    public LabDeviceService(LabFabric fabric) {
        ImmutableMap.Builder<DeviceId, Device> d = ImmutableMap.builder();
        ImmutableMap.Builder<DeviceId, List<Port>> p = ImmutableMap.builder();
        for (LabFabric.Switch s : fabric.switches()) {
            DeviceId id = DeviceId.deviceId(s.deviceId());
            Device device = new DefaultDevice(PID, id, Device.Type.SWITCH, "Nicira, Inc.", "Open vSwitch 3.1",
                    "mcast4ai-lab", s.dpid(), new ChassisId(Long.parseUnsignedLong(s.dpid(), 16)),
                    DefaultAnnotations.builder().set("name", s.name()).set("role", s.role())
                            .set("bridge", s.bridge()).set("protocol", "OF_13").build());
            d.put(id, device);
            TreeSet<Long> numbers = new TreeSet<>();
            fabric.links().forEach(l -> {
                if (l.a().equals(s.deviceId())) {
                    numbers.add(l.aPort());
                }
                if (l.b().equals(s.deviceId())) {
                    numbers.add(l.bPort());
                }
            });
            fabric.hosts().stream().filter(h -> h.deviceId().equals(s.deviceId())).forEach(h -> numbers.add(h.port()));
            List<Port> list = new ArrayList<>();
            numbers.forEach(n -> list.add(new DefaultPort(device, PortNumber.portNumber(n), true)));
            p.put(id, ImmutableList.copyOf(list));
        }
        devices = d.build();
        ports = p.build();
    }

    @Override
    public int getDeviceCount() {
        return devices.size();
    }

    @Override
    public int getAvailableDeviceCount() {
        return devices.size();
    }

    @Override
    public Iterable<Device> getDevices() {
        return devices.values();
    }

    @Override
    public Iterable<Device> getAvailableDevices() {
        return devices.values();
    }

    @Override
    public Iterable<Device> getDevices(Device.Type type) {
        return type == Device.Type.SWITCH ? devices.values() : ImmutableList.of();
    }

    @Override
    public Iterable<Device> getAvailableDevices(Device.Type type) {
        return getDevices(type);
    }

    @Override
    public Device getDevice(DeviceId deviceId) {
        return devices.get(deviceId);
    }

    @Override
    public MastershipRole getRole(DeviceId deviceId) {
        return devices.containsKey(deviceId) ? MastershipRole.MASTER : MastershipRole.NONE;
    }

    @Override
    public List<Port> getPorts(DeviceId deviceId) {
        return ports.getOrDefault(deviceId, ImmutableList.of());
    }

    @Override
    public Port getPort(DeviceId deviceId, PortNumber portNumber) {
        return getPorts(deviceId).stream().filter(p -> p.number().equals(portNumber)).findFirst().orElse(null);
    }

    @Override
    public boolean isAvailable(DeviceId deviceId) {
        return devices.containsKey(deviceId);
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
