/*
 * m4d: the data phase of mcast4ai-distribute, compiled. distribute.py does the rendezvous (announce, manifest over
 * TCP, READY) and hands this program its sockets; this program moves the object's bytes and exits when every
 * receiver has its copy (the sender: when every receiver reported DONE).
 *
 * The object is cut into blocks of k datagrams of 1,448 bytes (the last block shorter). Each block is a systematic
 * Reed-Solomon code over GF(2^8) (ISA-L, a Cauchy matrix: any k of the block's up to 255 symbols rebuild it):
 * symbols 0..k-1 are the data, k.. repair symbols. The sender sends each block's data and r repair symbols, r
 * following the loss the receivers report (r = 0 on a clean fabric); every 8 blocks it sends a checkpoint (FIN2);
 * every receiver answers with a REPORT: its counters and, per block below the checkpoint it cannot rebuild yet, how
 * many more symbols it needs. The sender repairs each block once for all: fresh repair symbols by multicast, as many
 * as the neediest receiver lacks, or to the one receiver that lacks any by unicast (what costs the sender less).
 * Receivers batch their reads (recvmmsg), write whole blocks, and hash the object as it completes, so that they
 * report the SHA-256s without reading it back.
 *
 * Wire (UDP, big endian), after the common 16-byte header (magic "M4D1", type, flags, 2 reserved, object id):
 *   SYM    (9, multicast or unicast) block u32, symbol u8, k u8, first-pass symbols of the block u8, 0 u8, 1,448 bytes
 *   FIN2  (10, multicast)            round u32, upto u32 (blocks below had their first pass), blocks u32
 *   REPORT(11, unicast)              round u32, first-pass symbols got u64, expected u64, socket overflows u32,
 *                                    ECN CE u32, count u16, count x (block u32, symbols needed u16); flags 1: complete
 *   DONE   (5) / DONEACK (6) / READY (8) / ANNOUNCE (1): as distribute.py describes.
 *
 * Rate: a token bucket at most --rate Mbit/s. Overflows of the receivers' sockets and ECN CE marks are congestion
 * (the rate drops by a fifth); loss that stays whatever the rate is a lossy link, repaired by the code, not slowed
 * for; loss well above its floor is congestion too.
 */
#define _GNU_SOURCE
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

#define PAY 1448
#define HDR 16
#define SYMHDR 8
#define PKT (HDR + SYMHDR + PAY)
#define MAXSYM 255
#define CHECKPOINT 8            /* blocks between checkpoints */
#define BATCH 64
#define MAXRX 4096
#define REPORT_MAX 200          /* needs per REPORT datagram */
#define REPORT_PKTS 4           /* REPORT datagrams per checkpoint */
#define SLOTS 1024              /* blocks a receiver rebuilds at once */
enum { ANNOUNCE = 1, DONE = 5, DONEACK = 6, READY = 8, SYM = 9, FIN2 = 10, REPORT = 11 };

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "m4d: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
}

static void put32(uint8_t *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }
static void put16(uint8_t *p, uint16_t v) { v = htons(v); memcpy(p, &v, 2); }
static void put64(uint8_t *p, uint64_t v) { put32(p, v >> 32); put32(p + 4, (uint32_t)v); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return ntohl(v); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return ntohs(v); }
static uint64_t get64(const uint8_t *p) { return ((uint64_t)get32(p) << 32) | get32(p + 4); }

static int unhex(const char *s, uint8_t *out, size_t max) {
    size_t n = strlen(s) / 2;
    if (n > max) return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = v;
    }
    return (int)n;
}

/* ------------------------------------------------------------------ the object: files in order, concatenated */

struct object {
    int n;
    int *fd;
    uint64_t *off, *size;
    uint64_t total;
};

static void object_open(struct object *o, const char *list, int flags) {
    FILE *f = fopen(list, "r");
    if (!f) die("%s: %s", list, strerror(errno));
    char line[8192];
    o->n = 0;
    o->total = 0;
    int cap = 16;
    o->fd = malloc(cap * sizeof(int));
    o->off = malloc(cap * sizeof(uint64_t));
    o->size = malloc(cap * sizeof(uint64_t));
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        line[strcspn(line, "\n")] = 0;
        if (o->n == cap) {
            cap *= 2;
            o->fd = realloc(o->fd, cap * sizeof(int));
            o->off = realloc(o->off, cap * sizeof(uint64_t));
            o->size = realloc(o->size, cap * sizeof(uint64_t));
        }
        o->size[o->n] = strtoull(line, NULL, 10);
        o->off[o->n] = o->total;
        o->fd[o->n] = open(tab + 1, flags);
        if (o->fd[o->n] < 0) die("%s: %s", tab + 1, strerror(errno));
        o->total += o->size[o->n];
        o->n++;
    }
    fclose(f);
}

