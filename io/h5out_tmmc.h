/* h5out_tmmc: the grand-canonical datasets (mc_gcmc.h): /results/tmmc, ln Pi(N) per state point
 * with what it came from, and /chains/tmmc, every chain's collection matrix, energy sums, visits,
 * bias, window and the slots present in the final frame. */
#ifndef H5OUT_TMMC_H
#define H5OUT_TMMC_H

#include "h5ds.h"
#include "mc_plan.h"
#include "mc_results.h"
#include "mc_run.h"

/* /chains/tmmc: every rank holds every chain's records (after ens_pool); the labels are this rank's
 * chains, rows [first_chain, first_chain + its chains). */
int h5out_tmmc_chains(const h5ds *f, const mc_plan *plan, const mc_run *run, int first_chain, const mc_results *res,
                      mc_err *err);

/* /results/tmmc. */
int h5out_tmmc_results(const h5ds *f, const mc_plan *plan, const mc_results *res, mc_err *err);

#endif
