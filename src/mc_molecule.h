/* mc_molecule: rigid molecules as the rigid-body engine sees them. A molecule type is a set of
 * sites, each of a species (its LJ sigma, epsilon, mass and hard core) at fixed coordinates in the
 * molecule's own frame, measured from its centre of mass. Molecules of one type hold consecutive
 * indices, and the sites of molecule m are sites first[m] .. first[m + 1] - 1. An atomic fluid or
 * an open cluster of atoms is the same thing with one site per molecule. Read-only after
 * mc_molecules_build(). */
#ifndef MC_MOLECULE_H
#define MC_MOLECULE_H

#include "cfg.h"
#include "mc_err.h"
#include "mc_species.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MC_MAX_SITES: sites of a molecule at most (a TraPPE alkane of 20 carbons or an all-atom
 * molecule of a few dozen atoms). The GPU kernels hold a moved molecule's sites in shared arrays
 * of this size; the batched kernels of a few chains take molecules of up to RIGID_BATCH_MAX_SITES
 * (cuda/cu_rigid.cuh), larger ones the resident kernel. MC_MOLECULE_TABLE_SITES: the least width
 * of /molecules' site tables, the width they had when a molecule had at most 16 sites, so that
 * files of such molecules keep their layout (h5out_molecules.c). */
enum { MC_MAX_MOLTYPES = 4, MC_MAX_SITES = 64, MC_MOLECULE_TABLE_SITES = 16 };

/* At the start, two sites of different molecules closer than this many sigma_ab (LJ above 16000
 * eps), or than their hard cores, are an overlap: the start is refused (mc_rigid_start), and a
 * plan whose start must overlap is refused before it (mc_plan_create). */
#define MC_START_OVERLAP_SIGMA 0.5

typedef struct mc_moltype {
    char name[32];
    int count, nsites;
    int species[MC_MAX_SITES];
    double body[MC_MAX_SITES][3]; /* site positions from the centre of mass, length unit */
    double mass;                  /* sum of the site masses */
} mc_moltype;

typedef struct mc_molecules {
    int ntypes;
    mc_moltype type[MC_MAX_MOLTYPES];
    int nmol, nsites;     /* totals over the types */
    int max_sites;        /* of the largest type */
    int *mol_type;        /* [nmol] */
    int *first;           /* [nmol + 1] first site of each molecule */
    int *site_mol;        /* [nsites] molecule of each site */
    int *site_species;    /* [nsites] */
    double *site_body;    /* [3 nsites] body-frame coordinates of each site */
    /* hard cores: a site pair of species a, b closer than sqrt(hard_core2[a][b]) is forbidden */
    double hard_core2[MC_MAX_SPECIES][MC_MAX_SPECIES];
    /* intermolecular site pairs of each species pair (the RDF's ideal pair count): N_a N_b minus
     * the pairs within molecules (halved for like pairs) */
    double inter_pairs[MC_MAX_PAIRS];
    /* the ideal (kinetic) heat capacity per site in k_B: per molecule 3/2 for translation, and
       1 (linear) or 3/2 for rotation, over the sites */
    double kinetic_per_site;
} mc_molecules;

/* From [molecules] (or, for an open cluster of atoms, one single-site type per species); fills the
 * species' counts with the site counts. Errors name the config line or the geometry file's. */
int mc_molecules_build(mc_molecules *m, mc_species *s, const cfg *c, mc_err *err);
void mc_molecules_fini(mc_molecules *m);

/* The largest distance of a site from its molecule's centre. */
double mc_molecules_radius(const mc_molecules *m);

/* The width of /molecules' site tables: the largest type's sites, at least MC_MOLECULE_TABLE_SITES. */
int mc_molecule_table_sites(const mc_molecules *m);

#ifdef __cplusplus
}
#endif
#endif
