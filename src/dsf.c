/* dsf: the damped shifted force's constants and the constant terms of a molecule (dsf.h). */
#include "dsf.h"

#include <math.h>

/* 2 / sqrt(pi), as pair_fn.inc writes it */
static const double two_over_sqrt_pi = 1.1283791670955126;

void dsf_pair_terms(double alpha, double rc, double *slope, double *shift)
{
    const double erfc_rc = erfc(alpha * rc);
    *slope = erfc_rc / (rc * rc) + two_over_sqrt_pi * alpha * exp(-alpha * alpha * rc * rc) / rc;
    *shift = erfc_rc / rc + *slope * rc;
}

double dsf_self_energy(double alpha, double rc, double k_e, int n, const double *q)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += q[i] * q[i];
    return -k_e * (erfc(alpha * rc) / (2.0 * rc) + 0.5 * two_over_sqrt_pi * alpha) * sum;
}

double dsf_intra_energy(double alpha, double rc, double k_e, int nsites, const double *q, const double *pos)
{
    pair_params coulomb = {.coulomb_rc2 = rc * rc, .coulomb_alpha = alpha, .form = PAIR_LJ};
    dsf_pair_terms(alpha, rc, &coulomb.coulomb_slope, &coulomb.coulomb_shift);
    double u = 0.0;
    for (int i = 0; i < nsites; i++)
        for (int j = i + 1; j < nsites; j++) {
            double dx = pos[3 * i] - pos[3 * j], dy = pos[3 * i + 1] - pos[3 * j + 1], dz = pos[3 * i + 2] - pos[3 * j + 2];
            double r2 = dx * dx + dy * dy + dz * dz;
            coulomb.coulomb_qq = k_e * q[i] * q[j];
            u += pair_coulomb_energy(r2, &coulomb) - coulomb.coulomb_qq / sqrt(r2);
        }
    return u;
}
