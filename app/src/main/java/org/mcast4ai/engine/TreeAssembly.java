package org.mcast4ai.engine;

import java.util.Arrays;

/**
 * Turns a set of tree switches, each with its parent link, into a {@link MulticastTree}. Switches must be
 * added parents before children; the first one added is the root (the source leaf).
 */
final class TreeAssembly {
    private final int[] order;
    private final int[] parentOf;
    private final int[] linkOf;
    private int count;

    TreeAssembly(int switchCount) {
        order = new int[switchCount];
        parentOf = new int[switchCount];
        linkOf = new int[switchCount];
    }

    void add(int sw, int parent, int link) {
        order[count] = sw;
        parentOf[count] = parent;
        linkOf[count] = link;
        count++;
    }

    MulticastTree build(FabricSnapshot fabric, int source, int[] receivers, int[] unreachable) {
        int s = fabric.switchCount();
        int[] pos = new int[s];
        Arrays.fill(pos, -1);
        for (int i = 0; i < count; i++) {
            pos[order[i]] = i;
        }
        int[] nOut = new int[count];
        boolean[] dead = new boolean[fabric.hostCount()];
        for (int u : unreachable) {
            dead[u] = true;
        }
        for (int r : receivers) {
            if (!dead[r] && pos[fabric.hostSwitch(r)] >= 0) {
                nOut[pos[fabric.hostSwitch(r)]]++;
            }
        }
        for (int i = 1; i < count; i++) {
            nOut[pos[parentOf[i]]]++;
        }
        long[][] out = new long[count][];
        for (int i = 0; i < count; i++) {
            out[i] = new long[nOut[i]];
            nOut[i] = 0;
        }
        for (int r : receivers) {
            if (!dead[r] && pos[fabric.hostSwitch(r)] >= 0) {
                int p = pos[fabric.hostSwitch(r)];
                out[p][nOut[p]++] = fabric.hostPort(r);
            }
        }
        long[] in = new long[count];
        int[] lf = new int[Math.max(0, count - 1)];
        int[] lt = new int[lf.length];
        in[0] = fabric.hostPort(source);
        for (int i = 1; i < count; i++) {
            int p = pos[parentOf[i]];
            out[p][nOut[p]++] = fabric.linkFromPort(linkOf[i]);
            in[i] = fabric.linkToPort(linkOf[i]);
            lf[i - 1] = parentOf[i];
            lt[i - 1] = order[i];
        }
        for (int i = 0; i < count; i++) {
            out[i] = sortedWithout(out[i], in[i]);
        }
        return new MulticastTree(Arrays.copyOf(order, count), in, out, lf, lt, unreachable);
    }

    private static long[] sortedWithout(long[] ports, long in) {
        Arrays.sort(ports);
        int n = 0;
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] != in && (n == 0 || ports[n - 1] != ports[i])) {
                ports[n++] = ports[i];
            }
        }
        return n == ports.length ? ports : Arrays.copyOf(ports, n);
    }
}
