/* cu_kernels: device helpers shared by the CUDA kernels: the precision traits that pick the float
 * or double body of the pair functions (lj_pair.inc), and a deterministic block sum. */
#ifndef CU_KERNELS_CUH
#define CU_KERNELS_CUH

#include "lj.h"

/* prec<real>: the pair and box functions of one precision, all from lj_pair.inc. */
template <typename real> struct prec;
template <> struct prec<double> {
    typedef lj_params params;
    static params make(const lj_params &p) { return p; }
    static __host__ __device__ double energy(double r2, const params &p) { return lj_pair_energy(r2, &p); }
    static __host__ __device__ double virial(double r2, const params &p) { return lj_pair_virial(r2, &p); }
    static __host__ __device__ double image(double d, double box, double half) { return mc_min_image(d, box, half); }
    static __host__ __device__ double wrap(double x, double box) { return mc_wrap(x, box); }
};
template <> struct prec<float> {
    typedef lj_params_f params;
    static params make(const lj_params &p)
    {
        params f = {(float)p.lj1, (float)p.lj2, (float)p.rc2, (float)p.shift, (float)p.rc, (float)p.slope};
        return f;
    }
    static __host__ __device__ float energy(float r2, const params &p) { return lj_pair_energy_f(r2, &p); }
    static __host__ __device__ float virial(float r2, const params &p) { return lj_pair_virial_f(r2, &p); }
    static __host__ __device__ float image(float d, float box, float half) { return mc_min_image_f(d, box, half); }
    static __host__ __device__ float wrap(float x, float box) { return mc_wrap_f(x, box); }
};

/* Squared minimum-image distance between two points. */
template <typename real>
__device__ inline real cu_dist2(real ax, real ay, real az, real bx, real by, real bz, real box,
                                real half)
{
    real dx = prec<real>::image(ax - bx, box, half);
    real dy = prec<real>::image(ay - by, box, half);
    real dz = prec<real>::image(az - bz, box, half);
    return dx * dx + dy * dy + dz * dz;
}

/* Sum of v over the block, returned to every thread, always added in the same order (warp
 * shuffles, then warps in index order), so results repeat bit for bit run to run. blockDim.x must
 * be a multiple of 32; scratch holds 32 doubles and must not be reused by the next call without a
 * barrier in between (callers alternate two buffers). */
__device__ inline double cu_block_sum(double v, double *scratch)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
    __syncthreads();
    double total = 0.0;
    for (int w = 0; w < (int)(blockDim.x >> 5); w++) total += scratch[w];
    return total;
}

#endif
