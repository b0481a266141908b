package org.mcast4ai.agent;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The agent's control frames for the aggregator ({@code struct agg_ctrl} of {@code ebpf/ack_agg.h}, after an
 * Ethernet header with EtherType 0x88B5), run through {@code BPF_PROG_RUN}: the program applies every change
 * itself, under the group's lock, with the same rules as the packets it aggregates.
 */
public final class ControlFrame {
    /** Configure a group (first use sets its token). */
    public static final int CONFIG = 1;
    /** Add a receiver at a PSN. */
    public static final int JOIN = 2;
    /** Remove a receiver. */
    public static final int LEAVE = 3;
    /** Run the stall check (again while it answers {@link #AGAIN}). */
    public static final int TICK = 4;
    /** Stop waiting for a receiver the controller finds unreachable (never the last active one). */
    public static final int EVICT = 5;
    /** TC_ACT_PIPE: the stall check has more to do. */
    public static final int AGAIN = 3;
    /** Size of {@code struct agg_ctrl}. */
    public static final int SIZE = 76;

    private final ByteBuffer b = ByteBuffer.allocate(14 + SIZE).order(ByteOrder.LITTLE_ENDIAN);

    /**
     * @param op    CONFIG, JOIN, LEAVE, TICK or EVICT
     * @param group the group's index
     * @param token the agent's secret for the group
     */
    public ControlFrame(int op, int group, long token) {
        b.position(12);
        b.put((byte) 0x88).put((byte) 0xB5);
        b.put((byte) op).put((byte) 1).putShort((short) 0).putInt(group).putLong(token);
    }

    /**
     * @param ip  address (network order int), at offset ip
     * @param qpn QPN
     * @param psn PSN
     * @return this
     */
    public ControlFrame member(int ip, int qpn, int psn) {
        b.order(ByteOrder.BIG_ENDIAN).putInt(30, ip).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(34, qpn).putInt(38, psn);
        return this;
    }

    /**
     * @param seesData whether the program sees the sender's data (then it drops ACKs beyond what was sent)
     * @param senderIp the sender's address
     * @param senderQpn the sender's QPN
     * @param senderMac the sender's MAC
     * @param vpMac the virtual peer's MAC
     * @param stallNs how long a minimum may stand still before its holders are stalled out
     * @param cnpIntervalNs at most one CNP per group per interval
     * @param nakHoldoffNs how long a NAK round stays open without a retransmission
     * @param groupIp the group address the sender's data is given on its way out, 0 for none
     * @return this
     */
    public ControlFrame config(boolean seesData, int senderIp, int senderQpn, byte[] senderMac, byte[] vpMac,
                               long stallNs, long cnpIntervalNs, long nakHoldoffNs, int groupIp) {
        b.put(15, (byte) (seesData ? 1 : 0));
        b.order(ByteOrder.BIG_ENDIAN).putInt(42, senderIp).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(46, senderQpn);
        for (int i = 0; i < 6; i++) {
            b.put(50 + i, senderMac[i]);
            b.put(56 + i, vpMac[i]);
        }
        b.putLong(62, stallNs).putLong(70, cnpIntervalNs).putLong(78, nakHoldoffNs);
        b.order(ByteOrder.BIG_ENDIAN).putInt(86, groupIp).order(ByteOrder.LITTLE_ENDIAN);
        return this;
    }

    /** @return the frame */
    public byte[] bytes() {
        return b.array().clone();
    }
}
