package org.mcast4ai.api;

import com.google.common.collect.ImmutableList;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything an aggregation point needs for one ACK_AGGREGATION group, and what the sender and receivers
 * connect their QPs to: the group address, the virtual peer, the sender and every receiver resolved to its
 * address, MAC, QPN, slot and attachment, and the aggregation point's last report. Immutable; computed on read.
 */
public final class AggregationContext {

    /** One endpoint of the group, resolved. */
    public static final class Member {
        private final String host;
        private final IpAddress ip;
        private final MacAddress mac;
        private final int qpn;
        private final int slot;
        private final int peerQpn;
        private final ConnectPoint location;
        private final int joinPsn;
        private final boolean joined;

        /**
         * @param host     as the request names it
         * @param ip       its IPv4 address
         * @param mac      its MAC
         * @param qpn      its QP number
         * @param slot     its slot at the aggregation point (-1 for the sender)
         * @param peerQpn  the QPN its QP connects to at the virtual peer
         * @param location where it attaches
         * @param joinPsn  the PSN its QP starts at
         * @param joined   whether the aggregation point reported it joined (at joinPsn)
         */
        public Member(String host, IpAddress ip, MacAddress mac, int qpn, int slot, int peerQpn,
                      ConnectPoint location, int joinPsn, boolean joined) {
            this.host = Objects.requireNonNull(host);
            this.ip = Objects.requireNonNull(ip);
            this.mac = Objects.requireNonNull(mac);
            this.qpn = qpn;
            this.slot = slot;
            this.peerQpn = peerQpn;
            this.location = location;
            this.joinPsn = joinPsn;
            this.joined = joined;
        }

        /** @return whether the aggregation point reported it joined (the sender's: always) */
        public boolean joined() {
            return joined;
        }

        /** @return the host as the request names it */
        public String host() {
            return host;
        }

        /** @return its IPv4 address */
        public IpAddress ip() {
            return ip;
        }

        /** @return its MAC */
        public MacAddress mac() {
            return mac;
        }

        /** @return its QP number */
        public int qpn() {
            return qpn;
        }

        /** @return its slot at the aggregation point, -1 for the sender */
        public int slot() {
            return slot;
        }

        /** @return the QPN its QP connects to at the virtual peer */
        public int peerQpn() {
            return peerQpn;
        }

        /** @return where it attaches, if known */
        public Optional<ConnectPoint> location() {
            return Optional.ofNullable(location);
        }

        /** @return the PSN its QP starts at */
        public int joinPsn() {
            return joinPsn;
        }
    }

    private final P2mpGroup group;
    private final Member sender;
    private final ImmutableList<Member> receivers;
    private final ImmutableList<String> unresolved;
    private final AggregationReport report;

    /**
     * @param group      the group (with its virtual peer)
     * @param sender     the sender, resolved
     * @param receivers  the receivers that resolve
     * @param unresolved receivers that name no known host with an IPv4 address
     * @param report     the aggregation point's last report, or null
     */
    public AggregationContext(P2mpGroup group, Member sender, List<Member> receivers, List<String> unresolved,
                              AggregationReport report) {
        this.group = Objects.requireNonNull(group);
        if (group.peer().isEmpty()) {
            throw new IllegalArgumentException("group " + group.id() + " has no virtual peer");
        }
        this.sender = Objects.requireNonNull(sender);
        this.receivers = ImmutableList.copyOf(receivers);
        this.unresolved = ImmutableList.copyOf(unresolved);
        this.report = report;
    }

    /** @return the group */
    public P2mpGroup group() {
        return group;
    }

    /** @return its virtual peer */
    public VirtualPeer peer() {
        return group.peer().orElseThrow();
    }

    /** @return the sender */
    public Member sender() {
        return sender;
    }

    /** @return the receivers that resolve, in the request's order */
    public List<Member> receivers() {
        return receivers;
    }

    /** @return receivers that do not resolve (left out until they do) */
    public List<String> unresolved() {
        return unresolved;
    }

    /** @return the last report of the aggregation point */
    public Optional<AggregationReport> report() {
        return Optional.ofNullable(report);
    }
}
