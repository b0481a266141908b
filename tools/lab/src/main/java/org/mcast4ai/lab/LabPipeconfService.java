package org.mcast4ai.lab;

import org.onosproject.net.DeviceId;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipeconfId;
import org.onosproject.net.pi.service.PiPipeconfService;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * ONOS's pipeconf service for the P4 lab: every switch of the fabric is bound to the pipeconf it was started with
 * (as the network configuration's {@code "pipeconf"} binds a device when it connects). The pipeconf object itself
 * is not built here: the app asks only which pipeconf a device runs.
 */
public class LabPipeconfService implements PiPipeconfService {
    private final Map<DeviceId, PiPipeconfId> bound = new ConcurrentHashMap<>();

    /**
     * @param devices  the P4 switches
     * @param pipeconf the pipeconf they run
     */
    public LabPipeconfService(Set<DeviceId> devices, PiPipeconfId pipeconf) {
        devices.forEach(d -> bound.put(d, pipeconf));
    }

    @Override
    public void register(PiPipeconf pipeconf) {
        // the lab's switches run the program they were started with
    }

    @Override
    public void unregister(PiPipeconfId id) {
        // nothing registered
    }

    @Override
    public Iterable<PiPipeconf> getPipeconfs() {
        return List.of();
    }

    @Override
    public Optional<PiPipeconf> getPipeconf(PiPipeconfId id) {
        return Optional.empty();
    }

    @Override
    public Optional<PiPipeconf> getPipeconf(DeviceId deviceId) {
        return Optional.empty();
    }

    @Override
    public void bindToDevice(PiPipeconfId id, DeviceId deviceId) {
        bound.put(deviceId, id);
    }

    @Override
    public String getMergedDriver(DeviceId deviceId, PiPipeconfId pipeconfId) {
        return null;
    }

    @Override
    public Optional<PiPipeconfId> ofDevice(DeviceId deviceId) {
        return Optional.ofNullable(bound.get(deviceId));
    }

    @Override
    public void addListener(org.onosproject.net.pi.service.PiPipeconfListener listener) {
        // the bindings never change
    }

    @Override
    public void removeListener(org.onosproject.net.pi.service.PiPipeconfListener listener) {
        // the bindings never change
    }
}
