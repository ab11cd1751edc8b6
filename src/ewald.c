/* ewald: the Fourier part of the Ewald sum (ewald.h). */
#include "ewald.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EWALD_KMAX_LIMIT = 64 }; /* the largest kmax (the phase tables' size) */

int ewald_kspace_init(ewald_kspace *e, double alpha, int kmax, int ksq_max, double k_e, mc_err *err)
{
    memset(e, 0, sizeof *e);
    if (!(alpha > 0) || kmax < 1 || kmax > EWALD_KMAX_LIMIT || ksq_max < 1 || ksq_max > 3 * kmax * kmax)
        MC_FAIL(err, MC_EINVAL, "Ewald sum: alpha = %g, kmax = %d, ksq_max = %d: expected alpha > 0, 1 <= kmax <= %d "
                "and 1 <= ksq_max <= 3 kmax^2", alpha, kmax, ksq_max, EWALD_KMAX_LIMIT);
    e->alpha = alpha, e->k_e = k_e, e->kmax = kmax, e->ksq_max = ksq_max;
    int side = 2 * kmax + 1, nk = 0;
    if (!(e->n = malloc((size_t)side * side * side / 2 * sizeof *e->n)))
        MC_FAIL(err, MC_ENOMEM, "out of memory for %d Ewald wave vectors", side * side * side / 2);
    /* the half set in a fixed order (n_x, then n_y, then n_z rising): the order of every sum over k */
    for (int x = 0; x <= kmax; x++)
        for (int y = -kmax; y <= kmax; y++)
            for (int z = -kmax; z <= kmax; z++) {
                int half = x > 0 || (x == 0 && y > 0) || (x == 0 && y == 0 && z > 0);
                if (!half || x * x + y * y + z * z > ksq_max) continue;
                e->n[nk][0] = x, e->n[nk][1] = y, e->n[nk][2] = z;
                nk++;
            }
    e->nk = nk;
    /* the rows: a new one wherever n_x or n_y changes (n_z then restarts) */
    if (!(e->rows = malloc((size_t)(nk > 0 ? nk : 1) * sizeof *e->rows))) {
        ewald_kspace_fini(e);
        MC_FAIL(err, MC_ENOMEM, "out of memory for %d Ewald wave vectors", nk);
    }
    for (int k = 0; k < nk; k++) {
        const int *n = e->n[k];
        ewald_row *last = e->nrows ? &e->rows[e->nrows - 1] : NULL;
        if (last && last->x == n[0] && last->y == n[1] && last->z0 + last->count == n[2]) {
            last->count++;
            continue;
        }
        e->rows[e->nrows++] = (ewald_row){n[0], n[1], n[2], 1, k};
    }
    return MC_OK;
}

void ewald_kspace_fini(ewald_kspace *e)
{
    free(e->n);
    free(e->rows);
    e->n = NULL;
    e->rows = NULL;
    e->nk = e->nrows = 0;
}

int ewald_sums_alloc(const ewald_kspace *e, ewald_sums *s, mc_err *err)
{
    memset(s, 0, sizeof *s);
    if (!(s->coeff = calloc(5 * (size_t)e->nk, sizeof *s->coeff)))
        MC_FAIL(err, MC_ENOMEM, "out of memory for the structure factors of %d Ewald wave vectors", e->nk);
    s->re = s->coeff + e->nk, s->im = s->re + e->nk, s->scratch = s->im + e->nk;
    return MC_OK;
}

void ewald_sums_free(ewald_sums *s)
{
    if (!s) return;
    free(s->coeff);
    s->coeff = s->re = s->im = s->scratch = NULL;
}

