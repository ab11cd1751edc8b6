/* mc_energy: a configuration's potential energy term by term (mc_energy.h). */
#include "mc_energy.h"

#include <math.h>
#include <stdlib.h>

#include "ewald.h"
#include "mc_corrections.h"
#include "mc_ensemble.h"
#include "mc_rigid.h"
#include "pair.h"

const mc_energy_row mc_energy_rows[MC_NENERGY_TERMS] = {
    [MC_ENERGY_DISPERSION] = {"dispersion", "short-range pair term (LJ or Morse, its cutoff scheme) between sites of "
                                            "different molecules"},
    [MC_ENERGY_TAIL] = {"tail", "tail correction of the short-range term beyond its cutoff"},
    [MC_ENERGY_COULOMB_REAL] = {"coulomb_real", "Coulomb pair term between sites of different molecules within the "
                                                "Coulomb cutoff: Ewald's erfc(alpha r) / r, or the damped shifted force"},
    [MC_ENERGY_COULOMB_FOURIER] = {"coulomb_fourier", "Ewald Fourier part over the wave vectors"},
    [MC_ENERGY_COULOMB_SELF] = {"coulomb_self", "self term: Ewald's -alpha / sqrt(pi) sum q^2, or DSF's "
                                                "-(erfc(alpha rc) / (2 rc) + alpha / sqrt(pi)) sum q^2"},
    [MC_ENERGY_COULOMB_INTRAMOLECULAR] = {"coulomb_intramolecular",
                                          "site pairs within a molecule: Ewald's -erf(alpha r) / r, or DSF's pair "
                                          "term less the bare 1 / r"},
    [MC_ENERGY_WALL] = {"wall", "the spherical wall of an open cluster, on the molecules' centres"},
    [MC_ENERGY_TOTAL] = {"total", "the sum of the terms: the configuration's potential energy"},
};

int mc_energy_applies(const mc_plan *p, enum mc_energy_term t)
{
    switch (t) {
    case MC_ENERGY_TAIL: return p->periodic && p->tail_correction;
    case MC_ENERGY_COULOMB_FOURIER: return p->ewald;
    case MC_ENERGY_COULOMB_REAL:
    case MC_ENERGY_COULOMB_SELF:
    case MC_ENERGY_COULOMB_INTRAMOLECULAR: return p->charged;
    case MC_ENERGY_WALL: return p->rigid && p->wall_strength > 0.0;
    default: return 1;
    }
}

/* The pair's short-range term alone, and its Coulomb term alone. */
static pair_params short_range_of(pair_params pp)
{
    pp.coulomb_qq = 0.0;
    return pp;
}
static pair_params coulomb_of(pair_params pp)
{
    pp.form = PAIR_LJ;
    pp.lj1 = pp.lj2 = pp.shift = pp.slope = pp.morse_eps = 0.0;
    return pp;
}

/* The site pairs of different molecules, once each (atoms: every pair), under the minimum image
 * of the chain's box (none in an open cluster: box 0). */
static void pair_terms(const mc_plan *p, const mc_chain *c, double e[MC_NENERGY_TERMS])
{
    const double box = p->periodic ? c->box_len : 0.0;
    const int ns = p->species.n;
    pair_params sr[MC_MAX_SPECIES][MC_MAX_SPECIES], co[MC_MAX_SPECIES][MC_MAX_SPECIES];
    for (int a = 0; a < ns; a++)
        for (int b = 0; b < ns; b++)
            sr[a][b] = short_range_of(p->species.pair[a][b]), co[a][b] = coulomb_of(p->species.pair[a][b]);
    double disp = 0.0, real = 0.0;
    for (int i = 0; i < c->n; i++) {
        int a = p->rigid ? p->mol.site_species[i] : mc_species_of(&p->species, i);
        int mi = p->rigid ? p->mol.site_mol[i] : i;
        for (int j = i + 1; j < c->n; j++) {
            int b = p->rigid ? p->mol.site_species[j] : mc_species_of(&p->species, j);
            if (p->rigid && p->mol.site_mol[j] == mi) continue;
            double r2 = mc_image_dist2(c->x[i] - c->x[j], c->y[i] - c->y[j], c->z[i] - c->z[j], box);
            if (p->rigid && r2 < p->mol.hard_core2[a][b]) disp = INFINITY;
            disp += pair_energy(r2, &sr[a][b]);
            if (co[a][b].coulomb_qq != 0.0) real += pair_energy(r2, &co[a][b]);
        }
    }
    e[MC_ENERGY_DISPERSION] = disp;
    e[MC_ENERGY_COULOMB_REAL] = real;
}

