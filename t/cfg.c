/* Config parsing: defaults, state-point axes, and one message per kind of bad input naming the
 * file, line and key. Plan-level checks (cutoff against the box, packing) too. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cfg.h"
#include "mc_plan.h"

static const char *minimal = "[ensemble]\ntemperature = 1.0\ndensity = 0.5\n";

static void defaults(void **state)
{
    (void)state;
    cfg c;
    mc_err err = {0, ""};
    assert_int_equal(cfg_parse(&c, minimal, "a.ini", &err), MC_OK);
    assert_int_equal(c.system.n, 500);
    assert_int_equal(c.system.lattice, CFG_LATTICE_FCC);
    assert_true(c.potential.sigma == 1.0 && c.potential.epsilon == 1.0);
    assert_true(c.potential.cutoff == 3.0 && c.potential.tail_correction == 1);
    assert_int_equal(c.ensemble.replicas, 1);
    assert_string_equal(c.run.output, "mcens.h5");
    assert_int_equal(c.run.overwrite, 0);
    assert_int_equal(cfg_line(&c, "ensemble", "density"), 3);
    assert_int_equal(cfg_line(&c, "system", "n"), 0);
    cfg_fini(&c);
}

/* npt: temperature x pressure state points from one starting density (0.5 sigma^-3 by default),
 * pressure converted from bar in real units. */
static void npt_axes(void **state)
{
    (void)state;
    mc_err err = {0, ""};
    cfg c;
    assert_int_equal(cfg_parse(&c, "[ensemble]\ntype = npt\ntemperature = 1, 2\npressure = 0.5:1.5:3\n",
                               "a.ini", &err), MC_OK);
    mc_plan *p = mc_plan_create(&c, &err);
    assert_non_null(p);
    assert_int_equal(p->nstatepoints, 6);
    assert_true(p->ensemble->imposed_pressure && p->statepoint[4].pressure == 1.0 && p->statepoint[4].temperature == 2.0);
    assert_true(p->statepoint[4].density == 0.5);
    mc_plan_destroy(p);
    cfg_fini(&c);
    /* a geometric ladder: equal ratios, both ends as given */
    assert_int_equal(cfg_parse(&c, "[ensemble]\ntemperature = 0.5:4:4:log\ndensity = 0.5\n", "a.ini", &err), MC_OK);
    assert_int_equal(c.ensemble.temperature.n, 4);
    for (int i = 0; i < 4; i++) assert_true(fabs(c.ensemble.temperature.v[i] - 0.5 * pow(2.0, i)) < 1e-14);
    assert_true(c.ensemble.temperature.v[3] == 4.0);
    cfg_fini(&c);
    assert_int_equal(cfg_parse(&c, "[system]\nunits = real\n[potential]\npreset = argon\ncutoff = 1\n"
                                   "[ensemble]\ntype = npt\ntemperature = 120\npressure = 16.6053906717\n"
                                   "density = 12\n", "a.ini", &err), MC_OK);
    p = mc_plan_create(&c, &err);
    assert_non_null(p);
    assert_true(fabs(p->statepoint[0].pressure - 1.0) < 1e-9); /* 1 kJ/mol/nm^3 in bar */
    mc_plan_destroy(p);
    cfg_fini(&c);
}

/* Real units: lengths in nm or with an explicit A (Angstrom) suffix, inverse lengths in 1/A, the
 * density as kg/m^3 through the mass; a suffix in reduced units is an error. */
