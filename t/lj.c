/* NIST SRSW reference energies and virials of LJ configuration 4, through the CPU backend's full
 * recomputation (all-pairs path) and, replicated 2x2x2, through its cell-list path. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pair.h"
#include "mc_backend.h"
#include "mc_chain.h"

/* the float pair functions, as the GPU's single precision compiles them (pair.h gives C only the
 * double ones) */
#define PAIR_REAL float
#define PAIR_FN(name) name##_f
#include "pair_fn.inc"
#undef PAIR_REAL
#undef PAIR_FN

/* U and W of config 4 (or its 2x2x2 replica) at the given cutoff and scheme, via mc_backend_cpu. */
static mc_measurement measure_nist4_scheme(double cutoff, const char *scheme, int replicate,
                                           double *u_tail_total)
{
    double x[30], y[30], z[30];
    tu_load_nist4(x, y, z);
    int m = replicate ? 2 : 1, n = 30 * m * m * m;
    char ini[512];
    /* density 30/512 gives a box edge of exactly 8 (16 replicated) */
    snprintf(ini, sizeof ini,
             "[system]\nn = %d\nlattice = sc\n[potential]\ncutoff = %.17g\ncutoff_scheme = %s\n"
             "[ensemble]\ntemperature = 1\ndensity = 0.05859375\n[run]\nproduction = 1\n"
             "sample_every = 1\n", n, cutoff, scheme);
    mc_plan *plan = tu_plan(ini);
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(plan, 0, &err);
    assert_non_null(c);
    assert_true(fabs(c->box_len - 8.0 * m) < 1e-13);
    int k = 0;
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++)
            for (int d = 0; d < m; d++)
                for (int i = 0; i < 30; i++, k++) {
                    c->x[k] = x[i] + 8.0 * a;
                    c->y[k] = y[i] + 8.0 * b;
                    c->z[k] = z[i] + 8.0 * d;
                }
    mc_backend *be = mc_backend_cpu.create(plan, &c, 1, &err);
    assert_non_null(be);
    mc_measurement out;
    assert_int_equal(mc_backend_cpu.measure(be, 0, &out, &err), MC_OK);
    *u_tail_total = plan->statepoint[0].corr.u_tail * n;
    mc_backend_cpu.destroy(be);
    mc_chain_destroy(c);
    mc_plan_destroy(plan);
    return out;
}

static mc_measurement measure_nist4(double cutoff, int replicate, double *u_tail_total)
{
    return measure_nist4_scheme(cutoff, "truncated", replicate, u_tail_total);
}

static void assert_rel(double got, double want, double rel, const char *what)
{
    double d = fabs(got - want) / fabs(want);
    if (!(d <= rel)) fail_msg("%s: got %.12g, want %.12g (relative %.3g > %.3g)", what, got, want, d, rel);
}

/* Table values have 5 significant figures: within half a unit of the last one. */
static void assert_5sig(double got, double want, const char *what)
{
    double unit = pow(10.0, floor(log10(fabs(want))) - 4);
    if (!(fabs(got - want) <= 0.5 * unit))
        fail_msg("%s: got %.8g, want %.5g (to 5 significant figures)", what, got, want);
}

/* NIST table: high-precision Upair, and W and ULRC to 5 significant figures. */
static void check_nist4(double cutoff, double upair, double wpair, double ulrc)
{
    double tail;
    mc_measurement m = measure_nist4(cutoff, 0, &tail);
    assert_rel(m.energy_pair, upair, 1e-8, "Upair");
    assert_5sig(m.virial_pair, wpair, "Wpair");
    assert_5sig(tail, ulrc, "ULRC");
}

static void nist4_rc3(void **state) { (void)state; check_nist4(3.0, -16.790321304625856, -46.249, -0.54517); }
static void nist4_rc4(void **state) { (void)state; check_nist4(4.0, -17.0604532203, -47.869, -0.23008); }

/* With rc < 4 every partner within rc of a particle of the 2x2x2 replica is an image that the
 * 8-box sees too, so U and W are exactly 8 times config 4's: a check of the cell-list path. */
static void nist4_replicated_cells(void **state)
{
    (void)state;
    double tail, tail8;
    mc_measurement one = measure_nist4(3.0, 0, &tail);
    mc_measurement eight = measure_nist4(3.0, 1, &tail8);
    assert_rel(eight.energy_pair, 8 * -16.790321304625856, 1e-8, "Upair 2x2x2 rc=3");
    assert_rel(eight.virial_pair, 8 * one.virial_pair, 1e-12, "Wpair 2x2x2 rc=3");
    assert_rel(tail8, 8 * tail, 1e-12, "ULRC scales with N at fixed density");
}

