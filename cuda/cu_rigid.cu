/* cu_rigid: molecules on the GPU (the CUDA backend's path for plan->rigid), under the same
 * contract as the CPU backend's molecule moves: after `moves` moves a chain is the CPU chain, draw
 * for draw. Many chains: one resident block per chain; per move thread 0 draws the trial
 * (mc_rigid.h) and places the moved molecule's sites in shared memory, every thread sums the energy
 * change over its share of the other sites (energy decomposition over sites), and thread 0
 * decides. A few chains (fewer than the GPU has SMs) of many molecules (at least 4 K) take cu_rigid_batch.cu's batched trials instead, K trials of a chain evaluated over the
 * whole GPU at once (rigid_batch_setup chooses). Positions, centres,
 * orientations and every sum are double; with precision = single each site pair's energy is
 * evaluated in float (the atomic kernels' convention), and the full recomputation of energy and
 * virial (rigid_measure_kernel) evaluates the same float terms, so the drift check keeps its
 * 1e-9 limit in both precisions. In double the kernels are the CPU's arithmetic.
 *
 * Built with -fmad=false (Makefile.am): the site placement is sums of products, which nvcc would
 * otherwise fuse into FMAs that the host does not use, and the moved sites would then differ from
 * the CPU's in the last bit.
 *
 * A sample is taken on the device too: rigid_measure_kernel also bins the RDF (site pairs and
 * centres) and adds an open cluster's Lindemann sums, which stay on the device until
 * cu_rigid_fetch_sums. Widom test molecules and the scaling of an npt trial volume run on the host
 * from fetched positions through mc_rigid_host, the CPU's own code (the trial volume's energy then
 * on the device): a volume move costs a fetch, a scaling and an upload per chain and sweep. */
#include <stdlib.h>
#include <string.h>

#include "cu_check.h"
#include "cu_device.h"
#include "cu_ewald.cuh"
#include "cu_rigid.cuh"
#include "cu_rigid.h"
#include "mc_rigid_host.h"
#include "mc_test_hooks.h"

enum { RIGID_MEASURE_PARTS_MAX = 64 }; /* a sample's blocks per chain at most */

struct cu_rigid {
    const mc_plan *plan;
    mc_chain **chains;
    int nchains, n, nmol;
    rigid_consts k;
    rigid_chain_dev *d_chains, *h_chains;
    double *d_pos, *d_centre, *d_quat; /* [chain][3][n], [chain][3][nmol], [chain][nmol][4] */
    double *h_pos, *h_centre;          /* pinned staging */
    int *d_first, *d_site_mol;
    unsigned char *d_species;
    double *d_body;
    double *d_energy, *d_virial, *h_energy, *h_virial; /* [chain] full recomputations */
    double *h_parts;                   /* [2][chain][measure_parts]: their blocks' sums */
    int measure_parts;                 /* the measurement kernel's blocks per chain */
    /* npt: the chains scaled to their trial volumes, on the host (pinned) and the device */
    double *h_trial_pos, *h_trial_centre, *d_trial_pos, *d_trial_centre, *h_trial_quat;
    rigid_chain_dev *h_trial_chains, *d_trial_chains;
    size_t smem;                       /* the resident kernel's dynamic shared bytes */
    int staged;                        /* the sites (and species) there, else read from global (L1/L2) */
    long tabs_at;                      /* charges: the byte offset there of a move's phase tables; -1: e.phase */
    rigid_batch batch;                 /* the batched path; batch.trials == 0: the resident kernel */
    int single;                        /* pair terms in float */
    /* charges (plan->charged): the site pairs' Coulomb terms in the kernels (coulomb), and with
     * the Ewald sum (plan->ewald) its Fourier part through cu_ewald.cuh (kspace): each chain's S(k)
     * (ew.s), a trial volume's (d_trial_s) */
    int coulomb, kspace;
    cu_ewald ew;
    unsigned char *d_changed; /* kspace: [nchains] the chains whose S(k) an upload recomputes */
    unsigned char *h_changed; /* [nchains] the host's mask of the chains a swap or volume step changed */
    double *d_trial_s, *d_trial_coeff;
    double *d_fourier, *h_fourier;     /* [2][chain]: the Fourier energies, then virials, of a recomputation */
    ewald_sums h_ewald;                /* a chain's S(k) on the host, for its Widom test molecules */
    /* samples on the device: a sample's RDF counts (copied to the host chains at once), and an
     * open cluster's per-pair Lindemann sums (kept here; brought back by cu_rigid_fetch_sums) */
    unsigned long long *d_rdf, *h_rdf; /* [chain][rows][bins] */
    int rdf_rows;                      /* the species pairs and the centres */
    double *d_lindemann;               /* [chain][2][lindemann_pairs]: sums of r and r^2; NULL: none */
    size_t lindemann_pairs;            /* nmol (nmol - 1) / 2 */
};

/* What a sample adds on the device, binned as mc_rigid_measure bins it (this file is built with
 * -fmad=false, so r^2 and r are the host's to the bit); counts == NULL: no sample. */
typedef struct rigid_sample {
    unsigned long long *counts; /* [chain][rows][bins] */
    int bins, rows, nspecies;
    double rmax, rmax2, dr;
    double *lindemann;          /* [chain][2][pairs], or NULL */
    size_t pairs;
} rigid_sample;

/* The change of S(k) of vector k when the sites with charges q[0..ns) move from the tables tabs[0..ns)
 * to tabs[ns..2 ns) (ewald.c's ewald_move_change, the sites in their order). */
