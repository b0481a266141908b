package org.mcast4ai.engine.bitmap;

import org.mcast4ai.engine.FabricSnapshot;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Plays packets through a fabric exactly as the switches would: the sender's leaf receives each set's version 2
 * header as bytes from the source host's port; every switch decodes the bytes, applies {@link SwitchLogic} with
 * its static table, and every copy's header is the incoming one trimmed, as bytes. Counts copies and bytes per
 * link and copies per host. Pure; the wiring (which port leads where) comes from the snapshot and is not switch state.
 */
public final class ReplicationSimulator {
    private final FabricSnapshot fabric;
    private final SwitchTables tables;
    private final Map<Long, Integer> linkByPort = new HashMap<>();
    private final Map<Long, List<Integer>> hostsByPort = new HashMap<>();

    /**
     * @param fabric the snapshot
     * @param tables the switch tables built from it
     */
    public ReplicationSimulator(FabricSnapshot fabric, SwitchTables tables) {
        this.fabric = Objects.requireNonNull(fabric);
        this.tables = Objects.requireNonNull(tables);
        for (int sw = 0; sw < fabric.switchCount(); sw++) {
            for (int e = fabric.linkStart(sw); e < fabric.linkStart(sw + 1); e++) {
                linkByPort.putIfAbsent(key(sw, fabric.linkFromPort(e)), e);
            }
        }
        for (int h = 0; h < fabric.hostCount(); h++) {
            hostsByPort.computeIfAbsent(key(fabric.hostSwitch(h), fabric.hostPort(h)), x -> new ArrayList<>()).add(h);
        }
    }

    private static long key(int sw, long port) {
        return ((long) sw << 32) ^ port;
    }

    /**
     * Plays version 2 headers: each switch reads the receivers from the sections, and every copy's bytes are
     * the incoming header trimmed to the copy's leaves (entries selected, bitmaps masked), checked to carry
     * exactly the receivers the per-hop rule gave it. The flow entropy is the header's.
     *
     * @param source       source host index
     * @param sets         the headers the sender stamps, one packet each
     * @param payloadBytes payload bytes per packet (the header comes on top)
     * @return what happened
     * @throws IllegalStateException if a trimmed copy carries other receivers than the rule gave it
     */
    public Replication simulate(int source, List<HeaderV2> sets, int payloadBytes) {
        return simulate(source, sets, payloadBytes, null);
    }

    /** Sees what every switch did with one packet: the header bytes in and, per copy, the port and bytes out. */
    public interface HopListener {
        /**
         * @param sw      switch index
         * @param inPort  the port the packet came in on
         * @param in      the header bytes that came in
         * @param ports   per copy, the out port
         * @param out     per copy, the header bytes sent, or null towards a host (header removed)
         * @param dropped receivers dropped there
         */
        void hop(int sw, long inPort, byte[] in, List<Long> ports, List<byte[]> out, int dropped);
    }

    /**
     * {@link #simulate(int, List, int)}, telling a listener what every switch did.
     *
     * @param source       source host index
     * @param sets         the headers the sender stamps, one packet each
     * @param payloadBytes payload bytes per packet
     * @param listener     told about every hop, or null
     * @return what happened
     */
    public Replication simulate(int source, List<HeaderV2> sets, int payloadBytes, HopListener listener) {
        HeaderV2Codec v2 = new HeaderV2Codec(tables.geometry());
        FabricGeometry g = tables.geometry();
        Replication total = null;
        for (HeaderV2 set : sets) {
            Replication r = play(source, List.of(v2.encode(set)), payloadBytes, set.entropy(), listener, new Wire() {
                @Override
                public ReceiverSet read(byte[] bytes) {
                    HeaderV2 h = v2.decode(bytes);
                    return new ReceiverSet(h.hopLimit(), h.receivers(g));
                }

                @Override
                public byte[] copy(byte[] in, ReceiverSet out) {
                    int[] bits = out.bits();
                    HeaderV2 trimmed = v2.decode(in).trim(g, leaf -> {
                        int lo = leaf << g.slotBits();
                        int at = Arrays.binarySearch(bits, lo);
                        int next = at >= 0 ? at : -at - 1;
                        return next < bits.length && bits[next] >>> g.slotBits() == leaf;
                    });
                    if (!Arrays.equals(trimmed.receivers(g), bits)) {
                        throw new IllegalStateException("trimmed copy " + trimmed + " does not carry " + out);
                    }
                    return v2.encode(trimmed);
                }
            });
            total = total == null ? r : total.plus(r);
        }
        return total != null ? total : new Replication(fabric.linkCount(), fabric.hostCount(), source);
    }

    /** How headers look on the wire: read at a switch, written per copy. */
    private interface Wire {
        ReceiverSet read(byte[] bytes);

        byte[] copy(byte[] in, ReceiverSet out);
    }