static void length_units_and_mass_density(void **state)
{
    (void)state;
    mc_err err = {0, ""};
    cfg c;
    assert_int_equal(cfg_parse(&c, "[system]\nunits = real\nmass = 39.948\n[potential]\nsigma = 3.405 A\n"
                                   "cutoff = 1.2 nm\nepsilon_k = 119.8\n[rdf]\nrmax = 10 Angstrom\n"
                                   "[ensemble]\ntemperature = 100\nmass_density = 1400, 1.5e3\n",
                               "a.ini", &err), MC_OK);
    assert_true(fabs(c.potential.sigma - 0.3405) < 1e-15 && c.potential.cutoff == 1.2);
    assert_true(fabs(c.rdf.rmax - 1.0) < 1e-15);
    /* 1400 kg/m^3 of 39.948 g/mol: 1400 / (39.948 * 1e-3 / 6.02214076e23 / 1e-27) per nm^3 */
    assert_int_equal(c.ensemble.density.n, 2);
    assert_true(fabs(c.ensemble.density.v[0] / (1400.0 * 0.602214076 / 39.948) - 1) < 1e-14);
    cfg_fini(&c);
    assert_int_equal(cfg_parse(&c, "[system]\nunits = real\n[potential]\ntype = morse\nmorse_alpha = 1.5 1/A\n"
                                   "morse_r0 = 3.9 A\ncutoff = 1.2\n[ensemble]\ntemperature = 100\n"
                                   "density = 20\n", "a.ini", &err), MC_OK);
    assert_true(fabs(c.potential.morse_alpha - 15.0) < 1e-12 && fabs(c.potential.morse_r0 - 0.39) < 1e-15);
    cfg_fini(&c);}

static void axes(void **state)
{
    (void)state;
    cfg c;
    mc_err err = {0, ""};
    const char *ini = "; comment\n[ensemble]\ntemperature = 0.85, 0.90\n"
                      "density = 0.1:0.9:9\nreplicas = 2\n[run]\nseed = 18446744073709551615\n";
    assert_int_equal(cfg_parse(&c, ini, "a.ini", &err), MC_OK);
    assert_int_equal(c.ensemble.temperature.n, 2);
    assert_true(c.ensemble.temperature.v[1] == 0.90);
    assert_int_equal(c.ensemble.density.n, 9);
    assert_true(c.ensemble.density.v[0] == 0.1 && c.ensemble.density.v[8] == 0.9);
    assert_true(fabs(c.ensemble.density.v[4] - 0.5) < 1e-15);
    assert_true(c.run.seed == UINT64_MAX);
    mc_plan *p = mc_plan_create(&c, &err);
    assert_non_null(p);
    assert_int_equal(p->nstatepoints, 18);
    assert_int_equal(p->nchains, 36);
    assert_true(p->statepoint[9].temperature == 0.90 && p->statepoint[9].density == 0.1);
    mc_plan_destroy(p);
    cfg_fini(&c);
}

/* Each bad text must fail with a message containing every expected fragment. */
static void expect_error(const char *ini, const char *frag1, const char *frag2)
{
    cfg c;
    mc_err err = {0, ""};
    int rc = cfg_parse(&c, ini, "bad.ini", &err);
    if (rc == MC_OK) {
        mc_plan *p = mc_plan_create(&c, &err);
        rc = p ? MC_OK : err.code;
        mc_plan_destroy(p);
        cfg_fini(&c);
    }
    if (rc == MC_OK) fail_msg("accepted: %s", ini);
    if (!strstr(err.msg, frag1) || (frag2 && !strstr(err.msg, frag2)))
        fail_msg("message '%s' lacks '%s' / '%s'", err.msg, frag1, frag2 ? frag2 : "");
}

#define ENS "[ensemble]\ntemperature = 1\ndensity = 0.5\n"
/* What physics forbids for an open cluster is refused at parse time, whatever the machine (so
 * backend = auto cannot make a config valid on one machine and invalid on another). */
#define CLUSTER "[system]\nboundary = none\nlattice_constant = 1.55\n[molecules]\ntypes = ar\ncounts = 13\n" \
                "geometry = Ar 0 0 0\n[potential]\ncutoff = 3\ntail_correction = no\n[rdf]\nrmax = 3\n"
