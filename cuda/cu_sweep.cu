/* cu_sweep: the Metropolis loop on the GPU for many small chains, under the contract of every GPU
 * path (the chain after `moves` moves is the CPU backend's chain, draw for draw and decision for
 * decision): cu_sweep_chains runs one resident block per chain; every thread draws the same trial,
 * sums its share of the pair terms (move_energy_part, cu_chain_move.cuh), and the block sum decides.
 * Chains too large for one block take cu_batched.cu's batches. */
#include "cu_backend.h"
#include "cu_check.h"
#include "cu_chain_move.cuh"

enum { CHAIN_THREADS_MAX = 256 };

/* The pair energy of the chain with its box and positions scaled by s (edge sbox; SCALE false:
 * positions already scaled, s unused): this thread's
 * share, rows i = threadIdx.x, + blockDim.x, ..., every pair's energy rounded once in real and
 * added in double (the measurement's convention). Row i takes the h_i partners after it cyclically,
 * j = i + 1, ..., i + h_i (mod n), with h_i = (n - 1) / 2, one more for i < n / 2 when n is even:
 * every pair once, and all rows of one length to within one. Rows of the partners j > i (lengths
 * n - 1 down to 0) left the lanes of a warp idle while its first lane finished, and thread 0 a
 * tenth more pairs than the mean at n = 500 and 64 threads. Mixtures and chains not staged in shared
 * memory; a staged pure fluid takes scaled_energy_staged, two rows a thread. */
template <bool MIX, bool SCALE, typename real>
__device__ double scaled_energy_part(const real *x, const real *y, const real *z, int n, double s, real sbox, const cu_pairs<real> &pr)
{
    typedef typename prec<real>::params params;
    auto at = [&](const real *c, int j) { return SCALE ? cu_scaled(c[j], s, sbox) : c[j]; };
    double e = 0.0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const real xi = at(x, i), yi = at(y, i), zi = at(z, i);
        const int h = (n - 1) / 2 + (n % 2 == 0 && i < n / 2);
        auto pair_at = [&](int j, const params &p) {
            return (double)prec<real>::energy(cu_dist2(xi, yi, zi, at(x, j), at(y, j), at(z, j), sbox), p);
        };
        /* the row's two contiguous runs, [i + 1, n) and [0, i + 1 + h - n), by species (a mixture) */
        auto run = [&](int j0, int j1, const params &p) {
            return cu_specialised(p, [&](const params &pp) {
                double part = 0.0;
                for (int j = j0; j < j1; j++) part += pair_at(j, pp);
                return part;
            });
        };
        const int a = pr.species_of(i), end = min(n, i + 1 + h), wrapped = i + 1 + h - end;
        e += cu_by_species<MIX>(pr, a, i + 1, end, 1, 0, run);
        if (wrapped > 0) e += cu_by_species<MIX>(pr, a, 0, wrapped, 1, 0, run);
    }
    return e;
}

/* scaled_energy_part's sum for a pure fluid whose trial positions are staged in shared memory, one
 * particle's x, y, z after another (xyz), a thread ROWS adjacent rows at once, i_a = i0 + a with
 * i0 = ROWS r: the rows' partners at offsets k = ROWS .. h_i0 from i0 (mod n) are every row's, so
 * each partner's coordinates are loaded once for ROWS pair terms. The rest of the rows' pairs: those
 * within the group (k <= ROWS - 1, every row having at least ROWS partners) and row a's partners
 * past h_i0 (k up to a + h_a; h_a >= h_i0 - 1). Rows of a group cut short by n, and chains too
 * small for whole groups, take one row at a time. The same pair terms, rounded alike and each
 * added in double, in another order. IN_RANGE (plain LJ in single precision, box edge below 2^20):
 * each term by cu_lj_energy_in_range, the same value without the division's range check. */
