/* The observables' table (src/mc_observable.c): each sample function on a hand-made context gives
 * its analytic value (the ideal-gas pressure rho kT plus the virial and corrections, the energy per
 * particle with its tail, N/V, U/N + P V/N, each Gibbs box's and phase's values with an empty box's
 * energy 0); mc_observable_applies marks the rows of nvt, npt, gibbs and rigid plans. */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "mc_observable.h"

#define CLOSE(a, b) assert_true(fabs((a) - (double)(b)) <= 1e-13 * (1.0 + fabs((double)(b))))

static const char *ini_nvt = "[system]\nn = 100\n[potential]\ncutoff = 2.5\ntail_correction = no\n"
                             "[ensemble]\ntemperature = 1.5\ndensity = 0.5\n[run]\nseed = 1\n";
static const char *ini_npt = "[system]\nn = 100\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\n"
                             "temperature = 1.2\npressure = 0.8\ndensity = 0.5\n[run]\nseed = 1\n";
static const char *ini_gibbs = "[system]\nn = 100\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = gibbs\n"
                               "temperature = 1.1\ndensity = 0.3\n[run]\nseed = 1\n";
static const char *ini_rigid = "[molecules]\ntypes = A2\ncounts = 64\ngeometry = A 0 0 -0.5; A 0 0 0.5\n"
                               "[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 2.0\ndensity = 0.1\n"
                               "[run]\nseed = 1\n";

static double sample(int id, const mc_sample_ctx *s)
{
    assert_int_equal(mc_observables[id].kind, MC_OBS_SERIES);
    assert_non_null(mc_observables[id].sample);
    return mc_observables[id].sample(s);
}

/* nvt: ideal gas (no pair energy, no virial) gives P = rho kT and U/N = 0; then the pair terms and
 * corrections add as the virial equation says: P = rho kT + W / (3 V) + p_tail + p_impulsive. */
static void one_box_values(void **state)
{
    (void)state;
    mc_plan *p = tu_plan(ini_nvt);
    mc_sample_ctx s;
    memset(&s, 0, sizeof s);
    s.plan = p, s.sp = &p->statepoint[0], s.n = s.nmol = 100, s.volume = 200.0;
    CLOSE(sample(MC_OBS_PRESSURE, &s), 0.5 * 1.5);
    CLOSE(sample(MC_OBS_ENERGY, &s), 0.0);
    s.energy_pair = -150.0, s.virial_pair = -90.0;
    s.corr.u_tail = -0.25, s.corr.p_tail = -0.125, s.corr.p_impulsive = 0.0625;
    CLOSE(sample(MC_OBS_ENERGY, &s), -1.5 - 0.25);
    CLOSE(sample(MC_OBS_PRESSURE, &s), 0.75 - 90.0 / 600.0 - 0.125 + 0.0625);
    CLOSE(sample(MC_OBS_DENSITY, &s), 0.5);
    mc_plan_destroy(p);
}

/* npt: H/N = U/N + P V / N with the imposed pressure. */
static void enthalpy_value(void **state)
{
    (void)state;
    mc_plan *p = tu_plan(ini_npt);
    mc_sample_ctx s;
    memset(&s, 0, sizeof s);
    s.plan = p, s.sp = &p->statepoint[0], s.n = s.nmol = 100, s.volume = 250.0, s.energy_pair = -300.0;
    CLOSE(sample(MC_OBS_DENSITY, &s), 0.4);
    CLOSE(sample(MC_OBS_ENTHALPY, &s), -3.0 + p->statepoint[0].pressure * 2.5);
    assert_true(p->statepoint[0].pressure > 0);
    mc_plan_destroy(p);
}

/* gibbs: each box's count, volume, energy per particle (0 for an empty box) and pressure; the
 * phases follow s.liquid. */
