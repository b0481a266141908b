package org.mcast4ai.impl.p4;

import org.mcast4ai.engine.bitmap.FabricGeometry;
import org.mcast4ai.engine.bitmap.HeaderV2;
import org.mcast4ai.engine.bitmap.HeaderV2Codec;
import org.mcast4ai.engine.bitmap.HeaderV2Planner;
import org.onlab.packet.IpAddress;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.group.DefaultGroupBucket;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.DefaultGroupKey;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiActionParamId;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A group's stamp at its source leaf: a stock sender sends to the group's IPv4 address and the leaf writes the
 * group's version 2 header, so every receiver gets one copy and no transit switch holds anything of the group.
 * What one group costs its source leaf, and nothing elsewhere:
 * <ul>
 *   <li>one {@code stamp_group} entry keyed by the sender's port and the group's address, naming the group's
 *       number and its multicast group;</li>
 *   <li>a multicast group of one replica per header packet, all to the sender's port (the replicas never leave:
 *       egress writes each one's header and sends it round the switch again, where it is replicated like a
 *       sender-written header);</li>
 *   <li>one {@code stamp_hdr} entry per replica: the header's bytes;</li>
 *   <li>one {@code sender} entry keyed like the stamp: the group's receiver leaves and the slots of the sender's
 *       leaf it may name, against which the leaf checks the headers the sender writes itself (per-packet subsets
 *       of the group); a header from a port and address without an entry, or naming more, reaches nobody.</li>
 * </ul>
 * A group whose receivers need more than one header (at most {@link #MAX_BYTES} bytes each, within the program's
 * sections) gets one replica per header: one send, several packets on the wire, each receiver once.
 *
 * <p>Replica numbers: ONOS turns the multicast group's buckets (all to one port) into replicas numbered by
 * occurrence of the port, from 0 in some releases and from 1 in others; the header entries cover both (number
 * r holds header r mod n, for r = 0..n), so the switch's copies are the same either way. Pure.
 */
public final class P4StampPlanner {
    /** Table and action names of the program's P4Info. */
    public static final String STAMP_GROUP = "McastIngress.stamp_group";
    public static final String STAMP = "McastIngress.stamp";
    public static final String STAMP_HDR = "McastEgress.stamp_hdr";
    public static final String STAMP_BYTES = "McastEgress.stamp_bytes";
    public static final String SENDER = "McastIngress.sender";
    public static final String ALLOW = "McastIngress.allow";
    /** 32-byte pieces a header entry holds. */
    static final int PIECES = 16;
    /** The largest header the program stamps: 16 pieces of 32 bytes and a tail of at most 31. */
    public static final int MAX_BYTES = 32 * PIECES + 31;
    /** The multicast group of group number n is {@code MGRP_BASE + n}; group 1 is the fabric's. */
    public static final int MGRP_BASE = 0x8000;
    /** Largest group number (the program's 15 bits). */
    public static final int MAX_NUMBER = 0x7FFF;
    /** Header packets a group may have: the multicast group's replicas are a send's packets. */
    public static final int MAX_PACKETS = 64;

    /** One header's bytes as the {@code stamp_bytes} action's parameters. */
    public static final class Pieces {
        /** 32-byte pieces in head0 then head1. */
        public final int n32;
        /** Pieces 0 to 7, first byte first (256 bytes, zero padded). */
        public final byte[] head0;
        /** Pieces 8 to 15. */
        public final byte[] head1;
        /** Bytes after the pieces (0..31). */
        public final int tailLen;
        /** Those bytes, left aligned in 31. */
        public final byte[] tail;

        Pieces(byte[] header) {
            if (header.length > MAX_BYTES) {
                throw new IllegalArgumentException("a stamped header has at most " + MAX_BYTES + " bytes, not "
                        + header.length);
            }
            n32 = header.length / 32;
            head0 = new byte[256];
            head1 = new byte[256];
            int inPieces = 32 * n32;
            System.arraycopy(header, 0, head0, 0, Math.min(256, inPieces));
            if (inPieces > 256) {
                System.arraycopy(header, 256, head1, 0, inPieces - 256);
            }
            tailLen = header.length - inPieces;
            tail = Arrays.copyOfRange(header, inPieces, inPieces + 31);
        }
    }

    /** One group as its source leaf stamps it. */
    public static final class Stamp {
        final ConnectPoint sender;
        final int number;
        final IpAddress address;
        final List<byte[]> headers;
        final Allowance allowed;

        /**
         * @param sender  the sender's port
         * @param number  the group's number, 1 to {@link #MAX_NUMBER}
         * @param address the group's IPv4 address, what the sender sends to
         * @param headers the header packets of one send, each at most {@link #MAX_BYTES} bytes
         * @param allowed what the headers the sender writes itself may name
         */
        public Stamp(ConnectPoint sender, int number, IpAddress address, List<byte[]> headers, Allowance allowed) {
            if (number < 1 || number > MAX_NUMBER) {
                throw new IllegalArgumentException("group number " + number + " is not within 1.." + MAX_NUMBER);
            }
            if (!address.isIp4()) {
                throw new IllegalArgumentException("a stamped group's address is IPv4, not " + address);
            }
            if (headers.isEmpty() || headers.size() > MAX_PACKETS) {
                throw new IllegalArgumentException(headers.size() + " header packets: 1 to " + MAX_PACKETS);
            }
            headers.forEach(Pieces::new);
            this.sender = sender;
            this.number = number;
            this.address = address;
            this.headers = List.copyOf(headers);
            this.allowed = java.util.Objects.requireNonNull(allowed);
        }

        /** @return the header packets */
        public List<byte[]> headers() {
            return headers;
        }

        /** @return the multicast group's id */
        public int multicastGroup() {
            return MGRP_BASE + number;
        }
    }

    /**
     * What the headers a group's sender writes itself may name: the leaves the group has receivers on, and of the
     * sender's own leaf the receivers' slots, the sender's and those beyond the leaf's hosts (the program's
     * {@code own} mask, slot s at bit 63 - s). A header naming another leaf or another slot of the sender's leaf
     * is a widened one. Other leaves are checked by leaf: a slot there that is not the group's is not seen.
     */
    public static final class Allowance {
        final java.util.BitSet leaves;
        final long own;

        /**
         * @param leaves the leaf numbers the group has receivers on
         * @param own    the sender's leaf's slots a header may name
         */
        public Allowance(java.util.BitSet leaves, long own) {
            this.leaves = (java.util.BitSet) leaves.clone();
            this.own = own;
        }

        /** @return the leaf numbers */
        public java.util.BitSet leaves() {
            return (java.util.BitSet) leaves.clone();
        }

        /** @return the own-leaf slot mask */
        public long own() {
            return own;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Allowance && ((Allowance) o).leaves.equals(leaves) && ((Allowance) o).own == own;
        }

        @Override
        public int hashCode() {
            return leaves.hashCode() * 31 + Long.hashCode(own);
        }
    }

    /**
     * @param geometry  the fabric's geometry
     * @param receivers the group's receivers' bit indices
     * @param sender    the sender's bit index, or -1 if it has none (then no slot of its leaf may be named)
     * @return what the sender's own headers may name
     */
    public static Allowance allowance(FabricGeometry geometry, int[] receivers, int sender) {
        int slotBits = geometry.slotBits();
        java.util.BitSet leaves = new java.util.BitSet();
        for (int b : receivers) {
            leaves.set(b >>> slotBits);
        }
        if (sender < 0) {
            return new Allowance(leaves, 0L);
        }
        int own = sender >>> slotBits;
        long mask = -1L;
        // the leaf's slots that are neither a receiver's nor the sender's (a RACK entry of the sender's leaf names
        // every slot, the sender's too: its copy never goes back out of its port)
        for (int s = 0; s < Math.min(64, geometry.slotsPerLeaf()); s++) {
            mask &= ~(1L << (63 - s));
        }
        mask |= 1L << (63 - (sender - (own << slotBits)));
        for (int b : receivers) {
            if (b >>> slotBits == own) {
                mask |= 1L << (63 - (b - (own << slotBits)));
            }
        }
        return new Allowance(leaves, mask);
    }

    /** What one stamp writes on its source leaf. */
    public static final class Entries {
        /** The table entries: the stamp_group entry, the sender entry, then one stamp_hdr entry per replica. */
        public final List<FlowRule> rules;
        /** The multicast group. */
        public final GroupDescription group;

        Entries(List<FlowRule> rules, GroupDescription group) {
            this.rules = List.copyOf(rules);
            this.group = group;
        }
    }

    /** The keys of the stamps' multicast groups begin so (the slot's multicast group number follows). */
    public static final String GROUP_KEY_PREFIX = "mcast4ai-p4-stamp-";

    private final ApplicationId appId;
    private final int leafSet;

    /** @param appId owning application (the P4 fabric's) */
    public P4StampPlanner(ApplicationId appId) {
        this(appId, P4FabricPlanner.DEFAULT_LEAF_SET);
    }

    /**
     * @param appId   owning application
     * @param leafSet the leaf numbers the program's sets cover ({@code LEAF_SET} it was compiled with)
     */
    public P4StampPlanner(ApplicationId appId, int leafSet) {
        this.appId = appId;
        this.leafSet = leafSet;
    }

    /**
     * The header packets that carry a group to its receivers: within the program's sections, each at most the
     * engine's default budget ({@link HeaderV2Planner#DEFAULT_MAX_BYTES}, so a stamped packet grows by no more
     * than that; the program holds up to {@link #MAX_BYTES}), the inner packet IPv4, entropy 0 (the switch takes
     * the flow's from the UDP source port when it stamps).
     *
     * @param geometry the fabric's geometry
     * @param bits     the receivers' bit indices
     * @return the encoded headers, in send order
     */
    public static List<byte[]> headers(FabricGeometry geometry, int[] bits) {
        return headers(geometry, bits, HeaderV2Planner.DEFAULT_MAX_BYTES);
    }

    /**
     * Like {@link #headers(FabricGeometry, int[])} with a smaller bound on each header.
     *
     * @param geometry the fabric's geometry
     * @param bits     the receivers' bit indices
     * @param maxBytes the largest header, at most {@link #MAX_BYTES}
     * @return the encoded headers
     */
    public static List<byte[]> headers(FabricGeometry geometry, int[] bits, int maxBytes) {
        if (maxBytes > MAX_BYTES) {
            throw new IllegalArgumentException("a stamped header has at most " + MAX_BYTES + " bytes");
        }
        HeaderV2Planner planner = new HeaderV2Planner(geometry, maxBytes, HeaderV2Planner.Limits.P4);
        HeaderV2Codec codec = planner.codec();
        List<byte[]> out = new ArrayList<>();
        for (HeaderV2 h : planner.plan(bits, 0)) {
            out.add(codec.encode(new HeaderV2(h.hopLimit(), 0, true, h.sections())));
        }
        return out;
    }

    /**
     * @param header an encoded header
     * @return it as {@code stamp_bytes}'s parameters
     */
    public static Pieces pieces(byte[] header) {
        return new Pieces(header);
    }

    /**
     * @param s a group's stamp
     * @return what it writes on its sender's leaf
     */
    public Entries entries(Stamp s) {
        DeviceId d = s.sender.deviceId();
        List<FlowRule> rules = new ArrayList<>();
        PiAction stamp = PiAction.builder().withId(PiActionId.of(STAMP))
                .withParameter(P4FabricPlanner.param("group", s.number, 2))
                .withParameter(P4FabricPlanner.param("mgrp", s.multicastGroup(), 2)).build();
        rules.add(P4FabricPlanner.rule(appId, d, STAMP_GROUP, DefaultTrafficSelector.builder().matchPi(
                PiCriterion.builder().matchExact(PiMatchFieldId.of("ingress_port"), (int) s.sender.port().toLong())
                        .matchExact(PiMatchFieldId.of("dst"), s.address.getIp4Address().toOctets()).build())
                .build(), stamp));
        rules.add(senderRule(appId, s.sender, s.address, s.allowed, leafSet));
        int n = s.headers.size();
        for (int r = 0; r <= n; r++) {
            Pieces p = new Pieces(s.headers.get(r % n));
            PiAction bytes = PiAction.builder().withId(PiActionId.of(STAMP_BYTES))
                    .withParameter(P4FabricPlanner.param("n32", p.n32, 1))
                    .withParameter(new PiActionParam(PiActionParamId.of("head0"),
                            ImmutableByteSequence.copyFrom(p.head0)))
                    .withParameter(new PiActionParam(PiActionParamId.of("head1"),
                            ImmutableByteSequence.copyFrom(p.head1)))
                    .withParameter(P4FabricPlanner.param("tail_len", p.tailLen, 1))
                    .withParameter(new PiActionParam(PiActionParamId.of("tail"),
                            ImmutableByteSequence.copyFrom(p.tail))).build();
            rules.add(P4FabricPlanner.rule(appId, d, STAMP_HDR, DefaultTrafficSelector.builder().matchPi(
                    PiCriterion.builder().matchExact(PiMatchFieldId.of("group"), s.number)
                            .matchExact(PiMatchFieldId.of("packet"), r).build()).build(), bytes));
        }
        List<GroupBucket> buckets = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            buckets.add(DefaultGroupBucket.createAllGroupBucket(
                    DefaultTrafficTreatment.builder().setOutput(s.sender.port()).build()));
        }
        GroupDescription group = new DefaultGroupDescription(d, GroupDescription.Type.ALL, new GroupBuckets(buckets),
                new DefaultGroupKey((GROUP_KEY_PREFIX + s.number).getBytes(StandardCharsets.US_ASCII)),
                s.multicastGroup(), appId);
        return new Entries(rules, group);
    }

    /**
     * The sender entry of a group's sender (what {@link #entries} writes for a stamp; also for an IPv6 group).
     *
     * @param appId   owning application
     * @param sender  the sender's port
     * @param address the group's address: the key is the IPv6 address, or an IPv4 one as {@code ::ffff:a.b.c.d}
     * @param allowed what the sender's own headers may name
     * @param leafSet the program's {@code LEAF_SET}
     * @return the entry
     */
    public static FlowRule senderRule(ApplicationId appId, ConnectPoint sender, IpAddress address, Allowance allowed,
                                      int leafSet) {
        byte[] key = new byte[16];
        if (address.isIp4()) {
            key[10] = (byte) 0xff;
            key[11] = (byte) 0xff;
            System.arraycopy(address.toOctets(), 0, key, 12, 4);
        } else {
            key = address.toOctets();
        }
        PiAction allow = PiAction.builder().withId(PiActionId.of(ALLOW))
                .withParameter(new PiActionParam(PiActionParamId.of("leaves"),
                        P4FabricPlanner.leafSet(allowed.leaves, leafSet)))
                .withParameter(P4FabricPlanner.param("own", allowed.own, 8)).build();
        return P4FabricPlanner.rule(appId, sender.deviceId(), SENDER, DefaultTrafficSelector.builder().matchPi(
                PiCriterion.builder().matchExact(PiMatchFieldId.of("ingress_port"), (int) sender.port().toLong())
                        .matchExact(PiMatchFieldId.of("dst"), key).build()).build(), allow);
    }

    /**
     * @param slot a stamp's slot
     * @return the group id ONOS gives the slot's multicast group
     */
    public static GroupId multicastGroupId(int slot) {
        return GroupId.valueOf(MGRP_BASE + slot);
    }
}
