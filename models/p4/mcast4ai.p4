/*
 * mcast4ai: stateless replication by the version 2 bitmap header (models/header/README.md), P4_16 for v1model
 * (BMv2 simple_switch / simple_switch_grpc). One program for every switch of a Clos fabric; the control plane
 * gives each switch its role and its static state (see README.md in this directory):
 *
 *   role        (keyless table)   leaf or not, its own leaf number, the geometry's slot and leaf bit widths,
 *                                 the number of uplinks, the leaves it delivers downward (a leaf: its own)
 *   uplinks     (keyless table)   per uplink the leaves still reachable through it
 *   uplink_port (ingress port)    which ports are uplinks (a packet from above never goes up again)
 *   out_port    (egress port)     what a port leads to: a downward neighbour (the leaves of its range it
 *                                 still reaches), a host (its slot) or an uplink (its index)
 *   multicast group 1             one replica per port of the switch
 *   icrc_lo, icrc_hi (leaves)     the ICRC's shift over n zero bytes, n = 64 hi + lo (the same on every leaf)
 *   rewrite4, rewrite6 (leaves)   per (port, address a copy is for) the receiver a reliable group's RoCEv2
 *                                 copy is rewritten for: MAC, address, QPN, and the virtual peer as source;
 *                                 the ICRC is updated from the rewritten fields, never computed over the payload
 *   subset (source leaves)        per (sender's port, group) a sender addresses by IPv6 subset addresses: the
 *                                 members' bit indices by rank and the group's address (see "Subset addresses")
 *   stamp_group (source leaves)   per (sender's port, group's IPv4 address) the group's stamp: its slot and the
 *                                 multicast group of one replica per header packet (see "Stamps")
 *   stamp_hdr (source leaves)     per (slot, replica number) the header bytes that replica carries
 *
 * Controller packets: the frames ONOS discovers the fabric and its hosts with (LLDP, BDDP, ARP, ICMPv6) go
 * to the CPU port with a packet_in header naming their ingress port; a frame from the CPU port carries a
 * packet_out header naming the port it leaves by, and is sent there unchanged. Every other frame without the
 * header is dropped.
 *
 * Nothing here names a group but the source leaf's subset and stamp tables: the state grows with ports and
 * leaves, never with groups or port subsets, except at the sender's leaf (one subset entry, one stamp entry, a
 * header entry per header packet and one multicast group per group).
 * Ingress parses the header, collects the leaves (and on a leaf the slots) it names, and picks the uplink
 * for the receivers it does not deliver downward; the replication engine makes one copy per port; egress
 * drops the copies that carry nobody and trims each other copy by selecting whole entries (POD bitmaps
 * masked), rewriting section counts and dropping empty sections. Towards a host the header is removed.
 *
 * Compile-time bounds (override with -D): the geometry's bitmap widths, the number of sections of each
 * kind a packet may carry (two HOST and four BLOCK sections, one of each other kind) and the leaf numbers the sets
 * cover (LEAF_SET) and the uplinks a switch may have (UPLINKS, 24 or 32); a switch has at most 256 downward ports. When no uplink reaches every
 * leaf a copy must take up (two failures), the copy is split: each leaf goes up the first uplink in the entropy's
 * rotation that reaches it.
 *
 * Stamps: a stock sender sends to the group's IPv4 address. Its leaf looks up (port, address) in stamp_group
 * (no entry: dropped and counted) and multicasts the packet to the slot's group, whose replicas all go to the
 * sender's port; egress writes each replica's header bytes (stamp_hdr: 32-byte pieces, then 16, 8, 4, 2, 1) in
 * front of the IPv4 packet and sends it round the switch again (recirculation, the sender's port kept), where
 * the parser reads the header and the packet is replicated like a sender-written one, with the flow's entropy
 * (the UDP source port). One send of a group that needs several headers becomes one packet per header; a
 * replica whose header entry is missing is dropped and counted, so a stamp half written reaches nobody.
 *
 * Subset addresses (models/header/README.md section 5): a stock RDMA NIC cannot write the header but can send a
 * RoCEv2 packet to any IPv6 address. Its source leaf expands an address prefix:16, form:1, group:15, body:96 with
 * the group's subset entry: the body's member ranks (eight 12-bit ranks ascending, 0xFFF unused, or a bitmap of
 * ranks 0..95, rank r at address bit 95 - r) become HOST entries of their bit indices in ascending order, the
 * destination becomes the group's address, the flow entropy the UDP source port, and the ICRC is updated for the
 * new destination. A sender without the group's entry on its port, a rank the group does not have, an unordered
 * list or more than 62 ranks drop the packet.
 */
#include <core.p4>
#include <v1model.p4>

#ifndef SLOT_BYTES
#define SLOT_BYTES 1      /* ceil(slotsPerLeaf / 8): a LEAF entry's slot bitmap */
#endif
#ifndef LEAF_BYTES
#define LEAF_BYTES 1      /* ceil(leavesPerPod / 8): a POD entry's leaf bitmap */
#endif
#ifndef LEAF_SET
#define LEAF_SET 256      /* leaf numbers (bit index >> slot bits) the leaf sets cover: 256, or 2048 (k=48, k=64) */
#endif
#ifndef UPLINKS
#define UPLINKS 24        /* uplinks a switch may have: 24 (a k=48 leaf's) or 32 (k=64) */
#endif
#if LEAF_SET != 256 && LEAF_SET != 2048
#error "LEAF_SET is 256 or 2048"
#endif

#define SLOT_W (8 * SLOT_BYTES)
#define LEAF_W (8 * LEAF_BYTES)
#define TOP_L ((bit<LEAF_SET>)1 << (LEAF_SET - 1))
#define TOP_S ((bit<64>)1 << 63)
/* BMv2 takes shift amounts of at most 8 bits (constant ones of at most 256): slots are below 64, and a leaf
   number's higher bits shift a leaf set by constant slices */
#define SH(X) ((bit<8>)(X))
#if LEAF_SET == 256
#define SHR_L(V, N) V = V >> SH(N);
#define SHL_L(V, N) V = V << SH(N);
#else
#define SHR_L(V, N) { bit<16> n_ = (N); V = V >> SH(n_); \
        if (n_[8:8] == 1) { V = V >> 256; } \
        if (n_[9:9] == 1) { V = (bit<LEAF_SET>)V[LEAF_SET - 1:512]; } \
        if (n_[10:10] == 1) { V = (bit<LEAF_SET>)V[LEAF_SET - 1:1024]; } \
        if (n_[15:11] != 0) { V = 0; } }
#define SHL_L(V, N) { bit<16> n_ = (N); V = V << SH(n_); \
        if (n_[8:8] == 1) { V = V << 256; } \
        if (n_[9:9] == 1) { V = V[LEAF_SET - 513:0] ++ 512w0; } \
        if (n_[10:10] == 1) { V = V[LEAF_SET - 1025:0] ++ 1024w0; } \
        if (n_[15:11] != 0) { V = 0; } }
#endif
/* per uplink Q: M(Q), and with commas */
#define UPS24(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) \
        M(17) M(18) M(19) M(20) M(21) M(22) M(23)
#define LIST24(M) M(0), M(1), M(2), M(3), M(4), M(5), M(6), M(7), M(8), M(9), M(10), M(11), M(12), M(13), M(14), \
        M(15), M(16), M(17), M(18), M(19), M(20), M(21), M(22), M(23)
#if UPLINKS == 24
#define UPS(M) UPS24(M)
#define UPS_LIST(M) LIST24(M)
#elif UPLINKS == 32
#define UPS(M) UPS24(M) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)
#define UPS_LIST(M) LIST24(M), M(24), M(25), M(26), M(27), M(28), M(29), M(30), M(31)
#else
#error "UPLINKS is 24 or 32"
#endif
#define DECL_A(Q) bit<LEAF_SET> a##Q;
#define DECL_R(Q) bit<LEAF_SET> r##Q;
#define PARAM_R(Q) bit<LEAF_SET> r##Q
#define SET_R(Q) m.r##Q = r##Q;
#define ZERO_A(Q) m.a##Q = 0;
#define ZERO(Q) 0
#define OUT_CHILD 1
#define OUT_HOST 2
#define OUT_UP 3
#ifndef MAX_PAYLOAD
#define MAX_PAYLOAD 8168  /* bytes of a RoCEv2 packet between its BTH and its ICRC that the parser reads */
#endif
#define STAMP_32 16       /* 32-byte pieces of a stamped header: at most 32 * 16 + 31 bytes (543) */
#ifndef CPU_PORT
#define CPU_PORT 255      /* simple_switch_grpc --cpu-port; the pipeconf's CPU port */
#endif

