package org.mcast4ai.impl.p4;

import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Optional;

/**
 * The control frames the controller operates a source leaf's aggregator with, and the reports it sends back
 * ({@code models/p4/agg/agg_types.p4}): Ethernet type {@link #ETHER_TYPE}, then one {@code ctl_t} header (op, slot,
 * 16 bits of padding, group index, PSN, key, 128 bits of stalled slots, slot 0 the least significant). A frame goes
 * out through the CPU port by packet-out (the program reads no port for it) and a report comes back by packet-in.
 * Pure.
 */
public final class P4AggFrames {
    /** The frames' Ethernet type. */
    public static final int ETHER_TYPE = 0x88B6;
    /** Operations. */
    public static final int CONFIG = 1;
    public static final int JOIN = 2;
    public static final int LEAVE = 3;
    public static final int TICK = 4;
    public static final int EVICT = 5;
    public static final int STALLED = 6;
    /** JOIN at the PSN the switch picks (the next the sender sends), for a receiver added to a running group. */
    public static final int JOIN_NOW = 7;
    /** The report of a JOIN_NOW: the PSN the receiver joined at. */
    public static final int JOINED = 8;
    /** Bytes of a frame: Ethernet 14 and ctl_t 36. */
    public static final int LENGTH = 14 + 36;
    private static final byte[] DST = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
    private static final byte[] SRC = {0x02, 0x6d, 0x34, 0, 0, (byte) 0xfe};

    private P4AggFrames() {
    }

    /**
     * @param op    the operation
     * @param group the group's index
     * @param slot  the receiver's slot (0 for CONFIG and TICK)
     * @param psn   CONFIG: the group's first PSN; JOIN: the receiver's
     * @param key   JOIN: the receiver's key (address << 24 | the QPN its ACKs name)
     * @return the frame
     */
    public static byte[] frame(int op, int group, int slot, int psn, long key) {
        ByteBuffer b = ByteBuffer.allocate(LENGTH);
        b.put(DST).put(SRC).putShort((short) ETHER_TYPE);
        b.put((byte) op).put((byte) slot).putShort((short) 0).putInt(group).putInt(psn & 0xFFFFFF).putLong(key);
        b.put(new byte[16]);
        return b.array();
    }

    /** A report: which group's receivers a packet stalled, or the PSN a JOIN_NOW joined a receiver at. */
    public static final class Report {
        final int group;
        final BitSet stalled;
        final int joinedSlot;
        final int joinedPsn;

        Report(int group, BitSet stalled, int joinedSlot, int joinedPsn) {
            this.group = group;
            this.stalled = stalled;
            this.joinedSlot = joinedSlot;
            this.joinedPsn = joinedPsn;
        }

        /** @return the group's index */
        public int group() {
            return group;
        }

        /** @return the slots stalled (none in a JOINED report) */
        public BitSet stalled() {
            return (BitSet) stalled.clone();
        }

        /** @return the slot a JOINED report is for, or -1 */
        public int joinedSlot() {
            return joinedSlot;
        }

        /** @return the PSN it joined at (24 bits), or -1 */
        public int joinedPsn() {
            return joinedPsn;
        }
    }

    /**
     * @param frame an Ethernet frame from a switch
     * @return the report it is, or empty if it is none
     */
    public static Optional<Report> report(byte[] frame) {
        if (frame.length < LENGTH || (frame[12] & 0xFF) << 8 != (ETHER_TYPE & 0xFF00)
                || (frame[13] & 0xFF) != (ETHER_TYPE & 0xFF)
                || (frame[14] & 0xFF) != STALLED && (frame[14] & 0xFF) != JOINED) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(frame);
        int group = b.getInt(18);
        if ((frame[14] & 0xFF) == JOINED) {
            return Optional.of(new Report(group, new BitSet(), frame[15] & 0xFF, b.getInt(22) & 0xFFFFFF));
        }
        BitSet stalled = new BitSet(128);
        for (int i = 0; i < 16; i++) {
            int v = frame[34 + i] & 0xFF;       // most significant byte first: slot 127 .. 120 first
            for (int bit = 0; bit < 8; bit++) {
                if ((v >> bit & 1) != 0) {
                    stalled.set((15 - i) * 8 + bit);
                }
            }
        }
        return Optional.of(new Report(group, stalled, -1, -1));
    }
}
