/* cu_chain_move: the pieces of a Metropolis move that the many-chain kernels share (cu_sweep.cu,
 * all pairs; cu_chain_cells.cu, cell lists): one resident block per chain, the trial drawn as the
 * CPU draws it, the block's partial energy sums added in a fixed order, thread 0 deciding; and
 * move_energy_part, the all-pairs energy change of a move, which cu_batched.cu's kernels share. */
#ifndef CU_CHAIN_MOVE_CUH
#define CU_CHAIN_MOVE_CUH

#include <type_traits>

#include "cu_kernels.cuh"
#include "mc_move.h"

enum { DRAW_AHEAD = 32 };

/* The trial of a move as the CPU makes it: new coordinates computed in double, then rounded. */
template <typename real>
__host__ __device__ inline void trial_position(const mc_trial &t, real ox, real oy, real oz, real box,
                                               real *nx, real *ny, real *nz)
{
    *nx = cu_displace(ox, t.dx, box);
    *ny = cu_displace(oy, t.dy, box);
    *nz = cu_displace(oz, t.dz, box);
}

/* Random numbers of DRAW_AHEAD consecutive moves, drawn by the lanes of warp 0 at once: each
 * thread would otherwise run two Philox blocks per move, more work than its pair terms. */
typedef struct draws {
    mc_trial trial[DRAW_AHEAD];
    double threshold[DRAW_AHEAD];
} draws;

/* Fill `next` with the draws of steps step, step + 1, ... (at most `left` of them). Waits for the
 * block first: the previous draws may still be read. */
__device__ inline void draw_ahead(draws *next, unsigned long long seed, unsigned id, unsigned long long step,
                                  long long left, int n, double max_disp)
{
    __syncthreads();
    if (threadIdx.x < DRAW_AHEAD && threadIdx.x < left) {
        unsigned long long s = step + threadIdx.x;
        next->trial[threadIdx.x] = mc_trial_draw(seed, id, s, (uint32_t)n, max_disp);
        next->threshold[threadIdx.x] = mc_accept_threshold(seed, id, s);
    }
}

/* Energy change of moving particle i from o to nw, summed over j = first, first + stride, ... < end
 * (j != i). Each pair energy is rounded once in `real` and added in double, new and old apart, so
 * that the running energy and a full recomputation add exactly the same pair terms. Indices are
 * local to x, y, z; index0 is the global index of local 0 (a staged chunk), which fixes species.
 *
 * LANES_DIFFER: the lanes of a warp move different particles (the energy kernel's pair blocks, a trial a
 * thread). There the self pair is dropped by a select, not skipped: nvcc splits a loop with
 * `if (j == i) continue` into the runs below and above i, and lanes whose i lies below the chunk and
 * lanes whose i lies above it then run the two runs one after the other, each with half the warp.
 * Adding 0.0 for j == i leaves both sums bit for bit as skipping
 * it does; its own terms are computed and discarded (at the old position, r2 = 0: infinite for LJ,
 * NaN for an LJ pair of epsilon 0, finite for Morse). Where every lane moves the same particle the
 * skip costs nothing and is kept. */
template <bool MIX, bool LANES_DIFFER = false, typename real>
__device__ double move_energy_part(const real *x, const real *y, const real *z, int first, int end,
                                   int stride, int i, real ox, real oy, real oz, real nx, real ny,
                                   real nz, real box, const cu_pairs<real> &pr,
                                   int index0 = 0)
{
    typedef typename prec<real>::params params;
    int a = MIX ? pr.species_of(i + index0) : 0;
    return cu_by_species<MIX>(pr, a, first, end, stride, index0, [&](int j0, int j1, const params &p) {
        return cu_specialised(p, [&](const params &pp) {
            double e_new = 0.0, e_old = 0.0;
            for (int j = j0; j < j1; j += stride) {
                if (!LANES_DIFFER && j == i) continue;
                const double u_old = (double)prec<real>::energy(cu_dist2(ox, oy, oz, x[j], y[j], z[j], box), pp),
                             u_new = (double)prec<real>::energy(cu_dist2(nx, ny, nz, x[j], y[j], z[j], box), pp);
                const bool self = LANES_DIFFER && j == i;
                e_old += self ? 0.0 : u_old;
                e_new += self ? 0.0 : u_new;
            }
            return e_new - e_old;
        });
    });
}

/* launch(real(), mix) with the view's precision and whether it is a mixture as template
 * arguments (std::integral_constant<bool, MIX> carries the flag): the four instantiations a
 * launcher needs, chosen in one place. */
template <typename F> static int by_precision_and_mix(const cu_view *v, F launch)
{
    if (v->nspecies > 1)
        return v->single ? launch(float(), std::true_type()) : launch(double(), std::true_type());
    return v->single ? launch(float(), std::false_type()) : launch(double(), std::false_type());
}

#endif