__device__ inline void vector_move_change(const cu_ewald &e, int k, int ns, const double *q, const double *tabs,
                                          double *dr, double *di)
{
    const int K = e.kmax, L = ewald_table_len(K), *v = e.n + 3 * k;
    double r = 0.0, i = 0.0;
    for (int s = 0; s < ns; s++) {
        if (q[s] == 0.0) continue;
        double o_r, o_i, n_r, n_i;
        ewald_site_phase(tabs + s * L, K, v, &o_r, &o_i);
        ewald_site_phase(tabs + (ns + s) * L, K, v, &n_r, &n_i);
        r += q[s] * (n_r - o_r);
        i += q[s] * (n_i - o_i);
    }
    *dr = r, *di = i;
}

/* The phase tables of a move's sites, [f0, f0 + ns) from old to nw, into tabs (the old sites', then
 * the moved), and their charges into q: a thread per site and axis, from the block's last warp, so
 * that the first (whose thread 0 drew the trial) and the others go on to their share of the site
 * pairs. The caller's barrier follows. */
__device__ inline void fourier_tables(const cu_ewald &e, int f0, int ns, const double *old, const double *nw,
                                      double box, double *tabs, double *q)
{
    const int K = e.kmax, L = ewald_table_len(K), t = (int)threadIdx.x - ((int)blockDim.x - 32);
    for (int u = t; u >= 0 && u < 6 * ns; u += 32) {
        const int slot = u / 3, d = u % 3;
        const double r = slot < ns ? old[3 * slot + d] : nw[3 * (slot - ns) + d];
        ewald_axis_phases(r, box, K, ewald_axis_of(tabs + slot * L, K, d, 0), ewald_axis_of(tabs + slot * L, K, d, 1));
        if (u < ns) q[u] = e.q[f0 + u];
    }
}

/* The change of the Ewald sum's Fourier part of a move (the tables built, after a barrier) over this
 * thread's vectors, whose changes of S(k) it leaves in ds: ewald.c's ewald_move_change and
 * energy_change, vector by vector. */
__device__ inline double fourier_move_part(const cu_ewald &e, int ns, const double *tabs, const double *q,
                                           const double *S, const double *coeff, double *ds)
{
    double part = 0.0;
    for (int k = threadIdx.x; k < e.nk; k += blockDim.x) {
        double dr, di;
        vector_move_change(e, k, ns, q, tabs, &dr, &di);
        ds[k] = dr, ds[e.nk + k] = di;
        part += ewald_vector_change(coeff[k], S[k], S[e.nk + k], dr, di);
    }
    return part;
}

/* An accepted move's change of S(k) taken, over this thread's vectors (their changes are its own). */
__device__ inline void fourier_accept(const cu_ewald &e, double *S, const double *ds)
{
    for (int k = threadIdx.x; k < e.nk; k += blockDim.x) S[k] += ds[k], S[e.nk + k] += ds[e.nk + k];
}

/* The resident kernel: one block per chain, `moves` moves. staged: the chain's sites (and their
 * species) in dynamic shared memory; tabs_at: the byte offset there of the phase tables of a
 * move's sites (charges), or -1 for the chain's rows of e.phase. A chain's S(k) stays in device
 * memory: holding each thread's vectors in registers instead cost occupancy and was slower
 * (doc/performance.md version 44). */
template <typename real, bool coulomb, bool kspace>
__global__ void __launch_bounds__(RIGID_THREADS)
    rigid_sweep_kernel(rigid_chain_dev *chains, double *pos, double *centres, double *quats, rigid_tables t,
                       rigid_consts k, int n, int nmol, long long moves, int staged, cu_ewald e, long tabs_at)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double old[3 * MC_MAX_SITES], nw[3 * MC_MAX_SITES], nc[3], warp_sum[32], wall_dE, qs[MC_MAX_SITES];
    __shared__ unsigned char spec[MC_MAX_SITES];
    __shared__ mc_rigid_trial tr;
    __shared__ mc_quat nq;
    __shared__ int took; /* charges: the last move was accepted, and its change of S(k) is to be taken */
    double *S = NULL, *ds = NULL, *tabs = NULL;
    const double *coeff = NULL;
    if constexpr (kspace) {
        S = e.s + (size_t)blockIdx.x * 2 * e.nk, ds = e.ds + (size_t)blockIdx.x * 2 * e.nk;
        coeff = e.coeff + (size_t)blockIdx.x * e.nk;
        tabs = tabs_at >= 0 ? (double *)(smem + tabs_at)
                            : e.phase + (size_t)blockIdx.x * 2 * e.max_sites * ewald_table_len(e.kmax);
    }
    if (threadIdx.x == 0) took = 0;
    rigid_chain_dev *cd = &chains[blockIdx.x];
    double *g = pos + (size_t)blockIdx.x * 3 * n;
    double *centre = centres + (size_t)blockIdx.x * 3 * nmol, *quat = quats + (size_t)blockIdx.x * 4 * nmol;
    double *x = staged ? (double *)smem : g;
    unsigned char *species = staged ? smem + 3 * (size_t)n * sizeof(double) : (unsigned char *)t.species;
    if (staged) {
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) x[j] = g[j];
        for (int j = threadIdx.x; j < n; j += blockDim.x) species[j] = t.species[j];
    }
    double *y = x + n, *z = y + n;
    for (long long mv = 0; mv < moves; mv++) {
        __syncthreads(); /* the last move's sites are written */
        if (kspace && took) fourier_accept(e, S, ds);
        if (threadIdx.x == 0)
            rigid_trial(cd, cd->step, t, k, nmol, x, y, z, centre, quat, &tr, old, nw, spec, nc, &nq, &wall_dE);
        __syncthreads();
        int m = (int)tr.molecule, f0 = t.first[m], ns = t.first[m + 1] - f0;
        if (kspace) fourier_tables(e, f0, ns, old, nw, cd->box, tabs, qs);
        double part = rigid_energy_part<real, coulomb>(x, y, z, species, 0, n, f0, ns, old, nw, spec, cd->box, k);
        if (kspace) {
            __syncthreads(); /* the tables are built */
            part += fourier_move_part(e, ns, tabs, qs, S, coeff, ds);
        }
        for (int off = 16; off > 0; off >>= 1) part += __shfl_down_sync(0xffffffffu, part, off);
        if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = part;
        __syncthreads();
        if (threadIdx.x != 0) continue;
        double dE = 0.0;
        for (int w = 0; w < (int)(blockDim.x >> 5); w++) dE += warp_sum[w]; /* fixed order */
        dE += wall_dE;
        unsigned long long step = cd->step++;
        cd->rotations += tr.rotate;
        took = mc_metropolis_accept(dE, cd->beta, k.seed, cd->id, step); /* read after the next barrier */
        if (!took) continue;
        for (int s = 0; s < ns; s++) x[f0 + s] = nw[3 * s], y[f0 + s] = nw[3 * s + 1], z[f0 + s] = nw[3 * s + 2];
        centre[m] = nc[0], centre[nmol + m] = nc[1], centre[2 * nmol + m] = nc[2];
        quat[4 * m] = nq.w, quat[4 * m + 1] = nq.x, quat[4 * m + 2] = nq.y, quat[4 * m + 3] = nq.z;
        cd->energy += dE;
        cd->accepted++;
        cd->rotations_accepted += tr.rotate;
    }
    __syncthreads();
    if (kspace && took) fourier_accept(e, S, ds);
    if (staged)
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) g[j] = x[j];
}

