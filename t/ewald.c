/* The Ewald sum (src/ewald.c and the pair function's Coulomb term) against published numbers:
 * NIST's SPC/E water reference configurations (t/refdata/ewald: every component at NIST's six
 * digits, and FEASST's eleven-digit recomputation of configurations 1 and 2), the Madelung
 * constant of rock salt (independent of alpha and the k-space cutoff), and RASPA3's two CO2 in a
 * box; then a move's change of the Fourier part against two full recomputations, and the virial
 * against a numerical derivative of the energy under a scaling of the box; Widom test molecules
 * against full recomputations. The damped shifted force (src/dsf.c) alike: its pair term against
 * Fennell and Gezelter's formula and 0 with its force at the cutoff, the engine's virial and Widom
 * test molecules (t/spce_check.py checks its NIST configurations' energies). The host's erfc and
 * exp of the Coulomb term (src/mc_erfc.h) against libm's. */
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsf.h"
#include "ewald.h"
#include "mc_chain.h"
#include "mc_erfc.h"
#include "mc_move.h"
#include "mc_rigid.h"
#include "mc_rigid_host.h"
#include "pair.h"

enum { SPCE_MAX_MOLECULES = 300 };

/* e^2 / (4 pi eps0 k_B) in K A from the CODATA-2010 constants NIST used: 167100.9566... (the
 * README's 167101.0 rounded; with it the Fourier part of configuration 1 rounds to 6270.10, not
 * NIST's 6270.09) */
#define KE_K_A(e, eps0, k_b) ((e) * (e) / (4.0 * M_PI * (eps0) * (k_b)) * 1e10)
static const double NIST_KE = KE_K_A(1.602176565e-19, 8.854187817e-12, 1.3806488e-23);

typedef struct spce {
    int molecules, n;
    double box;
    double x[3 * SPCE_MAX_MOLECULES], y[3 * SPCE_MAX_MOLECULES], z[3 * SPCE_MAX_MOLECULES];
    double q[3 * SPCE_MAX_MOLECULES];
} spce;

static void load_spce(int config, spce *w)
{
    char name[64];
    snprintf(name, sizeof name, "ewald/spce_sample_config_periodic%d.txt", config);
    FILE *f = fopen(tu_refdata(name), "r");
    if (!f) fail_msg("cannot open %s", tu_refdata(name));
    double ly, lz;
    assert_int_equal(fscanf(f, "%lf %lf %lf %d", &w->box, &ly, &lz, &w->molecules), 4);
    assert_true(w->molecules <= SPCE_MAX_MOLECULES);
    w->n = 3 * w->molecules;
    for (int i = 0; i < w->n; i++) {
        int index;
        char type[8];
        assert_int_equal(fscanf(f, "%d %lf %lf %lf %7s", &index, &w->x[i], &w->y[i], &w->z[i], type), 5);
        assert_int_equal(type[0], i % 3 == 0 ? 'O' : 'H');
        w->q[i] = i % 3 == 0 ? -0.8476 : 0.4238;
        /* the file is centred on the origin: into [0, L) as the engine keeps positions */
        w->x[i] -= w->box * floor(w->x[i] / w->box), w->y[i] -= w->box * floor(w->y[i] / w->box);
        w->z[i] -= w->box * floor(w->z[i] / w->box);
    }
    fclose(f);
}

/* The components NIST tabulates, computed as the engine computes them: E_real through the pair
 * function's Coulomb term (O-O also LJ, every pair of different molecules under the minimum image
 * and the 10 A cutoff), E_fourier, E_self and E_intra from ewald.c. */
typedef struct components {
    double disp, real, fourier, self, intra;
} components;

