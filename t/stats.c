/* Blocking analysis against series with known statistical inefficiency, replica pooling, and the
 * equilibration check (stationary start, drift, threshold). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "mc_rng.h"
#include "mc_equilibration.h"
#include "mc_stats.h"

/* Standard normal deviates (Box-Muller on Philox uniforms). */
static void normals(double *x, long n, uint64_t seed)
{
    for (long i = 0; i < n; i += 2) {
        mc_rng4 r = mc_rng_block(seed, 0, 0, (uint64_t)i);
        double rad = sqrt(-2.0 * log(mc_rng_uniform(r.v[0]))), ang = 2.0 * M_PI * mc_rng_uniform(r.v[1]);
        x[i] = rad * cos(ang);
        if (i + 1 < n) x[i + 1] = rad * sin(ang);
    }
}

static void independent_series(void **state)
{
    (void)state;
    const long n = 1 << 16;
    double *x = malloc(n * sizeof *x);
    normals(x, n, 11);
    mc_estimate e = mc_stats_block(x, n);
    assert_true(fabs(e.mean) < 5.0 / sqrt((double)n));
    assert_true(fabs(e.error * sqrt((double)n) - 1.0) < 0.1);
    assert_true(e.inefficiency > 0.8 && e.inefficiency < 1.25);
    assert_true(e.converged);
    free(x);
}

/* AR(1), x_t = phi x_{t-1} + sqrt(1 - phi^2) e_t: unit variance, inefficiency (1 + phi)/(1 - phi). */
static void correlated_series(void **state)
{
    (void)state;
    const long n = 1 << 18;
    const double phi = 0.9, s_exact = (1 + phi) / (1 - phi);
    double *e = malloc(n * sizeof *e), *x = malloc(n * sizeof *x);
    normals(e, n, 12);
    x[0] = e[0];
    for (long i = 1; i < n; i++) x[i] = phi * x[i - 1] + sqrt(1 - phi * phi) * e[i];
    mc_estimate est = mc_stats_block(x, n);
    double se_exact = sqrt(s_exact / n);
    assert_true(est.inefficiency > 0.75 * s_exact && est.inefficiency < 1.25 * s_exact);
    assert_true(fabs(est.error / se_exact - 1.0) < 0.15);
    assert_true(fabs(est.n_independent - n / est.inefficiency) < 1e-6 * n);
    /* the naive error would be sqrt(19) times too small: blocking must not return it */
    assert_true(est.error > 3.0 / sqrt((double)n));
    free(e);
    free(x);
}

static void constant_and_tiny_series(void **state)
{
    (void)state;
    double c[8] = {2, 2, 2, 2, 2, 2, 2, 2};
    mc_estimate e = mc_stats_block(c, 8);
    assert_true(e.mean == 2.0 && e.error == 0.0);
    e = mc_stats_block(c, 1);
    assert_true(e.mean == 2.0 && isnan(e.error));
}

static void pooling_replicas(void **state)
{
    (void)state;
    mc_estimate ch[3] = {{1.0, 0.1, 2, 50, 1}, {2.0, 0.1, 2, 50, 1}, {3.0, 0.1, 2, 50, 1}};
    mc_estimate p = mc_stats_pool(ch, 3);
    assert_true(fabs(p.mean - 2.0) < 1e-15);
    assert_true(fabs(p.error - sqrt(1.0 / 3.0)) < 1e-15); /* sd 1 over sqrt(3) */
    assert_true(fabs(p.n_independent - 150) < 1e-12);
    assert_true(fabs(p.inefficiency - 2.0) < 1e-15);
    mc_estimate one = mc_stats_pool(ch, 1);
    assert_true(one.mean == 1.0 && one.error == 0.1);
    /* two replicas that happen to agree: the spread (0.001) would understate the error; the
     * chains' blocking errors give sqrt(0.1^2 + 0.2^2) / 2 */
    mc_estimate close[2] = {{1.0, 0.1, 2, 50, 1}, {1.002, 0.2, 2, 50, 1}};
    mc_estimate q = mc_stats_pool(close, 2);
    assert_true(fabs(q.error - sqrt(0.05) / 2) < 1e-15);
}

/* AR(1) with phi = 0.9 (inefficiency 19), n = 20000 (the blocked search), plus `offset` e^(-t/tau). */
static double *relaxing_series(long n, double offset, double tau, uint64_t seed)
{
    double *x = malloc(n * sizeof *x), phi = 0.9;
    normals(x, n, seed);
    for (long t = 1; t < n; t++) x[t] = phi * x[t - 1] + sqrt(1 - phi * phi) * x[t];
    for (long t = 0; t < n; t++) x[t] += offset * exp(-t / tau);
    return x;
}

static void equilibration_of_stationary_and_relaxing_series(void **state)
{
    (void)state;
    const long n = 20000;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        double *x = relaxing_series(n, 0.0, 1.0, seed);
        mc_equilibration e = mc_equilibration_detect(x, n);
        assert_true(e.start <= n / 4);                    /* stationary: no long cut */
        assert_true(fabs(e.drift_sigmas) < 4.0);          /* within chance */
        free(x);
        x = relaxing_series(n, 8.0, n / 15.0, seed);      /* a relaxation over the first ~third */
        e = mc_equilibration_detect(x, n);
        assert_true(e.start >= n / 10);                   /* the relaxing start is cut */
        assert_true(e.drift_sigmas < -5.0);               /* the first third sits high */
        free(x);
    }
    double short_series[10] = {0};
    assert_true(isnan(mc_equilibration_detect(short_series, 10).drift_sigmas)); /* too short: not tested */
}

static void equilibration_threshold(void **state)
{
    (void)state;
    assert_true(fabs(mc_equilibration_threshold(1, 0.01) - 2.5758) < 1e-3);   /* two-sided 1% */
    assert_true(fabs(mc_equilibration_threshold(8, 0.01) - 3.2272) < 1e-3);   /* 0.125% */
    assert_true(mc_equilibration_threshold(8000, 0.01) > 4.8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(independent_series), cmocka_unit_test(correlated_series),
        cmocka_unit_test(constant_and_tiny_series), cmocka_unit_test(pooling_replicas),
        cmocka_unit_test(equilibration_of_stationary_and_relaxing_series), cmocka_unit_test(equilibration_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
