package org.mcast4ai.api;

/** Transport reliability the network provides for a group. */
public enum Reliability {
    /** Plain replication (UD, UC or unreliable UDP). */
    NONE,
    /** RoCEv2 RC: receivers' ACKs aggregated at the source leaf into one minimum-PSN ACK. */
    ACK_AGGREGATION
}
