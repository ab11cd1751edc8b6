/* lj: the Lennard-Jones pair potential and the periodic-box helpers, written once (lj_pair.inc)
 * for the CPU loops and the CUDA kernels, in double and (under CUDA) float.
 * u(r) = 4 eps [(sig/r)^12 - (sig/r)^6] inside rc, 0 outside (truncated, not shifted: the NIST SRSW
 * convention); the standard tail corrections assume g(r) = 1 beyond rc (Allen & Tildesley 2.8). */
#ifndef LJ_H
#define LJ_H

#include <math.h>

#include "mc_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LJ_REAL double
#define LJ_FN(name) name
#include "lj_pair.inc"
#undef LJ_REAL
#undef LJ_FN

#ifdef __CUDACC__
#define LJ_REAL float
#define LJ_FN(name) name##_f
#include "lj_pair.inc"
#undef LJ_REAL
#undef LJ_FN
#endif

/* How the potential ends at the cutoff: enum cfg_cutoff_scheme's values. */
enum lj_scheme { LJ_TRUNCATED = 0, LJ_SHIFTED = 1, LJ_FORCE_SHIFTED = 2 };

lj_params lj_params_make(double sigma, double epsilon, double cutoff, int scheme);

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
