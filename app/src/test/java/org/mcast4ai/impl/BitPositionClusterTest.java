package org.mcast4ai.impl;

import org.junit.jupiter.api.Test;
import org.onosproject.store.service.AtomicCounter;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.ConsistentMapBuilder;
import org.onosproject.store.service.TestConsistentMap;
import org.onosproject.store.service.TestStorageService;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Two instances of the store on one cluster's primitives allocate receiver positions at the same time: each must
 * get its own index. The instances interleave the way a cluster can: the second reads what is allocated, the
 * first allocates, then the second writes.
 */
class BitPositionClusterTest {

    /** Primitives shared by name, as every member of an ONOS cluster sees the same map. */
    private static final class ClusterStorage extends TestStorageService {
        final Map<String, Object> primitives = new HashMap<>();
        Runnable beforeNextWrite;

        @Override
        @SuppressWarnings("unchecked")
        public <K, V> ConsistentMapBuilder<K, V> consistentMapBuilder() {
            return new TestConsistentMap.Builder<K, V>() {
                @Override
                public ConsistentMap<K, V> build() {
                    ConsistentMap<K, V> map = (ConsistentMap<K, V>) primitives.computeIfAbsent(name(),
                            n -> super.build());
                    return (ConsistentMap<K, V>) Proxy.newProxyInstance(getClass().getClassLoader(),
                            new Class<?>[]{ConsistentMap.class}, (proxy, method, args) -> {
                                if (method.getName().equals("putIfAbsent") && beforeNextWrite != null) {
                                    Runnable r = beforeNextWrite;
                                    beforeNextWrite = null;
                                    r.run();
                                }
                                return method.invoke(map, args);
                            });
                }
            };
        }

        @Override
        public AtomicCounter getAtomicCounter(String name) {
            return (AtomicCounter) primitives.computeIfAbsent("counter:" + name, n -> super.getAtomicCounter(name));
        }
    }

    @Test
    void positionsAllocatedAtOnceByTwoInstancesGetDistinctIndices() {
        ClusterStorage cluster = new ClusterStorage();
        DistributedP2mpGroupStore a = new DistributedP2mpGroupStore();
        a.storageService = cluster;
        a.activate();
        DistributedP2mpGroupStore b = new DistributedP2mpGroupStore();
        b.storageService = cluster;
        b.activate();
        // b has read the (empty) table and picked an index; before it writes, a allocates its own position
        cluster.beforeNextWrite = () -> a.bitPositions(List.of("of:1/1"));
        Map<String, Integer> fromB = b.bitPositions(List.of("of:2/1"));
        Map<String, Integer> fromA = a.bitPositions(List.of("of:1/1", "of:2/1"));
        assertEquals(fromA.get("of:2/1"), fromB.get("of:2/1"), "both see the same index for a position");
        assertNotEquals(fromA.get("of:1/1"), fromA.get("of:2/1"), "two positions never share an index: " + fromA);
    }
}
