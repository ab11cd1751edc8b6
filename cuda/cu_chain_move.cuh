/* cu_chain_move: the pieces of a Metropolis move that the many-chain kernels share (cu_sweep.cu,
 * all pairs; cu_chain_cells.cu, cell lists): one resident block per chain, the trial drawn as the
 * CPU draws it, the block's partial energy sums added in a fixed order, thread 0 deciding. */
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
