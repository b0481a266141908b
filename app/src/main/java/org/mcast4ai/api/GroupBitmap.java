package org.mcast4ai.api;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A BITMAP group's bit map: the receiver bit of every receiver the fabric's bitmap reaches, and how the group is
 * addressed. On OpenFlow ({@link #CARRIER_ETH_SRC}): the group's bits (their OR) and the Ethernet source address
 * that addresses the whole group; a sender addresses any subset of the group per packet by sending with the stamp
 * of the OR of the subset's bits (no switch write). On P4 switches ({@link #CARRIER_V2_HEADER}): the receivers'
 * bit indices and the version 2 headers the source leaf stamps on every packet to the group's address (one
 * packet per header); a sender may write a subset's header itself or use a subset address.
 */
public final class GroupBitmap {
    /** The carrier of the bitmap: the Ethernet source address. */
    public static final String CARRIER_ETH_SRC = "eth_src";
    /** The carrier of the bitmap on P4 switches: the version 2 header (models/header/README.md). */
    public static final String CARRIER_V2_HEADER = "mcast4ai_v2";

    private final P2mpGroupId groupId;
    private final String carrier;
    private final ImmutableMap<Endpoint, Integer> receiverBits;
    private final long groupBits;
    private final String stampMac;
    private final ImmutableList<String> headers;

    /**
     * @param groupId      group id
     * @param carrier      header field carrying the bitmap ({@link #CARRIER_ETH_SRC})
     * @param receiverBits each receiver, as the request names it (host and QPN), to its bit, in receiver order
     * @param groupBits    OR of the receivers' bits
     * @param stampMac     the full group's stamp (source MAC, {@code 02:..} form)
     */
    public GroupBitmap(P2mpGroupId groupId, String carrier, Map<Endpoint, Integer> receiverBits, long groupBits,
                       String stampMac) {
        this.groupId = Objects.requireNonNull(groupId);
        this.carrier = Objects.requireNonNull(carrier);
        this.receiverBits = ImmutableMap.copyOf(receiverBits);
        this.groupBits = groupBits;
        this.stampMac = Objects.requireNonNull(stampMac);
        this.headers = ImmutableList.of();
    }

    /**
     * A group on P4 switches.
     *
     * @param groupId      group id
     * @param receiverBits each receiver, as the request names it, to its bit index, in receiver order
     * @param headers      the headers the source leaf stamps, lowercase hex, in send order
     */
    public GroupBitmap(P2mpGroupId groupId, Map<Endpoint, Integer> receiverBits, List<String> headers) {
        this.groupId = Objects.requireNonNull(groupId);
        this.carrier = CARRIER_V2_HEADER;
        this.receiverBits = ImmutableMap.copyOf(receiverBits);
        this.groupBits = 0;
        this.stampMac = "";
        this.headers = ImmutableList.copyOf(headers);
    }

    /** @return the version 2 headers of one send (lowercase hex), empty for the Ethernet source carrier */
    public List<String> headers() {
        return headers;
    }

    /** @return group id */
    public P2mpGroupId groupId() {
        return groupId;
    }

    /** @return the header field carrying the bitmap */
    public String carrier() {
        return carrier;
    }

    /** @return each receiver as the request names it to its bit, in receiver order */
    public Map<Endpoint, Integer> receiverBits() {
        return receiverBits;
    }

    /** @return OR of the receivers' bits (Ethernet source carrier; 0 otherwise) */
    public long groupBits() {
        return groupBits;
    }

    /** @return the source MAC addressing the whole group (Ethernet source carrier; empty otherwise) */
    public String stampMac() {
        return stampMac;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GroupBitmap)) {
            return false;
        }
        GroupBitmap b = (GroupBitmap) o;
        return groupId.equals(b.groupId) && carrier.equals(b.carrier) && receiverBits.equals(b.receiverBits)
                && groupBits == b.groupBits && stampMac.equals(b.stampMac) && headers.equals(b.headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(groupId, carrier, receiverBits, groupBits, stampMac, headers);
    }

    @Override
    public String toString() {
        return "GroupBitmap{" + groupId + " bits=0x" + Long.toHexString(groupBits) + " " + receiverBits + "}";
    }
}
