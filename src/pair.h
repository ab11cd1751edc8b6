/* pair: the pair potentials and the periodic-box helpers, written once (pair_fn.inc) for the CPU
 * loops and the CUDA kernels, in double and (under CUDA) float.
 * Lennard-Jones u(r) = 4 eps [(sig/r)^12 - (sig/r)^6], or Morse u(r) = eps [(1 - e^(-alpha (r -
 * r0)))^2 - 1], inside rc, 0 outside (truncated, not shifted: the NIST SRSW convention) unless a
 * shifted scheme is chosen; the tail corrections assume g(r) = 1 beyond rc (Allen & Tildesley 2.8). */
#ifndef PAIR_H
#define PAIR_H

#include <math.h>

#include "mc_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAIR_REAL double
#define PAIR_FN(name) name
#include "pair_fn.inc"
#undef PAIR_REAL
#undef PAIR_FN

#ifdef __CUDACC__
#define PAIR_REAL float
#define PAIR_FN(name) name##_f
#include "pair_fn.inc"
#undef PAIR_REAL
#undef PAIR_FN
#endif

/* How the potential ends at the cutoff: enum cfg_cutoff_scheme's values. */
enum lj_scheme { LJ_TRUNCATED = 0, LJ_SHIFTED = 1, LJ_FORCE_SHIFTED = 2 };

pair_params lj_params_make(double sigma, double epsilon, double cutoff, int scheme);
pair_params morse_params_make(double epsilon, double alpha, double r0, double cutoff, int scheme);

/* Tail corrections of the unshifted potential beyond rc for n particles in volume v (N^2
 * convention, as NIST SRSW): U_tail = 2 pi N^2/V int_rc^inf r^2 u dr and
 * P_tail = (2 pi / 3) rho^2 int_rc^inf r^2 (-r du/dr) dr, in closed form for LJ and Morse. */
double pair_tail_energy(const pair_params *p, double n, double volume);
double pair_tail_pressure(const pair_params *p, double density);

/* Pressure of the step of a truncated (unshifted) potential at rc, which the pair virial misses:
 * P_imp = -(2 pi / 3) rho^2 rc^3 kT y(rc) [exp(-u(rc-)/kT) - 1], with the cavity function
 * y(rc) taken as 1. Exact to second order in density; 0 for a shifted potential. */
double pair_impulsive_pressure(const pair_params *p, double cutoff, double density, double temperature);

#ifdef __cplusplus
}
#endif
#endif
