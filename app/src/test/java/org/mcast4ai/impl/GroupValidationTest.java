package org.mcast4ai.impl;

import org.mcast4ai.testing.TestFabric;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.onlab.packet.MacAddress;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mcast4ai.impl.ManagerHarness.request;
import static org.mcast4ai.testing.TestFabric.hostId;

/**
 * Every refusal of the group service: the kind, a message that names the problem, and no change to any
 * existing group or switch.
 */
class GroupValidationTest {
    private ManagerHarness h;
    private P2mpGroup existing;

    @BeforeEach
    void setUp() {
        h = new ManagerHarness();
        existing = h.manager.submit(request("existing", 2, 1, 3, 1));
        h.flows.ackAll();
    }

    /** Runs a call that must be refused and checks that nothing changed. */
    private GroupException refused(GroupException.Kind kind, String messagePart, Executable call) {
        List<P2mpGroup> before = List.copyOf(h.manager.getGroups());
        int batches = h.flows.batches().size();
        GroupException e = assertThrows(GroupException.class, call);
        assertEquals(kind, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
        assertEquals(before, List.copyOf(h.manager.getGroups()), "groups unchanged after: " + e.getMessage());
        assertEquals(batches, h.flows.batches().size(), "no switch touched after: " + e.getMessage());
        return e;
    }

    private static P2mpGroupRequest.Builder base(String name) {
        return P2mpGroupRequest.builder().key(GroupKey.of("tenant-a", name))
                .source(Endpoint.of(hostId(1, 1)));
    }

    @Test
    void unknownHost() {
        refused(GroupException.Kind.INVALID, "unknown host",
                () -> h.manager.submit(base("x").addReceiver(Endpoint.of("00:00:00:00:99:99/None")).build()));
        refused(GroupException.Kind.INVALID, "unknown host",
                () -> h.manager.submit(base("x").addReceiver(Endpoint.of("10.9.9.9")).build()));
        refused(GroupException.Kind.INVALID, "unknown host", () -> h.manager.submit(
                P2mpGroupRequest.builder().key(GroupKey.of("t", "x")).source(Endpoint.of("aa:bb:cc:dd:ee:ff"))
                        .addReceiver(Endpoint.of(hostId(2, 1))).build()));
    }

    @Test
    void malformedHostName() {
        refused(GroupException.Kind.INVALID, "neither an ONOS host id",
                () -> h.manager.submit(base("x").addReceiver(Endpoint.of("not-a-host")).build()));
    }

    @Test
    void unlocatedHost() {
        h.fabric.addUnlocatedHost(MacAddress.valueOf("00:00:00:00:77:01"), "10.7.7.1");
        refused(GroupException.Kind.INVALID, "no known location",
                () -> h.manager.submit(base("x").addReceiver(Endpoint.of("10.7.7.1")).build()));
    }

    @Test
    void ambiguousName() {
        h.fabric.addHostWithIp(MacAddress.valueOf("00:00:00:00:77:02"), TestFabric.ip(2, 1));
        refused(GroupException.Kind.INVALID, "ambiguous",
                () -> h.manager.submit(base("x").addReceiver(Endpoint.of(TestFabric.ip(2, 1))).build()));
    }

    @Test
    void sourceListedAsReceiverUnderAnotherName() {
        refused(GroupException.Kind.INVALID, "is the source host",
                () -> h.manager.submit(base("x").addReceiver(Endpoint.of(TestFabric.ip(1, 1))).build()));
        refused(GroupException.Kind.INVALID, "is the source host",
                () -> h.manager.addReceivers(existing.id(), Set.of(Endpoint.of(TestFabric.mac(1, 1).toString()))));
    }

    @Test
    void duplicateReceiversUnderDifferentNames() {
        refused(GroupException.Kind.INVALID, "are the same host", () -> h.manager.submit(base("x")
                .addReceiver(Endpoint.of(hostId(2, 2))).addReceiver(Endpoint.of(TestFabric.ip(2, 2))).build()));
        refused(GroupException.Kind.INVALID, "are the same host",
                () -> h.manager.addReceivers(existing.id(), Set.of(Endpoint.of(TestFabric.ip(2, 1)))));
        // a member named again is no change (a retried add succeeds); another QPN for it changes it in place
        P2mpGroup before = h.get(existing.id());
        assertEquals(before, h.manager.addReceivers(existing.id(), Set.of(Endpoint.of(hostId(3, 1)))));
        assertEquals(before, h.get(existing.id()), "nothing written");
        h.manager.addReceivers(existing.id(), Set.of(Endpoint.of(hostId(3, 1), 99)));
        assertTrue(h.get(existing.id()).request().receivers().contains(Endpoint.of(hostId(3, 1), 99)));
        assertEquals(before.request().receivers().size(), h.get(existing.id()).request().receivers().size(),
                "the QPN changed in place");
    }

    @Test
    void emptyReceiverSets() {
        assertThrows(GroupException.class, () -> base("x").build(), "the request itself refuses no receivers");
        refused(GroupException.Kind.INVALID, "at least one receiver",
                () -> h.manager.addReceivers(existing.id(), Set.of()));
        refused(GroupException.Kind.INVALID, "at least one receiver",
                () -> h.manager.removeReceivers(existing.id(), Set.of()));
        refused(GroupException.Kind.INVALID, "withdraw the group instead", () -> h.manager.removeReceivers(
                existing.id(), Set.of(Endpoint.of(hostId(2, 1)), Endpoint.of(hostId(3, 1)))));
        // removing a receiver that is not there (a retried removal) succeeds and changes nothing
        P2mpGroup before = h.get(existing.id());
        assertEquals(before, h.manager.removeReceivers(existing.id(), Set.of(Endpoint.of(hostId(4, 1)))));
        assertEquals(before, h.get(existing.id()));
    }

    @Test
    void duplicateKey() {
        refused(GroupException.Kind.CONFLICT, "already exists", () -> h.manager.submit(request("existing", 4, 1)));
    }

    @Test
    void unknownGroup() {
        P2mpGroupId nope = P2mpGroupId.of(999);
        refused(GroupException.Kind.NOT_FOUND, "999",
                () -> h.manager.addReceivers(nope, Set.of(Endpoint.of(hostId(4, 1)))));
        refused(GroupException.Kind.NOT_FOUND, "999", () -> h.manager.withdraw(nope));
        refused(GroupException.Kind.NOT_FOUND, "999", () -> h.manager.purge(nope));
        refused(GroupException.Kind.NOT_FOUND, "999", () -> h.manager.recompile(nope));
    }

    @Test
    void liveGroupCannotBePurged() {
        refused(GroupException.Kind.CONFLICT, "withdraw it before purging", () -> h.manager.purge(existing.id()));
    }

    @Test
    void withdrawnGroupKeepsItsReceivers() {
        h.manager.withdraw(existing.id());
        h.flows.ackAll();
        refused(GroupException.Kind.CONFLICT, "WITHDRAWN",
                () -> h.manager.addReceivers(existing.id(), Set.of(Endpoint.of(hostId(4, 1)))));
        refused(GroupException.Kind.CONFLICT, "WITHDRAWN", () -> h.manager.recompile(existing.id()));
    }

    @Test
    void ackAggregationNeedsQpns() {
        refused(GroupException.Kind.INVALID, "ACK_AGGREGATION needs the QPN",
                () -> h.manager.submit(request("x", 4, 1).toBuilder()
                        .reliability(Reliability.ACK_AGGREGATION).build()));
    }

    @Test
    void priorityMustStayAboveTheBitmapEntryRules() {
        refused(GroupException.Kind.INVALID, "priority must be above 10",
                () -> h.manager.submit(request("x", 4, 1).toBuilder().priority(10).build()));
        h.manager.submit(request("y", 4, 1).toBuilder().priority(11).build());
    }

    @Test
    void receiverLimit() {
        h.configure(OsgiPropertyConstants.MAX_RECEIVERS_PER_GROUP, "2");
        refused(GroupException.Kind.LIMIT, "maxReceiversPerGroup",
                () -> h.manager.submit(request("x", 2, 2, 3, 2, 4, 2)));
        refused(GroupException.Kind.LIMIT, "maxReceiversPerGroup",
                () -> h.manager.addReceivers(existing.id(), Set.of(Endpoint.of(hostId(4, 1)))));
        h.manager.submit(request("two", 2, 2, 3, 2));
    }

    @Test
    void tenantLimit() {
        h.configure(OsgiPropertyConstants.MAX_GROUPS_PER_TENANT, "2");
        h.manager.submit(request("second", 4, 1));
        refused(GroupException.Kind.LIMIT, "maxGroupsPerTenant", () -> h.manager.submit(request("third", 4, 1)));
        P2mpGroup other = h.manager.submit(request("third", 4, 1).toBuilder()
                .key(GroupKey.of("tenant-b", "third")).build());
        assertEquals("tenant-b", other.key().tenant());
    }

    @Test
    void addressPoolExhaustedThenFreedByPurge() {
        h.configure(OsgiPropertyConstants.ADDRESS_POOL, "239.1.2.0/31");
        P2mpGroup second = h.manager.submit(request("second", 4, 1));
        P2mpGroup third = h.manager.submit(request("third", 4, 2));
        assertTrue(second.address().toString().startsWith("239.1.2."), second.address().toString());
        refused(GroupException.Kind.LIMIT, "239.1.2.0/31 is exhausted",
                () -> h.manager.submit(request("fourth", 3, 2)));
        h.flows.ackAll();
        h.manager.withdraw(third.id());
        h.flows.ackAll();
        h.manager.purge(third.id());
        P2mpGroup fourth = h.manager.submit(request("fourth", 3, 2));
        assertEquals(third.address(), fourth.address(), "the purged group's address is free again");
        h.flows.ackAll();
        assertEquals(GroupState.INSTALLED, h.get(fourth.id()).state());
    }

    @Test
    void badPoolConfigurationIsIgnored() {
        h.configure(OsgiPropertyConstants.ADDRESS_POOL, "10.0.0.0/8");
        P2mpGroup g = h.manager.submit(request("x", 4, 1));
        assertTrue(g.address().isMulticast(), g.address().toString());
    }
}