static void molecule_rules(void **state)
{
    (void)state;
    expect_error(CLUSTER "[ensemble]\ntype = npt\ntemperature = 1\npressure = 1\n", "bad.ini:14",
                 "an open cluster (boundary = none) has no volume to exchange");
    expect_error(CLUSTER "[ensemble]\ntemperature = 1\nwidom = 10\n", "bad.ini:15",
                 "no uniform volume to insert test molecules into");
    /* a Morse pair without a repulsive core (r0 <= ln 2 / alpha), given or made by an override */
    expect_error("[potential]\ntype = morse\nmorse_alpha = 6\nmorse_r0 = 0.1\n" ENS, "bad.ini:4",
                 "morse_r0: the Morse pair all-all has r0 = 0.1 <= ln 2 / alpha");
    expect_error("[mixture]\nspecies = A, B\ncounts = 50, 50\nepsilon = 1, 1\nmorse_alpha = 6, 6\nmorse_r0 = 1.1, 1.1\n"
                 "pair_morse_r0 = A-B:0.05\n[potential]\ntype = morse\n" ENS, "bad.ini:7",
                 "pair_morse_r0: the Morse pair A-B has r0 = 0.05");
    /* periodic molecules take npt, Widom insertion and Morse */
    const char *ok = "[molecules]\ntypes = A2\ncounts = 32\ngeometry = A 0 0 0; A 0 0 0.5\n[potential]\n"
                     "type = morse\nmorse_alpha = 6\nmorse_r0 = 1.1\ncutoff = 2.5\n[ensemble]\ntype = npt\n"
                     "temperature = 3\npressure = 1\ndensity = 0.2\n";
    cfg c;
    mc_err err = {0, ""};
    if (cfg_parse(&c, ok, "ok.ini", &err) != MC_OK) fail_msg("refused: %s", err.msg);
    mc_plan *p = mc_plan_create(&c, &err);
    if (!p) fail_msg("plan refused: %s", err.msg);
    assert_true(p->rigid && p->ensemble->imposed_pressure && p->nmol == 32 && p->n == 64 && p->widom_kinds == 1);
    mc_plan_destroy(p);
    cfg_fini(&c);
}

/* [mixture] epsilon_k: each species' epsilon / k_B in K becomes epsilon = R epsilon_k in kJ/mol, the
 * same product as [potential] epsilon_k; refused in reduced units and beside epsilon. */
static void mixture_epsilon_k(void **state)
{
    (void)state;
    mc_err err = {0, ""};
    cfg c;
    assert_int_equal(cfg_parse(&c, "[system]\nunits = real\n[mixture]\nspecies = C, O\ncounts = 10, 20\n"
                                   "sigma = 0.28, 0.305\nepsilon_k = 27.0, 79.0\n[potential]\ncutoff = 1.0\n"
                                   "[ensemble]\ntemperature = 300\ndensity = 5\n", "a.ini", &err), MC_OK);
    assert_int_equal(c.mixture.epsilon.n, 2);
    assert_true(c.mixture.epsilon.v[0] == 27.0 * MC_BOLTZMANN_KJ_MOL_K && c.mixture.epsilon.v[1] == 79.0 * MC_BOLTZMANN_KJ_MOL_K);
    cfg_fini(&c);
    expect_error("[mixture]\nspecies = C, O\ncounts = 10, 20\nsigma = 1, 1\nepsilon_k = 27, 79\n" ENS,
                 "bad.ini:5: [mixture] epsilon_k: expected [system] units = real", NULL);
    expect_error("[system]\nunits = real\n[mixture]\nspecies = C, O\ncounts = 10, 20\nsigma = 0.3, 0.3\n"
                 "epsilon = 0.2, 0.6\nepsilon_k = 27, 79\n[ensemble]\ntemperature = 300\ndensity = 5\n",
                 "bad.ini:8: [mixture] epsilon_k: give epsilon or epsilon_k, not both (epsilon on line 7)", NULL);
}

