/* cu_sweep: the Metropolis loop on the GPU, in two shapes under one contract (the chain after
 * `moves` moves is the CPU backend's chain, draw for draw and decision for decision):
 *  - cu_sweep_chains: one resident block per chain for many small chains; every thread draws the
 *    same trial, sums its share of the pair terms, and the block sum decides.
 *  - cu_sweep_batched: for chains too large for one block, K consecutive trial moves are evaluated
 *    at once against the batch-start configuration (kernel A, all SMs), then accepted in order
 *    (kernel B, one block), each trial corrected by its pair terms with the earlier accepted ones,
 *    and recomputed in full if its own particle already moved in the batch. */
#include "cu_backend.h"
#include "cu_check.h"
#include "cu_chain_move.cuh"

enum { CHAIN_THREADS_MAX = 256 };

/* Energy change of moving particle i from o to nw, summed over j = first, first + stride, ... < end
 * (j != i). Each pair energy is rounded once in `real` and added in double, new and old apart, so
 * that the running energy and a full recomputation add exactly the same pair terms. Indices are
 * local to x, y, z; index0 is the global index of local 0 (a staged chunk), which fixes species. */
template <bool MIX, typename real>
__device__ double move_energy_part(const real *x, const real *y, const real *z, int first, int end,
                                   int stride, int i, real ox, real oy, real oz, real nx, real ny,
                                   real nz, real box, real half, const cu_pairs<real> &pr,
                                   int index0 = 0)
{
    typedef typename prec<real>::params params;
    int a = MIX ? pr.species_of(i + index0) : 0;
    return cu_by_species<MIX>(pr, a, first, end, stride, index0, [&](int j0, int j1, const params &p) {
        return cu_specialised(p, [&](const params &pp) {
            double e_new = 0.0, e_old = 0.0;
            for (int j = j0; j < j1; j += stride) {
                if (j == i) continue;
                e_old += (double)prec<real>::energy(cu_dist2(ox, oy, oz, x[j], y[j], z[j], box, half), pp);
                e_new += (double)prec<real>::energy(cu_dist2(nx, ny, nz, x[j], y[j], z[j], box, half), pp);
            }
            return e_new - e_old;
        });
    });
}

/* The pair energy of the chain with its box and positions scaled by s (edge sbox): this thread's
 * share, rows i = threadIdx.x, + blockDim.x, ..., each with its later partners, every pair's energy
 * rounded once in real and added in double (the measurement's convention). */
template <bool MIX, typename real>
__device__ double scaled_energy_part(const real *x, const real *y, const real *z, int n, double s, real sbox,
                                     real shalf, const cu_pairs<real> &pr)
{
    typedef typename prec<real>::params params;
    double e = 0.0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        real xi = cu_scaled(x[i], s, sbox), yi = cu_scaled(y[i], s, sbox), zi = cu_scaled(z[i], s, sbox);
        int a = MIX ? pr.species_of(i) : 0;
        e += cu_by_species<MIX>(pr, a, i + 1, n, 1, 0, [&](int j0, int j1, const params &p) {
            return cu_specialised(p, [&](const params &pp) {
                double part = 0.0;
                for (int j = j0; j < j1; j++)
                    part += (double)prec<real>::energy(
                        cu_dist2(xi, yi, zi, cu_scaled(x[j], s, sbox), cu_scaled(y[j], s, sbox), cu_scaled(z[j], s, sbox),
                                 sbox, shalf),
                        pp);
                return part;
            });
        });
    }
    return e;
}

/* One block per chain. Per move: every thread sums its share of the pair terms; thread 0 adds the
 * warp sums in a fixed order, applies the Metropolis test and moves the particle. With npt.on,
 * every sweep of n moves ends with the run driver's volume move (mc_run.c's volume_move): the edge
 * scale from the host's draws, a box below the floor rejected (and counted in production), else the
 * whole chain's energy at the scaled positions, the decision by mc_npt_volume_cost, and on
 * acceptance every coordinate scaled as cu_volume_scale scales it. */
