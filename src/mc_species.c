/* mc_species: the species table and pair constants from the config. */
#include "mc_species.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsf.h"
#include "mc_size.h"

static const char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) *--end = '\0';
    return s;
}

/* Species names from "A, B, C": distinct, non-empty, no '-' or ':' (they separate pair keys). */
static int parse_names(mc_species *s, const cfg *c, mc_err *err)
{
    int line = cfg_line(c, "mixture", "species");
    char buf[256];
    if (strlen(c->mixture.species) >= sizeof buf)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] species: too long", c->filename, line);
    strcpy(buf, c->mixture.species);
    s->n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        const char *name = trim(tok);
        if (s->n == MC_MAX_SPECIES)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] species: at most %d species", c->filename, line,
                    MC_MAX_SPECIES);
        if (!*name || strlen(name) >= sizeof s->name[0] || strpbrk(name, "-: "))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] species: '%s': expected a name of 1 to 31 "
                    "characters without '-', ':' or spaces", c->filename, line, name);
        for (int a = 0; a < s->n; a++)
            if (strcmp(s->name[a], name) == 0)
                MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] species: '%s' named twice", c->filename, line, name);
        strcpy(s->name[s->n++], name);
    }
    if (s->n < 2 && !c->molecules.types)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] species: expected 2 to %d names (a pure fluid needs "
                "no [mixture])", c->filename, line, MC_MAX_SPECIES);
    return MC_OK;
}

/* One list of [mixture] with a value per species. */
static int per_species(const cfg *c, const mc_species *s, const char *key, const cfg_list *l,
                       double *out, double fallback, mc_err *err)
{
    if (!l->n && fallback > 0) {
        for (int a = 0; a < s->n; a++) out[a] = fallback;
        return MC_OK;
    }
    if (l->n != s->n)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] %s: expected %d values, one per species, got %d",
                c->filename, cfg_line(c, "mixture", key), key, s->n, l->n);
    for (int a = 0; a < s->n; a++) out[a] = l->v[a];
    return MC_OK;
}

static int species_index(const mc_species *s, const char *name)
{
    for (int a = 0; a < s->n; a++)
        if (strcmp(s->name[a], name) == 0) return a;
    return -1;
}

/* "A-B:value, ..." into table[a][b] = table[b][a]. */
static int parse_overrides(const cfg *c, const mc_species *s, const char *key, const char *text,
                           double table[MC_MAX_SPECIES][MC_MAX_SPECIES], mc_err *err)
{
    if (!text) return MC_OK;
    int line = cfg_line(c, "mixture", key);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *item = (char *)trim(tok), *dash = strchr(item, '-'), *colon = strchr(item, ':');
        char *end = NULL;
        double v = colon ? strtod(colon + 1, &end) : NAN;
        if (!dash || !colon || dash > colon || !end || *trim(end) || !(v > 0) || !isfinite(v))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] %s: '%s': expected A-B:value with a value > 0",
                    c->filename, line, key, item);
        *dash = *colon = '\0';
        int a = species_index(s, trim(item)), b = species_index(s, trim(dash + 1));
        if (a < 0 || b < 0)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] %s: '%s' is not a species (have %s)", c->filename,
                    line, key, a < 0 ? trim(item) : trim(dash + 1), c->mixture.species);
        table[a][b] = table[b][a] = v;
    }
    return MC_OK;
}

/* Morse's zero crossing, the length that plays LJ sigma's part (overlap checks, the core). */
static double morse_sigma(double alpha, double r0) { return r0 - log(2.0) / alpha; }

/* Every pair's constants: its short-range term, and its Coulomb term from the species' charges
 * (k_e q_a q_b; absent where either charge is 0) as the Ewald sum's real-space term or the damped
 * shifted force (dsf.h). */
