package org.mcast4ai.impl.fabric;

import org.junit.jupiter.api.Test;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DefaultHost;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Host;
import org.onosproject.net.HostId;
import org.onosproject.net.HostLocation;
import org.onosproject.net.PortNumber;
import org.onosproject.net.provider.ProviderId;

import java.util.LinkedHashSet;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The host's location as ONOS answers it, without ONOS's sort. */
class HostResolverTest {
    private static final ProviderId PID = new ProviderId("test", "mcast4ai");

    private static Host host(Set<HostLocation> locations) {
        MacAddress mac = MacAddress.valueOf("00:00:00:00:00:01");
        return new DefaultHost(PID, HostId.hostId(mac), mac, VlanId.NONE, locations, Set.of(), false);
    }

    @Test
    void locationOfIsOnosLocationForAnySetOfLocations() {
        Random random = new Random(7);
        for (int round = 0; round < 2_000; round++) {
            Set<HostLocation> locations = new LinkedHashSet<>();
            int n = random.nextInt(5);
            for (int i = 0; i < n; i++) {
                // few distinct times, so that ties (decided by the set's order) are common
                locations.add(new HostLocation(DeviceId.deviceId("of:" + (1 + random.nextInt(3))),
                        PortNumber.portNumber(1 + random.nextInt(8)), random.nextInt(3)));
            }
            Host h = host(locations);
            if (h.location() == null) {
                assertNull(HostResolver.locationOf(h), "no location, round " + round);
            } else {
                assertSame(h.location(), HostResolver.locationOf(h), "round " + round + ": " + locations);
            }
        }
        assertEquals(HostLocation.NONE, HostResolver.locationOf(host(Set.of(HostLocation.NONE))));
    }
}
