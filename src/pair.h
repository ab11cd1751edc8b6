/* pair: the pair potentials and the periodic-box helpers, written once (pair_fn.inc) for the CPU
 * loops and the CUDA kernels, in double and (under CUDA) float.
 * The short-range term is Lennard-Jones u(r) = 4 eps [(sig/r)^12 - (sig/r)^6], or Morse u(r) = eps
 * [(1 - e^(-alpha (r - r0)))^2 - 1], inside rc, 0 outside (truncated, not shifted: the NIST SRSW
 * convention) unless a shifted scheme is chosen; the tail corrections assume g(r) = 1 beyond rc
 * (Allen & Tildesley 2.8). A charged pair adds the Coulomb term inside its own cutoff. */
#ifndef PAIR_H
#define PAIR_H

#include <math.h>

#include "mc_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The short-range term of a pair (pair_params.form). The pair function tests the form against
 * PAIR_LJ, zero: a kernel then compares the field with zero in a uniform register, where a test
 * against a nonzero value loaded it into a register per thread (3.5% of the batched kernel's rate,
 * doc/performance.md). */
enum pair_form { PAIR_LJ = 0, PAIR_MORSE = 1 };

/* Whether the pair function evaluates the Coulomb term. The host's copies (the CPU backend, the
 * tests) do. The GPU's leave it out, so that the kernels of neutral sites (every kernel of atoms)
 * keep the registers they had before it; the molecule kernels of a charged run add it after the
 * call (pair_coulomb_energy, cuda/cu_rigid.cuh's rigid_pair_energy<real, true>). */
#ifdef __CUDA_ARCH__
#define PAIR_COULOMB_TERM 0
#else
#define PAIR_COULOMB_TERM 1
#endif

/* The Coulomb term's erfc (and qq erfc(a r) / r): the device's own there; on the host mc_erfc.h's,
 * which the compiler can vectorise in the site-pair loops (a libm call kept them scalar; the two
 * agree to 1e-14). */
#ifdef __CUDA_ARCH__
#define PAIR_ERFC(x) erfc(x)
#define PAIR_QQ_ERFC_OVER_R(qq, a, r, r2) ((qq) * erfc((a) * (r)) / (r)) /* the device's bits of before */
#else
#include "mc_erfc.h"
#define PAIR_ERFC(x) mc_erfc(x)
#define PAIR_QQ_ERFC_OVER_R(qq, a, r, r2) ((qq) * mc_erfc_over_r(a, r, r2))
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

/* How the short-range term ends at its cutoff: enum cfg_cutoff_scheme's values. */
enum pair_cutoff_scheme { PAIR_TRUNCATED = 0, PAIR_SHIFTED = 1, PAIR_FORCE_SHIFTED = 2 };

/* The constants of an uncharged pair whose short-range term is LJ, or Morse, cut at cutoff by the
 * scheme; the Coulomb term's cutoff is set to the same (coulomb_qq 0: no Coulomb term). */
pair_params pair_lj_make(double sigma, double epsilon, double cutoff, int scheme);
pair_params pair_morse_make(double epsilon, double alpha, double r0, double cutoff, int scheme);

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
