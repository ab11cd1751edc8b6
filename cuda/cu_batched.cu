/* cu_batched: the Metropolis loop for chains too large for one block, all pairs (cu_sweep_batched),
 * exact as cu_sweep.cu's chains: K consecutive trial moves are drawn once (the draw kernel), evaluated at
 * once against the batch-start configuration together with every pair of trials' corrections
 * (the energy kernel, all SMs), each trial's partial sums added (the sums kernel), then accepted
 * in order (the decide kernel, one block), each trial corrected by its pair terms with the earlier
 * accepted ones; a trial whose particle already moved in the batch, or whose corrections meet a
 * pair term too large to take out exactly (CU_CANCEL_LIMIT), is decided apart (below).
 *
 * The view's chains run side by side, chain c in row c of every kernel's grid (blockIdx.y) with
 * its own scratch: a few medium chains (a sweep's state points) fill the GPU together where each
 * alone would leave most of it idle. Nothing a chain computes depends on the others. */
#include "cu_backend.h"
#include "cu_check.h"
#include "cu_chain_move.cuh"
#include "cu_launch.cuh"
#include "cu_repeats.cuh"

enum {
    WINDOW = 32,   /* trials that warp 0 of the decide kernel decides between two block barriers */
    ALT_MAX = 32,  /* repeated particles per batch whose second energy change the energy kernel sums */
    TRIAL_DOUBLES = 7 /* a batch_trial's room in the scratch, in doubles */
};

/* Trial k of a batch: its particle, its batch-start position o and its new position nw. */
template <typename real> struct batch_trial {
    int particle;
    real o[3], nw[3];
};

/* A batch's tables in the view's scratch, after the energy kernel's partial sums and the K x K corrections:
 * written by the draw kernel and read by the energy and decide kernels. */
template <typename real> struct batch_tables {
    batch_trial<real> *trial; /* [K] */
    double *threshold;        /* [K] -ln u of each trial's Metropolis test */
    int *prev;                /* [K] the latest earlier trial of the same particle, or -1 */
    int *alt_of;              /* [K] the trial's row in alt, or -1 */
    int *alt_count;           /* rows of alt in use */
    batch_trial<real> *alt;   /* [ALT_MAX] a repeated trial as it is if its prev was accepted */
    double *alt_dE;           /* [ALT_MAX] its energy change against the batch-start positions */
};

template <typename real> static batch_tables<real> batch_tables_of(const cu_view *v, double *after)
{
    const int K = v->batch_trials;
    batch_tables<real> t;
    t.trial = (batch_trial<real> *)after;
    t.threshold = after + (size_t)TRIAL_DOUBLES * K;
    t.prev = (int *)(t.threshold + K);
    t.alt_of = (int *)(t.threshold + 2 * K);
    t.alt = (batch_trial<real> *)(t.threshold + 3 * K);
    t.alt_dE = (double *)t.alt + (size_t)TRIAL_DOUBLES * ALT_MAX;
    t.alt_count = (int *)(t.alt_dE + ALT_MAX);
    return t;
}

/* A batch's arguments, the same for every kernel and every chain: the view's chains, their
 * positions ([chain][3][n]) and chain 0's scratch (partial sums, corrections, tables), each further
 * chain's chain_doubles after the one before (cu_batched_chain_scratch). */
template <typename real> struct batch_rows {
    cu_chain_dev *chains;
    real *pos;
    int n;
    double *partial, *corr;
    batch_tables<real> tb;
    size_t chain_doubles;
};

/* The chain of this block's grid row (blockIdx.y), its positions and its scratch. */
template <typename real> struct batch_chain {
    cu_chain_dev *cd;
    real *pos;
    double *partial, *corr;
    batch_tables<real> tb;
};

