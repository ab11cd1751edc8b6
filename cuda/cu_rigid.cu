/* cu_rigid: molecules on the GPU (the CUDA backend's path for plan->rigid), under the same
 * contract as the CPU backend's molecule moves: after `moves` moves a chain is the CPU chain, draw
 * for draw. One resident block per chain; per move thread 0 draws the trial (mc_rigid.h) and places
 * the moved molecule's sites in shared memory, every thread sums the energy change over its share
 * of the other sites (energy decomposition over sites), and thread 0 decides. Double precision.
 *
 * Built with -fmad=false (Makefile.am): the site placement is sums of products, which nvcc would
 * otherwise fuse into FMAs that the host does not use, and the moved sites would then differ from
 * the CPU's in the last bit.
 *
 * Full recomputations (energy, virial, RDF, Lindemann sums), Widom test molecules and volume
 * scaling run on the host from fetched positions through mc_rigid_host, the CPU's own code: a
 * sample costs one O(n^2) pass on the host per chain, and an npt volume move one per chain and
 * sweep (cu_backend.cu calls them; issue 14 moves them onto the device). */
#include <stdlib.h>
#include <string.h>

#include "cu_check.h"
#include "cu_rigid.h"
#include "mc_move.h"
#include "mc_rigid.h"
#include "mc_rigid_host.h"

enum { RIGID_THREADS = 256 };

/* One chain as the kernel sees it; mirrored from and back into the host chain around a sweep. */
typedef struct rigid_chain_dev {
    double box, beta, max_displacement, max_rotation, energy;
    unsigned long long step, accepted, rotations, rotations_accepted;
    unsigned int id, pad_;
} rigid_chain_dev;

/* The plan's constants for the kernel: pair table, hard cores, wall. Plain data, by value. */
typedef struct rigid_consts {
    pair_params pair[MC_MAX_SPECIES][MC_MAX_SPECIES];
    double hard_core2[MC_MAX_SPECIES][MC_MAX_SPECIES];
    double wall_radius, wall_strength;
    unsigned long long seed;
} rigid_consts;

/* The molecule tables on the device (read-only). */
typedef struct rigid_tables {
    const int *first;               /* [nmol + 1] */
    const unsigned char *species;   /* [n] */
    const double *body;             /* [3 n] */
} rigid_tables;

struct cu_rigid {
    const mc_plan *plan;
    mc_chain **chains;
    int nchains, n, nmol;
    rigid_consts k;
    rigid_chain_dev *d_chains, *h_chains;
    double *d_pos, *d_centre, *d_quat; /* [chain][3][n], [chain][3][nmol], [chain][nmol][4] */
    double *h_pos, *h_centre;          /* pinned staging */
    int *d_first;
    unsigned char *d_species;
    double *d_body;
    size_t smem;                       /* dynamic shared bytes; 0: sites read from global */
};

/* The energy change of molecule sites [f0, f0 + ns) moving from old to nw, summed over sites j =
 * tid, tid + stride, ... of other molecules; pair energies in double, the CPU's arithmetic. */
__device__ double rigid_energy_part(const double *x, const double *y, const double *z,
                                    const unsigned char *species, int n, int f0, int ns, const double *old,
                                    const double *nw, const int *spec, double box, const rigid_consts &k)
{
    double e_new = 0.0, e_old = 0.0;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        if (j >= f0 && j < f0 + ns) continue;
        int b = species[j];
        for (int s = 0; s < ns; s++) {
            const pair_params *p = &k.pair[spec[s]][b];
            double hc2 = k.hard_core2[spec[s]][b];
            double dx = mc_rigid_separation(old[3 * s] - x[j], box), dy = mc_rigid_separation(old[3 * s + 1] - y[j], box),
                   dz = mc_rigid_separation(old[3 * s + 2] - z[j], box);
            e_old += mc_site_pair_energy(dx * dx + dy * dy + dz * dz, p, hc2);
            dx = mc_rigid_separation(nw[3 * s] - x[j], box), dy = mc_rigid_separation(nw[3 * s + 1] - y[j], box),
            dz = mc_rigid_separation(nw[3 * s + 2] - z[j], box);
            e_new += mc_site_pair_energy(dx * dx + dy * dy + dz * dz, p, hc2);
        }
    }
    return e_new - e_old;
}

/* Thread 0: the trial of this step, the moved molecule's old and new sites and its wall energy
 * change into shared memory (the CPU's attempt_move, step for step). */
