/**
 * Where a group's packets go now: one packet followed through what the switches were given for the group, by
 * replication mode, turned into the {@link org.mcast4ai.api.GroupTree} operators see (CLI, REST, GUI).
 */
package org.mcast4ai.impl.trace;
