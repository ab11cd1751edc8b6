/* Transition-matrix Monte Carlo's arithmetic (src/tmmc.c) against exact answers and NIST's data:
 * ln Pi of the ideal gas (Poisson) from exact collection rows, and from a sampled, biased macrostate
 * chain split into two windows and pooled; ln Pi recovered from rows built by detailed balance
 * from NIST's T = 1.2 distribution; NIST's T = 1.5 distribution's mean N and its reweighting; the
 * coexistence NIST reports at T = 1.2 (t/refdata/tmmc/README.md); and one peak refused. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_rng.h"
#include "tmmc.h"

enum { NIST_MAX = 400 };

typedef struct nist_lnpi {
    int n; /* macrostates N = 0 .. n - 1 */
    double lnz, ln_pi[NIST_MAX], std[NIST_MAX], energy[NIST_MAX];
} nist_lnpi;

/* A t/refdata/tmmc table and the activity it was collected at (its header's "lnz* = ... = X"). */
static void load_nist(const char *name, nist_lnpi *d)
{
    FILE *f = fopen(tu_refdata(name), "r");
    if (!f) fail_msg("cannot open %s", tu_refdata(name));
    char line[512];
    d->n = 0;
    d->lnz = NAN;
    while (fgets(line, sizeof line, f)) {
        const char *lnz = strstr(line, "(reduced) = ");
        if (line[0] == '#' && lnz) d->lnz = atof(lnz + strlen("(reduced) = "));
        int N;
        double u_std;
        if (line[0] == '#' || line[0] == 'N') continue;
        assert_true(d->n < NIST_MAX);
        assert_int_equal(sscanf(line, "%d %lf %lf %lf %lf", &N, &d->ln_pi[d->n], &d->std[d->n], &d->energy[d->n], &u_std), 5);
        assert_int_equal(N, d->n);
        d->n++;
    }
    fclose(f);
    assert_true(isfinite(d->lnz));
}

/* ln of the Poisson distribution of mean lambda over N = n_lo .. n_lo + n - 1, normalised there:
 * the ideal gas's ln Pi at activity z in volume V (lambda = z V). */
static void poisson(double lambda, int n_lo, int n, double *ln_pi)
{
    for (int i = 0; i < n; i++) ln_pi[i] = (n_lo + i) * log(lambda) - lgamma(n_lo + i + 1.0);
    tmmc_normalize(ln_pi, n);
}

/* The ideal gas's Metropolis ratios out of N at zV = lambda (the acceptance is min(1, ratio)). */
static double ideal_insertion(double lambda, int N) { return lambda / (N + 1); }
static double ideal_deletion(double lambda, int N) { return N / lambda; }

/* Rows collected with the exact acceptance probabilities, as many insertions as deletions out of
 * each macrostate: ln Pi is the Poisson distribution to rounding, on the whole range and on a part
 * of it; rows without data are counted and left flat. */
static void ideal_gas_exact(void **state)
{
    (void)state;
    enum { N = 81 };
    const double lambda = 100.0 * exp(-1.0);
    double c[N][TMMC_ROW] = {{0}}, ln_pi[N], exact[N];
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 1 + i % 3; k++) { /* 1 to 3 attempts each way: rows of unequal totals */
            tmmc_collect(c[i], TMMC_UP, fmin(1.0, ideal_insertion(lambda, i)));
            tmmc_collect(c[i], TMMC_DOWN, fmin(1.0, ideal_deletion(lambda, i)));
        }
    }
    int first;
    assert_int_equal(tmmc_ln_pi((const double(*)[TMMC_ROW])c, 0, N, ln_pi, &first), 0);
    assert_int_equal(first, -1);
    poisson(lambda, 0, N, exact);
    for (int i = 0; i < N; i++) assert_true(fabs(ln_pi[i] - exact[i]) < 1e-12);

    /* a part of the range, N = 20 .. 60: the same distribution, normalised there */
    assert_int_equal(tmmc_ln_pi((const double(*)[TMMC_ROW])(c + 20), 20, 41, ln_pi, &first), 0);
    assert_int_equal(first, 19);
    poisson(lambda, 20, 41, exact);
    for (int i = 0; i < 41; i++) assert_true(fabs(ln_pi[i] - exact[i]) < 1e-12);

    /* no data above N = 30: 50 transitions missing, the first at 30, flat beyond */
    double partial[N][TMMC_ROW] = {{0}};
    memcpy(partial, c, 31 * sizeof c[0]);
    partial[30][TMMC_UP] = 0.0;
    assert_int_equal(tmmc_ln_pi((const double(*)[TMMC_ROW])partial, 0, N, ln_pi, &first), 50);
    assert_int_equal(first, 30);
    for (int i = 31; i < N; i++) assert_true(fabs(ln_pi[i] - ln_pi[30]) < 1e-15);
}

