package org.mcast4ai.impl;

import org.mcast4ai.testing.TestFabric;
import org.mcast4ai.impl.store.DistributedP2mpGroupStore;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.testing.FakeFlowRuleService;
import org.mcast4ai.testing.FakeCoreService;
import com.google.common.util.concurrent.MoreExecutors;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.engine.FabricTreeComputer;
import org.onlab.junit.TestUtils;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.common.event.impl.TestEventDispatcher;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.intent.WorkPartitionServiceAdapter;
import org.onosproject.store.service.TestStorageService;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.ComponentInstance;
import org.osgi.framework.ServiceReference;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongPredicate;

/**
 * A group manager wired as ONOS would wire it, on a {@link TestFabric}, a {@link TestStorageService}, a
 * {@link FakeFlowRuleService} and an executor that runs work inline.
 */
final class ManagerHarness {
    final TestFabric fabric;
    // a switch refuses a rule naming a group it does not hold
    final FakeFlowRuleService flows = new FakeFlowRuleService().groupsFrom((d, g) -> groupHeld(d, g));
    // primitives shared by name, so that another instance (another()) sees the same maps
    final ClusterStorage storage = new ClusterStorage();
    final DistributedP2mpGroupStore store = new DistributedP2mpGroupStore();
    P2mpGroupManager manager;
    final List<P2mpGroupEvent> events = Collections.synchronizedList(new ArrayList<>());
    LongPredicate mine = id -> true;
    // every instance's partition listener: partitionsMoved() tells them all, as ONOS does when leaders change
    private final List<org.onosproject.net.intent.WorkPartitionEventListener> partitionListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    FakeGroupService groups;

    private boolean groupHeld(org.onosproject.net.DeviceId device, org.onosproject.core.GroupId id) {
        return groups == null || groups.holds(device, id);
    }
    // a flow rule service other than the recording one, and the installer lanes (0: run work inline)
    private final FlowRuleService flowService;
    // one core service across restarts, as ONOS keeps one: the manager gets the same id back
    private final FakeCoreService core = new FakeCoreService();
    private final int lanes;
    // the switches' pipeconfs, as ONOS's core has them before the app starts (null: none, an OpenFlow fabric)
    org.onosproject.net.pi.service.PiPipeconfService pipeconfs;

    ManagerHarness(TestFabric fabric, ScheduledExecutorService timer) {
        this(fabric, timer, null);
    }

    /**
     * A manager with its own installer threads, as ONOS runs it.
     *
     * @param fabric      the fabric
     * @param flowService the flow rule service (thread-safe)
     * @param lanes       installer threads
     */
    ManagerHarness(TestFabric fabric, FlowRuleService flowService, int lanes) {
        this.fabric = fabric;
        this.flowService = flowService;
        this.lanes = lanes;
        useStorage(store, storage);
        store.activate();
        manager = newManager(null);
    }

    /**
     * @param fabric the fabric
     * @param timer  install timeout timer, or null
     * @param groups group service for BITMAP's static egress groups, or null (then BITMAP is unavailable)
     */
    ManagerHarness(TestFabric fabric, ScheduledExecutorService timer, FakeGroupService groups) {
        this(fabric, timer, groups, null);
    }

    /**
     * @param fabric    the fabric
     * @param timer     install timeout timer, or null
     * @param groups    group service, or null
     * @param pipeconfs the switches' pipeconfs (P4 switches bound to one), or null
     */
    ManagerHarness(TestFabric fabric, ScheduledExecutorService timer, FakeGroupService groups,
                   org.onosproject.net.pi.service.PiPipeconfService pipeconfs) {
        this.fabric = fabric;
        this.groups = groups;
        this.flowService = flows;
        this.lanes = 0;
        this.pipeconfs = pipeconfs;
        useStorage(store, storage);
        store.activate();
        manager = newManager(timer);
    }

    /** Work partitions changed hands (an instance left or came): every instance hears of it. */
    void partitionsMoved() {
        partitionListeners.forEach(l -> l.event(new org.onosproject.net.intent.WorkPartitionEvent(
                org.onosproject.net.intent.WorkPartitionEvent.Type.LEADER_CHANGED, "work-partition-0")));
    }

    /** Stops the manager and starts a new one on the same store, fabric and switches (an app restart). */
    void restart() {
        manager.deactivate(null);
        manager = newManager(null);
    }

    /**
     * Another instance of the cluster on the same store, fabric and switches.
     *
     * @param partitions which group ids (work partitions) it owns
     * @return the started manager
     */
    P2mpGroupManager another(LongPredicate partitions) {
        DistributedP2mpGroupStore own = new DistributedP2mpGroupStore();
        useStorage(own, storage);
        own.activate();
        return newManager(null, partitions, own);
    }