static void bad_inputs(void **state)
{
    (void)state;
    expect_error(ENS "[sytem]\nn = 5\n", "bad.ini:4", "unknown section [sytem]");
    expect_error(ENS "[system]\nnn = 5\n", "bad.ini:5", "unknown key 'nn'");
    expect_error("[system]\nn = -5\n" ENS, "bad.ini:2", "n = '-5': expected an integer >= 2");
    expect_error("[system]\nn = 12.5\n" ENS, "bad.ini:2", "expected an integer");
    expect_error("[system]\nn = ten\n" ENS, "bad.ini:2", "expected an integer");
    expect_error("[potential]\ncutoff = 0\n" ENS, "bad.ini:2", "cutoff = '0': expected a number > 0");
    expect_error("[run]\ngpu_batch_trials = 100\n" ENS, "bad.ini:2", "expected 0 or a multiple of 32");
    expect_error("[run]\ngpu_batch_trials = 2048\n" ENS, "bad.ini:2", "expected an integer >= 0 and <= 1024");
    expect_error("[potential]\ntail_correction = maybe\n" ENS, "tail_correction", "yes or no");
    expect_error("[system]\nlattice = bcc\n" ENS, "bad.ini:2", "one of fcc|sc");
    expect_error("[ensemble]\ntemperature = 1, -2\ndensity = 0.5\n", "bad.ini:2", "temperature");
    expect_error("[ensemble]\ntemperature = 1\ndensity = 0.1:0.9\n", "bad.ini:3", "start:stop:count");
    expect_error("[ensemble]\ntemperature = 1:2:3:lin\ndensity = 0.5\n", "bad.ini:2", "start:stop:count:log");
    expect_error("[ensemble]\ntype = npt\ntemperature = 1\npressure = 0:2:3:log\n", "bad.ini:4", "pressure");
    expect_error("[ensemble]\ntemperature = 1\ndensity = 0.5\nexchange_every = 10\n", "bad.ini:4",
                 "at least two temperature values");
    expect_error("[ensemble]\ntemperature = 1, 3, 2\ndensity = 0.5\nexchange_every = 10\n", "bad.ini:2",
                 "strictly increasing or decreasing");
    expect_error("[ensemble]\ntemperature = 1\n", "missing required key 'density'", "[ensemble]");
    expect_error(ENS "[system]\nn = 5\nn = 6\n", "bad.ini:6", "given twice (first on line 5)");
    expect_error(ENS "[run]\nproduction = 100\nsample_every = 7\n", "bad.ini:6", "divisor");
    expect_error(ENS "this is not ini\n", "bad.ini:4", "cannot parse");
    expect_error("n = 5\n" ENS, "bad.ini:1", "before any [section]");
    expect_error(ENS "[run]\nseed = -1\n", "bad.ini:5", "seed");
    /* lengths with units */
    expect_error("[potential]\nsigma = 3.4 A\n" ENS, "bad.ini:2", "expected [system] units = real");
    expect_error("[system]\nunits = real\n[potential]\nsigma = 3.4 furlong\n" ENS, "bad.ini:4",
                 "optionally with nm, A or Angstrom");
    expect_error("[system]\nunits = real\n[potential]\ntype = morse\nmorse_r0 = 0.4\nmorse_alpha = 1.5 A\n" ENS,
                 "bad.ini:6", "1/nm or 1/A");
    expect_error("[ensemble]\ntemperature = 1\ndensity = 0.5\nmass_density = 0.5\n", "bad.ini:4",
                 "not both");
    /* mixtures */
#define MIX "[mixture]\nspecies = A, B\ncounts = 300, 200\nsigma = 1, 1.1\nepsilon = 1, 0.8\n"
    expect_error(ENS MIX "pair_sigma = A-C:1.05\n", "bad.ini:9", "'C' is not a species");
    expect_error(ENS MIX "pair_epsilon = A-B\n", "bad.ini:9", "expected A-B:value");
    expect_error(ENS "[mixture]\nspecies = A, B\ncounts = 300\nsigma = 1, 1\nepsilon = 1, 1\n",
                 "bad.ini:6", "expected 2 values, one per species, got 1");
    expect_error(ENS "[mixture]\nspecies = A, A\ncounts = 3, 2\nsigma = 1, 1\nepsilon = 1, 1\n",
                 "bad.ini:5", "'A' named twice");
    expect_error(ENS "[mixture]\ncounts = 300, 200\n", "bad.ini:5", "expected [mixture] species");
    expect_error(ENS MIX "[potential]\nsigma = 1\n", "bad.ini:10", "per species in [mixture]");
    expect_error(ENS MIX "[system]\nn = 400\n", "bad.ini:10", "add up to 500");
    expect_error(ENS "[mixture]\nspecies = A, B\nsigma = 1, 1\nepsilon = 1, 1\n",
                 "missing required key 'counts' in [mixture]", NULL);
#undef MIX
    /* Morse: its own keys, not LJ's */
    expect_error("[potential]\ntype = morse\nmorse_r0 = 1.1\n" ENS, "missing required key 'morse_alpha'",
                 "type = morse");
    expect_error("[potential]\ntype = morse\nmorse_r0 = 1.1\nmorse_alpha = 6\nsigma = 1\n" ENS,
                 "bad.ini:5", "sigma belongs to type = lj");
    expect_error("[potential]\nmorse_alpha = 6\n" ENS, "bad.ini:2", "morse_alpha: expected type = morse");
    /* npt: pressure is its axis and only its */
    expect_error("[ensemble]\ntemperature = 1\ndensity = 0.5\npressure = 1\n", "bad.ini:4",
                 "pressure: expected type = npt");
    expect_error("[ensemble]\ntype = npt\ntemperature = 1\n", "missing required key 'pressure'",
                 "npt");
    expect_error("[ensemble]\ntype = npt\ntemperature = 1\npressure = 1\ndensity = 0.4, 0.5\n",
                 "bad.ini:5", "one starting density");
    expect_error("[ensemble]\ntype = npt\ntemperature = 1\npressure = 1\nwidom = 10\n", "bad.ini:5",
                 "nvt only");
    expect_error("[ensemble]\ntype = npt\ntemperature = 1\npressure = 1\n[moves]\nmax_volume_step = 0\n",
                 "bad.ini:6", "max_volume_step = '0': expected a number > 0");
    expect_error(ENS "[ensemble]\nreplicas = 0\n", "replicas", NULL); /* also a duplicate section */
    /* plan level: still file:line of the key at fault */
    expect_error("[potential]\ncutoff = 5.5\n" ENS, "bad.ini:2", "at most half the box edge");
    expect_error("[rdf]\nrmax = 6\n" ENS, "bad.ini:2", "rmax");
    expect_error("[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 2.5\n", "bad.ini:5",
                 "cannot hold n = 500");
    expect_error("[sytem]\n" ENS, "bad.ini:1", "unknown section [sytem]"); /* empty section */
}

