/* cpu_gibbs_rigid: the CPU backend's Gibbs-ensemble chains of rigid molecules (mc_gibbs.h): sweeps of
 * molecule translations and rotations, molecule transfers and volume exchanges; full recomputations
 * with the molecular virial and the liquid's RDF; test molecules; with charges the Ewald sum of each
 * box (cpu_gibbs.h's `ewald`). cpu_gibbs.c calls these when the plan is rigid; cu_gibbs.cu holds
 * their GPU twins (molecules without charges). */
#ifndef CPU_GIBBS_RIGID_H
#define CPU_GIBBS_RIGID_H

#include "mc_backend.h"
#include "mc_chain.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cpu_gibbs_rigid cpu_gibbs_rigid; /* scratch for one chain at a time */

cpu_gibbs_rigid *cpu_gibbs_rigid_create(const mc_plan *p, mc_err *err);
void cpu_gibbs_rigid_destroy(cpu_gibbs_rigid *g);

/* nsweeps sweeps of nmol trial moves each, of the kinds mc_gibbs_draw picks. */
void cpu_gibbs_rigid_sweep(const mc_plan *p, cpu_gibbs_rigid *g, mc_chain *c, ewald_sums *ewald, long nsweeps);

/* Both boxes' pair energies and molecular virials recomputed into out, the running energies reset to
 * them; with add_rdf one sample of the liquid box's site-pair and centre-pair counts. */
void cpu_gibbs_rigid_measure(const mc_plan *p, cpu_gibbs_rigid *g, mc_chain *c, ewald_sums *ewald, int add_rdf,
                             mc_measurement *out);

void cpu_gibbs_rigid_ewald_recompute(const mc_plan *p, cpu_gibbs_rigid *g, const mc_chain *c, ewald_sums *ewald);

/* cpu_gibbs_insertion_sum for test molecules: kind = phase * ntypes + type, each test molecule at a
 * uniform centre in a uniform orientation (mc_widom_orientation). */
double cpu_gibbs_rigid_insertion_sum(const mc_plan *p, const mc_chain *c, ewald_sums *ewald, int kind, int insertions,
                                     long draw);

#ifdef __cplusplus
}
#endif

#endif