static components spce_components(const spce *w)
{
    const double alpha = 5.6 / w->box, rc = 10.0;
    ewald_kspace e;
    ewald_sums s;
    mc_err err = {0, ""};
    assert_int_equal(ewald_kspace_init(&e, alpha, 5, 26, NIST_KE, &err), MC_OK);
    assert_int_equal(ewald_sums_alloc(&e, &s, &err), MC_OK);
    components c = {0};
    const double eps_o = 78.19743111, sigma_o = 3.16555789; /* K, A */
    for (int i = 0; i < w->n; i++)
        for (int j = i + 1; j < w->n; j++) {
            if (i / 3 == j / 3) continue; /* the same molecule */
            pair_params p = pair_lj_make(sigma_o, i % 3 == 0 && j % 3 == 0 ? eps_o : 0.0, rc, PAIR_TRUNCATED);
            pair_params coulomb = p;
            coulomb.lj1 = coulomb.lj2 = 0.0;
            coulomb.coulomb_qq = NIST_KE * w->q[i] * w->q[j], coulomb.coulomb_alpha = alpha;
            double r2 = mc_image_dist2(w->x[i] - w->x[j], w->y[i] - w->y[j], w->z[i] - w->z[j], w->box);
            c.disp += pair_energy(r2, &p);
            c.real += pair_energy(r2, &coulomb);
        }
    c.fourier = ewald_recompute(&e, &s, w->box, w->n, w->x, w->y, w->z, w->q);
    c.self = ewald_self_energy(&e, w->n, w->q);
    for (int m = 0; m < w->molecules; m++) {
        double pos[9];
        for (int k = 0; k < 3; k++) { /* the molecule whole: its H by the minimum image from its O */
            int i = 3 * m + k;
            pos[3 * k] = w->x[3 * m] + mc_min_image(w->x[i] - w->x[3 * m], w->box, 0.5 * w->box);
            pos[3 * k + 1] = w->y[3 * m] + mc_min_image(w->y[i] - w->y[3 * m], w->box, 0.5 * w->box);
            pos[3 * k + 2] = w->z[3 * m] + mc_min_image(w->z[i] - w->z[3 * m], w->box, 0.5 * w->box);
        }
        c.intra += ewald_intra_energy(&e, 3, &w->q[3 * m], pos);
    }
    ewald_sums_free(&s);
    ewald_kspace_fini(&e);
    return c;
}

/* a equals NIST's six-significant-digit value b: |a - b| within half a unit of its sixth digit */
static void assert_six_digits(const char *what, double a, double b)
{
    double unit = pow(10.0, floor(log10(fabs(b))) - 5);
    if (!(fabs(a - b) <= 0.5 * unit * (1 + 1e-9)))
        fail_msg("%s: %.10g, NIST %.6g (off by %.3g of its last digit)", what, a, b, fabs(a - b) / unit);
}

static void nist_spce(void **state)
{
    (void)state;
    FILE *f = fopen(tu_refdata("ewald/spce_reference_energies_nist.tsv"), "r");
    if (!f) fail_msg("cannot open the NIST table");
    char line[512];
    int configs = 0;
    static spce w;
    while (fgets(line, sizeof line, f)) {
        int config, m, kmax, ksq;
        char file[128];
        double L, alpha, rcut, disp, lrc, real, fourier, self, intra, total;
        if (sscanf(line, "%d %127s %d %lf %lf %d %d %lf %lf %lf %lf %lf %lf %lf %lf", &config, file, &m, &L, &alpha,
                   &kmax, &ksq, &rcut, &disp, &lrc, &real, &fourier, &self, &intra, &total) != 15)
            continue;
        load_spce(config, &w);
        assert_int_equal(w.molecules, m);
        components c = spce_components(&w);
        char what[64];
        snprintf(what, sizeof what, "config %d E_disp", config), assert_six_digits(what, c.disp, disp);
        snprintf(what, sizeof what, "config %d E_real", config), assert_six_digits(what, c.real, real);
        snprintf(what, sizeof what, "config %d E_fourier", config), assert_six_digits(what, c.fourier, fourier);
        snprintf(what, sizeof what, "config %d E_self", config), assert_six_digits(what, c.self, self);
        snprintf(what, sizeof what, "config %d E_intra", config), assert_six_digits(what, c.intra, intra);
        double sum = c.disp + lrc + c.real + c.fourier + c.self + c.intra;
        assert_true(fabs(sum - total) < 2e-5 * fabs(total));
        /* FEASST's eleven-digit recomputation (README) of E_real and E_fourier */
        const double feasst_real[2] = {-558888.919727851, -1192948.6940246},
                     feasst_fourier[2] = {6270.0937839397, 6034.9503269};
        if (config <= 2) {
            assert_true(fabs(c.real - feasst_real[config - 1]) < 1e-8 * fabs(feasst_real[config - 1]));
            assert_true(fabs(c.fourier - feasst_fourier[config - 1]) < 1e-8 * feasst_fourier[config - 1]);
        }
        configs++;
    }
    fclose(f);
    assert_int_equal(configs, 3);
}

