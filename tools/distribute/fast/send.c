/* m4d: the sender (m4d.h describes the protocol). */
#define _GNU_SOURCE
#include "m4d.h"

#define FLOOR_WINDOWS (64 / CHECKPOINT)   /* the loss floor: the lowest median loss of the last 64 blocks' windows */
#define LOSS_WINDOWS 9                    /* a link's loss: the median of this many windows (congestion's tails fewer) */
#define SETTLE 3                          /* windows after a cut whose losses are the data sent before it */
#define QHOLD 0.015                       /* queueing delay (s) that holds the rate, and that cuts it */
#define QCUT 0.040
#define HOLD_S 1.0                        /* seconds held just under the drop point before probing above it */

struct rx {
    uint32_t addr;                 /* network order */
    int member, done, failed, complete; /* member: named by --receivers */
    uint32_t answered;             /* the last checkpoint it answered */
    uint32_t lag;                  /* checkpoints sent since the one its last report answered */
    char digest[65];
    uint64_t got, expected, got_mark, exp_mark;
    uint32_t ovfl, ce, ovfl_mark, ce_mark;
    double loss;                   /* the link's loss: the median of its last LOSS_WINDOWS windows */
    double loss_hist[LOSS_WINDOWS];
    int nloss;
    double window;                 /* this window's, or -1 */
    int reported;
    int serving;                   /* complete, verified, and serving its peers */
    double busy_until;             /* when what it was asked to serve should be out */
    int64_t delay_base;            /* the lowest one-way delay it reported (microseconds, clocks' offset included) */
    int delay_seen;
    double queued;                 /* seconds its last checkpoint spent in queues, over the lowest */
};

struct sender {
    struct args *a;
    struct common c;
    struct object o;
    int data, ctl;
    struct sockaddr_in group;
    uint16_t rx_port;              /* receivers' control port */
    struct rx rx[MAXRX];
    int nrx, expected;
    /* per block: the next repair symbol, the round of the last repair, what the receivers asked */
    uint8_t *next_sym;
    uint32_t *repaired_round;
    uint8_t *need_max;
    uint8_t *delegated;            /* how often peers were asked for it: after PEER_TRIES, the sender repairs it */
    double *peer_due;              /* when the peer's symbols should have arrived: asked for before, they are on the way */
    uint8_t *entries, *mine;       /* blocks for peers to serve: this round's (block u32, first u8, n u8), one straggler's */
    int *owner;                    /* the straggler of each entry */
    int next_peer;
    uint16_t *need_cnt;
    int16_t *need_who;
    uint64_t *touched;
    uint64_t ntouched;
    uint32_t round;
    /* pacing */
    double rate, max_rate, tokens, last;
    int slow_start, silent, first_pass, active;
    double grow_start, grow;       /* the rate's growth a window: x1.5 and +5 % per 8 blocks */
    double ceiling;                /* where the path last dropped (0: not known, or passed since) */
    double recent[SETTLE];         /* the rates of the last windows: the highest is what the path dropped */
    int calm;                      /* windows since the last cut */
    double held_since;             /* when the rate reached just under the ceiling (0: not there) */
    double qlast;                  /* the last window's median queueing delay */
    double floor_hist[FLOOR_WINDOWS];
    int nfloor;
    int r, r_max;                  /* repair symbols per block on the first pass: now, at most */
    double t0;
    char trace[16384];             /* per checkpoint: seconds, Mbit/s, median loss, repair symbols per block */
    int trace_len;
    /* the batch being built */
    struct mmsghdr msgs[BATCH];
    struct iovec iov[BATCH];
    struct sockaddr_in dst[BATCH];
    uint8_t buf[BATCH][PKT];
    int nbatch;
    uint8_t announce[64];
    int announce_len;
    double next_announce;
    /* counters */
    uint64_t datagrams, bytes, fec, repair_mcast, repair_ucast, repair_peer, serve_requests, reports, congestion_cuts;
    uint64_t blockbuf_len;
    uint8_t *blockbuf, *repbuf;
};

static void flush(struct sender *s) {
    int off = 0;
    while (off < s->nbatch) {
        int n = sendmmsg(s->data, s->msgs + off, s->nbatch - off, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == ENOBUFS || errno == EAGAIN) {
                usleep(200);
                continue;
            }
            die("sendmmsg: %s", strerror(errno));
        }
        off += n;
    }
    s->nbatch = 0;
}

