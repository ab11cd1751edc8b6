/* CPU backend: the incrementally kept energy matches an independent O(N^2) recomputation on the
 * all-pairs and cell-list paths; a chain's trajectory depends only on (seed, chain), not on the
 * chains that share its backend; the step-size adaptation reaches the target acceptance. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pair.h"
#include "mc_backend.h"
#include "mc_chain.h"
#include "mc_run.h"

/* Brute force with round() minimum image, written apart from the backend's own loops. */
static double brute_energy(const mc_plan *p, const mc_chain *c)
{
    double u = 0.0, L = c->box_len;
    for (int i = 0; i < c->n; i++)
        for (int j = i + 1; j < c->n; j++) {
            double d[3] = {c->x[i] - c->x[j], c->y[i] - c->y[j], c->z[i] - c->z[j]}, r2 = 0.0;
            for (int a = 0; a < 3; a++) {
                d[a] -= L * round(d[a] / L);
                r2 += d[a] * d[a];
            }
            if (r2 < p->cutoff * p->cutoff) u += 4.0 * (pow(r2, -6.0) - pow(r2, -3.0));
        }
    return u;
}

static const char *ini_all_pairs =
    "[system]\nn = 200\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.2\n"
    "density = 0.7\nreplicas = 3\n[run]\nseed = 77\n";
/* 2000 particles at 0.7: box 14.2, 5 cells of 2.5 per edge, so the cell list is used */
static const char *ini_cells =
    "[system]\nn = 2000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.2\n"
    "density = 0.7\n[run]\nseed = 77\n";

static void running_energy_matches(const char *ini, int sweeps)
{
    mc_plan *p = tu_plan(ini);
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 0, &err);
    mc_backend *b = mc_backend_cpu.create(p, &c, 1, &err);
    assert_non_null(b);
    assert_true(fabs(c->energy_pair - brute_energy(p, c)) < 1e-9 * fabs(c->energy_pair));
    c->max_displacement = 0.15;
    assert_int_equal(mc_backend_cpu.sweep(b, sweeps, &err), MC_OK);
    assert_true(c->step == (uint64_t)sweeps * c->n);
    assert_true(c->accepted > c->step / 10 && c->accepted < c->step);
    double brute = brute_energy(p, c), running = c->energy_pair;
    if (!(fabs(running - brute) < 1e-9 * fabs(brute)))
        fail_msg("running %.15g vs brute force %.15g", running, brute);
    mc_measurement m;
    assert_int_equal(mc_backend_cpu.measure(b, 1, &m, &err), MC_OK);
    assert_true(fabs(m.energy_pair - brute) < 1e-10 * fabs(brute));
    assert_true(m.energy_pair_running == running);
    for (int i = 0; i < c->n; i++)
        assert_true(c->x[i] >= 0 && c->x[i] < c->box_len && c->z[i] >= 0 && c->z[i] < c->box_len);
    mc_backend_cpu.destroy(b);
    mc_chain_destroy(c);
    mc_plan_destroy(p);
}

static void all_pairs_energy(void **state) { (void)state; running_energy_matches(ini_all_pairs, 40); }
static void cell_list_energy(void **state) { (void)state; running_energy_matches(ini_cells, 5); }

/* Chain 2 run alone and run beside chains 0 and 1 must be bit-identical. */
/* npt: the energy of a trial volume is that of the scaled configuration (brute force on a copy
 * scaled here), applying it leaves exactly that configuration and energy, and a compressed box
 * crosses into the cell-list regime and back without losing track (cells rebuilt). */
