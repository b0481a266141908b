package org.mcast4ai.engine.bitmap;

import java.util.Arrays;
import java.util.Objects;

/**
 * The static replication state of one switch, derived from the fabric and the bit index table alone: the
 * bit index range it delivers downward itself, each downward neighbour's range with the port(s) leading to
 * it, and the uplinks that carry everything else. It names no group: the same table serves every group.
 * Every port towards another switch also carries the set of leaves still reachable through it (down only,
 * or up and then down for an uplink), so that after a failure a copy only goes where its receivers can
 * still be reached: the state grows with ports times leaves, not with groups. Immutable.
 */
public final class SwitchTable {
    private final int selfLo;
    private final int selfHi;
    private final int[] childLo;
    private final int[] childHi;
    private final long[][] childPorts;
    private final boolean toHosts;
    private final long[] upPorts;
    private final long[][][] childReach;
    private final long[][] upReach;
    private final int slotBits;

    /**
     * @param selfLo     first bit index delivered below this switch
     * @param selfHi     end (exclusive) of that range (equal to selfLo if none)
     * @param childLo    per downward neighbour, first bit index of its range (ascending)
     * @param childHi    per downward neighbour, end (exclusive) of its range
     * @param childPorts per downward neighbour, the equal-cost ports leading to it
     * @param toHosts    true when the neighbours are hosts (the header is removed)
     * @param upPorts    equal-cost uplinks for bit indices outside [selfLo, selfHi)
     * @param childReach per downward neighbour and port, the leaves reachable through it (a bit set over leaf
     *                   numbers, bit index shifted right by the slot bits); null towards hosts
     * @param upReach    per uplink, the leaves reachable up through it and then down
     * @param slotBits   slot bits of the geometry (a bit index's leaf number is the index shifted by them)
     */
    SwitchTable(int selfLo, int selfHi, int[] childLo, int[] childHi, long[][] childPorts, boolean toHosts,
                long[] upPorts, long[][][] childReach, long[][] upReach, int slotBits) {
        this.selfLo = selfLo;
        this.selfHi = selfHi;
        this.childLo = childLo;
        this.childHi = childHi;
        this.childPorts = childPorts;
        this.toHosts = toHosts;
        this.upPorts = upPorts;
        this.childReach = childReach;
        this.upReach = upReach;
        this.slotBits = slotBits;
    }

    /** @return first bit index delivered below this switch */
    public int selfLo() {
        return selfLo;
    }

    /** @return end (exclusive) of the range delivered below this switch */
    public int selfHi() {
        return selfHi;
    }

    /** @return number of downward neighbours (host slots, leaves or pods) */
    public int children() {
        return childLo.length;
    }

    /**
     * @param c downward neighbour position
     * @return first bit index of its range
     */
    public int childLo(int c) {
        return childLo[c];
    }

    /**
     * @param c downward neighbour position
     * @return end (exclusive) of its range
     */
    public int childHi(int c) {
        return childHi[c];
    }

    /**
     * @param c downward neighbour position
     * @return the equal-cost ports leading to it (a copy)
     */
    public long[] childPorts(int c) {
        return childPorts[c].clone();
    }

    /** @return true when the neighbours below are hosts (a leaf: the header is removed towards them) */
    public boolean toHosts() {
        return toHosts;
    }

    /** @return the uplinks (a copy) */
    public long[] upPorts() {
        return upPorts.clone();
    }

    /**
     * @param port a port
     * @return true if it is an uplink
     */
    public boolean isUpPort(long port) {
        for (long p : upPorts) {
            if (p == port) {
                return true;
            }
        }
        return false;
    }

    /**
     * Entries a pipeline holds for this table: one per downward neighbour (range to port or port group)
     * plus one for the uplink group, whatever the number of groups.
     *
     * @return the entry count
     */
    public int entries() {
        return childLo.length + (upPorts.length > 0 ? 1 : 0) + 1;
    }

    /**
     * @param c    downward neighbour position
     * @param port index into {@link #childPorts(int)}
     * @param bit  a receiver's bit index
     * @return true if that port still leads to the receiver's leaf (always true towards hosts)
     */
    public boolean childReaches(int c, int port, int bit) {
        return childReach[c] == null || has(childReach[c][port], bit >>> slotBits);
    }

    /**
     * @param port index into {@link #upPorts()}
     * @param bit  a receiver's bit index
     * @return true if the receiver's leaf is still reachable up through that port and then down
     */
    public boolean upReaches(int port, int bit) {
        return has(upReach[port], bit >>> slotBits);
    }

    private static boolean has(long[] set, int i) {
        return i >>> 6 < set.length && (set[i >>> 6] & (1L << i)) != 0;
    }

    /**
     * @param c    downward neighbour position
     * @param port index into {@link #childPorts(int)}
     * @return the leaf numbers that port reaches, ascending; empty towards hosts
     */
    public int[] childReach(int c, int port) {
        return childReach[c] == null ? new int[0] : members(childReach[c][port]);
    }

    /**
     * @param port index into {@link #upPorts()}
     * @return the leaf numbers reachable up through it, ascending
     */
    public int[] upReach(int port) {
        return members(upReach[port]);
    }

    private static int[] members(long[] set) {
        int n = 0;
        for (long w : set) {
            n += Long.bitCount(w);
        }
        int[] out = new int[n];
        int k = 0;
        for (int i = 0; i < set.length; i++) {
            for (long w = set[i]; w != 0; w &= w - 1) {
                out[k++] = (i << 6) | Long.numberOfTrailingZeros(w);
            }
        }
        return out;
    }

    boolean towardsHosts() {
        return toHosts;
    }

    long childPort(int c, int i) {
        return childPorts[c][i];
    }

    int childPortCount(int c) {
        return childPorts[c].length;
    }

    int upPortCount() {
        return upPorts.length;
    }

    long upPort(int i) {
        return upPorts[i];
    }

    long pick(int c, long entropy) {
        long[] p = childPorts[c];
        return p.length == 1 ? p[0] : p[(int) Math.floorMod(entropy, (long) p.length)];
    }


    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SwitchTable)) {
            return false;
        }
        SwitchTable t = (SwitchTable) o;
        return selfLo == t.selfLo && selfHi == t.selfHi && Arrays.equals(childLo, t.childLo)
                && Arrays.equals(childHi, t.childHi) && Arrays.deepEquals(childPorts, t.childPorts)
                && toHosts == t.toHosts && Arrays.equals(upPorts, t.upPorts)
                && Arrays.deepEquals(childReach, t.childReach) && Arrays.deepEquals(upReach, t.upReach)
                && slotBits == t.slotBits;
    }

    @Override
    public int hashCode() {
        return Objects.hash(selfLo, selfHi, Arrays.hashCode(childLo), Arrays.deepHashCode(childPorts), toHosts,
                Arrays.hashCode(upPorts), Arrays.deepHashCode(upReach));
    }

    @Override
    public String toString() {
        return "SwitchTable{self=[" + selfLo + "," + selfHi + "), children=" + childLo.length + ", up="
                + upPorts.length + "}";
    }
}