/* The whole Ewald energy of n point charges (no molecules) in the periodic box: the real-space
 * term over every pair and its periodic images closer than rc (which may exceed the box), the
 * Fourier part over the whole cube |n_i| <= kmax, and the self term. */
static double ewald_total(int n, const double *x, const double *y, const double *z, const double *q, double box,
                          double alpha, int kmax, double rc)
{
    ewald_kspace e;
    ewald_sums s;
    mc_err err = {0, ""};
    assert_int_equal(ewald_kspace_init(&e, alpha, kmax, 3 * kmax * kmax, 1.0, &err), MC_OK);
    assert_int_equal(ewald_sums_alloc(&e, &s, &err), MC_OK);
    double u = ewald_recompute(&e, &s, box, n, x, y, z, q) + ewald_self_energy(&e, n, q);
    pair_params p = pair_lj_make(1.0, 0.0, rc, PAIR_TRUNCATED);
    p.coulomb_alpha = alpha;
    const int images = (int)ceil(rc / box);
    double real = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int a = -images; a <= images; a++)
                for (int b = -images; b <= images; b++)
                    for (int c = -images; c <= images; c++) {
                        if (i == j && a == 0 && b == 0 && c == 0) continue;
                        double dx = x[i] - x[j] + a * box, dy = y[i] - y[j] + b * box, dz = z[i] - z[j] + c * box;
                        p.coulomb_qq = q[i] * q[j];
                        real += 0.5 * pair_energy(dx * dx + dy * dy + dz * dz, &p);
                    }
    ewald_sums_free(&s);
    ewald_kspace_fini(&e);
    return u + real;
}

/* Rock salt: 8 charges +-1 in a cube of edge 2, nearest neighbours at 1: E = -4 M (M = 1.74756...),
 * to 1e-11 whatever alpha and kmax (README: (1.5, 6), (2, 8), (3, 12); rc = 9 / alpha leaves
 * erfc(9) of the real-space terms). */
static void madelung(void **state)
{
    (void)state;
    double x[8], y[8], z[8], q[8];
    int n = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++, n++) x[n] = i, y[n] = j, z[n] = k, q[n] = (i + j + k) % 2 ? -1.0 : 1.0;
    const double expected = -4.0 * 1.7475645946331822;
    const double alpha[3] = {1.5, 2.0, 3.0};
    const int kmax[3] = {6, 8, 12};
    for (int t = 0; t < 3; t++) {
        double u = ewald_total(8, x, y, z, q, 2.0, alpha[t], kmax[t], 9.0 / alpha[t]);
        if (!(fabs(u - expected) < 1e-11 * fabs(expected)))
            fail_msg("alpha %g, kmax %d: E = %.15g, expected %.15g", alpha[t], kmax[t], u, expected);
    }
}

/* RASPA3's two rigid CO2 in a 10 A box (README): Fourier + self + intramolecular exclusion =
 * 164.69438 - 29984.30740 + 29910.15909 K with CODATA-2018 constants. */
