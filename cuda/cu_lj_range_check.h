/* cu_lj_range_check: cu_lj_energy_in_range (cu_kernels.cuh), the trial-volume loop's LJ pair term
 * without the division's range check, held to the kernels' pair_energy_f on the GPU itself for
 * every float r2 in its range, for t/gpu_parity. */
#ifndef CU_LJ_RANGE_CHECK_H
#define CU_LJ_RANGE_CHECK_H

#include "mc_err.h"
#include "pair.h"

#ifdef __cplusplus
extern "C" {
#endif

/* On the bound GPU, with p's constants in float made plain LJ: *mismatches = the number of float
 * r2 from +0 up to, not including, 2^42 (every bit pattern) at which cu_lj_energy_in_range and
 * pair_energy_f differ in any bit; *first_r2 = the smallest such r2 (0 if none). MC_ENODEV in a
 * build without CUDA. */
int cu_lj_range_check(const pair_params *p, unsigned long long *mismatches, float *first_r2, mc_err *err);

#ifdef __cplusplus
}
#endif
#endif
