/* cu_rigid_batch: the molecule moves of a few chains over the whole GPU. On the resident path
 * (cu_rigid.cu) a chain is one block, a move at a time: a chain of a few hundred molecules keeps
 * one SM of the GPU busy. Here a chain's moves go K at a time (a batch):
 *
 * - the energy kernel, one block per (range of sites, trial, chain), against the configuration at the
 *   batch's start: the trial of step step0 + k drawn and placed as the CPU does (every block of
 *   the trial alike), its energy change summed over the block's range of sites, its site-pair
 *   terms with every earlier trial of the batch (that trial's molecule at its start sites and at
 *   its moved sites), and, in the trial's first block, its acceptance threshold and the latest
 *   earlier trial of the batch that moves the same molecule;
 * - the decide kernel, one block per chain: warp 0 decides the trials in order. The molecules moved so far
 *   in the batch are kept in a table. The energy change of a trial whose molecule has not moved in
 *   the batch is the energy kernel's sum plus, for each moved molecule, the energy kernel's terms with its present
 *   sites less those with its start sites (for a molecule moved twice, the present sites' terms
 *   summed by the warp). A trial whose molecule has moved in the batch (its start is no longer
 *   the batch's), or whose start sum met a hard core or a term too large to take out again
 *   exactly while other molecules have moved, is the whole block's: placed from the present pose
 *   and summed afresh over every other site, as the resident kernel does.
 *
 * Every decision is the CPU's: the same draws, and energy changes equal to the CPU's to rounding.
 * The running energy is the CPU's to rounding too (a sample's recomputation resets it). Both
 * kernels sum in a fixed order, so a chain's results do not depend on the rank count. Built with
 * -fmad=false, as cu_rigid.cu. */
#include <string.h>

#include "cu_check.h"
#include "cu_launch.cuh"
#include "cu_rigid.cuh"

enum {
    RIGID_BATCH_MAX = 256,      /* most trials per batch */
    RIGID_ACCEPT_THREADS = 512, /* the decide kernel's block */
    RIGID_DEFAULT_TRIALS = 32,  /* K when the run names none: the fastest measured (shape D) */
    RIGID_ENERGY_BLOCKS_PER_SM = 4   /* the energy kernel's parts per trial aim at this many blocks per SM */
};

/* A trial of a batch, as the energy kernel leaves it for the decide kernel. */
struct rigid_trial_dev {
    double old[3 * RIGID_BATCH_MAX_SITES], nw[3 * RIGID_BATCH_MAX_SITES]; /* its molecule's sites at the batch start, moved */
    double nc[3];                                       /* the moved centre */
    double wall_dE;                                     /* the wall energy's change from the batch start */
    double threshold;                                   /* the step's Metropolis threshold, -ln u */
    mc_quat nq;                                         /* the moved orientation */
    mc_rigid_trial draw;                                /* molecule, kind, displacement or rotation */
    int prev; /* the latest earlier trial of the batch that moves the same molecule; -1: none */
};

/* The decide kernel's copy of a trial (shared memory), and of a molecule moved in the batch. */
struct trial_sh {
    double dE_start, wall_dE, threshold, nc[3];
    mc_quat nq;
    mc_rigid_trial draw;
    int f0, ns, prev;
    int slot; /* the moved table's slot of the trial's molecule once the trial is decided; -1: none */
};
struct moved_sh {
    double centre[3]; /* its present pose */
    mc_quat q;
    int ns;        /* its sites */
    int trial;     /* its first accepted trial of the batch, whose sites the energy kernel's pair terms took */
    int moves;     /* accepted moves in the batch */
};

/* The decide kernel's dynamic shared memory for K trials of molecules of at most ms sites: byte offsets;
 * the energy kernel's pair terms of every two trials (2 K^2 doubles) too where with_pairs. */
