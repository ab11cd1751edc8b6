/* cpu_site_energy: the one loop body and its entries, one per kind of partner mask. */
#include "cpu_site_energy.h"

#include <math.h>
#include <stddef.h>

#include "cpu_isa.h"

/* What a partner must pass to count, and where its pair constants come from; the entries hand
 * constants, so the unused tests fold away. */
enum {
    MASK_BOX = 1, MASK_SPECIES = 2, MASK_SKIP = 4, MASK_SELF = 8, HARD_CORE = 16, PAIR_OF_PARTNER = 32,
    PLAIN_ROW = 64, /* with PAIR_OF_PARTNER: every constant of the row is plain LJ (only lj1, lj2, rc2,
                       shift gathered; the other selectors literal zeros) */
    PAIR_COLUMNS = 128, /* plain LJ with lj1, lj2 loaded from columns by partner, rc2 shared, no shift */
    COULOMB_COLUMNS = 512, /* with PAIR_COLUMNS: the Coulomb term too, qq from the column qq_of */
    LJ_ROW = 256 /* with PAIR_OF_PARTNER: every constant of the row is LJ without a force shift, with
                    its Coulomb term (charged sites: no Morse call left, so the loop vectorises) */
};

/* to's Coulomb term: qq, and the cutoff, alpha, slope and shift of `from` */
static inline __attribute__((always_inline)) void take_coulomb(pair_params *to, const pair_params *from, double qq)
{
    to->coulomb_qq = qq, to->coulomb_rc2 = from->coulomb_rc2, to->coulomb_alpha = from->coulomb_alpha;
    to->coulomb_slope = from->coulomb_slope, to->coulomb_shift = from->coulomb_shift;
}

/* The pair term of partner j with the site at p, 0 where j does not count: the one expression
 * every loop below sums. */
static inline __attribute__((always_inline)) double
partner_term(const cpu_partners *P, const pair_params *pp, int masks, int j, double px, double py, double pz)
{
    double hc2 = P->hard_core2;
    pair_params plain;
    if (masks & PAIR_COLUMNS) {
        plain = (pair_params){.lj1 = P->lj1_of[j], .lj2 = P->lj2_of[j], .rc2 = P->columns_rc2, .form = PAIR_LJ};
        if (masks & COULOMB_COLUMNS) take_coulomb(&plain, &P->columns_coulomb, P->qq_of[j]);
        pp = &plain;
    } else if (masks & PAIR_OF_PARTNER) {
        int b = P->species[j];
        pp = &P->pair_row[b], hc2 = P->hard_core_row[b];
        if (masks & (PLAIN_ROW | LJ_ROW)) { /* four gathers (LJ_ROW: nine), no Morse or force-shift lanes */
            plain = (pair_params){.lj1 = pp->lj1, .lj2 = pp->lj2, .rc2 = pp->rc2, .shift = pp->shift, .form = PAIR_LJ};
            if (masks & LJ_ROW) take_coulomb(&plain, pp, pp->coulomb_qq);
            pp = &plain;
        }
    }
    double r2 = mc_image_dist2(px - P->x[j], py - P->y[j], pz - P->z[j], P->box);
    double e = (masks & HARD_CORE) && r2 < hc2 ? INFINITY : pair_energy(r2, pp);
    int counts = (!(masks & MASK_BOX) || P->in_box[j] == P->box_label) &&
                 (!(masks & MASK_SPECIES) || P->species[j] == P->species_b) &&
                 (!(masks & MASK_SKIP) || j < P->skip0 || j >= P->skip1) &&
                 (!(masks & MASK_SELF) || j != P->skip0); /* one compare where the skip is one site */
    return counts ? e : 0.0; /* a select: the masked pairs' values never enter */
}

/* The vectorised loop: a sum over j by omp simd's reduction, the order each backend path had before
 * it was written here, so the energies keep their bits. */
