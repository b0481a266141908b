/**
 * Cluster-wide state: the group records, the one record per group of what it has on the switches, and the
 * static tables' record.
 */
package org.mcast4ai.impl.store;
