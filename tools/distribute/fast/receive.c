/* m4d: a receiver (m4d.h describes the protocol). */
#define _GNU_SOURCE
#include "m4d.h"

struct block {
    int64_t b;                     /* -1: free */
    int k, have_data, have_rep;
    uint8_t bits[32];
    uint8_t rep_idx[MAXSYM];
    uint8_t *data, *rep;           /* k data symbols at their index; repair symbols in arrival order */
};

struct receiver {
    struct args *a;
    struct common c;
    struct object o;
    int data, ctl;
    struct sockaddr_in sender;
    uint8_t *done;
    uint64_t ndone;
    struct block slots[SLOTS];
    /* in-order hashing */
    uint64_t hashed;               /* blocks hashed */
    int hfile;
    EVP_MD_CTX *whole, *file;
    char (*file_digest)[65];
    uint8_t *scratch;
    /* counters */
    uint64_t symbols, duplicates, unicast, from_peers, decoded, got_first, expected_first, reports, no_slot, test_dropped;
    uint32_t ovfl, ce;
    uint32_t round;
    uint64_t low;                  /* every block below it is done */
    uint64_t seen_upto;            /* blocks below it were announced by a checkpoint */
    int fin_pending;               /* a checkpoint to answer once the queue is drained */
    uint64_t fin_got, fin_expected;
    int64_t fin_delay;             /* the last checkpoint's one-way delay (clocks' offset included) */
    uint64_t rnd;
};

/* the current file's digest is final: keep it, start the next file's */
static void next_file(struct receiver *r) {
    unsigned char md[32];
    unsigned int l;
    EVP_DigestFinal_ex(r->file, md, &l);
    hexstr(md, 32, r->file_digest[r->hfile]);
    r->hfile++;
    EVP_DigestInit_ex(r->file, EVP_sha256(), NULL);
}

static void hash_bytes(struct receiver *r, const uint8_t *p, uint64_t len, uint64_t pos) {
    while (len > 0 && r->hfile < r->o.n) {
        uint64_t end = r->o.off[r->hfile] + r->o.size[r->hfile];
        if (pos >= end) {
            next_file(r);
            continue;
        }
        uint64_t n = end - pos < len ? end - pos : len;
        EVP_DigestUpdate(r->file, p, n);
        EVP_DigestUpdate(r->whole, p, n);
        p += n;
        pos += n;
        len -= n;
    }
}

/* every byte hashed: the last file's digest, and those of empty files after it */
static void hash_finish(struct receiver *r) {
    while (r->hfile < r->o.n) next_file(r);
}

static void hash_ready(struct receiver *r, uint64_t b, const uint8_t *mem) {
    while (r->hashed < r->c.nblocks && r->done[r->hashed]) {
        uint64_t h = r->hashed;
        uint64_t pos = h * (uint64_t)r->c.k * PAY;
        uint64_t len = (uint64_t)block_k(&r->c, h) * PAY;
        if (pos + len > r->o.total) len = r->o.total - pos;
        const uint8_t *p = mem;
        if (h != b || !mem) {
            object_io(&r->o, pos, r->scratch, len, 0);
            p = r->scratch;
        }
        hash_bytes(r, p, len, pos);
        r->hashed++;
    }
}

static struct block *find_block(struct receiver *r, uint64_t b, int k, int add) {
    struct block *free_slot = NULL;
    for (int i = 0; i < 16; i++) {
        struct block *t = &r->slots[(b + i) % SLOTS];
        if (t->b == (int64_t)b) return t;
        if (t->b < 0 && !free_slot) free_slot = t;
    }
    if (!add || !free_slot) return NULL;
    struct block *s = free_slot;
    s->b = b;
    s->k = k;
    s->have_data = s->have_rep = 0;
    memset(s->bits, 0, sizeof s->bits);
    if (!s->data) {
        s->data = malloc((size_t)r->c.k * PAY);
        s->rep = malloc((size_t)r->c.k * PAY);
    }
    return s;
}

