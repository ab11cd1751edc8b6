/* mc_energy: a configuration's potential energy term by term (mcens --energy): the short-range pair
 * term (dispersion and repulsion, LJ or Morse, with its cutoff scheme), its tail correction, the
 * Coulomb terms of the Ewald sum (real space, Fourier part, self and intramolecular), and the
 * spherical wall of an open cluster. Each is summed here by plain loops over every site pair of
 * different molecules, apart from the engine's own loops, so that the total is also a check of
 * theirs. The terms are rows of one table, which drives the printed table and the output's
 * /energy datasets alike. */
#ifndef MC_ENERGY_H
#define MC_ENERGY_H

#include "mc_chain.h"
#include "mc_err.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mc_energy_term {
    MC_ENERGY_DISPERSION,
    MC_ENERGY_TAIL,
    MC_ENERGY_COULOMB_REAL,
    MC_ENERGY_COULOMB_FOURIER,
    MC_ENERGY_COULOMB_SELF,
    MC_ENERGY_COULOMB_INTRAMOLECULAR,
    MC_ENERGY_WALL,
    MC_ENERGY_TOTAL,
    MC_NENERGY_TERMS
};

typedef struct mc_energy_row {
    const char *name; /* the /energy dataset and the table's column */
    const char *what;
} mc_energy_row;

extern const mc_energy_row mc_energy_rows[MC_NENERGY_TERMS];

/* Whether term t exists in the plan (the Coulomb terms with charges, the tail with tail
 * corrections in a periodic box, the wall in a wall); the total always. */
int mc_energy_applies(const mc_plan *p, enum mc_energy_term t);

/* Every term of chain c's configuration, in the run's energy unit, into e[MC_NENERGY_TERMS] (0
 * where a term does not apply); the total is their sum (+infinity inside a hard core). One box:
 * a Gibbs chain is refused (MC_EINVAL). */
int mc_energy_terms(const mc_plan *p, const mc_chain *c, double e[MC_NENERGY_TERMS], mc_err *err);

#ifdef __cplusplus
}
#endif
#endif
