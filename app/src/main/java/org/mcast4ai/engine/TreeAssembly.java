package org.mcast4ai.engine;

import java.util.Arrays;

/**
 * The tree under construction: switches with their parent link, added parents before children (the first
 * one is the root, the source leaf). {@link #build} turns it into a {@link MulticastTree}. Reusable.
 */
final class TreeAssembly {
    private final Marks pos = new Marks();
    private int[] order = new int[0];
    private int[] parentPos = new int[0];
    private int[] linkOf = new int[0];
    private int[] outCount = new int[0];
    private int count;

    /**
     * Empties the tree and starts it at {@code root}.
     *
     * @param fabric the snapshot the tree is built on
     * @param root   the source leaf
     */
    void reset(FabricSnapshot fabric, int root) {
        int s = fabric.switchCount();
        pos.reset(s);
        if (order.length < s) {
            order = new int[s];
            parentPos = new int[s];
            linkOf = new int[s];
            outCount = new int[s];
        }
        count = 0;
        order[0] = root;
        parentPos[0] = -1;
        linkOf[0] = -1;
        pos.set(root, 0);
        count = 1;
    }

    /**
     * Adds a switch below a switch already on the tree.
     *
     * @param sw     the new switch (not on the tree yet)
     * @param parent a switch on the tree
     * @param link   the directed link parent to sw
     */
    void add(int sw, int parent, int link) {
        order[count] = sw;
        parentPos[count] = pos.get(parent);
        linkOf[count] = link;
        pos.set(sw, count);
        count++;
    }

    boolean contains(int sw) {
        return pos.has(sw);
    }

    int size() {
        return count;
    }

    int switchAt(int i) {
        return order[i];
    }

    /**
     * @param fabric    the snapshot
     * @param source    source host
     * @param receivers receiver hosts; those whose switch is not on the tree are unreachable
     * @return the finished tree
     */
    MulticastTree build(FabricSnapshot fabric, int source, int[] receivers) {
        Arrays.fill(outCount, 0, count, 0);
        int nUnreach = 0;
        for (int r : receivers) {
            int sw = fabric.hostSwitch(r);
            if (pos.has(sw)) {
                outCount[pos.get(sw)]++;
            } else {
                nUnreach++;
            }
        }
        for (int i = 1; i < count; i++) {
            outCount[parentPos[i]]++;
        }
        long[][] out = new long[count][];
        for (int i = 0; i < count; i++) {
            out[i] = new long[outCount[i]];
            outCount[i] = 0;
        }
        int[] unreachable = new int[nUnreach];
        nUnreach = 0;
        for (int r : receivers) {
            int sw = fabric.hostSwitch(r);
            if (pos.has(sw)) {
                int p = pos.get(sw);
                out[p][outCount[p]++] = fabric.hostPort(r);
            } else {
                unreachable[nUnreach++] = r;
            }
        }
        long[] in = new long[count];
        int[] from = new int[count - 1];
        int[] to = new int[count - 1];
        in[0] = fabric.hostPort(source);
        for (int i = 1; i < count; i++) {
            int p = parentPos[i];
            out[p][outCount[p]++] = fabric.linkFromPort(linkOf[i]);
            in[i] = fabric.linkToPort(linkOf[i]);
            from[i - 1] = order[p];
            to[i - 1] = order[i];
        }
        for (int i = 0; i < count; i++) {
            out[i] = sortedWithout(out[i], in[i]);
        }
        return new MulticastTree(Arrays.copyOf(order, count), in, out, from, to, unreachable);
    }

    /** Sorts, removes duplicates (hosts sharing a port) and the in port (never send a copy back). */
    private static long[] sortedWithout(long[] ports, long in) {
        Arrays.sort(ports);
        int n = 0;
        for (long p : ports) {
            if (p != in && (n == 0 || ports[n - 1] != p)) {
                ports[n++] = p;
            }
        }
        return n == ports.length ? ports : Arrays.copyOf(ports, n);
    }
}