/* bytes [pos, pos + len) of the object, read (write = 0) or written (write = 1); reads past the end are zeros */
static void object_io(struct object *o, uint64_t pos, uint8_t *buf, uint64_t len, int write) {
    if (pos + len > o->total) {
        uint64_t in = pos < o->total ? o->total - pos : 0;
        if (!write) memset(buf + in, 0, len - in);
        len = in;
    }
    for (int i = 0; i < o->n && len > 0; i++) {
        if (pos >= o->off[i] + o->size[i]) continue;
        uint64_t within = pos - o->off[i];
        uint64_t n = o->size[i] - within < len ? o->size[i] - within : len;
        uint64_t done = 0;
        while (done < n) {
            ssize_t r = write ? pwrite(o->fd[i], buf + done, n - done, within + done)
                              : pread(o->fd[i], buf + done, n - done, within + done);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) die("%s object bytes at %llu: %s", write ? "writing" : "reading",
                            (unsigned long long)(pos + done), r < 0 ? strerror(errno) : "short file");
            done += r;
        }
        buf += n;
        pos += n;
        len -= n;
    }
}

/* ------------------------------------------------------------------ the code */

static uint8_t cauchy[MAXSYM + 1][MAXSYM * MAXSYM];   /* per k: the (255 x k) systematic matrix, made on first use */
static uint8_t cauchy_made[MAXSYM + 1];

static const uint8_t *matrix(int k) {
    if (!cauchy_made[k]) {
        gf_gen_cauchy1_matrix(cauchy[k], MAXSYM, k);
        cauchy_made[k] = 1;
    }
    return cauchy[k];
}

/* symbols row..row+n-1 (row >= k: repair symbols) of a block whose k data symbols are data[0..k-1] */
static void encode(int k, uint8_t **data, int row, int n, uint8_t **out) {
    static uint8_t tbls[32 * MAXSYM * MAXSYM];
    ec_init_tables(k, n, (uint8_t *)matrix(k) + row * k, tbls);
    ec_encode_data(PAY, k, n, tbls, data, out);
}

struct common {
    uint8_t oid[8];
    int k;
    uint64_t nblocks, datagrams;
};

static int block_k(struct common *c, uint64_t b) {
    uint64_t left = c->datagrams - b * c->k;
    return left < (uint64_t)c->k ? (int)left : c->k;
}

static void header(uint8_t *p, int type, int flags, const uint8_t *oid) {
    memcpy(p, "M4D1", 4);
    p[4] = type;
    p[5] = flags;
    p[6] = p[7] = 0;
    memcpy(p + 8, oid, 8);
}

static int ours(const uint8_t *p, ssize_t n, const uint8_t *oid) {
    return n >= HDR && memcmp(p, "M4D1", 4) == 0 && memcmp(p + 8, oid, 8) == 0;
}

/* ------------------------------------------------------------------ arguments */

struct args {
    const char *mode, *group, *sender, *oid, *announce, *files, *receivers, *stats;
    int fd_data, fd_ctl, port, k;
    double rate, timeout, window;
    uint64_t size;
    long test_drop_ppm;
};