static void poll_ctl(struct sender *s, double wait);

static void pace(struct sender *s, int len) {
    for (;;) {
        double t = now();
        s->tokens += (t - s->last) * s->rate;
        /* credit for 8 ms: a sender descheduled for a few ms on a busy host catches up instead of losing it */
        double cap = s->rate * 0.008 > 16.0 * PKT ? s->rate * 0.008 : 16.0 * PKT;
        if (s->tokens > cap) s->tokens = cap;
        s->last = t;
        if (s->tokens >= len) {
            s->tokens -= len;
            return;
        }
        flush(s);
        /* sleep until 8 datagrams' worth is due: smooth enough for a switch's buffers, few wake-ups */
        poll_ctl(s, (len + 7.0 * PKT - s->tokens) / s->rate);
    }
}

/* a slot of the batch, to the group or to one receiver */
static uint8_t *slot(struct sender *s, uint32_t to_addr, int len) {
    pace(s, len + 28);
    if (s->nbatch == BATCH) flush(s);
    int i = s->nbatch++;
    if (to_addr) {
        s->dst[i].sin_family = AF_INET;
        s->dst[i].sin_addr.s_addr = to_addr;
        s->dst[i].sin_port = htons(s->rx_port);
    } else {
        s->dst[i] = s->group;
    }
    s->iov[i].iov_base = s->buf[i];
    s->iov[i].iov_len = len;
    memset(&s->msgs[i], 0, sizeof s->msgs[i]);
    s->msgs[i].msg_hdr.msg_name = &s->dst[i];
    s->msgs[i].msg_hdr.msg_namelen = sizeof s->dst[i];
    s->msgs[i].msg_hdr.msg_iov = &s->iov[i];
    s->msgs[i].msg_hdr.msg_iovlen = 1;
    s->datagrams++;
    s->bytes += len;
    return s->buf[i];
}

static void control(struct sender *s, int type, const uint8_t *body, int n) {
    uint8_t *p = slot(s, 0, HDR + n);
    header(p, type, 0, s->c.oid);
    if (n) memcpy(p + HDR, body, n);
}

static void send_announce(struct sender *s) {
    if (s->announce_len) {
        uint8_t *p = slot(s, 0, s->announce_len);
        memcpy(p, s->announce, s->announce_len);
    }
    s->next_announce = now() + 0.5;
}

static void fin(struct sender *s, uint64_t upto) {
    uint8_t b[20];
    s->round++;
    put32(b, s->round);
    put32(b + 4, (uint32_t)upto);
    put32(b + 8, (uint32_t)s->c.nblocks);
    put64(b + 12, (uint64_t)now_us());
    control(s, FIN2, b, sizeof b);
    flush(s);
    if (now() >= s->next_announce) send_announce(s);
}

static uint8_t **read_block(struct sender *s, uint64_t b, int k) {
    static uint8_t *ptr[MAXSYM];
    object_io(&s->o, b * (uint64_t)s->c.k * PAY, s->blockbuf, (uint64_t)k * PAY, 0);
    for (int i = 0; i < k; i++) ptr[i] = s->blockbuf + (size_t)i * PAY;
    return ptr;
}

static void emit(struct sender *s, uint32_t to, uint64_t b, int sym, int k, int first_pass, const uint8_t *payload) {
    uint8_t *p = slot(s, to, PKT);
    sym_header(p, s->c.oid, b, sym, k, first_pass, 0);
    memcpy(p + SYMHDR, payload, PAY);
}

/* n fresh repair symbols of block b, to the group (to = 0) or one receiver */
static void repair(struct sender *s, uint64_t b, int n, uint32_t to) {
    int k = block_k(&s->c, b);
    uint8_t **data = read_block(s, b, k);
    while (n > 0) {
        int first = s->next_sym[b];
        if (first >= MAXSYM) first = k;          /* every symbol sent: the repair symbols again, from the first */
        int m = MAXSYM - first < n ? MAXSYM - first : n;
        uint8_t *out[MAXSYM];
        for (int i = 0; i < m; i++) out[i] = s->repbuf + (size_t)i * PAY;
        encode(k, data, first, m, out);
        for (int i = 0; i < m; i++) emit(s, to, b, first + i, k, 0, out[i]);
        s->next_sym[b] = first + m;
        n -= m;
        if (to) s->repair_ucast += m;
        else s->repair_mcast += m;
    }
    s->repaired_round[b] = s->round;
}