static void complete_block(struct receiver *r, struct block *s) {
    int k = s->k;
    if (s->have_data < k) {
        if (rebuild(k, s->bits, s->data, s->rep, s->rep_idx) != 0)
            die("block %lld: the code's matrix is singular", (long long)s->b);
        r->decoded++;
    }
    uint64_t pos = (uint64_t)s->b * r->c.k * PAY;
    object_io(&r->o, pos, s->data, (uint64_t)k * PAY, 1);
    r->done[s->b] = 1;
    r->ndone++;
    hash_ready(r, s->b, s->data);
    s->b = -1;
}

static void on_sym(struct receiver *r, const struct sym *y, int unicast) {
    uint64_t b = y->b;
    int sym = y->sym, k = y->k, first = y->first;
    if (b >= r->c.nblocks || k != block_k(&r->c, b) || sym >= MAXSYM) return;   /* 255 is no row of the code */
    if (r->a->test_drop_ppm) {
        r->rnd = r->rnd * 6364136223846793005ULL + 1442695040888963407ULL;
        if ((long)((r->rnd >> 33) % 1000000) < r->a->test_drop_ppm) {
            r->test_dropped++;
            return;
        }
    }
    r->symbols++;
    if (unicast) r->unicast++;
    if (y->from_peer) r->from_peers++;
    if (sym < first) r->got_first++;
    if (r->done[b]) {
        r->duplicates++;
        return;
    }
    struct block *s = find_block(r, b, k, 1);
    if (!s) {
        r->no_slot++;
        return;
    }
    if (s->have_data == 0 && s->have_rep == 0 && sym < first) r->expected_first += first;
    if (s->bits[sym / 8] & (1 << (sym % 8))) {
        r->duplicates++;
        return;
    }
    s->bits[sym / 8] |= 1 << (sym % 8);
    if (sym < k) {
        memcpy(s->data + (size_t)sym * PAY, y->payload, PAY);
        s->have_data++;
    } else {
        if (s->have_data + s->have_rep >= k) return;
        s->rep_idx[s->have_rep] = sym;
        memcpy(s->rep + (size_t)s->have_rep * PAY, y->payload, PAY);
        s->have_rep++;
    }
    if (s->have_data + s->have_rep >= k) complete_block(r, s);
}

static void report(struct receiver *r, uint64_t upto) {
    /* repairs sent to this receiver alone left before the checkpoint did: take them before answering it */
    uint8_t q[PKT + 64];
    for (;;) {
        ssize_t m = recv(r->ctl, q, sizeof q, MSG_DONTWAIT);
        if (m < 0) break;
        struct sym y;
        if (sym_parse(q, m, r->c.oid, &y)) on_sym(r, &y, 1);
    }
    uint8_t p[HDR + REPORT_FIXED + 6 * REPORT_MAX];
    int complete = r->ndone == r->c.nblocks;
    while (r->low < r->c.nblocks && r->done[r->low]) r->low++;
    uint64_t b = r->low;
    for (int pkt = 0; pkt < REPORT_PKTS; pkt++) {
        int count = 0;
        for (; b < upto && b < r->c.nblocks && count < REPORT_MAX; b++) {
            if (r->done[b]) continue;
            struct block *s = find_block(r, b, 0, 0);
            int need = s ? s->k - s->have_data - s->have_rep : block_k(&r->c, b);
            put32(p + HDR + REPORT_FIXED + 6 * count, (uint32_t)b);
            put16(p + HDR + REPORT_FIXED + 4 + 6 * count, need);
            count++;
        }
        header(p, REPORT, complete ? REPORT_COMPLETE | (r->a->linger > 0 ? REPORT_SERVING : 0) : 0, r->c.oid);
        put32(p + HDR, r->round);
        put64(p + HDR + 4, complete ? r->got_first : r->fin_got);
        put64(p + HDR + 12, complete ? r->expected_first : r->fin_expected);
        put32(p + HDR + 20, r->ovfl);
        put32(p + HDR + 24, r->ce);
        put64(p + HDR + 28, (uint64_t)r->fin_delay);
        put16(p + HDR + 36, count);
        sendto(r->ctl, p, HDR + REPORT_FIXED + 6 * count, 0, (struct sockaddr *)&r->sender, sizeof r->sender);
        r->reports++;
        if (count < REPORT_MAX) break;
    }
}