struct accept_layout {
    size_t t_old, t_nw, m_now; /* sites [K][3 ms]: the trials' at the start and moved; moved molecules' now */
    size_t pairs;              /* [2][K][K], or none */
    size_t trials, moved;      /* trial_sh [K], moved_sh [K] */
    size_t multi;              /* int [K]: the slots of molecules moved more than once */
    size_t t_spec, m_spec;     /* site species [K][ms] */
    size_t bytes;
};
__host__ __device__ inline accept_layout accept_layout_of(int K, int ms, bool with_pairs)
{
    accept_layout l;
    const size_t sites = (size_t)K * 3 * ms * sizeof(double);
    l.t_old = 0, l.t_nw = sites, l.m_now = 2 * sites, l.pairs = 3 * sites;
    l.trials = l.pairs + (with_pairs ? 2 * (size_t)K * K * sizeof(double) : 0);
    l.moved = l.trials + K * sizeof(trial_sh), l.multi = l.moved + K * sizeof(moved_sh);
    l.t_spec = l.multi + K * sizeof(int), l.m_spec = l.t_spec + (size_t)K * ms;
    l.bytes = l.m_spec + (size_t)K * ms;
    return l;
}

/* A warp's sum of its lanes' values, for lane 0 (a fixed tree). */
__device__ inline double warp_sum_for_lane0(double v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* A block's sum of its threads' values for thread 0: each warp's by shuffles, then warp 0 adds
 * the warps' (a fixed tree: the same bits every run). warp_sum holds 32 values; the caller's next
 * barrier protects it. */
__device__ inline double block_sum_for_thread0(double v, double *warp_sum)
{
    v = warp_sum_for_lane0(v);
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x >= 32) return 0.0;
    return warp_sum_for_lane0(threadIdx.x < (blockDim.x >> 5) ? warp_sum[threadIdx.x] : 0.0);
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

enum { PAIR_CHUNK = RIGID_THREADS / 32 }; /* the energy kernel: earlier trials a block takes at once, a warp each */

/* The energy kernel: grid (parts, trials, chains). Every thread draws the trial (arithmetic, and the
 * molecule table); thread s places site s, so the block waits for one round of loads. Then the
 * trial's pair terms with each earlier trial i of the batch (i = part, part + parts, ...), for
 * the decide kernel: with i's molecule at its start sites, pairs[0][k][i] = sum u(new, start_i) - u(old,
 * start_i), and at i's moved sites, pairs[1][k][i] likewise (0 where i moves the same molecule). */
template <typename real>
__global__ void __launch_bounds__(RIGID_THREADS)
    rigid_batch_trial_energy_kernel(const rigid_chain_dev *chains, const double *pos, const double *centres,
                              const double *quats, rigid_tables t, rigid_consts k, int n, int nmol, int K,
                              rigid_trial_dev *trials, double *partial, double *pairs)
{
    cu_after_previous(); /* chained launches: nothing read before the last kernel ends */
    __shared__ double old[3 * RIGID_BATCH_MAX_SITES], nw[3 * RIGID_BATCH_MAX_SITES], warp_sum[32];
    __shared__ double i_old[PAIR_CHUNK][3 * RIGID_BATCH_MAX_SITES], i_nw[PAIR_CHUNK][3 * RIGID_BATCH_MAX_SITES];
    __shared__ rigid_pairs<real> sp;
    __shared__ unsigned char spec[RIGID_BATCH_MAX_SITES], i_spec[PAIR_CHUNK][RIGID_BATCH_MAX_SITES];
    __shared__ int prev, i_ns[PAIR_CHUNK], i_same[PAIR_CHUNK];
    const int part = blockIdx.x, parts = gridDim.x, trial = blockIdx.y, c = blockIdx.z;
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
    const int chunk = (n + parts - 1) / parts, j0 = part * chunk, j1 = min(n, j0 + chunk);
    double dE = block_sum_for_thread0(energy_items<real>(x, y, z, t.species, j0, j1, f0, ns, old, nw, spec, box, sp),
                                      warp_sum);
    rigid_trial_dev *r = &trials[(size_t)c * K + trial];
    if (part == 0 && threadIdx.x < 3 * ns) r->old[threadIdx.x] = old[threadIdx.x], r->nw[threadIdx.x] = nw[threadIdx.x];
    if (threadIdx.x == 0) {
        partial[((size_t)c * K + trial) * parts + part] = dE;
        if (part == 0) {
            r->nc[0] = nc[0], r->nc[1] = nc[1], r->nc[2] = nc[2];
            r->wall_dE = mc_wall_energy(nc[0], nc[1], nc[2], k.wall_radius, k.wall_strength) -
                         mc_wall_energy(oc[0], oc[1], oc[2], k.wall_radius, k.wall_strength);
            r->threshold = mc_accept_threshold(k.seed, cd->id, step0 + trial);
            r->nq = nq, r->draw = tr, r->prev = prev;
        }
    }
    /* the pair terms with earlier trials, PAIR_CHUNK at a time: each placed as its own block
     * places it (the same arithmetic, so the same bits), then a warp sums one */
    double *pair_start = pairs + ((size_t)c * 2 * K + trial) * K, *pair_moved = pair_start + (size_t)K * K;
    for (int base = part; base < trial; base += PAIR_CHUNK * parts) {
        __syncthreads(); /* the last chunk's sites are read */
        for (int e = threadIdx.x; e < PAIR_CHUNK * RIGID_BATCH_MAX_SITES; e += blockDim.x) {
            const int il = e / RIGID_BATCH_MAX_SITES, s = e % RIGID_BATCH_MAX_SITES, i = base + il * parts;
            if (i >= trial) continue;
            const mc_rigid_trial ti = mc_rigid_trial_draw(k.seed, cd->id, step0 + i, (uint32_t)nmol, t.first,
                                                          cd->max_displacement, cd->max_rotation);
            const int mi = (int)ti.molecule, g0 = t.first[mi], nsi = t.first[mi + 1] - g0;
            if (s == 0) i_ns[il] = nsi, i_same[il] = mi == m;
            if (s >= nsi) continue;
            double ic[3] = {centre[mi], centre[nmol + mi], centre[2 * nmol + mi]}, inc[3];
            mc_quat inq;
            rigid_moved_pose(ti, ic, mc_quat{quat[4 * mi], quat[4 * mi + 1], quat[4 * mi + 2], quat[4 * mi + 3]}, box,
                             inc, &inq);
            mc_rigid_site(inc, inq, &t.body[3 * (g0 + s)], box, &i_nw[il][3 * s]);
            i_old[il][3 * s] = x[g0 + s], i_old[il][3 * s + 1] = y[g0 + s], i_old[il][3 * s + 2] = z[g0 + s];
            i_spec[il][s] = t.species[g0 + s];
        }
        __syncthreads();
        const int il = threadIdx.x >> 5, lane = threadIdx.x & 31, i = base + il * parts;
        if (i >= trial) continue;
        double to_start = 0.0, to_moved = 0.0;
        for (int it = lane; !i_same[il] && it < ns * i_ns[il]; it += 32) {
            const int s = it / i_ns[il], w = it % i_ns[il], a = spec[s], b = i_spec[il][w];
            to_start += site_pair<real>(nw + 3 * s, &i_old[il][3 * w], a, b, box, sp) -
                        site_pair<real>(old + 3 * s, &i_old[il][3 * w], a, b, box, sp);
            to_moved += site_pair<real>(nw + 3 * s, &i_nw[il][3 * w], a, b, box, sp) -
                        site_pair<real>(old + 3 * s, &i_nw[il][3 * w], a, b, box, sp);
        }
        to_start = warp_sum_for_lane0(to_start), to_moved = warp_sum_for_lane0(to_moved);
        if (lane == 0) pair_start[i] = to_start, pair_moved[i] = to_moved;
    }
}

/* The decide kernel: one block per chain; its dynamic shared memory is accept_layout_of(K, ms, pairs in
 * shared memory) (ms: sites of the largest molecule). Warp 0 decides the trials in order: a trial
 * whose molecule has not moved in the batch is the energy kernel's sum plus, for each molecule q moved
 * earlier, the energy kernel's pair terms with q's first accepted trial (its moved sites less its start
 * sites), or for a molecule moved twice the terms with its present sites summed by the warp. A
 * trial whose molecule has moved in the batch, or whose start sum or terms with a moved molecule's
 * start sites are not finite or not below CU_CANCEL_LIMIT kT (cu_kernels.cuh), is the block's:
 * placed from the molecule's present pose (or the energy kernel's placement) and summed afresh over every
 * other site.
 * Warp 0 applies each accepted move (its sites and pose in the tables and in global memory). */
template <typename real>
__global__ void __launch_bounds__(RIGID_ACCEPT_THREADS)
    rigid_batch_decide_kernel(rigid_chain_dev *chains, double *pos, double *centres, double *quats, rigid_tables t,
                              rigid_consts k, int n, int nmol, int K, int trials, int parts, int ms,
                              const rigid_trial_dev *in, const double *partial, const double *pairs,
                              int pairs_shared)
{
    cu_after_previous(); /* chained launches: nothing read before the last kernel ends */
    extern __shared__ __align__(16) unsigned char smem[];
    const accept_layout L = accept_layout_of(K, ms, pairs_shared);
    double *t_old = (double *)(smem + L.t_old), *t_nw = (double *)(smem + L.t_nw), *m_now = (double *)(smem + L.m_now);
    trial_sh *ts = (trial_sh *)(smem + L.trials);
    moved_sh *mv = (moved_sh *)(smem + L.moved);
    int *multi = (int *)(smem + L.multi);
    unsigned char *t_spec = smem + L.t_spec, *m_spec = smem + L.m_spec;
    __shared__ double warp_sum[32];
    __shared__ rigid_pairs<real> sp;
    __shared__ double f_nw[3 * RIGID_BATCH_MAX_SITES], f_nc[3]; /* a trial placed afresh */
    __shared__ mc_quat f_nq;
    __shared__ int moved, nmulti; /* molecules in the moved table; of them moved more than once */
    __shared__ int job;           /* the trial the block evaluates afresh; -1: the batch is decided */
    const int c = blockIdx.x, stride = 3 * ms, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    rigid_chain_dev *cd = &chains[c];
    double *x = pos + (size_t)c * 3 * n, *y = x + n, *z = y + n;
    double *centre = centres + (size_t)c * 3 * nmol, *quat = quats + (size_t)c * 4 * nmol;
    const rigid_trial_dev *r = in + (size_t)c * K;
    const double *pair_g = pairs + (size_t)c * 2 * K * K;
    const double *pair_start = pairs_shared ? (const double *)(smem + L.pairs) : pair_g;
    const double *pair_moved = pair_start + (size_t)K * K;
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
    if (pairs_shared)
        for (int e = threadIdx.x; e < 2 * K * K; e += blockDim.x)
            if (e % (K * K) / K < trials && e % K < e % (K * K) / K) /* this batch's rows, earlier trials */
                ((double *)(smem + L.pairs))[e] = pair_g[e];
    rigid_pairs_load(&sp, k);
    if (threadIdx.x == 0) moved = 0, nmulti = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < trials * stride; i += blockDim.x) {
        int u = i / stride, w = i % stride;
        if (w < 3 * ts[u].ns) t_old[i] = r[u].old[w], t_nw[i] = r[u].nw[w];
    }
    for (int i = threadIdx.x; i < trials * ms; i += blockDim.x) {
        int u = i / ms, s = i % ms;
        if (s < ts[u].ns) t_spec[i] = t.species[ts[u].f0 + s];
    }
    __syncthreads(); /* the tables, before warp 0 decides */
    double energy = cd->energy; /* thread 0's, with the counters */
    unsigned long long accepted = 0, rotations = 0, rotations_accepted = 0;
    /* warp 0: decide trial u from dE; on acceptance apply it (slot: its molecule's, or -1) */
    auto decide = [&](int u, int slot, double dE, const double *nw, const double *nc, mc_quat nq) {
        const trial_sh &tu = ts[u];
        const int q = slot >= 0 ? slot : moved, f0 = tu.f0, ns = tu.ns, m = (int)tu.draw.molecule;
        const bool accept = mc_metropolis_test(dE, beta, tu.threshold);
        __syncwarp();
        if (lane == 0) {
            rotations += tu.draw.rotate;
            ts[u].slot = accept ? q : slot;
        }
        if (!accept) return;
        for (int i = lane; i < 3 * ns; i += 32) { /* up to 48 coordinates */
            m_now[(size_t)q * stride + i] = nw[i];
            (i % 3 == 0 ? x : i % 3 == 1 ? y : z)[f0 + i / 3] = nw[i];
        }
        if (lane < ns && slot < 0) m_spec[q * ms + lane] = t_spec[u * ms + lane];
        if (lane < 3) centre[lane * nmol + m] = nc[lane];
        if (lane >= 4 && lane < 8) quat[4 * m + lane - 4] = lane == 4 ? nq.w : lane == 5 ? nq.x : lane == 6 ? nq.y : nq.z;
        if (lane == 0) {
            mv[q].centre[0] = nc[0], mv[q].centre[1] = nc[1], mv[q].centre[2] = nc[2], mv[q].q = nq;
            if (slot < 0) {
                mv[q].ns = ns, mv[q].trial = u, mv[q].moves = 1;
                moved = q + 1;
            } else if (++mv[q].moves == 2) {
                multi[nmulti++] = q;
            }
            energy += dE;
            accepted++;
            rotations_accepted += tu.draw.rotate;
        }
    };
    int u = 0; /* warp 0's next trial */
    for (;;) {
        if (warp == 0) {
            for (; u < trials; u++) {
                const trial_sh &tu = ts[u];
                const int nmoved = moved, slot = tu.prev >= 0 ? ts[tu.prev].slot : -1;
                const double *row_start = pair_start + (size_t)u * K, *row_moved = pair_moved + (size_t)u * K;
                /* a start sum, or terms with a moved molecule's start sites, beyond CU_CANCEL_LIMIT kT
                 * (or not finite: a hard core) once others have moved: summed afresh (cu_kernels.cuh) */
                bool huge = nmoved > 0 && !cu_carried(tu.dE_start, beta);
                for (int q = lane; q < nmoved; q += 32) huge |= !cu_carried(row_start[mv[q].trial], beta);
                if (slot >= 0 || __any_sync(0xffffffffu, huge)) break; /* the block's */
                const double *o = t_old + (size_t)u * stride, *nw = t_nw + (size_t)u * stride;
                double sum = 0.0;
                for (int q = lane; q < nmoved; q += 32)
                    sum += (mv[q].moves == 1 ? row_moved[mv[q].trial] : 0.0) - row_start[mv[q].trial];
                for (int e = 0; e < nmulti; e++) { /* molecules moved twice: their present sites */
                    const int q = multi[e], nsq = mv[q].ns;
                    for (int it = lane; it < tu.ns * nsq; it += 32) {
                        const int s = it / nsq, w = it % nsq, a = t_spec[u * ms + s], b = m_spec[q * ms + w];
                        const double *now = m_now + (size_t)q * stride + 3 * w;
                        sum += site_pair<real>(nw + 3 * s, now, a, b, box, sp) - site_pair<real>(o + 3 * s, now, a, b, box, sp);
                    }
                }
                sum = __shfl_sync(0xffffffffu, warp_sum_for_lane0(sum), 0);
                decide(u, -1, (tu.dE_start + sum) + tu.wall_dE, nw, tu.nc, tu.nq);
                __syncwarp();
            }
            if (lane == 0) job = u < trials ? u : -1;
        }
        __syncthreads();
        const int j = job;
        if (j < 0) break;
        const trial_sh &tj = ts[j];
        const int slot = tj.prev >= 0 ? ts[tj.prev].slot : -1;
        const double *o = t_old + (size_t)j * stride, *nw = t_nw + (size_t)j * stride;
        if (slot >= 0) { /* its molecule moved earlier in the batch: placed from its present pose */
            o = m_now + (size_t)slot * stride, nw = f_nw;
            if (threadIdx.x < tj.ns) {
                double nc[3];
                mc_quat nq;
                rigid_moved_pose(tj.draw, mv[slot].centre, mv[slot].q, box, nc, &nq);
                mc_rigid_site(nc, nq, &t.body[3 * (tj.f0 + threadIdx.x)], box, &f_nw[3 * threadIdx.x]);
                if (threadIdx.x == 0) f_nc[0] = nc[0], f_nc[1] = nc[1], f_nc[2] = nc[2], f_nq = nq;
            }
            __syncthreads();
        }
        double sum = block_sum_for_thread0(
            energy_items<real>(x, y, z, t.species, 0, n, tj.f0, tj.ns, o, nw, t_spec + (size_t)j * ms, box, sp), warp_sum);
        if (warp != 0) continue;
        sum = __shfl_sync(0xffffffffu, sum, 0);
        const double wall = slot < 0 ? tj.wall_dE
                                     : mc_wall_energy(f_nc[0], f_nc[1], f_nc[2], k.wall_radius, k.wall_strength) -
                                           mc_wall_energy(mv[slot].centre[0], mv[slot].centre[1], mv[slot].centre[2],
                                                          k.wall_radius, k.wall_strength);
        decide(j, slot, sum + wall, nw, slot < 0 ? tj.nc : f_nc, slot < 0 ? tj.nq : f_nq);
        __syncwarp();
        u = j + 1;
    }
    if (threadIdx.x == 0) {
        cd->step = step0 + trials, cd->energy = energy, cd->accepted += accepted;
        cd->rotations += rotations, cd->rotations_accepted += rotations_accepted;
    }
}

