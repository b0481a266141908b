/*
 * ACK aggregation in the source leaf's registers (agg_control.p4): its headers, its metadata and its numbers, for
 * mcast4ai.p4 to include before its own headers_t and meta_t.
 *
 * The control frames come from the controller through the CPU port (with the packet_out header, whose port is not
 * read), Ethernet type ETH_AGG_CTL, the header ctl_t: an operation on one receiver slot of one group. The switch's
 * reports of the receivers a packet stalled go to the CPU port the same way (op CTL_STALLED, with packet_in).
 */
#ifndef AGG_GROUPS
#define AGG_GROUPS 64
#endif
#ifndef AGG_RX
#define AGG_RX 128                 /* receivers per group (32 or 128): the scan that finds the minimum again reads
                                      each once */
#endif
/* a statement for every receiver slot of a group, unrolled */
#define R8(M, B) M((B)) M((B) + 1) M((B) + 2) M((B) + 3) M((B) + 4) M((B) + 5) M((B) + 6) M((B) + 7)
#define R32(M, B) R8(M, (B)) R8(M, (B) + 8) R8(M, (B) + 16) R8(M, (B) + 24)
#if AGG_RX == 32
#define ALL_SLOTS(M) R32(M, 0)
#elif AGG_RX == 128
#define ALL_SLOTS(M) R32(M, 0) R32(M, 32) R32(M, 64) R32(M, 96)
#else
#error "AGG_RX: 32 or 128"
#endif
#define OP_ACK 0x11
#define OP_CNP 0x81
#define ETH_AGG_CTL 0x88B6         /* the controller's control frames and the switch's reports */
#define CLONE_TO_CPU 511           /* the clone session the controller maps to the CPU port (ONOS: a CLONE group) */
#define AGG_LIST 2                 /* the field list a report's clone keeps */

/* control frame operations (the eBPF agent's numbers) and the report */
#define CTL_CONFIG 1
#define CTL_JOIN 2
#define CTL_LEAVE 3
#define CTL_TICK 4
#define CTL_EVICT 5
#define CTL_STALLED 6
#define CTL_JOIN_NOW 7             /* JOIN at the PSN the switch picks: the next one the sender sends */
#define CTL_JOINED 8               /* the report of it: the PSN the receiver joined at */

/* drop reasons, the index within a group's row of agg_drops (the Java specification's AggregationOutput.Drop) */
#define DROP_NON_MEMBER 1
#define DROP_BEYOND_SENT 2
#define DROP_NAK_REPEATED 3
#define DROP_CNP_RATE 4
#define DROP_BAD_ICRC 6
#define DROP_MALFORMED 7

/* from the CPU port: an operation on a group's receiver (its slot; JOIN: its first PSN and key); to it: the
   receivers a packet stalled (one bit per slot, slot 0 the least significant), or the PSN a JOIN_NOW joined at */
header ctl_t { bit<8> op; bit<8> slot; bit<16> pad; bit<32> group; bit<32> psn; bit<64> key; bit<128> stalled; }
header aeth_t { bit<8> syndrome; bit<24> msn; }
header cnp_t { bit<128> resv; }

/* the aggregator's fields of meta_t */
#define AGG_META \
    @field_list(AGG_LIST) bit<32> g;   /* the group's index */ \
    bit<32> i;                 /* the receiver's flat index */ \
    bit<1> vp;                 /* a group's packet: this switch aggregates its virtual peer */ \
    bit<1> sees_data; \
    bit<32> vp_ip; \
    bit<32> sender_ip; \
    bit<24> sender_qpn; \
    bit<48> sender_mac; \
    bit<48> vp_mac; \
    bit<9> sender_port; \
    bit<48> cnp_us;            /* at most one CNP to the sender per this many microseconds */ \
    bit<48> stall_us;          /* the minimum may stand still this long with data unacknowledged */ \
    bit<48> holdoff_us;        /* without the data in sight: a NAK for the same PSN is not repeated this long */ \
    bit<32> crc; \
    bit<1> emit;               /* the packet leaves to the sender */ \
    @field_list(AGG_LIST) bit<1> agg_out;   /* the aggregator consumed the packet: what leaves is its own */ \
    @field_list(AGG_LIST) bit<128> stalled; /* the slots this packet stalled */
