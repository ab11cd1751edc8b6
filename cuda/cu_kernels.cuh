/* cu_kernels: device helpers shared by the CUDA kernels: the precision traits that pick the float
 * or double body of the pair functions (pair_fn.inc), and a deterministic block sum. */
#ifndef CU_KERNELS_CUH
#define CU_KERNELS_CUH

#include <math_constants.h>

#include "cu_backend.h"
#include "mc_species.h"
#include "pair.h"

/* prec<real>: the pair and box functions of one precision, all from pair_fn.inc. */
template <typename real> struct prec;
template <> struct prec<double> {
    typedef pair_params params;
    static params make(const pair_params &p) { return p; }
    static __host__ __device__ double energy(double r2, const params &p) { return pair_energy(r2, &p); }
    static __host__ __device__ double virial(double r2, const params &p) { return pair_virial(r2, &p); }
    static __host__ __device__ double fold(double d, double box) { return mc_image_fold(d, box); }
    static __host__ __device__ double wrap(double x, double box) { return mc_wrap(x, box); }
};
template <> struct prec<float> {
    typedef pair_params_f params;
    static params make(const pair_params &p)
    {
        params f = {(float)p.lj1,        (float)p.lj2,         (float)p.rc2,
                    (float)p.shift,      (float)p.rc,          (float)p.slope,
                    (float)p.morse_eps,  (float)p.morse_alpha, (float)p.morse_r0,
                    (float)p.coulomb_qq, (float)p.coulomb_rc2, (float)p.coulomb_alpha,
                    (float)p.coulomb_slope, (float)p.coulomb_shift, p.form};
        return f;
    }
    static __host__ __device__ float energy(float r2, const params &p) { return pair_energy_f(r2, &p); }
    static __host__ __device__ float virial(float r2, const params &p) { return pair_virial_f(r2, &p); }
    static __host__ __device__ float fold(float d, float box) { return mc_image_fold_f(d, box); }
    static __host__ __device__ float wrap(float x, float box) { return mc_wrap_f(x, box); }
};

/* 1/x for a float x in [2^-126, 2^126), rounded to nearest exactly as the IEEE division 1.0f / x
 * rounds it: that division's own fast path (the hardware approximation, then one Newton step by
 * fused multiply-adds) without its range check and branch to the slow path for other x. In an LJ
 * pair term the check and branch cost 6 of about 37 instructions, and the call to the slow path made
 * nvcc keep registers on the stack in an unrolled loop. t/gpu_parity's lj_energy_in_range compares
 * every float in the range with the division. */
__device__ __forceinline__ float cu_rcp_in_range(float x)
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return fmaf(r, -fmaf(x, r, -1.0f), r);
}

/* pair_energy_f(r2, p) for plain LJ constants (cu_plain_lj) and every r2 with r2^3 < 2^126 (r2 <
 * 2^42, so every pair of a box of edge below 2^20), r^-6 by cu_rcp_in_range. An r2^3 below 2^-126
 * (r2 below 2^-42, zero and subnormals included) is taken as 2^-126: the energy is then +inf, as
 * the division's is, for any constants with lj1 >= 2^-124 and lj2 < 2^126 lj1 (t/gpu_parity
 * compares every float r2 below 2^42 with pair_energy_f, with several constants). */
__device__ __forceinline__ float cu_lj_energy_in_range(float r2, const pair_params_f &p)
{
    const float u = lj_energy_of_ir6_f(cu_rcp_in_range(fmaxf(r2 * r2 * r2, 0x1p-126f)), &p);
    return r2 < p.rc2 ? u : 0.0f;
}

/* Plain LJ (no Morse, no force shift, no charges) is the hot case. A pair loop handed
 * cu_plain_lj(p), whose selectors are literal constants (pair_as_plain_lj's), and inlined, loses
 * the uniform branches of the other terms, a cost in the hot loop that a run-time test keeps. The
 * pair loops call themselves through cu_specialised, which picks the copy at run time. */
template <typename P>
__host__ __device__ __forceinline__ P cu_plain_lj(P p)
{
    p.form = PAIR_LJ;
    p.slope = 0;
    p.coulomb_qq = 0;
    return p;
}

/* f(cu_plain_lj(p)) for plain LJ, else f(p): two inlined copies of the loop in f. */
template <typename P, typename F>
__device__ __forceinline__ double cu_specialised(const P &p, F f)
{
    /* (the kernels' pair function has no Coulomb term: PAIR_COULOMB_TERM folds its test away) */
    if (p.form == PAIR_LJ && p.slope == 0 && (!PAIR_COULOMB_TERM || p.coulomb_qq == 0)) return f(cu_plain_lj(p));
    return f(p);
}

