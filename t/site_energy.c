/* The CPU backend's vectorised sum over partners of mixed species (cpu_site_energy_mixed, the
 * molecule moves' loop) against its serial twin in index order (cpu_site_energy_serial, Widom's):
 * the same terms, so the two sums differ by rounding alone; a hard-core overlap is +infinity in
 * both; rows of plain LJ (their own copy of the loop) and rows with Morse or a force shift; and the
 * columns entry (cpu_site_energy_columns) against the gathering one; the same with charged
 * species (the Coulomb term of Ewald's real space and of the damped shifted force: the rows of LJ
 * with charges, and the columns with their qq). */
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu_site_energy.h"
#include "mc_rng.h"
#include "pair.h"

enum { NSITES = 400, NSPECIES = 3 };

typedef struct {
    double x[NSITES], y[NSITES], z[NSITES];
    int species[NSITES];
    pair_params pair[NSPECIES][NSPECIES];
    double hard_core2[NSPECIES][NSPECIES];
    double box;
} partners_case;

/* NSITES sites at random in a box of edge 9 (key: seed), species dealt at random, and LJ constants
 * of three species mixed by Lorentz-Berthelot; scheme and one Morse pair where asked. */
static void make_case(partners_case *c, uint64_t seed, int scheme, int morse_pair, double hard_core)
{
    const double sigma[NSPECIES] = {1.0, 1.2, 0.8}, eps[NSPECIES] = {1.0, 0.7, 1.4};
    c->box = 9.0;
    for (int j = 0; j < NSITES; j++) {
        mc_rng4 r = mc_rng_block(seed, (uint32_t)j, 0, 0);
        c->x[j] = c->box * mc_rng_uniform(r.v[0]), c->y[j] = c->box * mc_rng_uniform(r.v[1]);
        c->z[j] = c->box * mc_rng_uniform(r.v[2]), c->species[j] = (int)mc_rng_index(r.v[3], NSPECIES);
    }
    for (int a = 0; a < NSPECIES; a++)
        for (int b = 0; b < NSPECIES; b++) {
            double s = 0.5 * (sigma[a] + sigma[b]), e = sqrt(eps[a] * eps[b]);
            c->pair[a][b] = morse_pair && a == 1 && b == 2 ? pair_morse_make(e, 3.0, 1.1 * s, 3.0, scheme)
                                                            : pair_lj_make(s, e, 3.0, scheme);
            c->hard_core2[a][b] = hard_core * hard_core * s * s;
        }
}

/* Charges -0.8, 0.4 and 0 on the three species (one uncharged, as SPC/E's sites have no LJ on
 * two), the Coulomb term within 3 with alpha, and DSF's slope and shift where given. */
static void add_charges(partners_case *c, double alpha, double slope, double shift)
{
    const double q[NSPECIES] = {-0.8, 0.4, 0.0};
    for (int a = 0; a < NSPECIES; a++)
        for (int b = 0; b < NSPECIES; b++)
            c->pair[a][b].coulomb_qq = q[a] * q[b], c->pair[a][b].coulomb_rc2 = 9.0,
            c->pair[a][b].coulomb_alpha = alpha, c->pair[a][b].coulomb_slope = slope,
            c->pair[a][b].coulomb_shift = shift;
}

/* Both sums for site species a at p over [0, 150) and [170, NSITES) (a molecule's sites between
 * them left out, as a move's caller does). */
static void both_sums(const partners_case *c, int a, const double p[3], double *mixed, double *serial)
{
    cpu_partners P = {.x = c->x, .y = c->y, .z = c->z, .box = c->box, .species = c->species,
                      .pair_row = c->pair[a], .hard_core_row = c->hard_core2[a],
                      .plain_row = cpu_pair_row_plain_lj(c->pair[a], NSPECIES),
                      .lj_row = cpu_pair_row_lj(c->pair[a], NSPECIES),
                      .skip0 = 150, .skip1 = 170};
    *mixed = cpu_site_energy_mixed(&P, 0, 150, p[0], p[1], p[2]) +
             cpu_site_energy_mixed(&P, 170, NSITES, p[0], p[1], p[2]);
    *serial = cpu_site_energy_serial(&P, 0, NSITES, p[0], p[1], p[2], 0.0);
}

