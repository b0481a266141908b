package org.mcast4ai.impl.store;

import org.mcast4ai.impl.ClusterStorage;
import org.junit.jupiter.api.Test;

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
