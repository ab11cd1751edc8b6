/* cu_rigid_batch: the molecule moves of a few chains over the whole GPU. On the resident path
 * (cu_rigid.cu) a chain is one block, a move at a time: a chain of a few hundred molecules keeps
 * one SM of the GPU busy. Here a chain's moves go K at a time (a batch):
 *
 * - kernel A, one block per (range of sites, trial, chain), against the configuration at the
 *   batch's start: the trial of step step0 + k drawn and placed as the CPU does (every block of
 *   the trial alike), its energy change summed over the block's range of sites, and, in the
 *   trial's first block, its acceptance threshold and the latest earlier trial of the batch that
 *   moves the same molecule;
 * - kernel B, one block per chain, decides the trials in order. The molecules moved so far in the
 *   batch are kept in a table with their sites at the batch's start and now. The energy change of
 *   a trial whose molecule has not moved in the batch is kernel A's sum plus, for each moved
 *   molecule, the trial's pair terms with its present sites less those with its start sites
 *   (4 x sites^2 pair terms a moved molecule). A trial whose molecule has moved in the batch (its
 *   start is no longer the batch's), or whose sum met a hard core while other molecules have
 *   moved, is drawn, placed and summed afresh against the present configuration, as the resident
 *   kernel does.
 *
 * Every decision is the CPU's: the same draws, and energy changes equal to the CPU's to rounding.
 * The running energy is the CPU's to rounding too (a sample's recomputation resets it). Both
 * kernels sum in a fixed order, so a chain's results do not depend on the rank count. Built with
 * -fmad=false, as cu_rigid.cu. */
#include <string.h>

#include "cu_check.h"
#include "cu_rigid.cuh"

enum {
    RIGID_BATCH_MAX = 256,      /* most trials per batch */
    RIGID_ACCEPT_THREADS = 512, /* kernel B's block */
    RIGID_DEFAULT_TRIALS = 32,  /* the fastest of 32, 64 and 128 on shape D (doc/performance.md version 19) */
    RIGID_A_BLOCKS_PER_SM = 4   /* kernel A's parts per trial aim at this many blocks per SM */
};

static_assert(2 * MC_MAX_SITES * MC_MAX_SITES <= RIGID_ACCEPT_THREADS, "kernel B: a (site, site) pair a thread");

/* A trial of a batch, as kernel A leaves it for kernel B. */
struct rigid_trial_dev {
    double old[3 * MC_MAX_SITES], nw[3 * MC_MAX_SITES]; /* its molecule's sites at the batch start, moved */
    double nc[3];                                       /* the moved centre */
    double wall_dE;                                     /* the wall energy's change from the batch start */
    double threshold;                                   /* the step's Metropolis threshold, -ln u */
    mc_quat nq;                                         /* the moved orientation */
    mc_rigid_trial draw;                                /* molecule, kind, displacement or rotation */
    int prev; /* the latest earlier trial of the batch that moves the same molecule; -1: none */
};

/* Kernel B's copy of a trial (shared memory), and of a molecule moved in the batch. */
struct trial_sh {
    double dE_start, wall_dE, threshold, nc[3];
    mc_quat nq;
    mc_rigid_trial draw;
    int f0, ns, prev;
    int slot;          /* the moved table's slot of the trial's molecule once the trial is decided; -1: none */
    int placed_afresh; /* placed from the molecule's pose after an earlier move in the batch */
};
struct moved_sh {
    double centre[3]; /* its present pose */
    mc_quat q;
    int first, ns;
};

/* Kernel B's dynamic shared memory for K trials of molecules of at most ms sites: byte offsets. */
struct accept_layout {
    size_t t_old, t_nw, m_start, m_now; /* sites [K][3 ms]: trials' at the start and moved; moved molecules' */
    size_t trials, moved;               /* trial_sh [K], moved_sh [K] */
    size_t t_spec, m_spec;              /* site species [K][ms] */
    size_t bytes;
};
__host__ __device__ inline accept_layout accept_layout_of(int K, int ms)
{
    accept_layout l;
    const size_t sites = (size_t)K * 3 * ms * sizeof(double);
    l.t_old = 0, l.t_nw = sites, l.m_start = 2 * sites, l.m_now = 3 * sites;
    l.trials = 4 * sites, l.moved = l.trials + K * sizeof(trial_sh);
    l.t_spec = l.moved + K * sizeof(moved_sh), l.m_spec = l.t_spec + (size_t)K * ms;
    l.bytes = l.m_spec + (size_t)K * ms;
    return l;
}