static void volume_move_energy(void **state)
{
    (void)state;
    mc_plan *p = tu_plan("[system]\nn = 2000\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\n"
                         "temperature = 1.2\npressure = 1\ndensity = 0.5\n[run]\nseed = 78\n");
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 0, &err), *copy = mc_chain_create(p, 0, &err);
    mc_backend *b = mc_backend_cpu.create(p, &c, 1, &err);
    assert_non_null(b);
    c->max_displacement = 0.15;
    /* box 15.9: 6 cells; 0.75 of it, 11.9, has 4; 0.6 of it, 9.5, has none */
    const double scales[] = {0.75, 0.8, 1.3, 0.98};
    for (int t = 0; t < 4; t++) {
        assert_int_equal(mc_backend_cpu.sweep(b, 2, &err), MC_OK);
        double s = scales[t], e_trial = 0.0;
        assert_int_equal(mc_backend_cpu.volume_energy(b, &s, &e_trial, &err), MC_OK);
        mc_chain_set_box(copy, c->box_len * s);
        for (int i = 0; i < c->n; i++) {
            copy->x[i] = c->x[i] * s, copy->y[i] = c->y[i] * s, copy->z[i] = c->z[i] * s;
        }
        double brute = brute_energy(p, copy);
        if (!(fabs(e_trial - brute) < 1e-9 * fabs(brute)))
            fail_msg("scale %g: trial energy %.15g vs brute force %.15g", s, e_trial, brute);
        assert_int_equal(mc_backend_cpu.volume_apply(b, &s, &e_trial, &err), MC_OK);
        assert_true(c->box_len == copy->box_len && c->energy_pair == e_trial);
        assert_true(fabs(brute_energy(p, c) - brute) < 1e-12 * fabs(brute));
    }
    assert_int_equal(mc_backend_cpu.sweep(b, 2, &err), MC_OK); /* moves through the rebuilt cells */
    double brute = brute_energy(p, c);
    if (!(fabs(c->energy_pair - brute) < 1e-9 * fabs(brute)))
        fail_msg("after rescaling: running %.15g vs brute force %.15g", c->energy_pair, brute);
    mc_backend_cpu.destroy(b);
    mc_chain_destroy(c);
    mc_chain_destroy(copy);
    mc_plan_destroy(p);
}

/* A three-species mixture: the running energy after sweeps equals a brute-force sum with the
 * pair constants mixed here by hand (Lorentz-Berthelot, one override), on the all-pairs and the
 * cell-list paths; the species are spread over the box by the starting shuffle. */
static void mixture_energy(const char *n_counts, int sweeps)
{
    static const double sig[3] = {1.0, 1.2, 0.9}, eps[3] = {1.0, 0.7, 1.3};
    char ini[512];
    snprintf(ini, sizeof ini,
             "[mixture]\nspecies = A, B, C\ncounts = %s\nsigma = 1, 1.2, 0.9\nepsilon = 1, 0.7, 1.3\n"
             "pair_epsilon = A-C:0.5\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.5\n"
             "density = 0.6\n[run]\nseed = 79\n", n_counts);
    mc_plan *p = tu_plan(ini);
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 0, &err);
    mc_backend *b = mc_backend_cpu.create(p, &c, 1, &err);
    assert_non_null(b);
    c->max_displacement = 0.15;
    assert_int_equal(mc_backend_cpu.sweep(b, sweeps, &err), MC_OK);
    double u = 0.0, L = c->box_len, com[3][3] = {{0}};
    for (int i = 0; i < c->n; i++) {
        int a = mc_species_of(&p->species, i);
        com[a][0] += c->x[i] / p->species.count[a];
        for (int j = i + 1; j < c->n; j++) {
            int bb = mc_species_of(&p->species, j);
            double sg = 0.5 * (sig[a] + sig[bb]), ep = sqrt(eps[a] * eps[bb]);
            if ((a == 0 && bb == 2) || (a == 2 && bb == 0)) ep = 0.5;
            double d[3] = {c->x[i] - c->x[j], c->y[i] - c->y[j], c->z[i] - c->z[j]}, r2 = 0.0;
            for (int k = 0; k < 3; k++) {
                d[k] -= L * round(d[k] / L);
                r2 += d[k] * d[k];
            }
            double sr6 = pow(sg * sg / r2, 3.0);
            if (r2 < 2.5 * 2.5) u += 4.0 * ep * (sr6 * sr6 - sr6);
        }
    }
    if (!(fabs(c->energy_pair - u) < 1e-9 * fabs(u)))
        fail_msg("%s: running %.15g vs brute force %.15g", n_counts, c->energy_pair, u);
    for (int a = 0; a < 3; a++) /* each species spread over the box, not in one slab */
        assert_true(fabs(com[a][0] - 0.5 * L) < 0.15 * L);
    mc_backend_cpu.destroy(b);
    mc_chain_destroy(c);
    mc_plan_destroy(p);
}

