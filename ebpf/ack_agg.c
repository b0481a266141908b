// SPDX-License-Identifier: GPL-2.0
/*
 * mcast4ai ACK aggregation beside an RC sender: a TC program on the sender's interface (both directions).
 * It implements the specification of org.mcast4ai.engine.reliable.AckAggregator rule for rule and passes the
 * same known-answer vectors (models/reliable/ack-aggregation.json):
 *   - the sender's data to a group's virtual peer (VP) advances the PSN sent; a PSN sent again opens a new
 *     NAK round and arms one re-ACK;
 *   - receivers' ACKs, NAKs and CNPs to the VP are consumed: the minimum acknowledged PSN over the group's
 *     receivers (24-bit serial arithmetic, extended to 64 bits) goes to the sender as one ACK per advance,
 *     NAKs as the PSN after the minimum once per round, CNPs at most once per interval; damaged ones (ICRC),
 *     strangers and ACKs beyond the PSN sent are dropped and counted;
 *   - the stall check evicts receivers at the minimum only when they lag alone: the first stall timeout opens
 *     a window, and at the next one more than half of the active receivers were heard from ahead of the
 *     minimum in it; a stall many share (a partition with a receiver on the sender's side still acknowledging
 *     is one) is counted and left to the sender's retransmission;
 *   - the agent's control frames (EtherType 0x88B5, accepted only through BPF_PROG_RUN on loopback and
 *     with the group's token) configure a group, add, remove and evict receivers and run the stall check.
 * A packet for the sender is written in place: Ethernet/IPv4/UDP/BTH/AETH from the VP to the sender, IPv4
 * checksum and RoCEv2 ICRC computed.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "roce.h"
#include "ack_agg.h"

/* What the program does not pass on (consumed ACKs, drops, control frames) it takes as STOLEN, not SHOT: on a
 * port's egress a SHOT fails the sender's transmit call (an AF_PACKET sendmmsg, as Open vSwitch's userspace
 * datapath sends, then gives up on the rest of its batch), while STOLEN reports success. Its own counters say
 * why each packet went. */
#define AGG_CONSUMED TC_ACT_STOLEN

#define PSN_MASK 0xFFFFFFLL
#define PSN_HALF 0x800000LL
#define PSN_MOD 0x1000000LL
#define OP_ACK 0x11
#define OP_CNP 0x81
#define OP_LAST_REQUEST 0x0C
#define SYN_KIND 0xE0
#define SYN_RNR 0x20
#define SYN_NAK 0x60
#define NAK_SEQUENCE 0x60
#define ACK_FRAME 62   /* Ethernet 14, IPv4 20, UDP 8, BTH 12, AETH 4, ICRC 4 */
#define CNP_FRAME 74   /* ... BTH 12, 16 reserved, ICRC 4 */
#define LOOPBACK_IFINDEX 1

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, AGG_MAX_GROUPS);
	__type(key, __u32);
	__type(value, struct agg_group);
} agg_groups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, AGG_MAX_GROUPS);
	__type(key, __u32);
	__type(value, struct agg_events);
} agg_events SEC(".maps");

/* a fixed clock for tests; 0: the kernel's */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} agg_clock SEC(".maps");

enum emit_kind { EMIT_NONE, EMIT_ACK, EMIT_NAK, EMIT_CNP };

struct emit {
	__u32 kind;
	__u32 psn;
	__u32 msn;
	__u32 syndrome;
};

static __always_inline __u64 now_ns(void)
{
	__u32 k = 0;
	__u64 *c = bpf_map_lookup_elem(&agg_clock, &k);

	return c && *c ? *c : bpf_ktime_get_ns();
}

static __always_inline __s64 extend(__u32 wire, __s64 ref)
{
	__s64 d = ((__s64)wire - ref) & PSN_MASK;

	if (d >= PSN_HALF)
		d -= PSN_MOD;
	return ref + d;
}

static __always_inline void event(struct agg_events *ev, __u32 type, __u32 slot)
{
	__u32 h = ev->head++;

	ev->ev[h & (AGG_EVENTS - 1)].type = type;
	ev->ev[h & (AGG_EVENTS - 1)].slot = slot;
}

static __always_inline void drop(struct agg_group *g, struct agg_events *ev, __u32 why)
{
	g->c.drops[why & 7]++;
	event(ev, why, 0);
}

enum in_kind { IN_DATA, IN_ACK, IN_NAK, IN_CNP, IN_NON_MEMBER, IN_JOIN, IN_LEAVE, IN_TICK, IN_EVICT, IN_BAD_ICRC };
#define TICK_AGAIN 1   /* step(): the stall check has more chunks to do */
enum post { POST_NONE, POST_ACK_IF_ADVANCED, POST_MIN_ADVANCED, POST_NAK };

/* one input, decoded before the group's lock is taken */
struct input {
	__u32 kind;
	__u32 slot;
	__u32 psn;
	__u32 msn;
	__u32 credit;
	__u32 syndrome;
	__u32 ip;
	__u32 qpn;
	__u32 heard;          /* an ACK or NAK its receiver sent that counts as an answer (not dropped as beyond) */
};

static __always_inline __u64 rx_key(struct agg_rx *r)
{
	return (__u64)bpf_ntohl(r->ip) << 24 | (r->qpn & PSN_MASK);
}