/* A block's sum of its threads' values for thread 0: each warp's by shuffles, then warp 0 adds
 * the warps' (a fixed tree: the same bits every run). warp_sum holds 32 values; the caller's next
 * barrier protects it. */
__device__ inline double block_sum_for_thread0(double v, double *warp_sum)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x >= 32) return 0.0;
    v = threadIdx.x < (blockDim.x >> 5) ? warp_sum[threadIdx.x] : 0.0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* A site pair's energy from the sites' coordinates (p and q, 3 each). */
template <typename real>
__device__ __forceinline__ double site_pair(const double *p, const double *q, int a, int b, double box,
                                            const rigid_pairs<real> &sp)
{
    double dx = mc_rigid_separation(p[0] - q[0], box), dy = mc_rigid_separation(p[1] - q[1], box),
           dz = mc_rigid_separation(p[2] - q[2], box);
    return rigid_site_energy<real>(dx * dx + dy * dy + dz * dz, a, b, sp);
}

/* The energy change of molecule sites [f0, f0 + ns) moving from old to nw against sites j0 <= j <
 * j1 of other molecules, this thread's share: one (site j, moved site s) pair a thread at a time,
 * so that a block spreads a molecule's pairs over all its threads. */
template <typename real>
__device__ double energy_items(const double *x, const double *y, const double *z, const unsigned char *species,
                               int j0, int j1, int f0, int ns, const double *old, const double *nw,
                               const unsigned char *spec, double box, const rigid_pairs<real> &sp)
{
    double e = 0.0;
    for (int i = threadIdx.x; i < (j1 - j0) * ns; i += blockDim.x) {
        int j = j0 + i / ns, s = i % ns;
        if (j >= f0 && j < f0 + ns) continue;
        const double site[3] = {x[j], y[j], z[j]};
        int a = spec[s], b = species[j];
        e += site_pair<real>(nw + 3 * s, site, a, b, box, sp) - site_pair<real>(old + 3 * s, site, a, b, box, sp);
    }
    return e;
}

/* Kernel A: grid (parts, trials, chains). Every thread draws the trial (arithmetic, and the
 * molecule table); thread s places site s, so the block waits for one round of loads. */
