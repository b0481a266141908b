package org.mcast4ai.impl.p4;

import org.mcast4ai.impl.ClusterStorage;
import org.mcast4ai.testing.FakeFlowRuleService;
import org.mcast4ai.testing.FakeGroupService;
import org.mcast4ai.testing.FakePacketService;
import org.mcast4ai.testing.FakePipeconfService;
import org.mcast4ai.testing.TestFabric;
import org.mcast4ai.testing.FakeCoreService;
import org.onosproject.net.intent.WorkPartitionServiceAdapter;

import java.util.function.BooleanSupplier;
import java.util.function.Function;

/** A {@link P4FabricManager} on a test fabric's services, for tests outside its package. */
public final class P4FabricManagerAccess {
    private final P4FabricManager manager = new P4FabricManager();

    /**
     * Starts it; nothing runs it until a group manager binds it (or the test calls {@link #run()}).
     *
     * @param fabric    the fabric
     * @param flows     the flow rule service
     * @param groups    the group service
     * @param pipeconfs the pipeconf service, with the P4 switches bound
     */
    public P4FabricManagerAccess(TestFabric fabric, FakeFlowRuleService flows, FakeGroupService groups,
                                 FakePipeconfService pipeconfs) {
        this(fabric, flows, groups, pipeconfs, null);
    }

    /**
     * Starts it with a packet service: the source leaves' aggregators start and report through it.
     *
     * @param fabric    the fabric
     * @param flows     the flow rule service
     * @param groups    the group service
     * @param pipeconfs the pipeconf service, with the P4 switches bound
     * @param packets   the packet service, or null (ONOS always has one; then no aggregator starts)
     */
    public P4FabricManagerAccess(TestFabric fabric, FakeFlowRuleService flows, FakeGroupService groups,
                                 FakePipeconfService pipeconfs, FakePacketService packets) {
        wire(manager, fabric, flows, groups, pipeconfs, () -> true);
        manager.packetService = packets;
        manager.activate();
    }

    /**
     * Gives a manager the test fabric's services, as SCR would; ONOS's core service gives every application
     * name its own id (the group manager's harness gives its app 7).
     *
     * @param m         the manager
     * @param fabric    the fabric
     * @param flows     the flow rule service
     * @param groups    the group service
     * @param pipeconfs the pipeconf service
     * @param mine      whether this instance owns work partition 0
     */
    static void wire(P4FabricManager m, TestFabric fabric, FakeFlowRuleService flows, FakeGroupService groups,
                     FakePipeconfService pipeconfs, BooleanSupplier mine) {
        wire(m, fabric, flows, groups, pipeconfs, mine, new ClusterStorage());
    }

    /**
     * Like {@link #wire(P4FabricManager, TestFabric, FakeFlowRuleService, FakeGroupService, FakePipeconfService,
     * BooleanSupplier)}, on a given store (shared by instances or kept across a restart).
     *
     * @param m         the manager
     * @param fabric    the fabric
     * @param flows     the flow rule service
     * @param groups    the group service
     * @param pipeconfs the pipeconf service
     * @param mine      whether this instance owns work partition 0
     * @param storage   the store
     */
    static void wire(P4FabricManager m, TestFabric fabric, FakeFlowRuleService flows, FakeGroupService groups,
                     FakePipeconfService pipeconfs, BooleanSupplier mine, ClusterStorage storage) {
        m.storageService = storage;
        m.coreService = new FakeCoreService();
        m.deviceService = fabric.devices;
        m.linkService = fabric.links;
        m.hostService = fabric.hosts;
        m.flowRuleService = flows;
        m.groupService = groups;
        m.pipeconfService = pipeconfs;
        m.workPartitionService = new WorkPartitionServiceAdapter() {
            @Override
            public <K> boolean isMine(K id, Function<K, Long> hasher) {
                return mine.getAsBoolean();
            }
        };
    }

    /** @param d a switch back (possibly empty), as its device event tells the manager, without the event */
    public void deviceReturned(org.onosproject.net.DeviceId d) {
        manager.deviceReturned(d);
    }

    /** @return what one run wrote */
    public P4StaticProgrammer.Writes run() {
        return manager.run();
    }

    /** @param r a table entry: fails unless the program's P4Info has its table, fields and action */
    public static void checkAgainstP4Info(org.onosproject.net.flow.FlowRule r) {
        P4FabricPlannerTest.check(r);
    }

    /**
     * @param b a build of the program
     * @param r a table entry: fails unless that build's P4Info has its table, fields and action, in its widths
     */
    public static void checkAgainstP4Info(Mcast4aiPipeconf.Build b, org.onosproject.net.flow.FlowRule r) {
        P4FabricPlannerTest.check(MODELS.computeIfAbsent(b, x -> {
            try {
                return org.onosproject.p4runtime.model.P4InfoParser.parse(
                        Mcast4aiPipeconf.class.getResource(x.p4info()));
            } catch (org.onosproject.p4runtime.model.P4InfoParserException e) {
                throw new AssertionError(e);
            }
        }), r);
    }

    private static final java.util.Map<Mcast4aiPipeconf.Build, org.onosproject.net.pi.model.PiPipelineModel> MODELS =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** @return the manager, for a group manager to bind as SCR would */
    public P4FabricManager manager() {
        return manager;
    }

    /** Stops it. */
    public void stop() {
        manager.deactivate();
    }
}