static void two_co2(void **state)
{
    (void)state;
    const double ke = KE_K_A(1.602176634e-19, 8.8541878128e-12, 1.380649e-23), c_o = 1.149; /* CODATA 2018 */
    double x[6] = {-1, -1, -1, 1, 1, 1}, y[6] = {0}, z[6] = {c_o, 0, -c_o, c_o, 0, -c_o};
    const double q[6] = {-0.3256, 0.6512, -0.3256, -0.3256, 0.6512, -0.3256};
    ewald_kspace e;
    ewald_sums s;
    mc_err err = {0, ""};
    assert_int_equal(ewald_kspace_init(&e, 0.25, 8, 3 * 64, ke, &err), MC_OK);
    assert_int_equal(ewald_sums_alloc(&e, &s, &err), MC_OK);
    double intra = 0.0;
    for (int m = 0; m < 2; m++) {
        double pos[9];
        for (int k = 0; k < 3; k++) pos[3 * k] = x[3 * m + k], pos[3 * k + 1] = y[3 * m + k], pos[3 * k + 2] = z[3 * m + k];
        intra += ewald_intra_energy(&e, 3, &q[3 * m], pos);
    }
    for (int i = 0; i < 6; i++) x[i] += 5.0, y[i] += 5.0, z[i] += 5.0; /* into [0, 10) */
    double fourier = ewald_recompute(&e, &s, 10.0, 6, x, y, z, q), self = ewald_self_energy(&e, 6, q);
    assert_true(fabs(fourier - 164.69438) < 1e-5);
    assert_true(fabs(self - -29984.30740) < 1e-5);
    assert_true(fabs(intra - 29910.15909) < 1e-5);
    ewald_sums_free(&s);
    ewald_kspace_fini(&e);
}

/* 30 moves of one water of NIST configuration 1: each move's change, the running S(k) after it is
 * taken, equals the change between two full recomputations to 1e-10 of the Fourier energy. */
static void move_change(void **state)
{
    (void)state;
    static spce w;
    load_spce(1, &w);
    ewald_kspace e;
    ewald_sums running, fresh;
    mc_err err = {0, ""};
    assert_int_equal(ewald_kspace_init(&e, 5.6 / w.box, 5, 26, NIST_KE, &err), MC_OK);
    assert_int_equal(ewald_sums_alloc(&e, &running, &err), MC_OK);
    assert_int_equal(ewald_sums_alloc(&e, &fresh, &err), MC_OK);
    double *d = malloc(2 * (size_t)e.nk * sizeof *d);
    double u = ewald_recompute(&e, &running, w.box, w.n, w.x, w.y, w.z, w.q);
    for (int t = 0; t < 30; t++) {
        int m = (7 * t) % w.molecules;
        double old_pos[9], new_pos[9];
        for (int k = 0; k < 3; k++) {
            int i = 3 * m + k;
            old_pos[3 * k] = w.x[i], old_pos[3 * k + 1] = w.y[i], old_pos[3 * k + 2] = w.z[i];
            new_pos[3 * k] = fmod(w.x[i] + 0.3 + 0.1 * t, w.box);
            new_pos[3 * k + 1] = fmod(w.y[i] + 0.7, w.box), new_pos[3 * k + 2] = w.z[i];
        }
        double du = ewald_move_change(&e, &running, 3, &w.q[3 * m], old_pos, new_pos, d);
        ewald_accept(&e, &running, d);
        for (int k = 0; k < 3; k++) {
            int i = 3 * m + k;
            w.x[i] = new_pos[3 * k], w.y[i] = new_pos[3 * k + 1], w.z[i] = new_pos[3 * k + 2];
        }
        double u_new = ewald_recompute(&e, &fresh, w.box, w.n, w.x, w.y, w.z, w.q);
        assert_true(du != 0.0);
        assert_true(fabs(du - (u_new - u)) < 1e-10 * u_new);
        assert_true(fabs(ewald_energy(&e, &running) - u_new) < 1e-10 * u_new);
        u = u_new;
    }
    free(d);
    ewald_sums_free(&running);
    ewald_sums_free(&fresh);
    ewald_kspace_fini(&e);
}

