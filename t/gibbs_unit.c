/* CPU Gibbs backend (src/cpu_gibbs.c, cpu_gibbs_rigid.c): after sweeps of all three kinds of move
 * each box's running energy equals a brute-force sum over its own particles and the recomputation
 * of cpu_gibbs_measure; particle counts per box and kind are conserved and match the labels; the
 * total volume is kept; in an ideal system (epsilon = 0) every transfer is accepted exactly when
 * its uniform is below n_src V_dst / ((n_dst + 1) V_src) (a replay of the streams of mc_gibbs.h);
 * the transfer and volume costs of a move and its reverse cancel (detailed balance). */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_gibbs.h"
#include "cpu_gibbs_rigid.h"
#include "mc_backend.h"
#include "mc_chain.h"
#include "mc_gibbs.h"
#include "mc_move.h"
#include "mc_rng.h"
#include "ewald.h"

/* Box b's LJ energy (sigma = epsilon = 1, truncated, not shifted), round() minimum image. */
static double brute_box_energy(const mc_plan *p, const mc_chain *c, int b)
{
    double u = 0.0, L = c->gibbs_box_len[b], rc2 = p->cutoff * p->cutoff;
    for (int i = 0; i < c->n; i++) {
        if (c->in_box[i] != b) continue;
        for (int j = i + 1; j < c->n; j++) {
            if (c->in_box[j] != b) continue;
            double d[3] = {c->x[i] - c->x[j], c->y[i] - c->y[j], c->z[i] - c->z[j]}, r2 = 0.0;
            for (int a = 0; a < 3; a++) {
                d[a] -= L * round(d[a] / L);
                r2 += d[a] * d[a];
            }
            if (r2 < rc2) u += 4.0 * (pow(r2, -6.0) - pow(r2, -3.0));
        }
    }
    return u;
}

static const char *ini_lj =
    "[system]\nn = 120\n[potential]\ncutoff = 2.5\ntail_correction = no\n[ensemble]\ntype = gibbs\n"
    "temperature = 1.1\ndensity = 0.3\nreplicas = 3\n[moves]\ndisplacement_fraction = 0.6\ntransfer_fraction = 0.3\n"
    "volume_fraction = 0.1\n[run]\nseed = 31\n";

static void counts_of(const mc_chain *c, int64_t n[2])
{
    n[0] = n[1] = 0;
    for (int i = 0; i < c->n; i++) n[c->in_box[i]]++;
}

/* Running box energies against brute force and cpu_gibbs_measure; counts and total volume kept. */
static void running_box_energies(void **state)
{
    (void)state;
    mc_plan *p = tu_plan(ini_lj);
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 1, &err);
    if (!c) fail_msg("%s", err.msg);
    cpu_gibbs *g = cpu_gibbs_create(p, &err);
    assert_non_null(g);
    c->max_displacement = 0.3;
    c->max_volume_step = 0.05;
    const double v_total = pow(c->gibbs_box_len[0], 3) + pow(c->gibbs_box_len[1], 3);
    int64_t n0[2];
    counts_of(c, n0);
    assert_int_equal(n0[0] + n0[1], c->n);
    for (int round = 0; round < 4; round++) {
        cpu_gibbs_sweep(p, g, c, NULL, 10);
        int64_t n[2];
        counts_of(c, n);
        assert_int_equal(n[0] + n[1], c->n);
        assert_int_equal(n[0], c->gibbs_count[0][0]);
        assert_int_equal(n[1], c->gibbs_count[1][0]);
        double v = pow(c->gibbs_box_len[0], 3) + pow(c->gibbs_box_len[1], 3);
        if (!(fabs(v - v_total) < 1e-9 * v_total)) fail_msg("total volume %.15g, started %.15g", v, v_total);
        for (int b = 0; b < 2; b++) {
            double brute = brute_box_energy(p, c, b), running = c->gibbs_energy[b];
            if (!(fabs(running - brute) < 1e-9 * fabs(brute) + 1e-12))
                fail_msg("round %d box %d: running %.15g vs brute force %.15g", round, b, running, brute);
            for (int i = 0; i < c->n; i++)
                if (c->in_box[i] == b)
                    assert_true(c->x[i] >= 0 && c->x[i] < c->gibbs_box_len[b] && c->y[i] >= 0 &&
                                c->z[i] < c->gibbs_box_len[b]);
        }
        assert_true(fabs(c->energy_pair - c->gibbs_energy[0] - c->gibbs_energy[1]) < 1e-9 * fabs(c->energy_pair));
        mc_measurement m;
        cpu_gibbs_measure(p, g, c, NULL, 0, &m);
        for (int b = 0; b < 2; b++)
            assert_true(fabs(m.box_energy[b] - brute_box_energy(p, c, b)) < 1e-10 * fabs(m.box_energy[b]) + 1e-12);
    }
    assert_true(c->step == 40u * (uint64_t)c->n);
    /* every kind of move was tried and some of each accepted */
    assert_true(c->transfers > 0 && c->transfers_accepted > 0 && c->transfers_accepted < c->transfers);
    assert_true(c->volume_moves > 0 && c->volume_accepted > 0);
    assert_true(c->accepted > c->transfers_accepted + c->volume_accepted);
    cpu_gibbs_destroy(g);
    mc_chain_destroy(c);
    mc_plan_destroy(p);
}

