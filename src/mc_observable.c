/* mc_observable: the table of per-sample observables and their sample functions. */
#include "mc_observable.h"

#include <math.h>

#include "mc_chain.h"
#include "mc_rigid_host.h"

static int npt_only(const mc_plan *p) { return p->npt; }
static int molecules_only(const mc_plan *p) { return p->rigid; }

/* U/N per site, the tail correction included. */
static double sample_energy(const mc_sample_ctx *s) { return s->energy_pair / s->n + s->corr.u_tail; }

/* The virial pressure; its kinetic term counts molecules (the molecular virial goes with it). An
 * open cluster has no volume and no pressure. */
static double sample_pressure(const mc_sample_ctx *s)
{
    if (!s->plan->periodic) return NAN;
    return s->nmol / s->volume * s->sp->temperature + s->virial_pair / (3.0 * s->volume) + s->corr.p_tail +
           s->corr.p_impulsive;
}

/* Molecules (atoms) per volume, as the config's density. */
static double sample_density(const mc_sample_ctx *s) { return s->nmol / s->volume; }

/* (U + P V) per site, P the imposed pressure. */
static double sample_enthalpy(const mc_sample_ctx *s)
{
    return sample_energy(s) + s->sp->pressure / (s->n / s->volume);
}

/* C_V (npt: C_P, from the enthalpy) per particle from the fluctuations of the series, with its
 * ideal part: 3/2 per atom, or per molecule 3/2 and 1 (linear) or 3/2 for rotation, per site. */
static mc_estimate heat_capacity(const mc_plan *p, const mc_chain *c)
{
    return mc_stats_heat_capacity(c->series[p->npt ? MC_OBS_ENTHALPY : MC_OBS_ENERGY], c->nsamples, c->n,
                                  p->statepoint[c->statepoint].temperature, p->rigid ? p->mol.kinetic_per_site : 1.5);
}