/* A sampled macrostate chain of the ideal gas, as a run would drive it: insertions and deletions
 * with the exact acceptance probabilities, biased by the chain's own estimate (updated every 2000
 * steps from its rows), confined to a window by rejecting moves out of it while still collecting
 * them. Two windows that overlap, 16 independent replicas each; the pooled rows of a replica
 * give its ln Pi. */
enum { GAS_N = 81, GAS_WINDOWS = 2, GAS_REPLICAS = 16 };
static const int gas_window[GAS_WINDOWS][2] = {{0, 44}, {36, 80}};

static void sample_window(double lambda, int replica, int w, long steps, double (*c)[TMMC_ROW])
{
    const int lo = gas_window[w][0], hi = gas_window[w][1];
    double bias[GAS_N] = {0};
    int N = lo, first;
    uint32_t chain = (uint32_t)(GAS_WINDOWS * replica + w);
    for (long s = 0; s < steps; s++) {
        mc_rng4 r = mc_rng_block(2026, chain, MC_RNG_TRIAL, (uint64_t)s);
        int up = r.v[0] & 1, to = up ? N + 1 : N - 1;
        double ratio = up ? ideal_insertion(lambda, N) : ideal_deletion(lambda, N);
        tmmc_collect(c[N], up ? TMMC_UP : TMMC_DOWN, fmin(1.0, ratio));
        /* the bias multiplies the ratio, before the min: min(1, ratio) times it would not be flat */
        if (to >= lo && to <= hi && ratio > 0.0 &&
            log(mc_rng_uniform(r.v[1])) < log(ratio) + tmmc_bias(bias, N, to))
            N = to;
        if ((s + 1) % 2000 == 0) tmmc_ln_pi((const double(*)[TMMC_ROW])c, 0, GAS_N, bias, &first);
    }
}

static void ideal_gas_sampled(void **state)
{
    (void)state;
    const double lambda = 100.0 * exp(-1.0);
    double ln_pis[GAS_REPLICAS * GAS_N], mean[GAS_N], se[GAS_N], exact[GAS_N];
    for (int r = 0; r < GAS_REPLICAS; r++) {
        double pooled[GAS_N][TMMC_ROW] = {{0}};
        for (int w = 0; w < GAS_WINDOWS; w++) {
            double c[GAS_N][TMMC_ROW] = {{0}};
            sample_window(lambda, r, w, 100000, c);
            for (int i = 0; i < GAS_N; i++)
                for (int k = 0; k < TMMC_ROW; k++) pooled[i][k] += c[i][k];
        }
        int first;
        assert_int_equal(tmmc_ln_pi((const double(*)[TMMC_ROW])pooled, 0, GAS_N, ln_pis + r * GAS_N, &first), 0);
    }
    tmmc_ln_pi_mean(ln_pis, GAS_REPLICAS, GAS_N, mean, se);
    poisson(lambda, 0, GAS_N, exact);
    /* the mean within 6.4 of its standard errors everywhere: Student's t with 15 degrees of freedom
     * exceeds 6.37 with probability 1e-3 / 80, a false alarm of 1e-3 over the 80 macrostates above
     * N = 0 (Bonferroni; neighbouring N are correlated, which makes the bound conservative); and
     * the spread itself sane: above zero, below 0.3 */
    double worst = 0.0, z2 = 0.0;
    for (int i = 1; i < GAS_N; i++) {
        if (!(se[i] > 0.0 && se[i] < 0.3)) fail_msg("N = %d: standard error %g", i, se[i]);
        double z = (mean[i] - exact[i]) / se[i];
        worst = fmax(worst, fabs(z));
        z2 += z * z / (GAS_N - 1);
    }
    print_message("# ideal gas, sampled: worst deviation %.2f standard errors, mean square %.2f; stderr at N = 40: "
                  "%.4f\n", worst, z2, se[40]);
    assert_true(worst < 6.4);
    /* and the standard errors honest: the mean square deviation in them is about 15/13 for t with
     * 15 degrees of freedom (neighbours correlated: loose bounds); an error off by sqrt(R) or R
     * puts it outside */
    assert_true(z2 > 0.3 && z2 < 3.0);
}