static void parse(int argc, char **argv, struct args *a) {
    memset(a, 0, sizeof *a);
    a->k = 64;
    a->rate = 400;
    a->timeout = 600;
    a->window = 30;
    a->fd_data = a->fd_ctl = -1;
    if (argc < 2) die("usage: m4d send|receive --fd-data N --fd-ctl N ...");
    a->mode = argv[1];
    for (int i = 2; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--fd-data")) a->fd_data = atoi(v);
        else if (!strcmp(k, "--fd-ctl")) a->fd_ctl = atoi(v);
        else if (!strcmp(k, "--group")) a->group = v;
        else if (!strcmp(k, "--sender")) a->sender = v;
        else if (!strcmp(k, "--port")) a->port = atoi(v);
        else if (!strcmp(k, "--oid")) a->oid = v;
        else if (!strcmp(k, "--announce")) a->announce = v;
        else if (!strcmp(k, "--files")) a->files = v;
        else if (!strcmp(k, "--size")) a->size = strtoull(v, NULL, 10);
        else if (!strcmp(k, "--k")) a->k = atoi(v);
        else if (!strcmp(k, "--rate")) a->rate = atof(v);
        else if (!strcmp(k, "--timeout")) a->timeout = atof(v);
        else if (!strcmp(k, "--window")) a->window = atof(v);
        else if (!strcmp(k, "--receivers")) a->receivers = v;
        else if (!strcmp(k, "--stats")) a->stats = v;
        else if (!strcmp(k, "--test-drop-ppm")) a->test_drop_ppm = atol(v);
        else die("unknown option %s", k);
    }
    if (a->fd_data < 0 || a->fd_ctl < 0 || !a->oid || !a->files || a->port <= 0) die("missing arguments");
    if (a->k < 1 || a->k > 128) die("--k must be 1..128");
}

static void common_init(struct common *c, struct args *a) {
    if (unhex(a->oid, c->oid, 8) != 8) die("--oid: 16 hex digits");
    c->k = a->k;
    c->datagrams = (a->size + PAY - 1) / PAY;
    c->nblocks = (c->datagrams + c->k - 1) / c->k;
}

