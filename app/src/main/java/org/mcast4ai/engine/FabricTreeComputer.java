package org.mcast4ai.engine;

import java.util.Arrays;

/**
 * Computes multicast trees over a fabric snapshot. This first version builds a breadth-first
 * shortest-path tree rooted at the source host's leaf and keeps only the branches leading to receivers.
 *
 * <p>Thread-safe and stateless from the caller's view.
 */
public final class FabricTreeComputer implements TreeComputer {

    /** Creates a tree computer. */
    public FabricTreeComputer() {
    }

    @Override
    public MulticastTree compute(FabricSnapshot fabric, int source, int[] receivers, long spreadKey) {
        checkArgs(fabric, source, receivers);
        int s = fabric.switchCount();
        int root = fabric.hostSwitch(source);
        int[] parentLink = new int[s];
        int[] parent = new int[s];
        Arrays.fill(parentLink, -2);
        int[] queue = new int[s];
        int head = 0;
        int tail = 0;
        parentLink[root] = -1;
        parent[root] = -1;
        queue[tail++] = root;
        while (head < tail) {
            int u = queue[head++];
            for (int e = fabric.linkStart(u); e < fabric.linkStart(u + 1); e++) {
                int v = fabric.linkTo(e);
                if (parentLink[v] == -2) {
                    parentLink[v] = e;
                    parent[v] = u;
                    queue[tail++] = v;
                }
            }
        }
        boolean[] onTree = new boolean[s];
        int[] unreachable = new int[receivers.length];
        int nUnreach = 0;
        onTree[root] = true;
        for (int r : receivers) {
            int sw = fabric.hostSwitch(r);
            if (parentLink[sw] == -2) {
                unreachable[nUnreach++] = r;
                continue;
            }
            while (sw >= 0 && !onTree[sw]) {
                onTree[sw] = true;
                sw = parent[sw];
            }
        }
        TreeAssembly asm = new TreeAssembly(s);
        for (int i = 0; i < tail; i++) {
            int u = queue[i];
            if (onTree[u]) {
                asm.add(u, parentLink[u] < 0 ? -1 : parent[u], parentLink[u]);
            }
        }
        return asm.build(fabric, source, receivers, Arrays.copyOf(unreachable, nUnreach));
    }

    static void checkArgs(FabricSnapshot fabric, int source, int[] receivers) {
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
