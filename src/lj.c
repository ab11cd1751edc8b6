/* lj: parameter set-up and tail corrections; the pair functions are inline in lj.h. */
#include "lj.h"

#include <math.h>

lj_params lj_params_make(double sigma, double epsilon, double cutoff, int scheme)
{
    double s6 = pow(sigma, 6.0);
    lj_params p = {4.0 * epsilon * s6 * s6, 4.0 * epsilon * s6, cutoff * cutoff, 0.0, cutoff, 0.0};
    if (scheme == LJ_TRUNCATED || !isfinite(cutoff)) return p;
    lj_params plain = {p.lj1, p.lj2, INFINITY, 0.0, INFINITY, 0.0};
    p.shift = lj_pair_energy(p.rc2, &plain);
    /* u'(rc) = -W(rc) / rc, W the pair virial -r du/dr */
    if (scheme == LJ_FORCE_SHIFTED) p.slope = -lj_pair_virial(p.rc2, &plain) / cutoff;
    return p;
}

/* U_tail = (8/3) pi eps sig^3 N^2/V [ (1/3)(sig/rc)^9 - (sig/rc)^3 ] */
double lj_tail_energy(double sigma, double epsilon, double cutoff, double n, double volume)
{
    double sr3 = pow(sigma / cutoff, 3.0);
    return 8.0 / 3.0 * M_PI * epsilon * pow(sigma, 3.0) * n * n / volume *
           (sr3 * sr3 * sr3 / 3.0 - sr3);
}

/* P_tail = (16/3) pi eps sig^3 rho^2 [ (2/3)(sig/rc)^9 - (sig/rc)^3 ] */
double lj_tail_pressure(double sigma, double epsilon, double cutoff, double density)
{
    double sr3 = pow(sigma / cutoff, 3.0);
    return 16.0 / 3.0 * M_PI * epsilon * pow(sigma, 3.0) * density * density *
           (2.0 / 3.0 * sr3 * sr3 * sr3 - sr3);
}

double lj_impulsive_pressure(const lj_params *p, double cutoff, double density, double temperature)
{
    lj_params inside = *p; /* the same potential, evaluated at rc itself: u(rc-) */
    inside.rc2 = INFINITY;
    double u_below = lj_pair_energy(p->rc2, &inside);
    return -2.0 / 3.0 * M_PI * density * density * cutoff * cutoff * cutoff * temperature *
           expm1(-u_below / temperature);
}