/* Rows made by detailed balance from NIST's T = 1.2 distribution (any up probabilities; each down
 * probability set so that Pi(N) P(N -> N+1) = Pi(N+1) P(N+1 -> N), rows of unequal totals) give
 * back that distribution. */
static void detailed_balance(void **state)
{
    (void)state;
    static nist_lnpi d;
    load_nist("tmmc/lj_lnpi_T1.20.tsv", &d);
    static double c[NIST_MAX][TMMC_ROW], ln_pi[NIST_MAX];
    memset(c, 0, sizeof c);
    double total[NIST_MAX]; /* each row's total, unequal, with room for its up and down entries */
    for (int i = 0; i < d.n; i++) total[i] = 1000.0 + 37.0 * (i % 5);
    for (int i = 0; i + 1 < d.n; i++) {
        c[i][TMMC_UP] = 0.05 + 0.4 * (double)(i % 7) / 7.0;
        c[i + 1][TMMC_DOWN] = c[i][TMMC_UP] / total[i] * total[i + 1] * exp(d.ln_pi[i] - d.ln_pi[i + 1]);
    }
    for (int i = 0; i < d.n; i++) {
        assert_true(c[i][TMMC_UP] + c[i][TMMC_DOWN] < total[i]);
        c[i][TMMC_STAY] = total[i] - c[i][TMMC_UP] - c[i][TMMC_DOWN];
    }
    int first;
    assert_int_equal(tmmc_ln_pi((const double(*)[TMMC_ROW])c, 0, d.n, ln_pi, &first), 0);
    double ref[NIST_MAX];
    memcpy(ref, d.ln_pi, sizeof ref);
    tmmc_normalize(ref, d.n);
    for (int i = 0; i < d.n; i++) assert_true(fabs(ln_pi[i] - ref[i]) < 1e-9);
}

/* NIST's T = 1.5 distribution: its mean N at the activity it was collected at is 310.40 (README),
 * reweighting by 0 changes nothing, and reweighting there and back returns it. It has one peak:
 * no coexistence, refused with a message. */
static void nist_supercritical(void **state)
{
    (void)state;
    static nist_lnpi d;
    load_nist("tmmc/lj_lnpi_T1.50.tsv", &d);
    assert_int_equal(d.n, 371);
    double mean = tmmc_mean_n(d.ln_pi, 0, 0, d.n, NULL);
    print_message("# T = 1.5: <N> = %.4f at lnz = %.6f\n", mean, d.lnz);
    assert_true(fabs(mean - 310.40) < 0.005);
    double w[NIST_MAX], back[NIST_MAX];
    tmmc_reweight(d.ln_pi, 0, d.n, 0.0, w);
    for (int i = 0; i < d.n; i++) assert_true(fabs(w[i] - d.ln_pi[i]) < 1e-8); /* the file's rounding */
    tmmc_reweight(d.ln_pi, 0, d.n, -0.7, w);
    assert_true(tmmc_mean_n(w, 0, 0, d.n, NULL) < mean - 50.0);
    tmmc_reweight(w, 0, d.n, 0.7, back);
    for (int i = 0; i < d.n; i++) assert_true(fabs(back[i] - d.ln_pi[i]) < 1e-8);

    tmmc_coexistence co;
    mc_err err = {0};
    assert_int_equal(tmmc_coexist(d.ln_pi, d.energy, 0, d.n, d.lnz, 512.0, 1.5, 2.0, &co, &err), MC_EINVAL);
    assert_non_null(strstr(err.msg, "one peak"));
}

