/* Rigid molecules on the host: energies of small hand-built configurations against site-site
 * sums written out in the test (two benzene molecules stacked and T-shaped; a heteronuclear
 * diatomic pair with Lorentz-Berthelot mixing), a rotation move and its inverse, the wall, the
 * hard core, and the molecule tables the config builds (centre of mass, intermolecular pair
 * counts, kinetic heat capacity). */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_chain.h"
#include "mc_rigid.h"
#include "mc_rigid_host.h"

static double lj(double r, double sigma, double eps)
{
    double s6 = pow(sigma / r, 6);
    return 4.0 * eps * (s6 * s6 - s6);
}

/* Sum of LJ over every site of a with every site of b (n sites each, one species). */
static double site_sum(double a[][3], double b[][3], int na, int nb, double sigma, double eps)
{
    double u = 0.0;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            u += lj(sqrt(pow(a[i][0] - b[j][0], 2) + pow(a[i][1] - b[j][1], 2) + pow(a[i][2] - b[j][2], 2)), sigma, eps);
    return u;
}

/* The hexagon's vertices (side 0.139 nm) from the test's own cos and sin, as the config text
 * states them (9 digits: an INI line holds at most 200 characters). */
static void hexagon(double v[6][3])
{
    for (int k = 0; k < 6; k++) {
        char text[32];
        snprintf(text, sizeof text, "%.9g", 0.139 * cos(k * M_PI / 3));
        v[k][0] = strtod(text, NULL);
        snprintf(text, sizeof text, "%.9g", 0.139 * sin(k * M_PI / 3));
        v[k][1] = strtod(text, NULL);
        v[k][2] = 0.0;
    }
}

/* Two benzene molecules. */
static mc_plan *benzene_plan(void)
{
    char ini[2048], sites[1024] = "";
    double v[6][3];
    hexagon(v);
    for (int k = 0; k < 6; k++) {
        char site[128];
        snprintf(site, sizeof site, "%sCH %.9g %.9g 0", k ? ";" : "", v[k][0], v[k][1]);
        strcat(sites, site);
    }
    snprintf(ini, sizeof ini,
             "[system]\nunits = real\nboundary = none\nlattice_constant = 3\n[molecules]\ntypes = benzene\n"
             "counts = 2\ngeometry = %s\n[mixture]\nspecies = CH\nsigma = 0.375\nepsilon = 0.46\n"
             "mass = 13.019\n[potential]\ncutoff = none\ntail_correction = no\n[ensemble]\n"
             "temperature = 298\n[rdf]\nrmax = 1\n", sites);
    return tu_plan(ini);
}

static void benzene_pair(double separation, int t_shaped, double *engine, double *by_hand)
{
    mc_plan *p = benzene_plan();
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 0, &err);
    assert_non_null(c);
    double origin[3] = {0, 0, 0}, above[3] = {0, 0, separation};
    mc_quat identity = {1, 0, 0, 0}, about_x = {cos(M_PI / 4), sin(M_PI / 4), 0, 0}; /* 90 degrees */
    mc_rigid_set(p, c, 0, origin, identity);
    mc_rigid_set(p, c, 1, above, t_shaped ? about_x : identity);
    *engine = mc_rigid_measure(p, c, 0, NULL).energy;
    double a[6][3], b[6][3];
    hexagon(a);
    for (int k = 0; k < 6; k++) {
        /* turned 90 degrees about x: (x, y, 0) -> (x, 0, y) */
        b[k][0] = a[k][0], b[k][1] = t_shaped ? 0 : a[k][1], b[k][2] = separation + (t_shaped ? a[k][1] : 0);
    }
    *by_hand = site_sum(a, b, 6, 6, 0.375, 0.46);
    mc_chain_destroy(c);
    mc_plan_destroy(p);
}

static void benzene_dimers(void **state)
{
    (void)state;
    double e, h;
    benzene_pair(0.34, 0, &e, &h);
    printf("# stacked at 0.34 nm: engine %.12f, by hand %.12f kJ/mol\n", e, h);
    assert_true(fabs(e - h) < 1e-12 * fabs(h) && h > 0); /* closer than sigma: repulsive */
    benzene_pair(0.40, 0, &e, &h);
    printf("# stacked at 0.40 nm: engine %.12f, by hand %.12f kJ/mol\n", e, h);
    assert_true(fabs(e - h) < 1e-12 * fabs(h) && h < 0);
    benzene_pair(0.60, 1, &e, &h);
    printf("# T-shaped at 0.60 nm: engine %.12f, by hand %.12f kJ/mol\n", e, h);
    assert_true(fabs(e - h) < 1e-12 * fabs(h) && h < 0);
}