/* used and not stalled, with one load of the two bytes */
static __always_inline int rx_live(const struct agg_rx *r)
{
	__u16 v;

	__builtin_memcpy(&v, &r->used, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return v == 0x0001;
#else
	return v == 0x0100;
#endif
}

/* A chunk's minimum found again over its receivers (at most AGG_CHUNK), with its holder: of the receivers at the
 * minimum, the one with the lowest key, as the specification has it. The ACK that advances the minimum pays for
 * this loop, so a receiver ahead of the minimum so far costs one load of its state and one of its PSN; its key is
 * built only when it ties or undercuts. */
static __attribute__((noinline)) void rescan_chunk(struct agg_group *g, __u32 ci)
{
	struct agg_chunk *c;
	__s64 m = 0x7FFFFFFFFFFFFFFFLL;
	__u64 hkey = ~0ULL;
	/* the holder's values rather than an index into the receivers: an index used for a load would be a
	 * precise value per iteration and the verifier would walk the loop once per possible holder */
	__u32 n = 0, msn = 0, credit = 0, hslot = 0, j;

	if (!g)
		return;
	ci &= AGG_CHUNKS - 1;
	for (j = 0; j < AGG_CHUNK; j++) {
		struct agg_rx *r = &g->rx[(ci * AGG_CHUNK + j) & (AGG_MAX_RX - 1)];
		__s64 a;
		__u64 key;

		if (!rx_live(r))
			continue;
		a = r->acked;
		if (a > m)
			continue;
		key = rx_key(r);
		if (a < m) {
			m = a;
			n = 1;
		} else {
			n++;
			if (key >= hkey)
				continue;
		}
		hkey = key;
		hslot = ci * AGG_CHUNK + j;
		msn = r->msn;
		credit = r->credit;
	}
	c = &g->chunk[ci];
	c->min = m;
	c->at_min = n;
	c->holder_key = hkey;
	c->holder = hslot;
	c->msn = msn;
	c->credit = credit;
}

/* a receiver at acked leaves its chunk's count (it moved on, left or stalled) */
static __always_inline void chunk_drop(struct agg_group *g, __u32 s, __s64 acked)
{
	struct agg_chunk *c = &g->chunk[(s / AGG_CHUNK) & (AGG_CHUNKS - 1)];

	if (acked != c->min || c->at_min == 0)
		return;
	/* the last one at the chunk's minimum, or its holder: the minimum or the holder must be found again */
	if (--c->at_min == 0 || c->holder == s)
		rescan_chunk(g, s / AGG_CHUNK);
}

/* a chunk has one active receiver less; the group's mask of chunks with any keeps the scans off empty ones */
static __always_inline void chunk_less(struct agg_group *g, __u32 s)
{
	__u32 ci = (s / AGG_CHUNK) & (AGG_CHUNKS - 1);
	struct agg_chunk *c = &g->chunk[ci];

	if (c->active > 0 && --c->active == 0)
		g->chunks_live &= ~(1U << ci);
}

static __always_inline void chunk_join(struct agg_group *g, __u32 s, struct agg_rx *r)
{
	__u32 ci = (s / AGG_CHUNK) & (AGG_CHUNKS - 1);
	struct agg_chunk *c = &g->chunk[ci];
	__u64 key = rx_key(r);

	g->chunks_live |= 1U << ci;
	if (c->active++ == 0 || r->acked < c->min) {
		c->min = r->acked;
		c->at_min = 1;
	} else if (r->acked == c->min) {
		c->at_min++;
		if (key >= c->holder_key)
			return;
	} else {
		return;
	}
	c->holder_key = key;
	c->holder = s;
	c->msn = r->msn;
	c->credit = r->credit;
}

/* The stall clock starts again (the minimum advanced, or data went out with everything acknowledged, or a stall
 * timeout passed): a new window, in which no receiver was heard from ahead of the minimum yet. */
static __always_inline void restart_clock(struct agg_group *g, __u64 now)
{
	g->min_since = now;
	g->window++;
	g->heard_ahead = 0;
	g->suspect = 0;
}

/* an active receiver stops counting in the window (it left or stalled) */
static __always_inline void unheard(struct agg_group *g, struct agg_rx *r)
{
	if (r->heard_in == g->window) {
		r->heard_in = g->window - 1;
		if (g->heard_ahead > 0)
			g->heard_ahead--;
	}
}

/* The stall check's work on one chunk: the receivers at the group's minimum in the first chunk that has any are
 * stalled out. 1 if another chunk still has receivers at it (the agent runs the check again: one chunk per run
 * keeps each run within what the verifier walks), else 0. */
static __attribute__((noinline)) int stall_one_chunk(struct agg_group *g, struct agg_events *ev)
{
	__u32 ci = AGG_CHUNKS, i, j;
	__s64 old;

	if (!g || !ev)
		return 0;
	old = g->min;
	for (i = 0; i < AGG_CHUNKS; i++) {
		struct agg_chunk *c = &g->chunk[i];

		if (!(g->chunks_live >> i & 1))
			continue;
		if (c->active && c->at_min && c->min == old) {
			ci = i;
			break;
		}
	}
	if (ci >= AGG_CHUNKS)
		return 0;
	for (j = 0; j < AGG_CHUNK; j++) {
		__u32 s = (ci * AGG_CHUNK + j) & (AGG_MAX_RX - 1);
		struct agg_rx *r = &g->rx[s];

		if (!r->used || r->stalled || r->acked != old)
			continue;
		unheard(g, r);
		r->stalled = 1;
		g->active--;
		if (g->at_min > 0)
			g->at_min--;
		chunk_less(g, s);
		g->c.stalls++;
		event(ev, AGG_EV_STALLED, s);
	}
	rescan_chunk(g, ci);
	for (i = 0; i < AGG_CHUNKS; i++) {
		struct agg_chunk *c = &g->chunk[i];

		if (!(g->chunks_live >> i & 1))
			continue;
		if (c->active && c->at_min && c->min == old)
			return 1;
	}
	return 0;
}

/* Finds the group's minimum again over its chunks' minima. 0 if no receiver is active. */
static __attribute__((noinline)) int scan_min(struct agg_group *g, __u64 now)
{
	__s64 m = 0x7FFFFFFFFFFFFFFFLL;
	__u64 hkey = ~0ULL;
	__u32 n = 0, msn = 0, credit = 0, i;
	int found = 0;

	if (!g)
		return 0;
	for (i = 0; i < AGG_CHUNKS; i++) {
		struct agg_chunk *c = &g->chunk[i];

		/* the mask first: an empty chunk's memory is not read (at N = 32, one chunk of 32) */
		if (!(g->chunks_live >> i & 1))
			continue;
		if (c->active == 0 || c->at_min == 0)
			continue;
		if (c->min < m) {
			m = c->min;
			n = c->at_min;
			found = 1;
		} else if (c->min == m) {
			n += c->at_min;
			if (c->holder_key >= hkey)
				continue;
		} else {
			continue;
		}
		hkey = c->holder_key;
		msn = c->msn;
		credit = c->credit;
	}
	if (!found)
		return 0;
	if (m > g->min)
		restart_clock(g, now);
	g->min = m;
	g->at_min = n;
	g->min_msn = msn;
	g->min_credit = credit;
	return 1;
}

static __always_inline void ack_out(struct agg_group *g, struct emit *e, __s64 psn)
{
	g->c.acks_out++;
	e->kind = EMIT_ACK;
	e->psn = psn & PSN_MASK;
	e->msn = g->min_msn;
	e->syndrome = g->min_credit & 0x1F;
}

/* a receiver moved ahead; 1 if it was the last one at the minimum (the minimum must be found again) */
static __always_inline int advance(struct agg_group *g, __u32 s, __s64 p, __u32 msn, __u32 credit, __u64 now)
{
	struct agg_rx *r = &g->rx[s & (AGG_MAX_RX - 1)];
	__s64 old = r->acked;

	r->acked = p;
	r->msn = msn;
	r->credit = credit;
	if (!g->sees_data && p >= g->sent_next) {
		if (g->sent_next - 1 == g->min)
			restart_clock(g, now);
		g->sent_next = p + 1;
	}
	chunk_drop(g, s, old);
	return old == g->min && g->at_min > 0 && --g->at_min == 0;
}

static __always_inline void stall(struct agg_group *g, struct agg_events *ev, __u32 s)
{
	struct agg_rx *r = &g->rx[s & (AGG_MAX_RX - 1)];

	unheard(g, r);
	r->stalled = 1;
	chunk_less(g, s);
	chunk_drop(g, s, r->acked);
	g->active--;
	g->c.stalls++;
	event(ev, AGG_EV_STALLED, s);
}

/* an ACK: -1 when done, else whether the minimum must be found again */
static __always_inline int on_ack(struct agg_group *g, struct agg_events *ev, struct input *in, __u64 now,
				  struct emit *e)
{
	struct agg_rx *r = &g->rx[in->slot & (AGG_MAX_RX - 1)];
	__s64 p;

	g->c.acks_in++;
	/* with the data in sight, placed against what was sent: whatever 24 bits tell as ahead of it is beyond */
	p = extend(in->psn, g->sees_data ? g->sent_next : r->acked);
	if (g->sees_data && p >= g->sent_next) {
		drop(g, ev, AGG_EV_BEYOND_SENT);
		return -1;
	}
	in->heard = 1;
	if (p <= r->acked) {
		if (g->reack) {
			g->reack = 0;
			ack_out(g, e, g->ack_out);
			g->c.acks_out--;
			g->c.reacks++;
		}
		return -1;
	}
	return advance(g, in->slot, p, in->msn, in->credit, now);
}

/* a NAK's first half: -1 when done, -2 fatal (min_advanced follows if it held the minimum: 1 in *held), else
 * whether the minimum must be found before the NAK is passed on */
static __always_inline int nak_first(struct agg_group *g, struct agg_events *ev, struct input *in, __u64 now,
				     int *held)
{
	struct agg_rx *r = &g->rx[in->slot & (AGG_MAX_RX - 1)];
	__u32 kind = in->syndrome & SYN_KIND;
	__s64 expected;

	g->c.naks_in++;
	expected = extend(in->psn, g->sees_data ? g->sent_next : r->acked + 1);
	if (kind == SYN_NAK && (in->syndrome & 0x1F) != 0 && g->active > 1) {
		/* an access or operational error: the receiver's QP is broken, the sender's must not be (the last
		 * active receiver's reaches the sender: nothing leaves the group without one) */
		*held = r->acked == g->min && g->at_min > 0 && --g->at_min == 0;
		stall(g, ev, in->slot);
		return -2;
	}
	if (g->sees_data && expected >= g->sent_next) {
		drop(g, ev, AGG_EV_BEYOND_SENT);
		return -1;
	}
	in->heard = 1;
	if (kind == SYN_NAK && expected - 1 > r->acked)
		return advance(g, in->slot, expected - 1, in->msn, r->credit, now);
	return 0;
}

/* a NAK's second half, with the minimum current */
static __always_inline void nak_second(struct agg_group *g, struct agg_events *ev, struct input *in, __u64 now,
				       struct emit *e)
{
	__u32 kind = in->syndrome & SYN_KIND;
	__s64 resend = g->min + 1;
	int repeat = g->has_nak_out && resend == g->nak_out
		     && !(g->sees_data ? g->retransmitted : now - g->nak_out_ns >= g->nak_holdoff_ns);

	if (repeat) {
		drop(g, ev, AGG_EV_NAK_REPEATED);
		return;
	}
	g->has_nak_out = 1;
	g->nak_out = resend;
	g->nak_out_ns = now;
	g->retransmitted = 0;
	if (g->min > g->ack_out) {
		g->ack_out = g->min;
		restart_clock(g, now);
	}
	g->c.naks_out++;
	e->kind = EMIT_NAK;
	e->psn = resend & PSN_MASK;
	e->msn = g->min_msn;
	e->syndrome = kind == SYN_RNR || (kind == SYN_NAK && (in->syndrome & 0x1F) != 0) ? in->syndrome : NAK_SEQUENCE;
}

static __always_inline void on_cnp(struct agg_group *g, struct agg_events *ev, __u64 now, struct emit *e)
{
	g->c.cnps_in++;
	if (g->has_cnp_out && now - g->cnp_out_ns < g->cnp_interval_ns) {
		drop(g, ev, AGG_EV_CNP_RATE);
		return;
	}
	g->has_cnp_out = 1;
	g->cnp_out_ns = now;
	g->c.cnps_out++;
	e->kind = EMIT_CNP;
}

static __always_inline void on_data(struct agg_group *g, __u32 psn, __u64 now)
{
	__s64 p = extend(psn, g->sent_next);

	if (p >= g->sent_next) {
		if (g->active > 0 && g->min == g->sent_next - 1)
			restart_clock(g, now);
		g->sent_next = p + 1;
	} else {
		g->retransmitted = 1;
		g->reack = 1;
	}
}

/* a receiver joins at in->psn: its slot in in->slot; -1 if refused */
static __always_inline int on_join(struct agg_group *g, struct input *in, __u64 now)
{
	__s64 join = extend(in->psn, g->ack_out + 1);
	__u32 s;
	struct agg_rx *r;

	if (join < g->ack_out + 1 || (g->sees_data && join > g->sent_next))
		return -1;
	s = in->slot & (AGG_MAX_RX - 1);
	r = &g->rx[s];
	if (r->used)
		return -1;
	if (s >= g->count)
		g->count = s + 1;
	r->used = 1;
	r->stalled = 0;
	r->heard_in = g->window - 1;
	r->acked = join - 1;
	r->ip = in->ip;
	r->qpn = in->qpn;
	r->msn = g->min_msn;
	r->credit = g->min_credit;
	in->slot = s;
	chunk_join(g, s, r);
	if (g->active++ == 0) {
		g->min = join - 1;
		g->at_min = 1;
		restart_clock(g, now);
	} else if (join - 1 == g->min) {
		g->at_min++;
	}
	return 0;
}

/* a receiver leaves: whether it was the last one at the minimum */
static __always_inline int on_leave(struct agg_group *g, struct input *in)
{
	struct agg_rx *r = &g->rx[in->slot & (AGG_MAX_RX - 1)];
	int held;

	if (!r->used)
		return 0;
	held = !r->stalled && r->acked == g->min;
	if (!r->stalled) {
		unheard(g, r);
		g->active--;
		r->used = 0;
		chunk_less(g, in->slot);
		chunk_drop(g, in->slot, r->acked);
	}
	r->used = 0;
	return held && g->at_min > 0 && --g->at_min == 0;
}

/* Everything a group does with one input, under its lock: the specification's rules, with one scan at most. */
static __always_inline int step(struct agg_group *g, struct agg_events *ev, struct input *in, __u64 now,
				struct emit *e)
{
	int scan = 0, post = POST_NONE, r, held = 0;

	switch (in->kind) {
	case IN_DATA:
		on_data(g, in->psn, now);
		return 0;
	case IN_NON_MEMBER:
		drop(g, ev, AGG_EV_NON_MEMBER);
		return 0;
	case IN_BAD_ICRC:
		drop(g, ev, AGG_EV_BAD_ICRC);
		return 0;
	case IN_EVICT: {
		/* the controller found the receiver unreachable; never the last active one */
		struct agg_rx *r = &g->rx[in->slot & (AGG_MAX_RX - 1)];

		if (r->stalled || g->active <= 1)
			return 0;
		held = r->acked == g->min && g->at_min > 0 && --g->at_min == 0;
		stall(g, ev, in->slot);
		scan = held;
		post = POST_MIN_ADVANCED;
		break;
	}
	case IN_CNP:
		on_cnp(g, ev, now, e);
		return 0;
	case IN_JOIN:
		return on_join(g, in, now);
	case IN_ACK:
		r = on_ack(g, ev, in, now, e);
		if (r < 0)
			return 0;
		scan = r;
		post = POST_ACK_IF_ADVANCED;
		break;
	case IN_NAK:
		r = nak_first(g, ev, in, now, &held);
		if (r == -1)
			return 0;
		if (r == -2) {
			scan = held;
			post = POST_MIN_ADVANCED;
		} else {
			scan = r;
			post = POST_NAK;
		}
		break;
	case IN_LEAVE:
		scan = on_leave(g, in);
		post = POST_MIN_ADVANCED;
		break;
	case IN_TICK:
		if (g->active == 0 || g->min >= g->sent_next - 1 || now - g->min_since < g->stall_ns)
			return 0;
		if (!g->suspect || 2 * g->heard_ahead <= g->active) {
			/* the first timeout of a stall, or half of the receivers or more not heard from ahead of the
			 * minimum in the window since (a cut between the sender and them looks just so): a stall they
			 * share, which the sender's retransmission recovers; nobody is evicted and a new window decides
			 * at the next timeout. A pass that stalls k receivers leaves more than half of the active - k
			 * heard ahead, so the check's later passes decide alike */
			g->c.common_stalls++;
			restart_clock(g, now);
			g->suspect = 1;
			return 0;
		}
		if (stall_one_chunk(g, ev))
			return TICK_AGAIN;
		scan = 1;
		post = POST_MIN_ADVANCED;
		break;
	default:
		return 0;
	}
	if (post == POST_MIN_ADVANCED && scan && g->active == 0) {
		restart_clock(g, now);
		return 0;
	}
	if (scan && !scan_min(g, now)) {
		restart_clock(g, now);
		return 0;
	}
	if (post == POST_ACK_IF_ADVANCED) {
		if (scan && g->min > g->ack_out) {
			g->ack_out = g->min;
			g->reack = 0;
			ack_out(g, e, g->min);
		}
	} else if (post == POST_MIN_ADVANCED) {
		if (!scan)
			return 0;
		if (g->min > g->ack_out) {
			g->ack_out = g->min;
			g->reack = 0;
			ack_out(g, e, g->min);
		} else {
			restart_clock(g, now);
		}
	} else if (post == POST_NAK) {
		nak_second(g, ev, in, now, e);
	}
	return 0;
}

/* ---------------------------------------------------------------- writing the sender's packet */

/* RoCEv2 ICRC: CRC-32 over 8 bytes of ones, then IPv4 (ToS, TTL, checksum as ones), UDP (checksum as ones),
 * BTH (byte 4 as ones) and the payload */
static __always_inline __u32 icrc(__u8 *p, void *end, __u32 covered)
{
	__u32 c = icrc_start(), i;

	for (i = 0; i < CNP_FRAME - 14 - 4; i++) {
		__u8 b;
		__u32 o = 14 + i;

		if (i >= covered)
			break;
		if (p + o + 1 > (__u8 *)end)
			return 0;
		b = p[o];
		if (icrc_masked(o))
			b = 0xFF;
		c = crc_byte(c, b);
	}
	return ~c;
}

static __always_inline int write_out(struct __sk_buff *skb, struct agg_group *g, struct emit *e)
{
	__u32 len = e->kind == EMIT_CNP ? CNP_FRAME : ACK_FRAME;
	void *data, *end;
	__u8 *p;
	struct iphdr *ip;
	struct udphdr *udp;
	__u32 crc, i;

	if (skb->len != len && bpf_skb_change_tail(skb, len, 0))
		return AGG_CONSUMED;
	data = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	p = data;
	if (p + CNP_FRAME > (__u8 *)end && p + len > (__u8 *)end)
		return AGG_CONSUMED;
	if (p + ACK_FRAME > (__u8 *)end)
		return AGG_CONSUMED;
	__builtin_memcpy(p, g->sender_mac, 6);
	__builtin_memcpy(p + 6, g->vp_mac, 6);
	p[12] = 0x08;
	p[13] = 0x00;
	ip = (void *)(p + 14);
	ip->version = 4;
	ip->ihl = 5;
	ip->tos = 0;
	ip->tot_len = bpf_htons(len - 14);
	ip->id = 0;
	ip->frag_off = bpf_htons(0x4000);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = g->vp_ip;
	ip->daddr = g->sender_ip;
	ip->check = ip_checksum(ip);
	udp = (void *)(p + 34);
	udp->source = bpf_htons(ROCE_PORT);
	udp->dest = bpf_htons(ROCE_PORT);
	udp->len = bpf_htons(len - 34);
	udp->check = 0;
	p[42] = e->kind == EMIT_CNP ? OP_CNP : OP_ACK;
	p[43] = 0;
	p[44] = 0xFF;
	p[45] = 0xFF;
	p[46] = 0;
	p[47] = g->sender_qpn >> 16;
	p[48] = g->sender_qpn >> 8;
	p[49] = g->sender_qpn;
	p[50] = 0;
	if (e->kind == EMIT_CNP) {
		p[51] = p[52] = p[53] = 0;
		if (p + CNP_FRAME > (__u8 *)end)
			return AGG_CONSUMED;
#pragma unroll
		for (i = 0; i < 16; i++)
			p[54 + i] = 0;
	} else {
		p[51] = e->psn >> 16;
		p[52] = e->psn >> 8;
		p[53] = e->psn;
		p[54] = e->kind == EMIT_ACK ? e->syndrome & 0x1F : e->syndrome;
		p[55] = e->msn >> 16;
		p[56] = e->msn >> 8;
		p[57] = e->msn;
	}
	if (e->kind == EMIT_CNP) {
		crc = icrc(p, end, len - 14 - 4);
	} else {
		/* everything before the PSN is the group's own constant: its CRC was taken at CONFIG */
		crc = g->icrc_ack_prefix;
#pragma unroll
		for (i = 51; i < 58; i++)
			crc = crc_byte(crc, p[i]);
		crc = ~crc;
	}
	if (p + len > (__u8 *)end)
		return AGG_CONSUMED;
	if (e->kind == EMIT_CNP) {
		if (p + CNP_FRAME > (__u8 *)end)
			return AGG_CONSUMED;
		p[70] = crc;
		p[71] = crc >> 8;
		p[72] = crc >> 16;
		p[73] = crc >> 24;
	} else {
		p[58] = crc;
		p[59] = crc >> 8;
		p[60] = crc >> 16;
		p[61] = crc >> 24;
	}
	return TC_ACT_OK;
}

/* the CRC-32 eight bytes at a time (slicing by 8): crc_slices[k][b] is byte b's image after k + 1 more bytes */
static const __u32 crc_slices[8][256] = {
#include "crc32_slices.h"
};

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the ICRC check reads the frame a little-endian word at a time"
#endif

/* word w of the ICRC's message after its leading ones (frame bytes 14 + 4w on), little-endian, with icrc_masked()'s
 * bytes (ToS, TTL, the IPv4 and UDP checksums, BTH byte 4) as ones; w is a constant once unrolled */
static __always_inline __u32 icrc_word(const __u8 *p, int w)
{
	__u32 v = *(const __u32 *)(p + 14 + 4 * w);

	if (w == 0)
		v |= 0x0000FF00;      /* ToS */
	else if (w == 2)
		v |= 0xFFFF00FF;      /* TTL, the IPv4 checksum */
	else if (w == 6)
		v |= 0xFFFF0000;      /* the UDP checksum */
	else if (w == 8)
		v |= 0x000000FF;      /* BTH byte 4 */
	return v;
}

static __always_inline __u32 crc_step8(__u32 c, __u32 w0, __u32 w1)
{
	c ^= w0;
	return crc_slices[7][c & 0xFF] ^ crc_slices[6][(c >> 8) & 0xFF] ^ crc_slices[5][(c >> 16) & 0xFF]
	       ^ crc_slices[4][c >> 24] ^ crc_slices[3][w1 & 0xFF] ^ crc_slices[2][(w1 >> 8) & 0xFF]
	       ^ crc_slices[1][(w1 >> 16) & 0xFF] ^ crc_slices[0][w1 >> 24];
}

static __always_inline __u32 crc_step4(__u32 c, __u32 w)
{
	c ^= w;
	return crc_slices[3][c & 0xFF] ^ crc_slices[2][(c >> 8) & 0xFF] ^ crc_slices[1][(c >> 16) & 0xFF]
	       ^ crc_slices[0][c >> 24];
}

/* Whether a consumed packet's ICRC verifies. An ACK or NAK is 62 bytes, a CNP 74 (the ICRC covers the IPv4 packet
 * but its last four bytes, 44 or 56 bytes); any other length is no packet the aggregator consumes, and counts as
 * damaged. Read in place a word at a time, the masked bytes ORed in, eight bytes a step, fully unrolled: 6 or 7
 * steps and no copy (this check is most of what an ACK costs). A frame not linear that far is pulled first. */
static __always_inline int icrc_ok(struct __sk_buff *skb, struct iphdr *ip)
{
	__u32 len = bpf_ntohs(ip->tot_len) + 14, crc = ICRC_START;
	__u8 *p, *end;
	int i;

	if (len != ACK_FRAME && len != CNP_FRAME)
		return 0;
	p = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	if (p + len > end) {
		if (bpf_skb_pull_data(skb, len))
			return 0;
		p = (void *)(long)skb->data;
		end = (void *)(long)skb->data_end;
	}
	if (len == ACK_FRAME) {
		if (p + ACK_FRAME > end)
			return 0;
#pragma unroll
		for (i = 0; i < 5; i++)
			crc = crc_step8(crc, icrc_word(p, 2 * i), icrc_word(p, 2 * i + 1));
		crc = crc_step4(crc, icrc_word(p, 10));
		return *(__u32 *)(p + ACK_FRAME - 4) == ~crc;
	}
	if (p + CNP_FRAME > end)
		return 0;
#pragma unroll
	for (i = 0; i < 7; i++)
		crc = crc_step8(crc, icrc_word(p, 2 * i), icrc_word(p, 2 * i + 1));
	return *(__u32 *)(p + CNP_FRAME - 4) == ~crc;
}

/* ---------------------------------------------------------------- entry */

/* The ICRC's CRC over what every ACK or NAK of a group shares, up to its PSN: the masked leading ones, the IPv4
 * header from the VP to the sender (ToS, TTL and checksum as ones), UDP (checksum as ones), and BTH up to the PSN
 * (opcode ACKNOWLEDGE, the sender's QPN, byte 4 as ones), exactly as write_out lays them out. */
/* the CRC-32 state over 2^j zero bytes, applied a byte of the state at a time: icrc_shift[j][k][b] is the image
 * of byte k of the state holding b */
static const __u32 icrc_shift[11][4][256] = {
#include "icrc_shift.h"
};

/* a linear CRC-32 state carried over n zero bytes (n below 2048) */
static __always_inline __u32 shift_zeros(__u32 c, __u32 n)
{
	int j;

#pragma unroll
	for (j = 0; j < 11; j++) {
		__u32 out = icrc_shift[j][0][c & 0xFF] ^ icrc_shift[j][1][(c >> 8) & 0xFF]
			^ icrc_shift[j][2][(c >> 16) & 0xFF] ^ icrc_shift[j][3][(c >> 24) & 0xFF];
		__u32 take = (n >> j) & 1;

		/* hidden from the compiler, which would branch on it: one path for the verifier */
		asm volatile("" : "+r"(take));
		take = -take;
		c = (out & take) | (c & ~take);
	}
	return c;
}

/* The sender's data to the VP leaves for the fabric addressed to the group (its multicast MAC and address), which
 * the switches replicate. The ICRC is updated, not computed again: CRC-32 is affine, so the new one is the old XOR
 * the linear CRC of the address's difference shifted over the bytes after it. The copy stays valid for a plain
 * receiver and for a receiver edge that updates it in turn (the P4 leaf), and a packet damaged before here stays
 * damaged. A global function: the verifier checks it once, not again for every state that reaches a call. */
__attribute__((noinline)) int mcast4ai_to_group(struct __sk_buff *skb, __u32 group_ip)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	__u32 a = bpf_ntohl(group_ip);
	__u32 diff, tot, at, c = 0;
	__u8 *icrc;
	int i;

	if (!group_ip || (void *)(ip + 1) > end)
		return TC_ACT_OK;
	/* the ICRC: the last four bytes of the IPv4 packet, least significant first */
	tot = bpf_ntohs(ip->tot_len);
	if (tot < 20 + 8 + 12 + 4 || tot > 2047)
		return TC_ACT_OK;
	at = (14 + tot - 4) & 2047;
	icrc = (__u8 *)eth + at;
	if (icrc + 4 > (__u8 *)end)
		return TC_ACT_OK;
	diff = ip->daddr ^ group_ip;
#pragma unroll
	for (i = 0; i < 4; i++)
		c = crc_byte(c, ((__u8 *)&diff)[i]);
	/* from the end of the destination address (byte 28 of the ICRC's message) to the ICRC */
	c = shift_zeros(c, tot - 24);
	icrc[0] ^= c;
	icrc[1] ^= c >> 8;
	icrc[2] ^= c >> 16;
	icrc[3] ^= c >> 24;
	eth->h_dest[0] = 0x01;
	eth->h_dest[1] = 0x00;
	eth->h_dest[2] = 0x5e;
	eth->h_dest[3] = (a >> 16) & 0x7f;
	eth->h_dest[4] = a >> 8;
	eth->h_dest[5] = a;
	ip->daddr = group_ip;
	ip->check = ip_checksum(ip);
	return TC_ACT_OK;
}