/* Full recomputation, gridDim.x blocks per chain (blockIdx.y): every intermolecular site pair
 * once (site i with the sites of later molecules; block p takes partners p, p + gridDim.x, ...
 * of every row) in the run's pair precision, the wall, and the molecular virial sum_ab (r_ab .
 * F_ab)(r_ab . R_IJ) / r_ab^2 (periodic only), into energy[chain][p] and virial[chain][p] (the
 * host adds the blocks' in order). Thread partial sums, then the warps' in a fixed order:
 * deterministic. The CPU's twin is mc_rigid_measure (equal to 1e-10 in double:
 * t/gpu_parity.c). A few chains take many blocks each, so that a sample of one chain is not one
 * SM's work. */
template <typename real, bool coulomb>
__global__ void __launch_bounds__(RIGID_THREADS)
    rigid_measure_kernel(const rigid_chain_dev *chains, const double *pos, const double *centres, rigid_tables t,
                         rigid_consts k, int n, int nmol, double *energy, double *virial, rigid_sample smp)
{
    __shared__ double warp_e[32], warp_w[32];
    const int c = blockIdx.y, part = blockIdx.x, parts = gridDim.x;
    double box = chains[c].box;
    const double *x = pos + (size_t)c * 3 * n, *y = x + n, *z = y + n;
    const double *cx = centres + (size_t)c * 3 * nmol, *cy = cx + nmol, *cz = cy + nmol;
    unsigned long long *counts = smp.counts ? smp.counts + (size_t)c * smp.rows * smp.bins : NULL;
    double e = 0.0, w = 0.0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        int a = t.species[i], mi = t.site_mol[i];
        for (int j = t.first[mi + 1] + part; j < n; j += parts) {
            int b = t.species[j], mj = t.site_mol[j];
            double dx = mc_rigid_separation(x[i] - x[j], box), dy = mc_rigid_separation(y[i] - y[j], box),
                   dz = mc_rigid_separation(z[i] - z[j], box);
            double r2 = dx * dx + dy * dy + dz * dz;
            e += rigid_pair_energy<real, coulomb>(r2, a, b, k);
            if (box > 0 && r2 > 0) {
                double Rx = mc_rigid_pair_image(mc_rigid_separation(cx[mi] - cx[mj], box), dx, box),
                       Ry = mc_rigid_pair_image(mc_rigid_separation(cy[mi] - cy[mj], box), dy, box),
                       Rz = mc_rigid_pair_image(mc_rigid_separation(cz[mi] - cz[mj], box), dz, box);
                w += rigid_pair_virial<real, coulomb>(r2, a, b, k) * (dx * Rx + dy * Ry + dz * Rz) / r2;
            }
            if (counts && r2 < smp.rmax2) { /* integer counts: any order adds exactly */
                int bin = (int)(sqrt(r2) / smp.dr);
                if (bin < smp.bins) atomicAdd(&counts[(size_t)mc_pair_index(a, b, smp.nspecies) * smp.bins + bin], 1ull);
            }
        }
    }
    if (counts) { /* the centres' row; an open cluster's Lindemann sums, each pair's by one thread */
        unsigned long long *row = counts + (size_t)(smp.rows - 1) * smp.bins;
        double *lr = smp.lindemann ? smp.lindemann + (size_t)c * 2 * smp.pairs : NULL;
        for (int i = threadIdx.x; i < nmol - 1; i += blockDim.x) {
            size_t q = (size_t)i * nmol - (size_t)i * (i + 1) / 2 + part; /* pair (i, i + 1 + part) in row order */
            for (int j = i + 1 + part; j < nmol; j += parts, q += parts) {
                double dx = mc_rigid_separation(cx[i] - cx[j], box), dy = mc_rigid_separation(cy[i] - cy[j], box),
                       dz = mc_rigid_separation(cz[i] - cz[j], box);
                double r = sqrt(dx * dx + dy * dy + dz * dz);
                if (lr) lr[q] += r, lr[smp.pairs + q] += r * r;
                int bin = (int)(r / smp.dr);
                if (r < smp.rmax && bin < smp.bins) atomicAdd(&row[bin], 1ull);
            }
        }
    }
    for (int m = threadIdx.x; part == 0 && m < nmol; m += blockDim.x)
        e += mc_wall_energy(cx[m], cy[m], cz[m], k.wall_radius, k.wall_strength);
    cu_warp_sums(e, warp_e);
    cu_warp_sums(w, warp_w);
    __syncthreads();
    if (threadIdx.x == 0)
        energy[(size_t)c * parts + part] = cu_warps_total(warp_e), virial[(size_t)c * parts + part] = cu_warps_total(warp_w);
}

