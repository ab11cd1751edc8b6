/* mc_backend: the interface every compute backend implements (GSL's type table). A backend takes a
 * rank's chains at create, advances them sweep by sweep and measures them; the run driver (mc_run)
 * decides when. create does all allocation; sweep and measure never allocate or open files. */
#ifndef MC_BACKEND_H
#define MC_BACKEND_H

#include "mc_chain.h"
#include "mc_err.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_backend mc_backend; /* a backend instance: its chains, scratch, device memory */

/* What one full recomputation of a chain gives. */
typedef struct mc_measurement {
    double energy_pair;         /* pair energy summed over all pairs */
    double virial_pair;         /* sum over pairs of r . F (undivided) */
    double energy_pair_running; /* the incrementally kept value it replaces, for the drift check */
    double box_energy[2], box_virial[2], box_energy_running[2]; /* gibbs: the same per box */
} mc_measurement;

typedef struct mc_backend_ops {
    const char *name;
    /* Take the chains (which stay owned by the caller) and allocate all the run needs. */
    mc_backend *(*create)(const mc_plan *plan, mc_chain **chains, int nchains, mc_err *err);
    /* Advance every chain by nsweeps sweeps of n trial moves at its current max_displacement;
     * afterwards each chain's step, accepted and energy_pair are current on the host. */
    int (*sweep)(mc_backend *b, long nsweeps, mc_err *err);
    /* Recompute every chain's energy and virial from scratch into out[nchains], reset the running
     * energy to it, and when add_rdf add one sample's pair counts to chain->rdf_counts. */
    int (*measure)(mc_backend *b, int add_rdf, mc_measurement *out, mc_err *err);
    /* Widom test-particle insertion: for every chain, the sum over `insertions` trial positions
     * (mc_widom_position of draw `draw`; the run driver takes sample * species + species index)
     * of exp(-beta dU), dU the energy of a test particle of species `species` with all particles;
     * summed in insertion order. */
    int (*widom)(mc_backend *b, int species, int insertions, long draw, double *boltzmann_sum,
                 mc_err *err);
    /* npt, trial: each chain's pair energy with its box edge and positions scaled by scale[k]
     * (mc_scale_coordinate), into energy[k]; chains with scale[k] == 1 are skipped. Changes
     * nothing. */
    int (*volume_energy)(mc_backend *b, const double *scale, double *energy, mc_err *err);
    /* npt, accepted: scale every chain with scale[k] != 1 for good (box, positions, cell lists);
     * its running energy becomes energy[k]. */
    int (*volume_apply)(mc_backend *b, const double *scale, const double *energy, mc_err *err);
    /* Bring positions back to the host chains (no-op where they never left). */
    int (*fetch)(mc_backend *b, mc_err *err);
    /* Replica exchange within the rank: chains first[i] and second[i] (the rank's indices) trade
     * configurations (positions, centres, orientations, box, running energy) on the host chains
     * and wherever the backend keeps them, without a round trip to the host where it can. */
    int (*swap)(mc_backend *b, int npairs, const int *first, const int *second, mc_err *err);
    /* Replica exchange with other ranks: bring the positions of the chains with which[k] to the
     * host (fetch's work for those alone), and take them back after the host replaced them with
     * another rank's configurations (positions, centres, orientations, box and running energy). */
    int (*fetch_some)(mc_backend *b, const unsigned char *which, mc_err *err);
    int (*reload)(mc_backend *b, const unsigned char *changed, mc_err *err);
    void (*destroy)(mc_backend *b);
    /* npt: whether sweep makes each sweep's volume move itself (the run driver's draws and rule:
     * mc_volume_draw keyed by volume_moves, floor hits counted in production, mc_npt_volume_cost),
     * leaving box_len, energy_pair and the volume counters current on the host; NULL or 0: the
     * driver makes them through volume_energy and volume_apply. */
    int (*moves_volume)(const mc_backend *b);
    /* The kernels (GPU) or loops (CPU) that move this rank's chains at the start of the run, as one
     * word or several joined by '+' (no spaces): logged and kept in /parameters@paths, so that a run
     * and a test can tell which path a configuration took (the choice depends on the chains' sizes
     * and the device; on the CPU an npt chain's box can later take it between all pairs and cells). */
    const char *(*path)(const mc_backend *b);
} mc_backend_ops;

/* One backend per device, each for atoms and molecules alike (the plan picks the path inside):
 * the serial CPU reference, and the GPU (cuda/), whose create fails with MC_ENODEV in a build
 * without CUDA and which runs on the device the rank was bound to (cu_device_bind). Widom's
 * `species` is a molecule type when the plan has molecules (plan->widom_kinds). */
extern const mc_backend_ops mc_backend_cpu;
extern const mc_backend_ops mc_backend_cuda;

#ifdef __cplusplus
}
#endif
#endif