/* The decide kernel's static shared memory, an upper bound: what the dynamic part must leave room for. */
static const size_t accept_static_smem = 4 * 1024;

int rigid_batch_setup(rigid_batch *rb, const mc_plan *p, int nchains, int sm_count, int max_smem, mc_err *err)
{
    memset(rb, 0, sizeof *rb);
    const int set = p->gpu_batch_trials, K = set ? set : RIGID_DEFAULT_TRIALS, ms = p->mol.max_sites;
    if (ms > RIGID_BATCH_MAX_SITES) { /* the batched kernels' arrays: larger molecules take the resident kernel */
        if (set)
            MC_FAIL(err, MC_EINVAL, "[run] gpu_batch_trials = %d: molecules of %d sites take one move at a time on "
                    "the GPU (the batched kernels take at most %d sites); leave gpu_batch_trials out (or 0)", set, ms,
                    RIGID_BATCH_MAX_SITES);
        return MC_OK;
    }
    if (p->charged) { /* the batched kernels have no Coulomb terms: charged molecules take the resident kernel */
        if (set)
            MC_FAIL(err, MC_EINVAL, "[run] gpu_batch_trials = %d: charged molecules ([potential] coulomb) "
                    "take one move at a time on the GPU; leave gpu_batch_trials out (or 0)", set);
        return MC_OK;
    }
    if (p->nchains >= sm_count || (!set && p->nmol < 4 * K)) return MC_OK; /* the resident kernel (as atoms: n >= 4 K) */
    /* the energy kernel's pair terms in the decide kernel's shared memory where they fit (2 K^2 doubles), else read
     * from global memory */
    const size_t room = (size_t)max_smem - accept_static_smem, per_trial = accept_layout_of(1, ms, false).bytes + 16;
    const int pairs_shared = accept_layout_of(K, ms, true).bytes <= room;
    const size_t smem = accept_layout_of(K, ms, pairs_shared).bytes;
    if (K > RIGID_BATCH_MAX || smem > room) {
        if (!set) return MC_OK;
        size_t fit = room / per_trial / 32 * 32;
        MC_FAIL(err, MC_EINVAL,
                "[run] gpu_batch_trials = %d: molecules of %d sites take at most %zu trials a batch on this GPU "
                "(%d bytes of shared memory a block); set 0 to choose by size",
                K, ms, fit < RIGID_BATCH_MAX ? fit : (size_t)RIGID_BATCH_MAX, max_smem);
    }
    /* from the run's chains, not the rank's: the energy kernel's ranges of sites group the partial sums, so
     * they must be the same whatever the rank count, like the path itself */
    int parts = (RIGID_ENERGY_BLOCKS_PER_SM * sm_count + K * p->nchains - 1) / (K * p->nchains);
    int most = (p->n * ms + RIGID_THREADS - 1) / RIGID_THREADS; /* a (site, moved site) pair a thread */
    rb->parts = parts < 1 ? 1 : parts > most ? most : parts;
    rb->trials = K, rb->max_sites = ms, rb->smem = smem, rb->pairs_shared = pairs_shared;
    CU_TRY(cudaMalloc(&rb->d_trials, (size_t)nchains * K * sizeof *rb->d_trials), err);
    CU_TRY(cudaMalloc(&rb->d_partial, (size_t)nchains * K * rb->parts * sizeof(double)), err);
    CU_TRY(cudaMalloc(&rb->d_pairs, (size_t)nchains * 2 * K * K * sizeof(double)), err);
    CU_TRY(cudaFuncSetAttribute(rigid_batch_decide_kernel<float>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem), err);
    CU_TRY(cudaFuncSetAttribute(rigid_batch_decide_kernel<double>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem), err);
    return MC_OK;
}

