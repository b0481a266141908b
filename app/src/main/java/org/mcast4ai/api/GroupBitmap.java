package org.mcast4ai.api;

import com.google.common.collect.ImmutableMap;

import java.util.Map;
import java.util.Objects;

/**
 * A BITMAP group's bit map: the receiver bit of every receiver the fabric's bitmap reaches, the group's bits
 * (their OR) and the Ethernet source address that addresses the whole group. A sender addresses any subset
 * of the group per packet by sending with the stamp of the OR of the subset's bits (no switch write).
 */
public final class GroupBitmap {
    /** The carrier of the bitmap: the Ethernet source address. */
    public static final String CARRIER_ETH_SRC = "eth_src";

    private final P2mpGroupId groupId;
    private final String carrier;
    private final ImmutableMap<Endpoint, Integer> receiverBits;
    private final long groupBits;
    private final String stampMac;

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

    /** @return OR of the receivers' bits */
    public long groupBits() {
        return groupBits;
    }

    /** @return the source MAC addressing the whole group */
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
                && groupBits == b.groupBits && stampMac.equals(b.stampMac);
    }

    @Override
    public int hashCode() {
        return Objects.hash(groupId, carrier, receiverBits, groupBits, stampMac);
    }

    @Override
    public String toString() {
        return "GroupBitmap{" + groupId + " bits=0x" + Long.toHexString(groupBits) + " " + receiverBits + "}";
    }
}