template <typename real, bool MIX>
__global__ void __launch_bounds__(CHAIN_THREADS_MAX)
    sweep_chains_kernel(cu_chain_dev *chains, real *pos, int n, long long moves, cu_pairs<real> lj,
                        unsigned long long seed, int staged, cu_npt npt)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double warp_sum[32];
    __shared__ draws next;
    __shared__ double s_energy;
    __shared__ unsigned long long s_accepted, s_volume_accepted, s_floor_hits;
    __shared__ int s_scale;
    cu_chain_dev *cd = &chains[blockIdx.x];
    const unsigned id = cd->id;
    const double beta = cd->beta;
    double box_d = cd->box; /* changes with accepted volume moves */
    /* the step, capped at half the box as mc_chain_step caps it (npt: at the current box) */
    double max_disp = npt.on ? (cd->max_step > 0.5 * box_d ? 0.5 * box_d : cd->max_step) : cd->max_displacement;
    long long base = 0; /* the move the draws in `next` start at */
    int redraw = 1;
    real box = (real)cd->box, half = (real)cd->half_box;
    const unsigned long long step0 = cd->step;
    real *g = pos + (size_t)blockIdx.x * 3 * n;
    real *x = staged ? (real *)smem : g;
    if (staged)
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) x[j] = g[j];
    real *y = x + n, *z = y + n;
    /* npt, staged: a trial volume's scaled coordinates, computed once instead of for every pair */
    real *sx = npt.on && staged == 2 ? x + 3 * n : NULL, *sy = sx ? sx + n : NULL, *sz = sx ? sy + n : NULL;
    if (threadIdx.x == 0) {
        s_energy = cd->energy;
        s_accepted = cd->accepted;
        s_volume_accepted = cd->volume_accepted;
        s_floor_hits = cd->floor_hits;
    }
    for (long long m = 0; m < moves; m++) {
        if (redraw || m - base == DRAW_AHEAD) { /* used up, or drawn at a step cap that changed */
            base = m, redraw = 0;
            draw_ahead(&next, seed, id, step0 + m, moves - m, n, max_disp);
        }
        int slot = (int)(m - base);
        __syncthreads(); /* draws written and the last move's particle visible */
        const mc_trial t = next.trial[slot];
        int i = (int)t.particle;
        real ox = x[i], oy = y[i], oz = z[i], nx, ny, nz;
        trial_position(t, ox, oy, oz, box, &nx, &ny, &nz);
        double part = move_energy_part<MIX>(x, y, z, (int)threadIdx.x, n, (int)blockDim.x, i, ox, oy,
                                       oz, nx, ny, nz, box, half, lj);
        double dE = block_total(part, warp_sum);
        if (threadIdx.x == 0 && mc_metropolis_test(dE, beta, next.threshold[slot])) {
            x[i] = nx, y[i] = ny, z[i] = nz;
            s_energy += dE;
            s_accepted++;
        }
        if (!npt.on || (m + 1) % n != 0) continue;
        /* the sweep's volume move */
        const double *d = npt.draws + ((size_t)blockIdx.x * npt.sweeps + (size_t)((m + 1) / n - 1)) * 4;
        double scale = d[2], new_box = box_d * scale;
        __syncthreads(); /* the last move's particle visible */
        if (new_box < npt.min_box_len) { /* rejected unevaluated, as the driver does */
            if (threadIdx.x == 0) s_floor_hits += cd->production;
            continue;
        }
        real sbox = (real)new_box, shalf = (real)(0.5 * new_box);
        if (sx) {
            for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) sx[j] = cu_scaled(x[j], scale, sbox);
            __syncthreads();
        }
        double e_new = block_total(sx ? scaled_energy_part<MIX>(sx, sy, sz, n, 1.0, sbox, shalf, lj)
                                      : scaled_energy_part<MIX>(x, y, z, n, scale, sbox, shalf, lj),
                                   warp_sum);
        /* nvcc may fuse a product and a sum of the cost that the host keeps apart: the last bit of dh,
         * which decides only a tie within an ulp of the threshold */
        if (threadIdx.x == 0) {
            double v = box_d * box_d * box_d, v_new = v * d[3];
            double dh = mc_npt_volume_cost(e_new - s_energy, npt.tail_nn, v, v_new, cd->pressure, cd->kT, npt.n_scaled,
                                           d[0]);
            s_scale = mc_metropolis_test(dh, beta, d[1]);
            if (s_scale) s_energy = e_new, s_volume_accepted++;
        }
        __syncthreads(); /* the decision seen by all */
        if (!s_scale) continue;
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) x[j] = sx ? sx[j] : cu_scaled(x[j], scale, sbox);
        box_d = new_box, box = sbox, half = shalf;
        double capped = cd->max_step > 0.5 * box_d ? 0.5 * box_d : cd->max_step;
        if (capped != max_disp) max_disp = capped, redraw = 1;
    }
    __syncthreads();
    if (staged)
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) g[j] = x[j];
    if (threadIdx.x == 0) {
        cd->step = step0 + moves;
        cd->accepted = s_accepted;
        cd->energy = s_energy;
        if (npt.on) {
            cd->box = box_d, cd->half_box = 0.5 * box_d;
            cd->volume_moves += (unsigned long long)npt.sweeps;
            cd->volume_accepted = s_volume_accepted;
            cd->floor_hits = s_floor_hits;
        }
    }
}

