/* mc_observable: the table of per-sample observables and their sample functions. */
#include "mc_observable.h"

#include <math.h>

static int npt_only(const mc_plan *p) { return p->npt; }

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

const mc_observable mc_observables[MC_NOBS] = {
    [MC_OBS_ENERGY] = {"energy", MC_UNIT_ENERGY, "",
                       "potential energy per particle (molecules: per site) at each sample, tail correction included",
                       "potential energy per particle (molecules: per site)", NULL, sample_energy},
    [MC_OBS_PRESSURE] = {"pressure", MC_UNIT_PRESSURE, "",
                         "virial pressure rho kT + W/(3V) at each sample (molecular virial for molecules), tail and "
                         "impulsive corrections included; NaN for an open cluster",
                         "pressure", NULL, sample_pressure},
    [MC_OBS_DENSITY] = {"density", MC_UNIT_DENSITY, "npt only",
                        "number density N/V at each sample, N counting molecules (atoms)",
                        "number density N/V, N counting molecules (atoms)", npt_only, sample_density},
    [MC_OBS_ENTHALPY] = {"enthalpy", MC_UNIT_ENERGY, "npt only",
                         "configurational enthalpy per particle (molecules: per site) U/N + P V/N at each sample, P the "
                         "imposed pressure",
                         "configurational enthalpy per particle (molecules: per site) U/N + P V/N", npt_only,
                         sample_enthalpy},
};

const char *mc_unit_name(const mc_units *u, int unit)
{
    return unit == MC_UNIT_ENERGY ? u->energy : unit == MC_UNIT_PRESSURE ? u->pressure : u->density;
}

double mc_unit_factor(const mc_units *u, int unit) { return unit == MC_UNIT_PRESSURE ? u->pressure_factor : 1.0; }

void mc_observables_print_reference(FILE *f)
{
    static const char *unit_words[] = {"energy", "pressure", "density"};
    for (int i = 0; i < MC_NOBS; i++) {
        const mc_observable *o = &mc_observables[i];
        const char *sep = o->when[0] ? ": " : "";
        fprintf(f, "| `/chains/%s` | [C, K] | %s%s%s (%s unit) |\n", o->name, o->when, sep, o->series,
                unit_words[o->unit]);
        fprintf(f, "| `/results/%s/{mean,stderr,n_independent,statistical_inefficiency,blocking_converged}` | [S] "
                   "| %s%spooled %s |\n", o->name, o->when, sep, o->pooled);
    }
}
