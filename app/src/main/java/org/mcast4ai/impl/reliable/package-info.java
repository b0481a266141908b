/** The controller side of ACK aggregation: aggregation contexts for the agents and their reports. */
package org.mcast4ai.impl.reliable;