/* rmin = 2^(1/6) sigma: the same pair constants as the equivalent sigma. */
static void rmin_parametrisation(void **state)
{
    (void)state;
    cfg a, b;
    mc_err err = {0, ""};
    assert_int_equal(cfg_parse(&a, "[potential]\nsigma = 0.3405\nepsilon = 0.9961\ncutoff = 1.0\n" ENS,
                               "a.ini", &err), MC_OK);
    char text[256];
    snprintf(text, sizeof text, "[potential]\nrmin = %.17g\nepsilon = 0.9961\ncutoff = 1.0\n" ENS,
             0.3405 * pow(2.0, 1.0 / 6.0));
    assert_int_equal(cfg_parse(&b, text, "b.ini", &err), MC_OK);
    mc_plan *pa = mc_plan_create(&a, &err), *pb = mc_plan_create(&b, &err);
    assert_non_null(pa);
    assert_non_null(pb);
    assert_true(fabs(pa->pair.lj1 - pb->pair.lj1) <= 1e-14 * pa->pair.lj1);
    assert_true(fabs(pa->pair.lj2 - pb->pair.lj2) <= 1e-14 * pa->pair.lj2);
    mc_plan_destroy(pa), mc_plan_destroy(pb);
    cfg_fini(&a), cfg_fini(&b);
}

