/* mc_corrections: tail and impulsive corrections from the plan's pair constants. */
#include "mc_corrections.h"

#include <math.h>

mc_corrections mc_corrections_at(const mc_plan *p, double density, double temperature)
{
    mc_corrections k = {0.0, 0.0, 0.0};
    /* a mixture's corrections are the pairs' weighted by their mole fractions x_a x_b */
    const mc_species *s = &p->species;
    for (int a = 0; a < s->n; a++)
        for (int b = 0; b < s->n; b++) {
            double w = mc_species_fraction(s, a) * mc_species_fraction(s, b);
            const pair_params *pp = &s->pair[a][b];
            if (!isfinite(p->cutoff)) {
                /* no cutoff: nothing to correct (the minimum image bounds the sum instead) */
            } else if (p->tail_correction) {
                k.u_tail += w * pair_tail_energy(pp, 1.0, 1.0 / density);
                k.p_tail += w * pair_tail_pressure(pp, density);
            } else if (p->cutoff_scheme == CFG_CUTOFF_TRUNCATED) {
                /* only the truncated potential steps at rc; the shifted ones are continuous */
                k.p_impulsive += w * pair_impulsive_pressure(pp, p->cutoff, density, temperature);
            }
        }
    return k;
}

/* The tail term of one test site of species a among sites at number density rho. */
static double site_widom_tail(const mc_plan *p, double density, int a)
{
    const mc_species *s = &p->species;
    double mu = 0.0;
    for (int b = 0; b < s->n; b++)
        mu += mc_species_fraction(s, b) * 2.0 * pair_tail_energy(&s->pair[a][b], 1.0, 1.0 / density);
    return mu;
}

double mc_corrections_widom_tail(const mc_plan *p, double volume, int kind)
{
    if (!isfinite(p->cutoff) || !p->tail_correction) return 0.0;
    double site_density = p->n / volume;
    if (!p->rigid) return site_widom_tail(p, site_density, kind);
    const mc_moltype *t = &p->mol.type[kind];
    double mu = 0.0;
    for (int s = 0; s < t->nsites; s++) mu += site_widom_tail(p, site_density, t->species[s]);
    return mu;
}
