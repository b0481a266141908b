package org.mcast4ai.impl.bitmap;

import org.mcast4ai.impl.program.DeviceEntry;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The only per-group state of a BITMAP group: what the source leaf needs to stamp the group's packets.
 * Immutable; two stamps are equal when they install the same entries.
 *
 * <p>The source leaf gets two rules for the group's packets from the source host's port:
 * <ul>
 *   <li>frames whose source address is already a bitmap within the group's bits (a sender addressing a
 *       subset per packet, MoE top-K): passed on unchanged, no switch write per packet (checked first, so a
 *       sender that stamps always gets exactly what it stamped);</li>
 *   <li>frames carrying the source host's own address (an unmodified sender): the leaf writes the whole
 *       group's bitmap into the Ethernet source (switch-stamped);</li>
 * </ul>
 * anything else (a bitmap naming a receiver outside the group) matches neither and is dropped at the source
 * leaf. Both rules also write the group's uplink choice into the metadata, which the leaf's static up table
 * reads, so the group's copies going up all take one spine (groups are spread over the spines).
 */
public final class BitmapStamp implements DeviceEntry {
    /** The kind of the OpenFlow stamp programmer. */
    public static final String KIND = "openflow-bitmap-stamp";

    private final DeviceId device;
    private final PortNumber inPort;
    private final IpAddress address;
    private final long bits;
    private final int uplink;
    private final boolean goesUp;
    private final MacAddress sourceMac;
    private final int priority;

    /**
     * @param device    the source leaf
     * @param inPort    the source host's port
     * @param address   the group address (IPv4)
     * @param bits      the group's receiver bits
     * @param uplink    metadata value naming the uplink: a spread slot ({@link BitmapLayout#SLOT_BASE} + slot),
     *                  or a port number on the source leaf when no uplink reaches every receiver outside it (0 if
     *                  none); stable when other uplinks come or go
     * @param goesUp    true if the leaf's chain starts with its up table
     * @param sourceMac the source host's own address (full-group stamp), or null for subset-only
     * @param priority  rule priority (the group's)
     */
    public BitmapStamp(DeviceId device, PortNumber inPort, IpAddress address, long bits, int uplink,
                       boolean goesUp, MacAddress sourceMac, int priority) {
        this.device = Objects.requireNonNull(device);
        this.inPort = Objects.requireNonNull(inPort);
        this.address = Objects.requireNonNull(address);
        if (!address.isIp4()) {
            throw new IllegalArgumentException("BITMAP needs an IPv4 group address, not " + address);
        }
        this.bits = bits;
        this.uplink = uplink;
        this.goesUp = goesUp;
        this.sourceMac = sourceMac;
        this.priority = priority;
    }

    /** What compiling a group for BITMAP produced. */
    public static final class Result {
        private final BitmapStamp stamp;
        private final List<String> unreachable;
        private final String failure;

        private Result(BitmapStamp stamp, List<String> unreachable, String failure) {
            this.stamp = stamp;
            this.unreachable = Collections.unmodifiableList(unreachable);
            this.failure = failure;
        }

        /** @return the stamp, or null on failure */
        public BitmapStamp stamp() {
            return stamp;
        }

        /** @return receiver host names that have no bit (not in the fabric, no bit, or the source) */
        public List<String> unreachable() {
            return unreachable;
        }

        /** @return why the group cannot use BITMAP, or null */
        public String failure() {
            return failure;
        }
    }

    /**
     * Compiles a group against a layout.
     *
     * @param layout    the fabric's layout
     * @param source    source host name in the snapshot ({@code HostId} string)
     * @param receivers receiver host names
     * @param address   group address
     * @param priority  rule priority
     * @param spreadKey spreads groups over the source leaf's uplinks (e.g. the group id)
     * @return the stamp, or a failure saying why BITMAP cannot serve the group
     */
    public static Result compile(BitmapLayout layout, String source, Collection<String> receivers,
                                 IpAddress address, int priority, long spreadKey) {
        return compile(layout, source, macOf(source), receivers, address, priority, spreadKey);
    }

