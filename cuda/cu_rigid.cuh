/* cu_rigid.cuh: the molecule kernels' common ground: the resident chains of cu_rigid.cu (one block
 * per chain, a move at a time) and the batched trials of cu_rigid_batch.cu (a few chains, K trials
 * of a chain evaluated over the whole GPU, then decided in order). Both use the chain, the plan's
 * constants and the molecule tables as the kernels see them, and the pose of a moved molecule;
 * the resident kernels take a site pair's energy from the kernel's constants, with their share of
 * a move and the trial of a step; the batched ones from a shared copy of the constants
 * (rigid_pairs). Files that include it are built with -fmad=false (cu_rigid.cu says why). */
#ifndef CU_RIGID_CUH
#define CU_RIGID_CUH

#include "cu_kernels.cuh"
#include "mc_err.h"
#include "mc_move.h"
#include "mc_plan.h"
#include "mc_rigid.h"

/* RIGID_BATCH_MAX_SITES: the batched kernels' molecules at most (their trials' and shared arrays'
 * size); a run of larger molecules takes the resident kernel, whose arrays are MC_MAX_SITES. */
enum { RIGID_THREADS = 256, RIGID_BATCH_MAX_SITES = 16 };

/* One chain as the kernel sees it; mirrored from and back into the host chain around a sweep. */
typedef struct rigid_chain_dev {
    double box, beta, max_displacement, max_rotation, energy;
    unsigned long long step, accepted, rotations, rotations_accepted;
    unsigned int id, pad_;
} rigid_chain_dev;

/* The plan's constants for the kernel: pair table, hard cores, wall. Plain data, by value. */
typedef struct rigid_consts {
    pair_params pair[MC_MAX_SPECIES][MC_MAX_SPECIES];
    pair_params_f pair_f[MC_MAX_SPECIES][MC_MAX_SPECIES]; /* the same in float */
    double hard_core2[MC_MAX_SPECIES][MC_MAX_SPECIES];
    double wall_radius, wall_strength;
    unsigned long long seed;
} rigid_consts;

/* The molecule tables on the device (read-only). */
typedef struct rigid_tables {
    const int *first;               /* [nmol + 1] */
    const unsigned char *species;   /* [n] */
    const double *body;             /* [3 n] */
    const int *site_mol;            /* [n] molecule of each site */
} rigid_tables;

/* A site pair's energy with its pair constants in the run's precision (+infinity inside the
 * hard core, where any move is rejected), and its virial r . F; the sums stay double. `charged`:
 * the pair's Coulomb term too (the device's pair function leaves it out, pair.h), added after
 * the short-range term as the host's pair function adds it, so that in double the sum is the
 * host's (mc_site_pair_energy). */
template <typename real, bool charged = false>
__device__ __forceinline__ double rigid_pair_energy(double r2, int a, int b, const rigid_consts &k)
{
    if (r2 < k.hard_core2[a][b]) return INFINITY;
    if constexpr (sizeof(real) == sizeof(double)) {
        const double u = pair_energy(r2, &k.pair[a][b]);
        return charged ? u + pair_coulomb_energy(r2, &k.pair[a][b]) : u;
    } else {
        const float r2f = (float)r2, u = pair_energy_f(r2f, &k.pair_f[a][b]);
        return (double)(charged ? u + pair_coulomb_energy_f(r2f, &k.pair_f[a][b]) : u);
    }
}
template <typename real, bool charged = false>
__device__ __forceinline__ double rigid_pair_virial(double r2, int a, int b, const rigid_consts &k)
{
    if constexpr (sizeof(real) == sizeof(double)) {
        const double w = pair_virial(r2, &k.pair[a][b]);
        return charged ? w + pair_coulomb_virial(r2, &k.pair[a][b]) : w;
    } else {
        const float r2f = (float)r2, w = pair_virial_f(r2f, &k.pair_f[a][b]);
        return (double)(charged ? w + pair_coulomb_virial_f(r2f, &k.pair_f[a][b]) : w);
    }
}

