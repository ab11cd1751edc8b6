/* mc_species: who is who in a chain. A pure fluid is one species; a mixture names up to
 * MC_MAX_SPECIES, each with its count, epsilon, mass and length constants: LJ sigma, or Morse
 * alpha and r0. Particles of one species hold consecutive indices (species a is first[a] ..
 * first[a+1] - 1), so pair loops split by species block and keep one set of pair constants per
 * block. Pair constants come from the Lorentz-Berthelot rules (Morse: epsilon by Berthelot, r0 and
 * alpha by arithmetic means) unless overridden per pair. Read-only after mc_species_build(). */
#ifndef MC_SPECIES_H
#define MC_SPECIES_H

#include "cfg.h"
#include "mc_err.h"
#include "mc_hd.h"
#include "pair.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MC_MAX_SPECIES = 4, MC_MAX_PAIRS = MC_MAX_SPECIES * (MC_MAX_SPECIES + 1) / 2 };

/* Coulomb's constant e^2 / (4 pi eps0) N_A in kJ/mol nm per e^2 (CODATA 2018), the pair constants'
 * k_e in real units; 1 in reduced units. */
#define MC_COULOMB_KJMOL_NM 138.935457

typedef struct mc_species {
    int n;                              /* species; 1 for a pure fluid */
    char name[MC_MAX_SPECIES][32];
    int count[MC_MAX_SPECIES];
    int first[MC_MAX_SPECIES + 1];      /* index blocks; first[n] is the particle total */
    double sigma[MC_MAX_SPECIES], epsilon[MC_MAX_SPECIES], mass[MC_MAX_SPECIES];
    double pair_sigma[MC_MAX_SPECIES][MC_MAX_SPECIES], pair_epsilon[MC_MAX_SPECIES][MC_MAX_SPECIES];
    /* Morse (morse = 1): per species and per pair; sigma is then where u crosses zero, r0 - ln 2 / alpha */
    int morse;
    double morse_alpha[MC_MAX_SPECIES], morse_r0[MC_MAX_SPECIES];
    double pair_morse_alpha[MC_MAX_SPECIES][MC_MAX_SPECIES], pair_morse_r0[MC_MAX_SPECIES][MC_MAX_SPECIES];
    /* each species' charge: e in real units, reduced charge (e / sqrt(4 pi eps0 sigma eps)) in
     * reduced units ([mixture] charge or [potential] charge; 0 without) */
    double charge[MC_MAX_SPECIES];
    double coulomb_cutoff; /* the real-space Coulomb term's cutoff ([potential] coulomb_cutoff, else cutoff) */
    int coulomb;           /* enum cfg_coulomb: none, ewald or dsf */
    double coulomb_k_e;    /* Coulomb's constant k_e in energy x length / charge^2 (mc_species_coulomb_constant) */
    double coulomb_alpha;  /* coulomb = ewald: the splitting parameter; dsf: the damping (1/length); else 0 */
    pair_params pair[MC_MAX_SPECIES][MC_MAX_SPECIES]; /* symmetric */
    int npairs;                         /* unordered pairs a <= b: n (n + 1) / 2 */
} mc_species;

/* Coulomb's constant k_e in the config's units: MC_COULOMB_KJMOL_NM in real units, 1 in reduced. */
double mc_species_coulomb_constant(const cfg *c);

/* From the config's [mixture] (or its [potential] for a pure fluid); the pair constants with the
 * given cutoff and scheme. Errors name the config line. */
int mc_species_build(mc_species *s, const cfg *c, double cutoff, mc_err *err);

/* Species of particle i from the index blocks first[0 .. n] (host and device). */
MC_HD int mc_species_block(const int *first, int n, int i)
{
    int a = 0;
    while (a + 1 < n && i >= first[a + 1]) a++;
    return a;
}

/* Index of the unordered pair {a, b} of n species in 0 .. n (n + 1) / 2 - 1: (0,0), (0,1), ..,
 * (0,n-1), (1,1), .. (host and device). */
MC_HD int mc_pair_index(int a, int b, int n)
{
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    return a * n - a * (a - 1) / 2 + (b - a);
}

static inline int mc_species_of(const mc_species *s, int i) { return mc_species_block(s->first, s->n, i); }

static inline int mc_species_pair_index(const mc_species *s, int a, int b)
{
    return mc_pair_index(a, b, s->n);
}

/* "A-B" name of pair index k into buf. */
void mc_species_pair_name(const mc_species *s, int k, char *buf, size_t len);

/* Mole fraction of species a. */
static inline double mc_species_fraction(const mc_species *s, int a)
{
    return (double)s->count[a] / s->first[s->n];
}

#ifdef __cplusplus
}
#endif
#endif
