package org.mcast4ai.impl.trace;

import java.util.Arrays;
import java.util.Objects;

/**
 * What one switch does with one of a group's packets, in the snapshot's numbering: the port it came in by, the
 * ports copies leave by, and (BITMAP) what part of the header or stamp it acted on. Immutable.
 */
public final class TraceHop {
    private final int sw;
    private final long inPort;
    private final long[] outPorts;
    private final String serves;

    /**
     * @param sw       switch index
     * @param inPort   the port the packet came in by
     * @param outPorts the ports copies leave by
     * @param serves   the header or stamp part it acted on, or empty
     */
    public TraceHop(int sw, long inPort, long[] outPorts, String serves) {
        this.sw = sw;
        this.inPort = inPort;
        this.outPorts = outPorts.clone();
        Arrays.sort(this.outPorts);
        this.serves = Objects.requireNonNull(serves);
    }

    /** @return the switch index */
    public int sw() {
        return sw;
    }

    /** @return the in port */
    public long inPort() {
        return inPort;
    }

    /** @return the out ports, ascending */
    public long[] outPorts() {
        return outPorts.clone();
    }

    /** @return what it acted on, or empty */
    public String serves() {
        return serves;
    }

    @Override
    public String toString() {
        return sw + ":" + inPort + "->" + Arrays.toString(outPorts);
    }
}