static void cutoff_scheme_rules(void **state)
{
    (void)state;
    expect_error("[potential]\nsigma = 1\nrmin = 1.1\n" ENS, "bad.ini:3", "give sigma or rmin, not both");
    expect_error("[potential]\ncutoff_scheme = shifted\ntail_correction = yes\n" ENS, "bad.ini:3",
                 "tail_correction = yes: expected no with cutoff_scheme = shifted");
    expect_error("[potential]\ncutoff = none\ncutoff_scheme = force_shifted\n" ENS, "bad.ini:3",
                 "needs a finite cutoff");
    expect_error("[potential]\ncutoff_scheme = smooth\n" ENS, "bad.ini:2",
                 "one of truncated|shifted|force_shifted");
    expect_error("[potential]\npreset = argon\n" ENS, "bad.ini:2", "expected [system] units = real");
    expect_error("[system]\nunits = real\n[potential]\npreset = argon\nsigma = 0.34\n" ENS, "bad.ini:5",
                 "the argon preset sets it");
    expect_error("[potential]\nepsilon_k = 120\n" ENS, "bad.ini:2", "expected [system] units = real");
    expect_error("[system]\nunits = real\n[potential]\nepsilon = 1\nepsilon_k = 120\n" ENS,
                 "bad.ini:5", "give epsilon or epsilon_k, not both");
    cfg c;
    mc_err err = {0, ""};
    assert_int_equal(cfg_parse(&c, "[system]\nunits = real\n[potential]\npreset = argon\ncutoff = 0.85\n"
                                   "[ensemble]\ntemperature = 120\ndensity = 20\n", "a.ini", &err), MC_OK);
    assert_true(c.potential.sigma == 0.3405 && c.system.mass == 39.948);
    assert_true(fabs(c.potential.epsilon - 119.8 * 0.008314462618) < 1e-15);
    cfg_fini(&c);
    assert_int_equal(cfg_parse(&c, "[potential]\ncutoff_scheme = shifted\n" ENS, "a.ini", &err), MC_OK);
    assert_int_equal(c.potential.tail_correction, 0); /* the default yes does not apply */
    cfg_fini(&c);
}

/* One chain's host bytes add up its parts (checked here for an atomic fluid: 3 n positions, the CPU
 * cell lists' 2 x 11 n ints, energy and pressure series, one RDF row), and the rank check names
 * the key behind the largest part, by file:line. */
static void host_memory(void **state)
{
    (void)state;
    cfg c;
    mc_err err = {0, ""};
    const char *ini = "[run]\nproduction = 1000\nsample_every = 10\n[system]\nn = 100\n[potential]\ncutoff = 1.5\n"
                      "[ensemble]\ntemperature = 1.0\ndensity = 0.5\n[rdf]\nbins = 50\n";
    assert_int_equal(cfg_parse(&c, ini, "m.ini", &err), MC_OK);
    mc_plan *p = mc_plan_create(&c, &err);
    assert_non_null(p);
    size_t want = 3 * 8 * 100 + 2 * 11 * sizeof(int) * 100 + 2 * 8 * 100 + 50 * 8;
    assert_int_equal(mc_plan_host_bytes_per_chain(p), want);
    assert_int_equal(mc_plan_check_host_memory(p, &c, 10, 10 * want, &err), MC_OK);
    assert_int_equal(mc_plan_check_host_memory(p, &c, 11, 10 * want, &err), MC_EINVAL);
    assert_non_null(strstr(err.msg, "m.ini:5: [system] n: 11 chains on one rank would take"));
    mc_plan_destroy(p);
    cfg_fini(&c);
}

/* The ensemble rows (mc_ensemble.h) are indexed by the schema's [ensemble] type choices: each name
 * selects the row of that name, with the boxes and volume moves the ensemble has. */
