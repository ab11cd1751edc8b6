/* mc_erfc: erfc(x) and exp(y) for the CPU's site-pair loops, written so that the compiler can
 * vectorise a loop that calls them (no libm call, no branch, no table), to within a few units in
 * the 15th digit of libm's. The real-space Ewald and DSF terms take an erfc a site pair: as libm
 * calls they kept the charged molecule loop scalar and were half of a move's time (perf, 256
 * SPC/E). The GPU keeps the device's own erfc (pair.h chooses); the two agree to 1e-14 relative,
 * far inside the parity tests' 1e-10.
 *
 * erfc(x) = exp(-x^2) t G(u), t = 2 / (2 + x), u = 2 t - 1 = (2 - x) / (2 + x): the map takes
 * [0, inf) to u in (-1, 1], on which G (erfc(x) exp(x^2) / t, smooth to u = -1) is the degree-24
 * polynomial interpolating it at the Chebyshev points (in 50-digit arithmetic, mpmath), rewritten
 * in powers of u.
 * Measured against mpmath: relative error 3.8e-15 on [0, 6] (alpha rc is 3.4 at the default
 * ewald_precision), 6e-14 out to x = 26 where erfc underflows. */
#ifndef MC_ERFC_H
#define MC_ERFC_H

/* exp(y) for y <= 0, to about 2 units in the last place: 2^k exp(r), k = round(y / ln 2), |r| <=
 * ln 2 / 2 by Taylor's series to r^13 (the rest below 2e-17), 2^k built in the exponent's bits.
 * y below -708 (2^-1022, the least normal) is taken as -708: the result there is 0 to every sum
 * it enters. */
static inline double mc_exp_nonpositive(double y)
{
    static const double ln2_hi = 0.693147180369123816490, ln2_lo = 1.90821492927058770002e-10,
                        log2_e = 1.44269504088896338700;
    y = y < -708.0 ? -708.0 : y;
    const double k = __builtin_floor(y * log2_e + 0.5);
    const double r = (y - k * ln2_hi) - k * ln2_lo;
    /* by Estrin's scheme, as mc_erfc's polynomial: four dependent steps where Horner's has 13 */
    const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    const double e0 = 1.0 + (1.0) * r;
    const double e1 = 0.5 + (1.0 / 6.0) * r;
    const double e2 = 1.0 / 24.0 + (1.0 / 120.0) * r;
    const double e3 = 1.0 / 720.0 + (1.0 / 5040.0) * r;
    const double e4 = 1.0 / 40320.0 + (1.0 / 362880.0) * r;
    const double e5 = 1.0 / 3628800.0 + (1.0 / 39916800.0) * r;
    const double e6 = 1.0 / 479001600.0 + (1.0 / 6227020800.0) * r;
    const double f0 = e0 + e1 * r2, f1 = e2 + e3 * r2, f2 = e4 + e5 * r2, f3 = e6;
    const double p = (f0 + f1 * r4) + (f2 + f3 * r4) * r8;
    /* 2^k: k + 1023 in the exponent field (k >= -1022 here). k's integer from the low bits of k +
     * 1.5 2^52 rather than a conversion to int64, which AVX2 lacks (the x86-64-v3 loops stay
     * vectorised); the value is the same. */
    union { double d; long long i; } shifted = {.d = k + 0x1.8p52}, magic = {.d = 0x1.8p52}, two_k;
    two_k.i = (shifted.i - magic.i + 1023) << 52;
    return p * two_k.d;
}

/* G(u) = erfc(x) exp(x^2) / t at u = (2 - x) / (2 + x), t = 2 / (2 + x) (see the head). */
static inline double mc_erfc_g(double u)
{
    /* G(u) by Estrin's scheme (pairs, then pairs of pairs in u^2, u^4, ...): five dependent steps
     * where Horner's has 24, which bound a vectorised loop by their latency (perf: the columns loop
     * waited on Horner's chain). Written out: a loop over a table of them kept the compiler from
     * vectorising the callers. */
    const double u2 = u * u, u4 = u2 * u2, u8 = u4 * u4, u16 = u8 * u8;
    const double a0 = 0.5107913526210115 + 0.34358034220690659 * u;
    const double a1 = 0.13973604627802544 + 0.018221115753306545 * u;
    const double a2 = -0.010755330944543402 + -0.0032395925298231458 * u;
    const double a3 = 0.0015453060235237155 + 0.00041864797455347001 * u;
    const double a4 = -0.0003315366672107297 + -1.7185277049606434e-05 * u;
    const double a5 = 7.2234701530060388e-05 + -1.7076546276097942e-05 * u;
    const double a6 = -1.0844830478580393e-05 + 8.0668689493588418e-06 * u;
    const double a7 = -5.7327470330444218e-07 + -1.8346763716451883e-06 * u;
    const double a8 = 1.023671759497573e-06 + 1.5275601530786241e-08 * u;
    const double a9 = -3.1904880762943956e-07 + 1.5002373169874064e-07 * u;
    const double a10 = 3.1237899528464255e-08 + -5.1579015426615876e-08 * u;
    const double a11 = 8.3313983029885389e-09 + 6.6185477376167176e-09 * u;
    const double b0 = a0 + a1 * u2;
    const double b1 = a2 + a3 * u2;
    const double b2 = a4 + a5 * u2;
    const double b3 = a6 + a7 * u2;
    const double b4 = a8 + a9 * u2;
    const double b5 = a10 + a11 * u2;
    const double c0 = b0 + b1 * u4;
    const double c1 = b2 + b3 * u4;
    const double c2 = b4 + b5 * u4;
    const double d0 = c0 + c1 * u8, d1 = c2 + -2.2124653785049848e-09 * u8;
    return d0 + d1 * u16;
}

/* erfc(x) for x >= 0; x = 0 exactly 1, which the rounded sums miss by an ulp (a select, so that
 * the callers stay vectorised). */
static inline double mc_erfc(double x)
{
    const double t = 2.0 / (2.0 + x), u = 2.0 * t - 1.0;
    return x == 0.0 ? 1.0 : mc_exp_nonpositive(-x * x) * t * mc_erfc_g(u);
}

/* erfc(a r) / r for a >= 0, r > 0 with r2 = r^2 (the Coulomb term): one division where erfc(a r) /
 * r takes two, t / r = 2 / (2 r + a r^2); a division or a square root costs a vectorised loop
 * several times a multiplication (perf: they bounded the charged loop). a = 0: exactly 1 / r. */
static inline double mc_erfc_over_r(double a, double r, double r2)
{
    const double t_over_r = 2.0 / (2.0 * r + a * r2), x = a * r, u = 2.0 * (t_over_r * r) - 1.0;
    return x == 0.0 ? t_over_r : mc_exp_nonpositive(-x * x) * t_over_r * mc_erfc_g(u);
}

#endif