static struct rx *find_rx(struct sender *s, uint32_t addr, int add) {
    for (int i = 0; i < s->nrx; i++)
        if (s->rx[i].addr == addr) return &s->rx[i];
    if (!add || s->nrx == MAXRX) return NULL;
    struct rx *r = &s->rx[s->nrx++];
    memset(r, 0, sizeof *r);
    r->addr = addr;
    return r;
}

static void on_report(struct sender *s, struct rx *r, const uint8_t *p, ssize_t n) {
    if (n < HDR + REPORT_FIXED) return;
    const uint8_t *q = p + HDR;
    uint32_t round = get32(q);
    r->got = get64(q + 4);
    r->expected = get64(q + 12);
    r->ovfl = get32(q + 20);
    r->ce = get32(q + 24);
    r->reported = 1;
    if (round > r->answered) r->answered = round;
    r->lag = s->round - round;
    if (p[5] & REPORT_COMPLETE) r->complete = 1;
    if (p[5] & REPORT_SERVING) r->serving = 1;
    int64_t delay = (int64_t)get64(q + 28);
    if (!r->delay_seen || delay < r->delay_base) r->delay_base = delay;   /* the clocks' offset and the path's own */
    r->delay_seen = 1;
    r->queued = (delay - r->delay_base) / 1e6;
    int count = get16(q + 36);
    if (n < HDR + REPORT_FIXED + 6 * count) return;
    s->reports++;
    int who = (int)(r - s->rx);
    for (int i = 0; i < count; i++) {
        uint64_t b = get32(q + REPORT_FIXED + 6 * i);
        int need = get16(q + REPORT_FIXED + 4 + 6 * i);
        if (b >= s->c.nblocks || need <= 0) continue;
        if (s->repaired_round[b] >= round) continue;   /* repaired since that checkpoint: its symbols are on the way */
        if (s->delegated[b] && now() < s->peer_due[b]) continue;
        if (need > block_k(&s->c, b)) need = block_k(&s->c, b);
        if (s->need_cnt[b] == 0) {
            s->touched[s->ntouched++] = b;
            s->need_who[b] = who;
        }
        if (s->need_cnt[b] < 0xFFFF) s->need_cnt[b]++;
        if (need > s->need_max[b]) s->need_max[b] = need;
    }
}

static void poll_ctl(struct sender *s, double wait) {
    double end = now() + (wait > 0 ? wait : 0);
    uint8_t p[2048];
    for (;;) {
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(s->ctl, p, sizeof p, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) die("recvfrom: %s", strerror(errno));
            double left = end - now();
            if (left <= 0) return;
            struct pollfd pf = {.fd = s->ctl, .events = POLLIN};
            struct timespec ts = {.tv_sec = (time_t)left, .tv_nsec = (long)((left - (time_t)left) * 1e9)};
            ppoll(&pf, 1, &ts, NULL);
            if (!(pf.revents & POLLIN) && now() >= end) return;
            continue;
        }
        if (!ours(p, n, s->c.oid)) continue;
        struct rx *r = find_rx(s, from.sin_addr.s_addr, 1);
        if (!r) continue;
        if (p[4] == REPORT) {
            on_report(s, r, p, n);
        } else if (p[4] == DONE && n >= HDR + 33) {
            if (!r->done && !r->failed) {
                if (p[HDR] == 1) r->done = 1;
                else r->failed = 1;
                hexstr(p + HDR + 1, 32, r->digest);
            }
            r->complete = 1;
            uint8_t ack[HDR];
            header(ack, DONEACK, 0, s->c.oid);
            sendto(s->ctl, ack, HDR, 0, (struct sockaddr *)&from, fl);
        }
    }
}

/* a receiver with a verified copy that serves its peers, other than `not`, round robin; -1 if none */
static int pick_peer(struct sender *s, int not) {
    for (int j = 0; j < s->nrx; j++) {
        int i = (s->next_peer + j) % s->nrx;
        struct rx *r = &s->rx[i];
        if (i != not && r->serving && r->done && !r->failed) {
            s->next_peer = i + 1;
            return i;
        }
    }
    return -1;
}