unsigned char *cu_rigid_changed_mask(cu_rigid *b)
{
    memset(b->h_changed, 0, (size_t)b->nchains);
    return b->h_changed;
}

int cu_rigid_upload(cu_rigid *b, int positions, const unsigned char *changed, mc_err *err)
{
    for (int k = 0; k < b->nchains; k++) {
        const mc_chain *c = b->chains[k];
        rigid_chain_dev *d = &b->h_chains[k];
        d->box = c->box_len, d->beta = c->beta, d->max_displacement = mc_chain_step(c);
        d->max_rotation = c->max_rotation, d->energy = c->energy_pair, d->step = c->step;
        d->accepted = c->accepted, d->rotations = c->rotations, d->rotations_accepted = c->rotations_accepted;
        d->id = (unsigned)c->id;
        if (!positions) continue;
        size_t n = (size_t)b->n, M = (size_t)b->nmol;
        memcpy(b->h_pos + k * 3 * n, c->x, n * sizeof(double));
        memcpy(b->h_pos + k * 3 * n + n, c->y, n * sizeof(double));
        memcpy(b->h_pos + k * 3 * n + 2 * n, c->z, n * sizeof(double));
        memcpy(b->h_centre + k * 3 * M, c->cx, M * sizeof(double));
        memcpy(b->h_centre + k * 3 * M + M, c->cy, M * sizeof(double));
        memcpy(b->h_centre + k * 3 * M + 2 * M, c->cz, M * sizeof(double));
    }
    CU_TRY(cudaMemcpy(b->d_chains, b->h_chains, b->nchains * sizeof *b->h_chains, cudaMemcpyHostToDevice), err);
    if (!positions) return MC_OK;
    size_t n = (size_t)b->n, M = (size_t)b->nmol;
    CU_TRY(cudaMemcpy(b->d_pos, b->h_pos, b->nchains * 3 * n * sizeof(double), cudaMemcpyHostToDevice), err);
    CU_TRY(cudaMemcpy(b->d_centre, b->h_centre, b->nchains * 3 * M * sizeof(double), cudaMemcpyHostToDevice), err);
    for (int k = 0; k < b->nchains; k++)
        CU_TRY(cudaMemcpy(b->d_quat + k * 4 * M, b->chains[k]->q, 4 * M * sizeof(double), cudaMemcpyHostToDevice), err);
    if (!b->kspace) return MC_OK;
    /* the changed chains' new sites (a volume move, an exchange, a restored state): their S(k),
     * those alone, as the CPU backend recomputes them there; another chain's S(k), recomputed,
     * would differ from its running one in the last bits, which would then depend on whether
     * some chain of its rank changed, that is on how the chains are spread over ranks */
    if (changed) CU_TRY(cudaMemcpy(b->d_changed, changed, b->nchains, cudaMemcpyHostToDevice), err);
    return cu_ewald_recompute(&b->ew, b->d_chains, b->d_pos, b->d_centre, b->d_site_mol, b->n, b->nmol, b->nchains,
                              b->ew.s, b->ew.coeff, b->d_fourier, b->d_fourier + b->nchains,
                              changed ? b->d_changed : NULL, err);
}

/* The resident sweep kernel of the run's precision and charges. */
template <typename real, bool coulomb, bool kspace>
static void sweep_launch(cu_rigid *b, const rigid_tables &t, long long moves)
{
    rigid_sweep_kernel<real, coulomb, kspace><<<b->nchains, RIGID_THREADS, b->smem>>>(
        b->d_chains, b->d_pos, b->d_centre, b->d_quat, t, b->k, b->n, b->nmol, moves, b->staged, b->ew, b->tabs_at);
}

/* `moves` moves of every chain by the resident kernel, one block per chain. */
static int resident_sweep(cu_rigid *b, const rigid_tables &t, long long moves, mc_err *err)
{
    if (b->kspace)
        b->single ? sweep_launch<float, true, true>(b, t, moves) : sweep_launch<double, true, true>(b, t, moves);
    else if (b->coulomb)
        b->single ? sweep_launch<float, true, false>(b, t, moves) : sweep_launch<double, true, false>(b, t, moves);
    else
        b->single ? sweep_launch<float, false, false>(b, t, moves) : sweep_launch<double, false, false>(b, t, moves);
    CU_LAUNCHED(err);
    return MC_OK;
}

int cu_rigid_sweep(cu_rigid *b, long nsweeps, mc_err *err)
{
    MC_TRY(cu_rigid_upload(b, 0, NULL, err)); /* steps adapted on the host, energy reset by a measurement */
    rigid_tables t = {b->d_first, b->d_species, b->d_body, b->d_site_mol};
    long long moves = (long long)nsweeps * b->nmol;
    if (b->batch.trials)
        MC_TRY(rigid_batch_sweep(&b->batch, b->d_chains, b->d_pos, b->d_centre, b->d_quat, t, b->k, b->n, b->nmol,
                                 b->nchains, moves, b->single, err));
    else
        MC_TRY(resident_sweep(b, t, moves, err));
    CU_TRY(cudaMemcpy(b->h_chains, b->d_chains, b->nchains * sizeof *b->h_chains, cudaMemcpyDeviceToHost), err);
    for (int k = 0; k < b->nchains; k++) {
        mc_chain *c = b->chains[k];
        const rigid_chain_dev *d = &b->h_chains[k];
        c->step = d->step, c->accepted = d->accepted, c->energy_pair = d->energy;
        c->rotations = d->rotations, c->rotations_accepted = d->rotations_accepted;
    }
    return MC_OK;
}

