package org.mcast4ai.impl.p4;

import org.mcast4ai.testing.FakeFlowRuleService;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.testing.FakePipeconfService;
import org.mcast4ai.testing.TestFabric;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.intent.WorkPartitionServiceAdapter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/** A {@link P4FabricManager} on a test fabric's services, for tests outside its package. */
public final class P4FabricManagerAccess {
    private final P4FabricManager manager = new P4FabricManager();

    /**
     * Starts it (its timer far off: the test runs it).
     *
     * @param fabric    the fabric
     * @param flows     the flow rule service
     * @param groups    the group service
     * @param pipeconfs the pipeconf service, with the P4 switches bound
     */
    public P4FabricManagerAccess(TestFabric fabric, FakeFlowRuleService flows, FakeGroupService groups,
                                 FakePipeconfService pipeconfs) {
        Map<String, ApplicationId> ids = new ConcurrentHashMap<>();
        manager.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                // ONOS gives every name its own id; 7 is what the group manager's harness gives its app
                return ids.computeIfAbsent(name, n -> new DefaultApplicationId(
                        n.equals(org.mcast4ai.impl.P2mpGroupManager.APP_NAME) ? 7 : 100 + ids.size(), n));
            }
        };
        manager.deviceService = fabric.devices;
        manager.linkService = fabric.links;
        manager.hostService = fabric.hosts;
        manager.flowRuleService = flows;
        manager.groupService = groups;
        manager.pipeconfService = pipeconfs;
        manager.workPartitionService = new WorkPartitionServiceAdapter() {
            @Override
            public <K> boolean isMine(K id, Function<K, Long> hasher) {
                return true;
            }
        };
        manager.auditMs = 3_600_000;
        manager.activate();
    }

    /** @return what one run wrote */
    public P4StaticProgrammer.Writes run() {
        return manager.run();
    }

    /** Stops it. */
    public void stop() {
        manager.deactivate();
    }
}