/* Truncated and shifted at 2.5: U = -15.02506262 for config 4, W that of the truncated potential. */
static void nist4_shifted(void **state)
{
    (void)state;
    double tail, tail_truncated;
    mc_measurement ts = measure_nist4_scheme(2.5, "shifted", 0, &tail);
    mc_measurement tr = measure_nist4_scheme(2.5, "truncated", 0, &tail_truncated);
    assert_rel(ts.energy_pair, -15.02506262, 1e-9, "U truncated-shifted rc=2.5");
    assert_rel(ts.virial_pair, tr.virial_pair, 1e-14, "W shifted = W truncated");
    assert_true(tail == 0.0); /* no tail correction for a shifted potential */
}

/* Linear-force-shifted at 3: U = -15.0014022869 (high precision), W = -43.096 (5 figures). */
static void nist4_force_shifted(void **state)
{
    (void)state;
    double tail;
    mc_measurement m = measure_nist4_scheme(3.0, "force_shifted", 0, &tail);
    assert_rel(m.energy_pair, -15.0014022869, 1e-8, "Upair LFS rc=3");
    assert_5sig(m.virial_pair, -43.096, "Wpair LFS rc=3");
}

/* The force-shifted pair energy and its force both vanish at rc (continuity of u and F). */
static void force_shift_continuity(void **state)
{
    (void)state;
    pair_params p = pair_lj_make(1.0, 1.0, 2.5, PAIR_FORCE_SHIFTED);
    double below = 2.5 * (1 - 1e-7), h = 1e-6;
    assert_true(fabs(pair_energy(below * below, &p)) < 1e-9);
    double r1 = 2.5 - 2 * h, r2 = 2.5 - h;
    double du = (pair_energy(r2 * r2, &p) - pair_energy(r1 * r1, &p)) / h;
    assert_true(fabs(du) < 1e-5);
    assert_true(fabs(pair_virial(below * below, &p)) < 1e-6);
}

/* Exact limits of the pair function: zero at sigma, minimum -eps at 2^(1/6) sigma, zero past rc. */
static void pair_function_limits(void **state)
{
    (void)state;
    pair_params p = pair_lj_make(1.0, 1.0, 3.0, 0);
    assert_true(fabs(pair_energy(1.0, &p)) < 1e-15);
    double rmin2 = pow(2.0, 1.0 / 3.0);
    assert_true(fabs(pair_energy(rmin2, &p) + 1.0) < 1e-14);
    assert_true(fabs(pair_virial(rmin2, &p)) < 1e-13); /* force vanishes at the minimum */
    assert_true(pair_energy(9.0, &p) == 0.0 && pair_virial(9.0, &p) == 0.0);
    pair_params q = pair_lj_make(2.0, 3.0, 6.0, 0);
    assert_true(fabs(pair_energy(4.0 * rmin2, &q) + 3.0) < 1e-13);
}

/* Morse: minimum -eps at r0, zero at r0 - ln 2 / alpha, the virial equal to -r du/dr (central
 * difference), the shifted schemes continuous at rc. */
static void morse_pair_function(void **state)
{
    (void)state;
    const double eps = 1.3, alpha = 5.5, r0 = 1.1, h = 1e-6;
    pair_params p = pair_morse_make(eps, alpha, r0, 3.0, PAIR_TRUNCATED);
    assert_true(fabs(pair_energy(r0 * r0, &p) + eps) < 1e-14);
    double rz = r0 - log(2.0) / alpha;
    assert_true(fabs(pair_energy(rz * rz, &p)) < 1e-14);
    for (double r = 0.9; r < 2.9; r += 0.37) {
        double du = (pair_energy((r + h) * (r + h), &p) - pair_energy((r - h) * (r - h), &p)) / (2 * h);
        if (!(fabs(pair_virial(r * r, &p) + r * du) < 1e-7 * fmax(1.0, fabs(r * du))))
            fail_msg("r = %g: virial %.12g, -r du/dr %.12g", r, pair_virial(r * r, &p), -r * du);
    }
    assert_true(pair_energy(9.0, &p) == 0.0 && pair_virial(9.0, &p) == 0.0);
    pair_params s = pair_morse_make(eps, alpha, r0, 2.0, PAIR_SHIFTED);
    pair_params f = pair_morse_make(eps, alpha, r0, 2.0, PAIR_FORCE_SHIFTED);
    double below = 2.0 * (1 - 1e-9);
    assert_true(fabs(pair_energy(below * below, &s)) < 1e-9);
    assert_true(fabs(pair_energy(below * below, &f)) < 1e-9 && fabs(pair_virial(below * below, &f)) < 1e-8);
}