template <int ROWS, bool IN_RANGE, typename real>
__device__ double scaled_energy_rows(const real *xyz, int n, real box, const typename prec<real>::params &p)
{
    auto row_length = [&](int i) { return (n - 1) / 2 + (n % 2 == 0 && i < n / 2); };
    auto u = [&](real xi, real yi, real zi, const real *q) {
        const real r2 = cu_dist2(xi, yi, zi, q[0], q[1], q[2], box);
        if constexpr (IN_RANGE) return (double)cu_lj_energy_in_range(r2, p);
        else return (double)prec<real>::energy(r2, p);
    };
    const real *end = xyz + 3 * n;
    auto next = [&](const real *q) { return q + 3 == end ? xyz : q + 3; }; /* the cyclic successor */
    double e[ROWS] = {};
    const bool grouped = (n - 1) / 2 >= ROWS;
    for (int i0 = ROWS * (int)threadIdx.x; i0 < n; i0 += ROWS * (int)blockDim.x) {
        if (!grouped || i0 + ROWS > n) { /* one row at a time */
            for (int i = i0; i < n && i < i0 + ROWS; i++) {
                const real *qi = xyz + 3 * i, *q = next(qi);
#pragma unroll 1
                for (int k = 1; k <= row_length(i); k++, q = next(q)) e[0] += u(qi[0], qi[1], qi[2], q);
            }
            continue;
        }
        real xi[ROWS], yi[ROWS], zi[ROWS];
#pragma unroll
        for (int a = 0; a < ROWS; a++) {
            xi[a] = xyz[3 * (i0 + a)], yi[a] = xyz[3 * (i0 + a) + 1], zi[a] = xyz[3 * (i0 + a) + 2];
#pragma unroll
            for (int b = 0; b < a; b++) e[b] += u(xi[b], yi[b], zi[b], xyz + 3 * (i0 + a)); /* within the group */
        }
        const int h0 = row_length(i0);
        const real *q = xyz + 3 * (i0 + ROWS >= n ? i0 + ROWS - n : i0 + ROWS);
        /* one loop over the cyclic wrap: as two runs, before and after it, a warp would run its
         * longest first run and then its longest second. Not unrolled: unrolling costs the kernel
         * far more registers */
#pragma unroll 1
        for (int k = ROWS; k <= h0; k++, q = next(q))
#pragma unroll
            for (int a = 0; a < ROWS; a++) e[a] += u(xi[a], yi[a], zi[a], q);
        /* q is now at offset h0 + 1: row a's partners up to a + h_a */
#pragma unroll
        for (int a = 1; a < ROWS; a++) {
            const real *qa = q;
            for (int k = h0 + 1; k <= a + row_length(i0 + a); k++, qa = next(qa)) e[a] += u(xi[a], yi[a], zi[a], qa);
        }
    }
    double sum = 0.0;
#pragma unroll
    for (int a = 0; a < ROWS; a++) sum += e[a];
    return sum;
}

/* The chain kernel's dynamic shared memory, named at file scope so that scaled_energy_staged reads
 * it as shared memory by name (LDS): loads through a generic pointer cost address arithmetic on
 * every pair. */
extern __shared__ __align__(16) unsigned char chain_smem[];

/* The staged pure fluid's trial-volume energy, its trial coordinates xyz in chain_smem:
 * scaled_energy_rows, two rows a thread, with the constants' own copy of the loop (cu_specialised),
 * the range-checked division dropped where cu_lj_energy_in_range holds. Two rows a thread: the
 * fastest measured. */
template <typename real>
__device__ __forceinline__ double scaled_energy_staged(int n, real box, const typename prec<real>::params one)
{
    typedef typename prec<real>::params params;
    enum { ROWS = 2 };
    const real *xyz = (const real *)chain_smem;
    if constexpr (sizeof(real) == sizeof(float))
        if (one.form == PAIR_LJ && one.slope == 0 && (!PAIR_COULOMB_TERM || one.coulomb_qq == 0) && box < 0x1p20f)
            return scaled_energy_rows<ROWS, true>(xyz, n, box, cu_plain_lj(one));
    return cu_specialised(one, [&](const params &p) { return scaled_energy_rows<ROWS, false>(xyz, n, box, p); });
}

/* The chain kernel's second __launch_bounds__ argument: resident blocks of CHAIN_THREADS_MAX threads
 * an SM, that is, a register cap (0: nvcc's choice). For the pure-fluid npt kernels: in single
 * precision 48 registers (5), so that more chains fit an SM than at nvcc's 64; in double 80 (3),
 * which keeps spills out of every move's path. */
template <typename real, bool MIX, bool NPT> constexpr int npt_min_blocks()
{
    return NPT && !MIX ? (sizeof(real) == sizeof(float) ? 5 : 3) : 0;
}

