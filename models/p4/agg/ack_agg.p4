/*
 * ACK aggregation in a switch's registers, P4_16 for v1model (BMv2): the specification of
 * org.mcast4ai.engine.reliable.AckAggregator (models/reliable/ack-aggregation.json), for the source leaf of a
 * reliable group. This file holds the part built so far, as a program of its own that ./replay_agg drives with
 * the shared vectors; it is to become a control of mcast4ai.p4 (the source leaf's role) once whole.
 *
 * Built: the ACK path. Every ACK, NAK or CNP to a virtual peer is checked before anything else is read of it: its
 * ICRC (computed over the masked headers with the switch's CRC-32, a bad one is dropped and counted) and its
 * sender (group, address and QPN a member's: anything else is dropped and counted). The sender's data to the
 * virtual peer sets the next PSN to send; an ACK at or beyond it, as far as 24 bits tell, is dropped and counted.
 * Each receiver's acknowledged PSN is kept in registers (extended past the 24-bit wrap to 32 bits); the group keeps
 * the minimum over its receivers and how many are at it. An ACK that moves the last receiver at the minimum has
 * the minimum found again over the group's receivers, and when it advanced, the packet itself leaves to the sender
 * as the aggregated ACK: from the virtual peer, the minimum's PSN, the MSN and credit of the receiver at it (of
 * several, the lowest key, address << 24 | QPN), IPv4 checksum and ICRC computed anew.
 *
 * Not yet (the vectors that need them are skipped, named, by ./replay_agg): NAKs (passed on once per round at the
 * PSN after the minimum), re-ACKs after a retransmission, the CNP interval, the stall rule, joins and leaves after
 * the start, and aggregation points that do not see the data.
 *
 * State, per group g (AGG_GROUPS) and receiver slot s (AGG_RX), flat index g * AGG_RX + s:
 *   rx_acked  bit<32>  the PSN the receiver acknowledged, extended        rx_key    bit<56>  address << 24 | QPN
 *   rx_msn    bit<24>  its last MSN                                       rx_credit bit<5>   its last credit
 *   rx_on     bit<1>   an active receiver
 *   g_min, g_atmin, g_msn, g_credit, g_ackout, g_sentnext: the group's minimum, the receivers at it, the MSN and
 *   credit the aggregated ACK carries, the PSN the sender holds as acknowledged, the next PSN it will send.
 * The control plane writes the tables (agg_vp: the virtual peer's address to its group and the sender;
 * agg_member: (group, address, QPN) to the slot) and the registers at the start (./replay_agg: what the app's
 * programmer is to write).
 */
#include <core.p4>
#include <v1model.p4>

#ifndef AGG_GROUPS
#define AGG_GROUPS 64
#endif
#ifndef AGG_RX
#define AGG_RX 32
#endif
#define ROCE_PORT 4791
#define OP_ACK 0x11
#define OP_CNP 0x81

/* drop reasons, the index within a group's row of agg_drops (the Java specification's AggregationOutput.Drop) */
#define DROP_NON_MEMBER 1
#define DROP_BEYOND_SENT 2
#define DROP_BAD_ICRC 6
#define DROP_MALFORMED 7

header ethernet_t { bit<48> dst; bit<48> src; bit<16> type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag; bit<8> ttl; bit<8> proto;
    bit<16> csum; bit<32> src; bit<32> dst;
}
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
header bth_t { bit<8> opcode; bit<8> flags; bit<16> pkey; bit<8> resv; bit<24> dqpn; bit<8> ack; bit<24> psn; }
header aeth_t { bit<8> syndrome; bit<24> msn; }
header cnp_t { bit<128> resv; }
header icrc_t { bit<32> v; }                       /* least significant byte first */

struct headers_t {
    ethernet_t eth;
    ipv4_t ip;
    udp_t udp;
    bth_t bth;
    aeth_t aeth;
    cnp_t cnp;
    icrc_t icrc;
}

struct meta_t {
    bit<32> g;                 /* the group's index */
    bit<32> i;                 /* the receiver's flat index */
    bit<1> vp;                 /* addressed to a virtual peer */
    bit<1> sees_data;
    bit<32> sender_ip;
    bit<24> sender_qpn;
    bit<48> sender_mac;
    bit<48> vp_mac;
    bit<9> sender_port;
    bit<9> onward_port;
    bit<32> crc;
    bit<1> emit;               /* the packet leaves as the aggregated ACK */
}