/* The Fourier part's virial against -3 V dE/dV: the atomic form under a uniform scaling of every
 * site, the molecular form under a scaling of the molecules' centres with the molecules rigid. */
static void virial(void **state)
{
    (void)state;
    static spce w, scaled;
    load_spce(1, &w);
    ewald_kspace e;
    ewald_sums s;
    mc_err err = {0, ""};
    const double alpha = 5.6 / w.box;
    assert_int_equal(ewald_kspace_init(&e, alpha, 5, 26, NIST_KE, &err), MC_OK);
    assert_int_equal(ewald_sums_alloc(&e, &s, &err), MC_OK);
    /* whole molecules: each H by the minimum image from its O; the centre is the O (any point of
     * the molecule serves: the virial's molecular form holds for any reference point) */
    static double offset[9 * SPCE_MAX_MOLECULES];
    for (int i = 0; i < w.n; i++) {
        int o = i - i % 3;
        offset[3 * i] = mc_min_image(w.x[i] - w.x[o], w.box, 0.5 * w.box);
        offset[3 * i + 1] = mc_min_image(w.y[i] - w.y[o], w.box, 0.5 * w.box);
        offset[3 * i + 2] = mc_min_image(w.z[i] - w.z[o], w.box, 0.5 * w.box);
    }
    ewald_recompute(&e, &s, w.box, w.n, w.x, w.y, w.z, w.q);
    const double atomic = ewald_virial(&e, &s);
    double molecular = atomic;
    for (int i = 0; i < w.n; i++) {
        const double r[3] = {w.x[i], w.y[i], w.z[i]};
        molecular -= ewald_site_force_dot(&e, &s, w.q[i], r, &offset[3 * i]);
    }
    const double h = 1e-5;
    double u[2][2]; /* [atomic, molecular][scale 1 - h, 1 + h] */
    for (int form = 0; form < 2; form++)
        for (int side = 0; side < 2; side++) {
            double f = side ? 1 + h : 1 - h;
            scaled = w;
            scaled.box = w.box * f;
            for (int i = 0; i < w.n; i++) {
                int o = i - i % 3;
                const double *d = &offset[3 * i];
                scaled.x[i] = form ? w.x[o] * f + d[0] : w.x[i] * f;
                scaled.y[i] = form ? w.y[o] * f + d[1] : w.y[i] * f;
                scaled.z[i] = form ? w.z[o] * f + d[2] : w.z[i] * f;
            }
            u[form][side] = ewald_recompute(&e, &s, scaled.box, w.n, scaled.x, scaled.y, scaled.z, w.q);
        }
    /* W = -3 V dE/dV = -L dE/dL; the central difference is good to h^2 */
    for (int form = 0; form < 2; form++) {
        double w_numeric = -(u[form][1] - u[form][0]) / (2 * h), w_exact = form ? molecular : atomic;
        if (!(fabs(w_exact - w_numeric) < 1e-6 * fabs(w_numeric) + 1e-6))
            fail_msg("%s virial %.10g, -L dE/dL %.10g", form ? "molecular" : "atomic", w_exact, w_numeric);
    }
    assert_true(fabs(atomic - molecular) > 1e-3 * fabs(atomic)); /* the two forms differ here */
    ewald_sums_free(&s);
    ewald_kspace_fini(&e);
}

/* The whole engine's molecular virial (mc_rigid_measure: LJ and the real-space term through the
 * pair function, the Fourier part through ewald.c) against -dU/ds of its energy with the molecular
 * centres scaled by s (mc_rigid_scaled_energy, what a volume move computes): 64 SPC/E waters on
 * the starting lattice. Every term is made smooth at its cutoff, so that the difference quotient
 * sees no step: LJ force-shifted, and alpha so large that erfc(alpha rc) is 1e-14 (kmax to match). */
