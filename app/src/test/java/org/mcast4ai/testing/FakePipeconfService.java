package org.mcast4ai.testing;

import org.onosproject.net.DeviceId;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipeconfId;
import org.onosproject.net.pi.service.PiPipeconfListener;
import org.onosproject.net.pi.service.PiPipeconfService;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one pipeconf service double of the app's tests: registered pipeconfs and the devices bound to them, with
 * ONOS's rule that an id is registered at most once. (Not ONOS's adapter: its package is not exported, and the
 * OSGi wiring test registers this one.)
 */
public final class FakePipeconfService implements PiPipeconfService {
    private final Map<PiPipeconfId, PiPipeconf> pipeconfs = new ConcurrentHashMap<>();
    private final Map<DeviceId, PiPipeconfId> bound = new ConcurrentHashMap<>();

    @Override
    public void register(PiPipeconf pipeconf) {
        if (pipeconfs.putIfAbsent(pipeconf.id(), pipeconf) != null) {
            throw new IllegalStateException("Pipeconf " + pipeconf.id() + " is already registered");
        }
    }

    @Override
    public void unregister(PiPipeconfId id) {
        if (pipeconfs.remove(id) == null) {
            throw new IllegalStateException("Pipeconf " + id + " is not registered");
        }
    }

    @Override
    public Iterable<PiPipeconf> getPipeconfs() {
        return pipeconfs.values();
    }

    @Override
    public Optional<PiPipeconf> getPipeconf(PiPipeconfId id) {
        return Optional.ofNullable(pipeconfs.get(id));
    }

    @Override
    public Optional<PiPipeconf> getPipeconf(DeviceId deviceId) {
        return ofDevice(deviceId).map(pipeconfs::get);
    }

    @Override
    public void bindToDevice(PiPipeconfId id, DeviceId deviceId) {
        bound.put(deviceId, id);
    }

    @Override
    public Optional<PiPipeconfId> ofDevice(DeviceId deviceId) {
        return Optional.ofNullable(bound.get(deviceId));
    }

    @Override
    public String getMergedDriver(DeviceId deviceId, PiPipeconfId pipeconfId) {
        return null;
    }

    @Override
    public void addListener(PiPipeconfListener listener) {
        // no pipeconf events here
    }

    @Override
    public void removeListener(PiPipeconfListener listener) {
        // no pipeconf events here
    }
}
