package org.mcast4ai.bench;

import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupListener;
import org.mcast4ai.lab.ComponentHost;
import org.mcast4ai.lab.Lab;
import org.mcast4ai.lab.LabCoreService;
import org.mcast4ai.lab.LabDeviceService;
import org.mcast4ai.lab.LabEventDispatcher;
import org.mcast4ai.lab.LabHostService;
import org.mcast4ai.lab.LabTopology;
import org.mcast4ai.lab.LabLinkService;
import org.mcast4ai.lab.LabWorkPartitionService;
import org.mcast4ai.lab.ServiceRegistry;
import org.mcast4ai.impl.OsgiPropertyConstants;
import org.mcast4ai.impl.P2mpGroupManager;
import org.mcast4ai.testing.FakeFlowRuleService;
import org.mcast4ai.testing.FakeGroupService;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.core.CoreService;
import org.onosproject.event.EventDeliveryService;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.host.HostService;
import org.onosproject.net.intent.WorkPartitionService;
import org.onosproject.net.link.LinkService;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.TestStorageService;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * The mcast4ai components (the group store and manager, as the lab hosts them) running in-process on ONOS
 * service doubles over a generated fabric: {@link TestStorageService}, the lab's Core/Device/Link/Host/
 * WorkPartition services and event dispatcher, a FlowRuleService that acknowledges every batch at once
 * (no switch I/O) and a GroupService that adds every group at once (the app's test double). The manager
 * runs with its own installer lanes (property installerThreads); callers wait for the states through a
 * {@link P2mpGroupListener}.
 */
final class ChurnHost implements AutoCloseable {

    /** Hosted components: the lab's list without the REST codecs. */
    static final List<String> COMPONENTS = Lab.COMPONENTS.stream()
            .filter(c -> c.startsWith("org.mcast4ai.impl."))
            .collect(Collectors.toList());

    final P2mpGroupAdminService service;
    final FakeFlowRuleService flows = new FakeFlowRuleService().autoAck(true).recording(false);
    private final LabEventDispatcher events = new LabEventDispatcher();
    private final ComponentHost host;
    private final Map<String, Waiter> waiters = new ConcurrentHashMap<>();
    private final P2mpGroupListener listener = this::event;
    private volatile long lastEventAt = System.nanoTime();

    /** A client waiting for one group (by key name) to reach INSTALLED, then WITHDRAWN. */
    static final class Waiter {
        final Thread thread = Thread.currentThread();
        volatile long installedAt;
        volatile long withdrawnAt;
        volatile String failure;

        /** Parks until INSTALLED (or a failure). */
        void awaitInstalled() {
            while (installedAt == 0 && failure == null) {
                LockSupport.parkNanos(this, 1_000_000_000L);
            }
            check();
        }

        /** Parks until WITHDRAWN (or a failure). */
        void awaitWithdrawn() {
            while (withdrawnAt == 0 && failure == null) {
                LockSupport.parkNanos(this, 1_000_000_000L);
            }
            check();
        }

        private void check() {
            if (failure != null) {
                throw new IllegalStateException(failure);
            }
        }
    }

    /**
     * @param fabric the fabric
     * @param lanes  installer threads (the manager's installerThreads; 0: one per core)
     */
    ChurnHost(ChurnFabric fabric, int lanes) {
        this(fabric, lanes, LabTopology.full(fabric.lab));
    }

    /**
     * @param fabric   the fabric
     * @param lanes    installer threads (the manager's installerThreads; 0: one per core)
     * @param topology what of the fabric exists (updating it raises ONOS's device, link and host events)
     */
    ChurnHost(ChurnFabric fabric, int lanes, LabTopology topology) {
        ServiceRegistry registry = new ServiceRegistry();
        registry.register(CoreService.class, new LabCoreService())
                .register(StorageService.class, new TestStorageService())
                .register(DeviceService.class, new LabDeviceService(topology))
                .register(LinkService.class, new LabLinkService(topology))
                .register(HostService.class, new LabHostService(topology))
                .register(FlowRuleService.class, flows)
                .register(GroupService.class, new FakeGroupService())
                .register(WorkPartitionService.class, new LabWorkPartitionService())
                .register(ComponentConfigService.class, new ComponentConfigAdapter())
                .register(EventDeliveryService.class, events);
        host = new ComponentHost(registry);
        host.configure(P2mpGroupManager.class.getName(), OsgiPropertyConstants.INSTALLER_THREADS, lanes);
        host.activate(COMPONENTS);
        service = registry.get(P2mpGroupAdminService.class);
        service.addListener(listener);
    }

    /**
     * Registers a waiter for a group key name; call before submitting it, on the thread that will wait.
     *
     * @param name group key name (unique in the run)
     * @return the waiter
     */
    Waiter expect(String name) {
        Waiter w = new Waiter();
        waiters.put(name, w);
        return w;
    }

    void forget(String name) {
        waiters.remove(name);
    }

    private void event(P2mpGroupEvent event) {
        lastEventAt = System.nanoTime();
        P2mpGroup g = event.subject();
        Waiter w = waiters.get(g.key().name());
        if (w == null) {
            return;
        }
        GroupState s = g.state();
        if (s == GroupState.INSTALLED && w.installedAt == 0) {
            w.installedAt = System.nanoTime();
            LockSupport.unpark(w.thread);
        } else if (s == GroupState.WITHDRAWN && w.withdrawnAt == 0) {
            w.withdrawnAt = System.nanoTime();
            LockSupport.unpark(w.thread);
        } else if (s == GroupState.FAILED || s == GroupState.DEGRADED) {
            w.failure = "group " + g.key() + " is " + s + ": " + g.reason();
            LockSupport.unpark(w.thread);
        }
    }

    @Override
    public void close() {
        // let the dispatcher deliver the last purges' events before the manager removes its sink
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() - lastEventAt < 200_000_000L && System.nanoTime() < deadline) {
            LockSupport.parkNanos(20_000_000L);
        }
        service.removeListener(listener);
        host.close();
        events.close();
    }
}
