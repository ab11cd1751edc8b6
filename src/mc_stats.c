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
        e.converged &= chain[i].converged;
    }
    double ss = 0.0;
    for (int i = 0; i < r; i++) ss += (chain[i].mean - e.mean) * (chain[i].mean - e.mean);
    e.error = sqrt(ss / (r - 1) / r);
    e.inefficiency = NAN; /* not defined across chains */
    return e;
}
