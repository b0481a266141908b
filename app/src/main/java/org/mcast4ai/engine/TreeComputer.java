package org.mcast4ai.engine;

/** Computes a multicast distribution tree over a fabric snapshot. Implementations are stateless. */
public interface TreeComputer {
    /**
     * @param fabric    the snapshot
     * @param source    source host index
     * @param receivers receiver host indices (distinct, source excluded)
     * @param spreadKey a per-group value used to spread groups over equal-cost spines deterministically
     * @return the tree; receivers it cannot reach are listed in {@link MulticastTree#unreachable()}
     */
    MulticastTree compute(FabricSnapshot fabric, int source, int[] receivers, long spreadKey);
}
