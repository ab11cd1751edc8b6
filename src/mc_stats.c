/* mc_stats: blocking analysis and pooling over replicas. */
#include "mc_stats.h"

#include <math.h>
#include <stdlib.h>

static double mean_of(const double *x, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++) s += x[i];
    return s / n;
}

static double variance_of(const double *x, long n, double mean)
{
    double s = 0.0;
    for (long i = 0; i < n; i++) s += (x[i] - mean) * (x[i] - mean);
    return s / (n - 1);
}

mc_estimate mc_stats_block(const double *x, long n)
{
    mc_estimate e = {n > 0 ? mean_of(x, n) : NAN, NAN, NAN, NAN, 0};
    if (n < 2) return e;
    double var0 = variance_of(x, n, e.mean);
    if (var0 == 0.0) return e.error = 0.0, e.inefficiency = 1.0, e.n_independent = n, e.converged = 1, e;
    double *blocks = malloc((size_t)n * sizeof *blocks);
    if (!blocks) return e;
    for (long i = 0; i < n; i++) blocks[i] = x[i];
    double se0 = sqrt(var0 / n), chosen = NAN;
    long nb = n;
    for (int k = 0; nb >= 4; k++) {
        double se = sqrt(variance_of(blocks, nb, mean_of(blocks, nb)) / nb);
        double block = ldexp(1.0, k), ratio = se / se0;
        chosen = se; /* the last level with >= 4 blocks, unless the criterion stops earlier */
        if (block * block * block > 2.0 * n * ratio * ratio * ratio * ratio) {
            e.converged = 1;
            break;
        }
        for (long i = 0; i < nb / 2; i++) blocks[i] = 0.5 * (blocks[2 * i] + blocks[2 * i + 1]);
        nb /= 2;
    }
    free(blocks);
    /* blocks drop the odd tail sample, so means differ slightly: keep the full-series mean */
    e.error = isnan(chosen) ? se0 : chosen;
    e.inefficiency = n * e.error * e.error / var0;
    e.n_independent = n / e.inefficiency;
    return e;
}

mc_estimate mc_stats_pool(const mc_estimate *chain, int r)
{
    if (r == 1) return chain[0];
    mc_estimate e = {0.0, 0.0, 0.0, 0.0, 1};
    for (int i = 0; i < r; i++) {
        e.mean += chain[i].mean / r;
        e.n_independent += chain[i].n_independent;
        e.inefficiency += chain[i].inefficiency / r; /* the chains' mean, for the record */
        e.converged &= chain[i].converged;
    }
    double ss = 0.0, var_blocking = 0.0;
    for (int i = 0; i < r; i++) {
        ss += (chain[i].mean - e.mean) * (chain[i].mean - e.mean);
        var_blocking += chain[i].error * chain[i].error / ((double)r * r);
    }
    e.error = sqrt(ss / (r - 1) / r);
    /* with few replicas the spread has few degrees of freedom and can come out small by chance;
     * the chains' own blocking errors then bound it from below (NAN errors, as for ratios, leave
     * the spread alone) */
    if (var_blocking > e.error * e.error) e.error = sqrt(var_blocking);
    return e;
}

/* C_V/N of samples [lo, hi) of u, skipping [skip_lo, skip_hi). */
static double heat_capacity_of(const double *u, long lo, long hi, long skip_lo, long skip_hi,
                               int particles, double temperature, double kinetic)
{
    double sum = 0.0, sum2 = 0.0;
    long count = 0;
    for (long i = lo; i < hi; i++) {
        if (i >= skip_lo && i < skip_hi) continue;
        sum += u[i];
        count++;
    }
    double mean = sum / count;
    for (long i = lo; i < hi; i++)
        if (i < skip_lo || i >= skip_hi) sum2 += (u[i] - mean) * (u[i] - mean);
    return kinetic + particles * (sum2 / (count - 1)) / (temperature * temperature);
}

mc_estimate mc_stats_heat_capacity(const double *u, long n, int particles, double temperature,
                                   double kinetic)
{
    enum { BLOCKS = 16 };
    mc_estimate e = {NAN, NAN, NAN, NAN, 0};
    if (n < 2) return e;
    e.mean = heat_capacity_of(u, 0, n, 0, 0, particles, temperature, kinetic);
    if (n < 2 * BLOCKS) return e;
    double leave[BLOCKS], avg = 0.0;
    for (int b = 0; b < BLOCKS; b++) {
        leave[b] = heat_capacity_of(u, 0, n, b * n / BLOCKS, (b + 1) * n / BLOCKS, particles,
                                    temperature, kinetic);
        avg += leave[b] / BLOCKS;
    }
    double ss = 0.0;
    for (int b = 0; b < BLOCKS; b++) ss += (leave[b] - avg) * (leave[b] - avg);
    e.error = sqrt((BLOCKS - 1.0) / BLOCKS * ss);
    e.n_independent = BLOCKS; /* the jackknife's blocks */
    e.converged = 1;
    return e;
}