const mc_observable mc_observables[MC_NOBS] = {
    [MC_OBS_ENERGY] = {"energy", MC_UNIT_ENERGY, MC_OBS_SERIES, "",
                       "potential energy per particle (molecules: per site) at each sample, tail correction included",
                       "potential energy per particle (molecules: per site)", NULL, sample_energy, NULL, NULL},
    [MC_OBS_PRESSURE] = {"pressure", MC_UNIT_PRESSURE, MC_OBS_SERIES, "",
                         "virial pressure rho kT + W/(3V) at each sample (molecular virial for molecules), tail and "
                         "impulsive corrections included, without the contact term of hard cores; NaN for an open "
                         "cluster",
                         "pressure", NULL, sample_pressure, NULL, NULL},
    [MC_OBS_DENSITY] = {"density", MC_UNIT_DENSITY, MC_OBS_SERIES, "npt only",
                        "number density N/V at each sample, N counting molecules (atoms)",
                        "number density N/V, N counting molecules (atoms)", npt_only, sample_density, NULL, NULL},
    [MC_OBS_ENTHALPY] = {"enthalpy", MC_UNIT_ENERGY, MC_OBS_SERIES, "npt only",
                         "configurational enthalpy per particle (molecules: per site) U/N + P V/N at each sample, P the "
                         "imposed pressure",
                         "configurational enthalpy per particle (molecules: per site) U/N + P V/N", npt_only,
                         sample_enthalpy, NULL, NULL},
    [MC_OBS_ACCEPTANCE] = {"acceptance", MC_UNIT_ONE, MC_OBS_PER_CHAIN, "",
                           "accepted / attempted moves in production (molecules: translations and rotations)",
                           "acceptance ratio (error from the replicas' spread)", NULL, NULL,
                           mc_chain_production_acceptance, NULL},
    [MC_OBS_HEAT_CAPACITY] = {"heat_capacity", MC_UNIT_KB, MC_OBS_DERIVED, "", NULL,
                              "heat capacity per particle (molecules: per site) from the fluctuations of the energy "
                              "(npt: of the enthalpy, giving C_P), the ideal part included: 3/2 per atom, per molecule "
                              "3/2 and 1 (linear) or 3/2 for rotation; each chain's error by jackknife over 16 "
                              "blocks, pooled over replicas by their spread or, where larger, the chains' errors",
                              NULL, NULL, NULL, heat_capacity},
    [MC_OBS_VOLUME_ACCEPTANCE] = {"volume_acceptance", MC_UNIT_ONE, MC_OBS_PER_CHAIN, "npt only",
                                  "accepted / attempted volume moves in production",
                                  "volume-move acceptance ratio (error from the replicas' spread)", npt_only, NULL,
                                  mc_chain_production_volume_acceptance, NULL},
    [MC_OBS_TRANSLATION_ACCEPTANCE] = {"translation_acceptance", MC_UNIT_ONE, MC_OBS_PER_CHAIN, "molecules and open clusters only",
                                       "accepted / attempted molecule translations in production",
                                       "molecule translation acceptance ratio (error from the replicas' spread)",
                                       molecules_only, NULL,
                                       mc_chain_production_translation_acceptance, NULL},
    [MC_OBS_ROTATION_ACCEPTANCE] = {"rotation_acceptance", MC_UNIT_ONE, MC_OBS_PER_CHAIN, "molecules and open clusters only",
                                    "accepted / attempted rotations in production (0 without multi-site molecules)",
                                    "rotation acceptance ratio (error from the replicas' spread)", molecules_only, NULL,
                                    mc_chain_production_rotation_acceptance, NULL},
    [MC_OBS_LINDEMANN] = {"lindemann", MC_UNIT_ONE, MC_OBS_PER_CHAIN, "open clusters without replica exchange only",
                          "Lindemann index of the centres over the production samples: mean over pairs of "
                          "sqrt(<r^2> - <r>^2) / <r>",
                          "Lindemann index of the centres (error from the replicas' spread)",
                          mc_plan_lindemann, NULL,
                          mc_rigid_lindemann, NULL},
};

mc_estimate mc_observable_estimate(const mc_plan *p, const mc_chain *c, int id)
{
    const mc_observable *o = &mc_observables[id];
    if (o->kind == MC_OBS_SERIES) return mc_stats_block(c->series[id], c->nsamples);
    if (o->kind == MC_OBS_DERIVED) return o->derive(p, c);
    return (mc_estimate){o->value(c), NAN, NAN, NAN, 1}; /* one value: no error of its own */
}

const char *mc_unit_name(const mc_units *u, int unit)
{
    switch (unit) {
    case MC_UNIT_ENERGY: return u->energy;
    case MC_UNIT_PRESSURE: return u->pressure;
    case MC_UNIT_DENSITY: return u->density;
    case MC_UNIT_KB: return "k_B";
    default: return "1";
    }
}

double mc_unit_factor(const mc_units *u, int unit) { return unit == MC_UNIT_PRESSURE ? u->pressure_factor : 1.0; }

void mc_observables_print_reference(FILE *f)
{
    static const char *unit_words[] = {"energy unit", "pressure unit", "density unit", "a ratio", "in k_B"};
    for (int i = 0; i < MC_NOBS; i++) {
        const mc_observable *o = &mc_observables[i];
        const char *sep = o->when[0] ? ": " : "";
        if (o->kind != MC_OBS_DERIVED)
            fprintf(f, "| `/chains/%s` | %s | %s%s%s (%s) |\n", o->name, o->kind == MC_OBS_SERIES ? "[C, K]" : "[C]",
                    o->when, sep, o->per_chain, unit_words[o->unit]);
        fprintf(f, "| `/results/%s/{mean,stderr,n_independent,statistical_inefficiency,blocking_converged}` | [S] "
                   "| %s%spooled %s |\n", o->name, o->when, sep, o->pooled);
    }
}
