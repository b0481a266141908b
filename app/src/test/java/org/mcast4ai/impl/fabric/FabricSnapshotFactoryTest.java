package org.mcast4ai.impl.fabric;

import org.mcast4ai.testing.TestFabric;
import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.Role;
import org.onlab.packet.MacAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mcast4ai.testing.TestFabric.hostId;
import static org.mcast4ai.testing.TestFabric.leaf;
import static org.mcast4ai.testing.TestFabric.spine;

/** The snapshot mirrors available devices, active links and located hosts; it is rebuilt only when stale. */
class FabricSnapshotFactoryTest {
    private final TestFabric fabric = TestFabric.leafSpine();
    private final FabricSnapshotFactory factory =
            new FabricSnapshotFactory(fabric.devices, fabric.links, fabric.hosts);

    @Test
    void mirrorsTheFabric() {
        FabricSnapshot s = factory.snapshot();
        assertEquals(6, s.switchCount());
        assertEquals(16, s.linkCount(), "8 cables, both directions");
        assertEquals(8, s.hostCount());
        assertEquals(Role.SPINE, s.role(s.switchIndex(spine(1).toString())));
        assertEquals(Role.LEAF, s.role(s.switchIndex(leaf(3).toString())));
        int h = s.hostIndex(hostId(3, 2));
        assertEquals(s.switchIndex(leaf(3).toString()), s.hostSwitch(h));
        assertEquals(2L, s.hostPort(h));
    }

    @Test
    void reusesTheSnapshotUntilInvalidated() {
        FabricSnapshot first = factory.snapshot();
        assertSame(first, factory.snapshot());
        fabric.linkDown(1, 1);
        assertSame(first, factory.snapshot(), "the factory rebuilds on invalidate(), not on every call");
        factory.invalidate();
        FabricSnapshot second = factory.snapshot();
        assertNotSame(first, second);
        assertEquals(14, second.linkCount());
    }

    @Test
    void leavesOutUnavailableDevicesAndUnlocatedHosts() {
        fabric.addUnlocatedHost(MacAddress.valueOf("00:00:00:00:77:01"), "10.7.7.1");
        fabric.deviceDown(leaf(4));
        factory.invalidate();
        FabricSnapshot s = factory.snapshot();
        assertEquals(5, s.switchCount());
        assertEquals(6, s.hostCount(), "hosts of leaf 4 and the unlocated host are left out");
        assertEquals(-1, s.hostIndex(hostId(4, 1)));
        assertTrue(s.linkCount() == 12);
    }
}