static void ensemble_rows(void **state)
{
    (void)state;
    static const struct { const char *text, *name; int boxes, volume_moves, imposed_pressure; } cases[] = {
        {"[ensemble]\ntype = nvt\ntemperature = 1\ndensity = 0.3\n", "nvt", 1, 0, 0},
        {"[ensemble]\ntype = npt\ntemperature = 1\npressure = 1\n", "npt", 1, 1, 1},
        {"[ensemble]\ntype = gibbs\ntemperature = 1\ndensity = 0.3\n", "gibbs", 2, 1, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cfg c;
        mc_err err = {0, ""};
        assert_int_equal(cfg_parse(&c, cases[k].text, "a.ini", &err), MC_OK);
        mc_plan *p = mc_plan_create(&c, &err);
        if (!p) fail_msg("%s", err.msg);
        assert_string_equal(p->ensemble->name, cases[k].name);
        assert_int_equal(p->ensemble->boxes, cases[k].boxes);
        assert_int_equal(p->ensemble->volume_moves, cases[k].volume_moves);
        assert_int_equal(p->ensemble->imposed_pressure, cases[k].imposed_pressure);
        assert_true(p->ensemble->sweeps && p->ensemble->adapt && p->ensemble->sample);
        assert_true(!p->ensemble->volume_moves || p->ensemble->floor_error);
        mc_plan_destroy(p);
        cfg_fini(&c);
    }
}

/* A value goes on over indented lines (libinih's multi-line entries) and is parsed whole, from
 * the line it began on; an indented line that looks like a key is refused, as is a physical line
 * beyond the reader's 198 characters, whose message names the way out. */
static void continuation_lines(void **state)
{
    (void)state;
    mc_err err = {0, ""};
    cfg c;
    assert_int_equal(cfg_parse(&c, "[ensemble]\ntemperature = 1.0,\n    2.0,\n\t3.0\ndensity = 0.5\n", "a.ini", &err),
                     MC_OK);
    assert_int_equal((int)c.ensemble.temperature.n, 3);
    assert_true(c.ensemble.temperature.v[2] == 3.0);
    assert_int_equal(cfg_line(&c, "ensemble", "temperature"), 2);
    assert_int_equal(cfg_line(&c, "ensemble", "density"), 5);
    cfg_fini(&c);

    char text[2048] = "[molecules]\ntypes = rod\ncounts = 10\ngeometry = A 0 0 0";
    for (int k = 1; k < 20; k++) snprintf(text + strlen(text), sizeof text - strlen(text), ";\n  A %d 0 0", k);
    strcat(text, "\n[ensemble]\ntemperature = 1.0\ndensity = 0.01\n");
    assert_int_equal(cfg_parse(&c, text, "a.ini", &err), MC_OK);
    assert_non_null(strstr(c.molecules.geometry, "A 0 0 0; A 1 0 0; A 2 0 0"));
    assert_non_null(strstr(c.molecules.geometry, "; A 19 0 0"));
    cfg_fini(&c);

    err = (mc_err){0, ""};
    assert_int_equal(cfg_parse(&c, "[ensemble]\ntemperature = 1.0\n  density = 0.5\n", "a.ini", &err), MC_EINVAL);
    assert_non_null(strstr(err.msg, "a.ini:3: an indented line goes on with the value of [ensemble] temperature (line 2), "
                                    "but this one looks like a key of its own"));

    char longline[400] = "[ensemble]\ntemperature = 1.0";
    for (int k = 0; k < 60; k++) strcat(longline, ", 1.0");
    strcat(longline, "\ndensity = 0.5\n");
    err = (mc_err){0, ""};
    assert_int_equal(cfg_parse(&c, longline, "a.ini", &err), MC_EINVAL);
    assert_non_null(strstr(err.msg, "a.ini:2: line longer than 198 characters (the INI reader's limit); go on with the "
                                    "value on indented lines below it"));
}

/* Issue 48 item 7: in real units every dimensional value may carry a unit, each value of a comma
 * list its own and a range one after it; converted to the unit mcens reads (nm, K, kJ/mol, bar,
 * nm^-3, g/mol, kg/m^3). A unit of another dimension, or any unit in reduced units, is refused. */
static void units_everywhere(void **state)
{
    (void)state;
    mc_err err = {0, ""};
    cfg c;
    const char *text = "[system]\nunits = real\nmass = 39.948 g/mol\n[potential]\nepsilon = 119.8 K\nsigma = 3.405 A\n"
                       "cutoff = 1.2 nm\n[ensemble]\ntype = npt\ntemperature = 80:120:5 K\npressure = 1 MPa, 50 bar, 2 atm\n"
                       "density = 20 nm^-3\n";
    assert_int_equal(cfg_read(&c, text, "a.ini", &err), MC_OK);
    assert_true(c.system.mass == 39.948);
    assert_true(fabs(c.potential.epsilon - 119.8 * 0.008314462618) < 1e-15);
    assert_true(fabs(c.potential.sigma - 0.3405) < 1e-15);
    assert_int_equal((int)c.ensemble.temperature.n, 5);
    assert_true(c.ensemble.temperature.v[0] == 80.0 && c.ensemble.temperature.v[4] == 120.0);
    assert_int_equal((int)c.ensemble.pressure.n, 3);
    assert_true(c.ensemble.pressure.v[0] == 10.0 && c.ensemble.pressure.v[1] == 50.0 &&
                fabs(c.ensemble.pressure.v[2] - 2.0265) < 1e-14);
    assert_true(c.ensemble.density.v[0] == 20.0);
    cfg_fini(&c);

    text = "[system]\nunits = real\n[mixture]\nspecies = A, B\ncounts = 10, 10\nsigma = 2.80 A, 0.305 nm\n"
           "epsilon_k = 50 K, 60\nmass = 4 g/mol, 20\n[ensemble]\ntemperature = 85 K\nmass_density = 1.2 g/cm^3\n";
    assert_int_equal(cfg_read(&c, text, "a.ini", &err), MC_OK);
    assert_true(fabs(c.mixture.sigma.v[0] - 0.28) < 1e-15 && c.mixture.sigma.v[1] == 0.305);
    assert_true(c.mixture.epsilon_k.v[0] == 50.0 && c.mixture.mass.v[0] == 4.0);
    assert_true(fabs(c.ensemble.mass_density.v[0] - 1200.0) < 1e-12);
    cfg_fini(&c);

    err = (mc_err){0, ""};
    assert_int_equal(cfg_read(&c, "[system]\nunits = real\n[ensemble]\ntemperature = 85 bar\n", "a.ini", &err), MC_EINVAL);
    assert_non_null(strstr(err.msg, "a.ini:4: [ensemble] temperature = '85 bar': expected a number > 0 and <= 1000000, a "
                                    "comma list, start:stop:count or start:stop:count:log (real units: optionally with K)"));
    err = (mc_err){0, ""};
    assert_int_equal(cfg_parse(&c, "[ensemble]\ntemperature = 85 K\ndensity = 0.5\n", "a.ini", &err), MC_EINVAL);
    assert_non_null(strstr(err.msg, "a.ini:2: a value with a unit (nm, A, K, bar, ...): expected [system] units = real"));
}

/* mass_density with molecules: a molecule's mass is the sum of its sites' (known to the plan), so
 * 997 kg/m^3 of three-site water is 997 / (18.0154 g/mol) molecules; without site masses it is
 * refused (the default 1 g/mol a site would give a density 18 times too high). */
static void mass_density_molecules(void **state)
{
    (void)state;
    mc_err err = {0, ""};
    cfg c;
    const char *water = "[system]\nunits = real\n[mixture]\nspecies = O, H\nsigma = 0.3166, 0\nepsilon = 0.65, 0\n"
                        "%s[molecules]\ntypes = water\ncounts = 216\ngeometry = O 0 0 0; H 0.1 0 0; H -0.0333 0.0943 0\n"
                        "[potential]\ncutoff = 0.9\n[ensemble]\ntemperature = 298 K\nmass_density = 997\n";
    char text[1024];
    snprintf(text, sizeof text, water, "mass = 15.9994, 1.008\n");
    assert_int_equal(cfg_parse(&c, text, "w.ini", &err), MC_OK);
    mc_plan *p = mc_plan_create(&c, &err);
    if (!p) fail_msg("%s", err.msg);
    double expected = 997.0 / ((15.9994 + 2 * 1.008) * MC_KGM3_PER_GMOL_NM3);
    assert_true(fabs(p->statepoint[0].density - expected) < 1e-12 * expected);
    assert_true(fabs(p->statepoint[0].density - 33.33) < 0.01);
    mc_plan_destroy(p);
    cfg_fini(&c);
    snprintf(text, sizeof text, water, "");
    err = (mc_err){0, ""};
    assert_int_equal(cfg_parse(&c, text, "w.ini", &err), MC_EINVAL);
    assert_non_null(strstr(err.msg, "w.ini:15: [ensemble] mass_density with molecules: expected the sites' masses"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(axes), cmocka_unit_test(npt_axes),
        cmocka_unit_test(length_units_and_mass_density),
        cmocka_unit_test(bad_inputs), cmocka_unit_test(molecule_rules), cmocka_unit_test(mixture_epsilon_k),
        cmocka_unit_test(rmin_parametrisation), cmocka_unit_test(continuation_lines), cmocka_unit_test(units_everywhere), cmocka_unit_test(mass_density_molecules),
        cmocka_unit_test(cutoff_scheme_rules), cmocka_unit_test(host_memory), cmocka_unit_test(ensemble_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