    private P2mpGroupManager newManager(ScheduledExecutorService timer) {
        return newManager(timer, id -> mine.test(id), store);
    }

    private P2mpGroupManager newManager(ScheduledExecutorService timer, LongPredicate partitions,
                                        DistributedP2mpGroupStore store) {
        P2mpGroupManager manager = new P2mpGroupManager();
        manager.coreService = core;
        manager.store = store;
        manager.deviceService = fabric.devices;
        manager.linkService = fabric.links;
        manager.hostService = fabric.hosts;
        manager.flowRuleService = flowService;
        manager.groupService = groups;
        manager.pipeconfService = pipeconfs;
        manager.cfgService = new ComponentConfigAdapter();
        manager.workPartitionService = new WorkPartitionServiceAdapter() {
            @Override
            @SuppressWarnings("unchecked")
            public <K> boolean isMine(K id, java.util.function.Function<K, Long> hasher) {
                return partitions.test(hasher.apply(id));
            }

            // two instances: this one, and the one that leads the partitions this one does not
            @Override
            public <K> org.onosproject.cluster.NodeId getLeader(K id, java.util.function.Function<K, Long> hasher) {
                return org.onosproject.cluster.NodeId.nodeId(partitions.test(hasher.apply(id)) ? "instance-1"
                        : "instance-2");
            }

            @Override
            public void addListener(org.onosproject.net.intent.WorkPartitionEventListener listener) {
                partitionListeners.add(listener);
            }
        };
        try {
            TestUtils.setField(manager, "eventDispatcher", new TestEventDispatcher());
        } catch (TestUtils.TestUtilsException e) {
            throw new IllegalStateException(e);
        }
        manager.timer = timer;
        manager.treeComputer = new FabricTreeComputer();
        if (lanes == 0) {
            manager.executor = MoreExecutors.directExecutor();
            manager.activate(null);
        } else {
            Hashtable<String, Object> props = new Hashtable<>();
            props.put(OsgiPropertyConstants.INSTALLER_THREADS, lanes);
            manager.activate(context(props));
        }
        manager.addListener(events::add);
        return manager;
    }

    ManagerHarness() {
        this(TestFabric.leafSpine(), null);
    }

    /** Applies configuration as ONOS's config service would. */
    void configure(String... keyValues) {
        Hashtable<String, Object> props = new Hashtable<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        manager.modified(context(props));
    }

    /** @return a request from host 1 of leaf 1 to the given hosts ({leaf, host} pairs), mode AUTO */
    static P2mpGroupRequest request(String name, int... leafHostPairs) {
        P2mpGroupRequest.Builder b = P2mpGroupRequest.builder().key(GroupKey.of("tenant-a", name)).jobId("job-1")
                .source(Endpoint.of(TestFabric.hostId(1, 1)));
        for (int i = 0; i < leafHostPairs.length; i += 2) {
            b.addReceiver(Endpoint.of(TestFabric.hostId(leafHostPairs[i], leafHostPairs[i + 1])));
        }
        return b.build();
    }

    P2mpGroup get(P2mpGroupId id) {
        return manager.getGroup(id).orElseThrow();
    }

    static ComponentContext context(Dictionary<String, Object> props) {
        return new ComponentContext() {
            @Override
            public Dictionary<String, Object> getProperties() {
                return props;
            }

            @Override
            public <S> S locateService(String name) {
                return null;
            }

            @Override
            public <S> S locateService(String name, ServiceReference<S> reference) {
                return null;
            }

            @Override
            public Object[] locateServices(String name) {
                return null;
            }

            @Override
            public BundleContext getBundleContext() {
                return null;
            }

            @Override
            public Bundle getUsingBundle() {
                return null;
            }

            @Override
            public <S> ComponentInstance<S> getComponentInstance() {
                return null;
            }

            @Override
            public void enableComponent(String name) {
            }

            @Override
            public void disableComponent(String name) {
            }

            @Override
            public ServiceReference<?> getServiceReference() {
                return null;
            }
        };
    }

    private static void useStorage(org.mcast4ai.impl.store.DistributedP2mpGroupStore store,
                                   org.onosproject.store.service.StorageService storage) {
        try {
            org.onlab.junit.TestUtils.setField(store, "storageService", storage);
        } catch (org.onlab.junit.TestUtils.TestUtilsException e) {
            throw new IllegalStateException(e);
        }
    }
}
