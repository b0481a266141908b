/* m4d: the Reed-Solomon code of the blocks (ISA-L, a Cauchy matrix), and its self-test. */
#define _GNU_SOURCE
#include "m4d.h"

/* ------------------------------------------------------------------ the code */

static uint8_t cauchy[MAXSYM + 1][MAXSYM * MAXSYM];   /* per k: the (255 x k) systematic matrix, made on first use */
static uint8_t cauchy_made[MAXSYM + 1];

const uint8_t *matrix(int k) {
    if (!cauchy_made[k]) {
        gf_gen_cauchy1_matrix(cauchy[k], MAXSYM, k);
        cauchy_made[k] = 1;
    }
    return cauchy[k];
}

/* symbols row..row+n-1 (row >= k: repair symbols) of a block whose k data symbols are data[0..k-1] */
void encode(int k, uint8_t **data, int row, int n, uint8_t **out) {
    static uint8_t tbls[32 * MAXSYM * MAXSYM];
    ec_init_tables(k, n, (uint8_t *)matrix(k) + row * k, tbls);
    ec_encode_data(PAY, k, n, tbls, data, out);
}

/*
 * Rebuild the e missing data symbols from the data present and e repair symbols. Each repair symbol j is
 * sum_i A[R_j][i] d_i, so s_j = rep_j + sum over present i of A[R_j][i] d_i = sum over missing m of
 * A[R_j][m] d_m (addition is xor): an e x e system, d_missing = C^-1 s with C = A[R][missing]. Both steps
 * are one e x k matrix over the k symbols held, D = C^-1 G, applied in one pass. Inverting e x e instead
 * of k x k: 64^3 table look-ups per block became e^3 (5 % loss: e about 4).
 */
int rebuild(int k, const uint8_t *bits, uint8_t *data, uint8_t *rep, const uint8_t *rep_idx) {
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

/*
 * The code against itself: for random k and random sets of k symbols out of the 255 (data lost anywhere, repair
 * symbols any of the rows), encode, keep only those, rebuild, compare. Exit 0 when every block came back.
 */
int selftest(int blocks) {
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

