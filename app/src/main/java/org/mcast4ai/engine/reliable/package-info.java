/**
 * The ACK-aggregation specification for reliable RoCEv2 RC multicast: one state machine per group that turns
 * N receivers' ACKs, NAKs and CNPs into what one RC peer would send the sender. Pure: no I/O, no clock of its
 * own, no allocation per packet. Every datapath (the eBPF agent, the P4 source leaf) implements the same
 * rules and replays the same known-answer vectors ({@code models/reliable/ack-aggregation.json}).
 */
package org.mcast4ai.engine.reliable;