template <typename real>
__global__ void __launch_bounds__(RIGID_THREADS)
    rigid_batch_trials_kernel(const rigid_chain_dev *chains, const double *pos, const double *centres,
                              const double *quats, rigid_tables t, rigid_consts k, int n, int nmol, int K,
                              rigid_trial_dev *trials, double *partial)
{
    __shared__ double old[3 * MC_MAX_SITES], nw[3 * MC_MAX_SITES], warp_sum[32];
    __shared__ rigid_pairs<real> sp;
    __shared__ unsigned char spec[MC_MAX_SITES];
    __shared__ int prev;
    const int part = blockIdx.x, trial = blockIdx.y, c = blockIdx.z;
    const rigid_chain_dev *cd = &chains[c];
    const double *x = pos + (size_t)c * 3 * n, *y = x + n, *z = y + n;
    const double *centre = centres + (size_t)c * 3 * nmol, *quat = quats + (size_t)c * 4 * nmol;
    const double box = cd->box;
    const unsigned long long step0 = cd->step;
    const mc_rigid_trial tr = mc_rigid_trial_draw(k.seed, cd->id, step0 + trial, (uint32_t)nmol, t.first,
                                                  cd->max_displacement, cd->max_rotation);
    const int m = (int)tr.molecule, f0 = t.first[m], ns = t.first[m + 1] - f0;
    double oc[3] = {0.0, 0.0, 0.0}, nc[3];
    mc_quat nq;
    if (threadIdx.x < ns) {
        const int s = threadIdx.x;
        oc[0] = centre[m], oc[1] = centre[nmol + m], oc[2] = centre[2 * nmol + m];
        rigid_moved_pose(tr, oc, mc_quat{quat[4 * m], quat[4 * m + 1], quat[4 * m + 2], quat[4 * m + 3]}, box, nc, &nq);
        mc_rigid_site(nc, nq, &t.body[3 * (f0 + s)], box, &nw[3 * s]);
        old[3 * s] = x[f0 + s], old[3 * s + 1] = y[f0 + s], old[3 * s + 2] = z[f0 + s];
        spec[s] = t.species[f0 + s];
    }
    rigid_pairs_load(&sp, k);
    if (threadIdx.x == 0) prev = -1;
    __syncthreads();
    if (part == 0)
        for (int u = threadIdx.x; u < trial; u += blockDim.x)
            if ((int)mc_rigid_trial_molecule(mc_rng_block(k.seed, cd->id, MC_RNG_TRIAL, step0 + u), (uint32_t)nmol) == m)
                atomicMax(&prev, u);
    const int chunk = (n + gridDim.x - 1) / gridDim.x, j0 = part * chunk, j1 = min(n, j0 + chunk);
    double dE = block_sum_for_thread0(energy_items<real>(x, y, z, t.species, j0, j1, f0, ns, old, nw, spec, box, sp),
                                      warp_sum);
    rigid_trial_dev *r = &trials[(size_t)c * K + trial];
    if (part == 0 && threadIdx.x < 3 * ns) r->old[threadIdx.x] = old[threadIdx.x], r->nw[threadIdx.x] = nw[threadIdx.x];
    if (threadIdx.x != 0) return;
    partial[((size_t)c * K + trial) * gridDim.x + part] = dE;
    if (part != 0) return;
    r->nc[0] = nc[0], r->nc[1] = nc[1], r->nc[2] = nc[2];
    r->wall_dE = mc_wall_energy(nc[0], nc[1], nc[2], k.wall_radius, k.wall_strength) -
                 mc_wall_energy(oc[0], oc[1], oc[2], k.wall_radius, k.wall_strength);
    r->threshold = mc_accept_threshold(k.seed, cd->id, step0 + trial);
    r->nq = nq, r->draw = tr, r->prev = prev;
}

/* Kernel B: one block per chain; its dynamic shared memory is accept_layout_of(K, ms) (ms: sites
 * of the largest molecule). The trials' data are copied to shared memory first, and thread 0
 * keeps the chain's counters in registers, so that a decision waits on no global load. Thread 0
 * decides; the block's threads then apply an accepted move together (tables, global sites and
 * pose) before the next trial. */