const bit<16> ETH_MCAST4AI = 0x88B5;
const bit<16> ETH_IPV6 = 0x86DD;
const bit<16> ETH_IPV4 = 0x0800;
const bit<16> MCAST_GROUP = 1;
const bit<16> ETH_LLDP = 0x88CC;
const bit<16> ETH_BDDP = 0x8942;
const bit<16> ETH_ARP = 0x0806;
const bit<8> IP_ICMPV6 = 58;
const bit<8> IP_UDP = 17;
const bit<16> ROCE_PORT = 4791;

error { BadVersion, BadSection }

#include "agg/agg_types.p4"

@controller_header("packet_in")
header packet_in_t { bit<9> ingress_port; bit<7> pad; }
@controller_header("packet_out")
header packet_out_t { bit<9> egress_port; bit<7> pad; }
header ipv6_t { bit<32> vtf; bit<16> len; bit<8> next; bit<8> hop; bit<128> src; bit<128> dst; }
header ethernet_t { bit<48> dst; bit<48> src; bit<16> type; }
/* 2.1: version, hop limit, inner IPv4 flag, reserved, flow entropy */
header fixed_t { bit<4> version; bit<4> hop; bit<1> ipv4; bit<7> reserved; bit<16> entropy; }
/* 2.2: kind (1 HOST, 2 RACK, 3 LEAF, 4 POD, 5 BLOCK) and count 1..31 */
header sec_t { bit<3> kind; bit<5> count; }
header end_t { bit<8> zero; }
header index_t { bit<16> idx; }                              /* HOST: a bit index; RACK: a leaf prefix */
header leafent_t { bit<16> prefix; bit<SLOT_W> slots; }      /* LEAF */
header podent_t { bit<8> pod; bit<LEAF_W> leaves; }          /* POD */
header blockb_t { bit<8> block; }                            /* BLOCK: bits 15-8 of its indices */
header blockent_t { bit<8> low; }                            /* BLOCK: bits 7-0 of one index */
/* the packet inside: a RoCEv2 copy is rewritten for its receiver at the receiver's leaf */
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag; bit<8> ttl; bit<8> proto;
    bit<16> csum; bit<32> src; bit<32> dst;
}
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
header bth_t { bit<8> opcode; bit<8> flags; bit<16> pkey; bit<8> resv; bit<24> dqpn; bit<8> ack; bit<24> psn; }
header payload_t { varbit<(8 * MAX_PAYLOAD)> data; }        /* what follows the BTH, up to the ICRC */
header icrc_t { bit<32> v; }                                 /* least significant byte first */
/* a stamped header's bytes as the source leaf writes them (pieces of 32 bytes, then 16, 8, 4, 2, 1): parsed as
   the header when the packet comes round again */
header st32_t { bit<256> b; }
header st16_t { bit<128> b; }
header st8_t { bit<64> b; }
header st4_t { bit<32> b; }
header st2_t { bit<16> b; }
header st1_t { bit<8> b; }

/* one header per section slot, each followed by its entries, so the deparser emits them in wire order */
struct headers_t {
    packet_in_t packet_in;
    packet_out_t packet_out;
    ethernet_t eth;
    ctl_t ctl;                 /* the aggregator's control frames and reports */
    st32_t[STAMP_32] st32;
    st16_t st16;
    st8_t st8;
    st4_t st4;
    st2_t st2;
    st1_t st1;
    fixed_t fixed;
    sec_t hs0; index_t[31] h0;
    sec_t hs1; index_t[31] h1;
    sec_t hs2; index_t[31] h2;
    sec_t hs3; index_t[31] h3;
    sec_t rs0; index_t[31] r0;
    sec_t rs1; index_t[31] r1;
    sec_t ls0; leafent_t[31] l0;
    sec_t ps0; podent_t[31] p0;
    sec_t ps1; podent_t[31] p1;
    sec_t bs0; blockb_t bb0; blockent_t[31] b0;
    sec_t bs1; blockb_t bb1; blockent_t[31] b1;
    sec_t bs2; blockb_t bb2; blockent_t[31] b2;
    sec_t bs3; blockb_t bb3; blockent_t[31] b3;
    end_t end;
    ipv4_t in4;
    ipv6_t in6;
    udp_t udp;
    bth_t bth;
    aeth_t aeth;               /* an ACK's or NAK's, which the aggregator reads (otherwise it is payload) */
    cnp_t cnp;
    payload_t payload;
    icrc_t icrc;
}

struct meta_t {
    bit<1> has_role;           /* the role entry is written: without it a switch forwards nothing */
    bit<1> bad;                /* an entry the spec refuses (section 2.2): the packet is dropped and counted */
    bit<16> slots;             /* the geometry: slots per leaf, the bits a LEAF bitmap and a POD bitmap may set, */
    bit<SLOT_W> slot_mask;     /* and the leaf numbers that exist */
    bit<LEAF_W> leaf_mask;
    bit<LEAF_SET> leaves;
    bit<1> is_leaf;
    bit<16> self_leaf;
    bit<8> slot_bits;
    bit<8> leaf_bits;
    bit<8> n_up;
    bit<1> from_up;
    bit<LEAF_SET> want;        /* leaves the header names */
    bit<64> want_slots;        /* on a leaf: its own slots the header names, MSB first */
    bit<LEAF_SET> up_set;      /* leaves of the copy that goes up */
    bit<1> up_go;
    bit<8> up_choice;
    bit<1> up_split;           /* no uplink reaches every upward leaf: per uplink the leaves it takes */
    UPS(DECL_A)                /* per uplink the leaves it takes of a split copy */
    bit<LEAF_SET> below;       /* leaves this switch delivers downward */
    UPS(DECL_R)                /* per uplink the leaves it reaches */
    bit<8> up_rank;
    bit<LEAF_SET> kset;        /* egress: the leaves this copy keeps */
    bit<2> out_kind;           /* egress: what the replica's port leads to */
    bit<8> out_index;          /* egress: the host's slot or the uplink's index */
    bit<5> cnt;
    bit<1> to_cpu;             /* a controller packet, either way: no replication, no trimming */
    bit<9> in_port;
    bit<1> rw;                 /* egress: a receiver's rewrite applies to this copy */
    bit<48> rw_mac;
    bit<128> rw_ip;            /* the receiver's address (IPv4 in the low 32 bits) */
    bit<128> rw_vp;            /* the virtual peer's */
    bit<24> rw_qpn;
    bit<1024> z;               /* a zero-byte shift of the ICRC: 32 columns of 32 bits, column i at bits 32i+31..32i */
    bit<1> z_ok;
    bit<6> tail_lo;
    bit<7> tail_hi;
    bit<16> sub_prefix;        /* a subset address's prefix and group number, the subset table's key */
    bit<15> sub_gn;
    bit<1> sub_hit;
    bit<16> sub_members;
    bit<8> sub_n;              /* ranks the address names */
    bit<2048> sub_lo;          /* rank r's bit index at bits 16r+15..16r: ranks 0..127 */
    bit<2048> sub_hi;          /* ranks 128..255 */
    bit<128> sub_group;
    bit<1> sub_fix;            /* the ICRC needs sub_delta shifted in (the destination was replaced) */
    bit<32> sub_delta;
    /* a group's stamp (source leaf): the packet goes round once per header packet of the group */
    @field_list(1) bit<1> stamped;     /* this pass is a stamped packet come round again */
    @field_list(1) bit<9> stamp_port;  /* the sender's port */
    bit<1> stamping;                   /* this pass stamps: each replica is one header packet */
    bit<15> stamp_gn;                  /* the group's number */
    bit<8> st_n32;                     /* the stamp's pieces: 32-byte pieces, and the remainder's length */
    bit<8> st_tail;
    bit<8> st_seen;
    bit<2048> st_head0;
    bit<2048> st_head1;
    bit<248> st_rest;
    /* a sender-written header (source leaf): checked against its sender's entry for the group */
    bit<1> chk_need;                   /* the header came from a host port: the check applies */
    bit<1> chk;                        /* its sender's entry was found */
    bit<LEAF_SET> chk_leaves;          /* the leaves the group has receivers on */
    bit<64> chk_own;                   /* this leaf's slots the header may name, MSB first */
    bit<128> grp_dst;                  /* the group's address: IPv6, or IPv4 as ::ffff:a.b.c.d */
    bit<1> acking;                     /* a receiver's ACK, NAK or CNP on its way to its group's source leaf */
    bit<1> ack_ok;                     /* ... from the host its port has */
    bit<1> ack_hit;                    /* ... whose virtual peer's source leaf is known */
    bit<16> ack_index;                 /* ... the group's sender's bit index */
    AGG_META
}

