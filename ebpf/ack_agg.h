/* Shared by the ACK-aggregation program and its agent: map layouts and control frames. */
#ifndef MCAST4AI_ACK_AGG_H
#define MCAST4AI_ACK_AGG_H

#include <linux/types.h>

#define AGG_MAX_GROUPS 64
#define AGG_CHUNK 32             /* receivers per chunk: a chunk keeps its own minimum */
#ifndef AGG_CHUNKS
#define AGG_CHUNKS 32            /* chunks per group (power of two, at most 32: a group keeps a mask of them) */
#endif
#define AGG_MAX_RX (AGG_CHUNK * AGG_CHUNKS)
#define AGG_EVENTS 64            /* event ring per group (power of two) */
#define AGG_CTRL_ETHERTYPE 0x88B5 /* IEEE local experimental: the agent's control frames */

enum agg_ctrl_op { AGG_CONFIG = 1, AGG_JOIN = 2, AGG_LEAVE = 3, AGG_TICK = 4, AGG_EVICT = 5 };
enum agg_event {
	AGG_EV_NON_MEMBER = 1, AGG_EV_BEYOND_SENT = 2, AGG_EV_NAK_REPEATED = 3, AGG_EV_CNP_RATE = 4,
	AGG_EV_STALLED = 5, AGG_EV_BAD_ICRC = 6
};

/* A control frame's payload after the Ethernet header (network byte order where noted). */
struct agg_ctrl {
	__u8 op;
	__u8 sees_data;
	__u16 pad;
	__u32 group;          /* group index */
	__u64 token;          /* the agent's secret, set by the first CONFIG of the group */
	__u32 ip;             /* JOIN/LEAVE/EVICT: receiver (be); CONFIG: the VP's address (be), its low bits the group */
	__u32 qpn;            /* JOIN/LEAVE/EVICT: the QPN the receiver's ACKs name, its slot modulo AGG_MAX_RX */
	__u32 psn;            /* JOIN: join PSN; CONFIG: start PSN */
	__u32 sender_ip;      /* CONFIG (be) */
	__u32 sender_qpn;     /* CONFIG */
	__u8 sender_mac[6];   /* CONFIG */
	__u8 vp_mac[6];       /* CONFIG */
	__u64 stall_ns;       /* CONFIG */
	__u64 cnp_interval_ns;/* CONFIG */
	__u64 nak_holdoff_ns; /* CONFIG */
	__u32 group_ip;       /* CONFIG (be): the sender's data to the VP leaves addressed to the group; 0 keeps it */
} __attribute__((packed));

struct agg_rx {
	__s64 acked;          /* extended PSN acknowledged */
	__u32 ip;             /* be */
	__u32 qpn;
	__u32 msn;
	__u8 used;            /* used and stalled side by side: the scans test both with one load (rx_live) */
	__u8 stalled;
	__u8 credit;
	__u8 pad;
	__u32 heard_in;       /* the stall window it was last counted in as heard from ahead of the minimum */
};

/* the minimum of one chunk's active receivers, and how many are at it */
struct agg_chunk {
	__s64 min;
	__u64 holder_key;     /* of the receivers at the minimum, the lowest key (IP << 24 | QPN) */
	__u32 holder;         /* its slot */
	__u32 at_min;
	__u32 active;
	__u32 msn;            /* the holder's */
	__u32 credit;
	__u32 pad;
};

struct agg_event_rec {
	__u32 type;
	__u32 slot;
};

struct agg_events {
	__u32 head;
	__u32 pad;
	struct agg_event_rec ev[AGG_EVENTS];
};

struct agg_counters {
	__u64 acks_in, acks_out, naks_in, naks_out, cnps_in, cnps_out, stalls;
	__u64 drops[8];
	__u64 reacks;         /* ACKs repeated to the sender after a retransmission (acks_out: one per advance) */
	__u64 common_stalls;  /* stall timeouts that evicted nobody: the first of a stall, or one many share */
};

struct agg_group {
	struct bpf_spin_lock lock;
	__u32 configured;
	__u64 token;
	__u32 sender_ip, sender_qpn, vp_ip, vp_qpn;
	__u8 sender_mac[6], vp_mac[6];
	__u8 sees_data, retransmitted, reack, pad0;
	__u32 count;          /* slots ever used are below this */
	__u32 active;
	__u32 at_min;
	__u32 min_msn;
	__u32 min_credit;
	__u64 stall_ns, cnp_interval_ns, nak_holdoff_ns;
	__u32 icrc_ack_prefix; /* the CRC of an ACK for the sender up to its PSN (the group's constant part) */
	__u32 group_ip;       /* be; 0: data to the VP is passed as it is */
	__s64 sent_next, ack_out, min, nak_out;
	__u64 min_since, nak_out_ns, cnp_out_ns;
	__u32 window;         /* the stall clock's window: one more at every start of the clock */
	__u32 heard_ahead;    /* active receivers heard from ahead of the minimum in this window */
	__u32 chunks_live;    /* bit i: chunk i has an active receiver */
	__u8 has_nak_out, has_cnp_out, suspect, pad1[5]; /* suspect: the window opened at a stall timeout */
	struct agg_counters c;
	struct agg_chunk chunk[AGG_CHUNKS];
	struct agg_rx rx[AGG_MAX_RX];
};

#endif