static int serving_peers(struct sender *s) {
    int n = 0;
    for (int i = 0; i < s->nrx; i++) n += s->rx[i].serving && s->rx[i].done && !s->rx[i].failed;
    return n;
}

/* asks peers for these blocks' symbols to receiver `who`: SERVE_CHUNK blocks a peer, the rate shared among them */
static void delegate(struct sender *s, int who, const uint8_t *entries, int count) {
    int peers = serving_peers(s) - (s->rx[who].serving != 0);
    int chunks = (count + SERVE_CHUNK - 1) / SERVE_CHUNK;
    int used = chunks < peers ? chunks : peers;
    uint32_t kbit = (uint32_t)(s->rate * 8 / 1000 / (used > 0 ? used : 1));
    for (int off = 0; off < count; off += SERVE_CHUNK) {
        int n = count - off < SERVE_CHUNK ? count - off : SERVE_CHUNK;
        int peer = pick_peer(s, who);
        if (peer < 0) return;
        uint8_t p[HDR + SERVE_FIXED + 6 * SERVE_CHUNK];
        header(p, SERVE, 0, s->c.oid);
        put32(p + HDR, s->round);
        memcpy(p + HDR + 4, &s->rx[who].addr, 4);
        uint16_t port = htons(s->rx_port);
        memcpy(p + HDR + 8, &port, 2);
        put32(p + HDR + 10, kbit ? kbit : 1);
        put16(p + HDR + 14, n);
        memcpy(p + HDR + SERVE_FIXED, entries + 6 * off, 6 * n);
        /* the peer sends them at its share of the rate after what it has already been asked for: until then, half
           as long again and 100 ms, they are on the way */
        uint64_t symbols = 0;
        for (int i = off; i < off + n; i++) symbols += entries[6 * i + 5];
        double t = now(), start = s->rx[peer].busy_until > t ? s->rx[peer].busy_until : t;
        double takes = (double)symbols * (PKT + 28) * 8 / (kbit ? kbit : 1) / 1000;
        s->rx[peer].busy_until = start + takes;
        double due = start + 1.5 * takes + 0.1;
        for (int i = off; i < off + n; i++) s->peer_due[get32(entries + 6 * i)] = due;
        struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = s->group.sin_port};
        to.sin_addr.s_addr = s->rx[peer].addr;
        sendto(s->ctl, p, HDR + SERVE_FIXED + 6 * n, 0, (struct sockaddr *)&to, sizeof to);
        s->bytes += HDR + SERVE_FIXED + 6 * n;
        s->serve_requests++;
    }
}

/*
 * Every block someone asked for since the last time, once for all. What it costs the sender: max(need) by multicast
 * when several lack it, the need by unicast when one does, and one control datagram for many blocks when a peer
 * with a verified copy can send them instead (twice at most; after that the sender sends the block itself).
 */
static void serve_needs(struct sender *s) {
    uint8_t *entries = s->entries, *mine = s->mine;
    int *owner = s->owner, nent = 0;
    for (uint64_t i = 0; i < s->ntouched; i++) {
        uint64_t b = s->touched[i];
        int who = s->need_who[b], cnt = s->need_cnt[b], need = s->need_max[b];
        s->need_cnt[b] = 0;
        s->need_max[b] = 0;
        if (s->rx[who].complete && cnt == 1) continue;
        int first = s->next_sym[b];
        if (cnt == 1 && s->delegated[b] < PEER_TRIES && first + need <= MAXSYM && pick_peer(s, who) >= 0) {
            uint8_t *e = entries + 6 * nent;
            put32(e, (uint32_t)b);
            e[4] = first;
            e[5] = need;
            owner[nent++] = who;
            s->next_sym[b] = first + need;
            s->delegated[b]++;
            s->repaired_round[b] = s->round;
            s->repair_peer += need;
            continue;
        }
        repair(s, b, need, cnt == 1 ? s->rx[who].addr : 0);
    }
    s->ntouched = 0;
    /* each straggler's blocks, in order, to its peers (few stragglers: one pass over the entries for each) */
    for (int i = 0; i < nent; i++) {
        int who = owner[i], n = 0;
        if (who < 0) continue;
        for (int j = i; j < nent; j++)
            if (owner[j] == who) {
                memcpy(mine + 6 * n++, entries + 6 * j, 6);
                owner[j] = -1;
            }
        delegate(s, who, mine, n);
    }
}

