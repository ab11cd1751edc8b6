/* cu_device_none: the device interface in a build without CUDA: there is never a GPU. */
#include "cu_device.h"

int cu_device_bind(int local_rank, cu_device_info *info, mc_err *err)
{
    (void)local_rank, (void)info;
    MC_FAIL(err, MC_ENODEV, "built without CUDA");
}

#include "mc_backend.h"

/* Never chosen in a CPU-only build (no GPU is ever bound), but the table exists so callers need
 * no #ifdef. */
static mc_backend *none_create(const mc_plan *plan, mc_chain **chains, int nchains, mc_err *err)
{
    (void)plan, (void)chains, (void)nchains;
    mc_err_set(err, MC_ENODEV, "the GPU backend is not in this build (configured without CUDA)");
    return NULL;
}

const mc_backend_ops mc_backend_cuda = {.name = "gpu", .create = none_create};

#include "cu_fold_check.h"

int cu_fold_check(const double *d, const double *box, int n, double *fold_d, float *fold_f, double *dist2_d,
                  float *dist2_f, mc_err *err)
{
    (void)d, (void)box, (void)n, (void)fold_d, (void)fold_f, (void)dist2_d, (void)dist2_f;
    MC_FAIL(err, MC_ENODEV, "built without CUDA");
}

#include "cu_lj_range_check.h"

int cu_lj_range_check(const pair_params *p, unsigned long long *mismatches, float *first_r2, mc_err *err)
{
    (void)p, (void)mismatches, (void)first_r2;
    MC_FAIL(err, MC_ENODEV, "built without CUDA");
}