template <typename real> __device__ inline batch_chain<real> batch_chain_of(const batch_rows<real> &rows)
{
    const size_t shift = (size_t)blockIdx.y * rows.chain_doubles * sizeof(double); /* bytes */
    auto at = [&](auto *p) { return (decltype(p))((char *)p + shift); };
    const batch_tables<real> &tb = rows.tb;
    batch_chain<real> r;
    r.cd = rows.chains + blockIdx.y, r.pos = rows.pos + (size_t)blockIdx.y * 3 * rows.n;
    r.partial = at(rows.partial), r.corr = at(rows.corr);
    r.tb.trial = at(tb.trial), r.tb.threshold = at(tb.threshold), r.tb.prev = at(tb.prev);
    r.tb.alt_of = at(tb.alt_of), r.tb.alt_count = at(tb.alt_count), r.tb.alt = at(tb.alt);
    r.tb.alt_dE = at(tb.alt_dE);
    return r;
}

/* The draw kernel: one block, thread k draws trial k (step0 + k) as the CPU does, and finds the
 * latest earlier trial of the same particle (cu_repeats.cuh). The first ALT_MAX repeated trials, in trial
 * order, get a row in alt: the trial's move made from the new position of its prev, which is where
 * the particle is if prev was accepted (and itself made from the batch start). */
template <typename real>
__global__ void __launch_bounds__(CU_MAX_BATCH_TRIALS) batch_draw_kernel(batch_rows<real> rows, int trials, unsigned long long seed)
{
    __shared__ repeat_table repeat;
    cu_launch_next();
    repeat_clear(repeat); /* this block's own shared memory: while the kernel before still runs */
    cu_wait_previous();   /* chained launches: nothing read before the last kernel ends */
    const batch_chain<real> ch = batch_chain_of(rows);
    const cu_chain_dev *cd = ch.cd;
    const real *pos = ch.pos;
    const int n = rows.n;
    const batch_tables<real> tb = ch.tb;
    extern __shared__ int sp[]; /* [K] particle of each trial */
    __shared__ int warp_repeats[32];
    const int k = threadIdx.x, K = blockDim.x, lane = k & 31, warp = k >> 5;
    const real box = (real)cd->box;
    __syncthreads();
    mc_trial t;
    int home = 0; /* the particle's home slot in the repeat table */
    if (k < trials) {
        t = mc_trial_draw(seed, cd->id, cd->step + k, (uint32_t)n, cd->max_displacement);
        batch_trial<real> b;
        b.particle = (int)t.particle;
        b.o[0] = pos[b.particle], b.o[1] = pos[n + b.particle], b.o[2] = pos[2 * n + b.particle];
        trial_position(t, b.o[0], b.o[1], b.o[2], box, &b.nw[0], &b.nw[1], &b.nw[2]);
        tb.trial[k] = b;
        tb.threshold[k] = mc_accept_threshold(seed, cd->id, cd->step + k);
        sp[k] = b.particle;
        home = repeat_register(repeat, k, b.particle);
    }
    __syncthreads();
    const int prev = k < trials ? repeat_prev(repeat, sp, k, sp[k], home, NULL) : -1;
    const unsigned repeats = __ballot_sync(0xffffffffu, prev >= 0);
    if (lane == 0) warp_repeats[warp] = __popc(repeats);
    __syncthreads();
    int row = __popc(repeats & ((1u << lane) - 1u)), total = 0; /* repeats before trial k, in order */
    for (int w = 0; w < (K >> 5); w++) row += w < warp ? warp_repeats[w] : 0, total += warp_repeats[w];
    if (k < trials) {
        tb.prev[k] = prev;
        tb.alt_of[k] = prev >= 0 && row < ALT_MAX ? row : -1;
        if (prev >= 0 && row < ALT_MAX) {
            batch_trial<real> a;
            a.particle = (int)t.particle;
            for (int d = 0; d < 3; d++) a.o[d] = tb.trial[prev].nw[d]; /* written before the barrier */
            trial_position(t, a.o[0], a.o[1], a.o[2], box, &a.nw[0], &a.nw[1], &a.nw[2]);
            tb.alt[row] = a;
        }
    }
    if (k == 0) *tb.alt_count = min(total, (int)ALT_MAX);
}

