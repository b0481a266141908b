package org.mcast4ai.api;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a group's aggregation point (the agent beside the sender, or a P4 source leaf) last reported: its
 * counters, the receivers it stopped waiting for, and the PSN each receiver joined at. Immutable.
 */
public final class AggregationReport {
    /** The counters an aggregation point reports, in the order they are shown. */
    public static final List<String> COUNTERS = List.of("acksIn", "acksOut", "reAcks", "naksIn", "naksOut", "cnpsIn",
            "cnpsOut", "stalls", "commonStalls", "dropNonMember", "dropBeyondSent", "dropNakRepeated", "dropCnpRate",
            "dropBadIcrc");

    private final String agent;
    private final long timeMillis;
    private final ImmutableMap<String, Long> counters;
    private final ImmutableSet<String> stalled;
    private final ImmutableMap<String, Integer> joinPsn;
    private final long sentNext;
    private final long acked;
    private final ImmutableMap<String, Integer> receiverAcked;

    /**
     * @param agent      who reports (a host name)
     * @param timeMillis when the controller received it
     * @param counters   counter name (one of {@link #COUNTERS}) to value
     * @param stalled    receivers (as the group names them) left out of the minimum
     * @param joinPsn    receiver to the PSN it joined at
     * @param sentNext   the next PSN the sender will send, -1 if unknown
     * @param acked      the last PSN acknowledged to the sender, -1 if unknown
     */
    public AggregationReport(String agent, long timeMillis, Map<String, Long> counters, Set<String> stalled,
                             Map<String, Integer> joinPsn, long sentNext, long acked) {
        this(agent, timeMillis, counters, stalled, joinPsn, sentNext, acked, Map.of());
    }

    /**
     * @param agent         who reports (a host name)
     * @param timeMillis    when the controller received it
     * @param counters      counter name (one of {@link #COUNTERS}) to value
     * @param stalled       receivers (as the group names them) left out of the minimum
     * @param joinPsn       receiver to the PSN it joined at
     * @param sentNext      the next PSN the sender will send, -1 if unknown
     * @param acked         the last PSN acknowledged to the sender, -1 if unknown
     * @param receiverAcked receiver to the last PSN it acknowledged (the aggregation point's per-receiver state)
     */
    public AggregationReport(String agent, long timeMillis, Map<String, Long> counters, Set<String> stalled,
                             Map<String, Integer> joinPsn, long sentNext, long acked,
                             Map<String, Integer> receiverAcked) {
        this.receiverAcked = ImmutableMap.copyOf(receiverAcked);
        this.agent = Objects.requireNonNull(agent);
        this.timeMillis = timeMillis;
        this.counters = ImmutableMap.copyOf(counters);
        this.stalled = ImmutableSet.copyOf(stalled);
        this.joinPsn = ImmutableMap.copyOf(joinPsn);
        this.sentNext = sentNext;
        this.acked = acked;
        for (String c : this.counters.keySet()) {
            if (!COUNTERS.contains(c)) {
                throw new IllegalArgumentException("unknown counter " + c + "; known: " + COUNTERS);
            }
        }
    }

    /** @return who reported */
    public String agent() {
        return agent;
    }

    /** @return when the controller received the report */
    public long timeMillis() {
        return timeMillis;
    }

    /** @return counter name to value */
    public Map<String, Long> counters() {
        return counters;
    }

    /**
     * @param name a counter of {@link #COUNTERS}
     * @return its value, 0 if not reported
     */
    public long counter(String name) {
        return counters.getOrDefault(name, 0L);
    }

    /** @return receivers left out of the minimum */
    public Set<String> stalled() {
        return stalled;
    }

    /** @return receiver to the PSN it joined at */
    public Map<String, Integer> joinPsn() {
        return joinPsn;
    }

    /** @return the next PSN the sender will send, -1 if unknown */
    public long sentNext() {
        return sentNext;
    }

    /** @return the last PSN acknowledged to the sender, -1 if unknown */
    public long acked() {
        return acked;
    }

    /** @return receiver to the last PSN it acknowledged; empty if the aggregation point did not say */
    public Map<String, Integer> receiverAcked() {
        return receiverAcked;
    }

    /**
     * How far a receiver is behind the sender: PSNs sent that it has not acknowledged, in 24-bit PSN space.
     *
     * @param receiver a receiver, as the group names it
     * @return its lag, or -1 if the report does not say
     */
    public long lag(String receiver) {
        Integer a = receiverAcked.get(receiver);
        if (a == null || sentNext < 0) {
            return -1;
        }
        return Math.floorMod(sentNext - 1 - a, 1L << 24);
    }

    /**
     * @param when the controller's receive time
     * @return a copy stamped with it
     */
    public AggregationReport receivedAt(long when) {
        return new AggregationReport(agent, when, counters, stalled, joinPsn, sentNext, acked, receiverAcked);
    }
}
