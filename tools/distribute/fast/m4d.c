/* m4d: the data phase of mcast4ai-distribute (m4d.h describes it); the arguments and the common parts. */
#define _GNU_SOURCE
#include "m4d.h"

void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "m4d: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int64_t now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
}


int unhex(const char *s, uint8_t *out, size_t max) {
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

void object_open(struct object *o, const char *list, int flags) {
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
void object_io(struct object *o, uint64_t pos, uint8_t *buf, uint64_t len, int write) {
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

int block_k(struct common *c, uint64_t b) {
    uint64_t left = c->datagrams - b * c->k;
    return left < (uint64_t)c->k ? (int)left : c->k;
}

void header(uint8_t *p, int type, int flags, const uint8_t *oid) {
    memcpy(p, "M4D1", 4);
    p[4] = type;
    p[5] = flags;
    p[6] = p[7] = 0;
    memcpy(p + 8, oid, 8);
}

int ours(const uint8_t *p, ssize_t n, const uint8_t *oid) {
    return n >= HDR && memcmp(p, "M4D1", 4) == 0 && memcmp(p + 8, oid, 8) == 0;
}

void sym_header(uint8_t *p, const uint8_t *oid, uint64_t b, int sym, int k, int first, int from_peer) {
    p[0] = SYM_TAG | (from_peer ? SYM_FROM_PEER : 0);
    p[1] = sym;
    p[2] = k;
    p[3] = first;
    memcpy(p + 4, oid, 4);
    put32(p + 8, (uint32_t)b);
}

/* 1: a whole symbol of this object, its fields in s */
int sym_parse(const uint8_t *p, ssize_t n, const uint8_t *oid, struct sym *s) {
    if (n != PKT || (p[0] & ~SYM_FROM_PEER) != SYM_TAG || memcmp(p + 4, oid, 4) != 0) return 0;
    s->from_peer = p[0] & SYM_FROM_PEER;
    s->sym = p[1];
    s->k = p[2];
    s->first = p[3];
    s->b = get32(p + 8);
    s->payload = p + SYMHDR;
    return 1;
}

/* ------------------------------------------------------------------ arguments */

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
        else if (!strcmp(k, "--linger")) a->linger = atof(v);
        else if (!strcmp(k, "--receivers")) a->receivers = v;
        else if (!strcmp(k, "--stats")) a->stats = v;
        else if (!strcmp(k, "--test-drop-ppm")) a->test_drop_ppm = atol(v);
        else die("unknown option %s", k);
    }
    if (a->fd_data < 0 || a->fd_ctl < 0 || !a->oid || !a->files || a->port <= 0) die("missing arguments");
    if (a->k < 1 || a->k > 128) die("--k must be 1..128");
}

/* what sender and receiver share: the object's id and blocks, and its files (checked against --size) */
void common_init(struct common *c, struct object *o, struct args *a, int flags) {
    if (unhex(a->oid, c->oid, 8) != 8) die("--oid: 16 hex digits");
    c->k = a->k;
    c->datagrams = (a->size + PAY - 1) / PAY;
    c->nblocks = (c->datagrams + c->k - 1) / c->k;
    object_open(o, a->files, flags);
    if (o->total != a->size) die("the files hold %llu bytes, not %llu", (unsigned long long)o->total,
                                 (unsigned long long)a->size);
}

void hexstr(const uint8_t *d, int n, char *out) {
    for (int i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", d[i]);
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