    /**
     * Compiles a group against a layout, the source's MAC address given (not parsed from its name).
     *
     * @param layout    the fabric's layout
     * @param source    source host name in the snapshot ({@code HostId} string)
     * @param sourceMac the source's MAC address, or null if it has none
     * @param receivers receiver host names
     * @param address   group address
     * @param priority  rule priority
     * @param spreadKey spreads groups over the source leaf's uplinks (e.g. the group id)
     * @return the stamp, or a failure saying why BITMAP cannot serve the group
     */
    public static Result compile(BitmapLayout layout, String source, MacAddress sourceMac,
                                 Collection<String> receivers, IpAddress address, int priority, long spreadKey) {
        List<String> unreachable = new ArrayList<>();
        if (!layout.fits()) {
            return new Result(null, new ArrayList<>(receivers), layout.whyNot().orElse(""));
        }
        if (!address.isIp4()) {
            return new Result(null, new ArrayList<>(receivers), "BITMAP needs an IPv4 group address");
        }
        int src = layout.fabric().hostIndex(source);
        if (src < 0) {
            return new Result(null, new ArrayList<>(receivers), "source " + source + " is not in the fabric");
        }
        String leaf = layout.fabric().switchName(layout.fabric().hostSwitch(src));
        long srcPort = layout.fabric().hostPort(src);
        long bits = 0;
        for (String r : receivers) {
            int bit = layout.bitOfHost(r);
            int h = layout.fabric().hostIndex(r);
            if (bit < 0 || h == src || (layout.fabric().hostSwitch(h) == layout.fabric().hostSwitch(src)
                    && layout.fabric().hostPort(h) == srcPort)) {
                unreachable.add(r);
            } else {
                bits |= 1L << bit;
            }
        }
        if (bits == 0) {
            return new Result(null, unreachable, "no receiver has a bit in the fabric's bitmap");
        }
        BitmapLayout.SwitchPorts ports = layout.switchPorts(leaf);
        long[] ups = ports.upPorts();
        boolean up = ports.upReach() != 0; // the leaf's chain starts with its up table when it has one
        // the uplink, spread over the leaf's uplinks by group, must reach every receiver outside the leaf: after
        // a failure another uplink is taken, and receivers no uplink reaches are reported, not silently lost
        long outside = bits & ~ports.subtree();
        int uplink = 0;
        long best = -1;
        // first choice: the group's spread slot, whose uplink reaches every receiver outside the leaf; the slot's
        // uplink is static state, so a failure that moves it rewrites the leaf's static rules, not the stamp
        int slot = 1 + (int) Long.remainderUnsigned(mix(spreadKey), BitmapLayout.SLOTS);
        long slotPort = ups.length > 0 ? layout.slotUplink(leaf, slot) : -1;
        if (slotPort >= 0) {
            uplink = BitmapLayout.SLOT_BASE + slot;
            // all but the receivers on a leaf without uplinks, which nothing reaches
            best = layout.reachUp(leaf, slotPort) & outside;
        }
        // else an uplink by port, in the group's own order of preference (rendezvous hashing on group and port):
        // when an uplink comes or goes only the groups that preferred it move, every other stamp stays as it is
        long[] order = ups.clone();
        sortByPreference(order, spreadKey);
        for (long port : uplink != 0 ? new long[0] : order) {
            long covered = layout.reachUp(leaf, port) & outside;
            if (covered == outside) {
                uplink = (int) port;
                best = covered;
                break;
            }
            if (Long.bitCount(covered) > Long.bitCount(best)) {
                uplink = (int) port;
                best = covered;
            }
        }
        if (outside != 0 && best != outside) {
            long lost = outside & ~Math.max(best, 0);
            for (String r : receivers) {
                int bit = layout.bitOfHost(r);
                if (bit >= 0 && (lost & (1L << bit)) != 0) {
                    unreachable.add(r);
                }
            }
            bits &= ~lost;
            if (bits == 0) {
                return new Result(null, unreachable, "no receiver is reachable from the source leaf");
            }
        }
        return new Result(new BitmapStamp(DeviceId.deviceId(leaf), PortNumber.portNumber(srcPort), address, bits,
                uplink, up, sourceMac == null || sourceMac.equals(MacAddress.NONE) ? null : sourceMac, priority),
                unreachable, null);
    }

    private static void sortByPreference(long[] ports, long key) {
        long[] weight = new long[ports.length];
        for (int i = 0; i < ports.length; i++) {
            weight[i] = mix(key * 0x9E37_79B9_7F4A_7C15L + ports[i]);
        }
        for (int i = 1; i < ports.length; i++) { // a handful of uplinks: insertion sort, highest weight first
            for (int j = i; j > 0 && Long.compareUnsigned(weight[j], weight[j - 1]) > 0; j--) {
                long w = weight[j];
                weight[j] = weight[j - 1];
                weight[j - 1] = w;
                long p = ports[j];
                ports[j] = ports[j - 1];
                ports[j - 1] = p;
            }
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    private static MacAddress macOf(String host) {
        try {
            MacAddress mac = HostId.hostId(host).mac();
            return mac == null || mac.equals(MacAddress.NONE) ? null : mac;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** @return the source leaf */
    @Override
    public DeviceId device() {
        return device;
    }

    @Override
    public String kind() {
        return KIND;
    }

    /** @return the source host's port */
    public PortNumber inPort() {
        return inPort;
    }

    /** @return the group address */
    public IpAddress address() {
        return address;
    }

    /** @return the group's receiver bits */
    public long bits() {
        return bits;
    }

    /** @return the stamped Ethernet source of the whole group */
    public MacAddress groupMac() {
        return EthSrcBitmap.stamp(bits);
    }

    /** @return the uplink metadata value (0: none) */
    public int uplink() {
        return uplink;
    }

    /** @return true if the chain starts with the leaf's up table */
    public boolean goesUp() {
        return goesUp;
    }

    /** @return the source host's own address, or null */
    public MacAddress sourceMac() {
        return sourceMac;
    }

    /**
     * True when the source host's own address decodes as a subset of the group: then an unmodified sender
     * reaches only that subset, not the whole group. Vendor (universally administered) addresses never do.
     *
     * @return true if the full-group stamp is shadowed for this source
     */
    public boolean ownAddressIsASubset() {
        if (sourceMac == null) {
            return false;
        }
        MacAddress[] subset = EthSrcBitmap.subsetOf(bits);
        return (sourceMac.toLong() & subset[1].toLong()) == subset[0].toLong();
    }

    /** @return rule priority */
    public int priority() {
        return priority;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof BitmapStamp)) {
            return false;
        }
        BitmapStamp s = (BitmapStamp) o;
        return device.equals(s.device) && inPort.equals(s.inPort) && address.equals(s.address) && bits == s.bits
                && uplink == s.uplink && goesUp == s.goesUp && Objects.equals(sourceMac, s.sourceMac)
                && priority == s.priority;
    }

    @Override
    public int hashCode() {
        return Objects.hash(device, inPort, address, bits, uplink, goesUp, sourceMac, priority);
    }

    @Override
    public String toString() {
        return "BitmapStamp{" + device + "/" + inPort + " " + address + " bits=0x" + Long.toHexString(bits)
                + " uplink=" + uplink + "}";
    }
}
