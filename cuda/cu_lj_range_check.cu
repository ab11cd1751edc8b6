/* cu_lj_range_check: every float r2 below 2^42 through both LJ pair terms (cu_lj_range_check.h). */
#include <string.h>

#include "cu_kernels.cuh"
#include "cu_lj_range_check.h"

enum { RANGE_END_BITS = 0x54800000u }; /* the bits of 2^42 as a float */

__global__ void lj_range_kernel(pair_params_f p, unsigned long long *mismatches, unsigned *first_bits)
{
    unsigned long long bad = 0;
    for (unsigned b = blockIdx.x * blockDim.x + threadIdx.x; b < RANGE_END_BITS; b += gridDim.x * blockDim.x) {
        const float r2 = __uint_as_float(b);
        const float fast = cu_lj_energy_in_range(r2, p), ieee = prec<float>::energy(r2, p);
        if (__float_as_uint(fast) != __float_as_uint(ieee)) {
            bad++;
            atomicMin(first_bits, b);
        }
    }
    if (bad) atomicAdd(mismatches, bad);
}

int cu_lj_range_check(const pair_params *p, unsigned long long *mismatches, float *first_r2, mc_err *err)
{
    unsigned long long *d_count = NULL;
    unsigned *d_first = NULL, first = 0xffffffffu;
    int rc = MC_OK;
    if (cudaMalloc(&d_count, sizeof *d_count) != cudaSuccess || cudaMalloc(&d_first, sizeof *d_first) != cudaSuccess)
        rc = mc_err_set(err, MC_ECUDA, "LJ range check: cudaMalloc failed");
    if (rc == MC_OK && (cudaMemset(d_count, 0, sizeof *d_count) != cudaSuccess ||
                        cudaMemcpy(d_first, &first, sizeof first, cudaMemcpyHostToDevice) != cudaSuccess))
        rc = mc_err_set(err, MC_ECUDA, "LJ range check: setting the counters failed");
    if (rc == MC_OK) {
        lj_range_kernel<<<4096, 256>>>(cu_plain_lj(prec<float>::make(*p)), d_count, d_first);
        if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
            rc = mc_err_set(err, MC_ECUDA, "LJ range check: the kernel failed");
    }
    if (rc == MC_OK && (cudaMemcpy(mismatches, d_count, sizeof *mismatches, cudaMemcpyDeviceToHost) != cudaSuccess ||
                        cudaMemcpy(&first, d_first, sizeof first, cudaMemcpyDeviceToHost) != cudaSuccess))
        rc = mc_err_set(err, MC_ECUDA, "LJ range check: copy from the device failed");
    if (rc == MC_OK) {
        float f = 0.0f;
        if (*mismatches) memcpy(&f, &first, sizeof f);
        *first_r2 = f;
    }
    cudaFree(d_count), cudaFree(d_first);
    return rc;
}