/* The mean and variance of N over the elements [i0, i1) of a distribution indexed from 0, and the
 * spread of that mean from per-macrostate spreads sd[i] of ln Pi taken as independent. */
static double phase_moments(const double *ln_pi, const double *sd, int i0, int i1, double *variance, double *spread)
{
    double area, mean = tmmc_mean_n(ln_pi, 0, i0, i1, &area), v = 0.0, s2 = 0.0;
    for (int i = i0; i < i1; i++) {
        double p = exp(ln_pi[i] - area);
        v += (i - mean) * (i - mean) * p;
        s2 += (i - mean) * (i - mean) * p * p * sd[i] * sd[i];
    }
    *variance = v;
    *spread = sqrt(s2);
    return mean;
}

/* NIST's T = 1.2 distribution, the mean of five NIST runs: the equal-area activity and coexisting
 * densities NIST gives for it (README: lnz_sat = -3.0309, rho_vap 0.1003, rho_liq 0.56329), each
 * within three times the spread of one run's estimate, propagated from the runs' spread of ln Pi
 * (lnPi_std): for ln z, the spread of ln(A_vap / A_liq), the phases' peaks' lnPi_std (each phase
 * moving as one), over d ln(A_vap / A_liq) / d ln z = N_vap - N_liq; for a density, that spread of
 * ln z times d<N>/d ln z (the phase's variance of N), plus the mean's own spread from lnPi_std
 * within the phase, over V. (How NIST combined its runs is not stated; an analysis of each run
 * averaged and this one of the mean distribution differ by less than one run's spread.) Then the
 * split does not depend on which side the reweighting starts from, and the areas are equal. */