#define X1(ST) packet.extract(hdr.ST.next);
#define X2(ST) X1(ST) X1(ST)
#define X4(ST) X2(ST) X2(ST)
#define X8(ST) X4(ST) X4(ST)
#define X16(ST) X8(ST) X8(ST)

/* the entries of one section slot: 16, 8, 4, 2, 1 by the bits of its count (no arithmetic on parsed values) */
#define CHAIN(S, ST, AFTER) \
    state S##_16 { transition select(hdr.S.count[4:4]) { 1: S##_x16; default: S##_8; } } \
    state S##_x16 { X16(ST) transition S##_8; } \
    state S##_8 { transition select(hdr.S.count[3:3]) { 1: S##_x8; default: S##_4; } } \
    state S##_x8 { X8(ST) transition S##_4; } \
    state S##_4 { transition select(hdr.S.count[2:2]) { 1: S##_x4; default: S##_2; } } \
    state S##_x4 { X4(ST) transition S##_2; } \
    state S##_2 { transition select(hdr.S.count[1:1]) { 1: S##_x2; default: S##_1; } } \
    state S##_x2 { X2(ST) transition S##_1; } \
    state S##_1 { transition select(hdr.S.count[0:0]) { 1: S##_x1; default: AFTER; } } \
    state S##_x1 { X1(ST) transition AFTER; }

#define SECTION(S, ST) \
    state S { packet.extract(hdr.S); verify(hdr.S.count != 0, error.BadSection); transition S##_16; }

parser McastParser(packet_in packet, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) { CPU_PORT: parse_packet_out; default: parse_eth; }
    }
    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_eth;
    }
    state parse_eth {
        packet.extract(hdr.eth);
        transition select(hdr.eth.type) {
            ETH_MCAST4AI: parse_fixed; ETH_IPV6: inner_v6; ETH_IPV4: inner_v4; ETH_AGG_CTL: parse_ctl;
            default: accept; }
    }
    state parse_ctl {
        packet.extract(hdr.ctl);
        transition accept;
    }
    state parse_fixed {
        packet.extract(hdr.fixed);
        verify(hdr.fixed.version == 2, error.BadVersion);
        verify(hdr.fixed.reserved == 0, error.BadSection);
        transition next_any;
    }
    /* sections in kind order; the next kind is read ahead */
    state next_any {
        transition select(packet.lookahead<bit<3>>()) {
            0: the_end; 1: hs0; 2: rs0; 3: ls0; 4: ps0; 5: bs0; default: bad; }
    }
    state after_hs0 {
        transition select(packet.lookahead<bit<3>>()) {
            0: the_end; 1: hs1; 2: rs0; 3: ls0; 4: ps0; 5: bs0; default: bad; }
    }
    state after_hs1 {
        transition select(packet.lookahead<bit<3>>()) {
            0: the_end; 1: hs2; 2: rs0; 3: ls0; 4: ps0; 5: bs0; default: bad; }
    }
    state after_hs2 {
        transition select(packet.lookahead<bit<3>>()) {
            0: the_end; 1: hs3; 2: rs0; 3: ls0; 4: ps0; 5: bs0; default: bad; }
    }
    state after_hs3 {
        transition select(packet.lookahead<bit<3>>()) { 0: the_end; 2: rs0; 3: ls0; 4: ps0; 5: bs0; default: bad; }
    }
    state after_rs0 {
        transition select(packet.lookahead<bit<3>>()) { 0: the_end; 2: rs1; 3: ls0; 4: ps0; 5: bs0; default: bad; }
    }
    state after_rs1 {
        transition select(packet.lookahead<bit<3>>()) { 0: the_end; 3: ls0; 4: ps0; 5: bs0; default: bad; }
    }
    state after_ls0 {
        transition select(packet.lookahead<bit<3>>()) { 0: the_end; 4: ps0; 5: bs0; default: bad; }
    }
    state after_ps0 {
        transition select(packet.lookahead<bit<3>>()) { 0: the_end; 4: ps1; 5: bs0; default: bad; }
    }
    state after_ps1 {
        transition select(packet.lookahead<bit<3>>()) { 0: the_end; 5: bs0; default: bad; }
    }
    state after_bs0 {
        transition select(packet.lookahead<bit<3>>()) { 0: the_end; 5: bs1; default: bad; }
    }
    state after_bs1 {
        transition select(packet.lookahead<bit<3>>()) { 0: the_end; 5: bs2; default: bad; }
    }
    state after_bs2 {
        transition select(packet.lookahead<bit<3>>()) { 0: the_end; 5: bs3; default: bad; }
    }
    state after_bs3 {
        transition select(packet.lookahead<bit<3>>()) { 0: the_end; default: bad; }
    }
    state the_end {
        packet.extract(hdr.end);
        verify(hdr.end.zero == 0, error.BadSection);
        transition select(hdr.fixed.ipv4) { 1: inner_v4; default: inner_v6; }
    }
    /* the packet inside, as far as a receiver's rewrite needs it: IP, UDP and, to port 4791, the BTH, what
       follows it and the ICRC (the UDP length says where that is) */
    state inner_v4 {
        packet.extract(hdr.in4);
        transition select(hdr.in4.ihl, hdr.in4.proto) { (5, IP_UDP): inner_udp; default: accept; }
    }
    state inner_v6 {
        packet.extract(hdr.in6);
        transition select(hdr.in6.next) { IP_UDP: inner_udp; default: accept; }
    }
    state inner_udp {
        packet.extract(hdr.udp);
        transition select(hdr.udp.dport) { ROCE_PORT: roce_len; default: accept; }
    }
    state roce_len {
        /* a BTH and an ICRC: 24 bytes with the UDP header; at most MAX_PAYLOAD more */
        transition select(hdr.udp.len) {
            0 &&& 0xFFF0: accept;
            16 &&& 0xFFF8: accept;
            0 &&& 0xE000: roce;
            default: accept;
        }
    }
    state roce {
        packet.extract(hdr.bth);
        /* an ACK is BTH, AETH and ICRC (28 bytes with the UDP header), a CNP BTH, 16 reserved bytes and ICRC (40):
           their fields are what the aggregator reads */
        transition select(hdr.bth.opcode, hdr.udp.len) {
            (OP_ACK, 28): roce_ack;
            (OP_CNP, 40): roce_cnp;
            default: roce_payload;
        }
    }
    state roce_ack {
        packet.extract(hdr.aeth);
        packet.extract(hdr.icrc);
        transition accept;
    }
    state roce_cnp {
        packet.extract(hdr.cnp);
        packet.extract(hdr.icrc);
        transition accept;
    }
    state roce_payload {
        packet.extract(hdr.payload, ((bit<32>)(hdr.udp.len - 24)) << 3);
        packet.extract(hdr.icrc);
        transition accept;
    }
    state bad {
        verify(false, error.BadSection);    /* ends the parser with the error */
        transition accept;
    }
    SECTION(hs0, h0)
    CHAIN(hs0, h0, after_hs0)
    SECTION(hs1, h1)
    CHAIN(hs1, h1, after_hs1)
    SECTION(hs2, h2)
    CHAIN(hs2, h2, after_hs2)
    SECTION(hs3, h3)
    CHAIN(hs3, h3, after_hs3)
    SECTION(rs0, r0)
    CHAIN(rs0, r0, after_rs0)
    SECTION(rs1, r1)
    CHAIN(rs1, r1, after_rs1)
    SECTION(ls0, l0)
    CHAIN(ls0, l0, after_ls0)
    SECTION(ps0, p0)
    CHAIN(ps0, p0, after_ps0)
    SECTION(ps1, p1)
    CHAIN(ps1, p1, after_ps1)
    state bs0 {
        packet.extract(hdr.bs0);
        verify(hdr.bs0.count != 0, error.BadSection);
        packet.extract(hdr.bb0);
        transition bs0_16;
    }
    CHAIN(bs0, b0, after_bs0)
#define BLOCK_SECTION(S, B, PREV, ST, AFTER) \
    state S { \
        packet.extract(hdr.S); \
        verify(hdr.S.count != 0, error.BadSection); \
        packet.extract(hdr.B); \
        verify(hdr.B.block > hdr.PREV.block, error.BadSection); \
        transition S##_16; } \
    CHAIN(S, ST, AFTER)
    BLOCK_SECTION(bs1, bb1, bb0, b1, after_bs1)
    BLOCK_SECTION(bs2, bb2, bb1, b2, after_bs2)
    BLOCK_SECTION(bs3, bb3, bb2, b3, after_bs3)
}