/* The pair's terms and their cutoffs: the Coulomb slot, once filled, adds qq / r (virial qq / r)
 * inside its own cutoff and nothing beyond it, whatever the short-range cutoff; with qq = 0 the
 * pair function is the short-range term alone, to the bit; the form, not a zero field, selects
 * the short-range term; and only a pair without Morse, force shift or charges counts as plain LJ. */
/* The bare Coulomb term to the bit as the host computes it: qq times 1 / r (src/mc_erfc.h's
 * erfc(a r) / r is exactly 1 / r at a = 0), one rounding more than qq / r. */
static double bare(double qq, double r2) { return qq * (1.0 / sqrt(r2)); }

static void pair_terms(void **state)
{
    (void)state;
    const double qq = -2.7, scheme_rc = 2.5;
    for (int scheme = PAIR_TRUNCATED; scheme <= PAIR_FORCE_SHIFTED; scheme++) {
        pair_params lj = pair_lj_make(1.0, 1.0, scheme_rc, scheme), q = lj;
        assert_int_equal(lj.form, PAIR_LJ);
        assert_true(lj.coulomb_qq == 0.0 && lj.coulomb_rc2 == scheme_rc * scheme_rc);
        q.coulomb_qq = qq;
        q.coulomb_rc2 = 4.0 * 4.0; /* the Coulomb term reaches past the short-range cutoff */
        for (double r = 0.95; r < 5.0; r += 0.173) {
            double r2 = r * r, coul = r < 4.0 ? qq / r : 0.0;
            if (!(fabs(pair_energy(r2, &q) - (pair_energy(r2, &lj) + coul)) <= 1e-14 * fmax(1.0, fabs(coul))))
                fail_msg("scheme %d, r = %g: u %.17g, short-range %.17g + Coulomb %.17g", scheme, r,
                         pair_energy(r2, &q), pair_energy(r2, &lj), coul);
            if (!(fabs(pair_virial(r2, &q) - (pair_virial(r2, &lj) + coul)) <= 1e-13 * fmax(1.0, fabs(coul))))
                fail_msg("scheme %d, r = %g: virial %.17g, short-range %.17g + Coulomb %.17g", scheme, r,
                         pair_virial(r2, &q), pair_virial(r2, &lj), coul);
            if (r > scheme_rc && r < 4.0) assert_true(pair_energy(r2, &lj) == 0.0 && pair_energy(r2, &q) == bare(qq, r2));
        }
        q.coulomb_rc2 = 1.5 * 1.5; /* and stops short of it */
        assert_true(pair_energy(2.0 * 2.0, &q) == pair_energy(2.0 * 2.0, &lj));
        assert_true(pair_energy(1.2 * 1.2, &q) == pair_energy(1.2 * 1.2, &lj) + bare(qq, 1.2 * 1.2));
        assert_int_equal(pair_is_plain_lj(&lj), scheme != PAIR_FORCE_SHIFTED);
        assert_false(pair_is_plain_lj(&q));
        pair_params plain = pair_as_plain_lj(lj);
        if (scheme != PAIR_FORCE_SHIFTED) /* the fast copy of a plain pair is the same function */
            for (double r = 0.95; r < 3.0; r += 0.31) assert_true(pair_energy(r * r, &plain) == pair_energy(r * r, &lj));
    }
    pair_params m = pair_morse_make(1.0, 3.0, 1.1, 2.5, PAIR_TRUNCATED);
    assert_int_equal(m.form, PAIR_MORSE);
    assert_false(pair_is_plain_lj(&m));
    assert_true(fabs(pair_energy(1.1 * 1.1, &m) + 1.0) < 1e-15); /* the form picks Morse: -eps at r0 */
    m.form = PAIR_LJ; /* the same constants read as LJ (lj1 = lj2 = 0): no energy at all */
    assert_true(pair_energy(1.1 * 1.1, &m) == 0.0);
}

/* Tail corrections against quadrature of 2 pi int r^2 u and (2 pi / 3) int r^2 (-r u') beyond rc
 * (Simpson in x = 1/r over (0, 1/rc], 2e5 intervals: the whole range, no truncation), for LJ and
 * Morse. */
