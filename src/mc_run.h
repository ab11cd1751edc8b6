/* mc_run: the Metropolis schedule of one rank's chains, in rounds. An equilibration round is
 * adapt_every sweeps followed by a step-size update; a production round is sample_every sweeps
 * followed by one sample (energy, pressure, RDF). Every round ends with a full recomputation checked
 * against the running energy. The caller (the ensemble layer) runs rounds until done, so it can
 * agree on failures and report progress between them. */
#ifndef MC_RUN_H
#define MC_RUN_H

#include "mc_backend.h"
#include "mc_chain.h"
#include "mc_err.h"
#include "mc_exchange.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_run mc_run;

/* Chains first_chain .. first_chain + nchains - 1 of the plan on the given backend. */
mc_run *mc_run_create(const mc_plan *plan, const mc_backend_ops *ops, int first_chain, int nchains,
                      mc_err *err);
void mc_run_destroy(mc_run *r);

/* A restart: restore() overwrites the fresh chains' state and sets the sweeps already done, before
 * the backend takes the chains (so a GPU copies the restored state). It is called with the rank's
 * chains, first_chain onward. */
typedef int (*mc_run_restore)(void *ctx, mc_chain *const *chains, int nchains, long *sweeps_done,
                              mc_err *err);
mc_run *mc_run_resume(const mc_plan *plan, const mc_backend_ops *ops, int first_chain, int nchains,
                      mc_run_restore restore, void *ctx, mc_err *err);

/* Replica exchange between ranks (mc_exchange.h): the ensemble layer's calls, made by every rank
 * at the same exchange steps. Without one set, the run's own chains must be all of the plan's. */
typedef struct mc_run_exchange_transport {
    /* Every chain's numbers into all[plan->nchains] from this rank's mine[] (its chains, in
     * order); `status` is this rank's sweeps' outcome, and when any rank's is a failure every rank
     * returns it, with the failing rank's message. `sweep`: where the run is, for messages. */
    int (*gather)(void *ctx, long sweep, const mc_exchange_config *mine, int status, mc_exchange_config *all,
                  mc_err *err);
    /* Every rank's status, agreed in the same way (a failure on one rank after the gather, such as a
     * device error, must not leave the others waiting for its configurations). */
    int (*agree)(void *ctx, long sweep, int status, mc_err *err);
    /* Trade packed configurations (len doubles each): this rank's chain[i] sends send[i] to the
     * rank holding chain peer[i] and receives recv[i] from it; only the ranks in a trade take part. */
    int (*trade)(void *ctx, long sweep, int ntrades, const int *chain, const int *peer, double *const *send,
                 double *const *recv, size_t len, mc_err *err);
    void *ctx;
} mc_run_exchange_transport;

void mc_run_set_exchange_transport(mc_run *r, const mc_run_exchange_transport *t);

int mc_run_round(mc_run *r, mc_err *err);
int mc_run_finished(const mc_run *r);
long mc_run_sweeps_done(const mc_run *r);  /* per chain, both phases */
const char *mc_run_path(const mc_run *r);  /* the backend's path (mc_backend_ops.path) */
long mc_run_sweeps_total(const mc_run *r); /* per chain, both phases */

/* Whether the round just run was the last of equilibration (a checkpoint is due). */
int mc_run_equilibrated_now(const mc_run *r);

/* Bring the positions to the host chains (at the end, or before a checkpoint). Changes nothing
 * else, so a run that fetches takes the same course as one that does not. */
int mc_run_fetch(mc_run *r, mc_err *err);

int mc_run_nchains(const mc_run *r);
const mc_chain *mc_run_chain(const mc_run *r, int k);
const mc_plan *mc_run_plan(const mc_run *r);

/* What this rank's chains cost on their backend, measured (mc_run_calibrate): a sweep of all of
 * them, a measurement of all of them (every production sample, and every adaptation round of
 * equilibration), and a sample's Widom insertions. */
typedef struct mc_run_cost {
    double sweep_seconds, measure_seconds, widom_seconds;
    long sweeps_timed; /* the sweeps the figure comes from (after one untimed sweep of warm-up) */
} mc_run_cost;

/* Time this rank's fresh chains from their starting configuration: one sweep to warm up, then
 * calls of the run's own number of sweeps at a time (fewer if that would take longer than
 * min_seconds) until at least min_seconds are timed, then a measurement and a sample's Widom
 * insertions (after one untimed of each). The chains are moved: a calibrated run is thrown away
 * (mcens --dry-run). */
int mc_run_calibrate(mc_run *r, double min_seconds, mc_run_cost *cost, mc_err *err);

/* The wall time of the plan's whole run at that cost: every sweep, measurement and Widom sample
 * (replica exchange, checkpoints and the output's write come on top). */
double mc_run_cost_seconds(const mc_plan *p, const mc_run_cost *cost);

#ifdef __cplusplus
}
#endif
#endif
