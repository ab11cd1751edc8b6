/* Philox4x32-10 as the chains draw it: Random123's known-answer vectors, the counter layout that
 * matches cuRAND, and the uniform and index maps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "mc_move.h"
#include "mc_rng.h"

/* Random123 kat_vectors, philox4x32 with 10 rounds: counter, key -> output. */
static void known_answers(void **state)
{
    (void)state;
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
         0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
         0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int t = 0; t < 3; t++) {
        const uint32_t *k = kat[t];
        /* mc_rng_block's layout: counter {step_lo, step_hi, chain, stream}, key {seed_lo, seed_hi} */
        uint64_t step = (uint64_t)k[1] << 32 | k[0], seed = (uint64_t)k[5] << 32 | k[4];
        mc_rng4 r = mc_rng_block(seed, k[2], k[3], step);
        for (int i = 0; i < 4; i++) assert_int_equal(r.v[i], k[6 + i]);
    }
}

static void uniform_and_index_ranges(void **state)
{
    (void)state;
    assert_true(mc_rng_uniform(0) > 0.0);
    assert_true(mc_rng_uniform(0xffffffffu) < 1.0);
    assert_int_equal(mc_rng_index(0, 500), 0);
    assert_int_equal(mc_rng_index(0xffffffffu, 500), 499);
}

/* 4e6 uniforms: mean within 5 standard errors of 1/2, variance within 5 of 1/12. */
static void uniform_moments(void **state)
{
    (void)state;
    const int blocks = 1000000;
    double s = 0.0, s2 = 0.0;
    for (int b = 0; b < blocks; b++) {
        mc_rng4 r = mc_rng_block(42, 7, MC_RNG_TRIAL, (uint64_t)b);
        for (int i = 0; i < 4; i++) {
            double u = mc_rng_uniform(r.v[i]);
            s += u;
            s2 += u * u;
        }
    }
    double n = 4.0 * blocks, mean = s / n, var = s2 / n - mean * mean;
    assert_true(fabs(mean - 0.5) < 5.0 * sqrt(1.0 / 12.0 / n));
    assert_true(fabs(var - 1.0 / 12.0) < 5.0 * sqrt(1.0 / 180.0 / n)); /* Var(u^2)-based bound */
}

/* Particle choice: chi-square over 100 particles from 1e6 trials, below the 0.9999 quantile
 * of chi2(99) (about 157). */
static void particle_choice_uniform(void **state)
{
    (void)state;
    enum { N = 100, TRIALS = 1000000 };
    static long count[N];
    for (uint64_t s = 0; s < TRIALS; s++) count[mc_trial_draw(9, 3, s, N, 0.1).particle]++;
    double chi2 = 0.0, expect = (double)TRIALS / N;
    for (int i = 0; i < N; i++) chi2 += (count[i] - expect) * (count[i] - expect) / expect;
    assert_true(chi2 < 157.0);
    assert_true(chi2 > 50.0); /* far too even is as wrong: the 1e-4 lower quantile is about 55 */
}

/* Streams, chains and seeds give different numbers; the same key and counter, the same. */
static void independence_of_keys(void **state)
{
    (void)state;
    mc_rng4 a = mc_rng_block(1, 0, MC_RNG_TRIAL, 5), b = mc_rng_block(1, 0, MC_RNG_TRIAL, 5);
    assert_memory_equal(&a, &b, sizeof a);
    mc_rng4 c = mc_rng_block(1, 1, MC_RNG_TRIAL, 5), d = mc_rng_block(1, 0, MC_RNG_ACCEPT, 5);
    mc_rng4 e = mc_rng_block(2, 0, MC_RNG_TRIAL, 5);
    assert_true(a.v[0] != c.v[0] && a.v[0] != d.v[0] && a.v[0] != e.v[0]);
}

/* Metropolis: downhill always; uphill with probability exp(-beta dE). */
static void metropolis_rate(void **state)
{
    (void)state;
    const int trials = 400000;
    int acc = 0;
    for (int s = 0; s < trials; s++) {
        assert_true(mc_metropolis_accept(-0.5, 1.0, 5, 1, (uint64_t)s));
        acc += mc_metropolis_accept(0.7, 2.0, 5, 1, (uint64_t)s);
    }
    double p = exp(-1.4), se = sqrt(p * (1 - p) / trials);
    assert_true(fabs((double)acc / trials - p) < 5 * se);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_answers),        cmocka_unit_test(uniform_and_index_ranges),
        cmocka_unit_test(uniform_moments),      cmocka_unit_test(particle_choice_uniform),
        cmocka_unit_test(independence_of_keys), cmocka_unit_test(metropolis_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