    private Replication play(int source, List<byte[]> sets, int payloadBytes, long entropy, HopListener listener,
                             Wire wire) {
        Replication r = new Replication(fabric.linkCount(), fabric.hostCount(), source);
        int srcSwitch = fabric.hostSwitch(source);
        for (byte[] stamped : sets) {
            r.sourceBytes += payloadBytes + stamped.length;
            r.headerBytes += stamped.length;
            r.sets++;
            boolean[] visited = new boolean[fabric.switchCount()];
            ArrayDeque<Object[]> queue = new ArrayDeque<>();
            queue.add(new Object[]{srcSwitch, fabric.hostPort(source), stamped});
            while (!queue.isEmpty()) {
                Object[] pkt = queue.poll();
                int sw = (Integer) pkt[0];
                if (visited[sw]) {
                    r.revisits++;
                    continue;
                }
                visited[sw] = true;
                byte[] in = (byte[]) pkt[2];
                ReceiverSet h = wire.read(in);
                SwitchLogic.Result out = SwitchLogic.forward(tables.table(sw), (Long) pkt[1], h, entropy);
                r.dropped += out.dropped();
                List<Long> ports = new ArrayList<>();
                List<byte[]> sent = new ArrayList<>();
                for (SwitchLogic.Copy c : out.copies()) {
                    ports.add(c.port());
                    sent.add(deliver(r, sw, c, payloadBytes, queue, in, wire));
                }
                if (listener != null) {
                    listener.hop(sw, (Long) pkt[1], in, ports, sent, out.dropped());
                }
            }
        }
        return r;
    }

    private byte[] deliver(Replication r, int sw, SwitchLogic.Copy c, int payloadBytes, ArrayDeque<Object[]> queue,
                           byte[] in, Wire wire) {
        long k = key(sw, c.port());
        Integer link = linkByPort.get(k);
        if (link != null) {
            byte[] bytes = wire.copy(in, c.header());
            r.linkCopies[link]++;
            r.fabricBytes += payloadBytes + bytes.length;
            r.headerBytes += bytes.length;
            queue.add(new Object[]{fabric.linkTo(link), fabric.linkToPort(link), bytes});
            return bytes;
        }
        List<Integer> hosts = hostsByPort.get(k);
        if (hosts == null) {
            r.dropped++;
            return null;
        }
        for (int h : hosts) {
            r.hostCopies[h]++;
            r.hostBytes += payloadBytes;
        }
        return null;
    }

    /** The outcome of one simulation: copies and bytes per link, copies per host, anomalies. */
    public static final class Replication {
        private final int[] linkCopies;
        private final int[] hostCopies;
        private final int source;
        private long sourceBytes;
        private long fabricBytes;
        private long hostBytes;
        private long headerBytes;
        private int sets;
        private int revisits;
        private int dropped;

        Replication(int links, int hosts, int source) {
            linkCopies = new int[links];
            hostCopies = new int[hosts];
            this.source = source;
        }

        /**
         * @param host host index
         * @return copies it received
         */
        public int copiesAt(int host) {
            return hostCopies[host];
        }

        /**
         * @param link directed link index
         * @return copies that crossed it
         */
        public int copiesOn(int link) {
            return linkCopies[link];
        }

        /** @return directed switch-to-switch links that carried at least one copy */
        public int linksUsed() {
            int n = 0;
            for (int c : linkCopies) {
                n += c > 0 ? 1 : 0;
            }
            return n;
        }

        /** @return copies over switch-to-switch links */
        public int fabricCopies() {
            int n = 0;
            for (int c : linkCopies) {
                n += c;
            }
            return n;
        }

        /** @return copies delivered to hosts (members or not) */
        public int hostCopies() {
            int n = 0;
            for (int c : hostCopies) {
                n += c;
            }
            return n;
        }

        /** @return bytes on every link: source uplink, fabric links and host downlinks */
        public long totalBytes() {
            return sourceBytes + fabricBytes + hostBytes;
        }

        /** @return bytes on switch-to-switch links */
        public long fabricBytes() {
            return fabricBytes;
        }

        /** @return header bytes carried on all links */
        public long headerBytes() {
            return headerBytes;
        }

        /** @return packets the sender sent (sets) */
        public int sets() {
            return sets;
        }

        /** @return times a switch received a second copy of the same packet (0 in a loop-free tree) */
        public int revisits() {
            return revisits;
        }

        /** @return receivers dropped on the way (0 when every member is reachable) */
        public int dropped() {
            return dropped;
        }

        Replication plus(Replication o) {
            Replication r = new Replication(linkCopies.length, hostCopies.length, source);
            for (int i = 0; i < linkCopies.length; i++) {
                r.linkCopies[i] = linkCopies[i] + o.linkCopies[i];
            }
            for (int i = 0; i < hostCopies.length; i++) {
                r.hostCopies[i] = hostCopies[i] + o.hostCopies[i];
            }
            r.sourceBytes = sourceBytes + o.sourceBytes;
            r.fabricBytes = fabricBytes + o.fabricBytes;
            r.hostBytes = hostBytes + o.hostBytes;
            r.headerBytes = headerBytes + o.headerBytes;
            r.sets = sets + o.sets;
            r.revisits = revisits + o.revisits;
            r.dropped = dropped + o.dropped;
            return r;
        }

        /** @return copies that went back to the source host */
        public int copiesToSource() {
            return hostCopies[source];
        }
    }
}