static inline __attribute__((always_inline)) double
site_energy_loop(const cpu_partners *P, const pair_params *pp, int masks, int j0, int j1, double px, double py,
                 double pz)
{
    const cpu_partners local = *P; /* its members in registers: the vectoriser sees no loads of P */
    double u = 0.0;
#pragma omp simd reduction(+ : u)
    for (int j = j0; j < j1; j++) u += partner_term(&local, pp, masks, j, px, py, pz);
    return u;
}

/* An entry for one set of masks: plain LJ with its constants known to the compiler (the pair
 * function's branches gone), else the general pair function; compiled for several x86-64 levels,
 * the widest the CPU has taken at load time (cpu_isa.h). */
static inline __attribute__((always_inline)) double
plain_or_general(const cpu_partners *P, const pair_params *pp, int masks, int j0, int j1, double px, double py,
                 double pz)
{
    if (!pair_is_plain_lj(pp)) return site_energy_loop(P, pp, masks, j0, j1, px, py, pz);
    const pair_params plain = pair_as_plain_lj(*pp);
    return site_energy_loop(P, &plain, masks, j0, j1, px, py, pz);
}

#define SITE_ENERGY_ENTRY(name, masks)                                                                              \
    MC_CPU_CLONES double name(const cpu_partners *P, const pair_params *pp, int j0, int j1, double px, double py,   \
                              double pz)                                                                            \
    {                                                                                                               \
        return plain_or_general(P, pp, masks, j0, j1, px, py, pz);                                                  \
    }

/* The hottest entry (atoms, and molecules of one species without hard cores) takes the partners'
 * arrays as arguments: a call costs no struct to build and copy, which a molecule move's short runs
 * of partners, four calls a site, notice. */
MC_CPU_CLONES double cpu_site_energy_all(const double *x, const double *y, const double *z, double box,
                                         const pair_params *pp, int j0, int j1, double px, double py, double pz)
{
    const cpu_partners all = {.x = x, .y = y, .z = z, .box = box};
    return plain_or_general(&all, pp, 0, j0, j1, px, py, pz);
}

SITE_ENERGY_ENTRY(cpu_site_energy_in_box, MASK_BOX | MASK_SELF)
SITE_ENERGY_ENTRY(cpu_site_energy_molecular, MASK_BOX | MASK_SPECIES | MASK_SKIP | HARD_CORE)

/* Molecules of mixed species or with hard cores: the vectorised loop with each partner's constants
 * and hard core gathered by its species, plain LJ rows in their own copy. */
MC_CPU_CLONES double cpu_site_energy_mixed(const cpu_partners *P, int j0, int j1, double px, double py, double pz)
{
    if (P->plain_row)
        return site_energy_loop(P, NULL, PAIR_OF_PARTNER | HARD_CORE | PLAIN_ROW, j0, j1, px, py, pz);
    if (P->lj_row) return site_energy_loop(P, NULL, PAIR_OF_PARTNER | HARD_CORE | LJ_ROW, j0, j1, px, py, pz);
    return site_energy_loop(P, NULL, PAIR_OF_PARTNER | HARD_CORE, j0, j1, px, py, pz);
}

MC_CPU_CLONES double cpu_site_energy_columns(const cpu_partners *P, int j0, int j1, double px, double py, double pz)
{
    if (P->qq_of) return site_energy_loop(P, NULL, PAIR_COLUMNS | COULOMB_COLUMNS, j0, j1, px, py, pz);
    return site_energy_loop(P, NULL, PAIR_COLUMNS, j0, j1, px, py, pz);
}

/* The serial loop: u plus the partners in index order, one addition each (the sites of a molecule
 * are added one after the other into one running sum, as the rigid-body paths have always summed,
 * and the GPU's host-side measurements with them). */
double cpu_site_energy_serial(const cpu_partners *P, int j0, int j1, double px, double py, double pz, double u)
{
    const int masks = PAIR_OF_PARTNER | HARD_CORE;
    for (int j = j0; j < j1; j++) {
        if (j == P->skip0) j = P->skip1; /* the site's own molecule */
        if (j >= j1) break;
        u += partner_term(P, NULL, masks, j, px, py, pz);
    }
    return u;
}