/* One block per chain. Per move: every thread sums its share of the pair terms; thread 0 adds the
 * warp sums in a fixed order, applies the Metropolis test and moves the particle. With NPT (npt.on;
 * a template flag, so that the nvt kernel is compiled without the volume move's code),
 * every sweep of n moves ends with the run driver's volume move (mc_run.c's volume_move): the edge
 * scale from the host's draws, a box below the floor rejected (and counted in production), else the
 * whole chain's energy at the scaled positions, the decision by mc_npt_volume_cost, and on
 * acceptance every coordinate scaled as cu_volume_scale scales it. */
template <typename real, bool MIX, bool NPT>
__global__ void __launch_bounds__(CHAIN_THREADS_MAX, npt_min_blocks<real, MIX, NPT>())
    sweep_chains_kernel(cu_chain_dev *chains, real *pos, int n, long long moves, cu_pairs<real> lj,
                        unsigned long long seed, int staged, cu_npt npt)
{
    unsigned char *smem = chain_smem;
    __shared__ double warp_sum[32];
    __shared__ draws next;
    __shared__ double s_energy;
    __shared__ unsigned long long s_accepted, s_volume_accepted, s_floor_hits;
    __shared__ int s_scale, s_redraw;
    /* State read once per sweep or per DRAW_AHEAD moves lives in shared memory, not in registers,
     * so that the npt kernel at 48 registers spills nothing of the draws' bookkeeping. s_box: the box edge,
     * changed by accepted volume moves; s_max_disp: the step, capped at half the box as
     * mc_chain_step caps it (npt: at the current box, mc_box_step). */
    __shared__ double s_box, s_max_disp;
    cu_chain_dev *cd = &chains[blockIdx.x];
    real box = (real)cd->box;
    real *g = pos + (size_t)blockIdx.x * 3 * n;
    real *x = staged ? (real *)smem : g;
    if (staged)
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) x[j] = g[j];
    real *y = x + n, *z = y + n;
    if (threadIdx.x == 0) {
        s_energy = cd->energy;
        s_accepted = cd->accepted;
        s_volume_accepted = cd->volume_accepted;
        s_floor_hits = cd->floor_hits;
        s_box = cd->box;
        s_max_disp = NPT ? mc_box_step(cd->max_step, cd->box) : cd->max_displacement;
    }
    __syncthreads(); /* s_max_disp is read as the first draws' argument, before draw_ahead's own barrier */
    int slot = DRAW_AHEAD; /* the draws in `next` used so far (DRAW_AHEAD: none left, or drawn at a step cap that changed) */
    int sweep_move = 0;    /* npt: moves made in this sweep */
    int sweep = 0;         /* npt: sweeps made (npt.sweeps at most) */
    for (long long m = 0; m < moves; m++, slot++) {
        if (slot == DRAW_AHEAD) {
            slot = 0;
            draw_ahead(&next, seed, cd->id, cd->step + m, moves - m, n, s_max_disp);
        }
        __syncthreads(); /* draws written and the last move's particle visible */
        const mc_trial t = next.trial[slot];
        int i = (int)t.particle;
        real ox = x[i], oy = y[i], oz = z[i], nx, ny, nz;
        trial_position(t, ox, oy, oz, box, &nx, &ny, &nz);
        double part = move_energy_part<MIX>(x, y, z, (int)threadIdx.x, n, (int)blockDim.x, i, ox, oy,
                                       oz, nx, ny, nz, box, lj);
        double dE = cu_block_sum(part, warp_sum);
        if (threadIdx.x == 0 && mc_metropolis_test(dE, cd->beta, next.threshold[slot])) {
            x[i] = nx, y[i] = ny, z[i] = nz;
            s_energy += dE;
            s_accepted++;
        }
        /* a sweep's end counted, not found by (m + 1) % n: no 64-bit remainder every move */
        if (!NPT || ++sweep_move < n) continue;
        sweep_move = 0;
        /* the sweep's volume move */
        const double *d = npt.draws + ((size_t)blockIdx.x * npt.sweeps + sweep++) * 4;
        __syncthreads(); /* the last move's particle visible */
        const double box_d = s_box, scale = d[2], new_box = box_d * scale;
        if (new_box < npt.min_box_len) { /* rejected unevaluated, as the driver does */
            if (threadIdx.x == 0) s_floor_hits += cd->production;
            continue;
        }
        real sbox = (real)new_box;
        /* staged: the trial volume's coordinates take the chain's place in shared memory, the
         * chain's own kept in its global slice g until the decision, each by the thread that
         * restores it (a second shared copy beside them would cut the blocks an SM holds); else
         * each pair scales its coordinates itself. A staged pure fluid's trial coordinates go one
         * particle's x, y, z after another (xyz), so that a partner's three loads share one
         * address. */
        real *xyz = (real *)smem;
        if (staged) {
            for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) {
                g[j] = x[j];
                if (MIX) x[j] = cu_scaled(x[j], scale, sbox);
            }
            __syncthreads();
            for (int e = threadIdx.x; !MIX && e < 3 * n; e += blockDim.x) { /* g's writes are the block's after a barrier */
                const int i = e / 3, c = e - 3 * i;
                xyz[e] = cu_scaled(g[c * n + i], scale, sbox);
            }
            if (!MIX) __syncthreads();
        }
        double e_new = cu_block_sum(!staged ? scaled_energy_part<MIX, true>(x, y, z, n, scale, sbox, lj)
                                    : MIX   ? scaled_energy_part<MIX, false>(x, y, z, n, 1.0, sbox, lj)
                                            : scaled_energy_staged(n, sbox, lj.one),
                                    warp_sum);
        /* nvcc may fuse a product and a sum of the cost that the host keeps apart: the last bit of dh,
         * which decides only a tie within an ulp of the threshold */
        if (threadIdx.x == 0) {
            double v = box_d * box_d * box_d, v_new = v * d[3];
            double dh = mc_npt_volume_cost(e_new - s_energy, npt.tail_nn, v, v_new, cd->pressure, cd->kT, npt.n_scaled,
                                           d[0]);
            s_scale = mc_metropolis_test(dh, cd->beta, d[1]);
            s_redraw = 0;
            if (s_scale) {
                s_energy = e_new, s_volume_accepted++, s_box = new_box;
                double capped = mc_box_step(cd->max_step, new_box);
                if (capped != s_max_disp) s_max_disp = capped, s_redraw = 1;
            }
        }
        __syncthreads(); /* the decision seen by all */
        if (!s_scale) {
            if (staged) /* the next move's first barrier comes before any other thread reads these */
                for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) x[j] = g[j];
            continue;
        }
        /* the accepted coordinates: not staged, scaled in place; a staged pure fluid, scaled from
         * its global copy g (the values xyz held, now in the chain's own layout); a staged mixture's
         * were scaled in place above */
        if (!staged || !MIX)
            for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) x[j] = cu_scaled(staged ? g[j] : x[j], scale, sbox);
        box = sbox;
        if (s_redraw) slot = DRAW_AHEAD - 1; /* the loop's increment makes it DRAW_AHEAD */
    }
    __syncthreads();
    if (staged)
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) g[j] = x[j];
    if (threadIdx.x == 0) {
        cd->step += moves;
        cd->accepted = s_accepted;
        cd->energy = s_energy;
        if (NPT) {
            cd->box = s_box, cd->half_box = 0.5 * s_box;
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
    /* staging pays only while several blocks still fit on an SM; else read from L1/L2 */
    const int staged = bytes <= 64 * 1024 && bytes + sizeof(draws) + 1024 <= (size_t)max_optin;
    auto kernel = npt->on ? sweep_chains_kernel<real, MIX, true> : sweep_chains_kernel<real, MIX, false>;
    if (staged && bytes > 48 * 1024 - sizeof(draws) - 512)
        CU_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), err);
    kernel<<<v->nchains, chain_threads(v->n), staged ? bytes : 0>>>(v->chains, (real *)v->pos, v->n, moves,
                                                                   cu_pairs_of<real>(v), v->seed, staged, *npt);
    CU_LAUNCHED(err);
    return MC_OK;
}

int cu_sweep_chains(const cu_view *v, long long moves, const cu_npt *npt, mc_err *err)
{
    return by_precision_and_mix(v, [&](auto real_tag, auto mix) {
        return launch_chains<decltype(real_tag), decltype(mix)::value>(v, moves, npt, err);
    });
}