/* Threads per chain block: about 8 particles each (fewer threads, less per-move overhead, as long
 * as the pair loop keeps them busy), a whole number of warps, 32 to 256. */
static int chain_threads(int n)
{
    int t = (n / 8 + 31) / 32 * 32;
    return t < 32 ? 32 : t > CHAIN_THREADS_MAX ? CHAIN_THREADS_MAX : t;
}

template <typename real, bool MIX>
static int launch_chains(const cu_view *v, long long moves, const cu_npt *npt, mc_err *err)
{
    size_t bytes = 3 * (size_t)v->n * sizeof(real);
    int max_optin = 0, dev;
    CU_TRY(cudaGetDevice(&dev), err);
    CU_TRY(cudaDeviceGetAttribute(&max_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), err);
    /* staging pays only while several blocks still fit on an SM; else read from L1/L2. npt: staged
     * 2 when a trial volume's coordinates fit beside them (twice the bytes) */
    int staged = bytes <= 64 * 1024 && bytes + sizeof(draws) + 1024 <= (size_t)max_optin;
    if (staged && npt->on && 2 * bytes <= 64 * 1024 && 2 * bytes + sizeof(draws) + 1024 <= (size_t)max_optin)
        staged = 2, bytes *= 2;
    if (staged && bytes > 48 * 1024 - sizeof(draws) - 512)
        CU_TRY(cudaFuncSetAttribute(sweep_chains_kernel<real, MIX>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), err);
    sweep_chains_kernel<real, MIX><<<v->nchains, chain_threads(v->n), staged ? bytes : 0>>>(
        v->chains, (real *)v->pos, v->n, moves, cu_pairs_of<real>(v), v->seed, staged, *npt);
    CU_LAUNCHED(err);
    return MC_OK;
}

int cu_sweep_chains(const cu_view *v, long long moves, const cu_npt *npt, mc_err *err)
{
    return by_precision_and_mix(v, [&](auto real_tag, auto mix) {
        return launch_chains<decltype(real_tag), decltype(mix)::value>(v, moves, npt, err);
    });
}

/* ---- batched path ---------------------------------------------------------------------------- */

/* Trial k of a batch as kernel A sees it: its particle, its batch-start position o and its new
 * position nw. */
template <typename real> struct batch_trial {
    int particle;
    real o[3], nw[3];
};

template <typename real>
__device__ inline batch_trial<real> batch_trial_of(const real *pos, int n, unsigned long long seed, unsigned id,
                                                   unsigned long long step, double max_disp, real box)
{
    mc_trial t = mc_trial_draw(seed, id, step, (uint32_t)n, max_disp);
    batch_trial<real> b;
    b.particle = (int)t.particle;
    b.o[0] = pos[b.particle], b.o[1] = pos[n + b.particle], b.o[2] = pos[2 * n + b.particle];
    trial_position(t, b.o[0], b.o[1], b.o[2], box, &b.nw[0], &b.nw[1], &b.nw[2]);
    return b;
}

/* Kernel A. Blocks below pair_blocks: block b stages particles [b chunk, (b + 1) chunk) in shared
 * memory; thread k sums the energy change of trial k (step0 + k) over them against the batch-start
 * configuration. Block pair_blocks + m: thread k > m writes corr[m K + k], what trial m, if
 * accepted, adds to trial k's energy change (the four pair terms between their old and new
 * positions), so that kernel B's sequential pass only adds numbers. (For trials of the same
 * particle it is never used: the later one is recomputed in full.) Such a pair also raises prev[k]
 * (-1 on entry) to m: prev[k] ends as the latest earlier trial of trial k's particle. */
