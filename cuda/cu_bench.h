/* cu_bench: reference kernels for the benchmark only: the classic launch-per-move scheme, and the
 * GPU's plain all-pairs energy rate (the ceiling every Monte Carlo kernel is compared with). */
#ifndef CU_BENCH_H
#define CU_BENCH_H

#include "pair.h"
#include "mc_err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One chain of n particles (positions x, y, z in [0, box)) advanced by `moves` moves with one
 * kernel launch, a copy back and a host decision per move. Returns seconds taken; positions and
 * *accepted are updated. */
int cu_baseline_moves(double *x, double *y, double *z, int n, double box, double beta,
                      double max_disp, pair_params lj, uint64_t seed, unsigned chain, long moves,
                      int single, long *accepted, double *seconds, mc_err *err);

/* Pair evaluations per second of an all-pairs energy sum over n random particles. */
int cu_pair_rate(int n, int single, double *pairs_per_s, mc_err *err);

#ifdef __cplusplus
}
#endif
#endif