static double binom_cdf(int n, double p, int x) {   /* P(Bin(n, p) <= x) */
    if (x < 0) return 0;
    if (p <= 0) return 1;
    double term = pow(1 - p, n), sum = term;
    for (int j = 1; j <= x && j <= n; j++) {
        term *= (double)(n - j + 1) / j * p / (1 - p);
        sum += term;
    }
    return sum > 1 ? 1 : sum;
}

/*
 * The rate. By half every 8 blocks until the first congestion, then by 5 % every 8 blocks up to just under where the
 * path last dropped (the ceiling: the highest rate of the windows that lost), held there for HOLD_S, and only
 * then probed above by 1 % every 8 blocks; a probe that passes the ceiling by 5 % without loss forgets it. A
 * congestion episode is cut once, to 85 % of the ceiling (of the rate, if that is lower already): its losses in the next SETTLE windows are what was sent
 * before the cut (the switch's queue draining), not news. A sawtooth that grows into the drop point every second
 * and cuts three times for each of its episodes pays a repair of every receiver's tail of each; the ceiling
 * reaches the same point once in a few seconds, and spends the time between just under it rather than at 50-100 %.
 */
static void remember(struct sender *s) {
    memmove(s->recent + 1, s->recent, (SETTLE - 1) * sizeof(double));
    s->recent[0] = s->rate;
    s->calm++;
}

static void hold(struct sender *s) {
    remember(s);
    s->slow_start = 0;
}

static void calm(struct sender *s) {
    remember(s);
    if (s->calm <= SETTLE && s->ceiling > 0) return;     /* the cut's effect is not yet reported */
    if (s->ceiling <= 0 || s->rate < 0.92 * s->ceiling) {
        s->rate *= s->slow_start ? s->grow_start : s->grow;
        if (s->ceiling > 0 && s->rate > 0.92 * s->ceiling) s->rate = 0.92 * s->ceiling;
        s->held_since = 0;
    } else if (!s->held_since) {
        s->held_since = now();
    } else if (now() - s->held_since > HOLD_S) {
        s->rate *= pow(1.01, CHECKPOINT / 8.0);
        if (s->rate > 1.05 * s->ceiling) s->ceiling = 0;
    }
}

