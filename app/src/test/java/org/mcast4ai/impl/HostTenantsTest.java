package org.mcast4ai.impl;

import org.mcast4ai.testing.TestFabric;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.P2mpGroupRequest;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DefaultHost;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Host;
import org.onosproject.net.HostId;
import org.onosproject.net.HostLocation;
import org.onosproject.net.PortNumber;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostTenantsTest {

    private static Host host(String mac, String ip) {
        MacAddress m = MacAddress.valueOf(mac);
        return new DefaultHost(TestFabric.PID, HostId.hostId(m, VlanId.NONE), m, VlanId.NONE,
                new HostLocation(DeviceId.deviceId("of:1"), PortNumber.portNumber(1), 0),
                Set.of(IpAddress.valueOf(ip)));
    }

    @Test
    void hostsAreOwnedByPrefixOrMacAndTheRestAreAnyones() {
        HostTenants t = HostTenants.parse(" t1=10.77.1.0/24, 02:00:00:00:09:09 ; t2=10.77.2.7 ;");
        assertEquals("t1", t.ownerOf(host("02:00:00:00:01:01", "10.77.1.9")));
        assertEquals("t1", t.ownerOf(host("02:00:00:00:09:09", "10.77.2.7")), "the MAC decides first");
        assertEquals("t2", t.ownerOf(host("02:00:00:00:02:07", "10.77.2.7")));
        assertNull(t.ownerOf(host("02:00:00:00:03:01", "10.77.3.1")));
        assertTrue(HostTenants.parse("").isEmpty());
    }

    @Test
    void aMalformedOrContradictorySettingIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HostTenants.parse("t1=10.77.1.0/24;t2=10.77.1.5"));
        assertTrue(e.getMessage().contains("t1") && e.getMessage().contains("t2"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> HostTenants.parse("=10.0.0.1"));
        assertThrows(IllegalArgumentException.class, () -> HostTenants.parse("t1=not-a-host"));
    }

    @Test
    void aGroupMayNotNameAnotherTenantsHost() {
        try (HostedManager m = HostedManager.withHosts(8)) {
            m.configure("hostTenants", "t2=10.0.0.7,10.0.0.8");
            P2mpGroupRequest intruding = P2mpGroupRequest.builder().key(GroupKey.of("t1", "g"))
                    .source(Endpoint.of("10.0.0.1")).addReceiver(Endpoint.of("10.0.0.2"))
                    .addReceiver(Endpoint.of("10.0.0.7")).build();
            GroupException e = assertThrows(GroupException.class, () -> m.service().submit(intruding));
            assertEquals(GroupException.Kind.FORBIDDEN, e.kind());
            assertTrue(e.getMessage().contains("10.0.0.7") && e.getMessage().contains("tenant t2"), e.getMessage());
            P2mpGroupRequest taking = P2mpGroupRequest.builder().key(GroupKey.of("t1", "h"))
                    .source(Endpoint.of("10.0.0.8")).addReceiver(Endpoint.of("10.0.0.2")).build();
            assertThrows(GroupException.class, () -> m.service().submit(taking), "nor send as another's host");
            assertEquals(0, m.service().groupCount());
            // its own and unowned hosts are fine; the owner uses its own hosts
            var own = m.service().submit(P2mpGroupRequest.builder().key(GroupKey.of("t1", "ok"))
                    .source(Endpoint.of("10.0.0.1")).addReceiver(Endpoint.of("10.0.0.2")).build());
            GroupException add = assertThrows(GroupException.class,
                    () -> m.service().addReceivers(own.id(), Set.of(Endpoint.of("10.0.0.8"))));
            assertEquals(GroupException.Kind.FORBIDDEN, add.kind());
            m.service().submit(P2mpGroupRequest.builder().key(GroupKey.of("t2", "mine"))
                    .source(Endpoint.of("10.0.0.7")).addReceiver(Endpoint.of("10.0.0.8"))
                    .addReceiver(Endpoint.of("10.0.0.3")).build());
            assertEquals(2, m.service().groupCount());
        }
    }
}