/* 200 trial sites of each species: the sums agree to rounding (a bound of n ulps of the largest
 * term's size, the sum's own rounding), and they are not trivially zero. */
static void check_agree(int scheme, int morse_pair, int charged)
{
    partners_case *c = malloc(sizeof *c);
    assert_non_null(c);
    make_case(c, 41 + (uint64_t)scheme, scheme, morse_pair, 0.0);
    if (charged) add_charges(c, 1.2, 0.0, 0.0);
    int nonzero = 0;
    for (int t = 0; t < 200 * NSPECIES; t++) {
        mc_rng4 r = mc_rng_block(77, (uint32_t)t, 1, 0);
        double p[3] = {c->box * mc_rng_uniform(r.v[0]), c->box * mc_rng_uniform(r.v[1]),
                       c->box * mc_rng_uniform(r.v[2])}, mixed, serial;
        both_sums(c, t % NSPECIES, p, &mixed, &serial);
        if (!isfinite(serial)) continue; /* LJ's r^-12 at a random near-overlap can overflow alike */
        double bound = NSITES * DBL_EPSILON * fmax(1.0, fabs(serial)) * 64;
        if (fabs(mixed - serial) > bound)
            fail_msg("trial %d (species %d): vectorised %.17g, serial %.17g, |difference| %.3g > %.3g", t,
                     t % NSPECIES, mixed, serial, fabs(mixed - serial), bound);
        nonzero += serial != 0.0;
    }
    assert_true(nonzero > 100 * NSPECIES);
    free(c);
}

static void plain_lj_rows(void **state) { (void)state, check_agree(PAIR_TRUNCATED, 0, 0); }
static void shifted_rows(void **state) { (void)state, check_agree(PAIR_SHIFTED, 0, 0); }
static void force_shifted_morse_rows(void **state) { (void)state, check_agree(PAIR_FORCE_SHIFTED, 1, 0); }
static void charged_lj_rows(void **state) { (void)state, check_agree(PAIR_TRUNCATED, 0, 1); }
static void charged_morse_rows(void **state) { (void)state, check_agree(PAIR_SHIFTED, 1, 1); }

/* A partner inside the hard core of its species pair makes the sum +infinity in both, and only
 * the hard core of the partner's own species counts. */
static void hard_cores(void **state)
{
    (void)state;
    partners_case *c = malloc(sizeof *c);
    assert_non_null(c);
    make_case(c, 5, PAIR_TRUNCATED, 0, 0.0);
    c->hard_core2[0][1] = 0.25; /* species 0 with species 1: 0.5 */
    for (int k = 0; k < NSITES; k++) c->species[k] = 2; /* every other partner without a hard core */
    int j = 10;
    c->species[j] = 1;
    double near[3] = {c->x[j] + 0.45, c->y[j], c->z[j]}, mixed, serial;
    if (near[0] >= c->box) near[0] -= c->box;
    both_sums(c, 0, near, &mixed, &serial);
    assert_true(isinf(mixed) && mixed > 0 && isinf(serial) && serial > 0);
    c->species[j] = 2; /* species 0 with 2: no hard core, the finite LJ value */
    both_sums(c, 0, near, &mixed, &serial);
    assert_true(isfinite(mixed) && isfinite(serial));
    free(c);
}

/* The columns entry (each partner's lj1 and lj2 laid out by partner, cpu_backend's pair_columns)
 * against the gathering entry on plain truncated LJ rows: the same terms, summed in the vectoriser's
 * order for each loop (which differ: about half the sums differ in their last bits), so they agree
 * to rounding. */