static void gibbs_values(void **state)
{
    (void)state;
    mc_plan *p = tu_plan(ini_gibbs);
    mc_sample_ctx s;
    memset(&s, 0, sizeof s);
    s.plan = p, s.sp = &p->statepoint[0];
    const double kT = p->statepoint[0].temperature;
    s.box[0] = (mc_gibbs_box_sample){.n = 80, .volume = 100, .sites = 80, .energy_pair = -400, .virial_pair = -60,
                                     .corr = {-0.5, -0.25, 0.0}};
    s.box[1] = (mc_gibbs_box_sample){.n = 0, .volume = 300, .sites = 0, .energy_pair = 0, .virial_pair = 0};
    s.liquid = 0;
    CLOSE(sample(MC_OBS_BOX0_PARTICLES, &s), 80);
    CLOSE(sample(MC_OBS_BOX1_VOLUME, &s), 300);
    CLOSE(sample(MC_OBS_BOX0_ENERGY, &s), -5.0 - 0.5);
    CLOSE(sample(MC_OBS_BOX1_ENERGY, &s), 0.0); /* empty: the ideal gas's */
    CLOSE(sample(MC_OBS_BOX0_PRESSURE, &s), 0.8 * kT - 60.0 / 300.0 - 0.25);
    CLOSE(sample(MC_OBS_BOX1_PRESSURE, &s), 0.0);
    CLOSE(sample(MC_OBS_LIQUID_DENSITY, &s), 0.8);
    CLOSE(sample(MC_OBS_VAPOUR_DENSITY, &s), 0.0);
    s.box[1].n = s.box[1].sites = 3, s.box[1].energy_pair = -0.6;
    s.liquid = 1; /* the labels follow s.liquid, not the box index */
    CLOSE(sample(MC_OBS_LIQUID_DENSITY, &s), 0.01);
    CLOSE(sample(MC_OBS_VAPOUR_ENERGY, &s), -5.5);
    CLOSE(sample(MC_OBS_LIQUID_ENERGY, &s), -0.2);
    CLOSE(sample(MC_OBS_LIQUID_PRESSURE, &s), 0.01 * kT);
    mc_plan_destroy(p);
}

/* Which rows each kind of plan has. */
static void applies_by_plan(void **state)
{
    (void)state;
    mc_plan *nvt = tu_plan(ini_nvt), *npt = tu_plan(ini_npt), *gibbs = tu_plan(ini_gibbs), *rigid = tu_plan(ini_rigid);
    const struct { int id, nvt, npt, gibbs, rigid; } rows[] = {
        {MC_OBS_ENERGY, 1, 1, 0, 1},           {MC_OBS_PRESSURE, 1, 1, 0, 1},
        {MC_OBS_DENSITY, 0, 1, 0, 0},          {MC_OBS_ENTHALPY, 0, 1, 0, 0},
        {MC_OBS_ACCEPTANCE, 1, 1, 1, 1},       {MC_OBS_HEAT_CAPACITY, 1, 1, 0, 1},
        {MC_OBS_VOLUME_ACCEPTANCE, 0, 1, 1, 0}, {MC_OBS_TRANSLATION_ACCEPTANCE, 0, 0, 0, 1},
        {MC_OBS_ROTATION_ACCEPTANCE, 0, 0, 0, 1}, {MC_OBS_BOX0_PARTICLES, 0, 0, 1, 0},
        {MC_OBS_LIQUID_DENSITY, 0, 0, 1, 0},   {MC_OBS_TRANSFER_ACCEPTANCE, 0, 0, 1, 0},
        {MC_OBS_SEPARATION, 0, 0, 1, 0},       {MC_OBS_DISPLACEMENT_ACCEPTANCE, 0, 0, 1, 0},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        const char *name = mc_observables[rows[k].id].name;
        if (mc_observable_applies(nvt, rows[k].id) != rows[k].nvt) fail_msg("%s on nvt", name);
        if (mc_observable_applies(npt, rows[k].id) != rows[k].npt) fail_msg("%s on npt", name);
        if (mc_observable_applies(gibbs, rows[k].id) != rows[k].gibbs) fail_msg("%s on gibbs", name);
        if (mc_observable_applies(rigid, rows[k].id) != rows[k].rigid) fail_msg("%s on rigid", name);
    }
    /* every row has a name and the one function its kind uses */
    for (int id = 0; id < MC_NOBS; id++) {
        const mc_observable *o = &mc_observables[id];
        assert_non_null(o->name);
        assert_true(o->kind == MC_OBS_SERIES ? o->sample != NULL
                    : o->kind == MC_OBS_PER_CHAIN ? o->value != NULL : o->derive != NULL);
    }
    mc_plan_destroy(nvt), mc_plan_destroy(npt), mc_plan_destroy(gibbs), mc_plan_destroy(rigid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_box_values),
        cmocka_unit_test(enthalpy_value),
        cmocka_unit_test(gibbs_values),
        cmocka_unit_test(applies_by_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