__device__ void rigid_trial(rigid_chain_dev *cd, const rigid_tables &t, const rigid_consts &k, int nmol,
                            const double *x, const double *y, const double *z, const double *centre,
                            const double *quat, mc_rigid_trial *tr, double *old, double *nw, int *spec,
                            double *nc, mc_quat *nq, double *wall_dE)
{
    *tr = mc_rigid_trial_draw(k.seed, cd->id, cd->step, (uint32_t)nmol, t.first, cd->max_displacement,
                              cd->max_rotation);
    int m = (int)tr->molecule, f0 = t.first[m], ns = t.first[m + 1] - f0;
    double oc[3] = {centre[m], centre[nmol + m], centre[2 * nmol + m]};
    mc_quat q = {quat[4 * m], quat[4 * m + 1], quat[4 * m + 2], quat[4 * m + 3]};
    nc[0] = mc_rigid_shift(oc[0], tr->dx, cd->box);
    nc[1] = mc_rigid_shift(oc[1], tr->dy, cd->box);
    nc[2] = mc_rigid_shift(oc[2], tr->dz, cd->box);
    *nq = tr->rotate ? mc_quat_normalize(mc_quat_multiply(tr->turn, q)) : q;
    for (int s = 0; s < ns; s++) {
        old[3 * s] = x[f0 + s], old[3 * s + 1] = y[f0 + s], old[3 * s + 2] = z[f0 + s];
        mc_rigid_site(nc, *nq, &t.body[3 * (f0 + s)], cd->box, &nw[3 * s]);
        spec[s] = t.species[f0 + s];
    }
    *wall_dE = mc_wall_energy(nc[0], nc[1], nc[2], k.wall_radius, k.wall_strength) -
               mc_wall_energy(oc[0], oc[1], oc[2], k.wall_radius, k.wall_strength);
}

__global__ void __launch_bounds__(RIGID_THREADS)
    rigid_sweep_kernel(rigid_chain_dev *chains, double *pos, double *centres, double *quats, rigid_tables t,
                       rigid_consts k, int n, int nmol, long long moves, int staged)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double old[3 * MC_MAX_SITES], nw[3 * MC_MAX_SITES], nc[3], warp_sum[32], wall_dE;
    __shared__ int spec[MC_MAX_SITES];
    __shared__ mc_rigid_trial tr;
    __shared__ mc_quat nq;
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
        if (threadIdx.x == 0) rigid_trial(cd, t, k, nmol, x, y, z, centre, quat, &tr, old, nw, spec, nc, &nq, &wall_dE);
        __syncthreads();
        int m = (int)tr.molecule, f0 = t.first[m], ns = t.first[m + 1] - f0;
        double part = rigid_energy_part(x, y, z, species, n, f0, ns, old, nw, spec, cd->box, k);
        for (int off = 16; off > 0; off >>= 1) part += __shfl_down_sync(0xffffffffu, part, off);
        if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = part;
        __syncthreads();
        if (threadIdx.x != 0) continue;
        double dE = 0.0;
        for (int w = 0; w < (int)(blockDim.x >> 5); w++) dE += warp_sum[w]; /* fixed order */
        dE += wall_dE;
        unsigned long long step = cd->step++;
        cd->rotations += tr.rotate;
        if (!mc_metropolis_accept(dE, cd->beta, k.seed, cd->id, step)) continue;
        for (int s = 0; s < ns; s++) x[f0 + s] = nw[3 * s], y[f0 + s] = nw[3 * s + 1], z[f0 + s] = nw[3 * s + 2];
        centre[m] = nc[0], centre[nmol + m] = nc[1], centre[2 * nmol + m] = nc[2];
        quat[4 * m] = nq.w, quat[4 * m + 1] = nq.x, quat[4 * m + 2] = nq.y, quat[4 * m + 3] = nq.z;
        cd->energy += dE;
        cd->accepted++;
        cd->rotations_accepted += tr.rotate;
    }
    __syncthreads();
    if (staged)
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) g[j] = x[j];
}

