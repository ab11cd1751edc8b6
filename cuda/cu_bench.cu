/* cu_bench: the launch-per-move baseline and the all-pairs rate kernel (benchmark only). */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "cu_bench.h"
#include "cu_check.h"
#include "cu_kernels.cuh"
#include "mc_move.h"

enum { BASE_THREADS = 256, RATE_THREADS = 512 };

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The energy change of one trial, partial sums per block: the classic scheme's kernel. */
template <typename real>
__global__ void baseline_kernel(const real *x, const real *y, const real *z, int n, int i, real ox,
                                real oy, real oz, real nx, real ny, real nz, real box,
                                typename prec<real>::params lj, double *partial)
{
    __shared__ double red[2][32];
    const typename prec<real>::params pp = cu_plain_lj(lj); /* the benchmark's LJ, as the engine's */
    double d = 0.0;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
        if (j == i) continue;
        d += (double)(prec<real>::energy(cu_dist2(nx, ny, nz, x[j], y[j], z[j], box), pp) -
                      prec<real>::energy(cu_dist2(ox, oy, oz, x[j], y[j], z[j], box), pp));
    }
    double s = cu_block_sum(d, red[0]);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

template <typename real>
static int baseline(double *hx, double *hy, double *hz, int n, double box, double beta,
                    double max_disp, pair_params lj, uint64_t seed, unsigned chain, long moves,
                    long *accepted, double *seconds, mc_err *err)
{
    const int blocks = 132;
    real *d = NULL;
    double *partial = NULL, host[blocks];
    real *h = (real *)malloc(3 * (size_t)n * sizeof(real));
    if (!h) MC_FAIL(err, MC_ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) h[i] = (real)hx[i], h[n + i] = (real)hy[i], h[2 * n + i] = (real)hz[i];
    int rc = MC_OK;
    if (cudaMalloc(&d, 3 * (size_t)n * sizeof(real)) != cudaSuccess ||
        cudaMalloc(&partial, blocks * sizeof(double)) != cudaSuccess ||
        cudaMemcpy(d, h, 3 * (size_t)n * sizeof(real), cudaMemcpyHostToDevice) != cudaSuccess)
        rc = mc_err_set(err, MC_ECUDA, "baseline: device allocation or copy failed");
    typename prec<real>::params p = prec<real>::make(lj);
    double t0 = now_s();
    for (long m = 0; rc == MC_OK && m < moves; m++) {
        mc_trial t = mc_trial_draw(seed, chain, (uint64_t)m, (uint32_t)n, max_disp);
        int i = (int)t.particle;
        real nx = cu_displace(h[i], t.dx, (real)box);
        real ny = cu_displace(h[n + i], t.dy, (real)box);
        real nz = cu_displace(h[2 * n + i], t.dz, (real)box);
        baseline_kernel<real><<<blocks, BASE_THREADS>>>(d, d + n, d + 2 * n, n, i, h[i], h[n + i],
                                                        h[2 * n + i], nx, ny, nz, (real)box, p,
                                                        partial);
        if (cudaMemcpy(host, partial, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) {
            rc = mc_err_set(err, MC_ECUDA, "baseline: copy back failed");
            break;
        }
        double dE = 0.0;
        for (int b = 0; b < blocks; b++) dE += host[b];
        if (!mc_metropolis_accept(dE, beta, seed, chain, (uint64_t)m)) continue;
        h[i] = nx, h[n + i] = ny, h[2 * n + i] = nz;
        (*accepted)++;
        real *dst[3] = {d + i, d + n + i, d + 2 * n + i}, src[3] = {nx, ny, nz};
        for (int a = 0; a < 3 && rc == MC_OK; a++)
            if (cudaMemcpy(dst[a], &src[a], sizeof(real), cudaMemcpyHostToDevice) != cudaSuccess)
                rc = mc_err_set(err, MC_ECUDA, "baseline: position update failed");
    }
    *seconds = now_s() - t0;
    cudaFree(d);
    cudaFree(partial);
    free(h);
    return rc;
}

int cu_baseline_moves(double *x, double *y, double *z, int n, double box, double beta,
                      double max_disp, pair_params lj, uint64_t seed, unsigned chain, long moves,
                      int single, long *accepted, double *seconds, mc_err *err)
{
    return single ? baseline<float>(x, y, z, n, box, beta, max_disp, lj, seed, chain, moves,
                                    accepted, seconds, err)
                  : baseline<double>(x, y, z, n, box, beta, max_disp, lj, seed, chain, moves,
                                     accepted, seconds, err);
}

/* The ceiling: thread i sums the LJ energy u(r_ij) over every j with a cutoff, in the tiled
 * n-body pattern as well as it can be written: positions as one 16- or 32-byte vector each,
 * staged a tile at a time through shared memory, the minimum image without a branch, the cutoff
 * and j == i as selects, the tile loop unrolled by 8. The minimum image is taken both ways, and the
 * faster is the ceiling: by rint, or folded as the engine folds it (cu_dist2's min(|d|, box - |d|));
 * which is faster depends on the precision. It is the pair term without the per-pair
 * bookkeeping a Monte Carlo move needs (species, the moved particle's own index, double sums of
 * rounded terms), so no move kernel can beat it; "fraction of the all-pairs rate" in mcens-bench
 * means fraction of this. Each thread sums in `real` and adds a tile's sum in double. The
 * reciprocal is IEEE-rounded, as the engine's pair terms must be to match the CPU backend
 * (__fdividef would give about 11% more in single). Block size, unroll depth and the number of
 * positions were chosen by doc/device/ceiling-variants.cu: 512 threads (4% over 256); at least
 * 2^20 positions (cu_pair_rate's caller), since at 2^16 only two blocks of 256 fit on each SM and
 * the rate was 24% lower. */
struct __align__(32) vec4d { double x, y, z, w; }; /* one 32-byte load (CUDA's double4 is deprecated) */
template <typename real> struct vec4_of;
template <> struct vec4_of<float> { typedef float4 type; };
template <> struct vec4_of<double> { typedef vec4d type; };

template <typename real, bool FOLD>
__global__ void __launch_bounds__(RATE_THREADS)
    pair_rate_kernel(const typename vec4_of<real>::type *p, int n, real box, real rc2, double *out)
{
    typedef typename vec4_of<real>::type vec4;
    __shared__ vec4 tile[RATE_THREADS];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const vec4 pi = p[i < n ? i : 0];
    const real inv_box = (real)1 / box;
    double sum = 0.0;
    for (int t0 = 0; t0 < n; t0 += RATE_THREADS) { /* n is a multiple of RATE_THREADS */
        tile[threadIdx.x] = p[t0 + threadIdx.x];
        __syncthreads();
        real part = 0;
#pragma unroll 8
        for (int k = 0; k < RATE_THREADS; k++) {
            const vec4 q = tile[k];
            real dx = pi.x - q.x, dy = pi.y - q.y, dz = pi.z - q.z;
            if (!FOLD) dx -= box * rint(dx * inv_box), dy -= box * rint(dy * inv_box), dz -= box * rint(dz * inv_box);
            const real r2 = FOLD ? cu_dist2(pi.x, pi.y, pi.z, q.x, q.y, q.z, box) : dx * dx + dy * dy + dz * dz;
            const real ir2 = (real)1 / r2, ir6 = ir2 * ir2 * ir2;
            const real u = (real)4 * ir6 * (ir6 - (real)1);
            part += r2 < rc2 && r2 > (real)0 ? u : (real)0;
        }
        sum += (double)part;
        __syncthreads();
    }
    if (i < n) out[i] = sum;
}

template <typename real> static int pair_rate(int n, double *rate, mc_err *err)
{
    typedef typename vec4_of<real>::type vec4;
    n = (n + RATE_THREADS - 1) / RATE_THREADS * RATE_THREADS;
    vec4 *h = (vec4 *)malloc((size_t)n * sizeof(vec4)), *d = NULL;
    double *out = NULL;
    if (!h) MC_FAIL(err, MC_ENOMEM, "out of memory");
    double box = cbrt(n / 0.8), cutoff = 2.5; /* a liquid's density and cutoff: the select takes both sides */
    for (int i = 0; i < n; i++) {
        h[i].x = (real)(box * mc_rng_uniform(mc_rng_block(7, 0, 0, 3 * i).v[0]));
        h[i].y = (real)(box * mc_rng_uniform(mc_rng_block(7, 0, 0, 3 * i + 1).v[0]));
        h[i].z = (real)(box * mc_rng_uniform(mc_rng_block(7, 0, 0, 3 * i + 2).v[0]));
        h[i].w = 0;
    }
    int rc = MC_OK, events = 0;
    cudaEvent_t a, b;
    float ms = 0;
    if (cudaMalloc(&d, (size_t)n * sizeof(vec4)) != cudaSuccess || cudaMalloc(&out, n * sizeof(double)) != cudaSuccess ||
        cudaMemcpy(d, h, (size_t)n * sizeof(vec4), cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaEventCreate(&a) != cudaSuccess || (events = 1, cudaEventCreate(&b) != cudaSuccess))
        rc = mc_err_set(err, MC_ECUDA, "pair rate: set-up failed");
    else
        events = 2;
    *rate = 0;
    const real rc2 = (real)(cutoff * cutoff);
    for (int fold = 0; fold < 2; fold++) /* the minimum image by rint, then folded: the faster counts */
        for (int rep = 0; rc == MC_OK && rep < 2; rep++) { /* the first launch of each warms up */
            if (cudaEventRecord(a) != cudaSuccess) rc = mc_err_set(err, MC_ECUDA, "pair rate: event failed");
            if (fold) pair_rate_kernel<real, true><<<n / RATE_THREADS, RATE_THREADS>>>(d, n, (real)box, rc2, out);
            else pair_rate_kernel<real, false><<<n / RATE_THREADS, RATE_THREADS>>>(d, n, (real)box, rc2, out);
            if (rc == MC_OK &&
                (cudaGetLastError() != cudaSuccess || cudaEventRecord(b) != cudaSuccess ||
                 cudaEventSynchronize(b) != cudaSuccess || cudaEventElapsedTime(&ms, a, b) != cudaSuccess))
                rc = mc_err_set(err, MC_ECUDA, "pair rate kernel failed");
            const double pairs_per_s = (double)n * n / (ms * 1e-3);
            if (rc == MC_OK && rep == 1 && pairs_per_s > *rate) *rate = pairs_per_s;
        }
    if (events > 0) cudaEventDestroy(a);
    if (events > 1) cudaEventDestroy(b);
    cudaFree(d);
    cudaFree(out);
    free(h);
    return rc;
}

int cu_pair_rate(int n, int single, double *pairs_per_s, mc_err *err)
{
    return single ? pair_rate<float>(n, pairs_per_s, err) : pair_rate<double>(n, pairs_per_s, err);
}