static void congested(struct sender *s) {
    double peak = s->rate;
    for (int i = 0; i < SETTLE; i++) peak = s->recent[i] > peak ? s->recent[i] : peak;
    memmove(s->recent + 1, s->recent, (SETTLE - 1) * sizeof(double));
    s->recent[0] = s->rate;
    if (++s->calm <= SETTLE && !s->slow_start) return;   /* the same episode: what was sent before the cut */
    s->ceiling = peak;
    s->rate = 0.85 * peak < s->rate ? 0.85 * peak : s->rate * 0.85;
    s->slow_start = 0;
    s->calm = 0;
    s->held_since = 0;
    s->congestion_cuts++;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void sort_doubles(double *v, int n) { qsort(v, n, sizeof *v, by_value); }

/*
 * The rate and the code from the reports since the last checkpoint. Repair symbols sent on the first pass cost what
 * repairs would (a fresh symbol mends one loss at every receiver), but spare a round: r is the largest count the
 * neediest receiver will use in at least 70 % of the blocks, so a clean fabric pays nothing and a lossy one rarely
 * waits for a repair.
 */
static void adapt(struct sender *s) {
    double losses[MAXRX];
    int n = 0;
    uint64_t congestion = 0;
    int behind = 0;
    s->active = 0;
    for (int i = 0; i < s->nrx; i++) {
        struct rx *r = &s->rx[i];
        s->active += r->member && !r->complete && !r->done && !r->failed;
        if (!r->reported || r->done || r->failed) continue;
        behind += !r->complete && r->lag >= 3;   /* for the trace: receivers behind their queues */
        uint64_t de = r->expected - r->exp_mark, dg = r->got - r->got_mark;
        congestion += (uint32_t)(r->ovfl - r->ovfl_mark) + (uint32_t)(r->ce - r->ce_mark);
        r->ovfl_mark = r->ovfl;
        r->ce_mark = r->ce;
        r->window = -1;
        if (de >= 64) {
            r->window = dg >= de ? 0 : (double)(de - dg) / de;
            r->exp_mark = r->expected;
            r->got_mark = r->got;
            losses[n++] = r->window;
        }
    }
    /* the queues the last checkpoint met: the median receiver's and the longest */
    double queued[MAXRX], qmed = 0, qmax = 0;
    int nq = 0;
    for (int i = 0; i < s->nrx; i++) {
        struct rx *r = &s->rx[i];
        if (r->delay_seen && r->reported && !r->done && !r->failed && !r->complete) queued[nq++] = r->queued;
    }
    if (nq) {
        sort_doubles(queued, nq);
        qmed = queued[nq / 2];
        qmax = queued[nq - 1];
    }
    int cut = 0;
    if (n) {
        /* the median receiver's loss; its floor over the last windows is the links' own, not congestion */
        sort_doubles(losses, n);
        double median = losses[n / 2];
        if (s->nfloor < FLOOR_WINDOWS) s->floor_hist[s->nfloor++] = median;
        else {
            memmove(s->floor_hist, s->floor_hist + 1, (FLOOR_WINDOWS - 1) * sizeof(double));
            s->floor_hist[FLOOR_WINDOWS - 1] = median;
        }
        double floor = 1;
        for (int i = 0; i < s->nfloor; i++) floor = s->floor_hist[i] < floor ? s->floor_hist[i] : floor;
        /*
         * Congestion: sockets that overflowed, ECN marks, loss well above its floor, or the median receiver's data
         * queued QCUT longer than the least it ever was: a switch with deep buffers drops only once they are full,
         * a second of the rate too late; cut while that queue still grows, held while it drains. Queued QHOLD
         * longer, the rate holds and slow start ends. (Lower thresholds, 4 and 8 ms, held
         * the rate a third lower on two cores, where 16-32 receivers' scheduling alone delays their reading 5-10 ms.)
         */
        if (congestion > 0 || (s->nfloor >= 3 && median > 2 * floor && median > floor + 0.03)
                || (qmed > QCUT && qmed >= s->qlast)) {
            cut = 1;
            congested(s);
        } else if (qmed > QHOLD) {
            hold(s);            /* a queue: still building, or draining after a cut */
        } else {
            calm(s);
        }
        s->qlast = qmed;
        s->silent = 0;
    } else if (congestion == 0 && s->first_pass && s->active && ++s->silent >= ANSWER_EVERY) {
        /* no receiver answered for 32 blocks: all too far behind; sending on blind would only deepen their queues */
        s->rate *= 0.8;
        s->silent = 0;
        s->congestion_cuts++;
    } else if (congestion == 0) {
        calm(s);
    }
    if (s->rate < s->max_rate / 64) s->rate = s->max_rate / 64;
    if (s->rate > s->max_rate) s->rate = s->max_rate;
    /*
     * The links' loss, which the code is for, from windows without a cut (the rate answers congestion): the median
     * of a receiver's last windows, so that the tails of a congestion episode (the windows just before its cut and
     * those after it, still carrying what was sent before) do not pass for loss of the link and buy repair symbols
     * on a clean fabric.
     */
    for (int i = 0; i < s->nrx && !cut; i++) {
        struct rx *r = &s->rx[i];
        if (r->window < 0 || !r->reported || r->done || r->failed) continue;
        if (r->nloss == LOSS_WINDOWS) memmove(r->loss_hist, r->loss_hist + 1, (LOSS_WINDOWS - 1) * sizeof(double));
        else r->nloss++;
        r->loss_hist[r->nloss - 1] = r->window;
        double v[LOSS_WINDOWS];
        memcpy(v, r->loss_hist, r->nloss * sizeof(double));
        sort_doubles(v, r->nloss);
        r->loss = v[r->nloss / 2];
    }
    if (n && s->trace_len < (int)sizeof s->trace - 96)
        s->trace_len += snprintf(s->trace + s->trace_len, sizeof s->trace - s->trace_len,
                                 "%s[%.3f, %.1f, %.4f, %d, %d, %llu, %.2f, %.2f]", s->trace_len ? ", " : "",
                                 now() - s->t0, s->rate * 8 / 1e6, losses[n / 2], s->r, behind,
                                 (unsigned long long)congestion, qmed * 1e3, qmax * 1e3);
    int k = s->c.k, r;
    for (r = 0; r < k / 4; r++) {     /* a quarter at most: more would load receivers already losing */
        double none = 1;                 /* P(every receiver loses at most r symbols of k + r + 1) */
        for (int i = 0; i < s->nrx; i++) {
            struct rx *x = &s->rx[i];
            if (x->reported && !x->done && !x->failed && !x->complete) none *= binom_cdf(k + r + 1, x->loss, r);
        }
        if (1 - none < 0.7) break;       /* the (r+1)-th repair symbol would be needed in fewer than 70 % */
    }
    s->r = r;
    if (r > s->r_max) s->r_max = r;
}

static void progress(struct sender *s, double t0, int final) {
    static double last;
    double t = now();
    int tty = isatty(2);
    if (!final && t - last < (tty ? 0.25 : 2.0)) return;
    last = t;
    int done = 0, failed = 0;
    for (int i = 0; i < s->nrx; i++) {
        done += s->rx[i].member && s->rx[i].done;
        failed += s->rx[i].member && s->rx[i].failed;
    }
    uint64_t repairs = (s->repair_mcast + s->repair_ucast) * (uint64_t)PKT;
    fprintf(stderr, "%sdistribute: sent %.1f of %.1f MB, %.0f Mbit/s (now %.0f), repairs %.2f MB, code +%d/%d, "
                    "receivers verified %d/%d%s%s",
            tty && !final ? "\r" : "", (s->bytes - repairs) / 1e6, s->o.total / 1e6,
            s->bytes * 8 / 1e6 / (t - t0 > 1e-3 ? t - t0 : 1e-3), s->rate * 8 / 1e6, repairs / 1e6, s->r, s->c.k,
            done, s->expected, failed ? ", FAILED " : "", tty && !final ? "    " : "\n");
    if (failed) fprintf(stderr, "%d%s", failed, tty && !final ? "" : "\n");
    fflush(stderr);
}

static int finished(struct sender *s) {
    int reported = 0;
    for (int i = 0; i < s->nrx; i++)
        if (s->rx[i].member && (s->rx[i].done || s->rx[i].failed)) reported++;
    return reported >= s->expected && s->expected > 0;
}

int sender_main(struct args *a) {
    struct sender *s = calloc(1, sizeof *s);
    s->a = a;
    common_init(&s->c, &s->o, a, O_RDONLY);
    s->data = a->fd_data;
    s->ctl = a->fd_ctl;
    s->group.sin_family = AF_INET;
    if (!a->group || inet_pton(AF_INET, a->group, &s->group.sin_addr) != 1) die("--group: an IPv4 address");
    s->group.sin_port = htons(a->port);
    s->rx_port = a->port + 2;
    if (a->announce) s->announce_len = unhex(a->announce, s->announce, sizeof s->announce);
    int tos = 0x02;                                   /* ECT(0): a switch under pressure marks instead of drops */
    setsockopt(s->data, IPPROTO_IP, IP_TOS, &tos, sizeof tos);
    if (a->receivers) {
        char *list = strdup(a->receivers), *save = NULL;
        for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            struct in_addr in;
            struct rx *r = inet_pton(AF_INET, t, &in) == 1 ? find_rx(s, in.s_addr, 1) : NULL;
            if (r && !r->member) {
                r->member = 1;
                s->expected++;
            }
        }
        free(list);
    }
    uint64_t nb = s->c.nblocks;
    s->next_sym = malloc(nb ? nb : 1);
    s->repaired_round = calloc(nb ? nb : 1, sizeof(uint32_t));
    s->need_max = calloc(nb ? nb : 1, 1);
    s->delegated = calloc(nb ? nb : 1, 1);
    s->peer_due = calloc(nb ? nb : 1, sizeof(double));
    s->entries = malloc((nb ? nb : 1) * 6);
    s->mine = malloc((nb ? nb : 1) * 6);
    s->owner = malloc((nb ? nb : 1) * sizeof(int));
    s->need_cnt = calloc(nb ? nb : 1, sizeof(uint16_t));
    s->need_who = calloc(nb ? nb : 1, sizeof(int16_t));
    s->touched = malloc((nb ? nb : 1) * sizeof(uint64_t));
    s->blockbuf = malloc((size_t)MAXSYM * PAY);
    s->repbuf = malloc((size_t)MAXSYM * PAY);
    s->max_rate = a->rate * 1e6 / 8;
    s->rate = s->max_rate / 4;
    s->slow_start = 1;
    s->grow_start = pow(1.5, CHECKPOINT / 8.0);
    s->grow = pow(1.05, CHECKPOINT / 8.0);
    s->last = now();
    double t0 = now(), deadline = t0 + a->timeout;
    s->t0 = t0;
    send_announce(s);
    uint8_t *rep[MAXSYM];
    for (int i = 0; i < MAXSYM; i++) rep[i] = s->repbuf + (size_t)i * PAY;
    uint64_t first_pass_end = 0;
    s->first_pass = 1;
    for (uint64_t b = 0; b < nb && now() < deadline; b++) {
        if (b % CHECKPOINT == 0 && b) {
            fin(s, b);
            poll_ctl(s, 0);
            adapt(s);
            serve_needs(s);
            progress(s, t0, 0);
        }
        int k = block_k(&s->c, b);
        uint8_t **data = read_block(s, b, k);
        int r = s->r < MAXSYM - k ? s->r : MAXSYM - k;
        if (r) encode(k, data, k, r, rep);
        for (int i = 0; i < k; i++) emit(s, 0, b, i, k, k + r, data[i]);
        for (int i = 0; i < r; i++) emit(s, 0, b, k + i, k, k + r, rep[i]);
        s->fec += r;
        s->next_sym[b] = k + r;
    }
    first_pass_end = s->datagrams;
    s->first_pass = 0;
    /* rounds: a checkpoint over everything, the reports of a window, the repairs; until every receiver reported */
    int rounds = 0;
    while (!finished(s) && now() < deadline) {
        rounds++;
        fin(s, nb);
        double start = now(), end = start + a->window / 1000.0;
        while (now() < end) {
            poll_ctl(s, end - now());
            /* every receiver still at it has answered this round: no need to wait out the window */
            int waiting = 0;
            for (int i = 0; i < s->nrx; i++)
                if (!s->rx[i].complete && !s->rx[i].done && !s->rx[i].failed && s->rx[i].answered < s->round)
                    waiting++;
            if (!waiting && now() - start > 0.002) break;
        }
        adapt(s);
        serve_needs(s);
        flush(s);
        if (rounds % 8 == 0) send_announce(s);
        progress(s, t0, 0);
    }
    /* the transfer is over: receivers that serve their peers may go */
    for (int i = 0; i < 3; i++) control(s, END, NULL, 0);
    flush(s);
    progress(s, t0, 1);
    double secs = now() - t0;
    if (a->stats) {
        FILE *f = fopen(a->stats, "w");
        if (!f) die("%s: %s", a->stats, strerror(errno));
        fprintf(f, "{\"seconds\": %.3f, \"cpu_seconds\": %.3f, \"datagrams\": %llu, \"bytes\": %llu, \"first_pass_datagrams\": %llu, "
                   "\"fec_symbols\": %llu, \"repair_multicast\": %llu, \"repair_unicast\": %llu, "
                   "\"repair_peer\": %llu, \"serve_requests\": %llu, \"repair_datagrams\": %llu, \"rounds\": %d, \"reports\": %llu, \"congestion_cuts\": %llu, "
                   "\"rate_mbit_end\": %.1f, \"fec_per_block_max\": %d, \"block\": %d, \"trace\": [%s], \"done\": {",
                secs, cpu_seconds(), (unsigned long long)s->datagrams, (unsigned long long)s->bytes,
                (unsigned long long)first_pass_end, (unsigned long long)s->fec, (unsigned long long)s->repair_mcast,
                (unsigned long long)s->repair_ucast, (unsigned long long)s->repair_peer, (unsigned long long)s->serve_requests,
                (unsigned long long)(s->repair_mcast + s->repair_ucast), rounds,
                (unsigned long long)s->reports, (unsigned long long)s->congestion_cuts, s->rate * 8 / 1e6, s->r_max,
                s->c.k, s->trace);
        int first = 1;
        for (int i = 0; i < s->nrx; i++) {
            struct rx *r = &s->rx[i];
            if (!r->done && !r->failed) continue;
            char ip[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &r->addr, ip, sizeof ip);
            fprintf(f, "%s\"%s\": [%d, \"%s\"]", first ? "" : ", ", ip, r->done ? 1 : 2, r->digest);
            first = 0;
        }
        fprintf(f, "}}\n");
        fclose(f);
    }
    return finished(s) ? 0 : 5;
}

