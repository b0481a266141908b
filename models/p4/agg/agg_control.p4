/*
 * ACK aggregation in a switch's registers: the specification of org.mcast4ai.engine.reliable.AckAggregator, the
 * source leaf's control in mcast4ai.p4 (which includes agg_types.p4 before its headers_t and meta_t, with the
 * fields eth, ctl, in4, udp, bth, aeth, cnp, icrc and AGG_META, and this file after them). It passes the same known
 * answers as the Java specification and the eBPF program (models/reliable/ack-aggregation*.json, ./replay_agg).
 *
 * Every ACK, NAK or CNP to a virtual peer is checked before anything else is read of it: its ICRC (computed over
 * the masked headers with the switch's CRC-32; a bad one is dropped and counted) and its sender (group, address
 * and QPN of an active member; anything else is dropped and counted). The sender's data to the virtual peer from
 * the sender's port sets the next PSN to send (a PSN behind it is a retransmission: a new NAK round, one re-ACK);
 * an ACK or NAK at or beyond it, as far as 24 bits tell, is dropped and counted. Each receiver's acknowledged PSN is
 * kept extended past the 24-bit wrap to 32 bits; the group keeps the minimum over its active receivers and how many
 * are at it. An ACK (or a sequence-error NAK, which acknowledges what is before the PSN it expects) that moves the
 * last receiver at the minimum has it found again over the group's slots; when it advanced, the packet itself
 * leaves to the sender as the aggregated ACK, from the virtual peer, with the MSN and credit of the receiver at the
 * minimum (of several, the lowest key, address << 24 | QPN), IPv4 checksum and ICRC computed anew. A NAK goes on at
 * once with the PSN after the minimum, once per PSN per retransmission round (without the data in sight: per
 * hold-off); a duplicate ACK after a retransmission goes on once as a re-ACK; a CNP at most once per interval per
 * group.
 *
 * The controller (the CPU port only: a control frame from any other port is dropped and counted) starts a group
 * (CONFIG), adds and removes receivers (JOIN at a PSN, LEAVE, EVICT: it found one unreachable, never the last
 * active one) and runs the stall rule (TICK): when the minimum stood still for the stall time with data
 * unacknowledged, the clock starts again and the group is suspect; at the next timeout the receivers at the minimum
 * are stalled only if more than half of the active receivers were heard from ahead of it in that window (counted
 * once each: a window number per group and per receiver). Otherwise the stall is common (a loss many share, or the
 * fabric cut between the sender and many of them while a receiver on its leaf still acknowledges), counted, and
 * nobody is evicted. A fatal NAK stalls its receiver, unless it is the last active one, whose NAK reaches the
 * sender. What a packet stalled goes to the controller as a report (the packet itself, or a clone beside the ACK
 * it sends the sender). Every path is one pass through the pipeline: no recirculation, no resubmission.
 *
 * State, per group g (AGG_GROUPS) and receiver slot s (AGG_RX, 32 or 128), flat index g * AGG_RX + s:
 *   rx_acked 32, rx_key 56 (address << 24 | QPN), rx_msn 24, rx_credit 5, rx_on 1, rx_heard 32: 150 bits a
 *   receiver; g_min, g_atmin, g_active, g_ackout, g_sentnext, g_nak_out, g_window, g_heard 32 each, g_msn 24,
 *   g_credit 5, g_nak_time, g_cnp_time, g_since 48 each, g_retx, g_reack, g_nak_has, g_cnp_has, g_suspect 1 each, g_config
 *   64: 498 bits a group. A switch holds AGG_GROUPS x (498 + 150 AGG_RX) bits: 64 groups of 128 receivers, 154 KiB.
 * Tables: agg_vp (the virtual peer's address: its group and the sender), agg_group (the same by index, for the
 * control frames), agg_member ((group, address, QPN): the slot).
 */

/* 24-bit PSN arithmetic: psn extended to 32 bits as the value nearest ref (within 2^23 either way) */
#define EXTEND(OUT, PSN, REF) { \
        bit<24> d_ = PSN - REF[23:0]; \
        if (d_[23:23] == 1) { OUT = REF - (bit<32>)(24w0 - d_); } else { OUT = REF + (bit<32>)d_; } }