static void hexstr(const uint8_t *d, int n, char *out) {
    for (int i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", d[i]);
}

/* ------------------------------------------------------------------ the sender */

struct rx {
    uint32_t addr;                 /* network order */
    int member, done, failed, complete; /* member: named by --receivers */
    uint32_t answered;             /* the last checkpoint it answered */
    uint32_t lag;                  /* checkpoints sent since the one its last report answered */
    char digest[65];
    uint64_t got, expected, got_mark, exp_mark;
    uint32_t ovfl, ce, ovfl_mark, ce_mark;
    double loss;                   /* smoothed first-pass loss, windows without congestion */
    double window;                 /* this window's, or -1 */
    int seen_loss;
    int reported;
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
    uint16_t *need_cnt;
    int16_t *need_who;
    uint64_t *touched;
    uint64_t ntouched;
    uint32_t round;
    /* pacing */
    double rate, max_rate, tokens, last;
    int slow_start, silent, first_pass, active;
    double floor_hist[8];
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
    uint64_t datagrams, bytes, fec, repair_mcast, repair_ucast, reports, congestion_cuts;
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
    memcpy(p + HDR, body, n);
}

static void send_announce(struct sender *s) {
    if (s->announce_len) {
        uint8_t *p = slot(s, 0, s->announce_len);
        memcpy(p, s->announce, s->announce_len);
    }
    s->next_announce = now() + 0.5;
}

static void fin(struct sender *s, uint64_t upto) {
    uint8_t b[12];
    s->round++;
    put32(b, s->round);
    put32(b + 4, (uint32_t)upto);
    put32(b + 8, (uint32_t)s->c.nblocks);
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
    header(p, SYM, 0, s->c.oid);
    put32(p + HDR, (uint32_t)b);
    p[HDR + 4] = sym;
    p[HDR + 5] = k;
    p[HDR + 6] = first_pass;
    p[HDR + 7] = 0;
    memcpy(p + HDR + SYMHDR, payload, PAY);
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
    if (n < HDR + 30) return;
    const uint8_t *q = p + HDR;
    uint32_t round = get32(q);
    r->got = get64(q + 4);
    r->expected = get64(q + 12);
    r->ovfl = get32(q + 20);
    r->ce = get32(q + 24);
    r->reported = 1;
    if (round > r->answered) r->answered = round;
    r->lag = s->round - round;
    if (p[5] & 1) r->complete = 1;
    int count = get16(q + 28);
    if (n < HDR + 30 + 6 * count) return;
    s->reports++;
    int who = (int)(r - s->rx);
    for (int i = 0; i < count; i++) {
        uint64_t b = get32(q + 30 + 6 * i);
        int need = get16(q + 34 + 6 * i);
        if (b >= s->c.nblocks || need <= 0) continue;
        if (s->repaired_round[b] >= round) continue;   /* repaired since that checkpoint: its symbols are on the way */
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

/* every block someone asked for since the last time: once for all */
static void serve_needs(struct sender *s) {
    for (uint64_t i = 0; i < s->ntouched; i++) {
        uint64_t b = s->touched[i];
        int who = s->need_who[b], cnt = s->need_cnt[b], need = s->need_max[b];
        s->need_cnt[b] = 0;
        s->need_max[b] = 0;
        if (s->rx[who].complete && cnt == 1) continue;
        /* the sender pays max(need) by multicast, the sum of the needs by unicast: one receiver is unicast */
        repair(s, b, need, cnt == 1 ? s->rx[who].addr : 0);
    }
    s->ntouched = 0;
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
 * The rate and the code from the reports since the last checkpoint. Repair symbols sent on the first pass cost what
 * repairs would (a fresh symbol mends one loss at every receiver), but spare a round: r is the largest count the
 * neediest receiver will use in at least 70 % of the blocks, so a clean fabric pays nothing and a lossy one rarely
 * waits for a repair.
 */
/* up by half a window until the first congestion, then by 5 % a window */
static void grow(struct sender *s) {
    s->rate *= s->slow_start ? 1.5 : 1.05;
}

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
    int cut = 0;
    if (n) {
        /* the median receiver's loss; its floor over the last windows is the links' own, not congestion */
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && losses[j] < losses[j - 1]; j--) {
                double t = losses[j];
                losses[j] = losses[j - 1];
                losses[j - 1] = t;
            }
        double median = losses[n / 2];
        if (s->nfloor < 8) s->floor_hist[s->nfloor++] = median;
        else {
            memmove(s->floor_hist, s->floor_hist + 1, 7 * sizeof(double));
            s->floor_hist[7] = median;
        }
        double floor = 1;
        for (int i = 0; i < s->nfloor; i++) floor = s->floor_hist[i] < floor ? s->floor_hist[i] : floor;
        /* congestion: sockets that overflowed, ECN marks, loss well above its floor */
        if (congestion > 0 || (s->nfloor >= 3 && median > 2 * floor && median > floor + 0.03)) {
            s->rate *= 0.8;
            s->slow_start = 0;
            s->congestion_cuts++;
            cut = 1;
        } else {
            grow(s);
        }
        s->silent = 0;
    } else if (congestion == 0 && s->first_pass && s->active && ++s->silent >= 4) {
        /* receivers too far behind to answer: sending on blind would only deepen their queues */
        s->rate *= 0.8;
        s->silent = 0;
        s->congestion_cuts++;
    } else if (congestion == 0) {
        grow(s);
    }
    if (s->rate < s->max_rate / 64) s->rate = s->max_rate / 64;
    if (s->rate > s->max_rate) s->rate = s->max_rate;
    /* the links' loss, which the code is for, from windows without congestion (the rate answers that) */
    for (int i = 0; i < s->nrx && !cut; i++) {
        struct rx *r = &s->rx[i];
        if (r->window >= 0 && r->reported && !r->done && !r->failed)
            r->loss = r->seen_loss ? 0.5 * r->loss + 0.5 * r->window : r->window, r->seen_loss = 1;
    }
    if (n && s->trace_len < (int)sizeof s->trace - 64)
        s->trace_len += snprintf(s->trace + s->trace_len, sizeof s->trace - s->trace_len, "%s[%.3f, %.1f, %.4f, %d, %d, %llu]",
                                 s->trace_len ? ", " : "", now() - s->t0, s->rate * 8 / 1e6, losses[n / 2], s->r,
                                 behind, (unsigned long long)congestion);
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

static int sender_main(struct args *a) {
    struct sender *s = calloc(1, sizeof *s);
    s->a = a;
    common_init(&s->c, a);
    object_open(&s->o, a->files, O_RDONLY);
    if (s->o.total != a->size) die("the files hold %llu bytes, not %llu", (unsigned long long)s->o.total,
                                   (unsigned long long)a->size);
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
    s->need_cnt = calloc(nb ? nb : 1, sizeof(uint16_t));
    s->need_who = calloc(nb ? nb : 1, sizeof(int16_t));
    s->touched = malloc((nb ? nb : 1) * sizeof(uint64_t));
    s->blockbuf = malloc((size_t)MAXSYM * PAY);
    s->repbuf = malloc((size_t)MAXSYM * PAY);
    s->max_rate = a->rate * 1e6 / 8;
    s->rate = s->max_rate / 4;
    s->slow_start = 1;
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
    flush(s);
    progress(s, t0, 1);
    double secs = now() - t0;
    if (a->stats) {
        FILE *f = fopen(a->stats, "w");
        if (!f) die("%s: %s", a->stats, strerror(errno));
        fprintf(f, "{\"seconds\": %.3f, \"cpu_seconds\": %.3f, \"datagrams\": %llu, \"bytes\": %llu, \"first_pass_datagrams\": %llu, "
                   "\"fec_symbols\": %llu, \"repair_multicast\": %llu, \"repair_unicast\": %llu, "
                   "\"repair_datagrams\": %llu, \"rounds\": %d, \"reports\": %llu, \"congestion_cuts\": %llu, "
                   "\"rate_mbit_end\": %.1f, \"fec_per_block_max\": %d, \"block\": %d, \"trace\": [%s], \"done\": {",
                secs, cpu_seconds(), (unsigned long long)s->datagrams, (unsigned long long)s->bytes,
                (unsigned long long)first_pass_end, (unsigned long long)s->fec, (unsigned long long)s->repair_mcast,
                (unsigned long long)s->repair_ucast, (unsigned long long)(s->repair_mcast + s->repair_ucast), rounds,
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

/* ------------------------------------------------------------------ the receiver */

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
    uint64_t symbols, duplicates, unicast, decoded, got_first, expected_first, reports, no_slot, test_dropped;
    uint32_t ovfl, ce;
    uint32_t round;
    uint64_t low;                  /* every block below it is done */
    uint64_t seen_upto;            /* blocks below it were announced by a checkpoint */
    int fin_pending;               /* a checkpoint to answer once the queue is drained */
    uint64_t fin_got, fin_expected;
    uint64_t rnd;
};

static void hash_bytes(struct receiver *r, const uint8_t *p, uint64_t len, uint64_t pos) {
    while (len > 0 && r->hfile < r->o.n) {
        uint64_t end = r->o.off[r->hfile] + r->o.size[r->hfile];
        if (pos >= end) {
            unsigned char md[32];
            unsigned int l;
            EVP_DigestFinal_ex(r->file, md, &l);
            hexstr(md, 32, r->file_digest[r->hfile]);
            r->hfile++;
            EVP_DigestInit_ex(r->file, EVP_sha256(), NULL);
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
    while (r->hfile < r->o.n) {
        unsigned char md[32];
        unsigned int l;
        EVP_DigestFinal_ex(r->file, md, &l);
        hexstr(md, 32, r->file_digest[r->hfile]);
        r->hfile++;
        EVP_DigestInit_ex(r->file, EVP_sha256(), NULL);
    }
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

/*
 * Rebuild the e missing data symbols from the data present and e repair symbols. Each repair symbol j is
 * sum_i A[R_j][i] d_i, so s_j = rep_j + sum over present i of A[R_j][i] d_i = sum over missing m of
 * A[R_j][m] d_m (addition is xor): an e x e system, d_missing = C^-1 s with C = A[R][missing]. Both steps
 * are one e x k matrix over the k symbols held, D = C^-1 G, applied in one pass. Inverting e x e instead
 * of k x k: 64^3 table look-ups per block became e^3 (5 % loss: e about 4).
 */
static int rebuild(int k, const uint8_t *bits, uint8_t *data, uint8_t *rep, const uint8_t *rep_idx) {
    const uint8_t *A = matrix(k);
    uint8_t C[MAXSYM * MAXSYM], Cinv[MAXSYM * MAXSYM], G[MAXSYM * MAXSYM], D[MAXSYM * MAXSYM];
    uint8_t *src[MAXSYM], *out[MAXSYM];
    int present[MAXSYM], np = 0, missing[MAXSYM], nmiss = 0;
    for (int i = 0; i < k; i++) {
        if (bits[i / 8] & (1 << (i % 8))) present[np++] = i;
        else missing[nmiss++] = i;
    }
    int e = nmiss;                                  /* have_data + have_rep >= k: at least e repair symbols */
    for (int c = 0; c < np; c++) src[c] = data + (size_t)present[c] * PAY;
    for (int j = 0; j < e; j++) src[np + j] = rep + (size_t)j * PAY;
    for (int j = 0; j < e; j++) {
        const uint8_t *row = A + rep_idx[j] * k;
        for (int m = 0; m < e; m++) C[j * e + m] = row[missing[m]];
        for (int c = 0; c < np; c++) G[j * k + c] = row[present[c]];
        for (int c = 0; c < e; c++) G[j * k + np + c] = c == j;
    }
    if (gf_invert_matrix(C, Cinv, e) != 0) return -1;
    for (int m = 0; m < e; m++) {
        for (int c = 0; c < k; c++) {
            uint8_t v = 0;
            for (int j = 0; j < e; j++) v ^= gf_mul(Cinv[m * e + j], G[j * k + c]);
            D[m * k + c] = v;
        }
        out[m] = data + (size_t)missing[m] * PAY;
    }
    static uint8_t tbls[32 * MAXSYM * MAXSYM];
    ec_init_tables(k, nmiss, D, tbls);
    ec_encode_data(PAY, k, nmiss, tbls, src, out);
    return 0;
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

static void on_sym(struct receiver *r, const uint8_t *p, ssize_t n, int unicast) {
    if (n < PKT) return;
    uint64_t b = get32(p + HDR);
    int sym = p[HDR + 4], k = p[HDR + 5], first = p[HDR + 6];
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
        memcpy(s->data + (size_t)sym * PAY, p + HDR + SYMHDR, PAY);
        s->have_data++;
    } else {
        if (s->have_data + s->have_rep >= k) return;
        s->rep_idx[s->have_rep] = sym;
        memcpy(s->rep + (size_t)s->have_rep * PAY, p + HDR + SYMHDR, PAY);
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
        if (ours(q, m, r->c.oid) && q[4] == SYM) on_sym(r, q, m, 1);
    }
    uint8_t p[HDR + 30 + 6 * REPORT_MAX];
    int complete = r->ndone == r->c.nblocks;
    while (r->low < r->c.nblocks && r->done[r->low]) r->low++;
    uint64_t b = r->low;
    for (int pkt = 0; pkt < REPORT_PKTS; pkt++) {
        int count = 0;
        for (; b < upto && b < r->c.nblocks && count < REPORT_MAX; b++) {
            if (r->done[b]) continue;
            struct block *s = find_block(r, b, 0, 0);
            int need = s ? s->k - s->have_data - s->have_rep : block_k(&r->c, b);
            put32(p + HDR + 30 + 6 * count, (uint32_t)b);
            put16(p + HDR + 34 + 6 * count, need);
            count++;
        }
        header(p, REPORT, complete ? 1 : 0, r->c.oid);
        put32(p + HDR, r->round);
        put64(p + HDR + 4, complete ? r->got_first : r->fin_got);
        put64(p + HDR + 12, complete ? r->expected_first : r->fin_expected);
        put32(p + HDR + 20, r->ovfl);
        put32(p + HDR + 24, r->ce);
        put16(p + HDR + 28, count);
        sendto(r->ctl, p, HDR + 30 + 6 * count, 0, (struct sockaddr *)&r->sender, sizeof r->sender);
        r->reports++;
        if (count < REPORT_MAX) break;
    }
}

static void on_packet(struct receiver *r, const uint8_t *p, ssize_t n, int unicast) {
    if (!ours(p, n, r->c.oid)) return;
    if (p[4] == SYM) {
        on_sym(r, p, n, unicast);
    } else if (p[4] == FIN2 && n >= HDR + 12) {
        r->round = get32(p + HDR);
        uint64_t upto = get32(p + HDR + 4);
        if (upto > r->seen_upto) r->seen_upto = upto;
        r->fin_pending++;
        /* the counters at the checkpoint, when every block below it is whole or lost: not mid-block */
        r->fin_got = r->got_first;
        r->fin_expected = r->expected_first;
    }
}

static int receiver_main(struct args *a) {
    struct receiver *r = calloc(1, sizeof *r);
    r->a = a;
    common_init(&r->c, a);
    object_open(&r->o, a->files, O_RDWR);
    if (r->o.total != a->size) die("the files hold %llu bytes, not %llu", (unsigned long long)r->o.total,
                                   (unsigned long long)a->size);
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
         * every checkpoint with needs the sender has met already; but at least every fourth, so that the sender
         * hears of its overflows.
         */
        if (r->fin_pending) {
            struct pollfd q = {.fd = r->data, .events = POLLIN};
            if (r->fin_pending >= 4 || poll(&q, 1, 0) == 0) {
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
                   "\"unicast_symbols\": %llu, \"decoded_blocks\": %llu, \"reports\": %llu, \"socket_overflows\": %u, "
                   "\"ecn_ce\": %u, \"first_pass_loss\": %.5f, \"no_slot\": %llu, \"test_dropped\": %llu, "
                   "\"sha256\": \"%s\", \"files\": [",
                complete ? "true" : "false", secs, cpu_seconds(), (unsigned long long)r->symbols, (unsigned long long)r->duplicates,
                (unsigned long long)r->unicast, (unsigned long long)r->decoded, (unsigned long long)r->reports, r->ovfl,
                r->ce, r->expected_first ? 1.0 - (double)r->got_first / r->expected_first : 0.0,
                (unsigned long long)r->no_slot, (unsigned long long)r->test_dropped, whole);
        for (int i = 0; i < r->o.n; i++) fprintf(f, "%s\"%s\"", i ? ", " : "", complete ? r->file_digest[i] : "");
        fprintf(f, "]}\n");
        fclose(f);
    }
    return complete ? 0 : 5;
}

/*
 * The code against itself: for random k and random sets of k symbols out of the 255 (data lost anywhere, repair
 * symbols any of the rows), encode, keep only those, rebuild, compare. Exit 0 when every block came back.
 */
static int selftest(int blocks) {
    uint64_t x = 36;
    uint8_t *data = malloc((size_t)MAXSYM * PAY), *orig = malloc((size_t)MAXSYM * PAY);
    uint8_t *parity = malloc((size_t)MAXSYM * PAY), *rep = malloc((size_t)MAXSYM * PAY);
    int failed = 0, erasures = 0;
    for (int t = 0; t < blocks; t++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = t < 128 ? t + 1 : 1 + (int)((x >> 33) % 128);
        for (size_t i = 0; i < (size_t)k * PAY; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            orig[i] = x >> 56;
        }
        uint8_t *dp[MAXSYM], *pp[MAXSYM];
        for (int i = 0; i < k; i++) dp[i] = orig + (size_t)i * PAY;
        int m = MAXSYM - k;
        for (int i = 0; i < m; i++) pp[i] = parity + (size_t)i * PAY;
        encode(k, dp, k, m, pp);
        /* lose e data symbols at random, take e repair symbols at random rows */
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int e = (int)((x >> 33) % (k < m ? k + 1 : m + 1));
        uint8_t bits[32] = {0}, rep_idx[MAXSYM], used[MAXSYM] = {0};
        for (int i = 0; i < k; i++) bits[i / 8] |= 1 << (i % 8);
        for (int lost = 0; lost < e;) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            int i = (int)((x >> 33) % k);
            if (bits[i / 8] & (1 << (i % 8))) {
                bits[i / 8] &= ~(1 << (i % 8));
                lost++;
            }
        }
        for (int j = 0; j < e;) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            int row = k + (int)((x >> 33) % m);
            if (used[row]) continue;
            used[row] = 1;
            rep_idx[j] = row;
            memcpy(rep + (size_t)j * PAY, parity + (size_t)(row - k) * PAY, PAY);
            j++;
        }
        memset(data, 0, (size_t)k * PAY);
        for (int i = 0; i < k; i++)
            if (bits[i / 8] & (1 << (i % 8))) memcpy(data + (size_t)i * PAY, orig + (size_t)i * PAY, PAY);
        if ((e && rebuild(k, bits, data, rep, rep_idx) != 0) || memcmp(data, orig, (size_t)k * PAY) != 0) {
            fprintf(stderr, "m4d selftest: k=%d e=%d: the block did not come back\n", k, e);
            failed++;
        }
        erasures += e;
    }
    printf("m4d selftest: blocks=%d erasures=%d failed=%d\n", blocks, erasures, failed);
    return failed ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "selftest")) return selftest(argc >= 3 ? atoi(argv[2]) : 1000);
    struct args a;
    parse(argc, argv, &a);
    if (!strcmp(a.mode, "send")) return sender_main(&a);
    if (!strcmp(a.mode, "receive")) return receiver_main(&a);
    die("usage: m4d send|receive ...");
    return 2;
}
