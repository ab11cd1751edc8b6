/* cu_repeats: the trials of a batch that move a particle an earlier trial of the batch moves, for
 * the one-block draw kernels of both large-chain paths (cu_sweep.cu's batched path, cu_cells.cu's
 * cell path). Repeats are rare (about K^2 / 2N), so instead of every trial scanning all earlier
 * ones, trials register in a shared hash of particle ids and compare only with the trials in their
 * own bucket (with every earlier trial if the bucket overflowed). 40 kB of shared memory. */
#ifndef CU_REPEATS_CUH
#define CU_REPEATS_CUH

enum { REPEAT_BUCKETS = 2048, REPEAT_DEPTH = 4 };

struct repeat_table {
    int fill[REPEAT_BUCKETS];                 /* trials registered per bucket (may exceed the depth) */
    int trial[REPEAT_BUCKETS][REPEAT_DEPTH];
};

/* Every thread of the block, then a barrier before repeat_register. */
__device__ inline void repeat_clear(repeat_table &h)
{
    for (int e = threadIdx.x; e < REPEAT_BUCKETS; e += blockDim.x) h.fill[e] = 0;
}

/* Trial k moves particle p: registers it and returns its bucket (then a barrier before
 * repeat_prev). */
__device__ inline int repeat_register(repeat_table &h, int k, int p)
{
    int b = (int)(((unsigned)p * 2654435761u) % REPEAT_BUCKETS);
    int at = atomicAdd(&h.fill[b], 1);
    if (at < REPEAT_DEPTH) h.trial[b][at] = k;
    return b;
}

/* The latest trial before k that moves p (-1: none), and in *mult (unless NULL) how many trials up
 * to and including k move it. particle[m]: trial m's particle, for every m < k. */
__device__ inline int repeat_prev(const repeat_table &h, const int *particle, int k, int p, int bucket, int *mult)
{
    int prev = -1, count = 1, fill = h.fill[bucket];
    if (fill > REPEAT_DEPTH) { /* rare: compare with every earlier trial */
        for (int m = 0; m < k; m++)
            if (particle[m] == p) prev = m, count++;
    } else {
        for (int e = 0; e < fill; e++) { /* bucket order is arbitrary; the result is not */
            int m = h.trial[bucket][e];
            if (m < k && particle[m] == p) prev = max(prev, m), count++;
        }
    }
    if (mult) *mult = count;
    return prev;
}

#endif
