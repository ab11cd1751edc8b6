/* cu_fold_check: the device's minimum image for the GPU tests (cu_fold_check.h). */
#include "cu_fold_check.h"
#include "cu_kernels.cuh"

__global__ void fold_check_kernel(const double *d, const double *box, int n, double *fold_d, float *fold_f,
                                  double *dist2_d, float *dist2_f)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const int k1 = (k + 1) % n, k2 = (k + 2) % n;
    const float bf = (float)box[k];
    fold_d[k] = prec<double>::fold(d[k], box[k]);
    fold_f[k] = prec<float>::fold((float)d[k], bf);
    /* the second point at the origin: a - 0 is a, so the folds are of the separations themselves */
    dist2_d[k] = cu_dist2(d[k], d[k1], d[k2], 0.0, 0.0, 0.0, box[k]);
    dist2_f[k] = cu_dist2((float)d[k], (float)d[k1], (float)d[k2], 0.0f, 0.0f, 0.0f, bf);
}

int cu_fold_check(const double *d, const double *box, int n, double *fold_d, float *fold_f, double *dist2_d,
                  float *dist2_f, mc_err *err)
{
    const size_t nd = (size_t)n * sizeof(double), nf = (size_t)n * sizeof(float);
    double *dd = NULL, *dbox = NULL, *dfold = NULL, *ddist = NULL;
    float *dfold_f = NULL, *ddist_f = NULL;
    int rc = MC_OK;
    if (cudaMalloc(&dd, nd) != cudaSuccess || cudaMalloc(&dbox, nd) != cudaSuccess ||
        cudaMalloc(&dfold, nd) != cudaSuccess || cudaMalloc(&ddist, nd) != cudaSuccess ||
        cudaMalloc(&dfold_f, nf) != cudaSuccess || cudaMalloc(&ddist_f, nf) != cudaSuccess)
        rc = mc_err_set(err, MC_ECUDA, "fold check: cudaMalloc of %d separations failed", n);
    if (rc == MC_OK &&
        (cudaMemcpy(dd, d, nd, cudaMemcpyHostToDevice) != cudaSuccess ||
         cudaMemcpy(dbox, box, nd, cudaMemcpyHostToDevice) != cudaSuccess))
        rc = mc_err_set(err, MC_ECUDA, "fold check: copy to the device failed");
    if (rc == MC_OK) {
        fold_check_kernel<<<(n + 255) / 256, 256>>>(dd, dbox, n, dfold, dfold_f, ddist, ddist_f);
        if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
            rc = mc_err_set(err, MC_ECUDA, "fold check: the kernel failed");
    }
    if (rc == MC_OK &&
        (cudaMemcpy(fold_d, dfold, nd, cudaMemcpyDeviceToHost) != cudaSuccess ||
         cudaMemcpy(fold_f, dfold_f, nf, cudaMemcpyDeviceToHost) != cudaSuccess ||
         cudaMemcpy(dist2_d, ddist, nd, cudaMemcpyDeviceToHost) != cudaSuccess ||
         cudaMemcpy(dist2_f, ddist_f, nf, cudaMemcpyDeviceToHost) != cudaSuccess))
        rc = mc_err_set(err, MC_ECUDA, "fold check: copy from the device failed");
    cudaFree(dd), cudaFree(dbox), cudaFree(dfold), cudaFree(ddist), cudaFree(dfold_f), cudaFree(ddist_f);
    return rc;
}