/* The energy kernel, three kinds of block, all against the batch-start configuration:
 *  - blocks [0, ALT_MAX): block r sums alt row r's energy change over all particles (rows beyond
 *    alt_count return at once);
 *  - the next pair_blocks: block b stages particles [b chunk, (b + 1) chunk) in shared memory and
 *    thread k sums trial k's energy change over them;
 *  - then a block per corr_rows trials m < trials - 1: thread k > m writes corr[m K + k], what trial m, if
 *    accepted, adds to trial k's energy change (the four pair terms between their old and new
 *    positions), so that the decide kernel's sequential pass only adds numbers (NaN where a term cannot be
 *    carried: cu_pair_correction). (For trials of the same particle it is never used: the later
 *    one is decided from alt or recomputed.) */
template <typename real, bool MIX>
__global__ void __launch_bounds__(CU_MAX_BATCH_TRIALS) batch_trial_energy_kernel(batch_rows<real> rows, int trials, int chunk, int pair_blocks,
                                                                                  int corr_rows, cu_pairs<real> lj)
{
    cu_after_previous(); /* chained launches: nothing read before the last kernel ends */
    const batch_chain<real> ch = batch_chain_of(rows);
    const cu_chain_dev *cd = ch.cd;
    const real *pos = ch.pos;
    const int n = rows.n;
    double *partial = ch.partial, *corr = ch.corr;
    const batch_tables<real> tb = ch.tb;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double warp_sum[32];
    const int k = threadIdx.x, K = blockDim.x;
    const real box = (real)cd->box;
    const real *x = pos, *y = pos + n, *z = pos + 2 * n;
    int block = blockIdx.x;
    if (block < ALT_MAX) {
        if (block >= *tb.alt_count) return;
        const batch_trial<real> a = tb.alt[block];
        double part = move_energy_part<MIX>(x, y, z, k, n, K, a.particle, a.o[0], a.o[1], a.o[2], a.nw[0], a.nw[1],
                                            a.nw[2], box, lj);
        double total = cu_block_sum(part, warp_sum);
        if (k == 0) tb.alt_dE[block] = total;
        return;
    }
    block -= ALT_MAX;
    if (block >= pair_blocks) {
        const int m0 = (block - pair_blocks) * corr_rows;
        if (k >= trials) return;
        const batch_trial<real> tk = tb.trial[k];
        for (int m = m0; m < m0 + corr_rows && m < k; m++) {
            const batch_trial<real> tm = tb.trial[m];
            corr[(size_t)m * K + k] =
                tk.particle == tm.particle ? 0.0
                : cu_pair_correction(tk.o[0], tk.o[1], tk.o[2], tk.nw[0], tk.nw[1], tk.nw[2], tm.o, tm.nw, box,
                                     cd->beta,
                                     MIX ? lj.of(lj.species_of(tk.particle), lj.species_of(tm.particle)) : lj.one);
        }
        return;
    }
    real *sx = (real *)smem, *sy = sx + chunk, *sz = sy + chunk;
    int j0 = block * chunk, len = min(n - j0, chunk);
    for (int j = threadIdx.x; j < len; j += blockDim.x) {
        sx[j] = x[j0 + j];
        sy[j] = y[j0 + j];
        sz[j] = z[j0 + j];
    }
    __syncthreads();
    if (k >= trials) return;
    const batch_trial<real> t = tb.trial[k];
    /* all threads read the same staged particle at once: a shared-memory broadcast */
    partial[(size_t)block * K + k] =
        move_energy_part<MIX, true>(sx, sy, sz, 0, len, 1, t.particle - j0, t.o[0], t.o[1], t.o[2], t.nw[0], t.nw[1],
                              t.nw[2], box, lj, j0);
}

/* The sums kernel, between the energy and decide kernels: each trial's energy change against the
 * batch start, its energy-kernel partials (one per pair block) added in a fixed order, over
 * several SMs rather than through the decide kernel's one block. Block g takes trials 32 g + lane:
 * warp w adds rows w, w + SUM_WARPS, ... in order, then warp 0 adds the warps' sums in order and
 * writes the total over row 0 of `partial`, which the decide kernel reads. No other block reads
 * these columns, and this block read row 0 before its barrier. */