static void check_engine_virial(const char *coulomb)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[system]\nunits = real\n[mixture]\nspecies = O, H\nsigma = 0.316555789, 0\n"
             "epsilon = 0.6501696177877252, 0\nmass = 15.9994, 1.008\ncharge = -0.8476, 0.4238\n"
             "[molecules]\ntypes = water\ncounts = 64\n"
             "geometry = O 0 0 0; H 0.1 0 0; H -0.033331324756823731 0.09428161427317179 0\n"
             "[potential]\ncutoff = 0.6\ncutoff_scheme = force_shifted\ntail_correction = no\n%s"
             "[ensemble]\ntemperature = 298\ndensity = 33.4\n", coulomb);
    mc_plan *p = tu_plan(ini);
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 0, &err);
    assert_non_null(c);
    ewald_sums s = {0};
    if (p->ewald) assert_int_equal(ewald_sums_alloc(&p->kspace, &s, &err), MC_OK);
    double *scratch = malloc(mc_rigid_scaled_scratch(p) * sizeof *scratch);
    const mc_rigid_sums sums = mc_rigid_measure(p, c, 0, &s);
    const double h = 1e-6, u_plus = mc_rigid_scaled_energy(p, c, 1 + h, scratch, &s),
                 u_minus = mc_rigid_scaled_energy(p, c, 1 - h, scratch, &s), w_numeric = -(u_plus - u_minus) / (2 * h);
    printf("# %svirial %.10g, -dU/ds %.10g (U %.10g kJ/mol)\n", p->ewald ? "Ewald: " : "DSF: ", sums.virial, w_numeric,
           sums.energy);
    assert_true(fabs(sums.virial - w_numeric) < 1e-6 * fabs(w_numeric));
    assert_true(fabs(w_numeric) > 1e3); /* not a trivial zero */
    free(scratch);
    ewald_sums_free(&s);
    mc_chain_destroy(c);
    mc_plan_destroy(p);
}
static void engine_virial(void **state)
{
    (void)state;
    check_engine_virial("coulomb = ewald\newald_alpha = 9.2\newald_kmax = 20\newald_ksq_max = 400\n");
}
/* The damped shifted force's energy and force both go to 0 at its cutoff: no step to smooth. */
static void dsf_engine_virial(void **state)
{
    (void)state;
    check_engine_virial("coulomb = dsf\n");
}

/* The damped shifted force's pair term (pair_fn.inc with dsf.h's constants) at its cutoff: energy
 * and force 0 (to rounding of terms of size qq / rc); inside, its virial -r du/dr against a
 * central difference of the energy, and its energy against Fennell and Gezelter's formula
 * written out here. */
static void dsf_pair(void **state)
{
    (void)state;
    const double alpha = 2.6, rc = 1.0, qq = -50.0;
    pair_params p = {.coulomb_qq = qq, .coulomb_rc2 = rc * rc, .coulomb_alpha = alpha, .form = PAIR_LJ};
    dsf_pair_terms(alpha, rc, &p.coulomb_slope, &p.coulomb_shift);
    const double below = rc * (1 - 1e-9), scale = fabs(qq) / rc;
    assert_true(fabs(pair_coulomb_energy(below * below, &p)) < 1e-12 * scale);
    assert_true(fabs(pair_coulomb_virial(below * below, &p)) < 1e-9 * scale);
    assert_true(pair_coulomb_energy(rc * rc * (1 + 1e-12), &p) == 0.0);
    for (double r = 0.1; r < 0.95; r += 0.2) {
        const double h = 1e-6, w_numeric = -r * (pair_coulomb_energy((r + h) * (r + h), &p) -
                                                  pair_coulomb_energy((r - h) * (r - h), &p)) / (2 * h);
        const double fg = qq * (erfc(alpha * r) / r - erfc(alpha * rc) / rc +
                                (erfc(alpha * rc) / (rc * rc) + 2 * alpha / sqrt(M_PI) * exp(-alpha * alpha * rc * rc) / rc) *
                                    (r - rc));
        assert_true(fabs(pair_coulomb_virial(r * r, &p) - w_numeric) < 1e-7 * scale);
        assert_true(fabs(pair_coulomb_energy(r * r, &p) - fg) < 1e-13 * scale);
    }
}