template <typename real, bool coulomb>
static void measure_launch(cu_rigid *b, const rigid_chain_dev *chains, const double *pos, const double *centres,
                           rigid_sample smp)
{
    rigid_tables t = {b->d_first, b->d_species, b->d_body, b->d_site_mol};
    const dim3 grid(b->measure_parts, b->nchains);
    rigid_measure_kernel<real, coulomb><<<grid, RIGID_THREADS>>>(chains, pos, centres, t, b->k, b->n, b->nmol,
                                                                 b->d_energy, b->d_virial, smp);
}

/* Energy and virial of the chains at (chains, pos, centres) on the device, into h_energy and
 * h_virial; with charges also their structure factors and coefficients into s_out and coeff_out,
 * and the Fourier energy and virial and the Ewald sum's constant added as mc_rigid_measure adds
 * them. */
static int measure_kernel(cu_rigid *b, const rigid_chain_dev *chains, const double *pos, const double *centres,
                          rigid_sample smp, double *s_out, double *coeff_out, mc_err *err)
{
    const int P = b->measure_parts;
    if (b->coulomb)
        b->single ? measure_launch<float, true>(b, chains, pos, centres, smp)
                  : measure_launch<double, true>(b, chains, pos, centres, smp);
    else
        b->single ? measure_launch<float, false>(b, chains, pos, centres, smp)
                  : measure_launch<double, false>(b, chains, pos, centres, smp);
    CU_LAUNCHED(err);
    const size_t C = (size_t)b->nchains;
    if (b->kspace) {
        MC_TRY(cu_ewald_recompute(&b->ew, chains, pos, centres, b->d_site_mol, b->n, b->nmol, b->nchains, s_out,
                                  coeff_out, b->d_fourier, b->d_fourier + C, NULL, err));
        CU_TRY(cudaMemcpy(b->h_fourier, b->d_fourier, 2 * C * sizeof(double), cudaMemcpyDeviceToHost), err);
    }
    CU_TRY(cudaMemcpy(b->h_parts, b->d_energy, C * P * sizeof(double), cudaMemcpyDeviceToHost), err);
    CU_TRY(cudaMemcpy(b->h_parts + C * P, b->d_virial, C * P * sizeof(double), cudaMemcpyDeviceToHost), err);
    for (size_t k = 0; k < C; k++) { /* the blocks' sums in order */
        double E = b->h_parts[k * P], W = b->h_parts[(C + k) * P];
        for (int p = 1; p < P; p++) E += b->h_parts[k * P + p], W += b->h_parts[(C + k) * P + p];
        if (b->kspace) E += b->h_fourier[k] + b->plan->coulomb_constant, W += b->h_fourier[C + k];
        else if (b->coulomb) E += b->plan->coulomb_constant; /* coulomb = dsf: the pair terms' constants */
        b->h_energy[k] = E, b->h_virial[k] = W;
    }
    return MC_OK;
}

static const rigid_sample no_sample = {NULL, 0, 0, 0, 0.0, 0.0, 0.0, NULL, 0};

static int measure_on_device(cu_rigid *b, rigid_sample smp, mc_err *err)
{
    MC_TRY(cu_rigid_upload(b, 0, NULL, err)); /* the boxes, after a volume move */
    return measure_kernel(b, b->d_chains, b->d_pos, b->d_centre, smp, b->ew.s, b->ew.coeff, err);
}

int cu_rigid_volume_energy(cu_rigid *b, const double *scale, double *energy, mc_err *err)
{
    MC_TRY(cu_rigid_fetch(b, err));
    size_t n = (size_t)b->n, M = (size_t)b->nmol;
    for (int k = 0; k < b->nchains; k++) {
        const mc_chain *c = b->chains[k];
        mc_chain trial = *c; /* its arrays: this chain's rows of the trial staging */
        trial.x = b->h_trial_pos + k * 3 * n, trial.y = trial.x + n, trial.z = trial.y + n;
        trial.cx = b->h_trial_centre + k * 3 * M, trial.cy = trial.cx + M, trial.cz = trial.cy + M;
        trial.q = b->h_trial_quat;
        mc_rigid_scale(b->plan, c, scale[k], &trial); /* the host's arithmetic, as volume_apply's */
        b->h_trial_chains[k] = b->h_chains[k];
        b->h_trial_chains[k].box = trial.box_len;
    }
    size_t C = (size_t)b->nchains;
    CU_TRY(cudaMemcpy(b->d_trial_pos, b->h_trial_pos, C * 3 * n * sizeof(double), cudaMemcpyHostToDevice), err);
    CU_TRY(cudaMemcpy(b->d_trial_centre, b->h_trial_centre, C * 3 * M * sizeof(double), cudaMemcpyHostToDevice), err);
    CU_TRY(cudaMemcpy(b->d_trial_chains, b->h_trial_chains, C * sizeof *b->h_trial_chains, cudaMemcpyHostToDevice), err);
    MC_TRY(measure_kernel(b, b->d_trial_chains, b->d_trial_pos, b->d_trial_centre, no_sample, b->d_trial_s,
                          b->d_trial_coeff, err));
    for (int k = 0; k < b->nchains; k++)
        if (scale[k] != 1.0) energy[k] = b->h_energy[k];
    return MC_OK;
}

