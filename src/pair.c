/* pair: parameter set-up and tail corrections; the pair functions are inline in pair.h. */
#include "pair.h"

#include <math.h>

/* The shift and slope of the chosen scheme, from the unshifted potential at rc. */
static pair_params with_scheme(pair_params p, int scheme)
{
    if (scheme == PAIR_TRUNCATED || !isfinite(p.rc)) return p;
    pair_params plain = p;
    plain.rc2 = INFINITY; /* evaluate at rc itself */
    p.shift = pair_energy(p.rc2, &plain);
    /* u'(rc) = -W(rc) / rc, W the pair virial -r du/dr */
    if (scheme == PAIR_FORCE_SHIFTED) p.slope = -pair_virial(p.rc2, &plain) / p.rc;
    return p;
}

pair_params pair_lj_make(double sigma, double epsilon, double cutoff, int scheme)
{
    double s6 = pow(sigma, 6.0);
    pair_params p = {.lj1 = 4.0 * epsilon * s6 * s6, .lj2 = 4.0 * epsilon * s6, .rc2 = cutoff * cutoff,
                     .rc = cutoff, .coulomb_rc2 = cutoff * cutoff, .form = PAIR_LJ};
    return with_scheme(p, scheme);
}

pair_params pair_morse_make(double epsilon, double alpha, double r0, double cutoff, int scheme)
{
    pair_params p = {.rc2 = cutoff * cutoff, .rc = cutoff, .morse_eps = epsilon, .morse_alpha = alpha,
                     .morse_r0 = r0, .coulomb_rc2 = cutoff * cutoff, .form = PAIR_MORSE};
    return with_scheme(p, scheme);
}

/* int_rc^inf r^k e^(-b (r - r0)) dr for k = 2 and 3 (repeated integration by parts). */
static double exp_moment2(double b, double rc, double r0)
{
    return exp(-b * (rc - r0)) * (rc * rc / b + 2.0 * rc / (b * b) + 2.0 / (b * b * b));
}

static double exp_moment3(double b, double rc, double r0)
{
    return exp(-b * (rc - r0)) *
           (rc * rc * rc / b + 3.0 * rc * rc / (b * b) + 6.0 * rc / (b * b * b) + 6.0 / (b * b * b * b));
}

/* LJ: int r^2 u = lj1 / (9 rc^9) - lj2 / (3 rc^3); Morse with u = eps (e^2 - 2 e):
 * eps [I2(2a) - 2 I2(a)]. */
double pair_tail_energy(const pair_params *p, double n, double volume)
{
    double rc = p->rc, integral;
    if (p->form == PAIR_MORSE) {
        double a = p->morse_alpha, r0 = p->morse_r0;
        integral = p->morse_eps * (exp_moment2(2.0 * a, rc, r0) - 2.0 * exp_moment2(a, rc, r0));
    } else {
        double rc3 = rc * rc * rc;
        integral = p->lj1 / (9.0 * rc3 * rc3 * rc3) - p->lj2 / (3.0 * rc3);
    }
    return 2.0 * M_PI * n * n / volume * integral;
}

/* LJ: int r^2 (-r u') = 4 lj1 / (3 rc^9) - 2 lj2 / rc^3; Morse with -r u' = 2 a eps r (e^2 - e):
 * 2 a eps [I3(2a) - I3(a)]. */
double pair_tail_pressure(const pair_params *p, double density)
{
    double rc = p->rc, integral;
    if (p->form == PAIR_MORSE) {
        double a = p->morse_alpha, r0 = p->morse_r0;
        integral = 2.0 * a * p->morse_eps * (exp_moment3(2.0 * a, rc, r0) - exp_moment3(a, rc, r0));
    } else {
        double rc3 = rc * rc * rc;
        integral = 4.0 * p->lj1 / (3.0 * rc3 * rc3 * rc3) - 2.0 * p->lj2 / rc3;
    }
    return 2.0 / 3.0 * M_PI * density * density * integral;
}

double pair_impulsive_pressure(const pair_params *p, double cutoff, double density, double temperature)
{
    pair_params inside = *p; /* the same short-range term, evaluated at rc itself: u(rc-) */
    inside.rc2 = INFINITY;
    inside.coulomb_qq = 0.0;
    double u_below = pair_energy(p->rc2, &inside);
    return -2.0 / 3.0 * M_PI * density * density * cutoff * cutoff * cutoff * temperature *
           expm1(-u_below / temperature);
}
