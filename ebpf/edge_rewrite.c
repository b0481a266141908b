// SPDX-License-Identifier: GPL-2.0
/*
 * mcast4ai's per-receiver rewrite at the receiver's edge: a TC program on a receiver-facing port (egress of
 * the switch's port, or ingress of the host's interface). A group's RoCEv2 copy arrives addressed to the group
 * (multicast IPv4, the virtual peer's QPN); an unmodified RC responder only accepts a packet addressed to it,
 * from the peer its QP is connected to, with a valid ICRC. So the copy leaves with the receiver's MAC, IP and
 * QPN, the virtual peer (VP) as its source, a new IPv4 checksum and a new ICRC. The controller gives every
 * receiver's QP the sender's initial PSN, so the PSN is not rewritten.
 *
 * Map edge_receivers: (group address, ifindex) -> the receiver on that port. A copy of a group with no entry
 * for the port passes unchanged (a plain multicast receiver).
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

#define EDGE_MAX_FRAME 1514   /* the lab's MTU; the ICRC loop is bounded by it */

struct edge_key {
	__u32 group;          /* be */
	__u32 ifindex;
};

struct edge_receiver {
	__u8 mac[6];
	__u16 pad;
	__u32 ip;             /* be */
	__u32 qpn;
	__u32 vp_ip;          /* be */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct edge_key);
	__type(value, struct edge_receiver);
} edge_receivers SEC(".maps");

SEC("tc")
int edge_rewrite(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct udphdr *udp;
	__u8 *bth;
	struct edge_key k = {};
	struct edge_receiver *r;
	__u8 *p = data;
	__u32 c, i, covered;

	if (!roce_headers(data, end, &ip, &udp, &bth) || p + 42 + 12 + 4 > (__u8 *)end)
		return TC_ACT_OK;
	k.group = ip->daddr;
	k.ifindex = skb->ifindex;
	r = bpf_map_lookup_elem(&edge_receivers, &k);
	if (!r)
		return TC_ACT_OK;
	covered = bpf_ntohs(ip->tot_len);
	if (covered < 20 + 8 + 12 + 4 || 14 + covered > skb->len)
		return TC_ACT_STOLEN;
	covered -= 4;
	__builtin_memcpy(eth->h_dest, r->mac, 6);
	ip->daddr = r->ip;
	ip->saddr = r->vp_ip;
	ip->check = ip_checksum(ip);
	udp->check = 0;
	p[47] = r->qpn >> 16;
	p[48] = r->qpn >> 8;
	p[49] = r->qpn;
	/* the ICRC: CRC-32 over 8 bytes of ones, the IPv4 header (ToS, TTL, checksum as ones), UDP (checksum as
	 * ones), BTH (byte 4 as ones) and the payload, up to the ICRC */
	c = icrc_start();
	for (i = 0; i < EDGE_MAX_FRAME - 14; i++) {
		__u32 o = 14 + i;
		__u8 b;

		if (i >= covered || p + o + 1 > (__u8 *)end)
			break;
		b = p[o];
		if (o < 47 && icrc_masked(o))
			b = 0xFF;
		c = crc_byte(c, b);
	}
	c = ~c;
	i = 14 + covered;
	if (i > EDGE_MAX_FRAME || p + i + 4 > (__u8 *)end)
		return TC_ACT_STOLEN;
	p[i] = c;
	p[i + 1] = c >> 8;
	p[i + 2] = c >> 16;
	p[i + 3] = c >> 24;
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