int cu_rigid_upload(cu_rigid *b, int positions, mc_err *err)
{
    for (int k = 0; k < b->nchains; k++) {
        const mc_chain *c = b->chains[k];
        rigid_chain_dev *d = &b->h_chains[k];
        d->box = c->box_len, d->beta = c->beta, d->max_displacement = c->max_displacement;
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
    return MC_OK;
}

int cu_rigid_sweep(cu_rigid *b, long nsweeps, mc_err *err)
{
    MC_TRY(cu_rigid_upload(b, 0, err)); /* steps adapted on the host, energy reset by a measurement */
    rigid_tables t = {b->d_first, b->d_species, b->d_body};
    rigid_sweep_kernel<<<b->nchains, RIGID_THREADS, b->smem>>>(b->d_chains, b->d_pos, b->d_centre, b->d_quat, t,
                                                               b->k, b->n, b->nmol, (long long)nsweeps * b->nmol,
                                                               b->smem > 0);
    CU_LAUNCHED(err);
    CU_TRY(cudaMemcpy(b->h_chains, b->d_chains, b->nchains * sizeof *b->h_chains, cudaMemcpyDeviceToHost), err);
    for (int k = 0; k < b->nchains; k++) {
        mc_chain *c = b->chains[k];
        const rigid_chain_dev *d = &b->h_chains[k];
        c->step = d->step, c->accepted = d->accepted, c->energy_pair = d->energy;
        c->rotations = d->rotations, c->rotations_accepted = d->rotations_accepted;
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

void cu_rigid_destroy(cu_rigid *b)
{
    if (!b) return;
    cudaFree(b->d_chains), cudaFree(b->d_pos), cudaFree(b->d_centre), cudaFree(b->d_quat);
    cudaFree(b->d_first), cudaFree(b->d_species), cudaFree(b->d_body);
    cudaFreeHost(b->h_pos), cudaFreeHost(b->h_centre);
    free(b->h_chains);
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
    return MC_OK;
}

static int rigid_setup(cu_rigid *b, mc_err *err)
{
    const mc_plan *p = b->plan;
    size_t n = (size_t)b->n, M = (size_t)b->nmol, C = (size_t)b->nchains;
    memcpy(b->k.pair, p->species.pair, sizeof b->k.pair);
    memcpy(b->k.hard_core2, p->mol.hard_core2, sizeof b->k.hard_core2);
    b->k.wall_radius = p->wall_radius, b->k.wall_strength = p->wall_strength, b->k.seed = p->seed;
    if (!(b->h_chains = (rigid_chain_dev *)calloc(C, sizeof *b->h_chains))) MC_FAIL(err, MC_ENOMEM, "out of memory");
    CU_TRY(cudaMalloc(&b->d_chains, C * sizeof *b->d_chains), err);
    CU_TRY(cudaMalloc(&b->d_pos, C * 3 * n * sizeof(double)), err);
    CU_TRY(cudaMalloc(&b->d_centre, C * 3 * M * sizeof(double)), err);
    CU_TRY(cudaMalloc(&b->d_quat, C * 4 * M * sizeof(double)), err);
    CU_TRY(cudaMalloc(&b->d_first, (M + 1) * sizeof(int)), err);
    CU_TRY(cudaMalloc(&b->d_species, n), err);
    CU_TRY(cudaMalloc(&b->d_body, 3 * n * sizeof(double)), err);
    CU_TRY(cudaMallocHost(&b->h_pos, C * 3 * n * sizeof(double)), err);
    CU_TRY(cudaMallocHost(&b->h_centre, C * 3 * M * sizeof(double)), err);
    MC_TRY(rigid_tables_upload(b, err));
    int dev, max_optin = 0;
    CU_TRY(cudaGetDevice(&dev), err);
    CU_TRY(cudaDeviceGetAttribute(&max_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), err);
    size_t bytes = 3 * n * sizeof(double) + n;
    b->smem = bytes + 4096 <= (size_t)max_optin ? bytes : 0; /* else sites from global (L1/L2) */
    if (b->smem > 48 * 1024)
        CU_TRY(cudaFuncSetAttribute(rigid_sweep_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)b->smem), err);
    return cu_rigid_upload(b, 1, err);
}

cu_rigid *cu_rigid_create(const mc_plan *plan, mc_chain **chains, int nchains, mc_err *err)
{
    cu_rigid *b = (cu_rigid *)calloc(1, sizeof *b);
    if (!b) return mc_err_set(err, MC_ENOMEM, "out of memory for the GPU backend"), (cu_rigid *)NULL;
    b->plan = plan, b->chains = chains, b->nchains = nchains, b->n = plan->n, b->nmol = plan->nmol;
    for (int k = 0; k < nchains; k++) chains[k]->energy_pair = mc_rigid_measure(plan, chains[k], 0).energy;
    if (rigid_setup(b, err) != MC_OK) {
        cu_rigid_destroy(b);
        return NULL;
    }
    return b;
}
