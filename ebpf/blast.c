// SPDX-License-Identifier: GPL-2.0
/*
 * Sends the frames of a file (each after its 2-byte little-endian length) out of an interface through one
 * AF_PACKET socket, 32 to a sendmmsg call: the fabric's side of agg_wire.py's benchmark, at a pace where what the
 * kernel spends on each frame, not the sender's own loop, sets the caches the program finds.
 *   blast IFNAME FILE
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 32

int main(int argc, char **argv)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET };
	struct mmsghdr msg[BATCH];
	struct iovec iov[BATCH];
	unsigned char *data;
	long size, at = 0, sent = 0;
	FILE *f;
	int s;

	if (argc != 3) {
		fprintf(stderr, "usage: blast IFNAME FILE\n");
		return 2;
	}
	to.sll_ifindex = if_nametoindex(argv[1]);
	if (!to.sll_ifindex) {
		perror(argv[1]);
		return 1;
	}
	f = fopen(argv[2], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(argv[2]);
		return 1;
	}
	data = malloc(size + 1);
	if (!data || fread(data, 1, size, f) != (size_t)size) {
		perror(argv[2]);
		return 1;
	}
	fclose(f);
	s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (s < 0) {
		perror("socket");
		return 1;
	}
	while (at < size) {
		int n = 0, done;

		while (n < BATCH && at + 2 <= size) {
			long len = data[at] | data[at + 1] << 8;

			if (at + 2 + len > size) {
				fprintf(stderr, "blast: %s: a frame runs past the end\n", argv[2]);
				return 1;
			}
			iov[n].iov_base = data + at + 2;
			iov[n].iov_len = len;
			memset(&msg[n], 0, sizeof(msg[n]));
			msg[n].msg_hdr.msg_name = &to;
			msg[n].msg_hdr.msg_namelen = sizeof(to);
			msg[n].msg_hdr.msg_iov = &iov[n];
			msg[n].msg_hdr.msg_iovlen = 1;
			at += 2 + len;
			n++;
		}
		if (n == 0)
			break;
		for (done = 0; done < n;) {
			int k = sendmmsg(s, msg + done, n - done, 0);

			if (k < 0) {
				perror("sendmmsg");
				return 1;
			}
			done += k;
		}
		sent += n;
	}
	close(s);
	printf("%ld\n", sent);
	return 0;
}