enum { SUM_WARPS = 32 };
__global__ void __launch_bounds__(32 * SUM_WARPS) batch_sums_kernel(double *partials, size_t chain_doubles, int K,
                                                                     int trials, int nblocks)
{
    cu_after_previous(); /* chained launches: nothing read before the last kernel ends */
    double *partial = partials + blockIdx.y * chain_doubles; /* this grid row's chain */
    __shared__ double warp_sum[SUM_WARPS][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, k = 32 * blockIdx.x + lane;
    double sum = 0.0;
    if (k < trials)
#pragma unroll 4
        for (int b = warp; b < nblocks; b += SUM_WARPS) sum += partial[(size_t)b * K + k];
    warp_sum[warp][lane] = sum;
    __syncthreads();
    if (warp == 0 && k < trials) {
        double total = 0.0;
        for (int w = 0; w < SUM_WARPS; w++) total += warp_sum[w][lane];
        partial[k] = total;
    }
}

/* The decide kernel: one block, thread k owns trial k (threads beyond K only help stage and sum:
 * decide_threads); trials are decided in order, a window at a time.
 * The windows lie inside aligned blocks of 32 trials, lane j of warp 0 holding trial 32 b + j.
 * Warp 0 decides a window in rounds of votes (below). The corrections of a window's accepted
 * trials reach the later trials one window late, beside the next decisions: the next block's
 * lanes add them from a 32 x 32 tile of corr staged in shared memory, and the other warps add them
 * to the blocks after it from corr itself. While warp 0 decides block b, the other warps also stage
 * the corner of corr inside block b + 1 and the tile from block b to block b + 1.
 * A trial whose particle already moved in the batch, or whose sum so far is NaN (a correction with
 * a term beyond CU_CANCEL_LIMIT kT: the start sum holds a huge term the corrections would take
 * out again inexactly), ends the window: the window's corrections are added at once, then the
 * trial is decided. If its particle's prev was accepted from the batch start, its energy change is
 * the energy kernel's alt sum plus its pair terms with the other accepted trials, unless that is NaN too;
 * else the block recomputes it in full against the current positions. Either way every later
 * trial then adds its pair terms with it, computed afresh. Every other trial's energy change is thus the sum
 * of its energy-kernel partials (the sums kernel's order, or block order: sums_in_decide) and then of its corrections by the earlier accepted trials in their
 * order; one decided apart has its alt sum plus a block sum, or a block sum (fixed orders both). */
template <typename real, bool MIX>
__global__ void __launch_bounds__(CU_MAX_BATCH_TRIALS) batch_decide_kernel(batch_rows<real> rows, int K, int trials,
                                                                            int sum_blocks, cu_pairs<real> lj,
                                                                            unsigned long long seed)
{
    cu_after_previous(); /* chained launches: nothing read before the last kernel ends */
    const batch_chain<real> ch = batch_chain_of(rows);
    cu_chain_dev *cd = ch.cd;
    real *pos = ch.pos;
    const int n = rows.n;
    const double *start_dE = ch.partial, *corr = ch.corr; /* start_dE: the energy kernel's partials, their
                                                           * totals over row 0 where the sums kernel ran */
    const batch_tables<real> tb = ch.tb;
    extern __shared__ __align__(16) unsigned char smem[];
    const int k = threadIdx.x, lane = k & 31, threads = blockDim.x; /* threads >= K (decide_threads) */
    double *sdE = (double *)smem, *sthreshold = sdE + K;  /* energy change so far, -ln u */
    double *scorner = sthreshold + K;                      /* [2][WINDOW][WINDOW] inside a block */
    double *snext = scorner + 2 * WINDOW * WINDOW;         /* [2][WINDOW][WINDOW] to the next block */
    real *sa = (real *)(snext + 2 * WINDOW * WINDOW), *sb = sa + 3 * K; /* old and new position */
    int *sp = (int *)(sb + 3 * K), *sprev = sp + K, *salt = sprev + K; /* particle, prev, alt row */
    unsigned char *sacc = (unsigned char *)(salt + K), *sfull = sacc + K; /* accepted; decided apart */
    __shared__ double red[2][32], s_energy; /* the alt sum's, then a recomputation's */
    __shared__ int s_end[2];         /* by window parity: a window ends with one barrier, */
    __shared__ unsigned s_mask[2];   /* so the next may be written while this one is read */
    __shared__ unsigned long long s_accepted;
    real *x = pos, *y = pos + n, *z = pos + 2 * n;
    const unsigned long long step0 = cd->step;
    const double beta = cd->beta;
    const real box = (real)cd->box;
    const int nwin = (trials + WINDOW - 1) / WINDOW;
    /* rows 32 b + t of corr, columns 32 (b + to) + j, as [t][j], into buffer b % 2 of tiles */
    auto stage = [&](double *tiles, int b, int to, int first, int stride) {
        double *tile = tiles + (b & 1) * WINDOW * WINDOW;
        for (int e = first; e < WINDOW * WINDOW; e += stride) {
            int t = WINDOW * b + e / WINDOW, j = WINDOW * (b + to) + e % WINDOW;
            tile[e] = j > t && j < trials ? corr[(size_t)t * K + j] : 0.0;
        }
    };
    /* trial k adds the corrections of the accepted trials base + t (t in mask), in order; the
     * loads in flight together */
    auto add_window = [&](int base, unsigned mask) {
        double dE = sdE[k];
        for (int first = 0; first < WINDOW; first += 8) {
            if (!((mask >> first) & 0xffu)) continue;
            double c[8];
#pragma unroll
            for (int u = 0; u < 8; u++) c[u] = (mask >> (first + u)) & 1u ? corr[(size_t)(base + first + u) * K + k] : 0.0;
#pragma unroll
            for (int u = 0; u < 8; u++)
                if ((mask >> (first + u)) & 1u) dE += c[u];
        }
        sdE[k] = dE;
    };
    if (k < trials) {
        const batch_trial<real> t = tb.trial[k];
        sthreshold[k] = tb.threshold[k];
        sp[k] = t.particle, sprev[k] = tb.prev[k], salt[k] = tb.alt_of[k];
        for (int d = 0; d < 3; d++) sa[3 * k + d] = t.o[d], sb[3 * k + d] = t.nw[d];
        if (sum_blocks) { /* the energy kernel's partials added here, in block order (sums_in_decide) */
            double sum = 0.0;
#pragma unroll 4
            for (int b = 0; b < sum_blocks; b++) sum += start_dE[(size_t)b * K + k];
            sdE[k] = sum;
        } else {
            sdE[k] = start_dE[k]; /* the sums kernel's sum of the energy kernel's partials */
        }
        sacc[k] = 0, sfull[k] = 0;
    }
    if (k == 0) {
        s_energy = cd->energy;
        s_accepted = 0;
    }
    stage(scorner, 0, 0, k, threads);
    __syncthreads();
    int staged = 0;             /* the block whose tiles the other warps stage next */
    int late = -1;              /* the window (its base) whose corrections still reach later blocks */
    unsigned late_mask = 0;     /* ... its accepted trials */
    for (int s = 0, parity = 0; s < trials; parity ^= 1) {
        const int b = s / WINDOW, base = WINDOW * b, w = min(WINDOW, trials - base); /* lanes [s - base, w) */
        if (k >= WINDOW) { /* beside the decisions (a batch of one warp is one block: nothing to do) */
            if (staged == b && b + 1 < nwin) {
                stage(scorner, b + 1, 0, k - WINDOW, threads - WINDOW);
                stage(snext, b, 1, k - WINDOW, threads - WINDOW);
            }
            if (late >= 0 && k >= base + WINDOW && k < trials) add_window(late, late_mask);
        }
        if (staged == b) staged = b + 1;
        if (k < WINDOW) {
            const int trial = base + lane;
            const bool mine = trial >= s && lane < w;
            double dE0 = mine ? sdE[trial] : 0.0;
            const double threshold = mine ? sthreshold[trial] : 0.0;
            if (late >= 0 && mine) /* the previous block's window: its tile to this block, in order */
                for (unsigned left = late_mask; left; left &= left - 1u)
                    dE0 += snext[((b - 1) & 1) * WINDOW * WINDOW + (__ffs((int)left) - 1) * WINDOW + lane];
            int moved_before = 0; /* an earlier trial of the same particle, before the window, accepted */
            unsigned same_in = 0; /* earlier trials of the same particle in the window */
            for (int m = mine ? sprev[trial] : -1; m >= 0; m = sprev[m])
                if (m >= s) same_in |= 1u << (m - base);
                else moved_before |= sacc[m];
            /* Rounds: each lane tests its trial as corrected by the trials in `mask`, the lanes
             * vote, and again until the vote repeats. A lane's outcome depends only on the lanes
             * below it, so after r rounds the lowest r lanes hold their outcome in the sequential
             * chain, and a repeated vote is the sequential outcome. Corrections are small against
             * most energy changes, so it usually takes two rounds. */
            const double *corner = scorner + (b & 1) * WINDOW * WINDOW;
            unsigned mask = 0;
            int end = w;
            double dE;
            for (;;) {
                dE = dE0;
                for (unsigned left = mask & ((1u << lane) - 1u); left; left &= left - 1u) /* in order */
                    dE += corner[(__ffs((int)left) - 1) * WINDOW + lane];
                const bool full = mine && (moved_before || (same_in & mask) || isnan(dE));
                const bool accept = mine && !full && mc_metropolis_test(dE, beta, threshold);
                const unsigned fulls = __ballot_sync(0xffffffffu, full);
                const int first_full = fulls ? __ffs((int)fulls) - 1 : w;
                const unsigned vote = __ballot_sync(0xffffffffu, accept) & (unsigned)((1ull << first_full) - 1);
                if (vote == mask && first_full == end) break;
                mask = vote, end = first_full;
            }
            if (mine) sdE[trial] = dE;
            if ((mask >> lane) & 1u) {
                const int i = sp[trial];
                x[i] = sb[3 * trial], y[i] = sb[3 * trial + 1], z[i] = sb[3 * trial + 2];
                sacc[trial] = 1;
            }
            __syncwarp();
            if (lane == 0) { /* the accepted energy changes added in order */
                double energy = s_energy;
                for (unsigned left = mask; left; left &= left - 1u) energy += sdE[base + __ffs((int)left) - 1];
                s_energy = energy;
                s_end[parity] = base + end, s_mask[parity] = mask, s_accepted += __popc(mask);
            }
        }
        __syncthreads();
        const int end = s_end[parity];
        const unsigned mask = s_mask[parity];
        if (end < base + w) { /* uniform: trial `end`'s particle moved earlier in the batch, or its sum is NaN */
            if (k >= base + WINDOW && k < trials && mask) add_window(base, mask); /* before the trial's own */
            late = -1;
            const int i = sp[end], m = sprev[end], row = salt[end];
            real o[3], nw[3];
            double dE = CUDART_NAN; /* uniform over the block, as every block sum */
            if (row >= 0 && sacc[m] && !sfull[m]) { /* it sits at prev's new position: alt holds it */
                const batch_trial<real> a = tb.alt[row];
                for (int d = 0; d < 3; d++) o[d] = a.o[d], nw[d] = a.nw[d];
                double part = k < end && sacc[k] && sp[k] != i
                              ? cu_pair_correction(o[0], o[1], o[2], nw[0], nw[1], nw[2], sa + 3 * k, sb + 3 * k, box, beta,
                                                   MIX ? lj.of(lj.species_of(i), lj.species_of(sp[k])) : lj.one)
                              : 0.0;
                dE = tb.alt_dE[row] + cu_block_sum(part, red[0]);
                if (k == 0 && isnan(dE)) CU_CANCEL_TRACE("large-chain alt", step0 + end);
            } else if (k == 0 && isnan(sdE[end])) {
                CU_CANCEL_TRACE("large-chain", step0 + end);
            }
            if (isnan(dE)) { /* no alt row, or a term of it beyond the limit */
                mc_trial t = mc_trial_draw(seed, cd->id, step0 + end, (uint32_t)n, cd->max_displacement);
                o[0] = x[i], o[1] = y[i], o[2] = z[i];
                trial_position(t, o[0], o[1], o[2], box, &nw[0], &nw[1], &nw[2]);
                dE = cu_block_sum(move_energy_part<MIX>(x, y, z, k, n, threads, i, o[0], o[1], o[2], nw[0], nw[1], nw[2],
                                                        box, lj),
                                  red[1]);
            }
            if (k == 0) {
                for (int d = 0; d < 3; d++) sa[3 * end + d] = o[d], sb[3 * end + d] = nw[d];
                sfull[end] = 1;
                if (mc_metropolis_test(dE, beta, sthreshold[end])) {
                    x[i] = nw[0], y[i] = nw[1], z[i] = nw[2];
                    sacc[end] = 1;
                    s_energy += dE;
                    s_accepted++;
                }
            }
            __syncthreads();
            if (sacc[end] && k > end && k < trials && sp[k] != i)
                sdE[k] += cu_pair_correction(sa[3 * k], sa[3 * k + 1], sa[3 * k + 2], sb[3 * k], sb[3 * k + 1],
                                             sb[3 * k + 2], sa + 3 * end, sb + 3 * end, box, beta,
                                             MIX ? lj.of(lj.species_of(sp[k]), lj.species_of(i)) : lj.one);
            s = end + 1;
            __syncthreads();
        } else {
            late = mask ? base : -1, late_mask = mask;
            s = base + w;
        }
    }
    if (k == 0) {
        cd->step = step0 + trials;
        cd->accepted += s_accepted;
        cd->energy = s_energy;
    }
}

#ifndef BATCH_BLOCKS_PER_SM
#define BATCH_BLOCKS_PER_SM 4 /* the energy kernel's pair-sum blocks of K threads per SM */
#endif

#ifndef BATCH_MEDIUM_CHUNK
#define BATCH_MEDIUM_CHUNK 16 /* the least chunk of a medium chain (below) */
#endif
#ifndef BATCH_DECIDE_THREADS
#define BATCH_DECIDE_THREADS 256 /* the decide kernel's threads for a batch smaller than this (decide_threads) */
#endif

/* Particles a pair block of the energy kernel sums over: a large chain spread over BATCH_BLOCKS_PER_SM
 * blocks an SM, at least 32 particles a block; medium chains at least BATCH_MEDIUM_CHUNK: a thread
 * sums its trial over the chunk in a row, and with a few chains on the GPU few warps share an SM to
 * hide each other's latency, so shorter rows over more blocks end sooner. The chunk fixes the order
 * of a chain's sums: it depends on the chain's size and the run's GPU, never on the rank's chains. */
static int batch_chunk(const cu_view *v)
{
    int blocks = BATCH_BLOCKS_PER_SM * v->sm_count, least = v->n < CU_MEDIUM_CHAIN_MAX ? BATCH_MEDIUM_CHUNK : 32;
    int chunk = (v->n + blocks - 1) / blocks;
    return chunk < least ? least : chunk;
}

/* Rows of corrections a block of the energy kernel writes: one for large batches; small ones
 * (K < 256, a block of K threads with one pair term each a row) take several, so that a block
 * does more than start and end. The values are the same whichever block writes them. */
static int corr_rows_of(int K) { return K < 256 ? 256 / K : 1; }

/* Whether the decide kernel adds each trial's energy-kernel partials itself, a thread a trial in
 * block order, instead of the sums kernel: for medium chains, whose few partials (n / chunk, at
 * most 64) a thread adds in less time than a kernel takes to start. */
static int sums_in_decide(const cu_view *v) { return v->n < CU_MEDIUM_CHAIN_MAX; }

/* Threads of the decide kernel: K own the trials; a small batch gets more, so that the corrections'
 * tiles are staged by many warps beside warp 0's decisions (with one warp, their loads wait in a
 * row). The block sums of a trial decided apart take the same stride. */
static int decide_threads(int K) { return K < BATCH_DECIDE_THREADS ? BATCH_DECIDE_THREADS : K; }

/* A chain's scratch in doubles: the energy kernel's partial sums (a block's K; the sums kernel writes each trial's
 * total over row 0), the K x K trial-pair corrections, then the batch tables; even, so that every chain's
 * starts 16-byte aligned. */
static size_t chain_scratch(const cu_view *v)
{
    const size_t K = v->batch_trials;
    int chunk = batch_chunk(v);
    size_t doubles = (size_t)((v->n + chunk - 1) / chunk) * K + K * K + (TRIAL_DOUBLES + 3) * K +
                     (TRIAL_DOUBLES + 1) * ALT_MAX + 1;
    return doubles + (doubles & 1);
}

/* every chain of the view its own (they run side by side) */
size_t cu_batched_scratch(const cu_view *v) { return (size_t)v->nchains * chain_scratch(v); }

/* the decide kernel's dynamic shared memory: energy changes and thresholds, two corners and two tiles to
 * the next block of corr, old and new positions, particles, prevs, alt rows, two flags */
static size_t accept_smem(int K, size_t real_size)
{
    return (2 * (size_t)K + 4 * WINDOW * WINDOW) * sizeof(double) + 6 * (size_t)K * real_size +
           3 * (size_t)K * sizeof(int) + 2 * (size_t)K;
}

int cu_batched_fits(const cu_view *v, mc_err *err)
{
    int dev, optin;
    size_t need = accept_smem(v->batch_trials, v->single ? sizeof(float) : sizeof(double));
    CU_TRY(cudaGetDevice(&dev), err);
    CU_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), err);
    if (need > (size_t)optin)
        MC_FAIL(err, MC_EINVAL,
                "[run] gpu_batch_trials = %d: the batched kernels need %zu bytes of shared memory per block, "
                "this GPU allows %d; expected 512 or less here",
                v->batch_trials, need, optin);
    return MC_OK;
}

