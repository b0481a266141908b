// SPDX-License-Identifier: GPL-2.0
/*
 * Loss injection for the lab (there is no netem here): a TC program on a port that drops chosen UDP packets,
 * counted. Per interface (map loss_cfg, keyed by ifindex): drop the RoCEv2 packet with a given PSN a given number
 * of times (one data packet lost on one branch), and/or drop UDP packets to a port (or, with LOSS_ANY_IP, every
 * IPv4 packet) at random with a rate in parts per million; with LOSS_ALL, every frame whatever its EtherType (a
 * cut cable: the version 2 header's frames and the lab's probes too; at 1,000,000 ppm all of them). Interfaces
 * without an entry pass everything. What it passes goes on to the next filter of the hook (TC_ACT_UNSPEC), so it
 * sits before the edge rewrite or the aggregator on the same port.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ROCE_PORT 4791
#define NO_PSN 0xFFFFFFFF
#define LOSS_ANY_IP 1
#define LOSS_ALL 2

struct loss_cfg {
	__u32 drop_psn;       /* RoCEv2 request PSN to drop, NO_PSN for none */
	__u32 drop_times;     /* how many more times to drop it */
	__u32 rate_ppm;       /* random loss, parts per million */
	__u16 udp_port;       /* random loss applies to UDP to this port (0: any UDP) */
	__u16 flags;          /* LOSS_ANY_IP: random loss applies to every IPv4 packet (TCP too); LOSS_ALL: to
	                       * every frame */
	__u64 seen;           /* UDP packets looked at */
	__u64 dropped;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct loss_cfg);
} loss_cfg SEC(".maps");

SEC("tc")
int loss(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct udphdr *udp;
	struct loss_cfg *c;
	__u32 key = skb->ifindex;
	__u8 *bth;

	c = bpf_map_lookup_elem(&loss_cfg, &key);
	if (!c)
		return TC_ACT_UNSPEC;
	if (c->flags & LOSS_ALL) {
		__sync_fetch_and_add(&c->seen, 1);
		if (c->rate_ppm >= 1000000 || (c->rate_ppm && bpf_get_prandom_u32() % 1000000 < c->rate_ppm)) {
			__sync_fetch_and_add(&c->dropped, 1);
			return TC_ACT_STOLEN;
		}
		return TC_ACT_UNSPEC;
	}
	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_UNSPEC;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end || ip->ihl != 5)
		return TC_ACT_UNSPEC;
	if (ip->protocol != IPPROTO_UDP) {
		if (!(c->flags & LOSS_ANY_IP))
			return TC_ACT_UNSPEC;
		__sync_fetch_and_add(&c->seen, 1);
		if (c->rate_ppm && bpf_get_prandom_u32() % 1000000 < c->rate_ppm) {
			__sync_fetch_and_add(&c->dropped, 1);
			return TC_ACT_STOLEN;
		}
		return TC_ACT_UNSPEC;
	}
	udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > end)
		return TC_ACT_UNSPEC;
	__sync_fetch_and_add(&c->seen, 1);
	bth = (void *)(udp + 1);
	if (c->drop_psn != NO_PSN && c->drop_times > 0 && udp->dest == bpf_htons(ROCE_PORT)
	    && (void *)(bth + 12) <= end && bth[0] <= 0x0C) {
		__u32 psn = (__u32)bth[9] << 16 | (__u32)bth[10] << 8 | bth[11];

		if (psn == c->drop_psn) {
			__sync_fetch_and_add(&c->drop_times, -1);
			__sync_fetch_and_add(&c->dropped, 1);
			return TC_ACT_STOLEN; /* not SHOT: see ack_agg.c's AGG_CONSUMED */
		}
	}
	if (c->rate_ppm && (!c->udp_port || udp->dest == bpf_htons(c->udp_port))
	    && bpf_get_prandom_u32() % 1000000 < c->rate_ppm) {
		__sync_fetch_and_add(&c->dropped, 1);
		return TC_ACT_STOLEN; /* not SHOT: see ack_agg.c's AGG_CONSUMED */
	}
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "GPL";
