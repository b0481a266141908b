package org.mcast4ai.lab;

import org.onosproject.cluster.NodeId;
import org.onosproject.net.intent.WorkPartitionServiceAdapter;

import java.util.function.Function;

/**
 * WorkPartitionService of a one-instance lab: every key is ours.
 */
public class LabWorkPartitionService extends WorkPartitionServiceAdapter {

    /** The lab's only node. */
    public static final NodeId LOCAL = NodeId.nodeId("lab");

    @Override
    public <K> boolean isMine(K id, Function<K, Long> hasher) {
        return true;
    }

    @Override
    public <K> NodeId getLeader(K id, Function<K, Long> hasher) {
        return LOCAL;
    }
}