/* The pair constants a kernel needs: one set for a pure fluid, or, for a mixture, a device table
 * per species pair with the species' index blocks (mc_species). Plain data, passed by value. */
template <typename real> struct cu_pairs {
    typedef typename prec<real>::params params;
    params one;                    /* a pure fluid's constants (n == 1) */
    int n;                         /* species */
    int first[MC_MAX_SPECIES + 1]; /* species a holds particles first[a] .. first[a+1] - 1 */
    const params *table;           /* device [n][n] (n > 1) */

    __device__ int species_of(int i) const { return mc_species_block(first, n, i); }
    __device__ params of(int a, int b) const { return n == 1 ? one : table[a * n + b]; }
};

/* The view's pair constants in the kernel precision (host side). */
template <typename real>
static inline cu_pairs<real> cu_pairs_of(const cu_view *v)
{
    cu_pairs<real> p;
    p.one = prec<real>::make(v->pair);
    p.n = v->nspecies;
    for (int a = 0; a <= MC_MAX_SPECIES; a++) p.first[a] = v->species_first[a];
    p.table = (const typename prec<real>::params *)v->pair_table;
    return p;
}

/* Calls f(j_begin, j_end, params) for the part of the strided index run j = first, first +
 * stride, ... < end that falls in each species block b (indices local: global = local + index0),
 * with the constants of the pair (a, b); returns the sum of what f returns. A pure fluid makes one
 * call with its constants. f's loop then keeps one set of constants, as in the pure case. The hot
 * kernels are instantiated with MIX = false for pure fluids, which compiles the mixture code out
 * (a run-time branch costs the pure fluid's loop). */
template <bool MIX, typename real, typename F>
__device__ __forceinline__ double cu_by_species(const cu_pairs<real> &pr, int a, int first, int end,
                                                int stride, int index0, F f)
{
    if (!MIX || pr.n == 1) return f(first, end, pr.one);
    double total = 0.0;
    for (int b = 0; b < pr.n; b++) {
        int lo = max(pr.first[b] - index0, first), hi = min(pr.first[b + 1] - index0, end);
        if (lo >= hi) continue;
        int start = first + (lo - first + stride - 1) / stride * stride; /* first run index >= lo */
        total += f(start, hi, pr.of(a, b));
    }
    return total;
}

/* A coordinate as mc_scale_coordinate scales it with its box (the product in double, then
 * rounded to real); s = 1 leaves it as it is. */
template <typename real>
__device__ inline real cu_scaled(real x, double s, real scaled_box)
{
    if (s == 1.0) return x;
    real v = (real)((double)x * s);
    return v >= scaled_box ? v - scaled_box : v;
}

/* dx^2 + dy^2 + dz^2, rounded alike in every kernel: two explicit fused multiply-adds. Left to nvcc,
 * which of the three products stays unfused depends on the code around the sum, and a pair's r^2
 * then differs in its last bit between kernels, and a running energy drifts from the measurement's
 * recomputation (t/gpu_run.sh runs a shape where it did). The CPU's sums
 * are not contracted (-ffp-contract=off); the kernels compiled with -fmad=false write theirs out. */
template <typename real> __device__ __forceinline__ real cu_norm2(real dx, real dy, real dz)
{
    return fma(dz, dz, fma(dy, dy, dx * dx));
}

/* Squared minimum-image distance between two points (each axis folded by mc_image_fold). */
template <typename real>
__device__ inline real cu_dist2(real ax, real ay, real az, real bx, real by, real bz, real box)
{
    return cu_norm2(prec<real>::fold(ax - bx, box), prec<real>::fold(ay - by, box), prec<real>::fold(az - bz, box));
}

/* A coordinate moved by d as the CPU moves it: the sum taken in double, then rounded to real. */
template <typename real>
__host__ __device__ inline real cu_displace(real x, double d, real box)
{
    return prec<real>::wrap((real)((double)x + d), box);
}

