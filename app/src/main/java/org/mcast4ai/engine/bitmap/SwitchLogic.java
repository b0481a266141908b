package org.mcast4ai.engine.bitmap;

import java.util.ArrayList;
import java.util.List;

/**
 * The per-hop replication rule (BIER F-BM semantics) every switch applies, as a pure function of the
 * switch's static {@link SwitchTable} and the packet: its in-port, its header and its flow entropy. No
 * other input exists, so the rule cannot depend on any group.
 *
 * <ol>
 *   <li>A header whose hop limit is 0 is dropped.</li>
 *   <li>For each downward neighbour, the receivers in its range form its copy: a hierarchical header is
 *       narrowed to the neighbour's scope (POD towards a pod, LEAF towards a leaf), a LIST is sliced;
 *       towards a host the header is removed. Empty copies are not sent, and nothing is sent back out of
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
        private final BitmapHeader header;

        Copy(long port, BitmapHeader header) {
            this.port = port;
            this.header = header;
        }

        /** @return the out port */
        public long port() {
            return port;
        }

        /** @return the header of the copy, or null when it goes to a host without header */
        public BitmapHeader header() {
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
     * @param header  the decoded header
     * @param entropy the packet's flow entropy (for the equal-cost choice)
     * @return the copies to send
     */
    public static Result forward(SwitchTable table, long inPort, BitmapHeader header, long entropy) {
        List<Copy> copies = new ArrayList<>();
        if (header.ttl() <= 0) {
            return new Result(copies, header.size());
        }
        int dropped = 0;
        for (int c = 0; c < table.children(); c++) {
            BitmapHeader sub = header.slice(table.childLo(c), table.childHi(c),
                    table.childScope() == null ? Encoding.LEAF : table.childScope());
            if (sub.isEmpty()) {
                continue;
            }
            long port = table.pick(c, entropy);
            if (port != inPort) {
                copies.add(new Copy(port, table.childScope() == null ? null : sub));
            }
        }
        BitmapHeader rest = header.without(table.selfLo(), table.selfHi());
        if (!rest.isEmpty()) {
            if (table.upPorts().length == 0 || table.isUpPort(inPort)) {
                dropped += rest.size();
            } else {
                copies.add(new Copy(table.pickUp(entropy), rest));
            }
        }
        return new Result(copies, dropped);
    }
}
