package org.mcast4ai.engine.bitmap;

import java.util.Objects;

/**
 * The shape of the coordinate space of a Clos fabric: how many pods, leaves per pod and host slots per leaf
 * the header addresses, and how a (pod, leaf, slot) position packs into a 16-bit bit index
 * ({@code pod << (leafBits + slotBits) | leaf << slotBits | slot}).
 *
 * <p>The counts also fix the widths of the bitmaps in the header, so every switch is configured with the
 * geometry once; it never changes for a group. A 2-tier leaf-spine is addressed with "virtual pods" of up to
 * 32 leaves each, so one header format serves both fabric kinds.
 */
public final class FabricGeometry {
    /** Width of a bit index in bits: 65,536 receiver positions at most. */
    public static final int INDEX_BITS = 16;

    private final boolean threeTier;
    private final int pods;
    private final int leavesPerPod;
    private final int slotsPerLeaf;
    private final int leafBits;
    private final int slotBits;

    /**
     * @param threeTier    true for a 3-tier fat tree (pods are real), false for a 2-tier leaf-spine
     * @param pods         number of pods addressed (1..)
     * @param leavesPerPod leaves per pod addressed (1..)
     * @param slotsPerLeaf host slots per leaf addressed (1..)
     */
    public FabricGeometry(boolean threeTier, int pods, int leavesPerPod, int slotsPerLeaf) {
        if (pods < 1 || leavesPerPod < 1 || slotsPerLeaf < 1) {
            throw new IllegalArgumentException("geometry counts must be positive: pods=" + pods
                    + " leavesPerPod=" + leavesPerPod + " slotsPerLeaf=" + slotsPerLeaf);
        }
        this.threeTier = threeTier;
        this.pods = pods;
        this.leavesPerPod = leavesPerPod;
        this.slotsPerLeaf = slotsPerLeaf;
        this.leafBits = bitsFor(leavesPerPod);
        this.slotBits = bitsFor(slotsPerLeaf);
        if (bitsFor(pods) + leafBits + slotBits > INDEX_BITS) {
            throw new IllegalArgumentException("fabric too large for 16-bit bit indices: pods=" + pods
                    + " leavesPerPod=" + leavesPerPod + " slotsPerLeaf=" + slotsPerLeaf);
        }
    }

    /**
     * The geometry of a 2-tier leaf-spine: leaves are grouped into virtual pods of 32.
     *
     * @param leaves       number of leaves
     * @param slotsPerLeaf host slots per leaf
     * @return the geometry
     */
    public static FabricGeometry leafSpine(int leaves, int slotsPerLeaf) {
        int perPod = Math.min(Math.max(leaves, 1), 32);
        return new FabricGeometry(false, (Math.max(leaves, 1) + perPod - 1) / perPod, perPod, slotsPerLeaf);
    }

    /**
     * The geometry of a k-ary 3-tier fat tree: k pods of k/2 leaves with k/2 hosts each.
     *
     * @param k the switch radix (even)
     * @return the geometry
     */
    public static FabricGeometry fatTree(int k) {
        return new FabricGeometry(true, k, k / 2, k / 2);
    }

    static int bitsFor(int count) {
        return count <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(count - 1);
    }

    /** @return true for a 3-tier fabric with real pods, false for a 2-tier leaf-spine */
    public boolean threeTier() {
        return threeTier;
    }

    /** @return pods addressed */
    public int pods() {
        return pods;
    }

    /** @return leaves per pod addressed */
    public int leavesPerPod() {
        return leavesPerPod;
    }

    /** @return host slots per leaf addressed */
    public int slotsPerLeaf() {
        return slotsPerLeaf;
    }

    /** @return bits of the leaf field in a bit index */
    public int leafBits() {
        return leafBits;
    }

    /** @return bits of the slot field in a bit index */
    public int slotBits() {
        return slotBits;
    }

    /**
     * @param pod  pod number
     * @param leaf leaf number in the pod
     * @param slot slot number on the leaf
     * @return the bit index of that position
     */
    public int bit(int pod, int leaf, int slot) {
        if (pod < 0 || pod >= pods || leaf < 0 || leaf >= leavesPerPod || slot < 0 || slot >= slotsPerLeaf) {
            throw new IllegalArgumentException("position out of range: pod=" + pod + " leaf=" + leaf
                    + " slot=" + slot + " in " + this);
        }
        return (pod << (leafBits + slotBits)) | (leaf << slotBits) | slot;
    }

    /**
     * @param bit a bit index
     * @return its pod
     */
    public int podOf(int bit) {
        return bit >>> (leafBits + slotBits);
    }

    /**
     * @param bit a bit index
     * @return its leaf number within the pod
     */
    public int leafOf(int bit) {
        return (bit >>> slotBits) & ((1 << leafBits) - 1);
    }

    /**
     * @param bit a bit index
     * @return its slot
     */
    public int slotOf(int bit) {
        return bit & ((1 << slotBits) - 1);
    }

    /**
     * @param bit a bit index
     * @return true if its fields lie within this geometry's counts
     */
    public boolean isValid(int bit) {
        return bit >= 0 && bit < (1 << INDEX_BITS) && podOf(bit) < pods && leafOf(bit) < leavesPerPod
                && slotOf(bit) < slotsPerLeaf;
    }

    /** @return bit indices covered by one leaf (the stride between leaves) */
    int leafSpan() {
        return 1 << slotBits;
    }

    /** @return bit indices covered by one pod */
    int podSpan() {
        return 1 << (leafBits + slotBits);
    }

    /** @return bytes of a pod bitmap */
    public int podBitmapBytes() {
        return (pods + 7) / 8;
    }

    /** @return bytes of a leaf bitmap */
    public int leafBitmapBytes() {
        return (leavesPerPod + 7) / 8;
    }

    /** @return bytes of a slot bitmap */
    public int slotBitmapBytes() {
        return (slotsPerLeaf + 7) / 8;
    }

    /** @return positions addressable (pods x leaves x slots) */
    public int capacity() {
        return pods * leavesPerPod * slotsPerLeaf;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FabricGeometry)) {
            return false;
        }
        FabricGeometry g = (FabricGeometry) o;
        return threeTier == g.threeTier && pods == g.pods && leavesPerPod == g.leavesPerPod
                && slotsPerLeaf == g.slotsPerLeaf;
    }

    @Override
    public int hashCode() {
        return Objects.hash(threeTier, pods, leavesPerPod, slotsPerLeaf);
    }

    @Override
    public String toString() {
        return "FabricGeometry{" + (threeTier ? "3-tier" : "2-tier") + ", pods=" + pods + ", leavesPerPod="
                + leavesPerPod + ", slotsPerLeaf=" + slotsPerLeaf + "}";
    }
}