/* The batched paths (cu_batched.cu, cu_cells.cu, cu_chain_cells.cu, cu_rigid_batch.cu) sum a trial's
 * energy change against the batch-start configuration and correct it by its pair terms with the
 * trials accepted before it. A start term with a particle that has moved since is taken out again
 * by a correction, but its rounding stays in dE: 1e-16 of it in double, NaN (inf - inf) where a
 * float term overflowed; the CPU, which sums against the present configuration, never meets it. So
 * a term of this many kT or more, or not finite, is never carried through a batch: the trial is
 * evaluated afresh, or first in the next batch. Below the limit each addition made while such a
 * term is in a sum rounds by at most about 1e-10 kT. */
static const double CU_CANCEL_LIMIT = 1e6;

/* Whether a pair term u (energy) may be carried through a batch at inverse temperature beta. */
__device__ inline bool cu_carried(double u, double beta) { return fabs(u) * beta < CU_CANCEL_LIMIT; }

/* -DCU_TRACE_CANCEL: a line per trial that a path takes apart for a term beyond the limit (to
 * count what t/gpu_parity.c's overlap cases exercise); compiled out otherwise. */
#ifdef CU_TRACE_CANCEL
#include <stdio.h>
#define CU_CANCEL_TRACE(path, step) printf("# cancel guard: %s, step %llu\n", path, (unsigned long long)(step))
#else
#define CU_CANCEL_TRACE(path, step) ((void)0)
#endif

/* How an accepted move of another particle (a -> b) changes a later trial's energy change
 * (o -> nw): its new pair terms minus its old ones, each pair term rounded once in real and
 * added in double, as every other energy sum. NaN where one of the four terms may not be carried
 * (cu_carried; the two with a are terms of the trial's start sum): the flag travels in the value,
 * through any sum it enters, and the caller sees it with isnan where it decides. */
template <typename real>
__device__ inline double cu_pair_correction(real ox, real oy, real oz, real nx, real ny, real nz,
                                            const real *a, const real *b, real box, double beta,
                                            const typename prec<real>::params &lj)
{
    typedef prec<real> P;
    return cu_specialised(lj, [&](const typename P::params &pp) {
        const double new_b = (double)P::energy(cu_dist2(nx, ny, nz, b[0], b[1], b[2], box), pp),
                     old_b = (double)P::energy(cu_dist2(ox, oy, oz, b[0], b[1], b[2], box), pp),
                     new_a = (double)P::energy(cu_dist2(nx, ny, nz, a[0], a[1], a[2], box), pp),
                     old_a = (double)P::energy(cu_dist2(ox, oy, oz, a[0], a[1], a[2], box), pp);
        if (!(cu_carried(new_b, beta) && cu_carried(old_b, beta) && cu_carried(new_a, beta) &&
              cu_carried(old_a, beta)))
            return CUDART_NAN;
        return new_b - old_b - new_a + old_a;
    });
}

/* One pair of a full recomputation: energy and virial in double, and its RDF bin (binned in
 * double, as the CPU bins it; integer counts add exactly in any order). */
template <typename real>
__device__ inline void cu_measure_pair(real r2, const typename prec<real>::params &lj, double *e,
                                       double *w, unsigned long long *hist, int bins,
                                       double rdf_rmax2, double rdf_dr)
{
    *e += (double)prec<real>::energy(r2, lj);
    *w += (double)prec<real>::virial(r2, lj);
    if (hist && (double)r2 < rdf_rmax2) {
        int bin = (int)(sqrt((double)r2) / rdf_dr);
        if (bin < bins) atomicAdd(&hist[bin], 1ull);
    }
}

/* The inclusive prefix sum of v over the warp's lanes (lane: this thread's), in every lane; the
 * whole warp calls it. */
__device__ inline int cu_warp_inclusive_sum(int v, int lane)
{
    for (int off = 1; off < 32; off <<= 1) {
        const int below = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off) v += below;
    }
    return v;
}

/* Sum of v over the block, always added in the same order (warp shuffles, then warps in index
 * order), so results repeat bit for bit run to run: cu_warp_sums, a barrier, cu_warps_total.
 * blockDim.x must be a multiple of 32; scratch holds 32 doubles and must not be reused by the next
 * call without a barrier in between (callers alternate two buffers). */
__device__ inline void cu_warp_sums(double v, double *scratch)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
}

__device__ inline double cu_warps_total(const double *scratch)
{
    double total = 0.0;
    for (int w = 0; w < (int)(blockDim.x >> 5); w++) total += scratch[w];
    return total;
}

/* The block's sum in every thread (a barrier inside). */
__device__ inline double cu_block_sum(double v, double *scratch)
{
    cu_warp_sums(v, scratch);
    __syncthreads();
    return cu_warps_total(scratch);
}

#endif
