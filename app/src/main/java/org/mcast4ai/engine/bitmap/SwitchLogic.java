package org.mcast4ai.engine.bitmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The per-hop replication rule (BIER F-BM semantics) every switch applies, as a pure function of the
 * switch's static {@link SwitchTable} and the packet: its in-port, its header and its flow entropy. No
 * other input exists, so the rule cannot depend on any group.
 *
 * <ol>
 *   <li>A header whose hop limit is 0 is dropped.</li>
 *   <li>For each downward neighbour, the receivers in its range form its copy; towards a host the header
 *       is removed. Empty copies are not sent, and nothing is sent back out of
 *       the in-port.</li>
 *   <li>The receivers outside the switch's own range go up as one copy on one uplink chosen by the flow
 *       entropy, unless the packet came down from an uplink: then they are dropped (a switch never sends
 *       a packet back up, so no copy can loop).</li>
 * </ol>
 */
public final class SwitchLogic {
    private SwitchLogic() {
    }

    /** One copy leaving a switch. */
    public static final class Copy {
        private final long port;
        private final ReceiverSet header;

        Copy(long port, ReceiverSet header) {
            this.port = port;
            this.header = header;
        }

        /** @return the out port */
        public long port() {
            return port;
        }

        /** @return the header of the copy, or null when it goes to a host without header */
        public ReceiverSet header() {
            return header;
        }
    }

    /** What a switch does with one packet: the copies it sends and the receivers it had to drop. */
    public static final class Result {
        private final List<Copy> copies;
        private final int dropped;

        Result(List<Copy> copies, int dropped) {
            this.copies = copies;
            this.dropped = dropped;
        }

        /** @return the copies sent */
        public List<Copy> copies() {
            return copies;
        }

        /** @return receivers dropped (expired hop limit, arrived from above but not below, no uplink) */
        public int dropped() {
            return dropped;
        }
    }

    /**
     * @param table   the switch's static table
     * @param inPort  the port the packet arrived on
     * @param header  the receivers the packet's header carries
     * @param entropy the packet's flow entropy (for the equal-cost choice)
     * @return the copies to send
     */
    public static Result forward(SwitchTable table, long inPort, ReceiverSet header, long entropy) {
        List<Copy> copies = new ArrayList<>();
        if (header.ttl() <= 0) {
            return new Result(copies, header.size());
        }
        int dropped = 0;
        // receivers this switch cannot send down: outside its range, in no neighbour's range, or behind a port
        // that no longer reaches them
        IntBuffer rest = new IntBuffer(header.size());
        int next = 0;
        for (int c = 0; c < table.children(); c++) {
            ReceiverSet sub = header.slice(table.childLo(c), table.childHi(c));
            for (; next < header.size() && header.bit(next) < table.childLo(c); next++) {
                rest.add(header.bit(next));
            }
            next += sub.size();
            if (sub.isEmpty()) {
                continue;
            }
            if (table.towardsHosts()) {
                long port = table.pick(c, entropy);
                if (port != inPort) {
                    copies.add(new Copy(port, null));
                }
                continue;
            }
            int ports = table.childPortCount(c);
            int child = c;
            int[][] split = split(sub, ports, entropy, (p, bit) -> table.childReaches(child, p, bit));
            for (int p = 0; p < ports; p++) {
                if (split[p] != null && table.childPort(c, p) != inPort) {
                    copies.add(new Copy(table.childPort(c, p), sub.subset(split[p])));
                }
            }
            rest.addAll(split[ports]);
        }
        for (; next < header.size(); next++) {
            rest.add(header.bit(next));
        }
        if (rest.size() == 0) {
            return new Result(copies, dropped);
        }
        int[] up = rest.sorted();
        if (table.towardsHosts()) {
            // a leaf is the only way to its own hosts: what it cannot deliver in its range is lost
            int local = 0;
            for (int b : up) {
                local += b >= table.selfLo() && b < table.selfHi() ? 1 : 0;
            }
            dropped += local;
            if (local > 0) {
                up = withoutRange(up, table.selfLo(), table.selfHi());
            }
        }
        int uplinks = table.upPortCount();
        if (up.length == 0) {
            return new Result(copies, dropped);
        }
        if (uplinks == 0 || table.isUpPort(inPort)) {
            return new Result(copies, dropped + up.length);
        }
        ReceiverSet rise = header.rest(up);
        int[][] split = split(rise, uplinks, entropy, table::upReaches);
        for (int p = 0; p < uplinks; p++) {
            if (split[p] != null) {
                copies.add(new Copy(table.upPort(p), rise.subset(split[p])));
            }
        }
        return new Result(copies, dropped + split[uplinks].length);
    }

    /** Whether port {@code p} (an index) still reaches the receiver with bit index {@code bit}. */
    private interface Reaches {
        boolean test(int p, int bit);
    }

    /**
     * Assigns each receiver of a copy to one of {@code n} equal-cost ports: the port the flow entropy picks if
     * it reaches all of them (always, without failures), else the first in the entropy's rotation that does;
     * only if none reaches all, each receiver goes to the first port in that rotation that reaches it.
     *
     * @return per port the receivers it carries (null for none), and at index n those no port reaches
     */
    private static int[][] split(ReceiverSet h, int n, long entropy, Reaches reaches) {
        int[][] out = new int[n + 1][];
        int start = (int) Math.floorMod(entropy, (long) n);
        for (int k = 0; k < n; k++) {
            int p = (start + k) % n;
            boolean all = true;
            for (int i = 0; i < h.size() && all; i++) {
                all = reaches.test(p, h.bit(i));
            }
            if (all) {
                out[p] = h.bits();
                out[n] = new int[0];
                return out;
            }
        }
        IntBuffer[] parts = new IntBuffer[n + 1];
        for (int i = 0; i < h.size(); i++) {
            int to = n;
            for (int k = 0; k < n && to == n; k++) {
                int p = (start + k) % n;
                if (reaches.test(p, h.bit(i))) {
                    to = p;
                }
            }
            if (parts[to] == null) {
                parts[to] = new IntBuffer(4);
            }
            parts[to].add(h.bit(i));
        }
        for (int p = 0; p <= n; p++) {
            out[p] = parts[p] == null ? (p == n ? new int[0] : null) : parts[p].sorted();
        }
        return out;
    }

    private static int[] withoutRange(int[] bits, int lo, int hi) {
        IntBuffer b = new IntBuffer(bits.length);
        for (int x : bits) {
            if (x < lo || x >= hi) {
                b.add(x);
            }
        }
        return b.sorted();
    }

    /** A growable int list. */
    private static final class IntBuffer {
        private int[] a;
        private int n;

        IntBuffer(int capacity) {
            a = new int[Math.max(1, capacity)];
        }

        void add(int x) {
            if (n == a.length) {
                a = Arrays.copyOf(a, 2 * n);
            }
            a[n++] = x;
        }

        void addAll(int[] xs) {
            for (int x : xs) {
                add(x);
            }
        }

        int size() {
            return n;
        }

        int[] sorted() {
            int[] out = Arrays.copyOf(a, n);
            Arrays.sort(out);
            return out;
        }
    }
}