parser AggParser(packet_in packet, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        packet.extract(hdr.eth);
        transition select(hdr.eth.type) { 0x0800: ip; default: accept; }
    }
    state ip {
        packet.extract(hdr.ip);
        transition select(hdr.ip.ihl, hdr.ip.proto) { (5, 17): udp; default: accept; }
    }
    state udp {
        packet.extract(hdr.udp);
        transition select(hdr.udp.dport) { ROCE_PORT: bth; default: accept; }
    }
    state bth {
        packet.extract(hdr.bth);
        /* an ACK is BTH, AETH and ICRC (28 bytes with the UDP header), a CNP BTH, 16 reserved bytes and ICRC (40):
           other lengths are malformed; the sender's data is left unparsed after its BTH */
        transition select(hdr.bth.opcode, hdr.udp.len) {
            (OP_ACK, 28): aeth;
            (OP_CNP, 40): cnp;
            default: accept;
        }
    }
    state aeth {
        packet.extract(hdr.aeth);
        packet.extract(hdr.icrc);
        transition accept;
    }
    state cnp {
        packet.extract(hdr.cnp);
        packet.extract(hdr.icrc);
        transition accept;
    }
}

control AggVerify(inout headers_t hdr, inout meta_t m) { apply { } }

/* 24-bit PSN arithmetic: psn extended to 32 bits as the value nearest ref (within 2^23 either way) */
#define EXTEND(OUT, PSN, REF) { \
        bit<24> d_ = PSN - REF[23:0]; \
        if (d_[23:23] == 1) { OUT = REF - (bit<32>)(24w0 - d_); } else { OUT = REF + (bit<32>)d_; } }
/* a - b > 0 for extended PSNs */
#define AFTER(A, B) ((int<32>)(A - B) > 0)

