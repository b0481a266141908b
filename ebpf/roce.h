/* RoCEv2 framing shared by mcast4ai's eBPF programs: the IPv4 header checksum and the ICRC's CRC-32. */
#ifndef MCAST4AI_ROCE_H
#define MCAST4AI_ROCE_H

#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>

#define ROCE_PORT 4791

/* The IPv4, UDP and BTH headers of a RoCEv2 frame (IPv4 without options, UDP to 4791, a whole BTH); 0 if the
 * frame is anything else. */
static __always_inline int roce_headers(void *data, void *end, struct iphdr **ip, struct udphdr **udp, __u8 **bth)
{
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return 0;
	*ip = (void *)(eth + 1);
	if ((void *)(*ip + 1) > end || (*ip)->ihl != 5 || (*ip)->protocol != IPPROTO_UDP)
		return 0;
	*udp = (void *)(*ip + 1);
	if ((void *)(*udp + 1) > end || (*udp)->dest != bpf_htons(ROCE_PORT))
		return 0;
	*bth = (void *)(*udp + 1);
	return *bth + 12 <= (__u8 *)end;
}

static const __u32 crc_table[256] = {
#include "crc32_table.h"
};

static __always_inline __u32 crc_byte(__u32 c, __u8 b)
{
	return crc_table[(c ^ b) & 0xFF] ^ (c >> 8);
}

/* the ICRC covers IPv4 and UDP with these bytes as ones (ToS, TTL, IPv4 and UDP checksums, BTH byte 4); offsets
 * in an Ethernet frame */
static __always_inline int icrc_masked(__u32 o)
{
	return o == 15 || o == 22 || o == 24 || o == 25 || o == 40 || o == 41 || o == 46;
}

/* the CRC of the ICRC's 8 leading bytes of ones (the masked LRH); ICRC_START is the same, precomputed */
#define ICRC_START 0xDEBB20E3U

static __always_inline __u32 icrc_start(void)
{
	__u32 c = 0xFFFFFFFF;
	int i;

#pragma unroll
	for (i = 0; i < 8; i++)
		c = crc_byte(c, 0xFF);
	return c;
}

static __always_inline __u16 ip_checksum(struct iphdr *ip)
{
	__u16 *w = (__u16 *)ip;
	__u32 sum = 0;
	int i;

	ip->check = 0;
#pragma unroll
	for (i = 0; i < 10; i++)
		sum += w[i];
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return ~sum;
}

#endif
