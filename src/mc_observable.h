/* mc_observable: the observables sampled at every production sample, declared once. A row names
 * the observable, its unit, what it means and when a run has it; its sample function gives its
 * value from a sample's full recomputation. The table drives the chain's series (mc_chain), the
 * per-chain and pooled estimates (mc_results), their gather over ranks (ens_pool), the datasets
 * /chains/NAME [C, K] and /results/NAME/{...} (h5out), the README's rows for them
 * (mcens --output-reference, kept equal by t/cli.sh) and the layout check of the tests
 * (t/h5check.py table_layout reads the same reference). Adding one is a row here and its sample
 * function. */
#ifndef MC_OBSERVABLE_H
#define MC_OBSERVABLE_H

#include <stdio.h>

#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The unit an observable is reported in: the plan's mc_units name and factor for it. */
enum mc_unit_kind { MC_UNIT_ENERGY, MC_UNIT_PRESSURE, MC_UNIT_DENSITY };

enum mc_observable_id { MC_OBS_ENERGY, MC_OBS_PRESSURE, MC_OBS_DENSITY, MC_OBS_ENTHALPY, MC_NOBS };

/* What a sample function sees: the chain's state point and box, and the full recomputation. */
typedef struct mc_sample_ctx {
    const mc_plan *plan;
    const mc_statepoint *sp;
    int n, nmol;             /* sites (atoms) and molecules (atoms) of the chain */
    double volume;           /* box volume; 0 for an open cluster */
    mc_corrections corr;     /* tail and impulsive corrections at this volume */
    double energy_pair;      /* pair energy (with the wall) of the full recomputation */
    double virial_pair;      /* its virial sum (molecular for molecules) */
} mc_sample_ctx;

typedef struct mc_observable {
    const char *name;        /* /chains/NAME and /results/NAME */
    int unit;                /* enum mc_unit_kind */
    const char *when;        /* for the reference: "" (every run) or e.g. "npt only" */
    const char *series;      /* what /chains/NAME holds at each sample */
    const char *pooled;      /* what /results/NAME estimates, pooled over replicas */
    int (*applies)(const mc_plan *p); /* NULL: every run */
    double (*sample)(const mc_sample_ctx *s); /* in internal units (mc_plan's) */
} mc_observable;

extern const mc_observable mc_observables[MC_NOBS];

static inline int mc_observable_applies(const mc_plan *p, int id)
{
    return !mc_observables[id].applies || mc_observables[id].applies(p);
}

/* The unit's name in the output and the factor from internal values to it. */
const char *mc_unit_name(const mc_units *u, int unit);
double mc_unit_factor(const mc_units *u, int unit);

/* The README's output-layout rows of the table, in its order (Markdown). */
void mc_observables_print_reference(FILE *f);

#ifdef __cplusplus
}
#endif
#endif