static void fill_pairs(mc_species *s, const cfg *c, double cutoff)
{
    const double k_e = mc_species_coulomb_constant(c);
    const int method = s->coulomb = c->potential.coulomb;
    s->coulomb_k_e = k_e;
    s->coulomb_cutoff = c->potential.coulomb_cutoff > 0 ? c->potential.coulomb_cutoff : cutoff;
    s->coulomb_alpha = method == CFG_COULOMB_EWALD ? (c->potential.ewald_alpha > 0 ? c->potential.ewald_alpha
                                                      : sqrt(-log(c->potential.ewald_precision)) / s->coulomb_cutoff)
                       : method == CFG_COULOMB_DSF ? (c->potential.dsf_alpha > 0 ? c->potential.dsf_alpha
                                                                                 : 2.6 / s->coulomb_cutoff)
                                                   : 0.0;
    double slope = 0.0, shift = 0.0; /* the Ewald sum's real-space term: none */
    if (method == CFG_COULOMB_DSF) dsf_pair_terms(s->coulomb_alpha, s->coulomb_cutoff, &slope, &shift);
    for (int a = 0; a < s->n; a++)
        for (int b = 0; b < s->n; b++) {
            if (s->morse) s->pair_sigma[a][b] = morse_sigma(s->pair_morse_alpha[a][b], s->pair_morse_r0[a][b]);
            s->pair[a][b] = s->morse ? pair_morse_make(s->pair_epsilon[a][b], s->pair_morse_alpha[a][b],
                                                       s->pair_morse_r0[a][b], cutoff, c->potential.cutoff_scheme)
                                     : pair_lj_make(s->pair_sigma[a][b], s->pair_epsilon[a][b], cutoff,
                                                    c->potential.cutoff_scheme);
            s->pair[a][b].coulomb_qq = k_e * s->charge[a] * s->charge[b];
            s->pair[a][b].coulomb_rc2 = s->coulomb_cutoff * s->coulomb_cutoff;
            s->pair[a][b].coulomb_alpha = s->coulomb_alpha;
            s->pair[a][b].coulomb_slope = slope, s->pair[a][b].coulomb_shift = shift;
        }
    s->npairs = s->n * (s->n + 1) / 2;
}

static int build_mixture(mc_species *s, const cfg *c, mc_err *err)
{
    MC_TRY(parse_names(s, c, err));
    double counts[MC_MAX_SPECIES];
    if (c->molecules.types) /* site types: mc_molecules_build counts them */
        for (int a = 0; a < s->n; a++) counts[a] = 0;
    else
        MC_TRY(per_species(c, s, "counts", &c->mixture.counts, counts, 0, err));
    if (s->morse) {
        MC_TRY(per_species(c, s, "morse_alpha", &c->mixture.morse_alpha, s->morse_alpha, 0, err));
        MC_TRY(per_species(c, s, "morse_r0", &c->mixture.morse_r0, s->morse_r0, 0, err));
        for (int a = 0; a < s->n; a++) s->sigma[a] = morse_sigma(s->morse_alpha[a], s->morse_r0[a]);
    } else {
        MC_TRY(per_species(c, s, "sigma", &c->mixture.sigma, s->sigma, 0, err));
    }
    MC_TRY(per_species(c, s, "epsilon", &c->mixture.epsilon, s->epsilon, 0, err));
    MC_TRY(per_species(c, s, "mass", &c->mixture.mass, s->mass, c->system.mass, err));
    if (c->mixture.charge.n) MC_TRY(per_species(c, s, "charge", &c->mixture.charge, s->charge, 0, err));
    for (int a = 0; a < s->n; a++) /* a site of charge alone (SPC/E's hydrogens) has neither */
        if (!s->morse && s->sigma[a] == 0.0 && s->epsilon[a] != 0.0)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] sigma: species %s has sigma 0 and epsilon %g; expected sigma > 0, "
                    "or epsilon 0 as well (a site with no LJ)", c->filename, cfg_line(c, "mixture", "sigma"),
                    s->name[a], s->epsilon[a]);
    s->first[0] = 0;
    double total = 0.0; /* each count is at most 1e8 (the schema): exact in a double */
    for (int a = 0; a < s->n; a++) {
        if (counts[a] != floor(counts[a]))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] counts: %g: expected whole numbers",
                    c->filename, cfg_line(c, "mixture", "counts"), counts[a]);
        total += counts[a];
    }
    if (total > MC_MAX_PARTICLES)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] counts add up to %.0f particles; expected at most %d (the "
                "bound of [system] n)", c->filename, cfg_line(c, "mixture", "counts"), total, MC_MAX_PARTICLES);
    for (int a = 0; a < s->n; a++) {
        s->count[a] = (int)counts[a];
        s->first[a + 1] = s->first[a] + s->count[a];
    }
    if (!c->molecules.types && cfg_line(c, "system", "n") && c->system.n != s->first[s->n])
        MC_FAIL(err, MC_EINVAL, "%s:%d: [system] n = %ld: the [mixture] counts add up to %d; give one "
                "or make them agree", c->filename, cfg_line(c, "system", "n"), c->system.n, s->first[s->n]);
    for (int a = 0; a < s->n; a++)
        for (int b = 0; b < s->n; b++) { /* Lorentz-Berthelot; Morse's lengths by arithmetic means */
            s->pair_sigma[a][b] = 0.5 * (s->sigma[a] + s->sigma[b]);
            s->pair_epsilon[a][b] = sqrt(s->epsilon[a] * s->epsilon[b]);
            s->pair_morse_alpha[a][b] = 0.5 * (s->morse_alpha[a] + s->morse_alpha[b]);
            s->pair_morse_r0[a][b] = 0.5 * (s->morse_r0[a] + s->morse_r0[b]);
        }
    MC_TRY(parse_overrides(c, s, "pair_sigma", c->mixture.pair_sigma, s->pair_sigma, err));
    MC_TRY(parse_overrides(c, s, "pair_morse_alpha", c->mixture.pair_morse_alpha, s->pair_morse_alpha, err));
    MC_TRY(parse_overrides(c, s, "pair_morse_r0", c->mixture.pair_morse_r0, s->pair_morse_r0, err));
    return parse_overrides(c, s, "pair_epsilon", c->mixture.pair_epsilon, s->pair_epsilon, err);
}

