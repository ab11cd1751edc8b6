/* cu_bench: the launch-per-move baseline and the all-pairs rate kernel (benchmark only). */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "cu_bench.h"
#include "cu_check.h"
#include "cu_kernels.cuh"
#include "mc_move.h"

enum { BASE_THREADS = 256, RATE_THREADS = 256 };

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
        real half = box / 2;
        d += (double)(prec<real>::energy(cu_dist2(nx, ny, nz, x[j], y[j], z[j], box, half), pp) -
                      prec<real>::energy(cu_dist2(ox, oy, oz, x[j], y[j], z[j], box, half), pp));
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

/* Thread i sums u(r_ij) over every j, tiles of j staged in shared memory (the n-body pattern). */
template <typename real>
__global__ void pair_rate_kernel(const real *x, const real *y, const real *z, int n, real box,
                                 typename prec<real>::params lj, double *out)
{
    __shared__ real sx[RATE_THREADS], sy[RATE_THREADS], sz[RATE_THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    real xi = x[i < n ? i : 0], yi = y[i < n ? i : 0], zi = z[i < n ? i : 0], half = box / 2;
    const typename prec<real>::params pp = cu_plain_lj(lj); /* plain LJ: no branch per pair */
    double sum = 0.0;
    for (int tile = 0; tile < n; tile += RATE_THREADS) {
        int j = tile + threadIdx.x;
        sx[threadIdx.x] = x[j < n ? j : 0], sy[threadIdx.x] = y[j < n ? j : 0],
        sz[threadIdx.x] = z[j < n ? j : 0];
        __syncthreads();
        real part = 0;
        for (int k = 0; k < RATE_THREADS && tile + k < n; k++)
            part += prec<real>::energy(cu_dist2(xi, yi, zi, sx[k], sy[k], sz[k], box, half) +
                                           (real)1e-3, pp); /* offset keeps i == j finite */
        sum += (double)part;
        __syncthreads();
    }
    if (i < n) out[i] = sum;
}

template <typename real> static int pair_rate(int n, double *rate, mc_err *err)
{
    real *h = (real *)malloc(3 * (size_t)n * sizeof(real)), *d = NULL;
    double *out = NULL;
    if (!h) MC_FAIL(err, MC_ENOMEM, "out of memory");
    double box = cbrt(n / 0.8);
    for (int i = 0; i < 3 * n; i++) h[i] = (real)(box * mc_rng_uniform(mc_rng_block(7, 0, 0, i).v[0]));
    pair_params lj = lj_params_make(1.0, 1.0, INFINITY, 0);
    int rc = MC_OK;
    cudaEvent_t a, b;
    float ms = 0;
    if (cudaMalloc(&d, 3 * (size_t)n * sizeof(real)) != cudaSuccess ||
        cudaMalloc(&out, n * sizeof(double)) != cudaSuccess ||
        cudaMemcpy(d, h, 3 * (size_t)n * sizeof(real), cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaEventCreate(&a) != cudaSuccess || cudaEventCreate(&b) != cudaSuccess)
        rc = mc_err_set(err, MC_ECUDA, "pair rate: set-up failed");
    int blocks = (n + RATE_THREADS - 1) / RATE_THREADS;
    for (int rep = 0; rc == MC_OK && rep < 2; rep++) { /* the first launch warms up */
        cudaEventRecord(a);
        pair_rate_kernel<real><<<blocks, RATE_THREADS>>>(d, d + n, d + 2 * n, n, (real)box,
                                                        prec<real>::make(lj), out);
        cudaEventRecord(b);
        if (cudaEventSynchronize(b) != cudaSuccess) rc = mc_err_set(err, MC_ECUDA, "pair rate kernel failed");
        cudaEventElapsedTime(&ms, a, b);
    }
    *rate = (double)n * n / (ms * 1e-3);
    cudaFree(d);
    cudaFree(out);
    free(h);
    return rc;
}

int cu_pair_rate(int n, int single, double *pairs_per_s, mc_err *err)
{
    return single ? pair_rate<float>(n, pairs_per_s, err) : pair_rate<double>(n, pairs_per_s, err);
}