void rigid_batch_free(rigid_batch *rb)
{
    cudaFree(rb->d_trials), cudaFree(rb->d_partial), cudaFree(rb->d_pairs);
    rb->d_trials = NULL, rb->d_partial = NULL, rb->d_pairs = NULL, rb->trials = 0;
}

template <typename real>
static int batch_sweep(const rigid_batch *rb, rigid_chain_dev *chains, double *pos, double *centres, double *quats,
                       const rigid_tables &t, const rigid_consts &k, int n, int nmol, int nchains, long long moves,
                       mc_err *err)
{
    const int K = rb->trials;
    int chained = 0;
    MC_TRY(cu_chained_launches(rigid_batch_trial_energy_kernel<real>, &chained, err));
    for (long long done = 0; done < moves; done += K) {
        const int trials = moves - done < K ? (int)(moves - done) : K;
        CU_TRY(cu_launch(chained, rigid_batch_trial_energy_kernel<real>, dim3(rb->parts, trials, nchains), RIGID_THREADS, 0,
                         chains, pos, centres, quats, t, k, n, nmol, K, rb->d_trials, rb->d_partial, rb->d_pairs),
               err);
        CU_TRY(cu_launch(chained, rigid_batch_decide_kernel<real>, nchains, RIGID_ACCEPT_THREADS, rb->smem, chains, pos,
                         centres, quats, t, k, n, nmol, K, trials, rb->parts, rb->max_sites, rb->d_trials,
                         rb->d_partial, rb->d_pairs, rb->pairs_shared),
               err);
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