int cu_rigid_measure(cu_rigid *b, int add_sample, mc_measurement *out, mc_err *err)
{
    const mc_plan *p = b->plan;
    rigid_sample smp = no_sample;
    size_t row = (size_t)b->rdf_rows * p->rdf_bins;
    if (add_sample) {
        smp = {b->d_rdf, p->rdf_bins, b->rdf_rows, p->species.n, p->rdf_rmax, p->rdf_rmax * p->rdf_rmax,
               p->rdf_dr, b->d_lindemann, b->lindemann_pairs};
        CU_TRY(cudaMemset(b->d_rdf, 0, b->nchains * row * sizeof *b->d_rdf), err);
    }
    MC_TRY(measure_on_device(b, smp, err));
    for (int k = 0; k < b->nchains; k++) {
        out[k].energy_pair = b->h_energy[k];
        out[k].virial_pair = b->h_virial[k];
        out[k].energy_pair_running = b->chains[k]->energy_pair;
        b->chains[k]->energy_pair = b->h_energy[k]; /* restart from the exact value (uploaded with the next sweep) */
    }
    if (!add_sample) return MC_OK;
    CU_TRY(cudaMemcpy(b->h_rdf, b->d_rdf, b->nchains * row * sizeof *b->h_rdf, cudaMemcpyDeviceToHost), err);
    for (int k = 0; k < b->nchains; k++) {
        mc_chain *c = b->chains[k];
        for (size_t q = 0; q < row; q++) c->rdf_counts[q] += b->h_rdf[k * row + q];
        mc_chain_add_rdf_sample(c, p);
    }
    return MC_OK;
}

int cu_rigid_widom(cu_rigid *b, int type, int insertions, long draw, double *sums, mc_err *err)
{
    MC_TRY(cu_rigid_fetch(b, err));
    const size_t nk = b->kspace ? (size_t)b->plan->kspace.nk : 0;
    for (int k = 0; k < b->nchains; k++) {
        mc_chain *c = b->chains[k];
        if (b->kspace) { /* the chain's S(k) as the device keeps it (coeff, re and im lie in a row: ewald.c) */
            CU_TRY(cudaMemcpy(b->h_ewald.coeff, b->ew.coeff + k * nk, nk * sizeof(double), cudaMemcpyDeviceToHost), err);
            CU_TRY(cudaMemcpy(b->h_ewald.re, b->ew.s + k * 2 * nk, 2 * nk * sizeof(double), cudaMemcpyDeviceToHost), err);
            b->h_ewald.box = c->box_len;
        }
        sums[k] = mc_rigid_widom_sum(b->plan, c, type, insertions, draw, b->kspace ? &b->h_ewald : NULL);
    }
    return MC_OK;
}

int cu_rigid_fetch_sums(cu_rigid *b, mc_err *err)
{
    const size_t P = b->lindemann_pairs;
    for (int k = 0; b->d_lindemann && k < b->nchains; k++) {
        mc_chain *c = b->chains[k];
        CU_TRY(cudaMemcpy(c->lindemann_r, b->d_lindemann + k * 2 * P, P * sizeof(double), cudaMemcpyDeviceToHost), err);
        CU_TRY(cudaMemcpy(c->lindemann_r2, b->d_lindemann + (k * 2 + 1) * P, P * sizeof(double), cudaMemcpyDeviceToHost),
               err);
    }
    return MC_OK;
}

int cu_rigid_fetch(cu_rigid *b, mc_err *err)
{
    size_t n = (size_t)b->n, M = (size_t)b->nmol;
    CU_TRY(cudaMemcpy(b->h_pos, b->d_pos, b->nchains * 3 * n * sizeof(double), cudaMemcpyDeviceToHost), err);
    CU_TRY(cudaMemcpy(b->h_centre, b->d_centre, b->nchains * 3 * M * sizeof(double), cudaMemcpyDeviceToHost), err);
    for (int k = 0; k < b->nchains; k++) {
        mc_chain *c = b->chains[k];
        memcpy(c->x, b->h_pos + k * 3 * n, n * sizeof(double));
        memcpy(c->y, b->h_pos + k * 3 * n + n, n * sizeof(double));
        memcpy(c->z, b->h_pos + k * 3 * n + 2 * n, n * sizeof(double));
        memcpy(c->cx, b->h_centre + k * 3 * M, M * sizeof(double));
        memcpy(c->cy, b->h_centre + k * 3 * M + M, M * sizeof(double));
        memcpy(c->cz, b->h_centre + k * 3 * M + 2 * M, M * sizeof(double));
        CU_TRY(cudaMemcpy(c->q, b->d_quat + k * 4 * M, 4 * M * sizeof(double), cudaMemcpyDeviceToHost), err);
    }
    return MC_OK;
}

const char *cu_rigid_path(const cu_rigid *b) { return b->batch.trials ? "molecules-batched" : "molecules-resident"; }

void cu_rigid_destroy(cu_rigid *b)
{
    if (!b) return;
    cudaFree(b->d_chains), cudaFree(b->d_pos), cudaFree(b->d_centre), cudaFree(b->d_quat);
    cudaFree(b->d_first), cudaFree(b->d_species), cudaFree(b->d_body), cudaFree(b->d_site_mol);
    cudaFree(b->d_energy), cudaFree(b->d_virial);
    free(b->h_energy), free(b->h_virial), free(b->h_parts);
    cudaFree(b->d_rdf), cudaFreeHost(b->h_rdf), cudaFree(b->d_lindemann);
    cudaFree(b->d_trial_pos), cudaFree(b->d_trial_centre), cudaFree(b->d_trial_chains);
    cudaFreeHost(b->h_trial_pos), cudaFreeHost(b->h_trial_centre);
    free(b->h_trial_chains), free(b->h_trial_quat);
    cudaFreeHost(b->h_pos), cudaFreeHost(b->h_centre);
    free(b->h_chains), free(b->h_changed);
    rigid_batch_free(&b->batch);
    cu_ewald_free(&b->ew);
    cudaFree(b->d_changed);
    ewald_sums_free(&b->h_ewald);
    cudaFree(b->d_trial_s), cudaFree(b->d_trial_coeff), cudaFree(b->d_fourier), free(b->h_fourier);
    free(b);
}

