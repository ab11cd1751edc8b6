/* cpu_gibbs: the CPU backend's Gibbs-ensemble chains (mc_gibbs.h): their sweeps of displacements,
 * transfers and volume exchanges, full recomputations and test insertions. */
#ifndef CPU_GIBBS_H
#define CPU_GIBBS_H

#include "mc_backend.h"
#include "mc_chain.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cpu_gibbs cpu_gibbs; /* scratch for one chain at a time: a box's points, compacted */

cpu_gibbs *cpu_gibbs_create(const mc_plan *p, mc_err *err);
void cpu_gibbs_destroy(cpu_gibbs *g);

/* `ewald` (charged molecules only; else NULL) is the chain's structure factors, one per box of
 * plan->ensemble->boxes (gcmc: one, label 1 being the absent slots), current for its configuration:
 * the sweeps keep them so, the measurement recomputes them. */

/* nsweeps sweeps of n trial moves each (molecules: nmol), of the kinds mc_gibbs_draw picks. */
void cpu_gibbs_sweep(const mc_plan *p, cpu_gibbs *g, mc_chain *c, ewald_sums *ewald, long nsweeps);

/* Both boxes' pair energies and virials recomputed into out (box_* and their sums), the running
 * energies reset to them; with add_rdf one sample of the liquid box's pair counts. */
void cpu_gibbs_measure(const mc_plan *p, cpu_gibbs *g, mc_chain *c, ewald_sums *ewald, int add_rdf,
                       mc_measurement *out);

/* Charges: the boxes' structure factors recomputed from the chain's sites (after a trade). */
void cpu_gibbs_ewald_recompute(const mc_plan *p, cpu_gibbs *g, const mc_chain *c, ewald_sums *ewald);

/* Test insertions for the chemical potential of each phase: kind = phase * nspecies + species,
 * phase 0 the liquid (the denser box) and 1 the vapour; the sum over `insertions` points of
 * V/(n_a + 1) exp(-beta dU), dU the energy of a particle of species a added to that box (its tail
 * correction's change included), n_a the species' particles in it. */
double cpu_gibbs_insertion_sum(const mc_plan *p, const mc_chain *c, ewald_sums *ewald, int kind, int insertions,
                               long draw);

#ifdef __cplusplus
}
#endif

#endif
