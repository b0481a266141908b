package org.mcast4ai.engine;

/**
 * A computed distribution tree in snapshot indices: for each switch on the tree, the port the group's
 * packets arrive on and the ports copies leave by (fabric links and receiver host ports). Immutable.
 */
public final class MulticastTree {
    private final int[] switches;
    private final long[] inPorts;
    private final long[][] outPorts;
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
        this.switches = switches;
        this.inPorts = inPorts;
        this.outPorts = outPorts;
        this.linkFrom = linkFrom;
        this.linkTo = linkTo;
        this.unreachable = unreachable;
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
        return outPorts[i].clone();
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
