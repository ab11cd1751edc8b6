/* tmmc: transition-matrix Monte Carlo on the macrostate N, the number of particles (or molecules) in
 * a grand-canonical box (Errington, J. Chem. Phys. 118, 9915 (2003); Shen and Errington, J. Chem.
 * Phys. 122, 064508 (2005)). What a run collects and what is computed from it, independent of the
 * engine that moves the particles:
 *
 * - Collection. Every attempted insertion or deletion out of macrostate N adds its unbiased
 *   acceptance probability a = min(1, ...) (the grand-canonical one, before any bias) to the row
 *   C[N][up] or C[N][down] and 1 - a to C[N][stay], whether or not the move is taken (and also
 *   when a window's edge forbids it). The rows estimate the transition probabilities
 *   P(N -> N +- 1) = C[N][+-] / sum_k C[N][k] of the unbiased chain, so rows collected by any
 *   number of chains, windows and ranks add up to one estimate.
 * - ln Pi. Detailed balance between neighbours, Pi(N) P(N -> N+1) = Pi(N+1) P(N+1 -> N), gives
 *   ln Pi(N+1) - ln Pi(N) = ln P(N -> N+1) - ln P(N+1 -> N): the macrostate distribution at the
 *   activity z the moves were accepted at, normalised so that sum_N Pi(N) = 1.
 * - Bias. A chain samples N flat when its moves are accepted with min(1, ratio Pi(N) / Pi(N')), the
 *   Metropolis ratio times that factor of the current estimate (tmmc_bias); the collection stays
 *   unbiased.
 * - Reweighting. At another activity z', ln Pi'(N) = ln Pi(N) + N ln(z'/z) + const: one run gives
 *   the isotherm, and below the critical temperature the activity where the two phases' peaks have
 *   equal area, with their densities and the saturation pressure (tmmc_coexistence).
 *
 * Arrays over macrostates are indexed from the lowest one, n_lo: element i is N = n_lo + i. */
#ifndef TMMC_H
#define TMMC_H

#include "mc_err.h"
#include "mc_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The three entries of a collection-matrix row: N -> N - 1, N -> N, N -> N + 1. */
enum tmmc_direction { TMMC_DOWN = 0, TMMC_STAY = 1, TMMC_UP = 2, TMMC_ROW = 3 };

/* One attempted transition out of the macrostate whose row this is, in direction TMMC_UP
 * (insertion) or TMMC_DOWN (deletion), with unbiased acceptance probability a in [0, 1]. */
MC_HD void tmmc_collect(double row[TMMC_ROW], int direction, double a)
{
    row[direction] += a;
    row[TMMC_STAY] += 1.0 - a;
}

/* The bias of a move from macrostate `from` to `to` under the estimate ln_pi (indexed from the same
 * n_lo as from and to): ln Pi(from) - ln Pi(to), added to the log of the Metropolis ratio before
 * its min (min(1, ratio) times the bias factor would not give flat visits), so that a converged
 * estimate makes every macrostate equally visited. */
MC_HD double tmmc_bias(const double *ln_pi, int from, int to) { return ln_pi[from] - ln_pi[to]; }

/* ln Pi(N) for N = n_lo .. n_lo + n - 1 from the collection rows c[i][TMMC_ROW] of the same
 * macrostates, normalised. A transition without data (C[N][up] or C[N+1][down] zero: never
 * attempted, or never acceptable) adds 0: the estimate stays usable as a bias while the run fills
 * it in. Returns the number of such transitions and, if there are any, the first one's lower
 * macrostate in *first_missing (else n_lo - 1). */
int tmmc_ln_pi(const double (*c)[TMMC_ROW], int n_lo, int n, double *ln_pi, int *first_missing);

/* Normalise ln_pi[0 .. n-1] so that sum exp(ln_pi) = 1; returns the log of the sum before. */
double tmmc_normalize(double *ln_pi, int n);

/* ln Pi at an activity larger by exp(dlnz): out[i] = ln_pi[i] + (n_lo + i) dlnz, normalised
 * (out may be ln_pi). */
void tmmc_reweight(const double *ln_pi, int n_lo, int n, double dlnz, double *out);

/* The mean of N under exp(ln_pi) over elements [i0, i1) of a distribution indexed from n_lo,
 * and ln of their total probability in *ln_area (may be NULL). */
double tmmc_mean_n(const double *ln_pi, int n_lo, int i0, int i1, double *ln_area);

/* The element at the bottom of the valley between the distribution's two phases: the highest peak
 * and, on one side of it, the highest point that rises at least `depth` (in ln Pi) above the lowest
 * point between them; the valley's lowest point is returned, the first element of the dense
 * phase: [0, boundary) is the dilute one, [boundary, n) the dense one, whichever peak is higher.
 * -1 when no second peak rises that far (above the critical temperature, or an activity far from
 * coexistence); depth must be above 0. */
int tmmc_phase_boundary(const double *ln_pi, int n, double depth);

/* Vapour-liquid coexistence from one distribution. */
typedef struct tmmc_coexistence {
    double lnz;               /* ln of the activity at which both peaks have equal probability */
    int boundary;             /* the first macrostate of the dense phase there */
    double n_vapour, n_liquid;/* mean N of each phase */
    double rho_vapour, rho_liquid; /* number densities, per volume unit */
    double pressure;          /* kT / V ln(sum over the vapour of Pi(N) / Pi(0)); NaN if n_lo > 0 */
    double u_vapour, u_liquid;/* mean energy per particle of each phase (NaN without energies) */
    double barrier;           /* ln Pi of the lower peak minus ln Pi of the valley (beta Delta F) */
} tmmc_coexistence;

/* The coexistence of the distribution ln_pi over N = n_lo .. n_lo + n - 1 (n >= 3), collected at
 * activity ln z = lnz in a box of this volume at temperature kT: the activity where the two phases
 * (split at the valley, tmmc_phase_boundary with depth `depth` > 0) have equal probability, found
 * by Newton's method (d/d ln z of ln(area of a phase) is its mean N) from an activity where two
 * peaks show, and each phase's averages there. energy[i] is the mean total potential energy at N
 * (NULL: the energies are NaN). Fails with a message when no activity shows a second peak or
 * Newton's method does not converge. */
int tmmc_coexist(const double *ln_pi, const double *energy, int n_lo, int n, double lnz, double volume, double kT,
                 double depth, tmmc_coexistence *out, mc_err *err);

/* The mean of R estimates of ln Pi (each normalised first; ln_pis[r * n + i]) into mean[n], and
 * its standard error, the estimates' standard deviation over sqrt(R), into stderr_[n] (0 for
 * R = 1: no estimate of the spread; stderr_ may be NULL). The mean of normalised logs is not
 * itself normalised (sum exp(mean) <= 1, by Jensen): normalise it before using it as a
 * distribution. */
void tmmc_ln_pi_mean(const double *ln_pis, int R, int n, double *mean, double *stderr_);

#ifdef __cplusplus
}
#endif
#endif