static void on_packet(struct receiver *r, const uint8_t *p, ssize_t n, int unicast) {
    struct sym y;
    if (sym_parse(p, n, r->c.oid, &y)) {
        on_sym(r, &y, unicast);
    } else if (ours(p, n, r->c.oid) && p[4] == FIN2 && n >= HDR + 20) {
        /* read now: the delay includes this socket's queue, the first to grow when this receiver falls behind */
        r->fin_delay = now_us() - (int64_t)get64(p + HDR + 12);
        r->round = get32(p + HDR);
        uint64_t upto = get32(p + HDR + 4);
        if (upto > r->seen_upto) r->seen_upto = upto;
        r->fin_pending++;
        /* the counters at the checkpoint, when every block below it is whole or lost: not mid-block */
        r->fin_got = r->got_first;
        r->fin_expected = r->expected_first;
    }
}

int receiver_main(struct args *a) {
    struct receiver *r = calloc(1, sizeof *r);
    r->a = a;
    common_init(&r->c, &r->o, a, O_RDWR);
    r->data = a->fd_data;
    r->ctl = a->fd_ctl;
    r->sender.sin_family = AF_INET;
    if (!a->sender || inet_pton(AF_INET, a->sender, &r->sender.sin_addr) != 1) die("--sender: an IPv4 address");
    r->sender.sin_port = htons(a->port);
    r->done = calloc(r->c.nblocks ? r->c.nblocks : 1, 1);
    for (int i = 0; i < SLOTS; i++) r->slots[i].b = -1;
    r->whole = EVP_MD_CTX_new();
    r->file = EVP_MD_CTX_new();
    EVP_DigestInit_ex(r->whole, EVP_sha256(), NULL);
    EVP_DigestInit_ex(r->file, EVP_sha256(), NULL);
    r->file_digest = calloc(r->o.n ? r->o.n : 1, 65);
    r->scratch = malloc((size_t)r->c.k * PAY);
    r->rnd = (uint64_t)getpid() * 2654435761ULL;
    int on = 1;
    setsockopt(r->data, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on);
    setsockopt(r->data, IPPROTO_IP, IP_RECVTOS, &on, sizeof on);
    static uint8_t bufs[BATCH][PKT + 64];
    static uint8_t cbufs[BATCH][128];
    struct mmsghdr msgs[BATCH];
    struct iovec iov[BATCH];
    double t0 = now(), deadline = t0 + a->timeout;
    while (r->ndone < r->c.nblocks && now() < deadline) {
        struct pollfd pf[2] = {{.fd = r->data, .events = POLLIN}, {.fd = r->ctl, .events = POLLIN}};
        if (poll(pf, 2, 200) <= 0) continue;
        if (pf[0].revents & POLLIN) {
            for (int i = 0; i < BATCH; i++) {
                iov[i].iov_base = bufs[i];
                iov[i].iov_len = sizeof bufs[i];
                memset(&msgs[i], 0, sizeof msgs[i]);
                msgs[i].msg_hdr.msg_iov = &iov[i];
                msgs[i].msg_hdr.msg_iovlen = 1;
                msgs[i].msg_hdr.msg_control = cbufs[i];
                msgs[i].msg_hdr.msg_controllen = sizeof cbufs[i];
            }
            int n = recvmmsg(r->data, msgs, BATCH, MSG_DONTWAIT, NULL);
            if (n < 0) n = 0;
            for (int i = 0; i < n; i++) {
                for (struct cmsghdr *c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c; c = CMSG_NXTHDR(&msgs[i].msg_hdr, c)) {
                    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
                        uint32_t v;
                        memcpy(&v, CMSG_DATA(c), 4);
                        r->ovfl = v;
                    } else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
                        if ((*CMSG_DATA(c) & 3) == 3) r->ce++;
                    }
                }
                on_packet(r, bufs[i], msgs[i].msg_len, 0);
            }
        }
        if (pf[1].revents & POLLIN) {
            for (int i = 0; i < BATCH; i++) {
                ssize_t n = recv(r->ctl, bufs[0], sizeof bufs[0], MSG_DONTWAIT);
                if (n < 0) break;
                on_packet(r, bufs[0], n, 1);
            }
        }
        /*
         * A checkpoint is answered once the receiver has read everything queued behind it: a receiver running late
         * answers the last checkpoint it read, once, with what the repairs already queued for it have mended, not
         * every checkpoint with needs the sender has met already; but at least every ANSWER_EVERY-th (32 blocks), so that the sender
         * hears of its overflows.
         */
        if (r->fin_pending) {
            struct pollfd q = {.fd = r->data, .events = POLLIN};
            if (r->fin_pending >= ANSWER_EVERY || poll(&q, 1, 0) == 0) {
                r->fin_pending = 0;
                report(r, r->seen_upto);
            }
        }
    }
    int complete = r->ndone == r->c.nblocks;
    if (complete) {
        report(r, 0);                               /* flags: complete, so the sender stops waiting for it */
        hash_ready(r, (uint64_t)-1, NULL);
        hash_finish(r);
    }
    double secs = now() - t0;
    if (a->stats) {
        FILE *f = fopen(a->stats, "w");
        if (!f) die("%s: %s", a->stats, strerror(errno));
        char whole[65] = "";
        if (complete) {
            unsigned char md[32];
            unsigned int l;
            EVP_DigestFinal_ex(r->whole, md, &l);
            hexstr(md, 32, whole);
        }
        fprintf(f, "{\"complete\": %s, \"seconds\": %.3f, \"cpu_seconds\": %.3f, \"symbols\": %llu, \"duplicates\": %llu, "
                   "\"unicast_symbols\": %llu, \"peer_symbols\": %llu, \"decoded_blocks\": %llu, \"reports\": %llu, \"socket_overflows\": %u, "
                   "\"ecn_ce\": %u, \"first_pass_loss\": %.5f, \"no_slot\": %llu, \"test_dropped\": %llu, "
                   "\"sha256\": \"%s\", \"files\": [",
                complete ? "true" : "false", secs, cpu_seconds(), (unsigned long long)r->symbols, (unsigned long long)r->duplicates,
                (unsigned long long)r->unicast, (unsigned long long)r->from_peers, (unsigned long long)r->decoded, (unsigned long long)r->reports, r->ovfl,
                r->ce, r->expected_first ? 1.0 - (double)r->got_first / r->expected_first : 0.0,
                (unsigned long long)r->no_slot, (unsigned long long)r->test_dropped, whole);
        for (int i = 0; i < r->o.n; i++) fprintf(f, "%s\"%s\"", i ? ", " : "", complete ? r->file_digest[i] : "");
        fprintf(f, "]}\n");
        fclose(f);
    }
    if (complete && a->linger > 0) {
        /*
         * Serve peers for a while: the copy is whole and reported, so the caller may go on (it waits for this
         * process, not for the one that serves); the server keeps the data socket only, and no terminal.
         */
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            int null = open("/dev/null", O_RDWR);
            if (null >= 0) {
                dup2(null, 0);
                dup2(null, 1);
                dup2(null, 2);
            }
            close(r->ctl);
            serve_peers(&r->c, &r->o, r->data, r->sender.sin_addr.s_addr, a->linger);
            _exit(0);
        }
    }
    return complete ? 0 : 5;
}