static void check_columns(double alpha, double slope, double shift, int charged)
{
    partners_case *c = malloc(sizeof *c);
    double *lj1 = malloc(NSITES * sizeof *lj1), *lj2 = malloc(NSITES * sizeof *lj2), *qq = malloc(NSITES * sizeof *qq);
    assert_true(c && lj1 && lj2 && qq);
    make_case(c, 43, PAIR_TRUNCATED, 0, 0.0);
    if (charged) add_charges(c, alpha, slope, shift);
    int compared = 0;
    for (int t = 0; t < 200 * NSPECIES; t++) {
        const int a = t % NSPECIES;
        for (int j = 0; j < NSITES; j++)
            lj1[j] = c->pair[a][c->species[j]].lj1, lj2[j] = c->pair[a][c->species[j]].lj2,
            qq[j] = c->pair[a][c->species[j]].coulomb_qq;
        cpu_partners P = {.x = c->x, .y = c->y, .z = c->z, .box = c->box, .species = c->species,
                          .pair_row = c->pair[a], .hard_core_row = c->hard_core2[a],
                          .plain_row = cpu_pair_row_plain_lj(c->pair[a], NSPECIES),
                          .lj_row = cpu_pair_row_lj(c->pair[a], NSPECIES), .lj1_of = lj1, .lj2_of = lj2,
                          .columns_rc2 = c->pair[0][0].rc2, .qq_of = charged ? qq : NULL,
                          .columns_coulomb = c->pair[0][0]};
        mc_rng4 r = mc_rng_block(79, (uint32_t)t, 1, 0);
        double p[3] = {c->box * mc_rng_uniform(r.v[0]), c->box * mc_rng_uniform(r.v[1]),
                       c->box * mc_rng_uniform(r.v[2])};
        double gathered = cpu_site_energy_mixed(&P, 0, 150, p[0], p[1], p[2]) +
                          cpu_site_energy_mixed(&P, 170, NSITES, p[0], p[1], p[2]);
        double columns = cpu_site_energy_columns(&P, 0, 150, p[0], p[1], p[2]) +
                         cpu_site_energy_columns(&P, 170, NSITES, p[0], p[1], p[2]);
        if (!isfinite(gathered)) continue; /* LJ's r^-12 at a random near-overlap can overflow alike */
        double bound = NSITES * DBL_EPSILON * fmax(1.0, fabs(gathered)) * 64;
        if (fabs(gathered - columns) > bound)
            fail_msg("trial %d (species %d): gathered %.17g, columns %.17g, |difference| %.3g > %.3g", t, a, gathered,
                     columns, fabs(gathered - columns), bound);
        compared += gathered != 0.0;
    }
    assert_true(compared > 100 * NSPECIES);
    free(c), free(lj1), free(lj2), free(qq);
}
static void columns_agree_with_gathers(void **state) { (void)state, check_columns(0.0, 0.0, 0.0, 0); }
/* charged columns: Ewald's real-space term (alpha 1.2), and DSF's (alpha 0.8, its slope and shift at
 * the cutoff 3: erfc(2.4) / 9 + (1.6 / sqrt(pi)) exp(-5.76) / 3 and erfc(2.4) / 3 + 3 slope) */
static void charged_columns(void **state)
{
    (void)state;
    check_columns(1.2, 0.0, 0.0, 1);
    const double slope = erfc(2.4) / 9.0 + 1.6 / sqrt(M_PI) * exp(-5.76) / 3.0;
    check_columns(0.8, slope, erfc(2.4) / 3.0 + 3.0 * slope, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_lj_rows),
        cmocka_unit_test(shifted_rows),
        cmocka_unit_test(force_shifted_morse_rows),
        cmocka_unit_test(hard_cores),
        cmocka_unit_test(columns_agree_with_gathers),
        cmocka_unit_test(charged_lj_rows),
        cmocka_unit_test(charged_morse_rows),
        cmocka_unit_test(charged_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