static int rigid_tables_upload(cu_rigid *b, mc_err *err)
{
    const mc_molecules *mol = &b->plan->mol;
    unsigned char *species = (unsigned char *)malloc((size_t)b->n);
    if (!species) MC_FAIL(err, MC_ENOMEM, "out of memory");
    for (int i = 0; i < b->n; i++) species[i] = (unsigned char)mol->site_species[i];
    cudaError_t rc = cudaMemcpy(b->d_species, species, (size_t)b->n, cudaMemcpyHostToDevice);
    free(species);
    CU_TRY(rc, err);
    CU_TRY(cudaMemcpy(b->d_first, mol->first, (b->nmol + 1) * sizeof(int), cudaMemcpyHostToDevice), err);
    CU_TRY(cudaMemcpy(b->d_body, mol->site_body, 3 * (size_t)b->n * sizeof(double), cudaMemcpyHostToDevice), err);
    CU_TRY(cudaMemcpy(b->d_site_mol, mol->site_mol, (size_t)b->n * sizeof(int), cudaMemcpyHostToDevice), err);
    return MC_OK;
}

static int rigid_setup(cu_rigid *b, mc_err *err)
{
    const mc_plan *p = b->plan;
    size_t n = (size_t)b->n, M = (size_t)b->nmol, C = (size_t)b->nchains;
    memcpy(b->k.pair, p->species.pair, sizeof b->k.pair);
    for (int a = 0; a < MC_MAX_SPECIES; a++)
        for (int c = 0; c < MC_MAX_SPECIES; c++) b->k.pair_f[a][c] = prec<float>::make(p->species.pair[a][c]);
    memcpy(b->k.hard_core2, p->mol.hard_core2, sizeof b->k.hard_core2);
    b->k.wall_radius = p->wall_radius, b->k.wall_strength = p->wall_strength, b->k.seed = p->seed;
    b->h_chains = (rigid_chain_dev *)calloc(C, sizeof *b->h_chains);
    b->h_changed = (unsigned char *)calloc(C, 1);
    if (!b->h_chains || !b->h_changed) MC_FAIL(err, MC_ENOMEM, "out of memory");
    CU_TRY(cudaMalloc(&b->d_chains, C * sizeof *b->d_chains), err);
    CU_TRY(cudaMalloc(&b->d_pos, C * 3 * n * sizeof(double)), err);
    CU_TRY(cudaMalloc(&b->d_centre, C * 3 * M * sizeof(double)), err);
    CU_TRY(cudaMalloc(&b->d_quat, C * 4 * M * sizeof(double)), err);
    CU_TRY(cudaMalloc(&b->d_first, (M + 1) * sizeof(int)), err);
    CU_TRY(cudaMalloc(&b->d_species, n), err);
    CU_TRY(cudaMalloc(&b->d_body, 3 * n * sizeof(double)), err);
    CU_TRY(cudaMalloc(&b->d_site_mol, n * sizeof(int)), err);
    int max_optin = 0, sm_count = 0;
    MC_TRY(cu_shape_gpu(p, &sm_count, &max_optin, err));
    /* a sample's blocks per chain: ceil(2 x SMs / the run's chains) (the run's, not the rank's, so
     * that the sums' grouping, and their last bits, do not depend on the rank count), at most 64
     * (one chain: 64 blocks); one each from 2 x SMs chains */
    b->measure_parts = (2 * sm_count + p->nchains - 1) / p->nchains;
    if (b->measure_parts > RIGID_MEASURE_PARTS_MAX) b->measure_parts = RIGID_MEASURE_PARTS_MAX;
    const size_t P = (size_t)b->measure_parts;
    CU_TRY(cudaMalloc(&b->d_energy, C * P * sizeof(double)), err);
    CU_TRY(cudaMalloc(&b->d_virial, C * P * sizeof(double)), err);
    b->h_energy = (double *)calloc(C, sizeof(double));
    b->h_virial = (double *)calloc(C, sizeof(double));
    b->h_parts = (double *)calloc(2 * C * P, sizeof(double));
    if (!b->h_energy || !b->h_virial || !b->h_parts) MC_FAIL(err, MC_ENOMEM, "out of memory");
    if (b->kspace) {
        MC_TRY(cu_ewald_create(&b->ew, p, b->nchains, err));
        CU_TRY(cudaMalloc(&b->d_changed, C), err);
        MC_TRY(ewald_sums_alloc(&p->kspace, &b->h_ewald, err));
        CU_TRY(cudaMalloc(&b->d_fourier, 2 * C * sizeof(double)), err);
        if (!(b->h_fourier = (double *)calloc(2 * C, sizeof(double)))) MC_FAIL(err, MC_ENOMEM, "out of memory");
        if (p->ensemble->imposed_pressure) {
            CU_TRY(cudaMalloc(&b->d_trial_s, C * 2 * p->kspace.nk * sizeof(double)), err);
            CU_TRY(cudaMalloc(&b->d_trial_coeff, C * p->kspace.nk * sizeof(double)), err);
        }
    }
    if (p->ensemble->imposed_pressure) {
        CU_TRY(cudaMalloc(&b->d_trial_pos, C * 3 * n * sizeof(double)), err);
        CU_TRY(cudaMalloc(&b->d_trial_centre, C * 3 * M * sizeof(double)), err);
        CU_TRY(cudaMalloc(&b->d_trial_chains, C * sizeof *b->d_trial_chains), err);
        CU_TRY(cudaMallocHost(&b->h_trial_pos, C * 3 * n * sizeof(double)), err);
        CU_TRY(cudaMallocHost(&b->h_trial_centre, C * 3 * M * sizeof(double)), err);
        b->h_trial_chains = (rigid_chain_dev *)calloc(C, sizeof *b->h_trial_chains);
        b->h_trial_quat = (double *)malloc(4 * M * sizeof(double));
        if (!b->h_trial_chains || !b->h_trial_quat) MC_FAIL(err, MC_ENOMEM, "out of memory");
    }
    CU_TRY(cudaMallocHost(&b->h_pos, C * 3 * n * sizeof(double)), err);
    CU_TRY(cudaMallocHost(&b->h_centre, C * 3 * M * sizeof(double)), err);
    b->rdf_rows = p->species.npairs + 1;
    size_t rdf = C * b->rdf_rows * (size_t)p->rdf_bins;
    CU_TRY(cudaMalloc(&b->d_rdf, rdf * sizeof *b->d_rdf), err);
    CU_TRY(cudaMallocHost(&b->h_rdf, rdf * sizeof *b->h_rdf), err);
    if (b->chains[0]->lindemann_r) { /* the sums so far (a restart's): the device keeps them from here */
        const size_t P = b->lindemann_pairs = M * (M - 1) / 2, bytes = C * 2 * P * sizeof(double);
        size_t free_bytes, total_bytes;
        CU_TRY(cudaMemGetInfo(&free_bytes, &total_bytes), err);
        if (bytes > free_bytes)
            MC_FAIL(err, MC_ENOMEM,
                    "the Lindemann sums of %d open-cluster chains of %d molecules need %.3g GB on the GPU, %.3g GB "
                    "free: run fewer chains per rank (more ranks)",
                    b->nchains, b->nmol, bytes / 1e9, free_bytes / 1e9);
        CU_TRY(cudaMalloc(&b->d_lindemann, bytes), err);
        for (size_t k = 0; k < C; k++) {
            CU_TRY(cudaMemcpy(b->d_lindemann + k * 2 * P, b->chains[k]->lindemann_r, P * sizeof(double),
                              cudaMemcpyHostToDevice), err);
            CU_TRY(cudaMemcpy(b->d_lindemann + (k * 2 + 1) * P, b->chains[k]->lindemann_r2, P * sizeof(double),
                              cudaMemcpyHostToDevice), err);
        }
    }
    MC_TRY(rigid_tables_upload(b, err));
    MC_TRY(rigid_batch_setup(&b->batch, p, b->nchains, sm_count, max_optin, err));
    /* dynamic shared memory: the sites where they fit beside the kernel's static arrays (a moved
     * molecule of up to MC_MAX_SITES sites), and with charges a move's phase tables */
    cudaFuncAttributes fa;
    CU_TRY(cudaFuncGetAttributes(&fa, rigid_sweep_kernel<double, true, true>), err); /* the largest static part */
    const size_t room = (size_t)max_optin - fa.sharedSizeBytes, bytes = 3 * n * sizeof(double) + n;
    b->staged = bytes <= room;
    b->smem = b->staged ? bytes : 0;
    b->tabs_at = -1;
    if (b->kspace) { /* a move's phase tables in shared memory where they fit */
        const size_t at = (b->smem + 7) / 8 * 8,
                     tab_bytes = 2 * (size_t)p->mol.max_sites * ewald_table_len(p->kspace.kmax) * sizeof(double);
        if (at + tab_bytes <= room && !mc_test_hook(MC_TEST_PHASE_ROWS)) b->tabs_at = (long)at, b->smem = at + tab_bytes;
        else MC_TRY(cu_ewald_phase_rows(&b->ew, b->nchains, err));
    }
    const int dynamic = (int)b->smem; /* set for every kernel, so that static and dynamic may pass 48 kB together */
    const cudaFuncAttribute max_smem = cudaFuncAttributeMaxDynamicSharedMemorySize;
    CU_TRY(cudaFuncSetAttribute(rigid_sweep_kernel<float, false, false>, max_smem, dynamic), err);
    CU_TRY(cudaFuncSetAttribute(rigid_sweep_kernel<double, false, false>, max_smem, dynamic), err);
    CU_TRY(cudaFuncSetAttribute(rigid_sweep_kernel<float, true, false>, max_smem, dynamic), err);
    CU_TRY(cudaFuncSetAttribute(rigid_sweep_kernel<double, true, false>, max_smem, dynamic), err);
    CU_TRY(cudaFuncSetAttribute(rigid_sweep_kernel<float, true, true>, max_smem, dynamic), err);
    CU_TRY(cudaFuncSetAttribute(rigid_sweep_kernel<double, true, true>, max_smem, dynamic), err);
    MC_TRY(cu_rigid_upload(b, 1, NULL, err));
    /* the running energies start from the device's sum of the run's pair terms */
    MC_TRY(measure_on_device(b, no_sample, err));
    for (int k = 0; k < b->nchains; k++) b->chains[k]->energy_pair = b->h_energy[k];
    return MC_OK;
}

cu_rigid *cu_rigid_create(const mc_plan *plan, mc_chain **chains, int nchains, mc_err *err)
{
    cu_rigid *b = (cu_rigid *)calloc(1, sizeof *b);
    if (!b) return mc_err_set(err, MC_ENOMEM, "out of memory for the GPU backend"), (cu_rigid *)NULL;
    b->plan = plan, b->chains = chains, b->nchains = nchains, b->n = plan->n, b->nmol = plan->nmol;
    b->single = plan->precision == CFG_PRECISION_SINGLE;
    b->coulomb = plan->charged, b->kspace = plan->ewald;
    if (rigid_setup(b, err) != MC_OK) {
        cu_rigid_destroy(b);
        return NULL;
    }
    return b;
}