/* Ideal gas, transfers only (the volume exchange's fraction must be > 0: 1e-9 never draws one here): replay every step's draw and acceptance uniform and predict each
 * decision from the exact ideal-gas probability min(1, n_src V_dst / ((n_dst + 1) V_src)). */
static void ideal_transfer_probability(void **state)
{
    (void)state;
    mc_plan *p = tu_plan("[system]\nn = 80\n[potential]\nepsilon = 0\ncutoff = 2.5\ntail_correction = no\n"
                         "[ensemble]\ntype = gibbs\ntemperature = 1.0\ndensity = 0.2\nreplicas = 3\nstart_densities = 0.4, 0.1\n"
                         "[moves]\ndisplacement_fraction = 0\ntransfer_fraction = 0.999999999\nvolume_fraction = 1e-9\n"
                         "[run]\nseed = 32\n");
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 2, &err);
    assert_non_null(c);
    cpu_gibbs *g = cpu_gibbs_create(p, &err);
    assert_non_null(g);
    double v[2] = {pow(c->gibbs_box_len[0], 3), pow(c->gibbs_box_len[1], 3)};
    assert_true(fabs(v[0] - v[1]) > 0.1 * v[0]); /* unequal boxes, so the volume ratio matters */
    int64_t n[2];
    counts_of(c, n);
    uint64_t accepted = 0, tried_uphill = 0, step0 = c->step;
    const long sweeps = 20;
    for (uint64_t s = step0; s < step0 + (uint64_t)sweeps * c->n; s++) {
        mc_gibbs_trial t = mc_gibbs_draw(p->seed, (uint32_t)c->id, s, p->move_fraction, p->nkinds, 0.0);
        assert_int_equal(t.move, MC_GIBBS_TRANSFER);
        int src = t.source, dst = !src;
        if (n[src] == 0) continue;
        double ratio = (double)n[src] * v[dst] / (((double)n[dst] + 1.0) * v[src]);
        double u = mc_rng_uniform(mc_rng_block(p->seed, (uint32_t)c->id, MC_RNG_ACCEPT, s).v[0]);
        tried_uphill += ratio < 1.0;
        if (ratio >= 1.0 || u < ratio) n[src]--, n[dst]++, accepted++;
    }
    cpu_gibbs_sweep(p, g, c, NULL, sweeps);
    int64_t got[2];
    counts_of(c, got);
    assert_true(tried_uphill > 100);
    if (c->transfers_accepted != accepted || got[0] != n[0])
        fail_msg("accepted %llu (predicted %llu), box 0 holds %lld (predicted %lld)",
                 (unsigned long long)c->transfers_accepted, (unsigned long long)accepted, (long long)got[0],
                 (long long)n[0]);
    assert_true(c->gibbs_energy[0] == 0.0 && c->gibbs_energy[1] == 0.0);
    cpu_gibbs_destroy(g);
    mc_chain_destroy(c);
    mc_plan_destroy(p);
}

/* Detailed balance: a transfer and its reverse, and a volume exchange and its reverse, have costs
 * that cancel, so the acceptance ratio of the pair is exp(-beta (U' - U)) times the ratio of the
 * states' weights, whatever the counts and volumes. */