template <typename real>
__global__ void __launch_bounds__(RIGID_ACCEPT_THREADS)
    rigid_batch_accept_kernel(rigid_chain_dev *chains, double *pos, double *centres, double *quats, rigid_tables t,
                              rigid_consts k, int n, int nmol, int K, int trials, int parts, int ms,
                              const rigid_trial_dev *in, const double *partial)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const accept_layout L = accept_layout_of(K, ms);
    double *t_old = (double *)(smem + L.t_old), *t_nw = (double *)(smem + L.t_nw);
    double *m_start = (double *)(smem + L.m_start), *m_now = (double *)(smem + L.m_now);
    trial_sh *ts = (trial_sh *)(smem + L.trials);
    moved_sh *mv = (moved_sh *)(smem + L.moved);
    unsigned char *t_spec = smem + L.t_spec, *m_spec = smem + L.m_spec;
    __shared__ double warp_sum[32];
    __shared__ rigid_pairs<real> sp;
    __shared__ double f_nw[3 * MC_MAX_SITES], f_nc[3]; /* a trial placed afresh */
    __shared__ mc_quat f_nq;
    __shared__ int moved;   /* molecules in the moved table */
    __shared__ int pending; /* an accepted trial to apply before the next; -1: none */
    const int c = blockIdx.x, stride = 3 * ms;
    rigid_chain_dev *cd = &chains[c];
    double *x = pos + (size_t)c * 3 * n, *y = x + n, *z = y + n;
    double *centre = centres + (size_t)c * 3 * nmol, *quat = quats + (size_t)c * 4 * nmol;
    const rigid_trial_dev *r = in + (size_t)c * K;
    const double box = cd->box, beta = cd->beta;
    const unsigned long long step0 = cd->step;
    for (int u = threadIdx.x; u < trials; u += blockDim.x) {
        trial_sh *q = &ts[u];
        double s = 0.0;
        for (int p = 0; p < parts; p++) s += partial[((size_t)c * K + u) * parts + p];
        q->dE_start = s, q->wall_dE = r[u].wall_dE, q->threshold = r[u].threshold;
        q->nc[0] = r[u].nc[0], q->nc[1] = r[u].nc[1], q->nc[2] = r[u].nc[2];
        q->nq = r[u].nq, q->draw = r[u].draw, q->prev = r[u].prev;
        q->f0 = t.first[q->draw.molecule], q->ns = t.first[q->draw.molecule + 1] - q->f0;
    }
    rigid_pairs_load(&sp, k);
    if (threadIdx.x == 0) moved = 0, pending = -1;
    __syncthreads();
    for (int i = threadIdx.x; i < trials * stride; i += blockDim.x) {
        int u = i / stride, w = i % stride;
        if (w < 3 * ts[u].ns) t_old[i] = r[u].old[w], t_nw[i] = r[u].nw[w];
    }
    for (int i = threadIdx.x; i < trials * ms; i += blockDim.x) {
        int u = i / ms, s = i % ms;
        if (s < ts[u].ns) t_spec[i] = t.species[ts[u].f0 + s];
    }
    /* this thread's share of a trial's pair terms with the moved molecules: moved site s against
     * site w of molecules item_q, item_q + item_step, ..., with their present (item_then = 0) or
     * start sites (1); per = 2 ms^2 <= 512 = the block, so every thread has at most one (s, w) */
    const int per = 2 * ms * ms, item_step = blockDim.x / per;
    const int item_q = threadIdx.x < item_step * per ? threadIdx.x / per : nmol; /* nmol: none */
    const int item_s = threadIdx.x % per / (2 * ms), item_w = threadIdx.x % (2 * ms) / 2, item_then = threadIdx.x & 1;
    double energy = cd->energy; /* thread 0's, with the counters */
    unsigned long long accepted = 0, rotations = 0, rotations_accepted = 0;
    for (int u = 0; u < trials; u++) {
        __syncthreads(); /* the tables, and the last trial's decision */
        if (pending >= 0) { /* apply it: the moved table's slot q, the sites and pose in global memory */
            const trial_sh &tp = ts[pending];
            const int q = tp.slot, f0 = tp.f0, ns = tp.ns;
            const double *o = tp.placed_afresh ? m_now + (size_t)q * stride : t_old + (size_t)pending * stride;
            const double *nw = tp.placed_afresh ? f_nw : t_nw + (size_t)pending * stride;
            const double *nc = tp.placed_afresh ? f_nc : tp.nc;
            const mc_quat nq = tp.placed_afresh ? f_nq : tp.nq;
            const int i = threadIdx.x, m = (int)tp.draw.molecule;
            if (i < 3 * ns) {
                if (!tp.placed_afresh) m_start[(size_t)q * stride + i] = o[i]; /* first move in the batch */
                m_now[(size_t)q * stride + i] = nw[i];
                (i % 3 == 0 ? x : i % 3 == 1 ? y : z)[f0 + i / 3] = nw[i];
            }
            if (i < ns && !tp.placed_afresh) m_spec[q * ms + i] = t_spec[pending * ms + i];
            if (i < 3) mv[q].centre[i] = nc[i], centre[i * nmol + m] = nc[i];
            if (i == 3) mv[q].q = nq, mv[q].first = f0, mv[q].ns = ns;
            if (i >= 4 && i < 8) quat[4 * m + i - 4] = i == 4 ? nq.w : i == 5 ? nq.x : i == 6 ? nq.y : nq.z;
            __syncthreads();
        }
        const trial_sh &tu = ts[u];
        const int f0 = tu.f0, ns = tu.ns, nmoved = moved;
        const int slot = tu.prev >= 0 ? ts[tu.prev].slot : -1;
        const bool placed_afresh = slot >= 0, afresh = placed_afresh || (nmoved > 0 && !isfinite(tu.dE_start));
        const double *o = t_old + (size_t)u * stride, *nw = t_nw + (size_t)u * stride;
        double sum = 0.0;
        if (placed_afresh) { /* its molecule moved earlier in the batch: placed from its present pose */
            o = m_now + (size_t)slot * stride, nw = f_nw;
            if (threadIdx.x < ns) {
                double nc[3];
                mc_quat nq;
                rigid_moved_pose(tu.draw, mv[slot].centre, mv[slot].q, box, nc, &nq);
                mc_rigid_site(nc, nq, &t.body[3 * (f0 + threadIdx.x)], box, &f_nw[3 * threadIdx.x]);
                if (threadIdx.x == 0) f_nc[0] = nc[0], f_nc[1] = nc[1], f_nc[2] = nc[2], f_nq = nq;
            }
            __syncthreads();
        }
        if (afresh) { /* against every other site of the present configuration */
            sum = energy_items<real>(x, y, z, t.species, 0, n, f0, ns, o, nw, t_spec + (size_t)u * ms, box, sp);
        } else if (item_s < ns) { /* kernel A's sum, and the pair terms with each moved molecule: now less at the start */
            for (int q = item_q; q < nmoved; q += item_step) {
                if (item_w >= mv[q].ns) continue;
                int a = t_spec[u * ms + item_s], b = m_spec[q * ms + item_w];
                const double *other = (item_then ? m_start : m_now) + (size_t)q * stride + 3 * item_w;
                double d = site_pair<real>(nw + 3 * item_s, other, a, b, box, sp) -
                           site_pair<real>(o + 3 * item_s, other, a, b, box, sp);
                sum += item_then ? -d : d;
            }
        }
        sum = block_sum_for_thread0(sum, warp_sum);
        if (threadIdx.x != 0) continue;
        const double wall = placed_afresh ? mc_wall_energy(f_nc[0], f_nc[1], f_nc[2], k.wall_radius, k.wall_strength) -
                                                mc_wall_energy(mv[slot].centre[0], mv[slot].centre[1],
                                                               mv[slot].centre[2], k.wall_radius, k.wall_strength)
                                          : tu.wall_dE;
        const double dE = afresh ? sum + wall : (tu.dE_start + sum) + wall;
        rotations += tu.draw.rotate;
        ts[u].slot = slot;
        ts[u].placed_afresh = placed_afresh;
        pending = -1;
        if (!mc_metropolis_test(dE, beta, tu.threshold)) continue;
        if (slot < 0) ts[u].slot = moved++; /* the molecule's first move in the batch */
        pending = u;
        energy += dE;
        accepted++;
        rotations_accepted += tu.draw.rotate;
    }
    __syncthreads();
    if (pending >= 0) { /* the last trial's, as in the loop */
        const trial_sh &tp = ts[pending];
        const int q = tp.slot, f0 = tp.f0, ns = tp.ns, i = threadIdx.x, m = (int)tp.draw.molecule;
        const double *nw = tp.placed_afresh ? f_nw : t_nw + (size_t)pending * stride;
        const double *nc = tp.placed_afresh ? f_nc : tp.nc;
        const mc_quat nq = tp.placed_afresh ? f_nq : tp.nq;
        (void)q;
        if (i < 3 * ns) (i % 3 == 0 ? x : i % 3 == 1 ? y : z)[f0 + i / 3] = nw[i];
        if (i < 3) centre[i * nmol + m] = nc[i];
        if (i >= 4 && i < 8) quat[4 * m + i - 4] = i == 4 ? nq.w : i == 5 ? nq.x : i == 6 ? nq.y : nq.z;
    }
    if (threadIdx.x == 0) {
        cd->step = step0 + trials, cd->energy = energy, cd->accepted += accepted;
        cd->rotations += rotations, cd->rotations_accepted += rotations_accepted;
    }
}