template <typename real, bool MIX>
__global__ void __launch_bounds__(CU_MAX_BATCH_TRIALS) batch_trials_kernel(const cu_chain_dev *cd, const real *pos, int n, int trials,
                                    int chunk, int pair_blocks, cu_pairs<real> lj, unsigned long long seed,
                                    double *partial, double *corr, int *prev)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int k = threadIdx.x, K = blockDim.x;
    const real box = (real)cd->box, half = (real)cd->half_box;
    if ((int)blockIdx.x >= pair_blocks) {
        const int m = blockIdx.x - pair_blocks;
        if (k <= m || k >= trials) return;
        batch_trial<real> tk = batch_trial_of(pos, n, seed, cd->id, cd->step + k, cd->max_displacement, box);
        batch_trial<real> tm = batch_trial_of(pos, n, seed, cd->id, cd->step + m, cd->max_displacement, box);
        if (tk.particle == tm.particle) atomicMax(&prev[k], m); /* the latest earlier trial of the same */
        corr[(size_t)m * K + k] =
            tk.particle == tm.particle ? 0.0
            : cu_pair_correction(tk.o[0], tk.o[1], tk.o[2], tk.nw[0], tk.nw[1], tk.nw[2], tm.o, tm.nw, box, half,
                                 MIX ? lj.of(lj.species_of(tk.particle), lj.species_of(tm.particle)) : lj.one);
        return;
    }
    real *sx = (real *)smem, *sy = sx + chunk, *sz = sy + chunk;
    const real *x = pos, *y = pos + n, *z = pos + 2 * n;
    int j0 = blockIdx.x * chunk, len = min(n - j0, chunk);
    for (int j = threadIdx.x; j < len; j += blockDim.x) {
        sx[j] = x[j0 + j];
        sy[j] = y[j0 + j];
        sz[j] = z[j0 + j];
    }
    __syncthreads();
    if (k >= trials) return;
    batch_trial<real> t = batch_trial_of(pos, n, seed, cd->id, cd->step + k, cd->max_displacement, box);
    /* all threads read the same staged particle at once: a shared-memory broadcast */
    partial[(size_t)blockIdx.x * K + k] =
        move_energy_part<MIX>(sx, sy, sz, 0, len, 1, t.particle - j0, t.o[0], t.o[1], t.o[2], t.nw[0], t.nw[1],
                              t.nw[2], box, half, lj, j0);
}

enum { WINDOW = 32 }; /* trials that warp 0 of kernel B decides between two block barriers */

/* Kernel B: one block, thread k owns trial k; trials are decided in order. Warp 0 decides a window
 * of up to 32 trials at a time, lane j trial s + j: lane t tests trial s + t with its energy
 * change so far, the warp learns the outcome by a shuffle, and the later lanes add corr of an
 * accepted one, so a decision costs a shuffle, not a block barrier. At the window's end every later
 * trial adds the corr of the window's accepted trials, in order. A trial whose particle already
 * moved in the batch ends the window: the block recomputes its energy change in full against the
 * current positions, decides it, and every later trial adds its pair terms computed afresh. Each
 * trial's energy change is thus the sum of its kernel A partials and then of its corrections by
 * the earlier accepted trials in their order, whichever window they fell in. */
