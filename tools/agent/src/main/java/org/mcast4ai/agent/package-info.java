/** The host-side agent of ACK aggregation: the eBPF aggregator beside a sender and the receiver-edge rewrite. */
package org.mcast4ai.agent;
