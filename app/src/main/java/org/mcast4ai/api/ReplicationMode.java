package org.mcast4ai.api;

/** How the network replicates a group's packets. */
public enum ReplicationMode {
    /** The app chooses per group and records which and why. */
    AUTO,
    /** Stateless: the receiver set travels in the packet; transit switches hold no group state. */
    BITMAP,
    /** Classic per-group tree: one replication entry per group on every switch of the tree. */
    TREE
}
