package org.mcast4ai.impl;

/** Names and defaults of the group manager's configuration properties. */
public final class OsgiPropertyConstants {

    /** IPv4 multicast prefix the app allocates group addresses from. */
    public static final String ADDRESS_POOL = "addressPool";
    /** Default group address pool. */
    public static final String ADDRESS_POOL_DEFAULT = "239.77.0.0/16";

    /** IPv4 prefix the app allocates ACK_AGGREGATION groups' virtual peer addresses from (unicast, unused). */
    public static final String VIRTUAL_PEER_POOL = "virtualPeerPool";
    /** Default virtual peer pool. */
    public static final String VIRTUAL_PEER_POOL_DEFAULT = "10.254.0.0/16";

    /** Largest receiver set a group may have. */
    public static final String MAX_RECEIVERS_PER_GROUP = "maxReceiversPerGroup";
    /** Default receiver limit. */
    public static final int MAX_RECEIVERS_PER_GROUP_DEFAULT = 4096;

    /** Most groups (in any state) one tenant may hold. */
    public static final String MAX_GROUPS_PER_TENANT = "maxGroupsPerTenant";
    /** Default per-tenant group limit. */
    public static final int MAX_GROUPS_PER_TENANT_DEFAULT = 10000;

    /** OpenFlow table the TREE replication rules go into. */
    public static final String FLOW_TABLE_ID = "flowTableId";
    /** Default flow table. */
    public static final int FLOW_TABLE_ID_DEFAULT = 0;

    /** Milliseconds to wait for switches to acknowledge a group's entries before it is FAILED. */
    public static final String INSTALL_TIMEOUT_MS = "installTimeoutMs";
    /** Default acknowledgement timeout. */
    public static final int INSTALL_TIMEOUT_MS_DEFAULT = 15000;

    /** Threads that compile and program groups; 0 for one per core (at most 8). Read when the app starts. */
    public static final String INSTALLER_THREADS = "installerThreads";
    /** Default installer threads: one per core. */
    public static final int INSTALLER_THREADS_DEFAULT = 0;

    /** Period of the audit of groups' records against ONOS's flow store. */
    public static final String AUDIT_INTERVAL_MS = "auditIntervalMs";
    /** Default audit period: 10 s (ONOS itself repairs what its own store holds on every flow poll). */
    public static final int AUDIT_INTERVAL_MS_DEFAULT = 10000;

    /**
     * Hosts owned by tenants, {@code tenant=prefix-or-mac,...;tenant=...}: a group may only name its tenant's
     * hosts and hosts no tenant owns.
     */
    public static final String HOST_TENANTS = "hostTenants";
    /** Default: no host is owned. */
    public static final String HOST_TENANTS_DEFAULT = "";

    private OsgiPropertyConstants() {
    }
}
