/* cu_ewald: the device's structure factors of charged molecules (cu_ewald.cuh): their storage, and
 * their full recomputation from a chain's sites with the Fourier energy and molecular virial, the
 * twin of mc_rigid_host.c's add_ewald (ewald_recompute, ewald_virial, ewald_site_force_dot). One
 * block per chain; the sites go through in chunks whose phase tables the block builds in shared
 * memory, and each thread adds them, in the sites' order, to the vectors it owns: S(k) is the host's
 * to the last bit but for the device's cos and sin. Built with -fmad=false (Makefile.am). */
#include <stdlib.h>
#include <string.h>

#include "cu_check.h"
#include "cu_ewald.cuh"
#include "cu_rigid.cuh"

enum { EWALD_CHUNK_MAX = 64, EWALD_SMEM_BYTES = 40 * 1024 };

/* Sites per chunk of the recomputation: their tables and offsets in EWALD_SMEM_BYTES. */
static int chunk_of(int kmax)
{
    int chunk = EWALD_SMEM_BYTES / (int)sizeof(double) / (ewald_table_len(kmax) + 3);
    return chunk < 1 ? 1 : chunk > EWALD_CHUNK_MAX ? EWALD_CHUNK_MAX : chunk;
}

/* Chain blockIdx.x's S(k) and coefficients into s_out and coeff_out (its rows), and its Fourier
 * energy sum_k coeff |S|^2 and molecular virial (ewald_virial less each site's force . its offset
 * from its molecule's centre) into energy[chain] and virial[chain]. */
