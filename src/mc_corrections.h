/* mc_corrections: what the cutoff leaves out, from the plan's pair constants: the tail and impulsive
 * corrections of U and P at a density (Allen & Tildesley 2.8; NIST SRSW's convention), and the
 * tail of a Widom test particle's excess chemical potential. Used wherever a box's density
 * changes or is sampled: the plan's state points, npt samples, replica exchange along pressure,
 * the Widom results. */
#ifndef MC_CORRECTIONS_H
#define MC_CORRECTIONS_H

#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tail and impulsive corrections at number density rho and kT (npt calls it at every volume). */
mc_corrections mc_corrections_at(const mc_plan *p, double density, double temperature);

/* Tail correction to the excess chemical potential of a Widom test particle of kind `kind` (a
 * species, or with molecules a molecule type) in a box of the given volume: for each of its sites
 * of species a, 4 pi rho sum_b x_b int_rc^inf r^2 u_ab dr with rho and x_b those of the sites
 * (2 U_tail/N for a pure fluid); 0 without tails. */
double mc_corrections_widom_tail(const mc_plan *p, double volume, int kind);

#ifdef __cplusplus
}
#endif
#endif
