package org.mcast4ai.impl.store;

import org.onlab.packet.MacAddress;
import org.mcast4ai.impl.bitmap.BitmapStamp;
import org.mcast4ai.impl.program.Programmed;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.ReplicationMode;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.TestStorageService;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Id, key and address allocation, freeing on removal, events, and the Kryo namespace. */
class DistributedP2mpGroupStoreTest {
    private static final IpPrefix POOL = IpPrefix.valueOf("239.5.0.0/29");

    private DistributedP2mpGroupStore store;
    private final List<P2mpGroupEvent> events = new ArrayList<>();

    @BeforeEach
    void setUp() {
        store = new DistributedP2mpGroupStore();
        store.storageService = new TestStorageService();
        store.activate();
        store.setDelegate(events::add);
    }

    private static P2mpGroupRequest request(String tenant, String name) {
        return P2mpGroupRequest.builder().key(GroupKey.of(tenant, name)).source(Endpoint.of("10.0.0.1"))
                .addReceiver(Endpoint.of("10.0.0.2", 17)).addReceiver(Endpoint.of("00:00:00:00:00:03"))
                .mode(ReplicationMode.TREE).build();
    }

    @Test
    void removalFreesKeyAndAddressEveryTime() {
        // the key and address maps hold the group id as their value: removing them must compare that value,
        // not take the id for a map version (a refused duplicate consumes an id, so ids and versions diverge)
        store.create(request("t", "dup"), POOL, 1L);
        assertThrows(GroupException.class, () -> store.create(request("t", "dup"), POOL, 1L));
        for (int i = 0; i < 20; i++) {
            P2mpGroup g = store.create(request("t", "same"), POOL, 1000L + i);
            for (int j = 0; j < 4; j++) {
                store.create(request("t", "other" + j), POOL, 1000L + i);
            }
            assertTrue(store.remove(g.id()).isPresent());
            for (int j = 0; j < 4; j++) {
                P2mpGroup other = store.get(GroupKey.of("t", "other" + j)).orElseThrow();
                assertTrue(store.remove(other.id()).isPresent());
            }
            assertFalse(store.get(GroupKey.of("t", "same")).isPresent());
        }
    }

    @Test
    void allocatesDistinctIdsAndAddressesFromThePool() {
        Set<IpAddress> addresses = new HashSet<>();
        Set<Long> ids = new HashSet<>();
        // a /29 has 8 addresses: its network and broadcast addresses are never handed out
        IpAddress network = POOL.address();
        IpAddress broadcast = IpAddress.valueOf(POOL.address().getIp4Address().toInt() + 7);
        for (int i = 0; i < 6; i++) {
            P2mpGroup g = store.create(request("t", "g" + i), POOL, 1000L);
            assertTrue(POOL.contains(g.address()), g.address().toString());
            assertNotEquals(network, g.address());
            assertNotEquals(broadcast, g.address());
            if (i == 0) {
                assertEquals(IpAddress.valueOf(network.getIp4Address().toInt() + 1), g.address(),
                        "allocation starts at the pool's first host address");
            }
            assertTrue(addresses.add(g.address()), "address reused: " + g.address());
            assertTrue(ids.add(g.id().value()));
            assertEquals(GroupState.SUBMITTED, g.state());
        }
        GroupException e = assertThrows(GroupException.class, () -> store.create(request("t", "g6"), POOL, 1L));
        assertEquals(GroupException.Kind.LIMIT, e.kind());
        assertFalse(store.get(GroupKey.of("t", "g6")).isPresent(), "a refused group leaves no key behind");
    }

    @Test
    void removalFreesKeyAndAddress() {
        P2mpGroup g = store.create(request("t", "a"), POOL, 1L);
        store.setProgrammed(g.id(), new Programmed(Programmed.entriesOf(plan()), Programmed.entriesOf(plan()),
                plan().links()));
        assertEquals(g, store.remove(g.id()).orElseThrow());
        assertTrue(store.get(g.id()).isEmpty());
        assertTrue(store.programmed(g.id()).treePlan().branches().isEmpty());
        assertTrue(store.programmed(g.id()).uncertainTreePlan().branches().isEmpty());
        P2mpGroup again = store.create(request("t", "a"), IpPrefix.valueOf(g.address(), 32), 2L);
        assertEquals(g.address(), again.address());
        assertTrue(again.id().value() > g.id().value(), "ids are never reused");
    }

    @Test
    void duplicateKeyIsAConflictAndLeaksNoAddress() {
        IpPrefix one = IpPrefix.valueOf("239.5.0.9/32");
        store.create(request("t", "a"), POOL, 1L);
        GroupException e = assertThrows(GroupException.class, () -> store.create(request("t", "a"), one, 1L));
        assertEquals(GroupException.Kind.CONFLICT, e.kind());
        assertEquals(IpAddress.valueOf("239.5.0.9"), store.create(request("t", "b"), one, 1L).address());
    }

    @Test
    void countsGroupsPerTenant() {
        store.create(request("t1", "a"), POOL, 1L);
        store.create(request("t1", "b"), POOL, 1L);
        store.create(request("t2", "a"), POOL, 1L);
        assertEquals(2, store.tenantGroupCount("t1"));
        assertEquals(1, store.tenantGroupCount("t2"));
        assertEquals(0, store.tenantGroupCount("t"));
    }

