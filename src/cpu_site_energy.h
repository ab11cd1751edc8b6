/* cpu_site_energy: the CPU backend's one loop body for the energy of a site with a run of partner
 * sites (HOOMD-blue's pair loop generic over its evaluator, here over the partners). Every
 * displacement, rotation, Gibbs transfer and Widom test particle of the CPU backend sums its pair
 * energies through it: atoms against all particles or the members gathered from cells, molecules'
 * sites against the other molecules, Gibbs atoms against their box, Gibbs molecules' sites against
 * the other molecules of their box. (Volume moves and measurements recompute whole boxes with the
 * backends' pair-sum loops, which also give the virial and the RDF.) The
 * partner masks are chosen by constant flags, so each entry below compiles to the loop its case
 * needs, vectorised over the partners, and plain LJ (no Morse, no force shift, no charges) gets its own copy
 * with the pair function's selectors known to the compiler. */
#ifndef CPU_SITE_ENERGY_H
#define CPU_SITE_ENERGY_H

#include <stdint.h>

#include "pair.h"

/* Which partners of the run count, beside all of them. */
typedef struct cpu_partners {
    const double *x, *y, *z; /* partner positions: a chain's sites, or members gathered from cells */
    double box;              /* minimum-image edge (0: an open cluster, no images) */
    const int64_t *in_box;   /* Gibbs: a partner counts where in_box[j] == box_label */
    int64_t box_label;
    const int *species;      /* molecules: a partner counts where species[j] == species_b */
    int species_b;
    int skip0, skip1;        /* partners [skip0, skip1) do not count: the site's own molecule, or itself
                                (cpu_site_energy_in_box: skip0 alone, the particle's own index or -1) */
    double hard_core2;       /* molecules: +infinity inside this squared distance (0: none) */
    /* cpu_site_energy_serial: the site's row of pair constants and hard cores, indexed by the
     * partner's species (species[j]) */
    const pair_params *pair_row;
    const double *hard_core_row;
    int plain_row;           /* cpu_site_energy_mixed: every entry of pair_row is plain LJ
                                (cpu_pair_row_plain_lj, decided once by the caller) */
    int lj_row;              /* ... or LJ with no force shift, charged or not (cpu_pair_row_lj) */
    /* cpu_site_energy_columns: the site's pair constants with each partner j, laid out by j (the
     * row of pair_row taken at species[j], once for the run), so that the loop loads them as it
     * loads the positions instead of gathering them by species */
    const double *lj1_of, *lj2_of;
    double columns_rc2;      /* their squared cutoff, the same for every partner */
    const double *qq_of;     /* charged sites: k_e q_a q_j with each partner j (NULL: none), and the */
    pair_params columns_coulomb; /* Coulomb constants every pair shares (rc2, alpha, slope, shift: mc_species
                                    sets them alike), any pair of the plan's */
} cpu_partners;

/* The energy of a site at (px, py, pz) with the partners j in [j0, j1) that count: all of them
 * (atoms), those in the site's box other than itself (Gibbs atoms), or those of one species in
 * the box outside the molecule (Gibbs molecules, with their hard core). A masked partner's value,
 * infinite for the site itself, is dropped by a select, so the loop stays vectorised. */
double cpu_site_energy_all(const double *x, const double *y, const double *z, double box, const pair_params *pp,
                           int j0, int j1, double px, double py, double pz);
double cpu_site_energy_in_box(const cpu_partners *P, const pair_params *pp, int j0, int j1, double px, double py,
                              double pz);
double cpu_site_energy_molecular(const cpu_partners *P, const pair_params *pp, int j0, int j1, double px, double py,
                                 double pz);

/* u plus the energy of a site at p with the partners j in [j0, j1) outside [skip0, skip1), each
 * with the pair constants and hard core of its own species (pair_row, hard_core_row), added one by
 * one in index order: the rigid-body paths' sum over mixed species. */
double cpu_site_energy_serial(const cpu_partners *P, int j0, int j1, double px, double py, double pz, double u);

/* The same sum vectorised over the partners (a reduction, not index order), each partner with
 * the constants and hard core of its species (pair_row, hard_core_row; plain_row): molecules
 * of mixed species or with hard cores, which the serial loop made five times slower per move than
 * one-species molecules. */
double cpu_site_energy_mixed(const cpu_partners *P, int j0, int j1, double px, double py, double pz);

/* Molecules of mixed species, plain LJ with one cutoff, no shift and no hard cores (the common
 * case: truncated LJ with Lorentz-Berthelot pairs): the sum of cpu_site_energy_mixed, term for
 * term, with lj1 and lj2 from the columns lj1_of, lj2_of and the cutoff columns_rc2; with qq_of,
 * charged sites, the Coulomb term too (qq from the column, the rest from columns_coulomb). */
double cpu_site_energy_columns(const cpu_partners *P, int j0, int j1, double px, double py, double pz);

/* Whether any entry of a row of pair constants has a Coulomb term. */
static inline int cpu_pair_row_charged(const pair_params *row, int n)
{
    for (int b = 0; b < n; b++)
        if (row[b].coulomb_qq != 0.0) return 1;
    return 0;
}

/* Whether every entry of a row of pair constants is LJ without a force shift, with or without a
 * Coulomb term: the mixed loop then has no Morse call to keep it scalar. */
static inline int cpu_pair_row_lj(const pair_params *row, int n)
{
    for (int b = 0; b < n; b++)
        if (row[b].form != PAIR_LJ || row[b].slope != 0.0) return 0;
    return 1;
}

/* Whether every entry of a row of pair constants is plain LJ (pair_is_plain_lj). */
static inline int cpu_pair_row_plain_lj(const pair_params *row, int n)
{
    for (int b = 0; b < n; b++)
        if (!pair_is_plain_lj(&row[b])) return 0;
    return 1;
}

#endif