/* Kernel B's static shared memory, an upper bound: what the dynamic part must leave room for. */
static const size_t accept_static_smem = 4 * 1024;

int rigid_batch_setup(rigid_batch *rb, const mc_plan *p, int nchains, int sm_count, int max_smem, mc_err *err)
{
    memset(rb, 0, sizeof *rb);
    const int set = p->gpu_batch_trials, K = set ? set : RIGID_DEFAULT_TRIALS, ms = p->mol.max_sites;
    if (p->nchains >= sm_count || (!set && p->nmol < 4 * K)) return MC_OK; /* the resident kernel (as atoms: n >= 4 K) */
    const size_t per_trial = accept_layout_of(1, ms).bytes + 16, smem = accept_layout_of(K, ms).bytes;
    if (K > RIGID_BATCH_MAX || smem + accept_static_smem > (size_t)max_smem) {
        if (!set) return MC_OK;
        size_t fit = ((size_t)max_smem - accept_static_smem) / per_trial / 32 * 32;
        MC_FAIL(err, MC_EINVAL,
                "[run] gpu_batch_trials = %d: molecules of %d sites take at most %zu trials a batch on this GPU "
                "(%d bytes of shared memory a block); set 0 to choose by size",
                K, ms, fit < RIGID_BATCH_MAX ? fit : (size_t)RIGID_BATCH_MAX, max_smem);
    }
    int parts = (RIGID_A_BLOCKS_PER_SM * sm_count + K * nchains - 1) / (K * nchains);
    int most = (p->n * ms + RIGID_THREADS - 1) / RIGID_THREADS; /* a (site, moved site) pair a thread */
    rb->parts = parts < 1 ? 1 : parts > most ? most : parts;
    rb->trials = K, rb->max_sites = ms, rb->smem = smem;
    CU_TRY(cudaMalloc(&rb->d_trials, (size_t)nchains * K * sizeof *rb->d_trials), err);
    CU_TRY(cudaMalloc(&rb->d_partial, (size_t)nchains * K * rb->parts * sizeof(double)), err);
    CU_TRY(cudaFuncSetAttribute(rigid_batch_accept_kernel<float>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem), err);
    CU_TRY(cudaFuncSetAttribute(rigid_batch_accept_kernel<double>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem), err);
    return MC_OK;
}