static void coefficients(const ewald_kspace *e, ewald_sums *s, double box)
{
    const double two_pi_l = 2.0 * M_PI / box, prefactor = 4.0 * M_PI * e->k_e / (box * box * box);
    for (int k = 0; k < e->nk; k++) {
        const int *n = e->n[k];
        double k2 = two_pi_l * two_pi_l * (double)(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        s->coeff[k] = prefactor * exp(-k2 / (4.0 * e->alpha * e->alpha)) / k2;
    }
    s->box = box;
}

/* exp(i 2 pi m u / box) for m = -kmax .. kmax (index m + kmax) along each axis, by powers of m = 1
 * (one cos and sin per coordinate; exp(-i t) = conj(exp(i t))). */
typedef struct phases {
    double re[3][2 * EWALD_KMAX_LIMIT + 1], im[3][2 * EWALD_KMAX_LIMIT + 1];
} phases;

static void phases_of(const ewald_kspace *e, double box, const double r[3], phases *p)
{
    const int K = e->kmax;
    for (int d = 0; d < 3; d++) {
        double t = 2.0 * M_PI * r[d] / box, c = cos(t), s = sin(t), *re = p->re[d] + K, *im = p->im[d] + K;
        re[0] = 1.0, im[0] = 0.0;
        for (int m = 1; m <= K; m++) {
            re[m] = re[m - 1] * c - im[m - 1] * s;
            im[m] = re[m - 1] * s + im[m - 1] * c;
            re[-m] = re[m], im[-m] = -im[m];
        }
    }
}

/* exp(i 2 pi (x r_x + y r_y) / L) of a row, and the row's run of exp(i 2 pi z r_z / L) */
static inline void row_phase(const phases *p, int K, const ewald_row *w, double *re, double *im, const double **zr,
                             const double **zi)
{
    const double ar = p->re[0][K + w->x], ai = p->im[0][K + w->x], br = p->re[1][K + w->y], bi = p->im[1][K + w->y];
    *re = ar * br - ai * bi;
    *im = ar * bi + ai * br;
    *zr = p->re[2] + K + w->z0, *zi = p->im[2] + K + w->z0;
}

/* re[k] + i im[k] += q exp(i k . r) over the set, for one site of charge q at r. */
static void add_site(const ewald_kspace *e, double box, double q, const double r[3], double *re, double *im)
{
    phases p;
    phases_of(e, box, r, &p);
    for (int w = 0; w < e->nrows; w++) {
        const ewald_row *row = &e->rows[w];
        double xr, xi;
        const double *zr, *zi;
        row_phase(&p, e->kmax, row, &xr, &xi, &zr, &zi);
        double *sr = re + row->first, *si = im + row->first;
        for (int j = 0; j < row->count; j++) {
            sr[j] += q * (xr * zr[j] - xi * zi[j]);
            si[j] += q * (xr * zi[j] + xi * zr[j]);
        }
    }
}

/* The change of E_fourier when S(k) of s changes by d (re, then im):
 * |S + dS|^2 - |S|^2 = 2 S . dS + |dS|^2, without the cancellation of the two squares. */
static double energy_change(const ewald_kspace *e, const ewald_sums *s, const double *d)
{
    const double *dre = d, *dim = d + e->nk;
    double du = 0.0;
    for (int k = 0; k < e->nk; k++)
        du += s->coeff[k] * (2.0 * (s->re[k] * dre[k] + s->im[k] * dim[k]) + dre[k] * dre[k] + dim[k] * dim[k]);
    return du;
}

double ewald_energy(const ewald_kspace *e, const ewald_sums *s)
{
    double u = 0.0;
    for (int k = 0; k < e->nk; k++) u += s->coeff[k] * (s->re[k] * s->re[k] + s->im[k] * s->im[k]);
    return u;
}

double ewald_recompute(const ewald_kspace *e, ewald_sums *s, double box, int n, const double *x,
                       const double *y, const double *z, const double *q)
{
    coefficients(e, s, box);
    memset(s->re, 0, 2 * (size_t)e->nk * sizeof *s->re);
    for (int i = 0; i < n; i++) {
        if (q[i] == 0.0) continue;
        const double r[3] = {x[i], y[i], z[i]};
        add_site(e, box, q[i], r, s->re, s->im);
    }
    return ewald_energy(e, s);
}

double ewald_move_change(const ewald_kspace *e, const ewald_sums *s, int nsites, const double *q,
                         const double *old_pos, const double *new_pos, double *d)
{
    double *dre = d, *dim = d + e->nk;
    memset(d, 0, 2 * (size_t)e->nk * sizeof *d);
    phases po, pn;
    for (int j = 0; j < nsites; j++) {
        if (q[j] == 0.0) continue;
        const double qj = q[j];
        phases_of(e, s->box, &old_pos[3 * j], &po);
        phases_of(e, s->box, &new_pos[3 * j], &pn);
        for (int w = 0; w < e->nrows; w++) {
            const ewald_row *row = &e->rows[w];
            double oxr, oxi, nxr, nxi;
            const double *ozr, *ozi, *nzr, *nzi;
            row_phase(&po, e->kmax, row, &oxr, &oxi, &ozr, &ozi);
            row_phase(&pn, e->kmax, row, &nxr, &nxi, &nzr, &nzi);
            double *dr = dre + row->first, *di = dim + row->first;
            for (int k = 0; k < row->count; k++) {
                const double or_ = oxr * ozr[k] - oxi * ozi[k], oi = oxr * ozi[k] + oxi * ozr[k];
                const double nr = nxr * nzr[k] - nxi * nzi[k], ni = nxr * nzi[k] + nxi * nzr[k];
                dr[k] += qj * (nr - or_);
                di[k] += qj * (ni - oi);
            }
        }
    }
    return energy_change(e, s, d);
}

double ewald_insertion_change(const ewald_kspace *e, const ewald_sums *s, int nsites, const double *q,
                              const double *pos, double *d)
{
    memset(d, 0, 2 * (size_t)e->nk * sizeof *d);
    for (int j = 0; j < nsites; j++)
        if (q[j] != 0.0) add_site(e, s->box, q[j], &pos[3 * j], d, d + e->nk);
    return energy_change(e, s, d);
}

void ewald_accept(const ewald_kspace *e, ewald_sums *s, const double *d)
{
    for (int k = 0; k < e->nk; k++) s->re[k] += d[k], s->im[k] += d[e->nk + k];
}

double ewald_virial(const ewald_kspace *e, const ewald_sums *s)
{
    const double two_pi_l = 2.0 * M_PI / s->box, inv_2a2 = 1.0 / (2.0 * e->alpha * e->alpha);
    double w = 0.0;
    for (int k = 0; k < e->nk; k++) {
        const int *m = e->n[k];
        double k2 = two_pi_l * two_pi_l * (double)(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
        w += s->coeff[k] * (s->re[k] * s->re[k] + s->im[k] * s->im[k]) * (1.0 - k2 * inv_2a2);
    }
    return w;
}

double ewald_site_force_dot(const ewald_kspace *e, const ewald_sums *s, double q, const double r[3],
                            const double d[3])
{
    if (q == 0.0) return 0.0;
    const double two_pi_l = 2.0 * M_PI / s->box;
    phases p;
    phases_of(e, s->box, r, &p);
    double fd = 0.0;
    for (int w = 0; w < e->nrows; w++) {
        const ewald_row *row = &e->rows[w];
        double xr, xi;
        const double *zr, *zi;
        row_phase(&p, e->kmax, row, &xr, &xi, &zr, &zi);
        const double *c = s->coeff + row->first, *sr = s->re + row->first, *si = s->im + row->first;
        for (int j = 0; j < row->count; j++) {
            const double cr = xr * zr[j] - xi * zi[j], ci = xr * zi[j] + xi * zr[j];
            const double kd = two_pi_l * (row->x * d[0] + row->y * d[1] + (row->z0 + j) * d[2]);
            fd += c[j] * kd * (sr[j] * ci - si[j] * cr);
        }
    }
    return 2.0 * q * fd;
}

double ewald_self_energy(const ewald_kspace *e, int n, const double *q)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += q[i] * q[i];
    return -e->k_e * e->alpha / sqrt(M_PI) * sum;
}

double ewald_intra_energy(const ewald_kspace *e, int nsites, const double *q, const double *pos)
{
    double u = 0.0;
    for (int i = 0; i < nsites; i++)
        for (int j = i + 1; j < nsites; j++) {
            double dx = pos[3 * i] - pos[3 * j], dy = pos[3 * i + 1] - pos[3 * j + 1], dz = pos[3 * i + 2] - pos[3 * j + 2];
            double r = sqrt(dx * dx + dy * dy + dz * dz);
            u -= q[i] * q[j] * erf(e->alpha * r) / r;
        }
    return e->k_e * u;
}
