/* mc_observable: the table of per-sample observables and their sample functions. */
#include "mc_observable.h"

#include <math.h>

#include "mc_chain.h"
#include "mc_gibbs.h"
#include "mc_rigid_host.h"

static int npt_only(const mc_plan *p) { return p->ensemble->imposed_pressure; }
static int varying_density(const mc_plan *p) { return p->ensemble->imposed_pressure || p->ensemble->open; }
static int gcmc_only(const mc_plan *p) { return p->ensemble->open; }
static int fixed_n_one_box(const mc_plan *p) { return p->ensemble->boxes == 1 && !p->ensemble->open; }
static int gibbs_only(const mc_plan *p) { return p->ensemble->boxes > 1; }
static int one_box(const mc_plan *p) { return p->ensemble->boxes == 1; }
static int volume_moves(const mc_plan *p) { return p->ensemble->volume_moves; }
static int molecules_only(const mc_plan *p) { return p->rigid; }

/* U/N per site, the tail correction included; 0 for an empty gcmc box, the ideal gas's. */
static double sample_energy(const mc_sample_ctx *s) { return s->n > 0 ? s->energy_pair / s->n + s->corr.u_tail : 0.0; }

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

/* gcmc: the particles present. */
static double sample_particles(const mc_sample_ctx *s) { return s->nmol; }

/* (U + P V) per site, P the imposed pressure. */
static double sample_enthalpy(const mc_sample_ctx *s)
{
    return sample_energy(s) + s->sp->pressure / (s->n / s->volume);
}

/* C_V (npt: C_P, from the enthalpy) per particle from the fluctuations of the series, with its
 * ideal part: 3/2 per atom, or per molecule 3/2 and 1 (linear) or 3/2 for rotation, per site. */
static mc_estimate heat_capacity(const mc_plan *p, const mc_chain *c)
{
    return mc_stats_heat_capacity(c->series[p->ensemble->imposed_pressure ? MC_OBS_ENTHALPY : MC_OBS_ENERGY], c->nsamples, c->n,
                                  p->statepoint[c->statepoint].temperature, p->rigid ? p->mol.kinetic_per_site : 1.5);
}

/* Gibbs: a box's values. The energy per particle (site) of an empty box is taken as 0, the ideal
 * gas's; the pressure's kinetic term counts molecules, as sample_pressure's. */
static double box_energy(const mc_gibbs_box_sample *b)
{
    return b->sites > 0 ? b->energy_pair / b->sites + b->corr.u_tail : 0.0;
}
static double box_pressure(const mc_gibbs_box_sample *b, double kT)
{
    return b->n / b->volume * kT + b->virial_pair / (3.0 * b->volume) + b->corr.p_tail + b->corr.p_impulsive;
}
static double box0_particles(const mc_sample_ctx *s) { return s->box[0].n; }
static double box1_particles(const mc_sample_ctx *s) { return s->box[1].n; }
static double box0_volume(const mc_sample_ctx *s) { return s->box[0].volume; }
static double box1_volume(const mc_sample_ctx *s) { return s->box[1].volume; }
static double box0_energy(const mc_sample_ctx *s) { return box_energy(&s->box[0]); }
static double box1_energy(const mc_sample_ctx *s) { return box_energy(&s->box[1]); }
static double box0_pressure(const mc_sample_ctx *s) { return box_pressure(&s->box[0], s->sp->temperature); }
static double box1_pressure(const mc_sample_ctx *s) { return box_pressure(&s->box[1], s->sp->temperature); }
static const mc_gibbs_box_sample *liquid(const mc_sample_ctx *s) { return &s->box[s->liquid]; }
static const mc_gibbs_box_sample *vapour(const mc_sample_ctx *s) { return &s->box[!s->liquid]; }
static double liquid_density(const mc_sample_ctx *s) { return liquid(s)->n / liquid(s)->volume; }
static double vapour_density(const mc_sample_ctx *s) { return vapour(s)->n / vapour(s)->volume; }
static double liquid_energy(const mc_sample_ctx *s) { return box_energy(liquid(s)); }
static double vapour_energy(const mc_sample_ctx *s) { return box_energy(vapour(s)); }
static double liquid_pressure(const mc_sample_ctx *s) { return box_pressure(liquid(s), s->sp->temperature); }
static double vapour_pressure(const mc_sample_ctx *s) { return box_pressure(vapour(s), s->sp->temperature); }