static void reverse_moves_cancel(void **state)
{
    (void)state;
    const double kT = 0.9;
    const double cases[][5] = {{1.3, 10, 4, 100.0, 250.0}, {-0.7, 1, 0, 80.0, 20.0}, {0.0, 55, 54, 300.0, 299.0}};
    for (int k = 0; k < 3; k++) {
        double dU = cases[k][0], ns = cases[k][1], nd = cases[k][2], vs = cases[k][3], vd = cases[k][4];
        double fwd = mc_gibbs_transfer_cost(dU, kT, ns, nd, vs, vd);
        double rev = mc_gibbs_transfer_cost(-dU, kT, nd + 1.0, ns - 1.0, vd, vs);
        if (!(fabs(fwd + rev) < 1e-12 * (1.0 + fabs(fwd)))) fail_msg("transfer %d: %.17g + %.17g", k, fwd, rev);
        double v0n, v1n, v0b, v1b, vt = vs + vd;
        mc_gibbs_new_volumes(vs, vt, 0.05 * (k + 1), &v0n, &v1n);
        assert_true(v0n > vs && fabs(v0n + v1n - vt) < 1e-12 * vt);
        mc_gibbs_new_volumes(v0n, vt, -0.05 * (k + 1), &v0b, &v1b);
        assert_true(fabs(v0b - vs) < 1e-12 * vs);
        double vf = mc_gibbs_volume_cost(dU, kT, ns, nd, vs, vd, v0n, v1n);
        double vr = mc_gibbs_volume_cost(-dU, kT, ns, nd, v0n, v1n, vs, vd);
        if (!(fabs(vf + vr) < 1e-12 * (1.0 + fabs(vf)))) fail_msg("volume %d: %.17g + %.17g", k, vf, vr);
    }
}

/* Rigid molecules (diatomics) in two boxes, after sweeps of every kind of move the plan draws:
 * molecule counts per box conserved and every molecule's sites in its own box; the running box
 * energies equal cpu_gibbs_rigid_measure's recomputation; with charges each box's structure factors,
 * kept by the moves, equal those recomputed from its sites (to 1e-10 of the largest) and the
 * energies include the Ewald sum. Returns the chain's accepted transfers (gcmc: insertions and
 * deletions). */
static uint64_t rigid_sweeps(const char *ini)
{
    mc_plan *p = tu_plan(ini);
    mc_err err = {0, ""};
    mc_chain *c = mc_chain_create(p, 0, &err);
    if (!c) fail_msg("%s", err.msg);
    cpu_gibbs_rigid *g = cpu_gibbs_rigid_create(p, &err);
    if (!g) fail_msg("%s", err.msg);
    ewald_sums ewald[2] = {{0}}, fresh = {0};
    for (int b = 0; p->ewald && b < 2; b++) assert_int_equal(ewald_sums_alloc(&p->kspace, &ewald[b], &err), MC_OK);
    if (p->ewald) assert_int_equal(ewald_sums_alloc(&p->kspace, &fresh, &err), MC_OK);
    const int boxes = p->ensemble->open ? 1 : 2;
    mc_measurement m;
    cpu_gibbs_rigid_measure(p, g, c, ewald, 0, &m); /* the structure factors of the start */
    c->max_displacement = 0.3, c->max_rotation = 0.3, c->max_volume_step = 0.05;
    for (int round = 0; round < 3; round++) {
        cpu_gibbs_rigid_sweep(p, g, c, ewald, 10);
        int64_t n[2] = {0, 0};
        for (int mol = 0; mol < c->nmol; mol++) {
            int b = mc_gibbs_box_of(p, c, mol);
            n[b]++;
            for (int s = p->mol.first[mol]; s < p->mol.first[mol + 1]; s++) assert_int_equal(c->in_box[s], b);
        }
        assert_int_equal(n[0] + n[1], c->nmol);
        assert_int_equal(n[0], c->gibbs_count[0][0]);
        assert_int_equal(n[1], c->gibbs_count[1][0]);
        for (int b = 0; p->ewald && b < boxes; b++) { /* S(k) as kept against S(k) from the sites */
            static double x[4096], y[4096], z[4096], q[4096];
            int nb = 0;
            for (int i = 0; i < c->n; i++)
                if (c->in_box[i] == b) x[nb] = c->x[i], y[nb] = c->y[i], z[nb] = c->z[i], q[nb++] = p->site_charge[i];
            ewald_recompute(&p->kspace, &fresh, c->gibbs_box_len[b], nb, x, y, z, q);
            double scale = 1e-300, worst = 0.0;
            for (int k = 0; k < p->kspace.nk; k++) {
                scale = fmax(scale, fmax(fabs(fresh.re[k]), fabs(fresh.im[k])));
                worst = fmax(worst, fmax(fabs(fresh.re[k] - ewald[b].re[k]), fabs(fresh.im[k] - ewald[b].im[k])));
            }
            if (!(worst < 1e-10 * scale)) fail_msg("round %d box %d: S(k) kept off by %.3g of %.3g", round, b, worst, scale);
            assert_true(ewald[b].box == c->gibbs_box_len[b]);
        }
        double running[2] = {c->gibbs_energy[0], c->gibbs_energy[1]};
        cpu_gibbs_rigid_measure(p, g, c, ewald, 0, &m);
        for (int b = 0; b < 2; b++)
            if (!(fabs(running[b] - m.box_energy[b]) < 1e-9 * fabs(m.box_energy[b]) + 1e-12))
                fail_msg("round %d box %d: running %.15g vs recomputed %.15g", round, b, running[b], m.box_energy[b]);
        assert_true(isfinite(m.box_virial[0]) && isfinite(m.box_virial[1]));
    }
    const uint64_t transfers = c->transfers_accepted;
    assert_true(c->transfers > 0 && transfers > 0);
    for (int b = 0; b < 2; b++) ewald_sums_free(&ewald[b]);
    ewald_sums_free(&fresh);
    cpu_gibbs_rigid_destroy(g);
    mc_chain_destroy(c);
    mc_plan_destroy(p);
    return transfers;
}