/* A Morse pair whose zero crossing r0 - ln 2 / alpha is not positive has no repulsive core (u < 0
 * down to r = 0): particles would collapse onto each other, so such a pair is refused. */
static int check_morse_cores(const mc_species *s, const cfg *c, mc_err *err)
{
    for (int a = 0; s->morse && a < s->n; a++)
        for (int b = a; b < s->n; b++)
            if (!(s->pair_sigma[a][b] > 0)) {
                const char *sec = c->mixture.species ? "mixture" : "potential";
                /* a species' own pair comes from its morse_r0; an unlike pair gone bad, from an override */
                const char *key = !c->mixture.species || a == b ? "morse_r0"
                                  : c->mixture.pair_morse_r0    ? "pair_morse_r0"
                                  : c->mixture.pair_morse_alpha ? "pair_morse_alpha"
                                                                : "morse_r0";
                MC_FAIL(err, MC_EINVAL, "%s:%d: [%s] %s: the Morse pair %s-%s has r0 = %g <= ln 2 / alpha = %g, "
                        "so no repulsive core; expected r0 > ln 2 / alpha", c->filename, cfg_line(c, sec, key), sec,
                        key, s->name[a], s->name[b], s->pair_morse_r0[a][b], log(2.0) / s->pair_morse_alpha[a][b]);
            }
    return MC_OK;
}

int mc_species_build(mc_species *s, const cfg *c, double cutoff, mc_err *err)
{
    memset(s, 0, sizeof *s);
    s->morse = c->potential.type == CFG_POTENTIAL_MORSE;
    if (c->mixture.species) {
        MC_TRY(build_mixture(s, c, err));
    } else {
        s->n = 1;
        strcpy(s->name[0], "all");
        s->count[0] = s->first[1] = (int)c->system.n;
        s->sigma[0] = s->pair_sigma[0][0] = c->potential.sigma;
        s->epsilon[0] = s->pair_epsilon[0][0] = c->potential.epsilon;
        s->mass[0] = c->system.mass;
        s->morse_alpha[0] = s->pair_morse_alpha[0][0] = c->potential.morse_alpha;
        s->morse_r0[0] = s->pair_morse_r0[0][0] = c->potential.morse_r0;
        s->charge[0] = c->potential.charge;
        if (s->morse) s->sigma[0] = morse_sigma(s->morse_alpha[0], s->morse_r0[0]);
    }
    fill_pairs(s, c, cutoff);
    return check_morse_cores(s, c, err);
}

double mc_species_coulomb_constant(const cfg *c)
{
    return c->system.units == CFG_UNITS_REAL ? MC_COULOMB_KJMOL_NM : 1.0;
}

void mc_species_pair_name(const mc_species *s, int k, char *buf, size_t len)
{
    for (int a = 0; a < s->n; a++)
        for (int b = a; b < s->n; b++)
            if (mc_species_pair_index(s, a, b) == k) {
                snprintf(buf, len, "%s-%s", s->name[a], s->name[b]);
                return;
            }
    snprintf(buf, len, "?");
}
