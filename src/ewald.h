/* ewald: the Fourier part of the Ewald sum of point charges in a periodic cubic box of edge L, with
 * a conducting (tin-foil) boundary, and its change when a few sites move. The whole sum is
 *   E = E_real + E_fourier + E_self + E_intra
 * - E_real = k_e sum q_i q_j erfc(alpha r) / r over site pairs of different molecules closer than the
 *   Coulomb cutoff: the pair function's Coulomb term (pair_fn.inc, coulomb_alpha);
 * - E_fourier = (2 pi k_e / V) sum_{k != 0} exp(-k^2 / (4 alpha^2)) / k^2 |S(k)|^2, with the structure
 *   factor S(k) = sum_j q_j exp(i k . r_j) and k = 2 pi n / L over the integer vectors n with
 *   |n_x|, |n_y|, |n_z| <= kmax and n^2 <= ksq_max (this file);
 * - E_self = -k_e alpha / sqrt(pi) sum_j q_j^2 and E_intra = -k_e sum q_i q_j erf(alpha r) / r over
 *   the site pairs inside each molecule: constants of a rigid molecule (ewald_self_energy,
 *   ewald_intra_energy).
 * (Allen and Tildesley, 2nd ed., 6.2; the NIST SPC/E reference calculations, which t/ewald.c
 * reproduces.) k and -k contribute alike, so the sums run over half the set, one of each pair,
 * counted twice. A chain keeps S(k) of its configuration (ewald_sums): a move changes it by its own
 * sites' terms only, and the energy change is read from the old and new S(k) without a sum over the
 * other sites. */
#ifndef EWALD_H
#define EWALD_H

#include "mc_err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A run of the half set with n_x and n_y fixed and n_z rising by one: the vectors first ..
 * first + count - 1 are (x, y, z0), (x, y, z0 + 1), ... The sums over k walk the set row by row,
 * exp(i k . r) = exp(i 2 pi (x r_x + y r_y) / L) exp(i 2 pi z r_z / L), the first factor once a row
 * and the second from a table along a contiguous run: a loop the compiler vectorises. */
typedef struct ewald_row {
    int x, y, z0, count, first;
} ewald_row;

/* The wave vectors and constants of one Ewald sum (the same for every chain of a run). */
typedef struct ewald_kspace {
    double alpha;     /* splitting parameter, 1/length */
    double k_e;       /* Coulomb's constant in energy x length per charge^2 */
    int kmax, ksq_max;
    int nk;           /* vectors in the half set */
    int (*n)[3];      /* [nk] the integer vectors: n_x > 0, or n_x = 0 and n_y > 0, or n_x = n_y = 0 and n_z > 0 */
    int nrows;
    ewald_row *rows;  /* [nrows] the set as runs along n_z, in the order of n */
} ewald_kspace;

/* A chain's structure factors and the coefficients of its box:
 * E_fourier = sum_k coeff[k] (re[k]^2 + im[k]^2). */
typedef struct ewald_sums {
    double *coeff;  /* [nk] (4 pi k_e / V) exp(-k^2 / (4 alpha^2)) / k^2, for the box `box` */
    double *re, *im; /* [nk] S(k) */
    double *scratch; /* [2 nk] a change not kept (a Widom test molecule's S(k)) */
    double box;
} ewald_sums;

/* The vectors of the set (kmax >= 1, 1 <= ksq_max <= 3 kmax^2); alpha > 0. */
int ewald_kspace_init(ewald_kspace *e, double alpha, int kmax, int ksq_max, double k_e, mc_err *err);
void ewald_kspace_fini(ewald_kspace *e);

/* Sums of the set's size, zeroed (ewald_sums_free frees them; NULL-safe). */
int ewald_sums_alloc(const ewald_kspace *e, ewald_sums *s, mc_err *err);
void ewald_sums_free(ewald_sums *s);

/* S(k) of n sites with charges q[i] at (x, y, z) in the box of edge box, and the box's
 * coefficients, into s; returns E_fourier. */
double ewald_recompute(const ewald_kspace *e, ewald_sums *s, double box, int n, const double *x,
                       const double *y, const double *z, const double *q);

/* E_fourier of s. */
double ewald_energy(const ewald_kspace *e, const ewald_sums *s);

/* The change of E_fourier when `nsites` sites of charges q[k] move from old_pos[3k..] to
 * new_pos[3k..]; their change of S(k) into d (2 nk values: re, then im), for ewald_accept. */
double ewald_move_change(const ewald_kspace *e, const ewald_sums *s, int nsites, const double *q,
                         const double *old_pos, const double *new_pos, double *d);

/* The change of E_fourier when `nsites` sites of charges q[k] at pos[3k..] are added to the
 * configuration of s (a Widom test molecule; the exact change, not an estimate); their S(k) into d
 * (2 nk values of scratch). s is not changed. */
double ewald_insertion_change(const ewald_kspace *e, const ewald_sums *s, int nsites, const double *q,
                              const double *pos, double *d);

/* s takes the change d of an accepted move. */
void ewald_accept(const ewald_kspace *e, ewald_sums *s, const double *d);

/* The Fourier part's atomic virial sum_i r_i . F_i = sum_k E_k (1 - k^2 / (2 alpha^2)) (for
 * P = rho k T + W / (3 V)); s must be current. */
double ewald_virial(const ewald_kspace *e, const ewald_sums *s);

/* F . d for a site of charge q at r under the Fourier part's force F = 2 q sum_k coeff_k k
 * Im(conj(S(k)) exp(i k . r)). The molecular virial sum_i F_i . R_mol(i) is the atomic one less
 * this over the sites, d the site's offset from its molecule's centre. */
double ewald_site_force_dot(const ewald_kspace *e, const ewald_sums *s, double q, const double r[3],
                            const double d[3]);

/* -k_e alpha / sqrt(pi) sum q_i^2 over n charges. */
double ewald_self_energy(const ewald_kspace *e, int n, const double *q);

/* -k_e sum_{i<j} q_i q_j erf(alpha r_ij) / r_ij over the sites of one molecule (pos[3 i ..]). */
double ewald_intra_energy(const ewald_kspace *e, int nsites, const double *q, const double *pos);

#ifdef __cplusplus
}
#endif
#endif
