package org.mcast4ai.api;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The virtual peer of an {@link Reliability#ACK_AGGREGATION} group: the one RC responder its sender's QP is
 * connected to, and the peer every receiver's QP is connected to. The sender's QP sends to {@link #address()}
 * and {@link #qpn()}; receiver r's QP has the peer {@link #address()} and {@link #peerQpn(String)}, so its ACKs
 * name its slot (distinct within the group modulo {@link #MAX_RECEIVERS}, which is how the aggregation point
 * finds it without hashing). Every QP starts at {@link #startPsn()}; a receiver added later starts at the PSN the
 * aggregation point reports for it ({@link #joined()}; the group waits until every receiver is joined). Immutable;
 * stored with the group.
 */
public final class VirtualPeer {
    /** Receivers an ACK_AGGREGATION group can have (slots of the aggregation point). */
    public static final int MAX_RECEIVERS = 1024;
    /** Groups one sender host can aggregate at once: the low bits of the peer's address name its group. */
    public static final int MAX_GROUPS_PER_SOURCE = 64;
    /** Receiver QPs connect to QPN {@code RECEIVER_QPN_BASE + slot}. */
    public static final int RECEIVER_QPN_BASE = 0x100000;
    /** The QPN the sender's QP connects to (past every receiver slot). */
    public static final int SENDER_FACING_QPN = RECEIVER_QPN_BASE + MAX_RECEIVERS;

    private final IpAddress address;
    private final int startPsn;
    private final ImmutableMap<String, Integer> slots;
    private final ImmutableSet<String> stalled;
    private final ImmutableMap<String, Integer> joined;

    /**
     * @param address  the peer's IPv4 address (its low six bits are the group's index at the aggregation point)
     * @param startPsn the PSN every QP of the group starts at (24 bits)
     * @param slots    receiver (as the request names it) to slot
     * @param stalled  receivers the aggregation point reported silent and left out of the minimum
     * @param joined   receivers the aggregation point reported joined, with the PSN each joined at
     */
    public VirtualPeer(IpAddress address, int startPsn, Map<String, Integer> slots, Set<String> stalled,
                       Map<String, Integer> joined) {
        this.address = Objects.requireNonNull(address);
        if (!address.isIp4()) {
            throw new IllegalArgumentException("a virtual peer has an IPv4 address");
        }
        if (startPsn < 0 || startPsn > 0xFFFFFF) {
            throw new IllegalArgumentException("a PSN has 24 bits; got " + startPsn);
        }
        this.startPsn = startPsn;
        this.slots = ImmutableMap.copyOf(slots);
        this.stalled = ImmutableSet.copyOf(stalled);
        this.joined = ImmutableMap.copyOf(joined);
        if (this.slots.values().stream().distinct().count() != this.slots.size()
                || this.slots.values().stream().anyMatch(s -> s < 0 || s >= MAX_RECEIVERS)) {
            throw new IllegalArgumentException("receiver slots must be distinct and below " + MAX_RECEIVERS);
        }
    }

    /**
     * A new peer with a slot for every receiver, in the order given.
     *
     * @param address   the peer's address
     * @param startPsn  the group's first PSN
     * @param receivers the group's receivers
     * @return the peer
     */
    public static VirtualPeer of(IpAddress address, int startPsn, Set<Endpoint> receivers) {
        return new VirtualPeer(address, startPsn, Map.of(), Set.of(), Map.of()).withReceivers(receivers);
    }

    /** @return the address the sender's and the receivers' QPs have as their peer */
    public IpAddress address() {
        return address;
    }

    /** @return a locally administered MAC derived from the address (02:6d:34 and its low 24 bits) */
    public MacAddress mac() {
        int a = address.getIp4Address().toInt();
        return MacAddress.valueOf(new byte[]{0x02, 0x6d, 0x34, (byte) (a >>> 16), (byte) (a >>> 8), (byte) a});
    }

    /** @return the group's index at its aggregation point: the address's low six bits */
    public int index() {
        return address.getIp4Address().toInt() & (MAX_GROUPS_PER_SOURCE - 1);
    }

    /** @return the QPN the sender's QP connects to */
    public int qpn() {
        return SENDER_FACING_QPN;
    }

    /** @return the PSN every QP of the group starts at */
    public int startPsn() {
        return startPsn;
    }

    /** @return receiver (as the request names it) to slot */
    public Map<String, Integer> slots() {
        return slots;
    }

    /**
     * @param receiver a receiver's host as the request names it
     * @return the QPN its QP connects to, or -1 if it has no slot
     */
    public int peerQpn(String receiver) {
        Integer s = slots.get(receiver);
        return s == null ? -1 : RECEIVER_QPN_BASE + s;
    }

    /** @return receivers reported silent past the timeout, left out of the minimum */
    public Set<String> stalled() {
        return stalled;
    }

    /**
     * Keeps the slot of every receiver still there, frees the slots of the others and gives new receivers the
     * lowest free slots (a slot is never reused by another receiver while its owner stays).
     *
     * @param receivers the group's receivers now
     * @return the peer for them (this one if nothing changed)
     */
    public VirtualPeer withReceivers(Set<Endpoint> receivers) {
        Map<String, Integer> next = new LinkedHashMap<>();
        TreeSet<Integer> used = new TreeSet<>();
        for (Endpoint r : receivers) {
            Integer s = slots.get(r.host());
            if (s != null) {
                next.put(r.host(), s);
                used.add(s);
            }
        }
        int free = 0;
        for (Endpoint r : receivers) {
            if (!next.containsKey(r.host())) {
                while (used.contains(free)) {
                    free++;
                }
                if (free >= MAX_RECEIVERS) {
                    throw GroupException.invalid("an ACK_AGGREGATION group has at most " + MAX_RECEIVERS
                            + " receivers");
                }
                next.put(r.host(), free);
                used.add(free);
            }
        }
        Set<String> stillStalled = new TreeSet<>(stalled);
        stillStalled.retainAll(next.keySet());
        Map<String, Integer> stillJoined = new LinkedHashMap<>(joined);
        stillJoined.keySet().retainAll(next.keySet());
        if (next.equals(slots) && stillStalled.equals(stalled) && stillJoined.equals(joined)) {
            return this;
        }
        return new VirtualPeer(address, startPsn, next, stillStalled, stillJoined);
    }

    /** @return receivers the aggregation point joined, with the PSN each joined at */
    public Map<String, Integer> joined() {
        return joined;
    }

    /** @return receivers with a slot the aggregation point has not reported joined */
    public Set<String> waitingToJoin() {
        Set<String> w = new TreeSet<>(slots.keySet());
        w.removeAll(joined.keySet());
        return w;
    }

    /**
     * @param reported receivers the aggregation point reports joined, with their PSNs
     * @return the peer with them (only receivers of the group count)
     */
    public VirtualPeer withJoined(Map<String, Integer> reported) {
        Map<String, Integer> j = new LinkedHashMap<>(reported);
        j.keySet().retainAll(slots.keySet());
        return j.equals(joined) ? this : new VirtualPeer(address, startPsn, slots, stalled, j);
    }

    /**
     * @param receivers the receivers the aggregation point reports stalled
     * @return the peer with them (only receivers of the group count)
     */
    public VirtualPeer withStalled(Set<String> receivers) {
        Set<String> s = new TreeSet<>(receivers);
        s.retainAll(slots.keySet());
        return s.equals(stalled) ? this : new VirtualPeer(address, startPsn, slots, s, joined);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof VirtualPeer)) {
            return false;
        }
        VirtualPeer p = (VirtualPeer) o;
        return p.address.equals(address) && p.startPsn == startPsn && p.slots.equals(slots)
                && p.stalled.equals(stalled) && p.joined.equals(joined);
    }

    @Override
    public int hashCode() {
        return Objects.hash(address, startPsn, slots, stalled, joined);
    }

    @Override
    public String toString() {
        return "VirtualPeer{" + address + ", psn " + startPsn + ", " + slots.size() + " receivers"
                + (stalled.isEmpty() ? "" : ", stalled " + stalled) + "}";
    }
}
