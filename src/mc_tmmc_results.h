/* mc_tmmc_results: the grand-canonical outcome of a run (mc_gcmc.h, tmmc.h): every chain's
 * collection matrix, energy sums and visits by macrostate, and per state point ln Pi(N) with its
 * standard error and the mean energy at each N. A replica's estimate adds the rows of its windows'
 * chains, in window order; the replicas' estimates give the mean and its standard error. Every rank
 * holds the same per-chain arrays after the gather (ens_pool) and pools them in the same order, so
 * the bits do not depend on the number of ranks. */
#ifndef MC_TMMC_RESULTS_H
#define MC_TMMC_RESULTS_H

#include <stdint.h>

#include "mc_chain.h"
#include "mc_err.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_tmmc_results {
    int nmacro;                 /* macrostates N = n_min .. n_max */
    /* per chain, [nchains][nmacro] (collection: [nchains][nmacro][TMMC_ROW]) */
    double *chain_collection, *chain_energy_sum;
    uint64_t *chain_visits;
    double *chain_bias;         /* the ln Pi each chain was biased by at the end */
    /* per state point, [nstatepoints][nmacro] */
    double *ln_pi;              /* the mean over replicas of their normalised ln Pi */
    double *ln_pi_stderr;       /* its standard error (NaN with one replica) */
    double *energy;             /* mean total potential energy at N over every chain's visits (NaN
                                   where none) */
    /* per state point [nstatepoints] */
    int *missing;               /* transitions without data in the pooled matrix of all replicas */
    double *n_mean;             /* <N> at the sampled ln z, from exp(ln_pi) normalised */
    double *scratch;            /* [replicas + 1][nmacro][TMMC_ROW] while pooling */
} mc_tmmc_results;

/* NULL without error where the plan is not grand-canonical. */
mc_tmmc_results *mc_tmmc_results_create(const mc_plan *plan, mc_err *err);
void mc_tmmc_results_destroy(mc_tmmc_results *t);

/* Chain c's arrays into its slots. */
void mc_tmmc_results_add_chain(mc_tmmc_results *t, const mc_plan *plan, const mc_chain *c);

/* Per state point, from complete per-chain slots. */
void mc_tmmc_results_pool(mc_tmmc_results *t, const mc_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