/* SPC/E water in a box of edge 1.587 nm (real-space cutoffs 0.7 nm, alpha 4.5 per nm, kmax 6):
 * `count` molecules on the starting lattice. */
static mc_plan *water_plan(int count, const char *coulomb)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[system]\nunits = real\n[mixture]\nspecies = O, H\nsigma = 0.316555789, 0\n"
             "epsilon = 0.6501696177877252, 0\nmass = 15.9994, 1.008\ncharge = -0.8476, 0.4238\n"
             "[molecules]\ntypes = water\ncounts = %d\n"
             "geometry = O 0 0 0; H 0.1 0 0; H -0.033331324756823731 0.09428161427317179 0\n"
             "[potential]\ncutoff = 0.7\n%s"
             "[ensemble]\ntemperature = 298\ndensity = %.17g\nwidom = 1\n", count, coulomb, count / pow(1.587, 3));
    return tu_plan(ini);
}

/* A Widom test molecule's energy (mc_rigid_widom_sum with one insertion: -ln(sum) / beta) is the
 * energy of the configuration with that molecule added minus the one without it, both recomputed
 * in full (mc_rigid_measure: real space, the Fourier part, the self and intramolecular terms), to
 * 1e-10 of the energies: the Fourier part of the insertion is exact, not an estimate. */
static void check_widom_insertion(const char *coulomb)
{
    mc_plan *pa = water_plan(20, coulomb), *pb = water_plan(21, coulomb);
    mc_err err = {0, ""};
    mc_chain *a = mc_chain_create(pa, 0, &err), *b = mc_chain_create(pb, 0, &err);
    assert_non_null(a);
    assert_non_null(b);
    ewald_sums sa = {0}, sb = {0};
    if (pa->ewald) {
        assert_int_equal(ewald_sums_alloc(&pa->kspace, &sa, &err), MC_OK);
        assert_int_equal(ewald_sums_alloc(&pb->kspace, &sb, &err), MC_OK);
    }
    mc_chain_set_box(b, a->box_len);
    for (int m = 0; m < 20; m++) {
        const double centre[3] = {a->cx[m], a->cy[m], a->cz[m]};
        mc_rigid_set(pb, b, m, centre, mc_chain_quat(a, m));
    }
    const double ua = mc_rigid_measure(pa, a, 0, &sa).energy;
    int tried = 0, finite = 0;
    for (long draw = 0; draw < 40 && finite < 5; draw++, tried++) {
        double centre[3];
        mc_widom_position(pa->seed, (uint32_t)a->id, (uint64_t)draw, 1, 0, a->box_len, &centre[0], &centre[1], &centre[2]);
        mc_rigid_set(pb, b, 20, centre, mc_widom_orientation(pa->seed, (uint32_t)a->id, (uint64_t)draw, 1, 0));
        const double du = -log(mc_rigid_widom_sum(pa, a, 0, 1, draw, &sa)) / a->beta,
                     ub = mc_rigid_measure(pb, b, 0, &sb).energy;
        if (!isfinite(du) || fabs(du) > 200) continue; /* a site on top of another: exp underflows */
        finite++;
        if (!(fabs(du - (ub - ua)) < 1e-10 * fabs(ua)))
            fail_msg("draw %ld: Widom dU %.12g, recomputed %.12g (%.12g - %.12g)", draw, du, ub - ua, ub, ua);
    }
    printf("# %s: %d of %d test molecules compared (the others overlapped)\n", pa->ewald ? "Ewald" : "DSF", finite, tried);
    assert_true(finite >= 3);
    ewald_sums_free(&sa);
    ewald_sums_free(&sb);
    mc_chain_destroy(a);
    mc_chain_destroy(b);
    mc_plan_destroy(pa);
    mc_plan_destroy(pb);
}