/* The site pairs' constants in the run's precision and the hard cores, as a block's shared copy:
 * the batched kernels look them up by species for every pair term, and a lookup into the kernel's
 * parameters with a run-time index is slower than a shared load. */
template <typename real> struct rigid_pairs {
    typename prec<real>::params p[MC_MAX_SPECIES][MC_MAX_SPECIES];
    double hard_core2[MC_MAX_SPECIES][MC_MAX_SPECIES];
};
template <typename real> __device__ inline typename prec<real>::params rigid_params_of(const rigid_consts &k, int a, int b);
template <> __device__ inline pair_params rigid_params_of<double>(const rigid_consts &k, int a, int b)
{
    return k.pair[a][b];
}
template <> __device__ inline pair_params_f rigid_params_of<float>(const rigid_consts &k, int a, int b)
{
    return k.pair_f[a][b];
}

/* The block's threads fill sp (the caller's barrier follows). */
template <typename real> __device__ inline void rigid_pairs_load(rigid_pairs<real> *sp, const rigid_consts &k)
{
    for (int e = threadIdx.x; e < MC_MAX_SPECIES * MC_MAX_SPECIES; e += blockDim.x) {
        int a = e / MC_MAX_SPECIES, b = e % MC_MAX_SPECIES;
        sp->p[a][b] = rigid_params_of<real>(k, a, b);
        sp->hard_core2[a][b] = k.hard_core2[a][b];
    }
}

/* rigid_pair_energy from the shared copy: the same value. */
template <typename real>
__device__ __forceinline__ double rigid_site_energy(double r2, int a, int b, const rigid_pairs<real> &sp)
{
    return r2 < sp.hard_core2[a][b] ? INFINITY : (double)prec<real>::energy((real)r2, sp.p[a][b]);
}

/* The energy change of molecule sites [f0, f0 + ns) moving from old to nw, summed over sites j =
 * j0 + tid, j0 + tid + stride, ... < j1 of other molecules; in double, the CPU's arithmetic. */
template <typename real, bool charged = false>
__device__ inline double rigid_energy_part(const double *x, const double *y, const double *z,
                                    const unsigned char *species, int j0, int j1, int f0, int ns, const double *old,
                                    const double *nw, const unsigned char *spec, double box, const rigid_consts &k)
{
    double e_new = 0.0, e_old = 0.0;
    for (int j = j0 + (int)threadIdx.x; j < j1; j += blockDim.x) {
        if (j >= f0 && j < f0 + ns) continue;
        int b = species[j];
        for (int s = 0; s < ns; s++) {
            double dx = mc_rigid_separation(old[3 * s] - x[j], box), dy = mc_rigid_separation(old[3 * s + 1] - y[j], box),
                   dz = mc_rigid_separation(old[3 * s + 2] - z[j], box);
            e_old += rigid_pair_energy<real, charged>(dx * dx + dy * dy + dz * dz, spec[s], b, k);
            dx = mc_rigid_separation(nw[3 * s] - x[j], box), dy = mc_rigid_separation(nw[3 * s + 1] - y[j], box),
            dz = mc_rigid_separation(nw[3 * s + 2] - z[j], box);
            e_new += rigid_pair_energy<real, charged>(dx * dx + dy * dy + dz * dz, spec[s], b, k);
        }
    }
    return e_new - e_old;
}

/* The moved molecule's pose for trial tr from its pose (oc, q): centre and orientation, as the
 * CPU's attempt_molecule_move computes them (its sites then by mc_rigid_site, any thread any site). */
__device__ inline void rigid_moved_pose(const mc_rigid_trial &tr, const double oc[3], mc_quat q, double box,
                                        double nc[3], mc_quat *nq)
{
    nc[0] = mc_rigid_shift(oc[0], tr.dx, box);
    nc[1] = mc_rigid_shift(oc[1], tr.dy, box);
    nc[2] = mc_rigid_shift(oc[2], tr.dz, box);
    *nq = tr.rotate ? mc_quat_normalize(mc_quat_multiply(tr.turn, q)) : q;
}

