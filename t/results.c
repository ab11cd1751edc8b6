/* Results pooling (src/mc_results.c): chains whose series are known (constant per chain, so each
 * chain's mean is exact and its blocking error 0) pool per state point to the mean of their means
 * with the standard error of that mean from their spread, sqrt(sum (m_i - m)^2 / (r (r - 1))); a
 * state point's chains only. */
#include "testutil.h"

#include <math.h>

#include "mc_chain.h"
#include "mc_results.h"

static void pooled_mean_and_error(void **state)
{
    (void)state;
    mc_plan *p = tu_plan("[system]\nn = 32\n[potential]\ncutoff = 1.9\n[ensemble]\ntemperature = 1.0, 2.0\n"
                         "density = 0.5\nreplicas = 4\n[run]\nseed = 5\nproduction = 40\nsample_every = 4\n");
    mc_err err = {0, ""};
    assert_int_equal(p->nchains, 8);
    mc_results *r = mc_results_create(p, &err);
    assert_non_null(r);
    /* chain k's energy series is constant v[k]: state point 0 holds 1, 2, 3, 6 and state point 1
     * holds -1, -1, -1, -1 (spread 0) */
    const double v[8] = {1, 2, 3, 6, -1, -1, -1, -1};
    for (int k = 0; k < p->nchains; k++) {
        mc_chain *c = mc_chain_create(p, k, &err);
        assert_non_null(c);
        assert_int_equal(c->statepoint, k / 4);
        assert_non_null(c->series[MC_OBS_ENERGY]);
        c->nsamples = p->nsamples;
        for (long i = 0; i < c->nsamples; i++) c->series[MC_OBS_ENERGY][i] = v[k];
        for (int id = 0; id < MC_NOBS; id++) /* the other series: some values, not the ones checked */
            if (id != MC_OBS_ENERGY && c->series[id])
                for (long i = 0; i < c->nsamples; i++) c->series[id][i] = 1.0 + 0.01 * (double)(i % 3);
        mc_results_add_chain(r, p, c);
        assert_true(r->chain_obs[MC_OBS_ENERGY][k].mean == v[k]);
        mc_chain_destroy(c);
    }
    mc_results_pool(r, p);
    /* state point 0: mean 3, sum of squares 4 + 1 + 0 + 9 = 14, error sqrt(14 / 12) */
    mc_estimate e0 = r->obs[MC_OBS_ENERGY][0], e1 = r->obs[MC_OBS_ENERGY][1];
    if (!(fabs(e0.mean - 3.0) < 1e-15 && fabs(e0.error - sqrt(14.0 / 12.0)) < 1e-15))
        fail_msg("state point 0: %.17g +- %.17g, expected 3 +- %.17g", e0.mean, e0.error, sqrt(14.0 / 12.0));
    assert_true(e1.mean == -1.0 && e1.error == 0.0);
    assert_null(r->obs[MC_OBS_ENTHALPY]); /* nvt: no enthalpy rows */
    mc_results_destroy(r);
    mc_plan_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pooled_mean_and_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
