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
    private int[] receiverPos = new int[0];
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
        if (receiverPos.length < receivers.length) {
            receiverPos = new int[receivers.length];
        }
        int[] cursor = outCount;
        Arrays.fill(cursor, 0, count, 0);
        int nUnreach = 0;
        for (int k = 0; k < receivers.length; k++) {
            int sw = fabric.hostSwitch(receivers[k]);
            if (pos.has(sw)) {
                int p = pos.get(sw);
                receiverPos[k] = p;
                cursor[p]++;
            } else {
                receiverPos[k] = -1;
                nUnreach++;
            }
        }
        for (int i = 1; i < count; i++) {
            cursor[parentPos[i]]++;
        }
        int[] start = new int[count + 1];
        for (int i = 0; i < count; i++) {
            start[i + 1] = start[i] + cursor[i];
            cursor[i] = start[i];
        }
        long[] flat = new long[start[count]];
        int[] unreachable = new int[nUnreach];
        nUnreach = 0;
        for (int k = 0; k < receivers.length; k++) {
            int p = receiverPos[k];
            if (p >= 0) {
                flat[cursor[p]++] = fabric.hostPort(receivers[k]);
            } else {
                unreachable[nUnreach++] = receivers[k];
            }
        }
        long[] in = new long[count];
        int[] from = new int[count - 1];
        int[] to = new int[count - 1];
        in[0] = fabric.hostPort(source);
        for (int i = 1; i < count; i++) {
            int p = parentPos[i];
            flat[cursor[p]++] = fabric.linkFromPort(linkOf[i]);
            in[i] = fabric.linkToPort(linkOf[i]);
            from[i - 1] = order[p];
            to[i - 1] = order[i];
        }
        // sort each switch's ports, drop duplicates (hosts sharing a port) and the in port, compact left
        int w = 0;
        for (int i = 0; i < count; i++) {
            int segment = start[i];
            int end = start[i + 1];
            sort(flat, segment, end);
            start[i] = w;
            int first = w;
            for (int j = segment; j < end; j++) {
                long port = flat[j];
                if (port != in[i] && (w == first || flat[w - 1] != port)) {
                    flat[w++] = port;
                }
            }
        }
        start[count] = w;
        if (w < flat.length) {
            flat = Arrays.copyOf(flat, w);
        }
        return new MulticastTree(Arrays.copyOf(order, count), in, flat, start, from, to, unreachable);
    }

    /** Insertion sort: a switch has a few out ports (hosts and links), rarely more than a few dozen. */
    private static void sort(long[] a, int from, int to) {
        if (to - from > 64) {
            Arrays.sort(a, from, to);
            return;
        }
        for (int i = from + 1; i < to; i++) {
            long x = a[i];
            int j = i - 1;
            while (j >= from && a[j] > x) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = x;
        }
    }
}
