/* Rotations for rigid bodies (src/mc_rotation.h): a rotation followed by its inverse returns the
 * original coordinates to rounding; the matrix of a long chain of renormalised compositions stays
 * orthonormal; a known axis-angle gives the known matrix; and a random walk of trial rotations,
 * every one accepted (infinite temperature), samples orientations uniformly: each matrix element
 * averages 0 and its square 1/3, within 4 blocking standard errors. A walk about one fixed axis
 * must fail that test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mc_rng.h"
#include "mc_rotation.h"
#include "mc_stats.h"

static mc_quat trial(uint64_t step, double max_angle)
{
    mc_rng4 r = mc_rng_block(99, 0, MC_RNG_TRIAL, step);
    return mc_quat_trial(mc_rng_uniform(r.v[0]), mc_rng_uniform(r.v[1]), mc_rng_uniform(r.v[2]),
                         max_angle);
}

static void inverse_returns_original(void **state)
{
    (void)state;
    double worst = 0.0;
    for (uint64_t k = 0; k < 10000; k++) {
        mc_quat q = trial(k, M_PI);
        mc_rng4 r = mc_rng_block(98, 0, MC_RNG_SETUP, k);
        double v[3] = {mc_rng_uniform(r.v[0]) - 0.5, mc_rng_uniform(r.v[1]) - 0.5, mc_rng_uniform(r.v[2]) - 0.5};
        double a[3], b[3];
        mc_quat_rotate(q, v, a);
        mc_quat_rotate(mc_quat_inverse(q), a, b);
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(b[i] - v[i]) / len);
    }
    /* two matrix products, each entry and sum rounded: about 10 roundings of |v| */
    printf("# rotation then inverse: max |dx| / |x| %.2g over 1e4 vectors\n", worst);
    assert_true(worst < 10 * DBL_EPSILON);
}

static void orthonormal_after_many_compositions(void **state)
{
    (void)state;
    mc_quat q = mc_quat_identity();
    for (uint64_t k = 0; k < 1000000; k++) q = mc_quat_normalize(mc_quat_multiply(trial(k, 0.3), q));
    double m[9], worst = 0.0;
    mc_quat_matrix(q, m);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double dot = m[3 * i] * m[3 * j] + m[3 * i + 1] * m[3 * j + 1] + m[3 * i + 2] * m[3 * j + 2];
            worst = fmax(worst, fabs(dot - (i == j)));
        }
    printf("# after 1e6 compositions: max |M M^T - I| %.2g\n", worst);
    assert_true(worst < 1e-14);
}

/* 90 degrees about z takes x to y; 120 degrees about (1,1,1) cycles x -> y -> z. */
static void known_rotations(void **state)
{
    (void)state;
    double x[3] = {1, 0, 0}, out[3];
    mc_quat qz = {cos(M_PI / 4), 0, 0, sin(M_PI / 4)};
    mc_quat_rotate(qz, x, out);
    assert_true(fabs(out[0]) < 1e-15 && fabs(out[1] - 1) < 1e-15 && fabs(out[2]) < 1e-15);
    double s = sin(M_PI / 3) / sqrt(3.0);
    mc_quat q3 = {cos(M_PI / 3), s, s, s};
    mc_quat_rotate(q3, x, out);
    assert_true(fabs(out[0]) < 1e-15 && fabs(out[1] - 1) < 1e-15 && fabs(out[2]) < 1e-15);
}

/* The random walk of orientations; fixed_axis confines every step to rotations about z. */
static int walk_is_uniform(int fixed_axis)
{
    enum { STEPS = 400000, EVERY = 20, SAMPLES = STEPS / EVERY };
    double *series = malloc(18 * (size_t)SAMPLES * sizeof *series);
    mc_quat q = mc_quat_identity();
    for (int k = 0; k < STEPS; k++) {
        mc_quat t = trial((uint64_t)k, 1.0);
        if (fixed_axis) t.x = t.y = 0.0, t = mc_quat_normalize(t);
        q = mc_quat_normalize(mc_quat_multiply(t, q));
        if ((k + 1) % EVERY) continue;
        double m[9];
        mc_quat_matrix(q, m);
        for (int e = 0; e < 9; e++) {
            series[(size_t)e * SAMPLES + k / EVERY] = m[e];
            series[(size_t)(9 + e) * SAMPLES + k / EVERY] = m[e] * m[e];
        }
    }
    int uniform = 1;
    double worst = 0.0;
    for (int e = 0; e < 18; e++) {
        mc_estimate est = mc_stats_block(series + (size_t)e * SAMPLES, SAMPLES);
        double expect = e < 9 ? 0.0 : 1.0 / 3.0, z = fabs(est.mean - expect) / est.error;
        worst = fmax(worst, z);
        if (!(z <= 4.0)) uniform = 0;
    }
    printf("# %s walk: worst |<m> - uniform| / se = %.2f over 9 elements and their squares\n",
           fixed_axis ? "fixed-axis" : "random-axis", worst);
    free(series);
    return uniform;
}

static void infinite_temperature_is_uniform(void **state)
{
    (void)state;
    assert_true(walk_is_uniform(0));
    assert_false(walk_is_uniform(1)); /* the test can fail */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inverse_returns_original),
        cmocka_unit_test(orthonormal_after_many_compositions),
        cmocka_unit_test(known_rotations),
        cmocka_unit_test(infinite_temperature_is_uniform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
