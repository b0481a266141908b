package org.mcast4ai.impl.p4;

import com.google.common.collect.ImmutableList;
import com.google.common.io.BaseEncoding;
import org.mcast4ai.impl.program.DeviceEntry;
import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A BITMAP group's only state on a P4 fabric: what its source leaf needs to stamp the group's version 2 headers
 * onto its sender's packets ({@link P4StampPlanner}). Immutable; two stamps are equal when they write the same
 * entries.
 *
 * <p>The stamp's slot names its header entries and multicast group on the leaf. A group has two slots and a
 * changed stamp takes the one its installed stamp does not use, so the new headers are in place before the
 * sender's entry turns to them and the old ones go only after (make-before-break: a packet in flight takes the
 * old headers or the new, never a mix).
 */
public final class P4Stamp implements DeviceEntry {
    /** The kind of the P4 stamp programmer. */
    public static final String KIND = "p4-stamp";
    private static final BaseEncoding HEX = BaseEncoding.base16().lowerCase();

    private final DeviceId device;
    private final long port;
    private final int slot;
    private final IpAddress address;
    private final ImmutableList<String> headers;
    // what the sender's own headers may name (the sender entry): leaf numbers, and its leaf's slot mask
    private final ImmutableList<Integer> leaves;
    private final long own;

    /**
     * @param sender  the sender's port on its leaf
     * @param slot    the slot, 1 to {@link P4StampPlanner#MAX_NUMBER}
     * @param address the group's IPv4 address
     * @param headers the encoded headers of one send
     * @param allowed what the headers the sender writes itself may name
     */
    public P4Stamp(ConnectPoint sender, int slot, IpAddress address, List<byte[]> headers,
                   P4StampPlanner.Allowance allowed) {
        this.device = Objects.requireNonNull(sender.deviceId());
        this.port = sender.port().toLong();
        this.slot = slot;
        this.address = Objects.requireNonNull(address);
        ImmutableList.Builder<String> b = ImmutableList.builder();
        headers.forEach(h -> b.add(HEX.encode(h)));
        this.headers = b.build();
        ImmutableList.Builder<Integer> l = ImmutableList.builder();
        allowed.leaves().stream().forEach(l::add);
        this.leaves = l.build();
        this.own = allowed.own();
        stamp();    // refuses what the program cannot hold, here rather than when it is written
    }

    /**
     * @param groupId a group's id
     * @param second  true for the group's second slot
     * @return the slot, or -1 when the id is beyond what the program's 15-bit slots number
     */
    public static int slot(long groupId, boolean second) {
        long s = 2 * groupId - (second ? 0 : 1);
        return groupId > 0 && s <= P4StampPlanner.MAX_NUMBER ? (int) s : -1;
    }

    /** @return the largest group id a stamp serves */
    public static long maxGroupId() {
        return P4StampPlanner.MAX_NUMBER / 2;
    }

    /** @return true if this is the second of its group's slots */
    public boolean second() {
        return slot % 2 == 0;
    }

    @Override
    public DeviceId device() {
        return device;
    }

    @Override
    public String kind() {
        return KIND;
    }

    /** @return the slot */
    public int slot() {
        return slot;
    }

    /** @return the sender's port */
    public ConnectPoint sender() {
        return new ConnectPoint(device, PortNumber.portNumber(port));
    }

    /** @return the group's address */
    public IpAddress address() {
        return address;
    }

    /** @return the headers of one send */
    public List<byte[]> headers() {
        List<byte[]> out = new ArrayList<>(headers.size());
        headers.forEach(h -> out.add(HEX.decode(h)));
        return out;
    }

    /** @return the number of packets one send becomes */
    public int packets() {
        return headers.size();
    }

    /** @return the header bytes of one send, summed */
    public int bytes() {
        return headers.stream().mapToInt(h -> h.length() / 2).sum();
    }

    /** @return what the headers the sender writes itself may name */
    public P4StampPlanner.Allowance allowed() {
        java.util.BitSet b = new java.util.BitSet();
        leaves.forEach(b::set);
        return new P4StampPlanner.Allowance(b, own);
    }

    /** @return what the planner writes for it */
    public P4StampPlanner.Stamp stamp() {
        return new P4StampPlanner.Stamp(sender(), slot, address, headers(), allowed());
    }

    /**
     * @param headers other headers
     * @return true if this stamp carries exactly those
     */
    public boolean carries(List<byte[]> headers) {
        if (headers.size() != this.headers.size()) {
            return false;
        }
        for (int i = 0; i < headers.size(); i++) {
            if (!HEX.encode(headers.get(i)).equals(this.headers.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof P4Stamp)) {
            return false;
        }
        P4Stamp s = (P4Stamp) o;
        return port == s.port && slot == s.slot && device.equals(s.device) && address.equals(s.address)
                && headers.equals(s.headers) && leaves.equals(s.leaves) && own == s.own;
    }

    @Override
    public int hashCode() {
        return Objects.hash(device, port, slot, address, headers, leaves, own);
    }

    @Override
    public String toString() {
        return "P4Stamp{" + device + "/" + port + " slot " + slot + " " + address + ": " + headers.size()
                + " header(s), " + bytes() + " B}";
    }
}
