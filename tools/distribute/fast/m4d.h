/*
 * m4d: the data phase of mcast4ai-distribute, compiled. distribute.py does the rendezvous (announce, manifest over
 * TCP, READY) and hands this program its sockets; this program moves the object's bytes and exits when every
 * receiver has its copy (the sender: when every receiver reported DONE).
 *
 * The object is cut into blocks of k datagrams of 1,460 bytes (the last block shorter). Each block is a systematic
 * Reed-Solomon code over GF(2^8) (ISA-L, a Cauchy matrix: any k of the block's up to 255 symbols rebuild it):
 * symbols 0..k-1 are the data, k.. repair symbols. The sender sends each block's data and r repair symbols, r
 * following the loss the receivers report (r = 0 on a clean fabric); every 4 blocks it sends a checkpoint (FIN2);
 * every receiver answers with a REPORT: its counters and, per block below the checkpoint it cannot rebuild yet, how
 * many more symbols it needs. The sender repairs each block once for all: fresh repair symbols by multicast, as many
 * as the neediest receiver lacks, or to the one receiver that lacks any by unicast (what costs the sender less) —
 * from a receiver that has its copy already when there is one (it serves its peers for a while after completing).
 * Receivers batch their reads (recvmmsg), write whole blocks, and hash the object as it completes, so that they
 * report the SHA-256s without reading it back.
 *
 * Wire (UDP, big endian). A symbol has a header of its own, 12 bytes, so that a 1,500-byte packet carries 1,460
 * bytes of the object (a 1,514-byte frame: 3.7 % of headers):
 *   SYM    (multicast or unicast)    tag u8 (0xD8; 0xD9 sent by a peer), symbol u8, k u8, first-pass symbols of the
 *                                    block u8, the object id's first 4 bytes, block u32, 1,460 bytes
 * Every other message starts with the common 16-byte header (magic "M4D1", type, flags, 2 reserved, object id):
 *   FIN2  (10, multicast)            round u32, upto u32 (blocks below had their first pass), blocks u32,
 *                                    sender's clock u64 (microseconds)
 *   REPORT(11, unicast)              round u32, first-pass symbols got u64, expected u64, socket overflows u32,
 *                                    ECN CE u32, one-way delay of the checkpoint i64 (microseconds: the receiver's
 *                                    clock when it read it less the sender's in it), count u16,
 *                                    count x (block u32, symbols needed u16); flags 1: complete
 *   SERVE (12, unicast to a complete receiver's data port) round u32, straggler's address 4 bytes and port 2 bytes
 *                                    (network order), rate kbit/s u32, count u16, count x (block u32, first repair
 *                                    symbol u8, symbols u8): send these symbols to the straggler (peer.c)
 *   END   (13, multicast)            the transfer is over: receivers serving peers exit
 *   DONE   (5) / DONEACK (6) / READY (8) / ANNOUNCE (1): as distribute.py describes.
 *
 * Rate: a token bucket at most --rate Mbit/s. Overflows of the receivers' sockets and ECN CE marks are congestion
 * (the rate drops by a fifth); loss that stays whatever the rate is a lossy link, repaired by the code, not slowed
 * for; loss well above its floor is congestion too.
 */
#ifndef M4D_H
#define M4D_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <isa-l/erasure_code.h>
#include <math.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PAY 1460
#define HDR 16
#define SYMHDR 12
#define PKT (SYMHDR + PAY)
#define SYM_TAG 0xD8            /* a symbol's first byte; | SYM_FROM_PEER when a peer sent it */
#define MAXSYM 255
#define CHECKPOINT 4            /* blocks between checkpoints: a window */
#define ANSWER_EVERY (32 / CHECKPOINT)   /* a receiver behind its queue answers at least every this many checkpoints */
#define BATCH 64
#define MAXRX 4096
#define REPORT_MAX 200          /* needs per REPORT datagram */
#define REPORT_FIXED 38       /* REPORT body before the needs */
#define REPORT_PKTS 4           /* REPORT datagrams per checkpoint */
#define SLOTS 1024              /* blocks a receiver rebuilds at once */
#define SERVE_FIXED 16          /* SERVE body before the blocks */
#define SERVE_CHUNK 32          /* blocks per SERVE datagram: a straggler's many blocks spread over peers */
#define SYM_FROM_PEER 1
#define PEER_TRIES 2            /* peers asked for a block at most this often; then the sender sends it */
#define PEER_SILENCE 2.0        /* seconds without a word from the sender after which a serving peer exits */
enum { ANNOUNCE = 1, DONE = 5, DONEACK = 6, READY = 8, FIN2 = 10, REPORT = 11, SERVE = 12, END = 13 };
enum { REPORT_COMPLETE = 1, REPORT_SERVING = 2 };


struct object {
    int n;
    int *fd;
    uint64_t *off, *size;
    uint64_t total;
};

struct common {
    uint8_t oid[8];
    int k;
    uint64_t nblocks, datagrams;
};

struct args {
    const char *mode, *group, *sender, *oid, *announce, *files, *receivers, *stats;
    int fd_data, fd_ctl, port, k;
    double rate, timeout, window, linger;
    uint64_t size;
    long test_drop_ppm;
};

static inline void put32(uint8_t *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }
static inline void put16(uint8_t *p, uint16_t v) { v = htons(v); memcpy(p, &v, 2); }
static inline void put64(uint8_t *p, uint64_t v) { put32(p, v >> 32); put32(p + 4, (uint32_t)v); }
static inline uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return ntohl(v); }
static inline uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return ntohs(v); }
static inline uint64_t get64(const uint8_t *p) { return ((uint64_t)get32(p) << 32) | get32(p + 4); }

/* m4d.c: the common parts */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
double now(void);
int64_t now_us(void);
double cpu_seconds(void);
int unhex(const char *s, uint8_t *out, size_t max);
void hexstr(const uint8_t *d, int n, char *out);
void object_open(struct object *o, const char *list, int flags);
void object_io(struct object *o, uint64_t pos, uint8_t *buf, uint64_t len, int write);
int block_k(struct common *c, uint64_t b);
void header(uint8_t *p, int type, int flags, const uint8_t *oid);
int ours(const uint8_t *p, ssize_t n, const uint8_t *oid);
struct sym {
    uint64_t b;
    int sym, k, first, from_peer;
    const uint8_t *payload;
};
void sym_header(uint8_t *p, const uint8_t *oid, uint64_t b, int sym, int k, int first, int from_peer);
int sym_parse(const uint8_t *p, ssize_t n, const uint8_t *oid, struct sym *s);
void common_init(struct common *c, struct object *o, struct args *a, int flags);

/* code.c: the Reed-Solomon code */
const uint8_t *matrix(int k);
void encode(int k, uint8_t **data, int row, int n, uint8_t **out);
int rebuild(int k, const uint8_t *bits, uint8_t *data, uint8_t *rep, const uint8_t *rep_idx);
int selftest(int blocks);

/* send.c, receive.c */
int sender_main(struct args *a);
int receiver_main(struct args *a);
void serve_peers(struct common *c, struct object *o, int sock, uint32_t sender, double linger);

#endif
