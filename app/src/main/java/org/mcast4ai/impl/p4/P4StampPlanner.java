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
 *   <li>one {@code stamp_hdr} entry per replica: the header's bytes.</li>
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

        /**
         * @param sender  the sender's port
         * @param number  the group's number, 1 to {@link #MAX_NUMBER}
         * @param address the group's IPv4 address, what the sender sends to
         * @param headers the header packets of one send, each at most {@link #MAX_BYTES} bytes
         */
        public Stamp(ConnectPoint sender, int number, IpAddress address, List<byte[]> headers) {
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

    /** What one stamp writes on its source leaf. */
    public static final class Entries {
        /** The table entries: the stamp_group entry, then one stamp_hdr entry per replica number. */
        public final List<FlowRule> rules;
        /** The multicast group. */
        public final GroupDescription group;

        Entries(List<FlowRule> rules, GroupDescription group) {
            this.rules = List.copyOf(rules);
            this.group = group;
        }
    }

    private final ApplicationId appId;

    /** @param appId owning application (the P4 fabric's) */
    public P4StampPlanner(ApplicationId appId) {
        this.appId = appId;
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
                new DefaultGroupKey(("mcast4ai-p4-stamp-" + s.number).getBytes(StandardCharsets.US_ASCII)),
                s.multicastGroup(), appId);
        return new Entries(rules, group);
    }

    /**
     * @param slot a stamp's slot
     * @return the group id ONOS gives the slot's multicast group
     */
    public static GroupId multicastGroupId(int slot) {
        return GroupId.valueOf(MGRP_BASE + slot);
    }
}