static void rigid_counts_and_energy(void **state)
{
    (void)state;
    rigid_sweeps("[molecules]\ntypes = A2\ncounts = 64\ngeometry = A 0 0 -0.5; A 0 0 0.5\n[potential]\ncutoff = 2.5\n"
                 "tail_correction = no\n[ensemble]\ntype = gibbs\ntemperature = 2.0\ndensity = 0.15\n"
                 "[moves]\ndisplacement_fraction = 0.6\ntransfer_fraction = 0.35\nvolume_fraction = 0.05\n"
                 "[run]\nseed = 33\n");
}

/* Dipolar diatomics (charges +1 and -1 with LJ on both sites) under the Ewald sum: in the Gibbs
 * ensemble (displacements, rotations, transfers, volume exchanges) and grand-canonical (insertions
 * and deletions), the structure factors and energies each move keeps equal a recomputation. */
static const char *dipoles = "[mixture]\nspecies = P, M\nsigma = 1, 1\nepsilon = 1, 1\ncharge = 1, -1\n"
                             "[molecules]\ntypes = D\ngeometry = P 0 0 -0.5; M 0 0 0.5\n"
                             "[potential]\ncutoff = 2.5\ncoulomb = ewald\n[run]\nseed = 34\n";

static void charged_gibbs_energy(void **state)
{
    (void)state;
    char ini[1024];
    snprintf(ini, sizeof ini, "%s[molecules]\ncounts = 64\n[ensemble]\ntype = gibbs\ntemperature = 2.0\n"
             "density = 0.15\n[moves]\ndisplacement_fraction = 0.6\ntransfer_fraction = 0.35\n"
             "volume_fraction = 0.05\n", dipoles);
    rigid_sweeps(ini);
}

static void charged_gcmc_energy(void **state)
{
    (void)state;
    char ini[1024];
    snprintf(ini, sizeof ini, "%s[system]\nbox_length = 6\n[ensemble]\ntype = gcmc\ntemperature = 2.0\nlnz = -2\n"
             "n_max = 40\n", dipoles);
    assert_true(rigid_sweeps(ini) > 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(running_box_energies),
        cmocka_unit_test(ideal_transfer_probability),
        cmocka_unit_test(reverse_moves_cancel),
        cmocka_unit_test(rigid_counts_and_energy),
        cmocka_unit_test(charged_gibbs_energy),
        cmocka_unit_test(charged_gcmc_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