/* a - b > 0 for extended PSNs */
#define AFTER(A, B) ((int<32>)(A - B) > 0)

/* the packet leaves to the sender, from the virtual peer */
#define TO_SENDER \
        m.emit = 1; \
        hdr.eth.dst = m.sender_mac; \
        hdr.eth.src = m.vp_mac; \
        hdr.in4.src = m.vp_ip; \
        hdr.in4.dst = m.sender_ip; \
        hdr.bth.dqpn = m.sender_qpn; \
        sm.egress_spec = m.sender_port;
/* ... as an ACK or NAK for PSN with this MSN and syndrome, its ICRC computed anew */
#define ACK_OUT(PSN, MSN, SYNDROME) \
        hdr.bth.psn = (PSN)[23:0]; \
        hdr.aeth.syndrome = SYNDROME; \
        hdr.aeth.msn = MSN; \
        icrc_ack(); \
        hdr.icrc.v = m.crc[7:0] ++ m.crc[15:8] ++ m.crc[23:16] ++ m.crc[31:24];
/* a control frame becomes an ACK: the headers an RC responder's ACK has */
#define AS_ACK \
        hdr.ctl.setInvalid(); \
        hdr.eth.type = 0x0800; \
        hdr.in4.setValid(); hdr.udp.setValid(); hdr.bth.setValid(); hdr.aeth.setValid(); hdr.icrc.setValid(); \
        hdr.in4.version = 4; hdr.in4.ihl = 5; hdr.in4.tos = 0; hdr.in4.len = 48; hdr.in4.id = 1; hdr.in4.frag = 0; \
        hdr.in4.ttl = 64; hdr.in4.proto = 17; hdr.in4.csum = 0; \
        hdr.udp.sport = 49152; hdr.udp.dport = ROCE_PORT; hdr.udp.len = 28; hdr.udp.csum = 0; \
        hdr.bth.opcode = OP_ACK; hdr.bth.flags = 0; hdr.bth.pkey = 0xFFFF; hdr.bth.resv = 0; hdr.bth.ack = 0;

/* a packet becomes the controller's report of the receivers it stalled */
#define REPORT \
        hdr.in4.setInvalid(); hdr.udp.setInvalid(); hdr.bth.setInvalid(); hdr.aeth.setInvalid(); \
        hdr.cnp.setInvalid(); hdr.icrc.setInvalid(); \
        hdr.ctl.setValid(); \
        hdr.eth.type = ETH_AGG_CTL; \
        hdr.ctl.op = CTL_STALLED; hdr.ctl.slot = 0; hdr.ctl.pad = 0; hdr.ctl.group = m.g; \
        hdr.ctl.psn = 0; hdr.ctl.key = 0; hdr.ctl.stalled = m.stalled;

/* the stall clock starts again (the minimum advanced, data went out after all was acknowledged, or a stall timeout
   passed): a new window, in which nobody was heard from ahead of the minimum yet */
#define RESTART_CLOCK \
        g_since.write(m.g, now); \
        g_window.read(win, m.g); \
        g_window.write(m.g, win + 1); \
        g_heard.write(m.g, 0); \
        g_suspect.write(m.g, 0);
/* receiver m.i answered from ahead of the minimum: counted once a window */
#define HEARD \
        g_window.read(win, m.g); \
        rx_heard.read(hw, m.i); \
        if (hw != win) { rx_heard.write(m.i, win); g_heard.read(hn, m.g); g_heard.write(m.g, hn + 1); }
/* receiver m.i left or stalled: it no longer counts in the window */
#define UNHEARD \
        g_window.read(win, m.g); \
        rx_heard.read(hw, m.i); \
        if (hw == win) { rx_heard.write(m.i, win - 1); g_heard.read(hn, m.g); if (hn > 0) { g_heard.write(m.g, hn - 1); } }

