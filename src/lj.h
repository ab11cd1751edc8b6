/* lj: the Lennard-Jones pair potential, written once for the CPU loops and the CUDA kernels.
 * u(r) = 4 eps [(sig/r)^12 - (sig/r)^6] inside rc, 0 outside (truncated, not shifted: the NIST SRSW
 * convention); the standard tail corrections assume g(r) = 1 beyond rc (Allen & Tildesley 2.8). */
#ifndef LJ_H
#define LJ_H

#include "mc_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Built by lj_params_make(); plain data so kernels can take it by value. */
typedef struct lj_params {
    double lj1;   /* 4 eps sig^12 */
    double lj2;   /* 4 eps sig^6 */
    double rc2;   /* squared cutoff, sigma^2 units */
    double shift; /* u(rc) subtracted inside rc; 0 for the truncated potential */
} lj_params;

lj_params lj_params_make(double sigma, double epsilon, double cutoff, int shifted);

/* Pair energy at squared distance r2; 0 at and beyond the cutoff. */
MC_HD double lj_pair_energy(double r2, const lj_params *p)
{
    /* computed unconditionally and then selected, so CPU loops vectorise; the cutoff lives here,
     * so both backends truncate alike */
    double ir6 = 1.0 / (r2 * r2 * r2);
    double u = ir6 * (p->lj1 * ir6 - p->lj2) - p->shift;
    return r2 < p->rc2 ? u : 0.0;
}

/* Pair virial r . F = -r du/dr = 12 lj1 r^-12 - 6 lj2 r^-6 inside the cutoff. */
MC_HD double lj_pair_virial(double r2, const lj_params *p)
{
    double ir6 = 1.0 / (r2 * r2 * r2);
    double w = ir6 * (12.0 * p->lj1 * ir6 - 6.0 * p->lj2);
    return r2 < p->rc2 ? w : 0.0;
}

/* Tail corrections for n particles in volume v (N^2 convention, as NIST SRSW). */
double lj_tail_energy(double sigma, double epsilon, double cutoff, double n, double volume);
double lj_tail_pressure(double sigma, double epsilon, double cutoff, double density);

/* Pressure of the step of a truncated (unshifted) potential at rc, which the pair virial misses:
 * P_imp = -(2 pi / 3) rho^2 rc^3 kT y(rc) [exp(-u(rc-)/kT) - 1], with the cavity function
 * y(rc) taken as 1. Exact to second order in density; 0 for a shifted potential. */
double lj_impulsive_pressure(const lj_params *p, double cutoff, double density, double temperature);

#ifdef __cplusplus
}
#endif
#endif
