/* Replica exchange's pure parts (src/mc_exchange.c): the ladder geometry along both axes, the
 * acceptance rule against its closed form, the decisions (neighbours only, symmetric, even and odd
 * pairs in turn, a fixed seed giving fixed decisions), the configuration hand-off and the walkers'
 * traversal count. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>

#include "mc_chain.h"
#include "mc_exchange.h"

/* chain -> (ladder, rung) -> chain is the identity; a ladder's rungs share everything but the axis */
static void check_geometry(const mc_plan *p, int rungs, int ladders)
{
    assert_int_equal(mc_exchange_rungs(p), rungs);
    assert_int_equal(mc_exchange_ladders(p), ladders);
    for (int c = 0; c < p->nchains; c++)
        assert_int_equal(mc_exchange_chain(p, mc_exchange_ladder_of(p, c), mc_exchange_rung_of(p, c)), c);
    for (int l = 0; l < ladders; l++)
        for (int r = 1; r < rungs; r++) {
            int a = mc_exchange_chain(p, l, r - 1), b = mc_exchange_chain(p, l, r);
            const mc_statepoint *sa = &p->statepoint[mc_plan_statepoint_of(p, a)], *sb = &p->statepoint[mc_plan_statepoint_of(p, b)];
            assert_int_equal(a % p->replicas, b % p->replicas);
            if (p->exchange_axis == CFG_EXCHANGE_TEMPERATURE) {
                assert_true(sa->temperature < sb->temperature);
                assert_true(sa->density == sb->density && sa->pressure == sb->pressure);
            } else {
                assert_true(sa->pressure < sb->pressure && sa->temperature == sb->temperature);
            }
        }
}

static void geometry(void **state)
{
    (void)state;
    mc_plan *p = tu_plan("[system]\nn = 32\n[potential]\ncutoff = 1.5\n[ensemble]\ntemperature = 1:2:5\n"
                         "density = 0.3, 0.4, 0.5\nreplicas = 3\nexchange_every = 4\n");
    check_geometry(p, 5, 9);
    mc_plan_destroy(p);
    p = tu_plan("[system]\nn = 32\n[potential]\ncutoff = 1.5\n[ensemble]\ntype = npt\ntemperature = 1, 2\n"
                "pressure = 0.5:2:4\nreplicas = 2\nexchange_every = 1\nexchange_axis = pressure\n");
    check_geometry(p, 4, 4);
    mc_plan_destroy(p);
}

/* nvt at one density: delta = (beta_a - beta_b)(U_b - U_a), the tail terms cancelling; npt along
 * pressure: delta = beta (P_a - P_b)(V_b - V_a) with equal energies (tails off) */
static void acceptance_rule(void **state)
{
    (void)state;
    mc_plan *p = tu_plan("[system]\nn = 32\n[potential]\ncutoff = 1.5\n[ensemble]\ntemperature = 1, 1.5\n"
                         "density = 0.3\nexchange_every = 4\n");
    mc_exchange_config all[2] = {{-50.0, p->statepoint[0].box_len}, {-42.0, p->statepoint[1].box_len}};
    double expect = (1.0 / 1.0 - 1.0 / 1.5) * (-42.0 - -50.0);
    assert_true(fabs(mc_exchange_delta(p, 0, 1, all) - expect) < 1e-12);
    assert_true(fabs(mc_exchange_delta(p, 1, 0, all) - expect) < 1e-12); /* symmetric in the pair */
    mc_plan_destroy(p);
    p = tu_plan("[system]\nn = 32\n[potential]\ncutoff = 1.5\ntail_correction = no\n[ensemble]\ntype = npt\n"
                "temperature = 2\npressure = 1, 3\nexchange_every = 1\nexchange_axis = pressure\n");
    mc_exchange_config npt[2] = {{-30.0, 5.0}, {-30.0, 4.0}};
    expect = (p->statepoint[0].pressure - p->statepoint[1].pressure) * (64.0 - 125.0) / 2.0;
    assert_true(fabs(mc_exchange_delta(p, 0, 1, npt) - expect) < 1e-12);
    mc_plan_destroy(p);
}

static void decisions(void **state)
{
    (void)state;
    mc_plan *p = tu_plan("[system]\nn = 32\n[potential]\ncutoff = 1.5\n[ensemble]\ntemperature = 1:2:6\n"
                         "density = 0.3\nreplicas = 2\nexchange_every = 4\n[run]\nseed = 5\n");
    mc_exchange_config all[12];
    for (int c = 0; c < 12; c++) all[c] = (mc_exchange_config){-60.0 + 2.0 * (c / 2) + 0.5 * (c % 2), p->statepoint[0].box_len};
    int partner[12], again[12], swaps = 0;
    unsigned char tried[12], tried_again[12];
    for (long step = 1; step <= 200; step++) {
        mc_exchange_decide(p, step, all, partner, tried);
        mc_exchange_decide(p, step, all, again, tried_again);
        for (int c = 0; c < 12; c++) {
            assert_int_equal(partner[c], again[c]); /* a pure function of (seed, ladder, step) */
            if (tried[c]) assert_int_equal(mc_exchange_rung_of(p, c) % 2, step % 2);
            if (partner[c] < 0) continue;
            swaps++;
            assert_int_equal(partner[partner[c]], c);
            assert_int_equal(abs(mc_exchange_rung_of(p, c) - mc_exchange_rung_of(p, partner[c])), 1);
            assert_int_equal(mc_exchange_ladder_of(p, c), mc_exchange_ladder_of(p, partner[c]));
        }
    }
    assert_true(swaps > 0);
    mc_plan_destroy(p);
}

/* pack then unpack into another chain gives the configuration and walker record bit for bit; the
 * walker counts a traversal only on arriving at the end opposite the last one it saw */
static void hand_off_and_traversals(void **state)
{
    (void)state;
    mc_err err = {0, ""};
    mc_plan *p = tu_plan("[system]\nn = 32\n[potential]\ncutoff = 1.5\n[ensemble]\ntemperature = 1:2:3\n"
                         "density = 0.3\nexchange_every = 4\n");
    mc_chain *a = mc_chain_create(p, 0, &err), *b = mc_chain_create(p, 2, &err);
    assert_non_null(a), assert_non_null(b);
    a->x[3] = 0.123456789, a->energy_pair = -17.25, a->walker = 0, a->walker_end = 1, a->walker_traversals = 3;
    double *buf = malloc(mc_exchange_config_len(p) * sizeof *buf);
    mc_exchange_pack(p, a, buf);
    mc_exchange_unpack(p, b, buf);
    assert_true(b->x[3] == 0.123456789 && b->energy_pair == -17.25 && b->box_len == a->box_len);
    assert_int_equal(b->walker, 0), assert_int_equal(b->walker_end, 1), assert_int_equal(b->walker_traversals, 3);
    mc_exchange_visit(p, b); /* chain 2 is the top rung: the walker was last at the top already */
    assert_int_equal(b->walker_traversals, 3);
    mc_exchange_visit(p, a); /* chain 0, the bottom: a pass from top to bottom */
    assert_int_equal(a->walker_traversals, 4), assert_int_equal(a->walker_end, 0);
    free(buf);
    mc_chain_destroy(a), mc_chain_destroy(b);
    mc_plan_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(geometry), cmocka_unit_test(acceptance_rule),
                                       cmocka_unit_test(decisions), cmocka_unit_test(hand_off_and_traversals)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
