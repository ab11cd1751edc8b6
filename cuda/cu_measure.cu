/* cu_measure: full recomputation of every chain's pair energy and virial, and its RDF histogram.
 * Block (b, c) takes rows i = b, b + nb, ... of chain c and its threads the partners j > i; each
 * block writes its partial sums, which the host adds in block order, so the result repeats bit for
 * bit. RDF counts are integers, so atomic adds keep them exact in any order. */
#include <math.h>

#include "cu_backend.h"
#include "cu_check.h"
#include "cu_kernels.cuh"
#include "mc_move.h"

enum { MEASURE_THREADS = 256 };

/* With scale (npt trial volumes, device [nchains]), chain c is measured with its box and
 * positions scaled by scale[c], and chains with scale 1 are skipped (their partials are 0). */
template <typename real>
__global__ void __launch_bounds__(MEASURE_THREADS)
    measure_kernel(const cu_chain_dev *chains, const real *pos, int n, cu_pairs<real> pr,
                   int npairs, double *partial, unsigned long long *rdf, int bins,
                   double rdf_rmax2, double rdf_dr, const double *scale)
{
    typedef typename prec<real>::params params;
    __shared__ double red[2][32];
    const int c = blockIdx.y, nb = gridDim.x;
    const double s = scale ? scale[c] : 1.0;
    const real box = (real)(chains[c].box * s);
    const real *x = pos + (size_t)c * 3 * n, *y = x + n, *z = y + n;
    unsigned long long *hist = rdf ? rdf + (size_t)c * npairs * bins : 0;
    double e = 0.0, w = 0.0;
    for (int i = blockIdx.x; i < n && !(scale && s == 1.0); i += nb) {
        real xi = cu_scaled(x[i], s, box), yi = cu_scaled(y[i], s, box), zi = cu_scaled(z[i], s, box);
        int a = pr.species_of(i);
        /* species block by block in increasing j: the same summation order as one loop */
        cu_by_species<true>(pr, a, i + 1 + (int)threadIdx.x, n, (int)blockDim.x, 0,
                      [&](int j0, int j1, const params &p) {
                          int b = pr.species_of(j0);
                          unsigned long long *h = hist ? hist + (size_t)mc_pair_index(a, b, pr.n) * bins : 0;
                          for (int j = j0; j < j1; j += blockDim.x) {
                              real xj = cu_scaled(x[j], s, box), yj = cu_scaled(y[j], s, box),
                                   zj = cu_scaled(z[j], s, box);
                              cu_measure_pair(cu_dist2(xi, yi, zi, xj, yj, zj, box), p, &e, &w,
                                              h, bins, rdf_rmax2, rdf_dr);
                          }
                          return 0.0;
                      });
    }
    double etot = cu_block_sum(e, red[0]);
    double wtot = cu_block_sum(w, red[1]);
    if (threadIdx.x == 0) {
        partial[2 * ((size_t)c * nb + blockIdx.x)] = etot;
        partial[2 * ((size_t)c * nb + blockIdx.x) + 1] = wtot;
    }
}

/* Blocks per chain from n alone (about 64 rows each, at most 1024), never from the number of
 * chains on the rank: the partition fixes the summation order, and a chain's numbers must not
 * depend on which other chains share its GPU. */
static int measure_blocks(const cu_view *v)
{
    int nb = v->n / 64;
    return nb < 1 ? 1 : nb > 1024 ? 1024 : nb;
}

size_t cu_measure_scratch(const cu_view *v) { return 2 * (size_t)v->nchains * measure_blocks(v); }

template <typename real>
static int launch_measure(const cu_view *v, int nb, unsigned long long *rdf, int bins,
                          double rdf_rmax, double rdf_dr, const double *scale, mc_err *err)
{
    dim3 grid(nb, v->nchains);
    measure_kernel<real><<<grid, MEASURE_THREADS>>>(v->chains, (const real *)v->pos, v->n,
                                                    cu_pairs_of<real>(v), v->rdf_pairs, v->partial,
                                                    rdf, bins, rdf_rmax * rdf_rmax, rdf_dr, scale);
    CU_LAUNCHED(err);
    return MC_OK;
}

