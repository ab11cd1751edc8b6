/* cu_fold_check: the device's minimum image, computed by the kernels' own functions, for
 * t/gpu_parity to hold against the host's. pair_fn.inc's mc_image_fold has device branches of its
 * own (float's fmin, double's select of the signed separation), and cu_kernels.cuh's cu_dist2 adds
 * the folded squares as two explicit fused multiply-adds; the CPU's tests (t/lj.c) reach neither. */
#ifndef CU_FOLD_CHECK_H
#define CU_FOLD_CHECK_H

#include "mc_err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* For k < n, on the bound GPU: fold_d[k] = mc_image_fold(d[k], box[k]) in double and fold_f[k] =
 * mc_image_fold_f((float)d[k], (float)box[k]) in float; dist2_d[k] and dist2_f[k] = cu_dist2 of the
 * separation (d[k], d[k + 1], d[k + 2]) (indices mod n) in box[k], in each precision. MC_ENODEV in
 * a build without CUDA. */
int cu_fold_check(const double *d, const double *box, int n, double *fold_d, float *fold_f, double *dist2_d,
                  float *dist2_f, mc_err *err);

#ifdef __cplusplus
}
#endif
#endif
