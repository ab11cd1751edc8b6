/* tmmc: ln Pi(N) from collection matrices, its reweighting and the coexistence it implies (tmmc.h). */
#include "tmmc.h"

#include <math.h>
#include <stdlib.h>

int tmmc_ln_pi(const double (*c)[TMMC_ROW], int n_lo, int n, double *ln_pi, int *first_missing)
{
    int missing = 0;
    *first_missing = n_lo - 1;
    if (n <= 0) return 0;
    ln_pi[0] = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        const double *lo = c[i], *hi = c[i + 1];
        double up = lo[TMMC_UP], down = hi[TMMC_DOWN];
        double step = 0.0;
        if (up > 0.0 && down > 0.0) {
            /* ln P(N -> N+1) - ln P(N+1 -> N), each entry over its row's total */
            double total_lo = lo[TMMC_DOWN] + lo[TMMC_STAY] + lo[TMMC_UP];
            double total_hi = hi[TMMC_DOWN] + hi[TMMC_STAY] + hi[TMMC_UP];
            step = log(up / total_lo) - log(down / total_hi);
        } else if (missing++ == 0) {
            *first_missing = n_lo + i;
        }
        ln_pi[i + 1] = ln_pi[i] + step;
    }
    tmmc_normalize(ln_pi, n);
    return missing;
}

/* ln sum exp(x[i]) over [i0, i1), scaled by the largest term so that nothing overflows. */
static double log_sum_exp(const double *x, int i0, int i1)
{
    if (i1 <= i0) return -INFINITY;
    double top = x[i0];
    for (int i = i0 + 1; i < i1; i++)
        if (x[i] > top) top = x[i];
    double s = 0.0;
    for (int i = i0; i < i1; i++) s += exp(x[i] - top);
    return top + log(s);
}

double tmmc_normalize(double *ln_pi, int n)
{
    double total = log_sum_exp(ln_pi, 0, n);
    for (int i = 0; i < n; i++) ln_pi[i] -= total;
    return total;
}

void tmmc_reweight(const double *ln_pi, int n_lo, int n, double dlnz, double *out)
{
    for (int i = 0; i < n; i++) out[i] = ln_pi[i] + (double)(n_lo + i) * dlnz;
    tmmc_normalize(out, n);
}

double tmmc_mean_n(const double *ln_pi, int n_lo, int i0, int i1, double *ln_area)
{
    double area = log_sum_exp(ln_pi, i0, i1), sum = 0.0;
    for (int i = i0; i < i1; i++) sum += (double)(n_lo + i) * exp(ln_pi[i] - area);
    if (ln_area) *ln_area = area;
    return sum;
}

/* The highest point on one side of the peak (step -1 or +1) that rises `depth` above the lowest
 * point between it and the peak, in *second, and that lowest point in *valley; 0 if none. */
static int second_peak(const double *ln_pi, int n, int peak, int step, double depth, int *second, int *valley)
{
    int low = peak, found = 0;
    int best_low = -1;
    for (int i = peak + step; i >= 0 && i < n; i += step) {
        if (ln_pi[i] < ln_pi[low]) low = i;
        if (ln_pi[i] - ln_pi[low] >= depth && (!found || ln_pi[i] > ln_pi[*second])) {
            *second = i;
            best_low = low;
            found = 1;
        }
    }
    /* the valley is the lowest point between the peak and the second peak (a later deeper dip
     * beyond the second peak does not belong to it) */
    if (found) {
        int v = best_low;
        for (int i = peak + step; i != *second; i += step)
            if (ln_pi[i] < ln_pi[v]) v = i;
        *valley = v;
    }
    return found;
}

int tmmc_phase_boundary(const double *ln_pi, int n, double depth)
{
    if (n < 3) return -1;
    int peak = 0;
    for (int i = 1; i < n; i++)
        if (ln_pi[i] > ln_pi[peak]) peak = i;
    int second[2] = {0, 0}, valley[2] = {0, 0}, found[2];
    found[0] = second_peak(ln_pi, n, peak, -1, depth, &second[0], &valley[0]);
    found[1] = second_peak(ln_pi, n, peak, +1, depth, &second[1], &valley[1]);
    if (!found[0] && !found[1]) return -1;
    int side = !found[0] ? 1 : !found[1] ? 0 : ln_pi[second[1]] > ln_pi[second[0]];
    return valley[side]; /* the first element of the dense phase, whichever side the peaks are on */
}

/* The shift of ln z at which the mean N is `target` (it rises with ln z at the rate var N > 0):
 * bisection over +-50. */
