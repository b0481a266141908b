/*
 * m4d: a receiver that has its copy serving repairs to its peers (m4d.h describes the protocol).
 *
 * The sender knows which receivers are complete; when a single receiver lacks symbols of a block, it asks such a peer
 * (SERVE) to send them instead of sending them itself: the peer reads the block from its copy, encodes the repair
 * symbols the sender numbered (fresh rows of the block's code, so they never duplicate what the straggler holds) and
 * sends them by unicast, paced at the sender's rate. The sender pays one control datagram for up to SERVE_MAX blocks.
 * A peer that does not answer costs the time its symbols should have taken: the block goes to another peer, and after
 * PEER_TRIES to the sender.
 */
#define _GNU_SOURCE
#include "m4d.h"

struct peer {
    struct common *c;
    struct object *o;
    int sock;
    uint32_t sender;               /* network order: SERVE is taken only from the transfer's sender */
    uint8_t *blockbuf, *repbuf;
    double rate, tokens, last;
    uint64_t served, requests;
};

static void pace(struct peer *p, int len) {
    for (;;) {
        double t = now();
        p->tokens += (t - p->last) * p->rate;
        if (p->tokens > 16.0 * PKT) p->tokens = 16.0 * PKT;
        p->last = t;
        if (p->tokens >= len) {
            p->tokens -= len;
            return;
        }
        double wait = (len - p->tokens) / p->rate;
        struct timespec ts = {.tv_sec = (time_t)wait, .tv_nsec = (long)((wait - (time_t)wait) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

static void serve(struct peer *p, const uint8_t *q, ssize_t n) {
    if (n < HDR + SERVE_FIXED) return;
    const uint8_t *b = q + HDR;
    struct sockaddr_in to = {.sin_family = AF_INET};
    memcpy(&to.sin_addr.s_addr, b + 4, 4);
    memcpy(&to.sin_port, b + 8, 2);
    double rate = get32(b + 10) * 1000.0 / 8;
    int count = get16(b + 14);
    if (n < HDR + SERVE_FIXED + 6 * count || rate <= 0) return;
    p->rate = rate;
    p->requests++;
    uint8_t pkt[PKT];
    for (int i = 0; i < count; i++) {
        const uint8_t *e = b + SERVE_FIXED + 6 * i;
        uint64_t blk = get32(e);
        int first = e[4], m = e[5];
        if (blk >= p->c->nblocks) continue;
        int k = block_k(p->c, blk);
        if (first < k || first + m > MAXSYM) continue;           /* repair rows only, within the code */
        object_io(p->o, blk * (uint64_t)p->c->k * PAY, p->blockbuf, (uint64_t)k * PAY, 0);
        uint8_t *data[MAXSYM], *out[MAXSYM];
        for (int j = 0; j < k; j++) data[j] = p->blockbuf + (size_t)j * PAY;
        for (int j = 0; j < m; j++) out[j] = p->repbuf + (size_t)j * PAY;
        encode(k, data, first, m, out);
        for (int j = 0; j < m; j++) {
            sym_header(pkt, p->c->oid, blk, first + j, k, 0, 1);
            memcpy(pkt + SYMHDR, out[j], PAY);
            pace(p, PKT + 28);
            while (sendto(p->sock, pkt, PKT, 0, (struct sockaddr *)&to, sizeof to) < 0 &&
                   (errno == ENOBUFS || errno == EAGAIN || errno == EINTR))
                usleep(200);
            p->served++;
        }
    }
}

/*
 * Serve peers from the data socket until the sender ends the transfer (END), falls silent for PEER_SILENCE seconds
 * (no checkpoint, no request), or `linger` seconds have passed. Returns when done; the caller exits.
 */
void serve_peers(struct common *c, struct object *o, int sock, uint32_t sender, double linger) {
    struct peer p = {.c = c, .o = o, .sock = sock, .sender = sender, .rate = 1e6, .last = now()};
    p.blockbuf = malloc((size_t)MAXSYM * PAY);
    p.repbuf = malloc((size_t)MAXSYM * PAY);
    double start = now(), heard = start;
    static uint8_t buf[PKT + 64];
    while (now() - start < linger && now() - heard < PEER_SILENCE) {
        struct pollfd pf = {.fd = sock, .events = POLLIN};
        if (poll(&pf, 1, 100) <= 0) continue;
        for (int i = 0; i < BATCH; i++) {
            struct sockaddr_in from;
            socklen_t fl = sizeof from;
            ssize_t n = recvfrom(sock, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
            if (n < 0) break;
            if (!ours(buf, n, c->oid) || from.sin_addr.s_addr != sender) continue;
            if (buf[4] == END) return;
            if (buf[4] == FIN2 || buf[4] == SERVE) heard = now();
            if (buf[4] == SERVE) serve(&p, buf, n);
        }
    }
}
