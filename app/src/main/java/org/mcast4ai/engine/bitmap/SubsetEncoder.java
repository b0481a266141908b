package org.mcast4ai.engine.bitmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The sender-side encoder of per-packet receiver subsets (MoE top-K dispatch). The group's bit map
 * (receiver to bit index, from the REST API) fixes each member's rank: its position in ascending bit index
 * order. A sender addresses any subset of the group per packet, with no switch write, in one of two ways:
 *
 * <ul>
 *   <li>{@link #headers}: the fabric header itself, for senders that write their own headers (a DPDK or
 *       XDP sender, a SmartNIC, a host stamper). No switch holds anything for the group.</li>
 *   <li>{@link #address}: an IPv6 destination address carrying the subset as member ranks, for stock RDMA
 *       NICs, which can send to any IPv6 address but cannot insert a header. The source leaf expands it with
 *       the group's one stamp entry (rank to bit index, written once when the group is created) into the
 *       same header; {@link #ranksOf} is that expansion's decoding step.</li>
 * </ul>
 *
 * <p>Subset address layout (16 bytes): bytes 0-1 the configured subset prefix; bytes 2-3 the form bit (bit
 * 15: 0 rank list, 1 rank bitmap) and the 15-bit group number; bytes 4-15 the body: either up to eight 12-bit
 * ranks, ascending, unused entries 0xFFF (groups up to 4,095 members), or a 96-bit bitmap of ranks 0-95.
 */
public final class SubsetEncoder {
    /** Ranks a rank-list address carries. */
    public static final int MAX_LIST_RANKS = 8;
    /** Members a rank-bitmap address covers. */
    public static final int BITMAP_RANKS = 96;
    /** Largest group whose ranks fit the 12-bit list entries. */
    public static final int MAX_LIST_MEMBERS = 4095;
    private static final int UNUSED = 0xFFF;

    private final HeaderV2Planner planner;
    private final int[] memberBits;           // rank -> bit index
    private final Map<String, Integer> rankOf; // receiver -> rank

    /**
     * @param planner the fabric's header planner
     * @param bitMap  the group's bit map: receiver id to bit index
     */
    public SubsetEncoder(HeaderV2Planner planner, Map<String, Integer> bitMap) {
        this.planner = Objects.requireNonNull(planner);
        TreeMap<Integer, String> byBit = new TreeMap<>();
        for (Map.Entry<String, Integer> e : bitMap.entrySet()) {
            if (byBit.put(e.getValue(), e.getKey()) != null) {
                throw new IllegalArgumentException("two receivers share bit index " + e.getValue());
            }
        }
        memberBits = byBit.keySet().stream().mapToInt(Integer::intValue).toArray();
        rankOf = new TreeMap<>();
        int r = 0;
        for (String id : byBit.values()) {
            rankOf.put(id, r++);
        }
    }

    /** @return number of members */
    public int members() {
        return memberBits.length;
    }

    /**
     * @param receiver a member's id
     * @return its rank
     */
    public int rank(String receiver) {
        Integer r = rankOf.get(receiver);
        if (r == null) {
            throw new IllegalArgumentException("not a member of the group: " + receiver);
        }
        return r;
    }

    /**
     * @param subset member ids
     * @return their ranks, ascending
     */
    public int[] ranks(Iterable<String> subset) {
        List<Integer> out = new ArrayList<>();
        for (String id : subset) {
            out.add(rank(id));
        }
        return out.stream().mapToInt(Integer::intValue).distinct().sorted().toArray();
    }

    /**
     * The headers for a subset, one per packet (one unless the subset is very spread; what a source leaf
     * expands an IPv6 subset address into).
     *
     * @param entropy the flow entropy to stamp
     * @param ranks   member ranks
     * @return the headers, one per packet
     */
    public List<HeaderV2> headers(int entropy, int... ranks) {
        int[] bits = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            bits[i] = bitOfRank(ranks[i]);
        }
        return planner.plan(Arrays.stream(bits).sorted().distinct().toArray(), entropy);
    }

    /**
     * @param rank a member rank
     * @return its bit index
     */
    public int bitOfRank(int rank) {
        if (rank < 0 || rank >= memberBits.length) {
            throw new IllegalArgumentException("rank " + rank + " outside 0.." + (memberBits.length - 1));
        }
        return memberBits[rank];
    }

    /**
     * The IPv6 destination address that carries a subset.
     *
     * @param prefix 16-bit subset prefix configured for the fabric
     * @param group  group number 0..32767
     * @param ranks  member ranks: at most 8 of a group up to 4,095 members, or any of ranks 0..95
     * @return the 16-byte address
     */
    public byte[] address(int prefix, int group, int... ranks) {
        if (group < 0 || group > 0x7FFF || prefix < 0 || prefix > 0xFFFF) {
            throw new IllegalArgumentException("group number must be 0..32767 and prefix 16 bits");
        }
        int[] sorted = Arrays.stream(ranks).distinct().sorted().toArray();
        for (int r : sorted) {
            bitOfRank(r);
        }
        byte[] a = new byte[16];
        a[0] = (byte) (prefix >>> 8);
        a[1] = (byte) prefix;
        boolean list = sorted.length <= MAX_LIST_RANKS && memberBits.length <= MAX_LIST_MEMBERS;
        if (!list && (sorted.length == 0 || sorted[sorted.length - 1] >= BITMAP_RANKS)) {
            throw new IllegalArgumentException("a subset address carries up to " + MAX_LIST_RANKS
                    + " ranks of a group up to " + MAX_LIST_MEMBERS + " members, or any ranks below "
                    + BITMAP_RANKS + "; use the fabric header for this subset");
        }
        int groupField = group | (list ? 0 : 0x8000);
        a[2] = (byte) (groupField >>> 8);
        a[3] = (byte) groupField;
        if (list) {
            for (int i = 0; i < MAX_LIST_RANKS; i++) {
                put12(a, i, i < sorted.length ? sorted[i] : UNUSED);
            }
        } else {
            for (int r : sorted) {
                a[4 + r / 8] |= (byte) (0x80 >>> (r % 8));
            }
        }
        return a;
    }

    /**
     * Decodes the ranks of a subset address (the source leaf's expansion step).
     *
     * @param address 16-byte address
     * @return member ranks, ascending
     */
    public static int[] ranksOf(byte[] address) {
        if (address == null || address.length != 16) {
            throw new IllegalArgumentException("a subset address has 16 bytes");
        }
        boolean bitmap = (address[2] & 0x80) != 0;
        List<Integer> out = new ArrayList<>();
        if (bitmap) {
            for (int r = 0; r < BITMAP_RANKS; r++) {
                if ((address[4 + r / 8] & (0x80 >>> (r % 8))) != 0) {
                    out.add(r);
                }
            }
        } else {
            for (int i = 0; i < MAX_LIST_RANKS; i++) {
                int r = get12(address, i);
                if (r != UNUSED) {
                    out.add(r);
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * @param address 16-byte subset address
     * @return its group number
     */
    public static int groupOf(byte[] address) {
        return ((address[2] & 0x7F) << 8) | (address[3] & 0xFF);
    }

    private static void put12(byte[] a, int i, int v) {
        int bit = 32 + 12 * i;
        for (int k = 0; k < 12; k++) {
            if ((v & (0x800 >>> k)) != 0) {
                a[(bit + k) / 8] |= (byte) (0x80 >>> ((bit + k) % 8));
            }
        }
    }

    static int get12(byte[] a, int i) {
        int bit = 32 + 12 * i;
        int v = 0;
        for (int k = 0; k < 12; k++) {
            v = (v << 1) | ((a[(bit + k) / 8] >>> (7 - (bit + k) % 8)) & 1);
        }
        return v;
    }
}