template <typename real, bool MIX>
__global__ void __launch_bounds__(CU_MAX_BATCH_TRIALS) batch_accept_kernel(cu_chain_dev *cd, real *pos, int n, int trials, int nblocks,
                                    cu_pairs<real> lj, unsigned long long seed,
                                    const double *partial, const double *corr, int *prev)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int K = blockDim.x, k = threadIdx.x, lane = k & 31;
    double *sdE = (double *)smem, *sthreshold = sdE + K;  /* energy change so far, -ln u */
    double *stile = sthreshold + K;                        /* corr of the window: [t][j] */
    real *sa = (real *)(stile + WINDOW * WINDOW), *sb = sa + 3 * K; /* old and new position */
    int *sp = (int *)(sb + 3 * K), *sprev = sp + K;        /* particle, previous trial of the same */
    unsigned char *sacc = (unsigned char *)(sprev + K);
    __shared__ double red[32], s_energy;
    __shared__ int s_end;
    __shared__ unsigned s_mask;
    __shared__ unsigned long long s_accepted;
    real *x = pos, *y = pos + n, *z = pos + 2 * n;
    const unsigned id = cd->id;
    const unsigned long long step0 = cd->step;
    const double beta = cd->beta, max_disp = cd->max_displacement;
    const real box = (real)cd->box, half = (real)cd->half_box;
    if (k < trials) {
        batch_trial<real> t = batch_trial_of(pos, n, seed, id, step0 + k, max_disp, box);
        sthreshold[k] = mc_accept_threshold(seed, id, step0 + k); /* now, off the sequential path */
        sp[k] = t.particle;
        for (int d = 0; d < 3; d++) sa[3 * k + d] = t.o[d], sb[3 * k + d] = t.nw[d];
        double dE = 0.0;
#pragma unroll 8
        for (int b = 0; b < nblocks; b++) dE += partial[(size_t)b * K + k]; /* fixed order */
        sdE[k] = dE;
        sacc[k] = 0;
        sprev[k] = prev[k];
        prev[k] = -1; /* as the next batch's kernel A expects it */
    }
    if (k == 0) {
        s_energy = cd->energy;
        s_accepted = 0;
    }
    __syncthreads(); /* every trial has read its batch-start position before any is written */
    for (int s = 0; s < trials;) {
        const int w = min(WINDOW, trials - s);
        for (int e = k; e < WINDOW * WINDOW; e += K) { /* corr[(s + t) K + s + j] for j > t */
            int t = e / WINDOW, j = e % WINDOW;
            stile[e] = t < w && j < w && j > t ? corr[(size_t)(s + t) * K + s + j] : 0.0;
        }
        __syncthreads();
        if (k < WINDOW) {
            const int trial = s + lane;
            const double dE0 = lane < w ? sdE[trial] : 0.0, threshold = lane < w ? sthreshold[trial] : 0.0;
            int moved_before = 0;    /* an earlier trial of the same particle, before the window, accepted */
            unsigned same_in = 0;    /* earlier trials of the same particle in the window */
            for (int m = lane < w ? sprev[trial] : -1; m >= 0; m = sprev[m])
                if (m >= s) same_in |= 1u << (m - s);
                else moved_before |= sacc[m];
            /* Decide the window by rounds: each lane tests its trial as corrected by the trials in
             * `mask`, the lanes vote, and again until the vote repeats. A lane's outcome depends
             * only on the lanes below it, so after r rounds the lanes below r hold their outcome in
             * the sequential chain, and a repeated vote is the sequential outcome. Corrections are
             * small against most energy changes, so it usually takes two rounds. */
            unsigned mask = 0;
            int end = w;
            double dE;
            for (;;) {
                dE = dE0;
                for (unsigned left = mask & ((1u << lane) - 1u); left; left &= left - 1u) /* in order */
                    dE += stile[(__ffs((int)left) - 1) * WINDOW + lane];
                const bool full = lane < w && (moved_before || (same_in & mask));
                const bool accept = lane < w && !full && mc_metropolis_test(dE, beta, threshold);
                const unsigned fulls = __ballot_sync(0xffffffffu, full);
                const int first_full = fulls ? __ffs((int)fulls) - 1 : w;
                const unsigned vote = __ballot_sync(0xffffffffu, accept) & ((1ull << first_full) - 1);
                if (vote == mask && first_full == end) break;
                mask = vote, end = first_full;
            }
            if (lane < w) sdE[trial] = dE;
            if (lane < end && (mask >> lane) & 1u) {
                const int i = sp[trial];
                x[i] = sb[3 * trial], y[i] = sb[3 * trial + 1], z[i] = sb[3 * trial + 2];
                sacc[trial] = 1;
            }
            __syncwarp();
            if (lane == 0) { /* the accepted energy changes added in order */
                double energy = s_energy;
                for (unsigned left = mask; left; left &= left - 1) energy += sdE[s + __ffs((int)left) - 1];
                s_energy = energy;
            }
            if (lane == 0) s_end = s + end, s_mask = mask, s_accepted += __popc(mask);
        }
        __syncthreads();
        const int end = s_end;
        const unsigned mask = s_mask;
        if (k >= s + WINDOW && k < trials && mask) { /* loads in flight together, added in order */
            double dE = sdE[k];
            for (int base = 0; base < WINDOW; base += 8) {
                if (!((mask >> base) & 0xffu)) continue;
                double c[8];
#pragma unroll
                for (int u = 0; u < 8; u++) c[u] = (mask >> (base + u)) & 1u ? corr[(size_t)(s + base + u) * K + k] : 0.0;
#pragma unroll
                for (int u = 0; u < 8; u++)
                    if ((mask >> (base + u)) & 1u) dE += c[u];
            }
            sdE[k] = dE;
        }
        if (end < s + w) { /* uniform: trial `end`'s particle moved earlier in the batch */
            const int i = sp[end];
            mc_trial t = mc_trial_draw(seed, id, step0 + end, (uint32_t)n, max_disp);
            real ox = x[i], oy = y[i], oz = z[i], nx, ny, nz;
            trial_position(t, ox, oy, oz, box, &nx, &ny, &nz);
            double part = move_energy_part<MIX>(x, y, z, k, n, K, i, ox, oy, oz, nx, ny, nz, box, half, lj);
            double full_dE = cu_block_sum(part, red);
            if (k == 0) {
                sa[3 * end] = ox, sa[3 * end + 1] = oy, sa[3 * end + 2] = oz;
                sb[3 * end] = nx, sb[3 * end + 1] = ny, sb[3 * end + 2] = nz;
                if (mc_metropolis_test(full_dE, beta, sthreshold[end])) {
                    x[i] = nx, y[i] = ny, z[i] = nz;
                    sacc[end] = 1;
                    s_energy += full_dE;
                    s_accepted++;
                }
            }
            __syncthreads();
            if (sacc[end] && k > end && k < trials && sp[k] != i)
                sdE[k] += cu_pair_correction(sa[3 * k], sa[3 * k + 1], sa[3 * k + 2], sb[3 * k], sb[3 * k + 1],
                                             sb[3 * k + 2], sa + 3 * end, sb + 3 * end, box, half,
                                             MIX ? lj.of(lj.species_of(sp[k]), lj.species_of(i)) : lj.one);
            s = end + 1;
        } else {
            s = end;
        }
        __syncthreads();
    }
    __syncthreads();
    if (k == 0) {
        cd->step = step0 + trials;
        cd->accepted += s_accepted;
        cd->energy = s_energy;
    }
}