control McastVerifyChecksum(inout headers_t hdr, inout meta_t m) {
    apply { }
}

#define R31(M, A) M(A, 0) M(A, 1) M(A, 2) M(A, 3) M(A, 4) M(A, 5) M(A, 6) M(A, 7) M(A, 8) M(A, 9) M(A, 10) \
    M(A, 11) M(A, 12) M(A, 13) M(A, 14) M(A, 15) M(A, 16) M(A, 17) M(A, 18) M(A, 19) M(A, 20) M(A, 21) M(A, 22) \
    M(A, 23) M(A, 24) M(A, 25) M(A, 26) M(A, 27) M(A, 28) M(A, 29) M(A, 30)

/* ingress: the leaves (and own slots) an entry names */
/* a leaf number beyond the program's leaf sets is refused, never aliased onto another leaf */
#define WANT_LEAF(G) if (G >= LEAF_SET) { m.bad = 1; } else { bit<LEAF_SET> one_ = TOP_L; SHR_L(one_, G) \
        m.want = m.want | one_; }
#define WANT_HOST(ST, I) if (hdr.ST[I].isValid()) { \
        g = hdr.ST[I].idx >> m.slot_bits; WANT_LEAF(g) \
        if ((hdr.ST[I].idx & smask) >= m.slots) { m.bad = 1; } \
        if (g == m.self_leaf) { m.want_slots = m.want_slots | (TOP_S >> SH(hdr.ST[I].idx - (g << m.slot_bits))); } }
#define WANT_RACK(ST, I) if (hdr.ST[I].isValid()) { \
        g = hdr.ST[I].idx >> m.slot_bits; WANT_LEAF(g) \
        if ((hdr.ST[I].idx & smask) != 0) { m.bad = 1; } \
        if (g == m.self_leaf) { m.want_slots = ~(bit<64>)0; } }
#define WANT_LEAFE(ST, I) if (hdr.ST[I].isValid()) { \
        g = hdr.ST[I].prefix >> m.slot_bits; WANT_LEAF(g) \
        if ((hdr.ST[I].prefix & smask) != 0 || hdr.ST[I].slots == 0 || (hdr.ST[I].slots & ~m.slot_mask) != 0) { \
            m.bad = 1; } \
        if (g == m.self_leaf) { m.want_slots = m.want_slots | ((bit<64>)hdr.ST[I].slots << (64 - SLOT_W)); } }
#define WANT_POD(ST, I) if (hdr.ST[I].isValid()) { \
        g = (bit<16>)hdr.ST[I].pod << m.leaf_bits; \
        if (g > LEAF_SET - LEAF_W || hdr.ST[I].leaves == 0 || (hdr.ST[I].leaves & ~m.leaf_mask) != 0) { \
            m.bad = 1; } \
        bit<LEAF_SET> pl_ = (bit<LEAF_SET>)hdr.ST[I].leaves; SHL_L(pl_, (bit<16>)(LEAF_SET - LEAF_W) - g) \
        m.want = m.want | pl_; \
        if (m.self_leaf >= g && m.self_leaf - g < LEAF_W \
                && ((hdr.ST[I].leaves << SH(m.self_leaf - g)) >> (LEAF_W - 1)) == 1) { \
            m.want_slots = ~(bit<64>)0; } }
#define WANT_BLOCK(B, ST, I) if (hdr.ST[I].isValid()) { \
        bi = ((bit<16>)hdr.B.block << 8) | (bit<16>)hdr.ST[I].low; g = bi >> m.slot_bits; WANT_LEAF(g) \
        if ((bi & smask) >= m.slots) { m.bad = 1; } \
        if (g == m.self_leaf) { m.want_slots = m.want_slots | (TOP_S >> SH(bi - (g << m.slot_bits))); } }
#define WANT_B0(A, I) WANT_BLOCK(bb0, b0, I)
#define WANT_B1(A, I) WANT_BLOCK(bb1, b1, I)
#define WANT_B2(A, I) WANT_BLOCK(bb2, b2, I)
#define WANT_B3(A, I) WANT_BLOCK(bb3, b3, I)

#define CRC32_MAX 64w4294967296

/* a subset address: rank Q's bit index, by the bits of Q (constant slices; BMv2 shifts by at most 8 bits) */
#define PICK(Q, OUT) { \
        bit<2048> p7 = Q[7:7] == 1 ? m.sub_hi : m.sub_lo; \
        bit<1024> p6 = Q[6:6] == 1 ? p7[2047:1024] : p7[1023:0]; \
        bit<512> p5 = Q[5:5] == 1 ? p6[1023:512] : p6[511:0]; \
        bit<256> p4 = Q[4:4] == 1 ? p5[511:256] : p5[255:0]; \
        bit<128> p3 = Q[3:3] == 1 ? p4[255:128] : p4[127:0]; \
        bit<64> p2 = Q[2:2] == 1 ? p3[127:64] : p3[63:0]; \
        bit<32> p1 = Q[1:1] == 1 ? p2[63:32] : p2[31:0]; \
        OUT = Q[0:0] == 1 ? p1[31:16] : p1[15:0]; }
/* list entry I at address bits HI..LO: used entries first, strictly ascending, each a rank of the group */
#define LIST_RANK(I, HI, LO) q = hdr.in6.dst[HI:LO]; \
        if (q == 0xFFF) { done = true; } \
        else if (done || (I != 0 && q <= prev) || q[11:8] != 0 || (bit<16>)q >= m.sub_members) { bad = true; } \
        else { prev = q; m.sub_n = m.sub_n + 1; hdr.h0[I].setValid(); PICK(q, hdr.h0[I].idx) }
/* bitmap rank R (address bit 95 - R), taken from rank 95 down so that pushing in front leaves them ascending;
   the 31st entry of the first section moves to the front of the second */
#define MAP_RANK(R) if (hdr.in6.dst[95 - R:95 - R] == 1) { \
        if (R >= m.sub_members) { bad = true; } \
        m.sub_n = m.sub_n + 1; \
        if (hdr.h0[30].isValid()) { hdr.h1.push_front(1); hdr.h1[0].setValid(); hdr.h1[0].idx = hdr.h0[30].idx; } \
        hdr.h0.push_front(1); hdr.h0[0].setValid(); hdr.h0[0].idx = m.sub_lo[16 * R + 15:16 * R]; }
#define MAP8(R) MAP_RANK((R + 7)) MAP_RANK((R + 6)) MAP_RANK((R + 5)) MAP_RANK((R + 4)) MAP_RANK((R + 3)) \
        MAP_RANK((R + 2)) MAP_RANK((R + 1)) MAP_RANK((R))

/* uplink Q if it reaches every upward leaf and comes earlier in the entropy's rotation than the best so far */
#define TRY_UP(Q) if (Q < m.n_up && (m.up_set & ~m.r##Q) == 0) { \
        rank = Q >= first ? Q - first : Q + m.n_up - first; \
        if (m.up_go == 0 || rank < m.up_rank) { m.up_go = 1; m.up_rank = rank; m.up_choice = Q; } }

/* each leaf goes up the first uplink in the rotation that starts at the entropy's uplink and reaches it (as
   SwitchLogic splits): the rotation is the uplinks from that one up, then those below it, so two passes in index
   order take them in turn, each uplink the upward leaves left that it reaches */
#define TAKE_FROM(Q) if (Q < m.n_up && Q >= first) { m.a##Q = left & m.r##Q; left = left & ~m.r##Q; }
#define TAKE_BELOW(Q) if (Q < first) { m.a##Q = left & m.r##Q; left = left & ~m.r##Q; }
/* egress: the leaves uplink Q takes of a split copy */
#define TAKEN(Q) if (m.out_index == Q) { m.kset = m.a##Q; }

/* the header removed: what follows it is the packet inside */
#define STRIP_HEADER \
        hdr.eth.type = hdr.fixed.ipv4 == 1 ? ETH_IPV4 : ETH_IPV6; \
        hdr.fixed.setInvalid(); \
        hdr.hs0.setInvalid(); hdr.h0.pop_front(31); \
        hdr.hs1.setInvalid(); hdr.h1.pop_front(31); \
        hdr.hs2.setInvalid(); hdr.h2.pop_front(31); \
        hdr.hs3.setInvalid(); hdr.h3.pop_front(31); \
        hdr.rs0.setInvalid(); hdr.r0.pop_front(31); \
        hdr.rs1.setInvalid(); hdr.r1.pop_front(31); \
        hdr.ls0.setInvalid(); hdr.l0.pop_front(31); \
        hdr.ps0.setInvalid(); hdr.p0.pop_front(31); \
        hdr.ps1.setInvalid(); hdr.p1.pop_front(31); \
        hdr.bs0.setInvalid(); hdr.bb0.setInvalid(); hdr.b0.pop_front(31); \
        hdr.bs1.setInvalid(); hdr.bb1.setInvalid(); hdr.b1.pop_front(31); \
        hdr.bs2.setInvalid(); hdr.bb2.setInvalid(); hdr.b2.pop_front(31); \
        hdr.bs3.setInvalid(); hdr.bb3.setInvalid(); hdr.b3.pop_front(31); \
        hdr.end.setInvalid();