#define GIBBS_BOX(id, name, unit, what, fn)                                                                   \
    [id] = {name, unit, MC_OBS_SERIES, "gibbs only", what " at each sample",                                  \
            what " averaged over samples (the boxes may swap roles: the liquid_ and vapour_ rows follow the "  \
            "phases)", gibbs_only, fn, NULL, NULL, 0}
#define GIBBS_PHASE(id, name, unit, what, fn)                                                                 \
    [id] = {name, unit, MC_OBS_SERIES, "gibbs only", what " at each sample (the liquid is the denser box)",   \
            what ", over the chains whose boxes separated (/chains/separation)", gibbs_only, fn, NULL, NULL, 1}

const mc_observable mc_observables[MC_NOBS] = {
    [MC_OBS_ENERGY] = {"energy", MC_UNIT_ENERGY, MC_OBS_SERIES, "nvt, npt and gcmc only",
                       "potential energy per particle (molecules: per site) at each sample, tail correction included",
                       "potential energy per particle (molecules: per site)", one_box, sample_energy, NULL, NULL},
    [MC_OBS_PRESSURE] = {"pressure", MC_UNIT_PRESSURE, MC_OBS_SERIES, "nvt, npt and gcmc only",
                         "virial pressure rho kT + W/(3V) at each sample (molecular virial for molecules), tail and "
                         "impulsive corrections included, without the contact term of hard cores; NaN for an open "
                         "cluster",
                         "pressure", one_box, sample_pressure, NULL, NULL},
    [MC_OBS_DENSITY] = {"density", MC_UNIT_DENSITY, MC_OBS_SERIES, "npt and gcmc only",
                        "number density N/V at each sample, N counting molecules (atoms)",
                        "number density N/V, N counting molecules (atoms)", varying_density, sample_density, NULL, NULL},
    [MC_OBS_ENTHALPY] = {"enthalpy", MC_UNIT_ENERGY, MC_OBS_SERIES, "npt only",
                         "configurational enthalpy per particle (molecules: per site) U/N + P V/N at each sample, P the "
                         "imposed pressure",
                         "configurational enthalpy per particle (molecules: per site) U/N + P V/N", npt_only,
                         sample_enthalpy, NULL, NULL},
    [MC_OBS_ACCEPTANCE] = {"acceptance", MC_UNIT_ONE, MC_OBS_PER_CHAIN, "",
                           "accepted / attempted moves in production (molecules: translations and rotations)",
                           "acceptance ratio (error from the replicas' spread)", NULL, NULL,
                           mc_chain_production_acceptance, NULL},
    [MC_OBS_HEAT_CAPACITY] = {"heat_capacity", MC_UNIT_KB, MC_OBS_DERIVED, "nvt and npt only", NULL,
                              "heat capacity per particle (molecules: per site) from the fluctuations of the energy "
                              "(npt: of the enthalpy, giving C_P), the ideal part included: 3/2 per atom, per molecule "
                              "3/2 and 1 (linear) or 3/2 for rotation; each chain's error by jackknife over 16 "
                              "blocks, pooled over replicas by their spread or, where larger, the chains' errors",
                              fixed_n_one_box, NULL, NULL, heat_capacity},
    [MC_OBS_VOLUME_ACCEPTANCE] = {"volume_acceptance", MC_UNIT_ONE, MC_OBS_PER_CHAIN, "npt and gibbs only",
                                  "accepted / attempted volume moves (gibbs: volume exchanges) in production",
                                  "volume-move acceptance ratio (error from the replicas' spread)", volume_moves, NULL,
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
    GIBBS_BOX(MC_OBS_BOX0_PARTICLES, "box0_particles", MC_UNIT_COUNT, "particles (molecules) in box 0", box0_particles),
    GIBBS_BOX(MC_OBS_BOX1_PARTICLES, "box1_particles", MC_UNIT_COUNT, "particles (molecules) in box 1", box1_particles),
    GIBBS_BOX(MC_OBS_BOX0_VOLUME, "box0_volume", MC_UNIT_VOLUME, "volume of box 0", box0_volume),
    GIBBS_BOX(MC_OBS_BOX1_VOLUME, "box1_volume", MC_UNIT_VOLUME, "volume of box 1", box1_volume),
    GIBBS_BOX(MC_OBS_BOX0_ENERGY, "box0_energy", MC_UNIT_ENERGY, "potential energy per particle (molecules: per site) of box 0, tail "
              "correction included (0 when empty)", box0_energy),
    GIBBS_BOX(MC_OBS_BOX1_ENERGY, "box1_energy", MC_UNIT_ENERGY, "potential energy per particle (molecules: per site) of box 1, tail "
              "correction included (0 when empty)", box1_energy),
    GIBBS_BOX(MC_OBS_BOX0_PRESSURE, "box0_pressure", MC_UNIT_PRESSURE, "virial pressure of box 0, tail and impulsive "
              "corrections included", box0_pressure),
    GIBBS_BOX(MC_OBS_BOX1_PRESSURE, "box1_pressure", MC_UNIT_PRESSURE, "virial pressure of box 1, tail and impulsive "
              "corrections included", box1_pressure),
    GIBBS_PHASE(MC_OBS_LIQUID_DENSITY, "liquid_density", MC_UNIT_DENSITY, "number density of the liquid (molecules per volume)",
                liquid_density),
    GIBBS_PHASE(MC_OBS_VAPOUR_DENSITY, "vapour_density", MC_UNIT_DENSITY, "number density of the vapour (molecules per volume)",
                vapour_density),
    GIBBS_PHASE(MC_OBS_LIQUID_ENERGY, "liquid_energy", MC_UNIT_ENERGY, "potential energy per particle (molecules: per site) of the liquid, "
                "tail correction included", liquid_energy),
    GIBBS_PHASE(MC_OBS_VAPOUR_ENERGY, "vapour_energy", MC_UNIT_ENERGY, "potential energy per particle (molecules: per site) of the vapour, "
                "tail correction included (0 when empty)", vapour_energy),
    GIBBS_PHASE(MC_OBS_LIQUID_PRESSURE, "liquid_pressure", MC_UNIT_PRESSURE, "virial pressure of the liquid",
                liquid_pressure),
    GIBBS_PHASE(MC_OBS_VAPOUR_PRESSURE, "vapour_pressure", MC_UNIT_PRESSURE, "virial pressure of the vapour",
                vapour_pressure),
    [MC_OBS_DISPLACEMENT_ACCEPTANCE] = {"displacement_acceptance", MC_UNIT_ONE, MC_OBS_PER_CHAIN, "gibbs and gcmc only",
                                        "accepted / attempted displacements in production",
                                        "displacement acceptance ratio (error from the replicas' spread)", mc_plan_labelled,
                                        NULL, mc_chain_production_displacement_acceptance, NULL, 0},
    [MC_OBS_TRANSFER_ACCEPTANCE] = {"transfer_acceptance", MC_UNIT_ONE, MC_OBS_PER_CHAIN, "gibbs and gcmc only",
                                    "accepted / attempted particle transfers in production (gcmc: insertions and "
                                    "deletions, those a window's edge refused included)",
                                    "transfer acceptance ratio (error from the replicas' spread)", mc_plan_labelled, NULL,
                                    mc_chain_production_transfer_acceptance, NULL, 0},
    [MC_OBS_SEPARATION] = {"separation", MC_UNIT_ONE, MC_OBS_PER_CHAIN, "gibbs only",
                           "how clearly the boxes hold two phases: mean over production samples of abs(rho_0 - rho_1) "
                           "divided by its standard deviation (one phase in both boxes gives about 1.3; below 3 the "
                           "chain counts as not separated and stays out of the liquid_ and vapour_ results)",
                           "separation (error from the replicas' spread)", gibbs_only, NULL, mc_gibbs_separation, NULL,
                           0},
    [MC_OBS_PARTICLES] = {"particles", MC_UNIT_COUNT, MC_OBS_SERIES, "gcmc only",
                          "particles N in the box at each sample",
                          "particles N in the box (with [tmmc] bias: of the biased chain, whose N walks over its "
                          "window; the grand-canonical averages come from /results/tmmc)", gcmc_only, sample_particles,
                          NULL, NULL, 0},
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
    case MC_UNIT_VOLUME: return u->volume;
    default: return "1";
    }
}

double mc_unit_factor(const mc_units *u, int unit) { return unit == MC_UNIT_PRESSURE ? u->pressure_factor : 1.0; }

void mc_observables_print_reference(FILE *f)
{
    static const char *unit_words[] = {"energy unit", "pressure unit", "density unit", "a ratio", "in k_B",
                                       "volume unit", "a count"};
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
