/* mc_observable: the observables of a run, declared once. A row names the observable, its unit,
 * what it means, when a run has it and how it is estimated (its kind); its function gives its
 * value. The table drives the chain's series (mc_chain), the per-chain and pooled estimates
 * (mc_results), their gather over ranks (ens_pool), the datasets /chains/NAME and
 * /results/NAME/{...} (h5out), the README's rows for them (mcens --output-reference, kept equal
 * by t/cli.sh) and the layout check of the tests (t/h5check.py reads the same reference). Adding
 * one is a row here and its function. Widom insertion (a value per species or molecule type,
 * turned into mu_ex) and the RDF (a summed histogram) are the two that stand apart. */
#ifndef MC_OBSERVABLE_H
#define MC_OBSERVABLE_H

#include <stdio.h>

#include "mc_plan.h"
#include "mc_stats.h"

struct mc_chain;

#ifdef __cplusplus
extern "C" {
#endif

/* The unit an observable is reported in: the plan's mc_units name and factor for it. */
enum mc_unit_kind { MC_UNIT_ENERGY, MC_UNIT_PRESSURE, MC_UNIT_DENSITY, MC_UNIT_ONE, MC_UNIT_KB, MC_UNIT_VOLUME, MC_UNIT_COUNT };

/* How an observable is estimated, and which datasets it has. */
enum mc_observable_kind {
    MC_OBS_SERIES,   /* a value at every sample: /chains/NAME [C, K]; per chain the mean by blocking */
    MC_OBS_PER_CHAIN, /* one value per chain at the end (a ratio of counts): /chains/NAME [C] */
    MC_OBS_DERIVED   /* per chain an estimate with its own error from a series: /results only */
}; /* every kind: /results/NAME/{...} [S], the chains' estimates pooled over replicas (mc_stats_pool) */

enum mc_observable_id {
    MC_OBS_ENERGY, MC_OBS_PRESSURE, MC_OBS_DENSITY, MC_OBS_ENTHALPY, MC_OBS_ACCEPTANCE, MC_OBS_HEAT_CAPACITY,
    MC_OBS_VOLUME_ACCEPTANCE, MC_OBS_TRANSLATION_ACCEPTANCE, MC_OBS_ROTATION_ACCEPTANCE, MC_OBS_LINDEMANN,
    /* the Gibbs ensemble: each box as it is, then the phases (the denser box is the liquid) */
    MC_OBS_BOX0_PARTICLES, MC_OBS_BOX1_PARTICLES, MC_OBS_BOX0_VOLUME, MC_OBS_BOX1_VOLUME,
    MC_OBS_BOX0_ENERGY, MC_OBS_BOX1_ENERGY, MC_OBS_BOX0_PRESSURE, MC_OBS_BOX1_PRESSURE,
    MC_OBS_LIQUID_DENSITY, MC_OBS_VAPOUR_DENSITY, MC_OBS_LIQUID_ENERGY, MC_OBS_VAPOUR_ENERGY,
    MC_OBS_LIQUID_PRESSURE, MC_OBS_VAPOUR_PRESSURE,
    MC_OBS_DISPLACEMENT_ACCEPTANCE, MC_OBS_TRANSFER_ACCEPTANCE, MC_OBS_SEPARATION,
    MC_OBS_PARTICLES, /* gcmc */
    MC_NOBS
};

/* A Gibbs box at a sample. */
typedef struct mc_gibbs_box_sample {
    double n, volume;        /* particles (molecules) and volume */
    double sites;            /* sites (atoms: n), what the energy is per */
    double energy_pair, virial_pair; /* of the full recomputation */
    mc_corrections corr;     /* at the box's composition and density */
} mc_gibbs_box_sample;

/* What a sample function sees: the chain's state point and box, and the full recomputation. */
typedef struct mc_sample_ctx {
    const mc_plan *plan;
    const mc_statepoint *sp;
    int n, nmol;             /* sites (atoms) and molecules (atoms) of the chain */
    double volume;           /* box volume; 0 for an open cluster */
    mc_corrections corr;     /* tail and impulsive corrections at this volume */
    double energy_pair;      /* pair energy (with the wall) of the full recomputation */
    double virial_pair;      /* its virial sum (molecular for molecules) */
    mc_gibbs_box_sample box[2]; /* gibbs: the two boxes (the fields above are unused) */
    int liquid;              /* gibbs: the denser box */
} mc_sample_ctx;

typedef struct mc_observable {
    const char *name;        /* /chains/NAME and /results/NAME */
    int unit;                /* enum mc_unit_kind */
    int kind;                /* enum mc_observable_kind */
    const char *when;        /* for the reference: "" (every run) or e.g. "npt only" */
    const char *per_chain;   /* what /chains/NAME holds (NULL for MC_OBS_DERIVED) */
    const char *pooled;      /* what /results/NAME estimates, pooled over replicas */
    int (*applies)(const mc_plan *p); /* NULL: every run */
    /* the one of these that the kind uses, in internal units (mc_plan's) */
    double (*sample)(const mc_sample_ctx *s);                              /* MC_OBS_SERIES */
    double (*value)(const struct mc_chain *c);                             /* MC_OBS_PER_CHAIN */
    mc_estimate (*derive)(const mc_plan *p, const struct mc_chain *c);     /* MC_OBS_DERIVED */
    int phase;               /* gibbs: pooled over the chains whose boxes separated only */
} mc_observable;

extern const mc_observable mc_observables[MC_NOBS];

static inline int mc_observable_applies(const mc_plan *p, int id)
{
    return !mc_observables[id].applies || mc_observables[id].applies(p);
}

/* The unit's name in the output and the factor from internal values to it. */
const char *mc_unit_name(const mc_units *u, int unit);
double mc_unit_factor(const mc_units *u, int unit);

/* A finished chain's estimate of observable id (the chain's series, value or derived estimate). */
mc_estimate mc_observable_estimate(const mc_plan *p, const struct mc_chain *c, int id);

/* The README's output-layout rows of the table, in its order (Markdown). */
void mc_observables_print_reference(FILE *f);

#ifdef __cplusplus
}
#endif
#endif
