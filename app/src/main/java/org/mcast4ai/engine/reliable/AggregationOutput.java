package org.mcast4ai.engine.reliable;

/**
 * Where an {@link AckAggregator} puts what the sender must see and what it did not pass on. A datapath writes
 * packets (an ACK or NAK from the group's virtual peer, a CNP), the controller counts; calls come on the thread
 * that fed the aggregator, inside the call that caused them.
 */
public interface AggregationOutput {

    /** Why a packet from the receivers' side was not passed on. */
    enum Drop {
        /** Not from a receiver of the group (spoofed, or a receiver that left or was stalled out). */
        NON_MEMBER,
        /** An ACK or NAK for a PSN the sender has not sent (where the aggregation point sees the data). */
        BEYOND_SENT,
        /** A NAK whose PSN was already passed on in this retransmission round. */
        NAK_REPEATED,
        /** A CNP within the group's CNP interval of the last one passed on. */
        CNP_RATE,
        /**
         * An ACK, NAK or CNP whose ICRC does not verify (damaged on the way, as a NIC would drop it): whatever it
         * says is not believed, so it is never turned into a valid packet for the sender.
         */
        BAD_ICRC
    }

    /**
     * An aggregated ACK for the sender: every current receiver acknowledged up to and including {@code psn}.
     *
     * @param psn    24-bit PSN acknowledged
     * @param msn    the MSN of the receiver that holds the minimum
     * @param credit its credit count (AETH syndrome low 5 bits)
     */
    void ack(int psn, int msn, int credit);

    /**
     * A NAK for the sender: resend from {@code psn}. It implicitly acknowledges everything before {@code psn},
     * which every current receiver has.
     *
     * @param psn      24-bit PSN to resend from
     * @param msn      the MSN of the receiver that holds the minimum
     * @param syndrome the AETH syndrome to pass on (sequence error 0x60, or the receiver's NAK code)
     */
    void nak(int psn, int msn, int syndrome);

    /** A congestion notification for the sender. */
    void cnp();

    /**
     * Something not passed on.
     *
     * @param why    the reason
     * @param source the packet's source key ({@link AckAggregator#key}), or the receiver's key
     */
    void dropped(Drop why, long source);

    /**
     * A receiver no longer holds back the minimum: it lagged alone past the stall timeout while receivers ahead of
     * it kept answering, it sent a fatal NAK, or the controller reported it unreachable (the group is DEGRADED
     * until it is removed or re-added).
     *
     * @param receiver the receiver's key
     */
    void stalled(long receiver);
}