/* A (14 g/mol, sigma 0.30, eps 0.8) - B (16, 0.34, 1.2) at 0.2 nm: the centre of mass is
 * 16/30 of the bond from A. */
static void diatomic_pair(void **state)
{
    (void)state;
    mc_plan *p = tu_plan("[system]\nunits = real\nboundary = none\nlattice_constant = 3\n[molecules]\n"
                         "types = AB\ncounts = 2\ngeometry = A 0 0 0; B 0 0 0.2\n[mixture]\nspecies = A, B\n"
                         "sigma = 0.30, 0.34\nepsilon = 0.8, 1.2\nmass = 14, 16\n[potential]\ncutoff = none\n"
                         "tail_correction = no\n[ensemble]\ntemperature = 100\n[rdf]\nrmax = 1\n");
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 0, &err);
    assert_non_null(c);
    double zA = -0.2 * 16.0 / 30.0, zB = 0.2 * 14.0 / 30.0;
    assert_true(fabs(p->mol.type[0].body[0][2] - zA) < 1e-15 && fabs(p->mol.type[0].body[1][2] - zB) < 1e-15);
    double origin[3] = {0, 0, 0}, beside[3] = {0.4, 0.05, 0};
    mc_quat identity = {1, 0, 0, 0}, flip = {0, 1, 0, 0}; /* 180 degrees about x: (x, y, z) -> (x, -y, -z) */
    mc_rigid_set(p, c, 0, origin, identity);
    mc_rigid_set(p, c, 1, beside, flip);
    double engine = mc_rigid_measure(p, c, 0, NULL).energy;
    double A1[3] = {0, 0, zA}, B1[3] = {0, 0, zB}, A2[3] = {0.4, 0.05, -zA}, B2[3] = {0.4, 0.05, -zB};
    double sAB = 0.32, eAB = sqrt(0.8 * 1.2);
#define DIST(u, v) sqrt(pow(u[0] - v[0], 2) + pow(u[1] - v[1], 2) + pow(u[2] - v[2], 2))
    double by_hand = lj(DIST(A1, A2), 0.30, 0.8) + lj(DIST(B1, B2), 0.34, 1.2) + lj(DIST(A1, B2), sAB, eAB) +
                     lj(DIST(B1, A2), sAB, eAB);
#undef DIST
    printf("# diatomic pair: engine %.12f, by hand %.12f kJ/mol\n", engine, by_hand);
    assert_true(fabs(engine - by_hand) < 1e-9 * fabs(by_hand));
    /* intermolecular pairs: A-A 1, A-B 2 (the two within molecules left out), B-B 1 */
    assert_true(p->mol.inter_pairs[0] == 1 && p->mol.inter_pairs[1] == 2 && p->mol.inter_pairs[2] == 1);
    assert_true(fabs(p->mol.kinetic_per_site - 2.5 / 2) < 1e-15); /* linear: (3 + 2)/2 per molecule */
    mc_chain_destroy(c);
    mc_plan_destroy(p);
}

/* A trial rotation and then its inverse put the sites back to rounding. */
static void rotation_and_inverse(void **state)
{
    (void)state;
    mc_plan *p = benzene_plan();
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 0, &err);
    double before[18], worst = 0.0, centre[3] = {c->cx[0], c->cy[0], c->cz[0]};
    for (int s = 0; s < 6; s++) before[3 * s] = c->x[s], before[3 * s + 1] = c->y[s], before[3 * s + 2] = c->z[s];
    for (int step = 0; step < 1000; step++) {
        mc_rigid_trial t = mc_rigid_trial_draw(11, 0, (uint64_t)step, 2, p->mol.first, 0.1, M_PI);
        if (!t.rotate) continue;
        mc_quat q = mc_chain_quat(c, 0);
        mc_rigid_set(p, c, 0, centre, mc_quat_normalize(mc_quat_multiply(t.turn, q)));
        mc_rigid_set(p, c, 0, centre, mc_quat_normalize(mc_quat_multiply(mc_quat_inverse(t.turn), mc_chain_quat(c, 0))));
        for (int s = 0; s < 6; s++)
            worst = fmax(worst, fmax(fabs(c->x[s] - before[3 * s]), fmax(fabs(c->y[s] - before[3 * s + 1]), fabs(c->z[s] - before[3 * s + 2]))));
    }
    printf("# 1000 draws: rotation then inverse, largest site difference %.3g nm\n", worst);
    assert_true(worst < 1e-14);
    mc_chain_destroy(c);
    mc_plan_destroy(p);
}