#ifndef BATCH_BLOCKS_PER_SM
#define BATCH_BLOCKS_PER_SM 4 /* kernel A's pair-sum blocks of K threads per SM */
#endif

static int batch_chunk(const cu_view *v)
{
    int blocks = BATCH_BLOCKS_PER_SM * v->sm_count;
    int chunk = (v->n + blocks - 1) / blocks;
    return chunk < 32 ? 32 : chunk;
}

/* kernel A's partial sums (a block's K), the K x K trial-pair corrections after them, and the K
 * ints of prev (in K doubles' room) */
size_t cu_batched_scratch(const cu_view *v)
{
    int chunk = batch_chunk(v);
    return (size_t)((v->n + chunk - 1) / chunk) * v->batch_trials + (size_t)v->batch_trials * v->batch_trials +
           v->batch_trials;
}

template <typename real, bool MIX>
static int launch_batched(const cu_view *v, long long moves, mc_err *err)
{
    const int K = v->batch_trials, chunk = batch_chunk(v), nblocks = (v->n + chunk - 1) / chunk;
    size_t smem_a = 3 * (size_t)chunk * sizeof(real);
    size_t smem_b = (2 * (size_t)K + WINDOW * WINDOW) * sizeof(double) + 6 * (size_t)K * sizeof(real) +
                    2 * (size_t)K * sizeof(int) + K;
    cu_pairs<real> lj = cu_pairs_of<real>(v);
    double *corr = v->partial + (size_t)nblocks * K;
    int *prev = (int *)(corr + (size_t)K * K);
    CU_TRY(cudaMemset(prev, 0xff, (size_t)K * sizeof *prev), err); /* -1: kernel B resets what it reads */
    if (smem_b > 48 * 1024)
        CU_TRY(cudaFuncSetAttribute(batch_accept_kernel<real, MIX>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_b), err);
    for (int c = 0; c < v->nchains; c++) {
        real *pos = (real *)v->pos + (size_t)c * 3 * v->n;
        for (long long done = 0; done < moves; done += K) {
            int trials = (int)(moves - done < K ? moves - done : K);
            /* nblocks blocks of pair sums, then a block per row of corrections (trial m < trials - 1) */
            batch_trials_kernel<real, MIX><<<nblocks + trials - 1, K, smem_a>>>(
                &v->chains[c], pos, v->n, trials, chunk, nblocks, lj, v->seed, v->partial, corr, prev);
            CU_LAUNCHED(err);
            batch_accept_kernel<real, MIX><<<1, K, smem_b>>>(&v->chains[c], pos, v->n, trials, nblocks, lj,
                                                             v->seed, v->partial, corr, prev);
            CU_LAUNCHED(err);
        }
    }
    return MC_OK;
}

int cu_sweep_batched(const cu_view *v, long long moves, mc_err *err)
{
    return by_precision_and_mix(v, [&](auto real_tag, auto mix) {
        return launch_batched<decltype(real_tag), decltype(mix)::value>(v, moves, err);
    });
}