void rigid_batch_free(rigid_batch *rb)
{
    cudaFree(rb->d_trials), cudaFree(rb->d_partial);
    rb->d_trials = NULL, rb->d_partial = NULL, rb->trials = 0;
}

template <typename real>
static int batch_sweep(const rigid_batch *rb, rigid_chain_dev *chains, double *pos, double *centres, double *quats,
                       const rigid_tables &t, const rigid_consts &k, int n, int nmol, int nchains, long long moves,
                       mc_err *err)
{
    const int K = rb->trials;
    for (long long done = 0; done < moves; done += K) {
        const int trials = moves - done < K ? (int)(moves - done) : K;
        rigid_batch_trials_kernel<real><<<dim3(rb->parts, trials, nchains), RIGID_THREADS>>>(
            chains, pos, centres, quats, t, k, n, nmol, K, rb->d_trials, rb->d_partial);
        CU_LAUNCHED(err);
        rigid_batch_accept_kernel<real><<<nchains, RIGID_ACCEPT_THREADS, rb->smem>>>(
            chains, pos, centres, quats, t, k, n, nmol, K, trials, rb->parts, rb->max_sites, rb->d_trials,
            rb->d_partial);
        CU_LAUNCHED(err);
    }
    return MC_OK;
}

int rigid_batch_sweep(const rigid_batch *rb, rigid_chain_dev *chains, double *pos, double *centres, double *quats,
                      const rigid_tables &t, const rigid_consts &k, int n, int nmol, int nchains, long long moves,
                      int single, mc_err *err)
{
    return single ? batch_sweep<float>(rb, chains, pos, centres, quats, t, k, n, nmol, nchains, moves, err)
                  : batch_sweep<double>(rb, chains, pos, centres, quats, t, k, n, nmol, nchains, moves, err);
}