control AckAgg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<32>>(AGG_GROUPS * AGG_RX) rx_acked;
    register<bit<56>>(AGG_GROUPS * AGG_RX) rx_key;
    register<bit<24>>(AGG_GROUPS * AGG_RX) rx_msn;
    register<bit<5>>(AGG_GROUPS * AGG_RX) rx_credit;
    register<bit<1>>(AGG_GROUPS * AGG_RX) rx_on;  /* an active receiver: joined, not stalled, not left */
    register<bit<32>>(AGG_GROUPS * AGG_RX) rx_heard; /* the stall window it was last heard in, ahead of the minimum */
    register<bit<32>>(AGG_GROUPS) g_min;
    register<bit<32>>(AGG_GROUPS) g_atmin;
    register<bit<32>>(AGG_GROUPS) g_active;
    register<bit<24>>(AGG_GROUPS) g_msn;
    register<bit<5>>(AGG_GROUPS) g_credit;
    register<bit<32>>(AGG_GROUPS) g_ackout;
    register<bit<32>>(AGG_GROUPS) g_sentnext;
    register<bit<1>>(AGG_GROUPS) g_retx;          /* the sender retransmitted since the last NAK went on */
    register<bit<1>>(AGG_GROUPS) g_reack;         /* ... since the last ACK went on: one duplicate is re-ACKed */
    register<bit<1>>(AGG_GROUPS) g_nak_has;
    register<bit<32>>(AGG_GROUPS) g_nak_out;      /* the PSN the last NAK passed on named */
    register<bit<48>>(AGG_GROUPS) g_nak_time;     /* ... and when */
    register<bit<1>>(AGG_GROUPS) g_cnp_has;
    register<bit<48>>(AGG_GROUPS) g_cnp_time;     /* when the last CNP went on (us) */
    register<bit<48>>(AGG_GROUPS) g_since;        /* when the minimum last advanced, or data went out after all
                                                     was acknowledged (us) */
    register<bit<32>>(AGG_GROUPS) g_window;       /* the stall clock's window: one more at every start of it */
    register<bit<32>>(AGG_GROUPS) g_heard;        /* active receivers heard from ahead of the minimum in it */
    register<bit<1>>(AGG_GROUPS) g_suspect;       /* the window opened at a stall timeout: it decides */
    register<bit<64>>(AGG_GROUPS) g_config;       /* what the running group was started with (CONFIG's key) */
    register<bit<48>>(1) agg_clock;               /* nonzero: the time (us) instead of the switch's, for replays */
    /* per group, 8 each: drops by reason */
    counter(AGG_GROUPS * 8, CounterType.packets) agg_drops;
    counter(AGG_GROUPS, CounterType.packets) agg_acks_in;
    counter(AGG_GROUPS, CounterType.packets) agg_acks_out;
    counter(AGG_GROUPS, CounterType.packets) agg_naks_in;
    counter(AGG_GROUPS, CounterType.packets) agg_naks_out;
    counter(AGG_GROUPS, CounterType.packets) agg_cnps_in;
    counter(AGG_GROUPS, CounterType.packets) agg_stalls;
    counter(AGG_GROUPS, CounterType.packets) agg_common_stalls;
    counter(1, CounterType.packets) agg_forged;   /* control frames from a port other than the CPU's */

    action vp_group(bit<32> g, bit<1> sees_data, bit<32> vp_ip, bit<32> sender_ip, bit<24> sender_qpn,
                    bit<48> sender_mac, bit<48> vp_mac, bit<9> sender_port, bit<48> cnp_us, bit<48> stall_us,
                    bit<48> holdoff_us) {
        m.vp = 1;
        m.g = g;
        m.sees_data = sees_data;
        m.vp_ip = vp_ip;
        m.sender_ip = sender_ip;
        m.sender_qpn = sender_qpn;
        m.sender_mac = sender_mac;
        m.vp_mac = vp_mac;
        m.sender_port = sender_port;
        m.cnp_us = cnp_us;
        m.stall_us = stall_us;
        m.holdoff_us = holdoff_us;
    }
    /* a group by its virtual peer's address (the packets), and by its index (the control frames) */
    table agg_vp {
        key = { hdr.in4.dst: exact @name("vp"); }
        actions = { vp_group; NoAction; }
        default_action = NoAction;
        size = AGG_GROUPS;
    }
    table agg_group {
        key = { hdr.ctl.group: exact @name("group"); }
        actions = { vp_group; NoAction; }
        default_action = NoAction;
        size = AGG_GROUPS;
    }
    action member(bit<32> slot) { m.i = m.g * AGG_RX + slot; }
    action stranger() { agg_drops.count(m.g * 8 + DROP_NON_MEMBER); mark_to_drop(sm); }
    table agg_member {
        key = { m.g: exact @name("group"); hdr.in4.src: exact @name("src"); hdr.bth.dqpn: exact @name("qpn"); }
        actions = { member; stranger; }
        default_action = stranger();
        size = AGG_GROUPS * AGG_RX;
    }

    /* the RoCEv2 ICRC: CRC-32 over 8 bytes of ones, the IPv4 header with TOS, TTL and checksum all ones, the UDP
       header with its checksum all ones, the BTH with its reserved byte all ones, and what follows (IBA A17.4.2) */
    action icrc_ack() {
        hash(m.crc, HashAlgorithm.crc32, 32w0,
             { 64w0xFFFFFFFFFFFFFFFF, hdr.in4.version, hdr.in4.ihl, 8w0xFF, hdr.in4.len, hdr.in4.id, hdr.in4.frag, 8w0xFF,
               hdr.in4.proto, 16w0xFFFF, hdr.in4.src, hdr.in4.dst, hdr.udp.sport, hdr.udp.dport, hdr.udp.len,
               16w0xFFFF, hdr.bth.opcode, hdr.bth.flags, hdr.bth.pkey, 8w0xFF, hdr.bth.dqpn, hdr.bth.ack,
               hdr.bth.psn, hdr.aeth.syndrome, hdr.aeth.msn }, 64w0x100000000);
    }
    action icrc_cnp() {
        hash(m.crc, HashAlgorithm.crc32, 32w0,
             { 64w0xFFFFFFFFFFFFFFFF, hdr.in4.version, hdr.in4.ihl, 8w0xFF, hdr.in4.len, hdr.in4.id, hdr.in4.frag, 8w0xFF,
               hdr.in4.proto, 16w0xFFFF, hdr.in4.src, hdr.in4.dst, hdr.udp.sport, hdr.udp.dport, hdr.udp.len,
               16w0xFFFF, hdr.bth.opcode, hdr.bth.flags, hdr.bth.pkey, 8w0xFF, hdr.bth.dqpn, hdr.bth.ack,
               hdr.bth.psn, hdr.cnp.resv }, 64w0x100000000);
    }

    apply {
        bit<48> now = sm.ingress_global_timestamp;
        bit<32> win = 0;        /* RESTART_CLOCK, HEARD and UNHEARD's */
        bit<32> hw = 0;
        bit<32> hn = 0;
        bit<48> clock = 0;
        agg_clock.read(clock, 0);
        if (clock != 0) { now = clock; }
        /* ---------------------------------------------------------------- which group, and whose packet */
        if (hdr.ctl.isValid()) {
            if (sm.ingress_port != CPU_PORT) {   /* only the controller operates on groups */
                agg_forged.count(0);
                mark_to_drop(sm);
                return;
            }
            agg_group.apply();
            if (m.vp == 0 || hdr.ctl.slot >= AGG_RX) { mark_to_drop(sm); return; }
            m.i = m.g * AGG_RX + (bit<32>)hdr.ctl.slot;
        } else {
            /* not a group this switch aggregates: the includer decides what becomes of it */
            if (!hdr.bth.isValid() || !hdr.in4.isValid()) { return; }
            agg_vp.apply();
            if (m.vp == 0) { return; }
            if (hdr.bth.opcode != OP_ACK && hdr.bth.opcode != OP_CNP) {
                if (hdr.in4.src != m.sender_ip || sm.ingress_port != m.sender_port) { return; }
                /* the sender's data: the next PSN to send follows it; a PSN behind it is a retransmission */
                bit<32> sent = 0;
                bit<32> p = 0;
                g_sentnext.read(sent, m.g);
                EXTEND(p, hdr.bth.psn, sent)
                if (!AFTER(sent, p)) {
                    bit<32> dmin = 0;
                    bit<32> dactive = 0;
                    g_min.read(dmin, m.g);
                    g_active.read(dactive, m.g);
                    /* everything was acknowledged: the stall clock starts with this packet */
                    if (dactive > 0 && dmin == sent - 1) { RESTART_CLOCK }
                    g_sentnext.write(m.g, p + 1);
                } else {
                    g_retx.write(m.g, 1);       /* a new NAK round, and one re-ACK */
                    g_reack.write(m.g, 1);
                }
                return;         /* the data goes on: the includer replicates it */
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
            bit<1> member_on = 0;
            rx_on.read(member_on, m.i);
            if (member_on == 0) {                /* left or stalled: no longer a member */
                agg_drops.count(m.g * 8 + DROP_NON_MEMBER);
                mark_to_drop(sm);
                return;
            }
        }
        mark_to_drop(sm);       /* what does not leave below is consumed */
        m.agg_out = 1;
        /* ---------------------------------------------------------------- CNPs */
        if (hdr.cnp.isValid()) {
            agg_cnps_in.count(m.g);
            bit<1> has = 0;
            bit<48> last = 0;
            g_cnp_has.read(has, m.g);
            g_cnp_time.read(last, m.g);
            if (has == 1 && now - last < m.cnp_us) {
                agg_drops.count(m.g * 8 + DROP_CNP_RATE);
                return;
            }
            g_cnp_has.write(m.g, 1);
            g_cnp_time.write(m.g, now);
            TO_SENDER
            icrc_cnp();
            hdr.icrc.v = m.crc[7:0] ++ m.crc[15:8] ++ m.crc[23:16] ++ m.crc[31:24];
            return;
        }
        /* ---------------------------------------------------------------- the group's state */
        bit<32> sent = 0;
        bit<32> min = 0;
        bit<32> atmin = 0;
        bit<32> active = 0;
        bit<32> ackout = 0;
        bit<24> gmsn = 0;
        bit<5> gcredit = 0;
        bit<48> since = 0;
        bit<32> old = 0;
        bit<1> on = 0;
        g_sentnext.read(sent, m.g);
        g_min.read(min, m.g);
        g_atmin.read(atmin, m.g);
        g_active.read(active, m.g);
        g_ackout.read(ackout, m.g);
        g_msn.read(gmsn, m.g);
        g_credit.read(gcredit, m.g);
        g_since.read(since, m.g);
        rx_acked.read(old, m.i);
        rx_on.read(on, m.i);
        bit<128> bit_i = 128w1 << (bit<8>)(m.i - m.g * AGG_RX);
        bit<1> rescan = 0;      /* the minimum is found again over the group's receivers */
        bit<1> advanced = 0;    /* ... and an ACK goes on if it advanced (a receiver left, stalled or moved) */
        bit<3> kind = 0;        /* 0: ACK, 1: receiver not ready, 3: NAK; 7: a control frame */
        bit<1> is_nak = 0;
        bit<1> hear = 0;        /* a member's ACK or NAK: ahead of the minimum at the end, it was heard from */
        bit<32> heard_psn = 0;
        if (hdr.ctl.isValid()) {
            kind = 7;
            if (hdr.ctl.op == CTL_CONFIG) {
                /* a group starts at its sender's first PSN, with no receiver; the same CONFIG again (a controller
                   that restarted, or saw the switch reconnect, without the switch losing its registers) changes
                   nothing: the transfer goes on where it is */
                bit<64> running = 0;
                g_config.read(running, m.g);
                if (hdr.ctl.key != 0 && running == hdr.ctl.key) { return; }
                g_config.write(m.g, hdr.ctl.key);
                bit<32> start = 8w0 ++ hdr.ctl.psn[23:0];
                g_sentnext.write(m.g, start);
                g_ackout.write(m.g, start - 1);
                g_min.write(m.g, start - 1);
                g_atmin.write(m.g, 0);
                g_active.write(m.g, 0);
                g_msn.write(m.g, 0);
                g_credit.write(m.g, 0);
                RESTART_CLOCK
                g_retx.write(m.g, 0);
                g_reack.write(m.g, 0);
                g_nak_has.write(m.g, 0);
                g_cnp_has.write(m.g, 0);
                bit<32> base = m.g * AGG_RX;
#define OFF(S) rx_on.write(base + (S), 0);
                ALL_SLOTS(OFF)
                return;
            } else if (hdr.ctl.op == CTL_JOIN || hdr.ctl.op == CTL_JOIN_NOW) {
                /* a receiver holds the minimum from its join PSN (JOIN: the controller checked it, from the PSN
                   after the aggregated one to the next PSN to send; JOIN_NOW, a receiver added to a running group:
                   the next PSN to send, which the controller cannot know, sent back to it as a JOINED report) */
                bit<32> join = 0;
                bit<32> next = ackout + 1;
                EXTEND(join, hdr.ctl.psn[23:0], next)
                if (hdr.ctl.op == CTL_JOIN_NOW) {
                    join = sent;
                    if (AFTER(next, sent)) { join = next; }
                    hdr.ctl.op = CTL_JOINED;
                    hdr.ctl.stalled = 0;
                    sm.egress_spec = CPU_PORT;
                    if (on == 1) {
                        /* asked again (the report was lost): the receiver acknowledges nothing before it is told
                           its PSN, so the one after what it holds is the one it joined at */
                        hdr.ctl.psn = 8w0 ++ (old + 1)[23:0];
                        return;
                    }
                    hdr.ctl.psn = 8w0 ++ join[23:0];
                } else if (on == 1) {
                    return;     /* joined already (the JOINs after a CONFIG that changed nothing) */
                }
                rx_acked.write(m.i, join - 1);
                rx_key.write(m.i, hdr.ctl.key[55:0]);
                rx_msn.write(m.i, gmsn);
                rx_credit.write(m.i, gcredit);
                rx_on.write(m.i, 1);
                g_window.read(win, m.g);
                rx_heard.write(m.i, win - 1);
                if (active == 0) {
                    g_min.write(m.g, join - 1);
                    g_atmin.write(m.g, 1);
                    RESTART_CLOCK
                } else if (join - 1 == min) {
                    g_atmin.write(m.g, atmin + 1);
                }
                g_active.write(m.g, active + 1);
                return;
            } else if (hdr.ctl.op == CTL_LEAVE || hdr.ctl.op == CTL_EVICT) {
                /* the controller evicts (it found the receiver unreachable) only while another is active */
                if (on == 0 || hdr.ctl.op == CTL_EVICT && active <= 1) { return; }
                UNHEARD
                rx_on.write(m.i, 0);
                active = active - 1;
                if (hdr.ctl.op == CTL_EVICT) { m.stalled = bit_i; agg_stalls.count(m.g); }
                if (old == min) {
                    atmin = atmin - 1;
                    if (atmin == 0) { rescan = 1; advanced = 1; }
                }
            } else if (hdr.ctl.op == CTL_TICK) {
                /* the stall rule: the minimum stood still for the stall time with data unacknowledged */
                bit<1> suspect = 0;
                bit<32> heard = 0;
                g_suspect.read(suspect, m.g);
                g_heard.read(heard, m.g);
                /* data unacknowledged; without the data in sight, as far as ACKs ahead tell */
                bit<1> outstanding = 0;
                if (AFTER(sent - 1, min) && (m.sees_data == 1 || AFTER(sent - 1, ackout))) { outstanding = 1; }
                if (active == 0 || outstanding == 0 || now - since < m.stall_us) { return; }
                if (suspect == 0 || (heard << 1) <= active) {
                    /* the first timeout of a stall, or half of the receivers or more not heard from ahead of the
                       minimum in the window since (a cut between the sender and them looks just so): a stall
                       they share, which the sender's retransmission recovers; a new window decides at the next
                       timeout */
                    agg_common_stalls.count(m.g);
                    RESTART_CLOCK
                    g_suspect.write(m.g, 1);
                    return;
                }
                /* the receivers at the minimum lag alone behind more than half of the group: they no longer hold
                   it back (none of them was heard from ahead of it: nothing to take off the window's count) */
                bit<32> base = m.g * AGG_RX;
                bit<32> a = 0;
                bit<1> o = 0;
#define STALL(S) \
                rx_on.read(o, base + (S)); \
                rx_acked.read(a, base + (S)); \
                if (o == 1 && a == min) { \
                    rx_on.write(base + (S), 0); \
                    active = active - 1; \
                    m.stalled = m.stalled | (128w1 << (S)); \
                    agg_stalls.count(m.g); \
                }
                ALL_SLOTS(STALL)
                atmin = 0;
                rescan = 1;
                advanced = 1;
            } else {
                return;
            }
            g_active.write(m.g, active);
            g_atmin.write(m.g, atmin);
        } else {
            kind = hdr.aeth.syndrome[7:5];
            if (kind != 0) { is_nak = 1; }
            bit<1> fatal = 0;
            if (kind == 3 && hdr.aeth.syndrome[4:0] != 0) { fatal = 1; }
            if (kind == 0) { agg_acks_in.count(m.g); } else { agg_naks_in.count(m.g); }
            if (fatal == 1 && active > 1) {
                /* an access or operational error: the receiver's QP is broken, the sender's must not be */
                UNHEARD
                rx_on.write(m.i, 0);
                active = active - 1;
                m.stalled = bit_i;
                agg_stalls.count(m.g);
                if (old == min) {
                    atmin = atmin - 1;
                    if (atmin == 0) { rescan = 1; advanced = 1; }
                }
                g_active.write(m.g, active);
                g_atmin.write(m.g, atmin);
                kind = 7;                        /* no longer a NAK to pass on */
                is_nak = 0;
            } else {
                /* where the data is in sight, the PSN is placed against what was sent; otherwise against what the
                   receiver acknowledged (a NAK: the PSN after it) */
                bit<32> ref = sent;
                if (m.sees_data == 0) { ref = old; if (kind != 0) { ref = old + 1; } }
                bit<32> p = 0;
                EXTEND(p, hdr.bth.psn, ref)
                /* an ACK for the next PSN to send or beyond it, as far as 24 bits tell; a NAK that expects it */
                if (m.sees_data == 1 && !AFTER(sent, p)) {
                    agg_drops.count(m.g * 8 + DROP_BEYOND_SENT);
                    return;
                }
                bit<1> adv = 0;
                bit<32> np = 0;
                bit<5> ncredit = 0;
                if (kind == 0) {
                    if (!AFTER(p, old)) {
                        /* a duplicate or reordered ACK moves nothing back; after a retransmission one goes on
                           as a re-ACK of what the sender holds */
                        if (AFTER(old, min)) { HEARD }
                        bit<1> reack = 0;
                        g_reack.read(reack, m.g);
                        if (reack == 1) {
                            g_reack.write(m.g, 0);
                            TO_SENDER
                            ACK_OUT(ackout, gmsn, 3w0 ++ gcredit)
                        }
                        return;
                    }
                    adv = 1;
                    np = p;
                    ncredit = hdr.aeth.syndrome[4:0];
                } else if (kind == 3 && AFTER(p - 1, old)) {
                    /* a sequence error acknowledges everything before the PSN it expects */
                    adv = 1;
                    np = p - 1;
                    rx_credit.read(ncredit, m.i);
                } else {
                    np = old;
                }
                if (adv == 1) {
                    rx_acked.write(m.i, np);
                    rx_msn.write(m.i, hdr.aeth.msn);
                    rx_credit.write(m.i, ncredit);
                    if (m.sees_data == 0 && !AFTER(sent, np)) {
                        /* without the data in sight an ACK ahead is taken as given; if everything was
                           acknowledged alike, the stall clock starts with this first receiver ahead */
                        if (sent - 1 == min) { RESTART_CLOCK }
                        g_sentnext.write(m.g, np + 1);
                    }
                    if (old == min) {
                        atmin = atmin - 1;
                        g_atmin.write(m.g, atmin);
                        if (atmin == 0) { rescan = 1; }
                    }
                }
                /* heard from: once the minimum and the clock are where this packet leaves them (below) */
                hear = 1;
                heard_psn = np;
            }
        }
        /* ---------------------------------------------------------------- the minimum, found again */
        bit<1> found = 0;
        if (rescan == 1) {
            bit<32> base = m.g * AGG_RX;
            bit<32> nmin = 0;
            bit<32> n = 0;
            bit<56> hkey = 56w0xFFFFFFFFFFFFFF;
            bit<24> hmsn = 0;
            bit<5> hcredit = 0;
            bit<32> a = 0;
            bit<1> o = 0;
            bit<56> k = 0;
            bit<24> ms = 0;
            bit<5> cr = 0;
#define SCAN(S) \
            rx_on.read(o, base + (S)); \
            if (o == 1) { \
                rx_acked.read(a, base + (S)); \
                rx_key.read(k, base + (S)); \
                rx_msn.read(ms, base + (S)); \
                rx_credit.read(cr, base + (S)); \
                if (found == 0 || AFTER(nmin, a)) { nmin = a; n = 1; hkey = k; hmsn = ms; hcredit = cr; found = 1; } \
                else if (a == nmin) { n = n + 1; if (k < hkey) { hkey = k; hmsn = ms; hcredit = cr; } } \
            }
            ALL_SLOTS(SCAN)
            if (found == 1) {
                if (AFTER(nmin, min)) { RESTART_CLOCK }
                min = nmin;
                gmsn = hmsn;
                gcredit = hcredit;
                g_min.write(m.g, nmin);
                g_atmin.write(m.g, n);
                g_msn.write(m.g, hmsn);
                g_credit.write(m.g, hcredit);
            }
        }
        /* ---------------------------------------------------------------- what goes on to the sender */
        if (kind == 0 || advanced == 1) {
            /* one aggregated ACK per advance of the minimum, never beyond it */
            if (found == 1 && AFTER(min, ackout)) {
                g_ackout.write(m.g, min);
                g_reack.write(m.g, 0);
                agg_acks_out.count(m.g);
                if (hdr.ctl.isValid()) { AS_ACK }
                TO_SENDER
                ACK_OUT(min, gmsn, 3w0 ++ gcredit)
            } else if (advanced == 1) {
                RESTART_CLOCK
            }
        } else if (is_nak == 1) {
            /* a NAK goes on at once with the PSN after the minimum, once per PSN per retransmission round */
            bit<32> resend = min + 1;
            bit<1> nak_has = 0;
            bit<32> nak_out = 0;
            bit<1> retx = 0;
            bit<48> nak_time = 0;
            g_nak_has.read(nak_has, m.g);
            g_nak_out.read(nak_out, m.g);
            g_retx.read(retx, m.g);
            g_nak_time.read(nak_time, m.g);
            /* a new round: the sender retransmitted; without the data in sight, the hold-off passed */
            bit<1> round = retx;
            if (m.sees_data == 0 && now - nak_time >= m.holdoff_us) { round = 1; }
            if (nak_has == 1 && resend == nak_out && round == 0) {
                agg_drops.count(m.g * 8 + DROP_NAK_REPEATED);
            } else {
                g_nak_has.write(m.g, 1);
                g_nak_out.write(m.g, resend);
                g_nak_time.write(m.g, now);
                g_retx.write(m.g, 0);
                if (AFTER(min, ackout)) { g_ackout.write(m.g, min); RESTART_CLOCK }
                agg_naks_out.count(m.g);
                /* the last receiver's fatal NAK reaches the sender as it is: the transfer cannot go on */
                bit<8> syndrome = 0x60;
                if (kind == 1 || hdr.aeth.syndrome[4:0] != 0 && kind == 3) { syndrome = hdr.aeth.syndrome; }
                TO_SENDER
                ACK_OUT(resend, gmsn, syndrome)
            }
        }
        /* ---------------------------------------------------------------- heard from ahead of the minimum */
        if (hear == 1 && AFTER(heard_psn, min)) { HEARD }
        /* ---------------------------------------------------------------- the receivers it stalled */
        if (m.stalled != 0) {
            if (m.emit == 1) {
                clone_preserving_field_list(CloneType.I2E, CLONE_TO_CPU, AGG_LIST);
            } else {
                REPORT
                sm.egress_spec = CPU_PORT;
            }
        }
    }
}