template <typename real, bool MIX>
static int launch_batched(const cu_view *v, long long moves, mc_err *err)
{
    const int K = v->batch_trials, chunk = batch_chunk(v), nblocks = (v->n + chunk - 1) / chunk;
    const int corr_rows = corr_rows_of(K), sum_blocks = sums_in_decide(v) ? nblocks : 0;
    const unsigned C = (unsigned)v->nchains;
    size_t smem_draw = (size_t)K * sizeof(int);
    size_t smem_a = 3 * (size_t)chunk * sizeof(real);
    size_t smem_b = accept_smem(K, sizeof(real));
    cu_pairs<real> lj = cu_pairs_of<real>(v);
    batch_rows<real> rows;
    rows.chains = v->chains, rows.pos = (real *)v->pos, rows.n = v->n;
    rows.partial = v->partial, rows.corr = v->partial + (size_t)nblocks * K;
    rows.tb = batch_tables_of<real>(v, rows.corr + (size_t)K * K);
    rows.chain_doubles = chain_scratch(v);
    if (smem_a > 48 * 1024) /* a slice of a very large chain (over a million particles in double) */
        CU_TRY(cudaFuncSetAttribute(batch_trial_energy_kernel<real, MIX>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)smem_a), err);
    if (smem_b > 48 * 1024)
        CU_TRY(cudaFuncSetAttribute(batch_decide_kernel<real, MIX>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_b), err);
    int chained = 0;
    MC_TRY(cu_chained_launches(batch_draw_kernel<real>, &chained, err));
    for (long long done = 0; done < moves; done += K) {
        int trials = (int)(moves - done < K ? moves - done : K);
        CU_TRY(cu_launch(chained, batch_draw_kernel<real>, dim3(1, C), K, smem_draw, rows, trials, v->seed), err);
        /* alt rows, pair sums, then a block per row of corrections (trial m < trials - 1) */
        CU_TRY(cu_launch(chained, batch_trial_energy_kernel<real, MIX>,
                         dim3(ALT_MAX + nblocks + (trials - 1 + corr_rows - 1) / corr_rows, C), K, smem_a, rows, trials,
                         chunk, nblocks, corr_rows, lj), err);
        if (!sum_blocks)
            CU_TRY(cu_launch(chained, batch_sums_kernel, dim3((trials + 31) / 32, C), 32 * SUM_WARPS, 0, v->partial,
                             rows.chain_doubles, K, trials, nblocks), err);
        CU_TRY(cu_launch(chained, batch_decide_kernel<real, MIX>, dim3(1, C), decide_threads(K), smem_b, rows, K, trials,
                         sum_blocks, lj, v->seed), err);
    }
    return MC_OK;
}

int cu_sweep_batched(const cu_view *v, long long moves, mc_err *err)
{
    return by_precision_and_mix(v, [&](auto real_tag, auto mix) {
        return launch_batched<decltype(real_tag), decltype(mix)::value>(v, moves, err);
    });
}