static void mixture_all_pairs(void **state) { (void)state; mixture_energy("100, 60, 40", 20); }
/* 2000 at 0.6: box 14.9, 5 cells of 2.5 */
static void mixture_cells(void **state) { (void)state; mixture_energy("1000, 600, 400", 3); }

static void chain_independent_of_company(void **state)
{
    (void)state;
    mc_plan *p = tu_plan(ini_all_pairs);
    mc_err err = {0, ""};
    mc_chain *group[3], *alone = mc_chain_create(p, 2, &err);
    for (int k = 0; k < 3; k++) group[k] = mc_chain_create(p, k, &err);
    mc_backend *bg = mc_backend_cpu.create(p, group, 3, &err), *ba = mc_backend_cpu.create(p, &alone, 1, &err);
    assert_int_equal(mc_backend_cpu.sweep(bg, 10, &err), MC_OK);
    assert_int_equal(mc_backend_cpu.sweep(ba, 10, &err), MC_OK);
    assert_memory_equal(group[2]->x, alone->x, sizeof(double) * (size_t)p->n);
    assert_true(group[2]->energy_pair == alone->energy_pair && group[2]->accepted == alone->accepted);
    assert_true(group[0]->energy_pair != group[2]->energy_pair); /* other chains, other streams */
    mc_backend_cpu.destroy(bg);
    mc_backend_cpu.destroy(ba);
    for (int k = 0; k < 3; k++) mc_chain_destroy(group[k]);
    mc_chain_destroy(alone);
    mc_plan_destroy(p);
}

/* start = melt in the Gibbs ensemble: the two boxes draw their points from different keys (they
 * once shared them, so that box 1 started as box 0 scaled). */
static void gibbs_melt_boxes_differ(void **state)
{
    (void)state;
    mc_err err = {0, ""};
    mc_plan *p = tu_plan("[system]\nn = 200\nstart = melt\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = gibbs\n"
                         "temperature = 1.0\ndensity = 0.1\n");
    mc_chain *c = mc_chain_create(p, 0, &err);
    assert_non_null(c);
    assert_int_equal(c->gibbs_count[0][0], 100); /* 100 particles each, the first in box 0 */
    assert_int_equal(c->gibbs_count[1][0], 100);
    int same = 0;
    for (int k = 0; k < 100; k++)
        same += fabs(c->x[k] / c->gibbs_box_len[0] - c->x[100 + k] / c->gibbs_box_len[1]) < 1e-9;
    assert_int_equal(same, 0);
    mc_chain_destroy(c);
    mc_plan_destroy(p);
}

static void adaptation_reaches_target(void **state)
{
    (void)state;
    mc_plan *p = tu_plan("[system]\nn = 108\n[potential]\ncutoff = 2.5\n[ensemble]\n"
                         "temperature = 1.0\ndensity = 0.8\n[moves]\ntarget_acceptance = 0.3\n"
                         "[run]\nequilibration = 400\nproduction = 400\nsample_every = 10\n");
    mc_err err = {0, ""};
    mc_run *r = mc_run_create(p, &mc_backend_cpu, 0, 1, &err);
    assert_non_null(r);
    while (!mc_run_finished(r)) assert_int_equal(mc_run_round(r, &err), MC_OK);
    double acc = mc_chain_production_acceptance(mc_run_chain(r, 0));
    if (fabs(acc - 0.3) > 0.03) fail_msg("production acceptance %.3f, target 0.3", acc);
    assert_int_equal(mc_run_chain(r, 0)->nsamples, 40);
    mc_run_destroy(r);
    mc_plan_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_pairs_energy),
        cmocka_unit_test(cell_list_energy),
        cmocka_unit_test(volume_move_energy),
        cmocka_unit_test(mixture_all_pairs),
        cmocka_unit_test(mixture_cells),
        cmocka_unit_test(chain_independent_of_company),
        cmocka_unit_test(gibbs_melt_boxes_differ),
        cmocka_unit_test(adaptation_reaches_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
