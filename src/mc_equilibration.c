/* mc_equilibration: Chodera's equilibration start and the first-against-last-third drift test. */
#include "mc_equilibration.h"

#include <math.h>
#include <stdlib.h>

#include "mc_stats.h"

/* Statistical inefficiency g = 1 + 2 sum_t (1 - t/n) C(t), the normalised autocorrelation C
 * summed until it first drops to zero after lag 3 (Chodera et al., J. Chem. Theory Comput. 3, 26
 * (2007), as pymbar's statisticalInefficiency). Blocking (mc_stats) is the better error estimator;
 * this one is the smoother function of where the series starts, which the t0 search needs. */
static double inefficiency(const double *x, long n)
{
    double mean = 0.0, var = 0.0;
    for (long i = 0; i < n; i++) mean += x[i];
    mean /= n;
    for (long i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
    var /= n;
    if (!(var > 0)) return 1.0;
    double g = 1.0;
    /* lags 1, 2, 4, 7, 11, ... (pymbar's fast mode): about sqrt(2 tau) of them to reach the decay */
    for (long t = 1, step = 1; t < n - 1; t += step, step++) {
        double c = 0.0;
        for (long i = 0; i < n - t; i++) c += (x[i] - mean) * (x[i + t] - mean);
        c /= (n - t) * var;
        if (c <= 0.0 && t > 3) break;
        g += 2.0 * c * (1.0 - (double)t / n) * step;
    }
    return g > 1.0 ? g : 1.0;
}

mc_equilibration mc_equilibration_detect(const double *x, long n)
{
    mc_equilibration e = {0, NAN};
    if (n < MC_EQUILIBRATION_MIN_SAMPLES) return e;
    /* a long series is searched as the means of blocks of `stride` samples, at most 4096 of them,
     * so that the search costs the same for any length (the effective count is then in blocks) */
    long stride = (n + 4095) / 4096, nb = n / stride;
    double *blocks = stride > 1 ? malloc((size_t)nb * sizeof *blocks) : NULL;
    const double *y = x;
    if (blocks) {
        for (long b = 0; b < nb; b++) {
            double sum = 0.0;
            for (long i = 0; i < stride; i++) sum += x[b * stride + i];
            blocks[b] = sum / stride;
        }
        y = blocks;
    } else {
        nb = n, stride = 1; /* (out of memory for the blocks: the full series, slower) */
    }
    double best = -1.0;
    for (int k = 0; k <= 10; k++) { /* t0 = 0, n/20, ..., n/2 */
        long t0 = (long)k * nb / 20;
        double effective = (nb - t0) / inefficiency(y + t0, nb - t0);
        if (effective > best) best = effective, e.start = t0 * stride;
    }
    free(blocks);
    long third = n / 3;
    mc_estimate first = mc_stats_block(x, third), last = mc_stats_block(x + n - third, third);
    /* under the hypothesis tested (a stationary series) both thirds have the last one's error; the
     * first third's own blocking error would be swollen by the very trend the test looks for */
    double se = sqrt(2.0) * last.error;
    if (!isfinite(se)) return e; /* (a series of non-finite values: not tested) */
    e.drift_sigmas = se > 0 ? (last.mean - first.mean) / se : (last.mean == first.mean ? 0.0 : INFINITY);
    return e;
}

double mc_equilibration_threshold(long m, double false_alarm)
{
    double tail = false_alarm / (m > 0 ? m : 1); /* P(|Z| > z) = erfc(z / sqrt 2) */
    double lo = 0.0, hi = 40.0;
    for (int i = 0; i < 100; i++) {
        double mid = 0.5 * (lo + hi);
        if (erfc(mid / sqrt(2.0)) > tail) lo = mid;
        else hi = mid;
    }
    return hi;
}
