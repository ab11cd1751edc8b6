/* cu_repeats: the trials of a batch that move a particle an earlier trial of the batch moves, for
 * the one-block draw kernels of both large-chain paths (cu_batched.cu, cu_cells.cu's
 * cell path). Repeats are rare (about K^2 / 2N), so instead of every trial scanning all earlier
 * ones, trials register in a shared hash table keyed by particle id with linear probing, a quarter
 * full at most, and compare only with the trials in the run of occupied slots from their
 * particle's home slot: every trial of that particle lies in that run, whatever order the
 * registrations came in, so no trial ever compares itself with every earlier one (which would
 * hold a whole block at its next barrier). 16 kB of shared memory. */
#ifndef CU_REPEATS_CUH
#define CU_REPEATS_CUH

#include "cu_backend.h"

enum { REPEAT_BITS = 12, REPEAT_SLOTS = 1 << REPEAT_BITS };
static_assert(REPEAT_SLOTS >= 4 * CU_MAX_BATCH_TRIALS, "a quarter full at most: short probe runs, never full");

struct repeat_table {
    int trial[REPEAT_SLOTS]; /* -1: empty */
};

/* Every thread of the block, then a barrier before repeat_register. */
__device__ inline void repeat_clear(repeat_table &h)
{
    for (int e = threadIdx.x; e < REPEAT_SLOTS; e += blockDim.x) h.trial[e] = -1;
}

/* Particle p's home slot: the high bits of a multiplicative hash. */
__device__ inline int repeat_home(int p)
{
    return (int)(((unsigned)p * 2654435761u) >> (32 - REPEAT_BITS));
}

/* Trial k moves particle p: registers it in the first free slot from p's home slot on and returns
 * the home slot (then a barrier before repeat_prev). */
__device__ inline int repeat_register(repeat_table &h, int k, int p)
{
    const int home = repeat_home(p);
    for (int e = home; atomicCAS(&h.trial[e], -1, k) != -1;) e = (e + 1) & (REPEAT_SLOTS - 1);
    return home;
}

/* The latest trial before k that moves p (-1: none), and in *mult (unless NULL) how many trials up
 * to and including k move it. particle[m]: trial m's particle, for every registered m. */
__device__ inline int repeat_prev(const repeat_table &h, const int *particle, int k, int p, int home, int *mult)
{
    int prev = -1, count = 1;
    for (int e = home, m; (m = h.trial[e]) >= 0; e = (e + 1) & (REPEAT_SLOTS - 1))
        if (m < k && particle[m] == p) prev = max(prev, m), count++;
    if (mult) *mult = count;
    return prev;
}

#endif