control AggIngress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<32>>(AGG_GROUPS * AGG_RX) rx_acked;
    register<bit<56>>(AGG_GROUPS * AGG_RX) rx_key;
    register<bit<24>>(AGG_GROUPS * AGG_RX) rx_msn;
    register<bit<5>>(AGG_GROUPS * AGG_RX) rx_credit;
    register<bit<1>>(AGG_GROUPS * AGG_RX) rx_on;
    register<bit<32>>(AGG_GROUPS) g_min;
    register<bit<32>>(AGG_GROUPS) g_atmin;
    register<bit<24>>(AGG_GROUPS) g_msn;
    register<bit<5>>(AGG_GROUPS) g_credit;
    register<bit<32>>(AGG_GROUPS) g_ackout;
    register<bit<32>>(AGG_GROUPS) g_sentnext;
    /* per group, 8 each: drops by reason; ACKs in, ACKs out */
    counter(AGG_GROUPS * 8, CounterType.packets) agg_drops;
    counter(AGG_GROUPS, CounterType.packets) agg_acks_in;
    counter(AGG_GROUPS, CounterType.packets) agg_acks_out;

    action vp_group(bit<32> g, bit<1> sees_data, bit<32> sender_ip, bit<24> sender_qpn, bit<48> sender_mac,
                    bit<48> vp_mac, bit<9> sender_port, bit<9> onward_port) {
        m.vp = 1;
        m.g = g;
        m.sees_data = sees_data;
        m.sender_ip = sender_ip;
        m.sender_qpn = sender_qpn;
        m.sender_mac = sender_mac;
        m.vp_mac = vp_mac;
        m.sender_port = sender_port;
        m.onward_port = onward_port;
    }
    table agg_vp {
        key = { hdr.ip.dst: exact; }
        actions = { vp_group; NoAction; }
        default_action = NoAction;
        size = AGG_GROUPS;
    }
    action member(bit<32> slot) { m.i = m.g * AGG_RX + slot; }
    action stranger() { agg_drops.count(m.g * 8 + DROP_NON_MEMBER); mark_to_drop(sm); }
    table agg_member {
        key = { m.g: exact; hdr.ip.src: exact; hdr.bth.dqpn: exact; }
        actions = { member; stranger; }
        default_action = stranger();
        size = AGG_GROUPS * AGG_RX;
    }

    /* the RoCEv2 ICRC: CRC-32 over 8 bytes of ones, the IPv4 header with TOS, TTL and checksum all ones, the UDP
       header with its checksum all ones, the BTH with its reserved byte all ones, and what follows (IBA A17.4.2) */
    action icrc_ack() {
        hash(m.crc, HashAlgorithm.crc32, 32w0,
             { 64w0xFFFFFFFFFFFFFFFF, hdr.ip.version, hdr.ip.ihl, 8w0xFF, hdr.ip.len, hdr.ip.id, hdr.ip.frag, 8w0xFF,
               hdr.ip.proto, 16w0xFFFF, hdr.ip.src, hdr.ip.dst, hdr.udp.sport, hdr.udp.dport, hdr.udp.len,
               16w0xFFFF, hdr.bth.opcode, hdr.bth.flags, hdr.bth.pkey, 8w0xFF, hdr.bth.dqpn, hdr.bth.ack,
               hdr.bth.psn, hdr.aeth.syndrome, hdr.aeth.msn }, 64w0x100000000);
    }
    action icrc_cnp() {
        hash(m.crc, HashAlgorithm.crc32, 32w0,
             { 64w0xFFFFFFFFFFFFFFFF, hdr.ip.version, hdr.ip.ihl, 8w0xFF, hdr.ip.len, hdr.ip.id, hdr.ip.frag, 8w0xFF,
               hdr.ip.proto, 16w0xFFFF, hdr.ip.src, hdr.ip.dst, hdr.udp.sport, hdr.udp.dport, hdr.udp.len,
               16w0xFFFF, hdr.bth.opcode, hdr.bth.flags, hdr.bth.pkey, 8w0xFF, hdr.bth.dqpn, hdr.bth.ack,
               hdr.bth.psn, hdr.cnp.resv }, 64w0x100000000);
    }

    apply {
        if (!hdr.bth.isValid()) { mark_to_drop(sm); return; }
        agg_vp.apply();
        if (m.vp == 0) { mark_to_drop(sm); return; }
        bit<1> control_packet = 0;
        if (hdr.bth.opcode == OP_ACK || hdr.bth.opcode == OP_CNP) { control_packet = 1; }
        if (control_packet == 0 && hdr.ip.src == m.sender_ip) {
            /* the sender's data: the next PSN to send follows it */
            bit<32> sent;
            g_sentnext.read(sent, m.g);
            bit<32> p;
            EXTEND(p, hdr.bth.psn, sent)
            if (!AFTER(sent, p)) { g_sentnext.write(m.g, p + 1); }
            sm.egress_spec = m.onward_port;
            return;
        }
        if (!hdr.aeth.isValid() && !hdr.cnp.isValid()) {
            agg_drops.count(m.g * 8 + DROP_MALFORMED);
            mark_to_drop(sm);
            return;
        }
        /* nothing is read of an ACK, NAK or CNP before its ICRC verifies */
        if (hdr.aeth.isValid()) { icrc_ack(); } else { icrc_cnp(); }
        bit<32> wire = hdr.icrc.v[7:0] ++ hdr.icrc.v[15:8] ++ hdr.icrc.v[23:16] ++ hdr.icrc.v[31:24];
        if (m.crc != wire) {
            agg_drops.count(m.g * 8 + DROP_BAD_ICRC);
            mark_to_drop(sm);
            return;
        }
        switch (agg_member.apply().action_run) {
            stranger: { return; }
        }
        mark_to_drop(sm);       /* what is not passed on below is consumed */
        if (hdr.cnp.isValid() || hdr.aeth.syndrome[7:5] != 0) { return; }   /* NAKs, CNPs: not yet */
        agg_acks_in.count(m.g);
        bit<32> sent;
        g_sentnext.read(sent, m.g);
        bit<32> p = 0;
        EXTEND(p, hdr.bth.psn, sent)
        /* an ACK for the next PSN to send or beyond it, as far as 24 bits tell */
        if (m.sees_data == 1 && !AFTER(sent, p)) {
            agg_drops.count(m.g * 8 + DROP_BEYOND_SENT);
            return;
        }
        bit<32> old = 0;
        rx_acked.read(old, m.i);
        if (!AFTER(p, old)) { return; }                  /* a duplicate or reordered ACK moves nothing back */
        rx_acked.write(m.i, p);
        rx_msn.write(m.i, hdr.aeth.msn);
        rx_credit.write(m.i, hdr.aeth.syndrome[4:0]);
        bit<32> min;
        g_min.read(min, m.g);
        if (old != min) { return; }                      /* it was ahead of the minimum: nothing moves */
        bit<32> atmin;
        g_atmin.read(atmin, m.g);
        if (atmin > 1) { g_atmin.write(m.g, atmin - 1); return; }
        /* it was the last at the minimum: find it again over the group's receivers */
        bit<32> base = m.g * AGG_RX;
        bit<32> nmin = p;
        bit<1> found = 0;
        bit<32> n = 0;
        bit<56> hkey = 56w0xFFFFFFFFFFFFFF;
        bit<24> hmsn = 0;
        bit<5> hcredit = 0;
        bit<32> a;
        bit<1> on;
        bit<56> k;
        bit<24> ms;
        bit<5> cr;
#define SCAN(S) \
        rx_on.read(on, base + S); \
        if (on == 1) { \
            rx_acked.read(a, base + S); \
            rx_key.read(k, base + S); \
            rx_msn.read(ms, base + S); \
            rx_credit.read(cr, base + S); \
            if (found == 0 || AFTER(nmin, a)) { nmin = a; n = 1; hkey = k; hmsn = ms; hcredit = cr; found = 1; } \
            else if (a == nmin) { n = n + 1; if (k < hkey) { hkey = k; hmsn = ms; hcredit = cr; } } \
        }
        SCAN(0) SCAN(1) SCAN(2) SCAN(3) SCAN(4) SCAN(5) SCAN(6) SCAN(7)
        SCAN(8) SCAN(9) SCAN(10) SCAN(11) SCAN(12) SCAN(13) SCAN(14) SCAN(15)
        SCAN(16) SCAN(17) SCAN(18) SCAN(19) SCAN(20) SCAN(21) SCAN(22) SCAN(23)
        SCAN(24) SCAN(25) SCAN(26) SCAN(27) SCAN(28) SCAN(29) SCAN(30) SCAN(31)
        g_min.write(m.g, nmin);
        g_atmin.write(m.g, n);
        g_msn.write(m.g, hmsn);
        g_credit.write(m.g, hcredit);
        bit<32> ackout;
        g_ackout.read(ackout, m.g);
        if (!AFTER(nmin, ackout)) { return; }
        g_ackout.write(m.g, nmin);
        agg_acks_out.count(m.g);
        /* the packet leaves as the aggregated ACK, from the virtual peer to the sender */
        m.emit = 1;
        hdr.eth.dst = m.sender_mac;
        hdr.eth.src = m.vp_mac;
        hdr.ip.src = hdr.ip.dst;
        hdr.ip.dst = m.sender_ip;
        hdr.bth.dqpn = m.sender_qpn;
        hdr.bth.psn = nmin[23:0];
        hdr.aeth.syndrome = 3w0 ++ hcredit;
        hdr.aeth.msn = hmsn;
        icrc_ack();
        hdr.icrc.v = m.crc[7:0] ++ m.crc[15:8] ++ m.crc[23:16] ++ m.crc[31:24];
        sm.egress_spec = m.sender_port;
    }
}

control AggEgress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }

control AggCompute(inout headers_t hdr, inout meta_t m) {
    apply {
        update_checksum(hdr.ip.isValid() && m.emit == 1,
            { hdr.ip.version, hdr.ip.ihl, hdr.ip.tos, hdr.ip.len, hdr.ip.id, hdr.ip.frag, hdr.ip.ttl, hdr.ip.proto,
              hdr.ip.src, hdr.ip.dst }, hdr.ip.csum, HashAlgorithm.csum16);
    }
}

control AggDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.eth);
        packet.emit(hdr.ip);
        packet.emit(hdr.udp);
        packet.emit(hdr.bth);
        packet.emit(hdr.aeth);
        packet.emit(hdr.cnp);
        packet.emit(hdr.icrc);
    }
}

V1Switch(AggParser(), AggVerify(), AggIngress(), AggEgress(), AggCompute(), AggDeparser()) main;