    @Test
    void mapChangesBecomeGroupEvents() {
        P2mpGroup g = store.create(request("t", "a"), POOL, 1L);
        store.update(g.id(), cur -> cur.withState(GroupState.COMPILING, 2L, ""));
        store.update(g.id(), cur -> cur.withRequest(cur.request().toBuilder()
                .addReceiver(Endpoint.of("10.0.0.9")).build()));
        store.update(g.id(), cur -> cur);
        store.remove(g.id());
        assertEquals(List.of(P2mpGroupEvent.Type.GROUP_ADDED, P2mpGroupEvent.Type.GROUP_STATE_CHANGED,
                P2mpGroupEvent.Type.GROUP_UPDATED, P2mpGroupEvent.Type.GROUP_REMOVED),
                events.stream().map(P2mpGroupEvent::type).collect(java.util.stream.Collectors.toList()));
    }

    @Test
    void refusedUpdateWritesNothing() {
        P2mpGroup g = store.create(request("t", "a"), POOL, 1L);
        assertThrows(GroupException.class, () -> store.update(g.id(), cur -> {
            throw GroupException.conflict("no");
        }));
        assertEquals(g, store.get(g.id()).orElseThrow());
    }

    private static GroupPlan plan() {
        DeviceId a = DeviceId.deviceId("of:0000000000000201");
        DeviceId b = DeviceId.deviceId("of:0000000000000101");
        return new GroupPlan(ImmutableMap.of(
                a, new GroupPlan.Branch(PortNumber.portNumber(1), ImmutableSet.of(PortNumber.portNumber(3),
                        PortNumber.portNumber(2))),
                b, new GroupPlan.Branch(PortNumber.portNumber(1), ImmutableSet.of(PortNumber.portNumber(2)))),
                List.<ConnectPoint[]>of(new ConnectPoint[]{new ConnectPoint(a, PortNumber.portNumber(3)),
                        new ConnectPoint(b, PortNumber.portNumber(1))}));
    }

    @Test
    void kryoNamespaceRoundTripsGroupsAndPlans() {
        Serializer s = Serializer.using(P2mpSerializers.API);
        P2mpGroup g = store.create(request("t", "a"), POOL, 1L)
                .withEffectiveMode(ReplicationMode.TREE, "why")
                .withUnreachable(ImmutableSet.of(Endpoint.of("10.0.0.2", 17)))
                .withState(GroupState.DEGRADED, 5L, "one unreachable");
        P2mpGroup back = s.decode(s.encode(g));
        assertEquals(g, back);
        assertEquals(g.history(), back.history());
        assertEquals(g.request(), back.request());

        GroupPlan p = plan();
        GroupPlan copy = s.decode(s.encode(p));
        assertEquals(p, copy);
        assertTrue(copy.changedDevices(p).isEmpty());
        assertEquals(p.links().get(0)[1], copy.links().get(0)[1]);

        BitmapStamp stamp = new BitmapStamp(DeviceId.deviceId("of:1"), PortNumber.portNumber(3),
                IpAddress.valueOf("239.1.0.1"), 0x16L, 2, true, MacAddress.valueOf("00:00:00:00:01:01"), 40000);
        Programmed record = new Programmed(Programmed.entriesOf(p), Set.of(stamp), p.links());
        Programmed again = s.decode(s.encode(record));
        assertEquals(record, again);
        assertEquals(p, again.treePlan());
        assertEquals(stamp, again.uncertainOne(BitmapStamp.class));
        assertEquals(p.links().get(0)[0], again.links().get(0)[0]);

        org.mcast4ai.impl.p4.P4Stamp p4 = new org.mcast4ai.impl.p4.P4Stamp(
                org.onosproject.net.ConnectPoint.deviceConnectPoint("device:leaf1/1"), 13,
                IpAddress.valueOf("232.0.77.42"), java.util.List.of(new byte[]{0x24, 0, 1}, new byte[]{0x24, 0, 2}),
                new org.mcast4ai.impl.p4.P4StampPlanner.Allowance(java.util.BitSet.valueOf(new long[]{0x26}),
                        0x9fffffffffffffffL));
        Programmed held = new Programmed(Set.of(p4), Set.of(), java.util.List.of());
        Programmed heldAgain = s.decode(s.encode(held));
        assertEquals(held, heldAgain);
        assertEquals(p4, heldAgain.installedOne(org.mcast4ai.impl.p4.P4Stamp.class));

        StaticTables tables = new StaticTables(3, "0123456789abcdef/120", true);
        assertEquals(tables, s.decode(s.encode(tables)));
    }

    @Test
    void bitPositionsAreStableAndNewOnesTakeTheLowestFreeIndex() {
        Map<String, Integer> first = store.bitPositions(List.of("of:2/2", "of:1/1"));
        assertEquals(Map.of("of:1/1", 0, "of:2/2", 1), first);
        // a position sorting first arrives: nobody is renumbered
        Map<String, Integer> next = store.bitPositions(List.of("of:0/9", "of:1/1", "of:2/2"));
        assertEquals(Map.of("of:0/9", 2, "of:1/1", 0, "of:2/2", 1), next);
        // a position that left keeps its index; asking again changes nothing
        assertEquals(next, store.bitPositions(List.of("of:1/1")));
    }
}