static __always_inline __u32 ack_prefix_crc(struct agg_ctrl *c)
{
	__u8 b[37] = {
		0x45, 0xFF, 0, ACK_FRAME - 14, 0, 0, 0x40, 0, 0xFF, IPPROTO_UDP, 0xFF, 0xFF,
		0, 0, 0, 0, 0, 0, 0, 0,
		ROCE_PORT >> 8, ROCE_PORT & 0xFF, ROCE_PORT >> 8, ROCE_PORT & 0xFF, 0, ACK_FRAME - 34, 0xFF, 0xFF,
		OP_ACK, 0, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0,
	};
	__u32 crc = icrc_start(), i;

	__builtin_memcpy(b + 12, &c->ip, 4);
	__builtin_memcpy(b + 16, &c->sender_ip, 4);
	b[33] = c->sender_qpn >> 16;
	b[34] = c->sender_qpn >> 8;
	b[35] = c->sender_qpn;
#pragma unroll
	for (i = 0; i < sizeof(b); i++)
		crc = crc_byte(crc, b[i]);
	return crc;
}

static __always_inline int configure(struct agg_ctrl *c, struct agg_group *g, __u32 gi)
{
	/* a group's VP address names its group: the low bits of the address are the group's index */
	if ((bpf_ntohl(c->ip) & (AGG_MAX_GROUPS - 1)) != gi)
		return AGG_CONSUMED;
	bpf_spin_lock(&g->lock);
	if (g->configured && g->token != c->token) {
		bpf_spin_unlock(&g->lock);
		return AGG_CONSUMED;
	}
	g->configured = 1;
	g->token = c->token;
	g->vp_ip = c->ip;
	g->sender_ip = c->sender_ip;
	g->sender_qpn = c->sender_qpn;
	__builtin_memcpy(g->sender_mac, c->sender_mac, 6);
	__builtin_memcpy(g->vp_mac, c->vp_mac, 6);
	g->sees_data = c->sees_data;
	g->stall_ns = c->stall_ns;
	g->cnp_interval_ns = c->cnp_interval_ns;
	g->nak_holdoff_ns = c->nak_holdoff_ns;
	g->sent_next = c->psn & PSN_MASK;
	g->ack_out = g->sent_next - 1;
	g->min = g->ack_out;
	g->icrc_ack_prefix = ack_prefix_crc(c);
	g->group_ip = c->group_ip;
	bpf_spin_unlock(&g->lock);
	return AGG_CONSUMED;
}