/* One thread: the trial of step `step`, the moved molecule's old and new sites and its wall energy
 * change (the CPU's attempt_molecule_move, step for step) from the configuration (x, y, z, centre,
 * quat). */
__device__ inline void rigid_trial(const rigid_chain_dev *cd, unsigned long long step, const rigid_tables &t,
                                   const rigid_consts &k, int nmol, const double *x, const double *y,
                                   const double *z, const double *centre, const double *quat, mc_rigid_trial *tr,
                                   double *old, double *nw, unsigned char *spec, double *nc, mc_quat *nq, double *wall_dE)
{
    *tr = mc_rigid_trial_draw(k.seed, cd->id, step, (uint32_t)nmol, t.first, cd->max_displacement,
                              cd->max_rotation);
    int m = (int)tr->molecule, f0 = t.first[m], ns = t.first[m + 1] - f0;
    double oc[3] = {centre[m], centre[nmol + m], centre[2 * nmol + m]};
    mc_quat q = {quat[4 * m], quat[4 * m + 1], quat[4 * m + 2], quat[4 * m + 3]};
    rigid_moved_pose(*tr, oc, q, cd->box, nc, nq);
    for (int s = 0; s < ns; s++) {
        old[3 * s] = x[f0 + s], old[3 * s + 1] = y[f0 + s], old[3 * s + 2] = z[f0 + s];
        mc_rigid_site(nc, *nq, &t.body[3 * (f0 + s)], cd->box, &nw[3 * s]);
        spec[s] = t.species[f0 + s];
    }
    *wall_dE = mc_wall_energy(nc[0], nc[1], nc[2], k.wall_radius, k.wall_strength) -
               mc_wall_energy(oc[0], oc[1], oc[2], k.wall_radius, k.wall_strength);
}

/* ---- the batched path (cu_rigid_batch.cu) --------------------------------------------------- */

/* A batch's trials and the energy kernel's partial sums on the device; trials == 0: the resident kernel. */
typedef struct rigid_trial_dev rigid_trial_dev;
typedef struct rigid_batch {
    int trials;                /* K, trials per batch */
    int parts;                 /* the energy kernel's blocks per trial (each a range of the sites) */
    int max_sites;             /* sites of the largest molecule */
    size_t smem;               /* the decide kernel's dynamic shared bytes */
    int pairs_shared;          /* the decide kernel holds the energy kernel's pair terms in shared memory */
    rigid_trial_dev *d_trials; /* [chain][K] */
    double *d_partial;         /* [chain][K][parts] */
    double *d_pairs;           /* [chain][2][K][K]: every two trials' pair terms (the energy kernel) */
} rigid_batch;

/* Chooses the path for nchains chains of this plan on this GPU (sm_count SMs, max_smem bytes of
 * shared memory a block may opt into) and allocates the batched path's buffers: batched where
 * the run has fewer chains than the GPU has SMs and at least 4 K molecules,
 * K = [run] gpu_batch_trials or 32; with gpu_batch_trials set, whatever the molecule count; never
 * with charges or molecules of more than RIGID_BATCH_MAX_SITES sites. An error names
 * gpu_batch_trials when a K set there does not fit, or is set for such a run. */
int rigid_batch_setup(rigid_batch *rb, const mc_plan *p, int nchains, int sm_count, int max_smem, mc_err *err);
void rigid_batch_free(rigid_batch *rb);

/* `moves` moves of every chain, K at a time: the energy kernel evaluates a batch's trials against the
 * configuration at its start, the decide kernel decides them in order (the CPU's decisions). */
int rigid_batch_sweep(const rigid_batch *rb, rigid_chain_dev *chains, double *pos, double *centres, double *quats,
                      const rigid_tables &t, const rigid_consts &k, int n, int nmol, int nchains, long long moves,
                      int single, mc_err *err);

#endif