static void tail_corrections_by_quadrature(void **state)
{
    (void)state;
    pair_params cases[2] = {pair_lj_make(1.0, 1.0, 2.5, PAIR_TRUNCATED),
                            pair_morse_make(1.0, 3.0, 1.1, 2.5, PAIR_TRUNCATED)};
    for (int k = 0; k < 2; k++) {
        pair_params inf = cases[k];
        inf.rc2 = INFINITY;
        const int m = 200000;
        double hh = (1.0 / 2.5) / m, su = 0.0, sw = 0.0;
        for (int i = 1; i <= m; i++) { /* the x = 0 end contributes 0 */
            double x = i * hh, r = 1.0 / x, wgt = i == m ? 1 : (i % 2 ? 4 : 2);
            double jac = r * r * r * r; /* r^2 dr = r^4 dx in magnitude */
            su += wgt * jac * pair_energy(r * r, &inf);
            sw += wgt * jac * pair_virial(r * r, &inf);
        }
        double rho = 0.7, u_quad = 2 * M_PI * rho * su * hh / 3, p_quad = 2 * M_PI / 3 * rho * rho * sw * hh / 3;
        double u_tail = pair_tail_energy(&cases[k], 1.0, 1.0 / rho), p_tail = pair_tail_pressure(&cases[k], rho);
        if (!(fabs(u_tail - u_quad) < 1e-9 * fabs(u_quad) && fabs(p_tail - p_quad) < 1e-9 * fabs(p_quad)))
            fail_msg("case %d: U_tail %.12g vs %.12g, P_tail %.12g vs %.12g", k, u_tail, u_quad, p_tail, p_quad);
    }
    /* and the LJ closed form is the NIST one: U_tail = (8/3) pi rho [(1/3) rc^-9 - rc^-3] */
    double rc3 = 2.5 * 2.5 * 2.5;
    assert_true(fabs(pair_tail_energy(&cases[0], 1.0, 1.0 / 0.7) -
                     8.0 / 3 * M_PI * 0.7 * (1 / (3 * rc3 * rc3 * rc3) - 1 / rc3)) < 1e-14);
}

/* mc_image_fold, squared, is mc_min_image's result squared to the bit (the pair loops of both
 * backends take the first; pair_fn.inc says why they agree), in double and in float (the CPU's form),
 * over tu_fold_separations: separations across (-1.6 box, 1.6 box) for boxes that are and are not
 * exact binary fractions, the points where the folds switch (+-box/2 and its neighbours, +-box) in
 * both precisions, 0, and box 0 (no periodic boundary). A fold by rint fails it, and so does one
 * against a box off by 1e-8 or a half an ulp above box/2 (only at the edges: hence them). */
static void image_fold_is_the_min_image(void **state)
{
    (void)state;
    enum { PER_BOX = 200011, N = TU_FOLD_BOXES * PER_BOX };
    double *ds = malloc(N * sizeof *ds), *boxes = malloc(N * sizeof *boxes);
    assert_non_null(ds), assert_non_null(boxes);
    tu_fold_separations(ds, boxes, PER_BOX);
    long checked = 0;
    for (int k = 0; k < N; k++) {
        const double box = boxes[k], half = 0.5 * box, d = ds[k];
        const float boxf = (float)box, halff = 0.5f * boxf, df = (float)d;
        double min_image = mc_min_image(d, box, half), folded = mc_image_fold(d, box);
        if (min_image * min_image != folded * folded)
            fail_msg("double: box %.17g, d %.17g: %.17g^2 against %.17g^2", box, d, min_image, folded);
        float min_imagef = mc_min_image_f(df, boxf, halff), foldedf = mc_image_fold_f(df, boxf);
        if (min_imagef * min_imagef != foldedf * foldedf)
            fail_msg("float: box %.9g, d %.9g: %.9g^2 against %.9g^2", boxf, df, min_imagef, foldedf);
        checked++;
    }
    free(ds), free(boxes);
    /* and the squared distance is the sum the loops took before, axis by axis */
    const double box = 8.549879733383484, half = 0.5 * box, dx = 5.1, dy = -3.3, dz = -4.9;
    double fx = mc_min_image(dx, box, half), fy = mc_min_image(dy, box, half), fz = mc_min_image(dz, box, half);
    assert_true(mc_image_dist2(dx, dy, dz, box) == fx * fx + fy * fy + fz * fz);
    assert_true(checked > 1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nist4_rc3),      cmocka_unit_test(nist4_rc4),
        cmocka_unit_test(nist4_replicated_cells), cmocka_unit_test(nist4_shifted),
        cmocka_unit_test(nist4_force_shifted), cmocka_unit_test(force_shift_continuity),
        cmocka_unit_test(pair_function_limits), cmocka_unit_test(morse_pair_function),
        cmocka_unit_test(pair_terms),
        cmocka_unit_test(tail_corrections_by_quadrature), cmocka_unit_test(image_fold_is_the_min_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
