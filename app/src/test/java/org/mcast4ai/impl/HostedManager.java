package org.mcast4ai.impl;

import org.mcast4ai.testing.TestFabric;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.testing.FakeFlowRuleService;
import org.mcast4ai.testing.FakeGroupService;
import org.onlab.packet.MacAddress;

/**
 * The real {@link P2mpGroupManager}, wired as ONOS wires it, for the tests of the modules in front of it (REST,
 * CLI): a 2-spine, 4-leaf fabric whose hosts are {@code 10.0.0.1} to {@code 10.0.0.N} (host i on leaf
 * ((i - 1) mod 4) + 1, port 10 + i), the distributed store on ONOS's test storage, and the shared flow rule and
 * group service doubles; switches acknowledge at once unless {@link #flows()} is told otherwise.
 */
public final class HostedManager implements AutoCloseable {
    private final ManagerHarness harness;

    private HostedManager(ManagerHarness harness) {
        this.harness = harness;
    }

    /**
     * @param hosts  how many hosts ({@code 10.0.0.1} ...)
     * @param config configuration keys and values, as ONOS's config service would apply them
     * @return a started manager
     */
    public static HostedManager withHosts(int hosts, String... config) {
        TestFabric fabric = new TestFabric(2, 4, 0);
        for (int i = 1; i <= hosts; i++) {
            fabric.addHost((i - 1) % 4 + 1, 10 + i, MacAddress.valueOf(0x0a0000000000L + i), "10.0.0." + i);
        }
        ManagerHarness h = new ManagerHarness(fabric, null, new FakeGroupService());
        h.flows.autoAck(true);
        // the static BITMAP tables the manager pushed when it started
        h.flows.ackAll();
        if (config.length > 0) {
            h.configure(config);
        }
        return new HostedManager(h);
    }

    /** @return the group service, as the REST resources and CLI commands find it */
    public P2mpGroupAdminService service() {
        return harness.manager;
    }

    /** @return the fabric: its devices, links and hosts, and the faults it can be given */
    public TestFabric fabric() {
        return harness.fabric;
    }

    /** @return the switches' flow tables and acknowledgements */
    public FakeFlowRuleService flows() {
        return harness.flows;
    }

    /**
     * Applies configuration as ONOS's config service would ({@code cfg set}).
     *
     * @param keyValues keys and values
     */
    public void configure(String... keyValues) {
        harness.configure(keyValues);
    }

    @Override
    public void close() {
        harness.manager.deactivate(null);
    }
}