SEC("tc")
int ack_agg(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct agg_group *g;
	struct agg_events *ev;
	struct input in = {};
	struct emit e = {};
	__u32 gi;
	__u64 now;
	int rc;

	if ((void *)(eth + 1) > end)
		return TC_ACT_OK;
	if (eth->h_proto == bpf_htons(AGG_CTRL_ETHERTYPE)) {
		/* the agent's frames, only through BPF_PROG_RUN (on loopback), never from the wire */
		struct agg_ctrl *c = (void *)(eth + 1);

		if (skb->ifindex != LOOPBACK_IFINDEX || (void *)(c + 1) > end)
			return AGG_CONSUMED;
		gi = c->group;
		g = bpf_map_lookup_elem(&agg_groups, &gi);
		ev = bpf_map_lookup_elem(&agg_events, &gi);
		if (!g || !ev)
			return AGG_CONSUMED;
		if (c->op == AGG_CONFIG)
			return configure(c, g, gi);
		if (!g->configured || g->token != c->token)
			return AGG_CONSUMED;
		in.ip = c->ip;
		in.qpn = c->qpn;
		in.psn = c->psn;
		in.slot = c->qpn & (AGG_MAX_RX - 1);
		if (c->op == AGG_JOIN) {
			in.kind = IN_JOIN;
		} else if (c->op == AGG_LEAVE) {
			in.kind = IN_LEAVE;
		} else if (c->op == AGG_TICK) {
			in.kind = IN_TICK;
		} else if (c->op == AGG_EVICT) {
			in.kind = IN_EVICT;
		} else {
			return AGG_CONSUMED;
		}
	} else {
		struct iphdr *ip;
		struct udphdr *udp;
		__u8 *bth, op;
		__u32 dqpn;

		if (!roce_headers(data, end, &ip, &udp, &bth))
			return TC_ACT_OK;
		/* the VP address's low bits name the group (array lookups, no hashing on the ACK path) */
		gi = bpf_ntohl(ip->daddr) & (AGG_MAX_GROUPS - 1);
		g = bpf_map_lookup_elem(&agg_groups, &gi);
		ev = bpf_map_lookup_elem(&agg_events, &gi);
		if (!g || !ev || !g->configured || g->vp_ip != ip->daddr)
			return TC_ACT_OK;
		op = bth[0];
		dqpn = (__u32)bth[5] << 16 | (__u32)bth[6] << 8 | bth[7];
		in.psn = (__u32)bth[9] << 16 | (__u32)bth[10] << 8 | bth[11];
		if (op <= OP_LAST_REQUEST) {
			/* the sender's data goes on to the fabric, addressed to the group; it tells what was sent */
			if (ip->saddr != g->sender_ip)
				return TC_ACT_OK;
			if (!g->sees_data)
				return mcast4ai_to_group(skb, g->group_ip);
			in.kind = IN_DATA;
		} else if (op == OP_ACK || op == OP_CNP) {
			if (op == OP_ACK) {
				if (bth + 16 > (__u8 *)end)
					return AGG_CONSUMED;
				in.syndrome = bth[12];
				in.msn = (__u32)bth[13] << 16 | (__u32)bth[14] << 8 | bth[15];
				in.credit = in.syndrome & 0x1F;
				in.kind = (in.syndrome & SYN_KIND) == 0 ? IN_ACK : IN_NAK;
			} else {
				in.kind = IN_CNP;
			}
			/* the QPN a receiver's ACKs name is its slot (the controller gives each receiver of a group its
			 * own, distinct modulo AGG_MAX_RX); the slot's address and QPN must match */
			in.slot = dqpn & (AGG_MAX_RX - 1);
			in.ip = ip->saddr;
			in.qpn = dqpn;
			/* a damaged packet is believed in nothing, its source included: dropped before it is read */
			if (!icrc_ok(skb, ip))
				in.kind = IN_BAD_ICRC;
		} else {
			return TC_ACT_OK;
		}
	}
	now = now_ns();
	bpf_spin_lock(&g->lock);
	if (in.kind == IN_ACK || in.kind == IN_NAK || in.kind == IN_CNP || in.kind == IN_LEAVE || in.kind == IN_EVICT) {
		struct agg_rx *r = &g->rx[in.slot & (AGG_MAX_RX - 1)];
		int match = r->used && r->ip == in.ip && r->qpn == in.qpn;

		if (in.kind == IN_LEAVE || in.kind == IN_EVICT) {
			if (!match) {
				bpf_spin_unlock(&g->lock);
				return AGG_CONSUMED;
			}
		} else if (!match || r->stalled) {
			/* not a receiver, or a stalled one: it no longer counts */
			in.kind = IN_NON_MEMBER;
		}
	}
	rc = step(g, ev, &in, now, &e);
	if (in.heard) {
		/* an answer from a receiver ahead of the minimum: the fabric reaches it, so one that lags alone behind
		 * it may be evicted at the stall timeout (counted once a window) */
		struct agg_rx *r = &g->rx[in.slot & (AGG_MAX_RX - 1)];

		if (!r->stalled && r->acked > g->min && r->heard_in != g->window) {
			r->heard_in = g->window;
			g->heard_ahead++;
		}
	}
	bpf_spin_unlock(&g->lock);
	if (in.kind == IN_TICK && rc == TICK_AGAIN)
		return TC_ACT_PIPE;
	if (in.kind == IN_DATA)
		return mcast4ai_to_group(skb, g->group_ip);
	if (in.kind == IN_JOIN)
		return AGG_CONSUMED;
	if (e.kind == EMIT_NONE)
		return AGG_CONSUMED;
	return write_out(skb, g, &e);
}

char LICENSE[] SEC("license") = "GPL";