__global__ void __launch_bounds__(RIGID_THREADS)
    ewald_recompute_kernel(const rigid_chain_dev *chains, const double *pos, const double *centres,
                           const int *site_mol, cu_ewald e, int n, int nmol, int chunk, double *s_out,
                           double *coeff_out, double *energy, double *virial, const unsigned char *only)
{
    if (only && !only[blockIdx.x]) return; /* a chain whose sites did not change keeps its S(k) */
    extern __shared__ double tabs[]; /* [chunk][ewald_table_len], then the sites' offsets [chunk][3] */
    __shared__ double warp_e[32], warp_w[32];
    const int c = blockIdx.x, K = e.kmax, L = ewald_table_len(K), nk = e.nk;
    const double box = chains[c].box;
    const double *r[3] = {pos + (size_t)c * 3 * n, pos + (size_t)c * 3 * n + n, pos + (size_t)c * 3 * n + 2 * n};
    const double *centre[3] = {centres + (size_t)c * 3 * nmol, centres + (size_t)c * 3 * nmol + nmol,
                               centres + (size_t)c * 3 * nmol + 2 * nmol};
    double *S = s_out + (size_t)c * 2 * nk, *C = coeff_out + (size_t)c * nk, *off = tabs + (size_t)chunk * L;
    const double two_pi_l = 2.0 * M_PI / box, prefactor = 4.0 * M_PI * e.k_e / (box * box * box);
    const double inv_2a2 = 1.0 / (2.0 * e.alpha * e.alpha);
    for (int k = threadIdx.x; k < nk; k += blockDim.x) { /* ewald.c's coefficients */
        const int *v = e.n + 3 * k;
        const double k2 = two_pi_l * two_pi_l * (double)(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        C[k] = prefactor * exp(-k2 / (4.0 * e.alpha * e.alpha)) / k2;
        S[k] = 0.0, S[nk + k] = 0.0;
    }
    double u = 0.0, w = 0.0;
    for (int pass = 0; pass < 2; pass++) { /* S(k); then each site's force . offset from it */
        for (int i0 = 0; i0 < n; i0 += chunk) {
            __syncthreads(); /* the last chunk's tables are read */
            for (int t = threadIdx.x; t < 3 * chunk; t += blockDim.x) {
                const int j = t / 3, d = t % 3, i = i0 + j;
                if (i >= n || e.q[i] == 0.0) continue;
                ewald_axis_phases(r[d][i], box, K, ewald_axis_of(tabs + (size_t)j * L, K, d, 0),
                                  ewald_axis_of(tabs + (size_t)j * L, K, d, 1));
                if (pass == 1) off[3 * j + d] = mc_rigid_separation(r[d][i] - centre[d][site_mol[i]], box);
            }
            __syncthreads();
            const int end = i0 + chunk < n ? chunk : n - i0;
            for (int k = threadIdx.x; k < nk; k += blockDim.x) {
                const int *v = e.n + 3 * k;
                double sr = S[k], si = S[nk + k], fd = 0.0;
                for (int j = 0; j < end; j++) {
                    const double q = e.q[i0 + j];
                    if (q == 0.0) continue;
                    double cr, ci;
                    ewald_site_phase(tabs + (size_t)j * L, K, v, &cr, &ci);
                    if (pass == 0) {
                        sr += q * cr, si += q * ci;
                    } else {
                        const double kd = two_pi_l * (v[0] * off[3 * j] + v[1] * off[3 * j + 1] + v[2] * off[3 * j + 2]);
                        fd += 2.0 * q * (C[k] * kd * (sr * ci - si * cr));
                    }
                }
                if (pass == 0) S[k] = sr, S[nk + k] = si;
                w -= fd;
            }
        }
        if (pass == 0)
            for (int k = threadIdx.x; k < nk; k += blockDim.x) { /* ewald_energy and ewald_virial */
                const int *v = e.n + 3 * k;
                const double k2 = two_pi_l * two_pi_l * (double)(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                const double ek = C[k] * (S[k] * S[k] + S[nk + k] * S[nk + k]);
                u += ek, w += ek * (1.0 - k2 * inv_2a2);
            }
    }
    cu_warp_sums(u, warp_e);
    cu_warp_sums(w, warp_w);
    __syncthreads();
    if (threadIdx.x == 0) energy[c] = cu_warps_total(warp_e), virial[c] = cu_warps_total(warp_w);
}

int cu_ewald_create(cu_ewald *e, const mc_plan *p, int nchains, mc_err *err)
{
    memset(e, 0, sizeof *e);
    const ewald_kspace *ks = &p->kspace;
    const size_t C = (size_t)nchains, nk = (size_t)ks->nk;
    e->nk = ks->nk, e->kmax = ks->kmax, e->alpha = ks->alpha, e->k_e = ks->k_e;
    int *n = NULL;
    double *q = NULL;
    CU_TRY(cudaMalloc(&n, nk * 3 * sizeof(int)), err);
    e->n = n;
    CU_TRY(cudaMemcpy(n, ks->n, nk * 3 * sizeof(int), cudaMemcpyHostToDevice), err);
    CU_TRY(cudaMalloc(&q, (size_t)p->n * sizeof(double)), err);
    e->q = q;
    CU_TRY(cudaMemcpy(q, p->site_charge, (size_t)p->n * sizeof(double), cudaMemcpyHostToDevice), err);
    CU_TRY(cudaMalloc(&e->coeff, C * nk * sizeof(double)), err);
    CU_TRY(cudaMalloc(&e->s, C * 2 * nk * sizeof(double)), err);
    CU_TRY(cudaMalloc(&e->ds, C * 2 * nk * sizeof(double)), err);
    e->max_sites = p->mol.max_sites;
    return MC_OK;
}

int cu_ewald_phase_rows(cu_ewald *e, int nchains, mc_err *err)
{
    const size_t bytes = (size_t)nchains * 2 * e->max_sites * ewald_table_len(e->kmax) * sizeof(double);
    CU_TRY(cudaMalloc(&e->phase, bytes), err);
    return MC_OK;
}

void cu_ewald_free(cu_ewald *e)
{
    cudaFree((void *)e->n), cudaFree((void *)e->q), cudaFree(e->coeff), cudaFree(e->s), cudaFree(e->ds);
    cudaFree(e->phase);
    memset(e, 0, sizeof *e);
}

int cu_ewald_recompute(const cu_ewald *e, const rigid_chain_dev *chains, const double *pos, const double *centres,
                       const int *site_mol, int n, int nmol, int nchains, double *s_out, double *coeff_out,
                       double *energy, double *virial, const unsigned char *only, mc_err *err)
{
    const int chunk = chunk_of(e->kmax);
    const size_t smem = (size_t)chunk * (ewald_table_len(e->kmax) + 3) * sizeof(double);
    ewald_recompute_kernel<<<nchains, RIGID_THREADS, smem>>>(chains, pos, centres, site_mol, *e, n, nmol, chunk, s_out,
                                                             coeff_out, energy, virial, only);
    CU_LAUNCHED(err);
    return MC_OK;
}