/* The measurement, optionally at scaled volumes; see cu_measure and cu_volume_energy. */
static int measure_scaled(const cu_view *v, double *energy, double *virial,
                          unsigned long long *rdf, int bins, double rdf_rmax, double rdf_dr,
                          const double *scale, mc_err *err)
{
    int nb = measure_blocks(v);
    MC_TRY(v->single ? launch_measure<float>(v, nb, rdf, bins, rdf_rmax, rdf_dr, scale, err)
                     : launch_measure<double>(v, nb, rdf, bins, rdf_rmax, rdf_dr, scale, err));
    const double *host = v->partial_host;
    CU_TRY(cudaMemcpy(v->partial_host, v->partial, cu_measure_scratch(v) * sizeof *host,
                      cudaMemcpyDeviceToHost), err);
    for (int c = 0; c < v->nchains; c++) {
        double e = 0.0, w = 0.0;
        for (int b = 0; b < nb; b++) { /* block order: deterministic */
            e += host[2 * ((size_t)c * nb + b)];
            w += host[2 * ((size_t)c * nb + b) + 1];
        }
        energy[c] = e;
        if (virial) virial[c] = w;
    }
    return MC_OK;
}

int cu_measure(const cu_view *v, double *energy, double *virial, unsigned long long *rdf, int bins,
               double rdf_rmax, double rdf_dr, mc_err *err)
{
    return measure_scaled(v, energy, virial, rdf, bins, rdf_rmax, rdf_dr, NULL, err);
}

int cu_volume_energy(const cu_view *v, const double *scale, double *energy, mc_err *err)
{
    return measure_scaled(v, energy, NULL, NULL, 0, 0.0, 1.0, scale, err);
}

/* Scale the positions of every chain whose scale is not 1 (one block row per chain). */
template <typename real>
__global__ void scale_kernel(const cu_chain_dev *chains, real *pos, int n, const double *scale)
{
    const int c = blockIdx.y;
    const double s = scale[c];
    if (s == 1.0) return;
    const real box = (real)(chains[c].box * s);
    real *p = pos + (size_t)c * 3 * n;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < 3 * n; k += gridDim.x * blockDim.x)
        p[k] = cu_scaled(p[k], s, box);
}

int cu_volume_scale(const cu_view *v, const double *scale, mc_err *err)
{
    dim3 grid((3 * v->n + MEASURE_THREADS - 1) / MEASURE_THREADS < 64
                  ? (3 * v->n + MEASURE_THREADS - 1) / MEASURE_THREADS : 64,
              v->nchains);
    if (v->single) scale_kernel<float><<<grid, MEASURE_THREADS>>>(v->chains, (float *)v->pos, v->n, scale);
    else scale_kernel<double><<<grid, MEASURE_THREADS>>>(v->chains, (double *)v->pos, v->n, scale);
    CU_LAUNCHED(err);
    return MC_OK;
}

/* Widom insertion, one block per chain: for each test position (mc_widom_position, as the CPU
 * draws it) the block sums the pair energies with every particle, thread 0 adds exp(-beta dU)
 * in insertion order. */
template <typename real>
__global__ void __launch_bounds__(MEASURE_THREADS)
    widom_kernel(const cu_chain_dev *chains, const real *pos, int n, cu_pairs<real> pr, int species,
                 unsigned long long seed, int insertions, unsigned long long sample, double *out)
{
    typedef typename prec<real>::params params;
    __shared__ double red[2][32];
    const cu_chain_dev *cd = &chains[blockIdx.x];
    const real box = (real)cd->box;
    const real *x = pos + (size_t)blockIdx.x * 3 * n, *y = x + n, *z = y + n;
    double sum = 0.0;
    for (int i = 0; i < insertions; i++) {
        double px, py, pz;
        mc_widom_position(seed, cd->id, sample, (uint32_t)insertions, (uint32_t)i, cd->box, &px, &py, &pz);
        double part = cu_by_species<true>(pr, species, (int)threadIdx.x, n, (int)blockDim.x, 0,
                                    [&](int j0, int j1, const params &p) {
                                        double u = 0.0;
                                        for (int j = j0; j < j1; j += blockDim.x)
                                            u += (double)prec<real>::energy(
                                                cu_dist2((real)px, (real)py, (real)pz, x[j], y[j],
                                                         z[j], box), p);
                                        return u;
                                    });
        double dU = cu_block_sum(part, red[i & 1]);
        if (threadIdx.x == 0) sum += exp(-cd->beta * dU);
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

int cu_widom_chains(const cu_view *v, int species, int insertions, long draw, double *sums,
                    mc_err *err)
{
    if (v->single)
        widom_kernel<float><<<v->nchains, MEASURE_THREADS>>>(v->chains, (const float *)v->pos, v->n,
                                                              cu_pairs_of<float>(v), species, v->seed,
                                                              insertions, draw, v->partial);
    else
        widom_kernel<double><<<v->nchains, MEASURE_THREADS>>>(v->chains, (const double *)v->pos,
                                                               v->n, cu_pairs_of<double>(v), species,
                                                               v->seed, insertions, draw, v->partial);
    CU_LAUNCHED(err);
    CU_TRY(cudaMemcpy(sums, v->partial, v->nchains * sizeof *sums, cudaMemcpyDeviceToHost), err);
    return MC_OK;
}
