/* mc_ensemble: the statistical ensembles as rows of one table (HOOMD-blue's updaters, as data). A
 * row says what a chain of the ensemble has (boxes, volume moves, an imposed pressure), what the run
 * driver does between and after sweeps (a volume move, step-size adaptation, the volume floor),
 * and what a sample records of its boxes. The plan holds its row (mc_plan.ensemble); the run
 * driver, the checkpoint table, the observables, the output and the backends ask the row instead
 * of branching on the ensemble's name. Adding an ensemble is a row here, its moves (in each
 * backend's sweep) and its name in the config schema (cfg.c, enum cfg_ensemble). */
#ifndef MC_ENSEMBLE_H
#define MC_ENSEMBLE_H

#include <stdint.h>

#include "mc_err.h"
#include "mc_move.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Declared here so that mc_plan.h can hold the row; defined in mc_plan.h, mc_chain.h,
 * mc_backend.h and mc_observable.h. */
struct mc_plan;
struct mc_chain;
struct mc_backend;
struct mc_backend_ops;
struct mc_measurement;
struct mc_sample_ctx;

/* A chain's move counters when a round began: the adaptation divides the round's acceptances by
 * its moves of each kind. */
typedef struct mc_round_counts {
    uint64_t step, accepted, volume_moves, volume_accepted, rotations, rotations_accepted, transfers,
        transfers_accepted;
} mc_round_counts;

/* What an ensemble's sweeps act on: the run's chains on their backend, and scratch the run
 * allocated for them ([nchains] each; only npt's volume move uses it). */
typedef struct mc_ensemble_ctx {
    const struct mc_plan *plan;
    const struct mc_backend_ops *ops;
    struct mc_backend *backend;
    struct mc_chain **chains;
    int nchains;
    double *scale, *trial_energy;  /* one volume move's box scaling and trial energy per chain */
    mc_volume_trial *volume_trial; /* its draws */
} mc_ensemble_ctx;

typedef struct mc_ensemble {
    const char *name;      /* the [ensemble] type that selects it */
    const char *title;     /* in messages and summaries */
    int boxes;             /* periodic boxes per chain (the Gibbs ensemble's two) */
    int volume_moves;      /* chains change volume: volume counters, acceptance, the floor check */
    int imposed_pressure;  /* state points are temperature x pressure and the box breathes */
    int open;              /* particles enter and leave (gcmc, mc_gcmc.h): state points are temperature x
                              ln z; each particle slot is labelled present or absent as a Gibbs particle
                              is with its box, and chains collect ln Pi(N) (tmmc.h) */
    /* nsweeps sweeps of every chain: the backend's moves, and what the ensemble adds between them */
    int (*sweeps)(const mc_ensemble_ctx *x, long nsweeps, mc_err *err);
    /* Step sizes toward plan->target_acceptance from a round of `sweeps` sweeps that began at `at`. */
    void (*adapt)(const struct mc_plan *p, struct mc_chain *c, const mc_round_counts *at, long sweeps);
    /* The sample's box terms: corrections at the current volume, each box of a Gibbs chain. */
    void (*sample)(const struct mc_plan *p, const struct mc_chain *c, const struct mc_measurement *m,
                   struct mc_sample_ctx *s);
    /* The error of a chain pinned at the smallest box (volume_moves only): hits of moves. */
    int (*floor_error)(const struct mc_plan *p, const struct mc_chain *c, long sweep, uint64_t hits,
                       uint64_t moves, mc_err *err);
} mc_ensemble;

/* Indexed by enum cfg_ensemble. */
extern const mc_ensemble mc_ensembles[];

/* The counters of c that a round's adaptation starts from. */
mc_round_counts mc_round_counts_of(const struct mc_chain *c);

#ifdef __cplusplus
}
#endif
#endif
