/* mc_equilibration: where a chain's production series becomes stationary, and whether it was
 * stationary at all. The start is the one of Chodera (J. Chem. Theory Comput. 12, 1799 (2016)):
 * the first sample t0 that maximises the effective sample count (n - t0) / g(t0), g the
 * statistical inefficiency of the rest (here by blocking, mc_stats), over t0 = 0, n/20, ..., n/2.
 * Stationarity compares the means of the first and the last third, in units of the standard error
 * of their difference for a stationary series, sqrt(2) times the last third's (by blocking): a
 * chain that was still relaxing when production began shows a drift there. */
#ifndef MC_EQUILIBRATION_H
#define MC_EQUILIBRATION_H

typedef struct mc_equilibration {
    long start;          /* first sample of the stationary part */
    double drift_sigmas; /* (mean of the last third - mean of the first) / its standard error;
                            NAN below MC_EQUILIBRATION_MIN_SAMPLES samples (not tested) */
} mc_equilibration;

enum { MC_EQUILIBRATION_MIN_SAMPLES = 30 };

mc_equilibration mc_equilibration_detect(const double *x, long n);

/* The |drift_sigmas| above which m tests (chains x series) flag a chain, so that a run whose
 * chains are all stationary raises a false flag with probability false_alarm: the two-sided
 * normal quantile at false_alarm / m (Bonferroni). */
double mc_equilibration_threshold(long m, double false_alarm);

#endif
