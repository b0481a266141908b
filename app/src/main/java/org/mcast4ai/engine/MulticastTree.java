package org.mcast4ai.engine;

import java.util.Arrays;

/**
 * A computed distribution tree in snapshot indices: for each switch on the tree, the port the group's
 * packets arrive on and the ports copies leave by (fabric links and receiver host ports). Immutable.
 */
public final class MulticastTree {
    private final int[] switches;
    private final long[] inPorts;
    // out ports of position i are outFlat[outStart[i] .. outStart[i + 1] - 1]
    private final long[] outFlat;
    private final int[] outStart;
    private final int[] linkFrom;
    private final int[] linkTo;
    private final int[] unreachable;

    /**
     * @param switches    switch indices on the tree (parents before children)
     * @param inPorts     per switch, the in port
     * @param outPorts    per switch, the out ports (ascending, never the in port)
     * @param linkFrom    per used fabric link (parent to child), the parent switch
     * @param linkTo      per used fabric link, the child switch
     * @param unreachable receiver host indices the tree does not reach
     */
    public MulticastTree(int[] switches, long[] inPorts, long[][] outPorts, int[] linkFrom, int[] linkTo,
                         int[] unreachable) {
        this(switches, inPorts, flatten(outPorts), starts(outPorts), linkFrom, linkTo, unreachable);
    }

    /**
     * The engine's own constructor: out ports already flat, nothing copied.
     *
     * @param switches    switch indices on the tree (parents before children)
     * @param inPorts     per switch, the in port
     * @param outFlat     all out ports, switch after switch
     * @param outStart    per switch i, where its out ports start in outFlat (size() + 1 entries)
     * @param linkFrom    per used fabric link, the parent switch
     * @param linkTo      per used fabric link, the child switch
     * @param unreachable receiver host indices the tree does not reach
     */
    MulticastTree(int[] switches, long[] inPorts, long[] outFlat, int[] outStart, int[] linkFrom, int[] linkTo,
                  int[] unreachable) {
        this.switches = switches;
        this.inPorts = inPorts;
        this.outFlat = outFlat;
        this.outStart = outStart;
        this.linkFrom = linkFrom;
        this.linkTo = linkTo;
        this.unreachable = unreachable;
    }

    private static int[] starts(long[][] outPorts) {
        int[] start = new int[outPorts.length + 1];
        for (int i = 0; i < outPorts.length; i++) {
            start[i + 1] = start[i] + outPorts[i].length;
        }
        return start;
    }

    private static long[] flatten(long[][] outPorts) {
        long[] flat = new long[starts(outPorts)[outPorts.length]];
        int n = 0;
        for (long[] ports : outPorts) {
            System.arraycopy(ports, 0, flat, n, ports.length);
            n += ports.length;
        }
        return flat;
    }

    /** @return number of switches on the tree */
    public int size() {
        return switches.length;
    }

    /**
     * @param i position 0..size()-1 (parents come before children)
     * @return switch index
     */
    public int switchAt(int i) {
        return switches[i];
    }

    /**
     * @param i position
     * @return in port at that switch
     */
    public long inPort(int i) {
        return inPorts[i];
    }

    /**
     * @param i position
     * @return out ports at that switch (a copy)
     */
    public long[] outPorts(int i) {
        return Arrays.copyOfRange(outFlat, outStart[i], outStart[i + 1]);
    }

    /**
     * @param i position
     * @return number of out ports at that switch
     */
    public int outPortCount(int i) {
        return outStart[i + 1] - outStart[i];
    }

    /**
     * Reads an out port without copying.
     *
     * @param i position
     * @param j 0..outPortCount(i)-1 (ascending port order)
     * @return that out port
     */
    public long outPort(int i, int j) {
        if (j < 0 || j >= outPortCount(i)) {
            throw new IndexOutOfBoundsException("out port " + j + " of " + outPortCount(i));
        }
        return outFlat[outStart[i] + j];
    }

    /** @return number of switch-to-switch links used */
    public int fabricLinks() {
        return linkFrom.length;
    }

    /**
     * @param l link position
     * @return parent switch index of that link
     */
    public int linkFrom(int l) {
        return linkFrom[l];
    }

    /**
     * @param l link position
     * @return child switch index of that link
     */
    public int linkTo(int l) {
        return linkTo[l];
    }

    /** @return receiver host indices not reached (a copy) */
    public int[] unreachable() {
        return unreachable.clone();
    }
}