/* The Fourier part from the sites' charges (the Ewald sum), and the self and intramolecular terms
 * from each molecule type's charges and body coordinates (whole molecules, whatever the box folds). */
static int coulomb_terms(const mc_plan *p, const mc_chain *c, double e[MC_NENERGY_TERMS], mc_err *err)
{
    if (p->ewald) {
        ewald_sums sums;
        double *q = malloc((size_t)c->n * sizeof *q);
        if (!q) MC_FAIL(err, MC_ENOMEM, "out of memory for %d charges", c->n);
        if (ewald_sums_alloc(&p->kspace, &sums, err) != MC_OK) return free(q), err->code;
        for (int i = 0; i < c->n; i++) q[i] = p->species.charge[p->mol.site_species[i]];
        e[MC_ENERGY_COULOMB_FOURIER] = ewald_recompute(&p->kspace, &sums, c->box_len, c->n, c->x, c->y, c->z, q);
        ewald_sums_free(&sums);
        free(q);
    }
    double self = 0.0, intra = 0.0;
    for (int t = 0; t < p->mol.ntypes; t++) {
        const mc_moltype *type = &p->mol.type[t];
        double tq[MC_MAX_SITES];
        for (int s = 0; s < type->nsites; s++) tq[s] = p->species.charge[type->species[s]];
        self += type->count * mc_plan_coulomb_self_energy(p, type->nsites, tq);
        intra += type->count * mc_plan_coulomb_intra_energy(p, type, tq);
    }
    e[MC_ENERGY_COULOMB_SELF] = self;
    e[MC_ENERGY_COULOMB_INTRAMOLECULAR] = intra;
    return MC_OK;
}

int mc_energy_terms(const mc_plan *p, const mc_chain *c, double e[MC_NENERGY_TERMS], mc_err *err)
{
    if (p->ensemble->boxes > 1) /* each box's pairs, minimum image and tail: not written yet */
        MC_FAIL(err, MC_EINVAL, "--energy: the Gibbs ensemble's two boxes are not evaluated term by term yet");
    if (p->ensemble->open) /* the present slots only: not written yet */
        MC_FAIL(err, MC_EINVAL, "--energy: type = gcmc's varying N is not evaluated term by term yet");
    for (int t = 0; t < MC_NENERGY_TERMS; t++) e[t] = 0.0;
    pair_terms(p, c, e);
    if (mc_energy_applies(p, MC_ENERGY_TAIL)) {
        double volume = c->box_len * c->box_len * c->box_len;
        e[MC_ENERGY_TAIL] = c->n * mc_corrections_at(p, c->n / volume, p->statepoint[c->statepoint].temperature).u_tail;
    }
    if (p->charged) MC_TRY(coulomb_terms(p, c, e, err));
    for (int m = 0; mc_energy_applies(p, MC_ENERGY_WALL) && m < c->nmol; m++)
        e[MC_ENERGY_WALL] += mc_wall_energy(c->cx[m], c->cy[m], c->cz[m], p->wall_radius, p->wall_strength);
    for (int t = 0; t < MC_ENERGY_TOTAL; t++) e[MC_ENERGY_TOTAL] += e[t];
    return MC_OK;
}
