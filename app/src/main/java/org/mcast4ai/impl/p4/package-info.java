/**
 * BITMAP replication on P4 switches running {@code models/p4/mcast4ai.p4}: the static fabric state each switch
 * needs, from the engine's switch tables.
 */
package org.mcast4ai.impl.p4;
