/* mc_stats: means and standard errors of correlated Monte Carlo series. Within one chain, blocking
 * (Flyvbjerg & Petersen, J. Chem. Phys. 91, 461 (1989)) with the block size picked from the data
 * by Wolff's criterion as used by Lee et al., Phys. Rev. E 83, 066706 (2011): the smallest block
 * B = 2^k with B^3 > 2 n (se_k / se_0)^4. Across replicas, the spread of the chain means. */
#ifndef MC_STATS_H
#define MC_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_estimate {
    double mean;
    double error;         /* standard error of the mean */
    double inefficiency;  /* statistical inefficiency s: n samples are worth n / s independent */
    double n_independent; /* n / s */
    int converged;        /* blocking found a plateau with at least 4 blocks */
} mc_estimate;

/* Block-averaged estimate of a series of n samples; error is NAN when n < 2. */
mc_estimate mc_stats_block(const double *x, long n);

/* Heat capacity per particle in k_B from energy fluctuations in NVT,
 * C_V / (N k_B) = kinetic + N var(u) / T^2 (u: potential energy per particle, T: kT), kinetic the
 * ideal part per particle (3/2 for atoms; rigid molecules add their rotations, per site). Its error by the jackknife over 16 contiguous blocks (each long compared with the
 * correlation time for the series mcens keeps; error NAN with fewer than 32 samples). */
mc_estimate mc_stats_heat_capacity(const double *u, long n, int particles, double temperature,
                                   double kinetic);

/* Pool r chain estimates of one quantity: mean of means and, for r > 1, the standard error from
 * their spread (each chain counts once, whatever its inefficiency) or, where larger, from the
 * chains' own errors (sqrt(sum se_i^2) / r), with the chains' mean inefficiency and summed
 * independent samples; r = 1 returns the chain's own. */
mc_estimate mc_stats_pool(const mc_estimate *chain, int r);

#ifdef __cplusplus
}
#endif
#endif