static double shift_to_mean(const double *ln_pi, int n_lo, int n, double target, double *w)
{
    double lo = -50.0, hi = 50.0;
    for (int it = 0; it < 200 && hi - lo > 1e-12; it++) {
        double mid = 0.5 * (lo + hi);
        tmmc_reweight(ln_pi, n_lo, n, mid, w);
        if (tmmc_mean_n(w, n_lo, 0, n, NULL) < target) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

int tmmc_coexist(const double *ln_pi, const double *energy, int n_lo, int n, double lnz, double volume, double kT,
                 double depth, tmmc_coexistence *out, mc_err *err)
{
    if (n < 3 || !(depth > 0.0))
        MC_FAIL(err, MC_EINVAL, "coexistence needs at least 3 macrostates and a peak depth above 0 (got %d and %g)", n,
                depth);
    double *w = malloc((size_t)n * sizeof *w); /* the reweighted distribution */
    if (!w) MC_FAIL(err, MC_ENOMEM, "out of memory for ln Pi over %d macrostates", n);
    /* a start where both peaks show: from the activity that puts the mean N mid-range (both phases
     * weigh there if two phases exist), outward in steps of 0.25 / n in ln z (two peaks of a barrier
     * B show over a range of ln z about 2 (B - depth) / (N_liq - N_vap) wide) up to 5 either way */
    double mid = shift_to_mean(ln_pi, n_lo, n, n_lo + 0.5 * (n - 1), w), step0 = 0.25 / n, dlnz = mid;
    int boundary = -1;
    for (long k = 0; k <= (long)(10.0 / step0) && boundary < 0; k++) {
        dlnz = mid + (k % 2 ? 1 : -1) * step0 * (double)((k + 1) / 2);
        tmmc_reweight(ln_pi, n_lo, n, dlnz, w);
        boundary = tmmc_phase_boundary(w, n, depth);
    }
    if (boundary < 0) {
        free(w);
        MC_FAIL(err, MC_EINVAL,
                "ln Pi(N) over N = %d..%d has one peak at every activity within 5 of ln z = %g (none rises %g above "
                "the valley): no coexistence at this temperature from it (above the critical point, or a range of "
                "N that holds one phase)",
                n_lo, n_lo + n - 1, lnz + mid, depth);
    }
    /* Newton on f = ln A_vap - ln A_liq, which falls with ln z at the rate N_liq - N_vap */
    double n_vap = 0.0, n_liq = 0.0, f = INFINITY;
    int converged = 0;
    for (int it = 0; it < 100 && !converged; it++) {
        tmmc_reweight(ln_pi, n_lo, n, dlnz, w);
        int b = tmmc_phase_boundary(w, n, depth);
        if (b >= 0) boundary = b; /* keep the last valley while a peak hides at a far activity */
        double a_vap, a_liq;
        n_vap = tmmc_mean_n(w, n_lo, 0, boundary, &a_vap);
        n_liq = tmmc_mean_n(w, n_lo, boundary, n, &a_liq);
        f = a_vap - a_liq;
        double step = f / (n_liq - n_vap);
        if (!isfinite(step)) break;
        converged = fabs(f) < 1e-10;
        if (!converged) dlnz += step;
    }
    if (!converged) {
        free(w);
        MC_FAIL(err, MC_EINVAL,
                "ln Pi(N) over N = %d..%d: no activity near ln z = %g gives the two phases equal weight (ln of their "
                "ratio %g after 100 Newton steps)", n_lo, n_lo + n - 1, lnz + dlnz, f);
    }
    /* w, the means and the boundary are those of the final dlnz: the last step was not taken */
    out->lnz = lnz + dlnz;
    out->boundary = n_lo + boundary;
    out->n_vapour = n_vap;
    out->n_liquid = n_liq;
    out->rho_vapour = n_vap / volume;
    out->rho_liquid = n_liq / volume;
    /* beta p V = ln Xi of the vapour = ln(sum_vapour Pi(N) / Pi(0)), Pi(0) being 1 / Xi up to the
     * common normalisation */
    out->pressure = n_lo == 0 ? kT / volume * (log_sum_exp(w, 0, boundary) - w[0]) : NAN;
    out->u_vapour = out->u_liquid = NAN;
    if (energy) {
        double u[2] = {0.0, 0.0}, np[2] = {0.0, 0.0};
        for (int i = 0; i < n; i++) {
            int phase = i >= boundary;
            u[phase] += energy[i] * exp(w[i]);
            np[phase] += (double)(n_lo + i) * exp(w[i]);
        }
        out->u_vapour = u[0] / np[0];
        out->u_liquid = u[1] / np[1];
    }
    int lo_peak = 0, hi_peak = boundary;
    for (int i = 0; i < boundary; i++)
        if (w[i] > w[lo_peak]) lo_peak = i;
    for (int i = boundary; i < n; i++)
        if (w[i] > w[hi_peak]) hi_peak = i;
    double valley = w[boundary];
    for (int i = lo_peak; i <= hi_peak; i++)
        if (w[i] < valley) valley = w[i];
    out->barrier = fmin(w[lo_peak], w[hi_peak]) - valley;
    free(w);
    return MC_OK;
}

void tmmc_ln_pi_mean(const double *ln_pis, int R, int n, double *mean, double *stderr_)
{
    for (int i = 0; i < n; i++) mean[i] = 0.0;
    if (stderr_)
        for (int i = 0; i < n; i++) stderr_[i] = 0.0;
    for (int r = 0; r < R; r++) {
        double shift = log_sum_exp(ln_pis + (size_t)r * n, 0, n);
        for (int i = 0; i < n; i++) mean[i] += (ln_pis[(size_t)r * n + i] - shift) / R;
    }
    if (!stderr_ || R < 2) return;
    for (int r = 0; r < R; r++) {
        double shift = log_sum_exp(ln_pis + (size_t)r * n, 0, n);
        for (int i = 0; i < n; i++) {
            double d = ln_pis[(size_t)r * n + i] - shift - mean[i];
            stderr_[i] += d * d;
        }
    }
    for (int i = 0; i < n; i++) stderr_[i] = sqrt(stderr_[i] / (R - 1)) / sqrt((double)R);
}
