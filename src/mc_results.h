/* mc_results: the pooled outcome of a run, as plain arrays the writer and the summary read.
 * Per chain: estimates of its own series. Per state point: pooled over its replicas (mc_stats_pool)
 * and the RDF normalised to g(r). The ensemble layer fills the per-chain slots of every chain on
 * every rank (by reduction) and then calls mc_results_pool(), so all ranks hold the same results. */
#ifndef MC_RESULTS_H
#define MC_RESULTS_H

#include <stdint.h>

#include "mc_chain.h"
#include "mc_equilibration.h"
#include "mc_err.h"
#include "mc_plan.h"
#include "mc_stats.h"
#include "mc_tmmc_results.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_results {
    int nstatepoints, nchains, rdf_bins;
    int npairs;                     /* RDF rows: species pairs (1 for a pure fluid), then for the
                                       rigid engine the molecular centres */
    int widom_kinds;                /* kinds of Widom test particle (plan->widom_kinds) */
    /* per observable of mc_observables: [nchains] each chain's estimate of its series, and
     * [nstatepoints] pooled over replicas; NULL where the observable does not apply */
    mc_estimate *chain_obs[MC_NOBS], *obs[MC_NOBS];
    /* per series observable: [nchains] where each chain's series became stationary, and its
     * drift between the first and last third (NULL for the others) */
    mc_equilibration *chain_equilibration[MC_NOBS];
    /* per chain [nchains] */
    mc_estimate *chain_widom;       /* [nchains][widom_kinds] mean Boltzmann factor exp(-beta dU) of
                                       test particles */
    double *chain_max_displacement; /* the frozen production step */
    double *chain_rdf_norm;         /* [nchains * npairs] summed ideal pair densities */
    double *chain_max_volume_step;  /* npt only (zero in nvt) */
    double *chain_max_rotation;     /* molecules only (zero otherwise) */
    /* per state point [nstatepoints] */
    mc_estimate *mu_excess;         /* [nstatepoints][widom_kinds] -kT ln <exp(-beta dU)> (+ tail); gibbs: the
                                       chemical potential of each phase and species (mc_results.c gibbs_mu),
                                       from pooled Boltzmann factors */
    /* replica exchange (all NULL without it): per chain its production swaps with the next rung
     * up; per walker (the configuration that started in chain w) its passes from one end of the
     * ladder to the other and the state point it held at each sample */
    uint64_t *exchange_attempts, *exchange_accepted; /* [nchains] */
    uint64_t *walker_traversals;                     /* [nchains], by walker */
    int *walker_state;                               /* [nchains][nsamples], by walker; complete on
                                                        rank 0 only, which writes it */
    double *exchange_acceptance;                     /* [nstatepoints] swaps with the next rung up,
                                                        accepted / attempted summed over replicas;
                                                        NaN at the last rung */
    /* RDF */
    double *rdf_r;          /* [bins] bin centres */
    uint64_t *rdf_counts;   /* [nstatepoints][npairs][bins] pair counts summed over replicas */
    double *rdf_norm;       /* [nstatepoints][npairs] chain_rdf_norm summed over replicas */
    double *rdf_g;          /* [nstatepoints][npairs][bins] */
    mc_estimate *replica_scratch; /* [replicas] one state point's estimates while pooling (so that
                                     pooling, after the run, allocates nothing) */
    mc_tmmc_results *tmmc;        /* gcmc: ln Pi(N) and what it comes from; NULL otherwise */
} mc_results;

mc_results *mc_results_create(const mc_plan *plan, mc_err *err);
void mc_results_destroy(mc_results *r);

/* Estimates of one finished chain into its per-chain slots, its RDF counts into its state point. */
void mc_results_add_chain(mc_results *r, const mc_plan *plan, const mc_chain *c);

/* Per-state-point pooling and g(r), from complete per-chain slots and RDF sums. */
void mc_results_pool(mc_results *r, const mc_plan *plan);

/* g(r) of one histogram row: counts [bins] over the ideal-gas count, norm (the summed ideal pair
 * densities of the samples) times each shell's volume. */
void mc_results_rdf_g(const mc_plan *plan, const uint64_t *counts, double norm, double *g);

/* An infinite pooled energy, pressure, density, enthalpy or heat capacity: MC_ECHECK naming the
 * state point and the observable (the run is not written as a result). */
int mc_results_check_finite(const mc_plan *p, const mc_results *r, mc_err *err);

#ifdef __cplusplus
}
#endif
#endif