static void widom_insertion(void **state)
{
    (void)state;
    check_widom_insertion("coulomb = ewald\newald_alpha = 4.5\newald_kmax = 6\n");
}
/* with the damped shifted force: the test molecule's pair terms and its own constant terms (dsf.h) */
static void dsf_widom_insertion(void **state)
{
    (void)state;
    check_widom_insertion("coulomb = dsf\n");
}

/* mc_erfc.h's erfc and exp against libm's, whose errors are below an ulp: erfc to 1e-14 relative
 * where Ewald's and DSF's alpha r lie (below 6; measured 3.8e-15 against mpmath), 1e-12 out to
 * x = 26 (x^2's rounding inside exp(-x^2) grows there; erfc is below 1e-17 from x = 6), exactly 1 at
 * 0 (the bare Coulomb term); exp to two units in the last place on [-708, 0]. */
static void erfc_and_exp(void **state)
{
    (void)state;
    double worst_near = 0.0, worst_far = 0.0, worst_exp = 0.0;
    for (int i = 0; i <= 260000; i++) {
        const double x = i * 1e-4, e = erfc(x), rel = fabs(mc_erfc(x) / e - 1.0);
        if (x <= 6.0) worst_near = fmax(worst_near, rel);
        else worst_far = fmax(worst_far, rel);
    }
    for (int i = 0; i <= 708000; i++) {
        const double y = fmax(-i * 1e-3 - 1e-7 * (i % 7), -708.0);
        worst_exp = fmax(worst_exp, fabs(mc_exp_nonpositive(y) / exp(y) - 1.0));
    }
    printf("# mc_erfc: relative error %.2e on [0, 6], %.2e on (6, 26]; mc_exp_nonpositive %.2e on [-708, 0]\n",
           worst_near, worst_far, worst_exp);
    assert_true(worst_near < 1e-14);
    assert_true(worst_far < 1e-12);
    assert_true(mc_erfc(0.0) == 1.0);
    assert_true(worst_exp <= 2 * DBL_EPSILON); /* two units in the last place */
    /* erfc(a r) / r by its one division, for alphas of Ewald and DSF runs in nm and reduced units,
     * r from 0.05 to the cutoffs; a = 0 is 1 / r to the bit */
    const double alphas[] = {2.6 / 0.9, 3.77, 5.6, 0.8, 1.2};
    double worst_over_r = 0.0, worst_over_r_far = 0.0;
    for (int k = 0; k < 5; k++)
        for (int i = 1; i <= 3000; i++) {
            const double r = 0.001 * i, ref = erfc(alphas[k] * r) / r;
            const double rel = fabs(mc_erfc_over_r(alphas[k], r, r * r) / ref - 1.0);
            if (alphas[k] * r <= 6.0) worst_over_r = fmax(worst_over_r, rel);
            else worst_over_r_far = fmax(worst_over_r_far, rel);
            assert_true(mc_erfc_over_r(0.0, r, r * r) == 1.0 / r);
        }
    printf("# mc_erfc_over_r: relative error %.2e (a r <= 6), %.2e beyond\n", worst_over_r, worst_over_r_far);
    assert_true(worst_over_r < 1e-14);
    assert_true(worst_over_r_far < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(erfc_and_exp), cmocka_unit_test(nist_spce), cmocka_unit_test(madelung), cmocka_unit_test(two_co2),
                                       cmocka_unit_test(move_change), cmocka_unit_test(virial),
                                       cmocka_unit_test(engine_virial), cmocka_unit_test(widom_insertion),
                                       cmocka_unit_test(dsf_pair), cmocka_unit_test(dsf_engine_virial),
                                       cmocka_unit_test(dsf_widom_insertion)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
