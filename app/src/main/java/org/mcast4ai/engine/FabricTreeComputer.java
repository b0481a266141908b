package org.mcast4ai.engine;

/**
 * Computes multicast trees over a fabric snapshot.
 *
 * <ul>
 *   <li>On leaf-spine and fat-tree fabrics (roles Clos-consistent) the tree is minimal in switch-to-switch
 *   links and groups are spread over equal-cost spines and super-spines by their spread key
 *   ({@link ClosTrees}).</li>
 *   <li>Receivers that this cannot cover (after failures) and every receiver on other topologies are
 *   attached by the shortest-path Steiner heuristic ({@link SteinerGrower}), within twice the optimum.</li>
 * </ul>
 * The result is always a tree rooted at the source leaf: each switch is entered once, by one in port.
 *
 * <p>Thread-safe: scratch state is per thread and sized to the snapshot; a snapshot's Clos index is
 * computed once and reused while the same snapshot is passed in.
 */
public final class FabricTreeComputer implements TreeComputer {
    private static final ThreadLocal<Workspace> WORKSPACE = ThreadLocal.withInitial(Workspace::new);

    /** Creates a tree computer. */
    public FabricTreeComputer() {
    }

    @Override
    public MulticastTree compute(FabricSnapshot fabric, int source, int[] receivers, long spreadKey) {
        checkArgs(fabric, source, receivers);
        ClosIndex index = ClosIndex.of(fabric);
        Workspace w = WORKSPACE.get();
        w.reset(fabric, fabric.hostSwitch(source), index.podCount());
        w.collectTargets(fabric, receivers);
        if (index.isClos()) {
            ClosTrees.build(fabric, index, w, spreadKey);
        }
        SteinerGrower.grow(fabric, w);
        return w.tree.build(fabric, source, receivers);
    }

    private static void checkArgs(FabricSnapshot fabric, int source, int[] receivers) {
        if (fabric == null || receivers == null) {
            throw new IllegalArgumentException("fabric and receivers are required");
        }
        if (source < 0 || source >= fabric.hostCount()) {
            throw new IllegalArgumentException("unknown source host index " + source);
        }
        for (int r : receivers) {
            if (r < 0 || r >= fabric.hostCount()) {
                throw new IllegalArgumentException("unknown receiver host index " + r);
            }
        }
    }
}