static void nist_coexistence(void **state)
{
    (void)state;
    static nist_lnpi d;
    load_nist("tmmc/lj_lnpi_T1.20.tsv", &d);
    tmmc_coexistence co, other;
    mc_err err = {0};
    const double V = 512.0;
    if (tmmc_coexist(d.ln_pi, d.energy, 0, d.n, d.lnz, V, 1.2, 2.0, &co, &err)) fail_msg("%s", err.msg);
    double w[NIST_MAX], a_vap, a_liq;
    tmmc_reweight(d.ln_pi, 0, d.n, co.lnz - d.lnz, w);
    int peak[2] = {0, co.boundary};
    for (int i = 0; i < d.n; i++)
        if (w[i] > w[peak[i >= co.boundary]]) peak[i >= co.boundary] = i;
    double lnz_spread = hypot(d.std[peak[0]], d.std[peak[1]]) / (co.n_liquid - co.n_vapour);
    double var[2], shape[2], rho_spread[2];
    phase_moments(w, d.std, 0, co.boundary, &var[0], &shape[0]);
    phase_moments(w, d.std, co.boundary, d.n, &var[1], &shape[1]);
    for (int k = 0; k < 2; k++) rho_spread[k] = (var[k] * lnz_spread + shape[k]) / V;
    print_message("# T = 1.2: lnz_sat %.5f +- %.1e, rho %.5f +- %.1e / %.5f +- %.1e (one run's spread), split at N = "
                  "%d, p_sat %.6f, U/N %.4f / %.4f, barrier %.2f\n",
                  co.lnz, lnz_spread, co.rho_vapour, rho_spread[0], co.rho_liquid, rho_spread[1], co.boundary,
                  co.pressure, co.u_vapour, co.u_liquid, co.barrier);
    assert_true(fabs(co.lnz - -3.0309) < 3.0 * lnz_spread);
    assert_true(fabs(co.rho_vapour - 0.1003) < 3.0 * rho_spread[0] + 0.5e-4); /* + the digits given */
    assert_true(fabs(co.rho_liquid - 0.56329) < 3.0 * rho_spread[1] + 0.5e-5);

    tmmc_mean_n(w, 0, 0, co.boundary, &a_vap);
    tmmc_mean_n(w, 0, co.boundary, d.n, &a_liq);
    assert_true(fabs(a_vap - a_liq) < 1e-9);
    /* at equal areas (each ln(1/2) of the normalised distribution), beta p V = -ln 2 - ln Pi(0) */
    assert_true(fabs(co.pressure - 1.2 / V * (-log(2.0) - w[0])) < 1e-12);
    assert_true(co.pressure > 0.0 && co.pressure < co.rho_vapour * 1.2); /* below the ideal gas's */
    /* each phase's energy per particle, sum U(N) Pi(N) / sum N Pi(N), and the barrier: the lower
     * peak's height above the valley's floor */
    double u[2] = {0, 0}, np[2] = {0, 0}, top[2] = {-INFINITY, -INFINITY}, floor_ = INFINITY;
    for (int i = 0; i < d.n; i++) {
        int ph = i >= co.boundary;
        u[ph] += d.energy[i] * exp(w[i]), np[ph] += i * exp(w[i]), top[ph] = fmax(top[ph], w[i]);
    }
    for (int i = peak[0]; i <= peak[1]; i++) floor_ = fmin(floor_, w[i]);
    assert_true(fabs(co.u_vapour - u[0] / np[0]) < 1e-12 * fabs(co.u_vapour));
    assert_true(fabs(co.u_liquid - u[1] / np[1]) < 1e-12 * fabs(co.u_liquid));
    assert_true(co.u_liquid < co.u_vapour && co.u_vapour < 0.0);
    assert_true(fabs(co.barrier - (fmin(top[0], top[1]) - floor_)) < 1e-12);

    /* from distributions reweighted deep into the liquid, and into the vapour (its peak the higher
     * one), first: the same coexistence */
    for (int side = 0; side < 2; side++) {
        double shift = side ? 0.3 : -0.3;
        tmmc_reweight(d.ln_pi, 0, d.n, shift, w);
        assert_int_equal(tmmc_coexist(w, d.energy, 0, d.n, d.lnz + shift, V, 1.2, 2.0, &other, &err), MC_OK);
        assert_true(fabs(other.lnz - co.lnz) < 1e-10);
        assert_int_equal(other.boundary, co.boundary);
        assert_true(fabs(other.rho_liquid - co.rho_liquid) < 1e-10);
        assert_true(fabs(other.rho_vapour - co.rho_vapour) < 1e-10);
    }
    /* a depth close to the barrier (8.47): two peaks show over a range of ln z about 0.004 wide,
     * which the search must not step over */
    assert_int_equal(tmmc_coexist(d.ln_pi, d.energy, 0, d.n, d.lnz, V, 1.2, 8.2, &other, &err), MC_OK);
    assert_true(fabs(other.lnz - co.lnz) < 1e-10);
    /* no depth, or too few macrostates: refused */
    assert_int_equal(tmmc_coexist(d.ln_pi, NULL, 0, d.n, d.lnz, V, 1.2, 0.0, &other, &err), MC_EINVAL);
    assert_int_equal(tmmc_coexist(d.ln_pi, NULL, 0, 2, d.lnz, V, 1.2, 2.0, &other, &err), MC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(ideal_gas_exact), cmocka_unit_test(ideal_gas_sampled),
                                       cmocka_unit_test(detailed_balance), cmocka_unit_test(nist_supercritical),
                                       cmocka_unit_test(nist_coexistence)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
