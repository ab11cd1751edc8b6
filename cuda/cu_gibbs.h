/* cu_gibbs: the CUDA backend's path for Gibbs-ensemble chains (two boxes), called from
 * cu_backend.cu. Its state is opaque; every call returns an mc status. */
#ifndef CU_GIBBS_H
#define CU_GIBBS_H

#include "mc_backend.h"
#include "mc_chain.h"
#include "mc_err.h"
#include "mc_plan.h"

typedef struct cu_gibbs cu_gibbs;

/* Device copies of the chains (positions, box labels, both boxes' state); their running energies
 * are set from a recomputation on the device. NULL on failure. */
cu_gibbs *cu_gibbs_create(const mc_plan *plan, mc_chain **chains, int nchains, mc_err *err);
void cu_gibbs_destroy(cu_gibbs *g);

/* nsweeps sweeps of n trial moves on every chain (the step sizes and the production flag from the
 * host chains); counters, box edges, counts and running energies come back to the host chains. */
int cu_gibbs_sweep(cu_gibbs *g, long nsweeps, mc_err *err);

/* Both boxes' energies and virials recomputed on the device (the running energies restart from
 * them), and with add_rdf one sample of the liquid box's pair counts (cpu_gibbs_measure's twin). */
int cu_gibbs_measure(cu_gibbs *g, int add_rdf, mc_measurement *out, mc_err *err);

/* cpu_gibbs_insertion_sum for every chain into sums[nchains]. */
int cu_gibbs_insertion(cu_gibbs *g, int kind, int insertions, long draw, double *sums, mc_err *err);

/* Positions and box labels to the host chains. */
int cu_gibbs_fetch(cu_gibbs *g, mc_err *err);

#endif