/* Molecules of many sites (MC_MAX_SITES, 64): two of 60 sites, a 3 x 4 x 5 block of spacing 0.5
 * over continuation lines, placed by hand, their energy against the 3600 site pairs summed by hand; a 65th site is
 * refused by name. */
static void many_site_molecules(void **state)
{
    (void)state;
    char ini[8192] = "[system]\nboundary = none\nlattice_constant = 8\n[molecules]\ntypes = block\ncounts = 2\ngeometry = ";
    double body[60][3], mean[3] = {0, 0, 0};
    for (int k = 0; k < 60; k++) {
        body[k][0] = 0.5 * (k % 3), body[k][1] = 0.5 * (k / 3 % 4), body[k][2] = 0.5 * (k / 12);
        snprintf(ini + strlen(ini), sizeof ini - strlen(ini), "%sA %g %g %g", k ? ";\n  " : "", body[k][0], body[k][1], body[k][2]);
        for (int d = 0; d < 3; d++) mean[d] += body[k][d] / 60.0;
    }
    const char *rest = "\n[potential]\ncutoff = none\ntail_correction = no\n[ensemble]\ntemperature = 1\n[rdf]\nrmax = 1\n";
    strcat(ini, rest);
    mc_plan *p = tu_plan(ini);
    assert_int_equal(p->mol.max_sites, 60);
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 0, &err);
    assert_non_null(c);
    double a[3] = {0, 0, 0}, b[3] = {2.6, 0.3, -0.2};
    mc_quat identity = {1, 0, 0, 0}, flip = {0, 1, 0, 0}; /* 180 degrees about x: (x, y, z) -> (x, -y, -z) */
    mc_rigid_set(p, c, 0, a, identity);
    mc_rigid_set(p, c, 1, b, flip);
    double engine = mc_rigid_measure(p, c, 0, NULL).energy, by_hand = 0.0;
    for (int i = 0; i < 60; i++)
        for (int j = 0; j < 60; j++) {
            double u[3] = {body[i][0] - mean[0], body[i][1] - mean[1], body[i][2] - mean[2]};
            double v[3] = {b[0] + body[j][0] - mean[0], b[1] - (body[j][1] - mean[1]), b[2] - (body[j][2] - mean[2])};
            by_hand += lj(sqrt(pow(u[0] - v[0], 2) + pow(u[1] - v[1], 2) + pow(u[2] - v[2], 2)), 1.0, 1.0);
        }
    printf("# two molecules of 60 sites: engine %.12f, by hand %.12f\n", engine, by_hand);
    assert_true(fabs(engine - by_hand) < 1e-9 * fabs(by_hand));
    mc_chain_destroy(c);
    mc_plan_destroy(p);

    char too_many[8192];
    snprintf(too_many, sizeof too_many, "%.*s", (int)(strstr(ini, rest) - ini), ini);
    for (int k = 60; k < 65; k++) snprintf(too_many + strlen(too_many), sizeof too_many - strlen(too_many), ";\n  A 9 9 %d", k);
    strcat(too_many, rest);
    cfg cf;
    assert_int_equal(cfg_parse(&cf, too_many, "many.ini", &err), MC_OK);
    assert_null(mc_plan_create(&cf, &err));
    printf("# 65 sites: %s\n", err.msg);
    assert_non_null(strstr(err.msg, "molecule block: at most 64 sites"));
    cfg_fini(&cf);
}

static void wall_and_hard_core(void **state)
{
    (void)state;
    assert_true(mc_wall_energy(0, 0, 2.9, 3.0, 5.0) == 0.0);
    assert_true(fabs(mc_wall_energy(0, 3.0, 4.0, 3.0, 5.0) - 0.5 * 5.0 * 4.0) < 1e-14); /* r = 5 */
    pair_params lj1 = pair_lj_make(1.0, 1.0, INFINITY, 0);
    assert_true(isinf(mc_site_pair_energy(0.25, &lj1, 0.36)));
    assert_true(mc_site_pair_energy(0.49, &lj1, 0.36) == pair_energy(0.49, &lj1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(benzene_dimers),
        cmocka_unit_test(diatomic_pair),
        cmocka_unit_test(rotation_and_inverse),
        cmocka_unit_test(wall_and_hard_core), cmocka_unit_test(many_site_molecules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