#include "agg/agg_control.p4"

control McastIngress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    /* receivers a switch could not serve: no uplink reaches them, or they came down to a switch not below */
    counter(1, CounterType.packets) unserved;
    /* subset addresses: 0 expanded, 1 dropped for want of the group's entry, 2 dropped for a rank the group does
       not have or an unordered list, 3 dropped for more ranks than two HOST sections hold */
    counter(4, CounterType.packets) subsets;
    /* 0 a header the spec refuses (a parser error, or an entry naming what the geometry lacks, a leaf prefix with
       slot bits set, an empty bitmap), 1 a packet that came before the switch's role was written */
    counter(2, CounterType.packets) refused;
    /* a group's stamp at the source leaf: 0 packets stamped (one per send), 1 an IPv4 packet from a host port
       with no stamp entry for its port and destination (dropped), 2 header packets come round and replicated */
    counter(3, CounterType.packets) stamps;
    /* sender-written headers from a host port: 0 within the sender's group, 1 dropped for want of an entry for the
       port and the group's address (a foreign group, or another host's), 2 dropped for naming a leaf the group has
       no receiver on or a slot of this leaf that is not the group's (widened) */
    counter(3, CounterType.packets) senders;
    /* receivers' ACKs, NAKs and CNPs to a virtual peer, at a leaf: 0 sent on from a receiver's port towards the
       peer's source leaf, 1 dropped because the port's host is not who the packet says (MAC and address), 2
       dropped for want of the peer's source leaf, 3 dropped: carried in a header from a host, bare from the fabric,
       or come down to a leaf that does not aggregate its peer */
    counter(4, CounterType.packets) acks;

    AckAgg() agg;

    action drop() {
        mark_to_drop(sm);
    }

    action set_role(bit<1> is_leaf, bit<16> self_leaf, bit<8> slot_bits, bit<8> leaf_bits, bit<8> n_up,
                    bit<LEAF_SET> below, bit<16> slots, bit<SLOT_W> slot_mask, bit<LEAF_W> leaf_mask,
                    bit<LEAF_SET> leaves) {
        m.has_role = 1;
        m.slots = slots;
        m.slot_mask = slot_mask;
        m.leaf_mask = leaf_mask;
        m.leaves = leaves;
        m.is_leaf = is_leaf;
        m.self_leaf = self_leaf;
        m.slot_bits = slot_bits;
        m.leaf_bits = leaf_bits;
        m.n_up = n_up;
        m.below = below;
    }

    action set_uplinks(UPS_LIST(PARAM_R)) {
        UPS(SET_R)
    }

    table uplinks {
        actions = { set_uplinks; }
        default_action = set_uplinks(UPS_LIST(ZERO));
    }

    table role {
        actions = { set_role; drop; }
        default_action = drop();
    }

    action from_uplink() {
        m.from_up = 1;
    }

    table uplink_port {
        key = { sm.ingress_port: exact @name("ingress_port"); }
        actions = { from_uplink; NoAction; }
        default_action = NoAction();
        size = 64;
    }

    /* a group its sender on this port addresses by subset addresses (no other host reaches the group this way):
       its members' bit indices by rank (at most
       256 members; rank r at bits 16r+15..16r of lo, of hi for r - 128) and the address its copies carry */
    action expand(bit<16> members, bit<2048> lo, bit<2048> hi, bit<128> group) {
        m.sub_hit = 1;
        m.sub_members = members;
        m.sub_lo = lo;
        m.sub_hi = hi;
        m.sub_group = group;
    }

    /* a group its sender on this port reaches by the group's address: the packet goes once round the switch per
       header packet of the group (multicast group mgrp, one replica per header packet, all to the sender's port),
       and each replica comes back with its header written in egress (stamp_hdr) */
    action stamp(bit<15> group, bit<16> mgrp) {
        m.stamping = 1;
        m.stamp_gn = group;
        sm.mcast_grp = mgrp;
    }

    table stamp_group {
        key = { sm.ingress_port: exact @name("ingress_port"); hdr.in4.dst: exact @name("dst"); }
        actions = { stamp; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    /* the group its sender on this port may write headers for: the leaves it has receivers on, and the slots of
       this leaf a header may name (its receivers', the sender's own and those beyond the leaf's hosts) */
    action allow(bit<LEAF_SET> leaves, bit<64> own) {
        m.chk = 1;
        m.chk_leaves = leaves;
        m.chk_own = own;
    }

    table sender {
        key = { sm.ingress_port: exact @name("ingress_port"); m.grp_dst: exact @name("dst"); }
        actions = { allow; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    table subset {
        key = { sm.ingress_port: exact @name("ingress_port"); m.sub_prefix: exact @name("prefix");
                m.sub_gn: exact @name("group"); }
        actions = { expand; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    /* the host on a receiver's port, as the controller knows it: a receiver's ACK must come from its own MAC and
       address (no host speaks for another to an aggregator) */
    action host_ok() {
        m.ack_ok = 1;
    }

    table ack_src {
        key = { sm.ingress_port: exact @name("ingress_port"); hdr.eth.src: exact @name("mac");
                hdr.in4.src: exact @name("src"); }
        actions = { host_ok; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    /* a virtual peer's source leaf, at a receiver's leaf: the bit index of the group's sender, which the ACK goes
       to in a HOST entry (transit switches keep nothing of the group) */
    action to_source(bit<16> index) {
        m.ack_hit = 1;
        m.ack_index = index;
    }

    table ack_vp {
        key = { hdr.in4.dst: exact @name("vp"); }
        actions = { to_source; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    apply {
        m.to_cpu = 0;
        m.sub_fix = 0;
        m.sub_delta = 0;
        /* a stamped packet come round has lost its ingress port: the sender's port was kept */
        m.in_port = m.stamped == 1 ? m.stamp_port : sm.ingress_port;
        bit<2> agg_call = 0;    /* 1 a control frame, 2 an ACK, NAK or CNP, 3 data from a host: the aggregator's */
        if (hdr.ctl.isValid()) {
            hdr.packet_out.setInvalid();
            agg_call = 1;
        } else if (hdr.packet_out.isValid()) {
            m.to_cpu = 1;
            sm.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        } else if (!hdr.fixed.isValid() && sm.parser_error == error.NoError && (hdr.eth.type == ETH_LLDP
                || hdr.eth.type == ETH_BDDP || hdr.eth.type == ETH_ARP
                || hdr.in6.isValid() && hdr.in6.next == IP_ICMPV6)) {
            m.to_cpu = 1;
            sm.egress_spec = CPU_PORT;
        } else {
            m.has_role = 0;
            role.apply();
            if (m.has_role == 0) {
                /* its static state is not (all) written yet: forward nothing rather than guess */
                refused.count(1);
                drop();
                return;
            }
            uplinks.apply();
            if (m.stamped == 0) {
                uplink_port.apply();
            }
            if (m.is_leaf == 1 && m.stamped == 0 && sm.parser_error == error.NoError && hdr.in4.isValid()
                    && hdr.bth.isValid() && (hdr.bth.opcode == OP_ACK || hdr.bth.opcode == OP_CNP)) {
                /* a receiver's ACK: a header carries one only from its receiver's leaf to its source leaf */
                if (hdr.fixed.isValid() != (m.from_up == 1)) {
                    acks.count(3);
                    drop();
                    return;
                }
                if (m.from_up == 0) {
                    m.ack_ok = 0;
                    ack_src.apply();
                    if (m.ack_ok == 0) {
                        acks.count(1);
                        drop();
                        return;
                    }
                } else {
                    STRIP_HEADER
                }
                agg_call = 2;
            } else if (!hdr.fixed.isValid() && sm.parser_error == error.NoError && hdr.in4.isValid()
                    && hdr.bth.isValid() && m.is_leaf == 1 && m.from_up == 0 && m.stamped == 0) {
                agg_call = 3;   /* the data of a group this leaf may aggregate: it follows the PSN sent */
            }
        }
        if (agg_call != 0) {
            agg.apply(hdr, m, sm);
            /* a control frame, and an ACK of a group aggregated here, end here: consumed, dropped and counted, or
               what the aggregator sends the sender or the controller */
            if (agg_call == 1 || m.vp == 1 && agg_call == 2) {
                return;
            }
            if (agg_call == 2) {
                if (m.from_up == 1) {
                    acks.count(3);
                    drop();
                    return;
                }
                m.ack_hit = 0;
                ack_vp.apply();
                if (m.ack_hit == 0) {
                    acks.count(2);
                    drop();
                    return;
                }
                acks.count(0);
                m.acking = 1;
                hdr.fixed.setValid();
                hdr.fixed.version = 2;
                hdr.fixed.hop = 8;
                hdr.fixed.ipv4 = 1;
                hdr.fixed.reserved = 0;
                hdr.fixed.entropy = hdr.udp.sport;
                hdr.hs0.setValid();
                hdr.hs0.kind = 1;
                hdr.hs0.count = 1;
                hdr.h0[0].setValid();
                hdr.h0[0].idx = m.ack_index;
                hdr.end.setValid();
                hdr.end.zero = 0;
                hdr.eth.type = ETH_MCAST4AI;
            }
        }
        if (m.to_cpu == 0) {
            if (!hdr.fixed.isValid() && sm.parser_error == error.NoError && hdr.in4.isValid() && m.is_leaf == 1
                    && m.from_up == 0 && m.stamped == 0) {
                m.stamping = 0;
                stamp_group.apply();
                if (m.stamping == 0) {
                    stamps.count(1);
                    drop();
                } else {
                    stamps.count(0);
                    m.stamp_port = sm.ingress_port;
                }
                return;
            }
            m.chk = 0;
            m.chk_need = 0;
            if (hdr.fixed.isValid() && m.is_leaf == 1 && m.from_up == 0 && m.stamped == 0 && m.acking == 0) {
                /* a header its sender wrote: only for a group the sender on this port belongs to, within it */
                if (hdr.in6.isValid()) {
                    m.grp_dst = hdr.in6.dst;
                } else if (hdr.in4.isValid()) {
                    m.grp_dst = 96w0xffff ++ hdr.in4.dst;
                } else {
                    m.grp_dst = 0;
                }
                sender.apply();
                m.chk_need = 1;
            }
            if (m.stamped == 1 && hdr.fixed.isValid()) {
                stamps.count(2);
                /* the flow's entropy picks the uplink, as for a sender-written header */
                if (hdr.udp.isValid()) {
                    hdr.fixed.entropy = hdr.udp.sport;
                }
            }
            if (!hdr.fixed.isValid() && sm.parser_error == error.NoError && hdr.bth.isValid() && hdr.in6.isValid()
                    && m.is_leaf == 1 && m.from_up == 0) {
                m.sub_prefix = hdr.in6.dst[127:112];
                m.sub_gn = hdr.in6.dst[110:96];
                m.sub_hit = 0;
                subset.apply();
                if (m.sub_hit == 0) {
                    subsets.count(1);
                    drop();
                    return;
                }
                m.sub_n = 0;
                bool bad = false;
                bool many = false;
                if (hdr.in6.dst[111:111] == 0) {
                    bit<12> q;
                    bit<12> prev = 0;
                    bool done = false;
                    LIST_RANK(0, 95, 84) LIST_RANK(1, 83, 72) LIST_RANK(2, 71, 60) LIST_RANK(3, 59, 48)
                    LIST_RANK(4, 47, 36) LIST_RANK(5, 35, 24) LIST_RANK(6, 23, 12) LIST_RANK(7, 11, 0)
                    if (m.sub_n == 0) {
                        bad = true;
                    }
                } else {
                    MAP8(88) MAP8(80) MAP8(72) MAP8(64) MAP8(56) MAP8(48)
                    MAP8(40) MAP8(32) MAP8(24) MAP8(16) MAP8(8) MAP8(0)
                    if (m.sub_n == 0) {
                        bad = true;
                    } else if (m.sub_n > 62 && !bad) {
                        many = true;
                    }
                }
                if (bad || many) {
                    subsets.count(bad ? 32w2 : 32w3);
                    drop();
                    return;
                }
                subsets.count(0);
                hdr.fixed.setValid();
                hdr.fixed.version = 2;
                hdr.fixed.hop = 8;
                hdr.fixed.ipv4 = 0;
                hdr.fixed.reserved = 0;
                hdr.fixed.entropy = hdr.udp.sport;
                hdr.hs0.setValid();
                hdr.hs0.kind = 1;
                hdr.hs0.count = m.sub_n > 31 ? 5w31 : (bit<5>)m.sub_n;
                if (m.sub_n > 31) {
                    hdr.hs1.setValid();
                    hdr.hs1.kind = 1;
                    hdr.hs1.count = (bit<5>)(m.sub_n - 31);
                }
                hdr.end.setValid();
                hdr.end.zero = 0;
                hdr.eth.type = ETH_MCAST4AI;
                /* the ICRC covers the destination: its change, laid out as the ICRC's message up to the QPN; the
                   copies shift it over the bytes after the QPN in egress */
                bit<32> d;
                bit<32> k;
                hash(d, HashAlgorithm.crc32, 32w0, { 64w0, 64w0, 128w0, hdr.in6.dst ^ m.sub_group, 64w0, 40w0, 24w0 },
                     CRC32_MAX);
                hash(k, HashAlgorithm.crc32, 32w0, { 64w0, 64w0, 128w0, 128w0, 64w0, 40w0, 24w0 }, CRC32_MAX);
                m.sub_delta = d ^ k;
                m.sub_fix = 1;
                hdr.in6.dst = m.sub_group;
                hdr.udp.csum = 0;
            }
        }
        if (m.to_cpu == 1) {
            /* sent to or from the controller above */
        } else if (sm.parser_error != error.NoError || !hdr.fixed.isValid() || hdr.fixed.hop == 0) {
            if (sm.parser_error != error.NoError && hdr.fixed.isValid()) {
                refused.count(0);
            }
            drop();
        } else {
            bit<16> g;
            bit<16> bi;
            bit<16> smask = ((bit<16>)1 << m.slot_bits) - 1;
            m.bad = 0;
            m.want = 0;
            m.want_slots = 0;
            R31(WANT_HOST, h0)
            R31(WANT_HOST, h1)
            R31(WANT_HOST, h2)
            R31(WANT_HOST, h3)
            R31(WANT_RACK, r0)
            R31(WANT_RACK, r1)
            R31(WANT_LEAFE, l0)
            R31(WANT_POD, p0)
            R31(WANT_POD, p1)
            R31(WANT_B0, x)
            R31(WANT_B1, x)
            R31(WANT_B2, x)
            R31(WANT_B3, x)
            if (m.bad == 1 || (m.want & ~m.leaves) != 0) {
                refused.count(0);
                drop();
                return;
            }
            if (m.chk_need == 1) {
                /* after the spec's checks, so that what it refuses is counted as refused */
                if (m.chk == 0) {
                    senders.count(1);
                    drop();
                    return;
                }
                if ((m.want & ~m.chk_leaves) != 0 || (m.want_slots & ~m.chk_own) != 0) {
                    senders.count(2);
                    drop();
                    return;
                }
                senders.count(0);
            }
            m.up_set = m.want & ~m.below;
            m.up_go = 0;
            m.up_split = 0;
            bit<LEAF_SET> left = m.up_set;
            if (m.up_set != 0 && m.from_up == 0 && m.n_up != 0) {
                bit<8> first;
                bit<8> rank;
                hash(first, HashAlgorithm.identity, 8w0, { hdr.fixed.entropy }, (bit<16>)m.n_up);
                UPS(TRY_UP)
                if (m.up_go == 1) {
                    left = 0;
                } else {
                    /* two failures left no single uplink for all of them: split them across the uplinks */
                    UPS(ZERO_A)
                    UPS(TAKE_FROM)
                    UPS(TAKE_BELOW)
                    m.up_split = 1;
                }
            }
            if (left != 0) {
                unserved.count(0);
            }
            sm.mcast_grp = MCAST_GROUP;
        }
    }
}

/* egress: keep an entry if the copy keeps its leaf; count what is kept */
#define KEEP_IF(G, ST, I) { bit<LEAF_SET> k_ = m.kset; SHL_L(k_, G) \
        if ((k_ & TOP_L) != 0) { m.cnt = m.cnt + 1; } else { hdr.ST[I].setInvalid(); } }
#define TRIM_IDX(ST, I) if (hdr.ST[I].isValid()) KEEP_IF(hdr.ST[I].idx >> m.slot_bits, ST, I)
#define TRIM_LEAFE(ST, I) if (hdr.ST[I].isValid()) KEEP_IF(hdr.ST[I].prefix >> m.slot_bits, ST, I)
#define TRIM_POD(ST, I) if (hdr.ST[I].isValid()) { \
        bit<LEAF_SET> t_ = m.kset; SHR_L(t_, (bit<16>)(LEAF_SET - LEAF_W) - ((bit<16>)hdr.ST[I].pod << m.leaf_bits)) \
        hdr.ST[I].leaves = hdr.ST[I].leaves & (bit<LEAF_W>)t_; \
        if (hdr.ST[I].leaves != 0) { m.cnt = m.cnt + 1; } else { hdr.ST[I].setInvalid(); } }
#define TRIM_BLOCK(B, ST, I) if (hdr.ST[I].isValid()) \
        KEEP_IF((((bit<16>)hdr.B.block << 8) | (bit<16>)hdr.ST[I].low) >> m.slot_bits, ST, I)
#define TRIM_B0(A, I) TRIM_BLOCK(bb0, b0, I)
#define TRIM_B1(A, I) TRIM_BLOCK(bb1, b1, I)
#define TRIM_B2(A, I) TRIM_BLOCK(bb2, b2, I)
#define TRIM_B3(A, I) TRIM_BLOCK(bb3, b3, I)
#define RECOUNT(S) if (hdr.S.isValid()) { hdr.S.count = m.cnt; if (m.cnt == 0) { hdr.S.setInvalid(); } } m.cnt = 0;
#define RECOUNT_BLOCK(S, B) if (hdr.S.isValid()) { hdr.S.count = m.cnt; \
        if (m.cnt == 0) { hdr.S.setInvalid(); hdr.B.setInvalid(); } } m.cnt = 0;

/* the ICRC's zero-byte shift: the matrix m.z times V, column I selected by bit I of V */
#define COL(V, I) (m.z[32 * I + 31:32 * I] & ((bit<32>)0 - (bit<32>)V[I:I]))
#define SHIFT(V) V = COL(V, 0) ^ COL(V, 1) ^ COL(V, 2) ^ COL(V, 3) ^ COL(V, 4) ^ COL(V, 5) ^ COL(V, 6) \
    ^ COL(V, 7) ^ COL(V, 8) ^ COL(V, 9) ^ COL(V, 10) ^ COL(V, 11) ^ COL(V, 12) ^ COL(V, 13) ^ COL(V, 14) \
    ^ COL(V, 15) ^ COL(V, 16) ^ COL(V, 17) ^ COL(V, 18) ^ COL(V, 19) ^ COL(V, 20) ^ COL(V, 21) ^ COL(V, 22) \
    ^ COL(V, 23) ^ COL(V, 24) ^ COL(V, 25) ^ COL(V, 26) ^ COL(V, 27) ^ COL(V, 28) ^ COL(V, 29) ^ COL(V, 30) \
    ^ COL(V, 31);
/* stamped header piece I of 32 bytes, from the most significant bits of the entry's head */
#define ST32(H, I, J) if (I < m.st_n32) { hdr.st32[I].setValid(); hdr.st32[I].b = m.H[2047 - 256 * J:1792 - 256 * J]; }
#define SWAP32(X) (X[7:0] ++ X[15:8] ++ X[23:16] ++ X[31:24])

control McastEgress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    /* 0 copies rewritten for their receiver, 1 copies (rewritten or from a subset address) dropped because the
       ICRC shift tables lack an entry */
    counter(2, CounterType.packets) edge;
    /* 0 header packets stamped and sent round, 1 a stamp replica without its header entry (dropped) */
    counter(2, CounterType.packets) stamped;

    /* header packet `packet` of a group: 32-byte pieces (the first n32 of head0 then head1, each from its most
       significant bits), then the remaining tail_len bytes (from tail's most significant bits) */
    action stamp_bytes(bit<8> n32, bit<2048> head0, bit<2048> head1, bit<8> tail_len, bit<248> tail) {
        m.st_seen = 1;
        m.st_n32 = n32;
        m.st_head0 = head0;
        m.st_head1 = head1;
        m.st_tail = tail_len;
        m.st_rest = tail;
    }

    table stamp_hdr {
        key = { m.stamp_gn: exact @name("group"); sm.egress_rid: exact @name("packet"); }
        actions = { stamp_bytes; NoAction; }
        default_action = NoAction();
        size = 16384;
    }

    action drop() {
        mark_to_drop(sm);
    }

    /* the receiver a group's RoCEv2 copy leaves by this port for: its MAC, address and QPN, and the virtual
       peer's address its QP is connected to (the copy's source from here on) */
    action receiver6(bit<48> mac, bit<128> ip, bit<24> qpn, bit<128> vp) {
        m.rw = 1; m.rw_mac = mac; m.rw_ip = ip; m.rw_qpn = qpn; m.rw_vp = vp;
    }

    action receiver4(bit<48> mac, bit<32> ip, bit<24> qpn, bit<32> vp) {
        m.rw = 1; m.rw_mac = mac; m.rw_ip = (bit<128>)ip; m.rw_qpn = qpn; m.rw_vp = (bit<128>)vp;
    }

    /* keyed by the port and the address the copy is for (the virtual peer the sender's QP is connected to) */
    table rewrite6 {
        key = { sm.egress_port: exact @name("egress_port"); hdr.in6.dst: exact @name("dst"); }
        actions = { receiver6; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    table rewrite4 {
        key = { sm.egress_port: exact @name("egress_port"); hdr.in4.dst: exact @name("dst"); }
        actions = { receiver4; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    /* the shift of the ICRC over n zero bytes, n = 64 * tail_hi + tail_lo: static, written on every leaf */
    action icrc_shift(bit<1024> z) {
        m.z = z;
        m.z_ok = 1;
    }

    action no_shift() {
        m.z_ok = 0;
    }

    table icrc_lo {
        key = { m.tail_lo: exact @name("tail_lo"); }
        actions = { icrc_shift; no_shift; }
        default_action = no_shift();
        size = 64;
    }

    table icrc_hi {
        key = { m.tail_hi: exact @name("tail_hi"); }
        actions = { icrc_shift; no_shift; }
        default_action = no_shift();
        size = 128;
    }


    /* a downward neighbour: the leaves of its range it still reaches */
    action to_child(bit<LEAF_SET> leaves) {
        m.out_kind = OUT_CHILD;
        m.kset = m.want & leaves;
    }

    /* a host: its slot on this leaf */
    action to_host(bit<8> slot) {
        m.out_kind = OUT_HOST;
        m.out_index = slot;
    }

    /* an uplink: its index in the uplinks table */
    action to_uplink(bit<8> index) {
        m.out_kind = OUT_UP;
        m.out_index = index;
        m.kset = m.up_set;
    }

    /* what each replica of multicast group 1 leads to, by its port (ONOS gives each port one replica) */
    table out_port {
        key = { sm.egress_port: exact @name("egress_port"); }
        actions = { to_child; to_host; to_uplink; drop; }
        default_action = drop();
        size = 256;
    }

    action trim() {
        hdr.fixed.hop = hdr.fixed.hop - 1;
    }

    action strip() {
        STRIP_HEADER
    }

    apply {
        if (m.agg_out == 1) {
            /* the aggregator's: an aggregated ACK, NAK or CNP to the sender, or a report to the controller (the
               packet itself, or its clone beside an ACK) */
            if (sm.instance_type == 1) {
                REPORT
            }
            if (sm.egress_port == CPU_PORT) {
                hdr.packet_in.setValid();
                hdr.packet_in.ingress_port = m.in_port;
                hdr.packet_in.pad = 0;
            }
            return;
        }
        if (m.stamping == 1) {
            m.st_seen = 0;
            stamp_hdr.apply();
            if (m.st_seen == 0 || m.st_n32 > STAMP_32 || m.st_tail > 31) {
                stamped.count(1);
                drop();
                return;
            }
            ST32(st_head0, 0, 0) ST32(st_head0, 1, 1) ST32(st_head0, 2, 2) ST32(st_head0, 3, 3)
            ST32(st_head0, 4, 4) ST32(st_head0, 5, 5) ST32(st_head0, 6, 6) ST32(st_head0, 7, 7)
            ST32(st_head1, 8, 0) ST32(st_head1, 9, 1) ST32(st_head1, 10, 2) ST32(st_head1, 11, 3)
            ST32(st_head1, 12, 4) ST32(st_head1, 13, 5) ST32(st_head1, 14, 6) ST32(st_head1, 15, 7)
            bit<248> t = m.st_rest;
            if (m.st_tail[4:4] == 1) { hdr.st16.setValid(); hdr.st16.b = t[247:120]; t = t << 128; }
            if (m.st_tail[3:3] == 1) { hdr.st8.setValid(); hdr.st8.b = t[247:184]; t = t << 64; }
            if (m.st_tail[2:2] == 1) { hdr.st4.setValid(); hdr.st4.b = t[247:216]; t = t << 32; }
            if (m.st_tail[1:1] == 1) { hdr.st2.setValid(); hdr.st2.b = t[247:232]; t = t << 16; }
            if (m.st_tail[0:0] == 1) { hdr.st1.setValid(); hdr.st1.b = t[247:240]; }
            hdr.eth.type = ETH_MCAST4AI;
            stamped.count(0);
            m.stamped = 1;
            recirculate_preserving_field_list(1);
            return;
        }
        if (m.to_cpu == 1) {
            if (sm.egress_port == CPU_PORT) {
                hdr.packet_in.setValid();
                hdr.packet_in.ingress_port = m.in_port;
                hdr.packet_in.pad = 0;
            }
            return;
        }
        m.out_kind = 0;
        m.rw = 0;
        out_port.apply();
        bool keep = false;
        bit<32> v = m.sub_delta;      /* the ICRC's change before its shift: the source leaf's, the receiver's */
        bit<1> fix = m.sub_fix;
        if (sm.egress_port == m.in_port) {
            keep = false;                              /* nothing goes back out of its in-port */
        } else if (m.out_kind == OUT_UP) {
            if (m.up_split == 1) {
                UPS(TAKEN)
                keep = m.kset != 0;
            } else {
                keep = m.up_go == 1 && m.out_index == m.up_choice;
            }
        } else if (m.out_kind == OUT_HOST) {
            keep = ((m.want_slots << m.out_index) & TOP_S) != 0;
        } else if (m.out_kind == OUT_CHILD) {
            keep = m.kset != 0;
        }
        if (!keep) {
            drop();
        } else if (m.out_kind == OUT_HOST) {
            strip();
            if (hdr.bth.isValid() && hdr.in6.isValid()) {
                rewrite6.apply();
            } else if (hdr.bth.isValid() && hdr.in4.isValid()) {
                rewrite4.apply();
            }
            if (m.rw == 1) {
                /* the ICRC: the carried one XOR the CRC of the rewritten fields' difference, laid out as the
                   ICRC's message from its start to the QPN, shifted over the bytes after the QPN below (the CRC is
                   affine: for messages of one length crc(a) ^ crc(b) is the linear CRC of a ^ b). The payload is
                   never read, so a copy damaged on the way stays damaged. */
                bit<32> d;
                bit<32> k;
                if (hdr.in6.isValid()) {
                    hash(d, HashAlgorithm.crc32, 32w0, { 64w0, 64w0, hdr.in6.src ^ m.rw_vp, hdr.in6.dst ^ m.rw_ip,
                         64w0, 40w0, hdr.bth.dqpn ^ m.rw_qpn }, CRC32_MAX);
                    hash(k, HashAlgorithm.crc32, 32w0, { 64w0, 64w0, 128w0, 128w0, 64w0, 40w0, 24w0 }, CRC32_MAX);
                    hdr.in6.src = m.rw_vp;
                    hdr.in6.dst = m.rw_ip;
                } else {
                    hash(d, HashAlgorithm.crc32, 32w0, { 64w0, 96w0, hdr.in4.src ^ (bit<32>)m.rw_vp,
                         hdr.in4.dst ^ (bit<32>)m.rw_ip, 64w0, 40w0, hdr.bth.dqpn ^ m.rw_qpn }, CRC32_MAX);
                    hash(k, HashAlgorithm.crc32, 32w0, { 64w0, 96w0, 32w0, 32w0, 64w0, 40w0, 24w0 }, CRC32_MAX);
                    hdr.in4.src = (bit<32>)m.rw_vp;
                    hdr.in4.dst = (bit<32>)m.rw_ip;
                }
                v = v ^ d ^ k;
                fix = 1;
                hdr.eth.dst = m.rw_mac;
                hdr.bth.dqpn = m.rw_qpn;
                hdr.udp.csum = 0;
            }
        } else {
            trim();
            m.cnt = 0;
            R31(TRIM_IDX, h0)
            RECOUNT(hs0)
            R31(TRIM_IDX, h1)
            RECOUNT(hs1)
            R31(TRIM_IDX, h2)
            RECOUNT(hs2)
            R31(TRIM_IDX, h3)
            RECOUNT(hs3)
            R31(TRIM_IDX, r0)
            RECOUNT(rs0)
            R31(TRIM_IDX, r1)
            RECOUNT(rs1)
            R31(TRIM_LEAFE, l0)
            RECOUNT(ls0)
            R31(TRIM_POD, p0)
            RECOUNT(ps0)
            R31(TRIM_POD, p1)
            RECOUNT(ps1)
            R31(TRIM_B0, x)
            RECOUNT_BLOCK(bs0, bb0)
            R31(TRIM_B1, x)
            RECOUNT_BLOCK(bs1, bb1)
            R31(TRIM_B2, x)
            RECOUNT_BLOCK(bs2, bb2)
            R31(TRIM_B3, x)
            RECOUNT_BLOCK(bs3, bb3)
        }
        if (keep && fix == 1) {
            bit<16> tail = hdr.udp.len - 20;
            m.tail_lo = tail[5:0];
            m.tail_hi = tail[12:6];
            icrc_lo.apply();
            bit<1> ok = m.z_ok;
            SHIFT(v)
            icrc_hi.apply();
            ok = ok & m.z_ok;
            SHIFT(v)
            if (ok == 0) {
                edge.count(1);
                drop();
            } else {
                if (m.rw == 1) {
                    edge.count(0);
                }
                bit<32> c = SWAP32(hdr.icrc.v) ^ v;
                hdr.icrc.v = SWAP32(c);
            }
        }
    }
}

control McastComputeChecksum(inout headers_t hdr, inout meta_t m) {
    apply {
        /* a rewritten IPv4 copy's header checksum (masked in the ICRC), and an aggregated ACK's */
        update_checksum(hdr.in4.isValid() && (m.rw == 1 || m.emit == 1),
            { hdr.in4.version, hdr.in4.ihl, hdr.in4.tos, hdr.in4.len, hdr.in4.id, hdr.in4.frag, hdr.in4.ttl,
              hdr.in4.proto, hdr.in4.src, hdr.in4.dst },
            hdr.in4.csum, HashAlgorithm.csum16);
    }
}

control McastDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.eth);
        packet.emit(hdr.ctl);
        packet.emit(hdr.st32);
        packet.emit(hdr.st16);
        packet.emit(hdr.st8);
        packet.emit(hdr.st4);
        packet.emit(hdr.st2);
        packet.emit(hdr.st1);
        packet.emit(hdr.fixed);
        packet.emit(hdr.hs0); packet.emit(hdr.h0);
        packet.emit(hdr.hs1); packet.emit(hdr.h1);
        packet.emit(hdr.hs2); packet.emit(hdr.h2);
        packet.emit(hdr.hs3); packet.emit(hdr.h3);
        packet.emit(hdr.rs0); packet.emit(hdr.r0);
        packet.emit(hdr.rs1); packet.emit(hdr.r1);
        packet.emit(hdr.ls0); packet.emit(hdr.l0);
        packet.emit(hdr.ps0); packet.emit(hdr.p0);
        packet.emit(hdr.ps1); packet.emit(hdr.p1);
        packet.emit(hdr.bs0); packet.emit(hdr.bb0); packet.emit(hdr.b0);
        packet.emit(hdr.bs1); packet.emit(hdr.bb1); packet.emit(hdr.b1);
        packet.emit(hdr.bs2); packet.emit(hdr.bb2); packet.emit(hdr.b2);
        packet.emit(hdr.bs3); packet.emit(hdr.bb3); packet.emit(hdr.b3);
        packet.emit(hdr.end);
        packet.emit(hdr.in4);
        packet.emit(hdr.in6);
        packet.emit(hdr.udp);
        packet.emit(hdr.bth);
        packet.emit(hdr.aeth);
        packet.emit(hdr.cnp);
        packet.emit(hdr.payload);
        packet.emit(hdr.icrc);
    }
}

V1Switch(McastParser(), McastVerifyChecksum(), McastIngress(), McastEgress(), McastComputeChecksum(),
         McastDeparser()) main;
