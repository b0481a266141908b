package org.mcast4ai.engine.bitmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a P4 source leaf does with a RoCEv2 packet a stock NIC sent to an IPv6 subset address
 * ({@link SubsetEncoder#address}): with the group's one subset entry (its members' bit indices by rank) it
 * replaces the address by a version 2 header of HOST sections naming the subset's bit indices in ascending
 * order, the flow entropy taken from the UDP source port. This class is the program's specification
 * ({@code models/p4/mcast4ai.p4}, table {@code subset}) and the entry's encoding; the known-answer vectors run
 * both against each other.
 *
 * <p>The program refuses (drops and counts) an address whose rank list is not strictly ascending with its
 * unused entries (0xFFF) last, names no rank, or a rank the group does not have, and an address naming more
 * ranks than two HOST sections hold ({@link #MAX_RANKS}). A rank-list address may name ranks of a group of
 * up to {@link #MAX_MEMBERS} members (the entry's size), a rank-bitmap address ranks 0 to 95.
 */
public final class SubsetExpansion {
    /** Members a subset entry holds: 256 ranks of 16 bits, the program's two 2048-bit parameters. */
    public static final int MAX_MEMBERS = 256;
    /** Ranks one address may name: two HOST sections. */
    public static final int MAX_RANKS = 2 * HeaderV2.MAX_ENTRIES;
    /** Bytes of each of the entry's two rank parameters. */
    public static final int PARAM_BYTES = 256;
    private static final int RANKS_PER_PARAM = MAX_MEMBERS / 2;
    private static final int UNUSED = 0xFFF;

    /** Why the program drops a subset address (its counter's index less one). */
    public enum Refusal {
        /** No rank, an unordered list, an unused entry before a used one, or a rank the group lacks. */
        BAD_RANK,
        /** More ranks than {@link #MAX_RANKS}. */
        TOO_MANY
    }

    /** The expanded header, or why there is none. */
    public static final class Result {
        private final HeaderV2 header;
        private final Refusal refusal;

        private Result(HeaderV2 header, Refusal refusal) {
            this.header = header;
            this.refusal = refusal;
        }

        /** @return the header the packet leaves the source leaf's pipeline with, or null if refused */
        public HeaderV2 header() {
            return header;
        }

        /** @return why the packet is dropped, or null if expanded */
        public Refusal refusal() {
            return refusal;
        }
    }

    private final int[] memberBits;

    /**
     * @param memberBits the group's bit indices by rank: ascending, distinct, 0..65535, at most
     *                   {@link #MAX_MEMBERS}
     */
    public SubsetExpansion(int[] memberBits) {
        Objects.requireNonNull(memberBits);
        if (memberBits.length == 0 || memberBits.length > MAX_MEMBERS) {
            throw new IllegalArgumentException("a subset entry holds 1.." + MAX_MEMBERS + " members, not "
                    + memberBits.length);
        }
        for (int r = 0; r < memberBits.length; r++) {
            if (memberBits[r] < 0 || memberBits[r] > 0xFFFF || r > 0 && memberBits[r] <= memberBits[r - 1]) {
                throw new IllegalArgumentException("member bits must be ascending, distinct and 16-bit");
            }
        }
        this.memberBits = memberBits.clone();
    }

    /**
     * @param bitMap a group's bit map: receiver id to bit index
     * @return its expansion (ranks in ascending bit order, as {@link SubsetEncoder} numbers them)
     */
    public static SubsetExpansion of(Map<String, Integer> bitMap) {
        return new SubsetExpansion(bitMap.values().stream().mapToInt(Integer::intValue).sorted().toArray());
    }

    /** @return number of members */
    public int members() {
        return memberBits.length;
    }

    /**
     * One of the entry's two rank parameters, big-endian as P4Runtime carries it: rank r's bit index at bits
     * 16r+15..16r of the low one (ranks 0..127), of the high one for r - 128; absent ranks 0.
     *
     * @param high the high parameter (ranks 128..255)
     * @return {@link #PARAM_BYTES} bytes
     */
    public byte[] rankParam(boolean high) {
        byte[] out = new byte[PARAM_BYTES];
        int from = high ? RANKS_PER_PARAM : 0;
        for (int r = from; r < Math.min(memberBits.length, from + RANKS_PER_PARAM); r++) {
            int at = PARAM_BYTES - 2 * (r - from + 1);
            out[at] = (byte) (memberBits[r] >>> 8);
            out[at + 1] = (byte) memberBits[r];
        }
        return out;
    }

    /**
     * @param address the packet's 16-byte destination (its prefix and group number already matched)
     * @param entropy the packet's UDP source port
     * @return the header, or the refusal
     */
    public Result expand(byte[] address, int entropy) {
        if (address == null || address.length != 16) {
            throw new IllegalArgumentException("a subset address has 16 bytes");
        }
        List<Integer> ranks = new ArrayList<>();
        boolean bitmap = (address[2] & 0x80) != 0;
        boolean bad = false;
        if (bitmap) {
            for (int r = 0; r < SubsetEncoder.BITMAP_RANKS; r++) {
                if ((address[4 + r / 8] & (0x80 >>> (r % 8))) != 0) {
                    bad |= r >= memberBits.length;
                    ranks.add(r);
                }
            }
        } else {
            boolean done = false;
            for (int i = 0; i < SubsetEncoder.MAX_LIST_RANKS && !bad; i++) {
                int q = SubsetEncoder.get12(address, i);
                if (q == UNUSED) {
                    done = true;
                } else if (done || !ranks.isEmpty() && q <= ranks.get(ranks.size() - 1) || q >= memberBits.length) {
                    bad = true;
                } else {
                    ranks.add(q);
                }
            }
        }
        if (bad || ranks.isEmpty()) {
            return new Result(null, Refusal.BAD_RANK);
        }
        if (ranks.size() > MAX_RANKS) {
            return new Result(null, Refusal.TOO_MANY);
        }
        int[] bits = ranks.stream().mapToInt(r -> memberBits[r]).toArray();
        List<HeaderV2.Section> sections = new ArrayList<>();
        for (int from = 0; from < bits.length; from += HeaderV2.MAX_ENTRIES) {
            int[] part = Arrays.copyOfRange(bits, from, Math.min(bits.length, from + HeaderV2.MAX_ENTRIES));
            sections.add(new HeaderV2.Section(HeaderV2.Kind.HOST, 0, part, new long[part.length]));
        }
        return new Result(new HeaderV2(HeaderV2.DEFAULT_HOP_LIMIT, entropy & 0xFFFF, false, sections), null);
    }
}
