/* dsf: the damped shifted force (DSF) form of the Coulomb interaction (Fennell and Gezelter,
 * J. Chem. Phys. 124, 234104 (2006)): a pair term that needs no Fourier part,
 *   u(r) = k_e q_i q_j [erfc(alpha r) / r - erfc(alpha rc) / rc
 *                       + (erfc(alpha rc) / rc^2 + (2 alpha / sqrt(pi)) exp(-alpha^2 rc^2) / rc) (r - rc)]
 * for r < rc, 0 beyond: the energy and the force both go to 0 at the cutoff. With rigid molecules
 * the whole sum is
 *   E = sum over site pairs of different molecules of u(r) + sum over molecules of E_mol,
 *   E_mol = -k_e (erfc(alpha rc) / (2 rc) + alpha / sqrt(pi)) sum_i q_i^2      (the self term)
 *           + sum over the molecule's own site pairs of [u(r) - k_e q_i q_j / r]  (their exclusion)
 * with Fennell and Gezelter's self term, and a molecule's own pairs counted as LAMMPS's pair style
 * coul/dsf counts excluded pairs within the cutoff: each summed like any other pair, its bare
 * Coulomb energy taken away (beyond the cutoff, where u is 0, the bare energy alone is taken away;
 * LAMMPS leaves such a pair out, which only a molecule longer than the cutoff has). LAMMPS's self
 * term adds the force shift's share, slope rc / 2, to erfc(alpha rc) / (2 rc): 0.27 kJ/mol per SPC/E
 * molecule lower at the default damping and a 1 nm cutoff. E_mol is a constant of a molecule type, which a Widom test
 * molecule or a gcmc insertion adds and a Gibbs transfer carries, as the Ewald sum's self and
 * intramolecular terms (ewald.h). The pair term itself lives in the pair function
 * (pair_fn.inc's Coulomb term, with dsf_pair_terms' slope and shift). */
#ifndef DSF_H
#define DSF_H

#include "pair.h"

/* The pair function's Coulomb constants (pair_fn.inc) for damping alpha (1/length, >= 0) and
 * cutoff rc: slope = erfc(a rc) / rc^2 + (2 a / sqrt(pi)) exp(-a^2 rc^2) / rc, shift = erfc(a rc) /
 * rc + slope rc, so that qq [erfc(a r) / r + slope r - shift] is the u(r) above. */
void dsf_pair_terms(double alpha, double rc, double *slope, double *shift);

/* -k_e (erfc(alpha rc) / (2 rc) + alpha / sqrt(pi)) sum q_i^2 over n charges. */
double dsf_self_energy(double alpha, double rc, double k_e, int n, const double *q);

/* sum_{i<j} [u(r_ij) - k_e q_i q_j / r_ij] over the sites of one molecule (pos[3 i ..]), u the
 * DSF pair term of cutoff rc (0 beyond it). */
double dsf_intra_energy(double alpha, double rc, double k_e, int nsites, const double *q, const double *pos);

#endif
