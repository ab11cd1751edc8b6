/* cfg_check: the config's own consistency, once cfg_parse has read every key against the schema
 * (cfg.c): keys that need or exclude each other, values the physics cannot take, and the values
 * derived from others. What needs the plan (box edges, the species' cores, memory) is checked by
 * mc_plan_create. */
#include "cfg_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* to = from times factor, in a list of its own (from stays as the config gave it, for --dry-run). */
static int cfg_list_scaled(cfg_list *to, const cfg_list *from, double factor, mc_err *err)
{
    double *v = malloc((size_t)(from->n > 0 ? from->n : 1) * sizeof *v);
    if (!v) MC_FAIL(err, MC_ENOMEM, "out of memory");
    for (int i = 0; i < from->n; i++) v[i] = from->v[i] * factor;
    free(to->v);
    *to = (cfg_list){from->n, v};
    return MC_OK;
}

/* Real units: the argon preset, epsilon from epsilon_k; both only in real units. */
static int check_units(cfg *c, mc_err *err)
{
    const char *f = c->filename;
    int real = c->system.units == CFG_UNITS_REAL;
    if (c->unit_suffix && !real)
        MC_FAIL(err, MC_EINVAL, "%s:%d: a value with a unit (nm, A, K, bar, ...): expected [system] units = real "
                "(reduced values are bare numbers in units of sigma, epsilon and k_B)", f, c->unit_suffix);
    if (c->potential.preset != CFG_PRESET_NONE) {
        if (!real)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] preset = argon: expected [system] units = real",
                    f, cfg_line(c, "potential", "preset"));
        static const char *fixed[] = {"sigma", "epsilon", "epsilon_k", "rmin"};
        for (int i = 0; i < 4; i++)
            if (cfg_line(c, "potential", fixed[i]))
                MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] %s: the argon preset sets it; remove one",
                        f, cfg_line(c, "potential", fixed[i]), fixed[i]);
        c->potential.sigma = 0.3405;            /* nm */
        c->potential.epsilon_k = 119.8;         /* K */
        if (!cfg_line(c, "system", "mass")) c->system.mass = 39.948; /* g/mol */
    }
    if (c->potential.epsilon_k > 0) {
        if (!real)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] epsilon_k: expected [system] units = real",
                    f, cfg_line(c, "potential", "epsilon_k"));
        if (cfg_line(c, "potential", "epsilon"))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] epsilon_k: give epsilon or epsilon_k, not both",
                    f, cfg_line(c, "potential", "epsilon_k"));
        c->potential.epsilon = c->potential.epsilon_k * MC_BOLTZMANN_KJ_MOL_K;
    }
    return MC_OK;
}

/* Morse: its two keys required, the LJ length keys refused; and the other way round. */
static int check_morse(const cfg *c, mc_err *err)
{
    const char *f = c->filename;
    int morse = c->potential.type == CFG_POTENTIAL_MORSE;
    static const char *morse_keys[] = {"morse_alpha", "morse_r0"}, *lj_keys[] = {"sigma", "rmin"};
    for (int i = 0; i < 2 && !c->mixture.species; i++) { /* a mixture's are per species (check_mixture) */
        if (morse && !cfg_line(c, "potential", morse_keys[i]))
            MC_FAIL(err, MC_EINVAL, "%s: missing required key '%s' in [potential] (type = morse)", f,
                    morse_keys[i]);
        if (morse && (*morse_keys[i] == 'm' ? c->potential.morse_alpha : c->potential.morse_r0) <= 0)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] %s: expected a number > 0 with type = morse", f,
                    cfg_line(c, "potential", morse_keys[i]), morse_keys[i]);
        if (!morse && cfg_line(c, "potential", morse_keys[i]))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] %s: expected type = morse", f,
                    cfg_line(c, "potential", morse_keys[i]), morse_keys[i]);
        if (morse && cfg_line(c, "potential", lj_keys[i]))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] %s belongs to type = lj; Morse takes morse_r0 "
                    "and morse_alpha", f, cfg_line(c, "potential", lj_keys[i]), lj_keys[i]);
    }
    if (morse && c->potential.preset != CFG_PRESET_NONE)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] preset = argon is a Lennard-Jones model; expected type = lj",
                f, cfg_line(c, "potential", "preset"));
    return MC_OK;
}

/* [mixture]: all or nothing; per-species LJ parameters replace the [potential] ones. The lists
 * themselves are checked against the species names by mc_species_build. */
static int check_mixture(cfg *c, mc_err *err)
{
    const char *f = c->filename;
    if (c->mixture.epsilon_k.n) { /* into epsilon in kJ/mol, as [potential] epsilon_k (check_units) */
        if (c->system.units != CFG_UNITS_REAL)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] epsilon_k: expected [system] units = real", f,
                    cfg_line(c, "mixture", "epsilon_k"));
        if (cfg_line(c, "mixture", "epsilon"))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] epsilon_k: give epsilon or epsilon_k, not both (epsilon on line %d)",
                    f, cfg_line(c, "mixture", "epsilon_k"), cfg_line(c, "mixture", "epsilon"));
        MC_TRY(cfg_list_scaled(&c->mixture.epsilon, &c->mixture.epsilon_k, MC_BOLTZMANN_KJ_MOL_K, err));
    }
    static const char *keys[] = {"counts", "sigma", "epsilon", "mass", "pair_sigma", "pair_epsilon",
                                 "hard_core", "morse_alpha", "morse_r0", "pair_morse_alpha", "pair_morse_r0",
                                 "charge", "epsilon_k"};
    if (!c->mixture.species) {
        for (int i = 0; i < (int)(sizeof keys / sizeof keys[0]); i++)
            if (cfg_line(c, "mixture", keys[i]))
                MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] %s: expected [mixture] species as well",
                        f, cfg_line(c, "mixture", keys[i]), keys[i]);
        return MC_OK;
    }
    /* with molecules the species are site types, counted by the molecules */
    int molecules = c->molecules.types != NULL;
    if (c->ensemble.type == CFG_ENSEMBLE_GCMC && cfg_line(c, "mixture", "counts"))
        MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] counts: type = gcmc gives every species n_max slots; remove this "
                "key", f, cfg_line(c, "mixture", "counts"));
    if (molecules && cfg_line(c, "mixture", "counts"))
        MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] counts: with [molecules] the sites are counted by "
                "[molecules] counts; remove this key", f, cfg_line(c, "mixture", "counts"));
    /* the species' constants of the potential type, and none of the other's */
    int morse = c->potential.type == CFG_POTENTIAL_MORSE;
    static const char *lj_keys[] = {"counts", "epsilon", "sigma", "pair_sigma"};
    static const char *morse_keys[] = {"counts", "epsilon", "morse_alpha", "morse_r0", "pair_morse_alpha",
                                       "pair_morse_r0"};
    const char *const *need = morse ? morse_keys : lj_keys, *const *other = morse ? lj_keys : morse_keys;
    int nneed = morse ? 4 : 3, nother = morse ? 2 : 4; /* the required ones first, then overrides */
    /* counts first: molecules count their sites, gcmc gives each species n_max slots (check_gcmc) */
    for (int i = molecules || c->ensemble.type == CFG_ENSEMBLE_GCMC; i < nneed; i++)
        if (!cfg_line(c, "mixture", need[i]) && !(strcmp(need[i], "epsilon") == 0 && cfg_line(c, "mixture", "epsilon_k")))
            MC_FAIL(err, MC_EINVAL, "%s: missing required key '%s' in [mixture] (type = %s)", f, need[i],
                    morse ? "morse" : "lj");
    for (int i = 0; i < nother; i++) {
        const char *key = other[2 + i]; /* past counts and epsilon, which both types take */
        if (cfg_line(c, "mixture", key))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] %s belongs to type = %s; this run is type = %s", f,
                    cfg_line(c, "mixture", key), key, morse ? "lj" : "morse", morse ? "morse" : "lj");
    }
    static const char *pure[] = {"sigma", "epsilon", "epsilon_k", "rmin", "preset", "morse_alpha", "morse_r0",
                                 "charge"};
    for (int i = 0; i < 8; i++)
        if (cfg_line(c, "potential", pure[i]))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] %s: a mixture takes its parameters per species "
                    "in [mixture]", f, cfg_line(c, "potential", pure[i]), pure[i]);
    return MC_OK;
}

/* Keys that constrain each other in [potential]. */
static int check_potential(cfg *c, mc_err *err)
{
    MC_TRY(check_mixture(c, err));
    MC_TRY(check_morse(c, err));
    MC_TRY(check_units(c, err));
    if (c->potential.rmin > 0) {
        if (cfg_line(c, "potential", "sigma"))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] rmin: give sigma or rmin, not both (sigma on line %d)",
                    c->filename, cfg_line(c, "potential", "rmin"), cfg_line(c, "potential", "sigma"));
        c->potential.sigma = c->potential.rmin / pow(2.0, 1.0 / 6.0);
    }
    if (c->potential.cutoff_scheme == CFG_CUTOFF_TRUNCATED) return MC_OK;
    if (!isfinite(c->potential.cutoff))
        MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] cutoff_scheme: a shifted potential needs a finite cutoff",
                c->filename, cfg_line(c, "potential", "cutoff_scheme"));
    if (c->potential.tail_correction && cfg_line(c, "potential", "tail_correction"))
        MC_FAIL(err, MC_EINVAL,
                "%s:%d: [potential] tail_correction = yes: expected no with cutoff_scheme = %s "
                "(tail corrections belong to the truncated potential)",
                c->filename, cfg_line(c, "potential", "tail_correction"),
                c->potential.cutoff_scheme == CFG_CUTOFF_SHIFTED ? "shifted" : "force_shifted");
    c->potential.tail_correction = 0;
    return MC_OK;
}

/* Which of density and pressure the ensemble takes as its axis. */
static int check_ensemble(cfg *c, mc_err *err)
{
    const char *f = c->filename;
    cfg_list *rho = &c->ensemble.density, *mass_rho = &c->ensemble.mass_density;
    if (mass_rho->n) {
        if (rho->n)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] mass_density: give density or mass_density, "
                    "not both (density on line %d)", f, cfg_line(c, "ensemble", "mass_density"),
                    cfg_line(c, "ensemble", "density"));
        /* number densities (mass_density kept as given); a molecule's mass is its sites', known to
         * mc_plan only, which converts them there */
        c->ensemble.density_is_mass = c->molecules.types != NULL;
        double per_number = c->ensemble.density_is_mass ? 1.0 : c->system.mass * (c->system.units == CFG_UNITS_REAL
                                                                                   ? MC_KGM3_PER_GMOL_NM3 : 1.0);
        MC_TRY(cfg_list_scaled(rho, mass_rho, 1.0 / per_number, err));
        if (c->ensemble.density_is_mass && !cfg_line(c, "mixture", "mass") && !cfg_line(c, "system", "mass"))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] mass_density with molecules: expected the sites' masses "
                    "([mixture] mass, or [system] mass for one site species), from which the molecules' mass comes",
                    f, cfg_line(c, "ensemble", "mass_density"));
    }
    if (c->ensemble.type != CFG_ENSEMBLE_NPT) {
        const char *type = c->ensemble.type == CFG_ENSEMBLE_GIBBS ? "gibbs" : c->ensemble.type == CFG_ENSEMBLE_GCMC ? "gcmc" : "nvt";
        if (c->ensemble.pressure.n)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] pressure: expected type = npt (this run is %s)",
                    f, cfg_line(c, "ensemble", "pressure"), type);
        /* start = xyz: the file's box gives the density where none is given (mc_start_xyz_density) */
        if (!rho->n && c->system.boundary == CFG_BOUNDARY_PERIODIC && c->system.start != CFG_START_XYZ)
            MC_FAIL(err, MC_EINVAL, "%s: missing required key 'density' in [ensemble] (type = %s)", f, type);
        return MC_OK;
    }
    if (!c->ensemble.pressure.n)
        MC_FAIL(err, MC_EINVAL, "%s: missing required key 'pressure' in [ensemble] (type = npt)", f);
    /* at P <= 0 the isobaric weight V^N exp(-beta P V) grows without bound in V: no equilibrium,
     * the box expands for ever */
    for (int i = 0; i < c->ensemble.pressure.n; i++)
        if (!(c->ensemble.pressure.v[i] > 0))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] pressure = %g: expected > 0 with type = npt (at P <= 0 the "
                    "isobaric ensemble has no equilibrium: the box grows without bound)", f,
                    cfg_line(c, "ensemble", "pressure"), c->ensemble.pressure.v[i]);
    if (c->ensemble.widom)
        MC_FAIL(err, MC_EINVAL,
                "%s:%d: [ensemble] widom: Widom insertion runs with type = nvt only (npt would need "
                "the volume-weighted average); run nvt at the npt density",
                f, cfg_line(c, "ensemble", "widom"));
    if (rho->n > 1)
        MC_FAIL(err, MC_EINVAL,
                "%s:%d: [ensemble] density: expected one starting density with type = npt "
                "(pressure is the axis), got %d values", f, cfg_line(c, "ensemble", "density"), rho->n);
    if (!rho->n && c->system.start != CFG_START_XYZ) { /* (start = xyz: the file's box) */
        rho->v = malloc(sizeof *rho->v);
        if (!rho->v) MC_FAIL(err, MC_ENOMEM, "out of memory");
        rho->n = 1;
        rho->v[0] = 0.5 / (c->potential.sigma * c->potential.sigma * c->potential.sigma);
    }
    return MC_OK;
}

/* Replica exchange: a ladder needs two rungs, and its values in order, so that the neighbours a swap
 * pairs are the state points whose energy distributions overlap. */
static int check_exchange(const cfg *c, mc_err *err)
{
    const char *f = c->filename;
    if (!c->ensemble.exchange_every) return MC_OK;
    const int along = c->ensemble.exchange_axis;
    if (along == CFG_EXCHANGE_PRESSURE && c->ensemble.type != CFG_ENSEMBLE_NPT)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] exchange_axis = pressure: expected type = npt (an nvt run has "
                "no pressure axis)", f, cfg_line(c, "ensemble", "exchange_axis"));
    if (along == CFG_EXCHANGE_LNZ && c->ensemble.type != CFG_ENSEMBLE_GCMC)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] exchange_axis = lnz: expected type = gcmc (only the "
                "grand-canonical ensemble has an activity axis)", f, cfg_line(c, "ensemble", "exchange_axis"));
    const char *key = along == CFG_EXCHANGE_PRESSURE ? "pressure" : along == CFG_EXCHANGE_LNZ ? "lnz" : "temperature";
    const cfg_list *axis = along == CFG_EXCHANGE_PRESSURE ? &c->ensemble.pressure
                           : along == CFG_EXCHANGE_LNZ    ? &c->ensemble.lnz
                                                          : &c->ensemble.temperature;
    if (axis->n < 2)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] exchange_every = %ld: expected at least two %s values to exchange "
                "between (got %d); set exchange_every = 0 or give a list or a range", f,
                cfg_line(c, "ensemble", "exchange_every"), c->ensemble.exchange_every, key, axis->n);
    double sign = axis->v[1] > axis->v[0] ? 1.0 : -1.0;
    for (int i = 1; i < axis->n; i++)
        if (!(sign * (axis->v[i] - axis->v[i - 1]) > 0))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] %s: expected strictly increasing or decreasing values for "
                    "replica exchange (neighbours in the list are the pairs that swap), but value %d (%g) follows %g",
                    f, cfg_line(c, "ensemble", key), key, i + 1, axis->v[i], axis->v[i - 1]);
    return MC_OK;
}

static int refuse(const cfg *c, const char *section, const char *key, const char *why, mc_err *err)
{
    if (cfg_line(c, section, key))
        MC_FAIL(err, MC_EINVAL, "%s:%d: [%s] %s: %s", c->filename, cfg_line(c, section, key), section,
                key, why);
    return MC_OK;
}

/* Charges and their electrostatics: charges need coulomb = ewald or dsf and each needs charges;
 * a method's keys need it; what neither reaches yet is refused by name (the net charge and the box
 * are the plan's). */
static int check_coulomb(const cfg *c, mc_err *err)
{
    const char *f = c->filename;
    const int mixture = c->mixture.species != NULL, method = c->potential.coulomb;
    const char *charge_section = mixture ? "mixture" : "potential";
    const char *name = method == CFG_COULOMB_DSF ? "dsf" : "ewald";
    int charged = !mixture && c->potential.charge != 0.0;
    for (int a = 0; mixture && a < c->mixture.charge.n; a++) charged |= c->mixture.charge.v[a] != 0.0;
    if (charged && method == CFG_COULOMB_NONE)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [%s] charge: charged sites need [potential] coulomb = ewald or dsf", f,
                cfg_line(c, charge_section, "charge"), charge_section);
    static const char *ewald_keys[] = {"ewald_precision", "ewald_alpha", "ewald_kmax", "ewald_ksq_max"};
    for (int i = 0; method != CFG_COULOMB_EWALD && i < 4; i++)
        MC_TRY(refuse(c, "potential", ewald_keys[i], "expected [potential] coulomb = ewald", err));
    if (method != CFG_COULOMB_DSF) MC_TRY(refuse(c, "potential", "dsf_alpha", "expected [potential] coulomb = dsf", err));
    if (method == CFG_COULOMB_NONE)
        MC_TRY(refuse(c, "potential", "coulomb_cutoff", "expected [potential] coulomb = ewald or dsf", err));
    if (method == CFG_COULOMB_NONE) return MC_OK;
    if (!charged)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] coulomb = %s: every charge is 0; give [%s] charge", f,
                cfg_line(c, "potential", "coulomb"), name, charge_section);
    const char *why = NULL;
    if (!c->molecules.types)
        why = "charged sites are sites of [molecules] for now (an ion is a one-site molecule type)";
    else if (c->system.boundary != CFG_BOUNDARY_PERIODIC)
        why = "charged sites need a periodic box for now (boundary = periodic)";
    if (why)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] coulomb = %s: %s", f, cfg_line(c, "potential", "coulomb"), name, why);
    if (c->potential.coulomb_cutoff == 0 && !isfinite(c->potential.cutoff))
        MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] coulomb = %s: its pair term needs a finite cutoff: "
                "give [potential] coulomb_cutoff (or cutoff)", f, cfg_line(c, "potential", "coulomb"), name);
    return MC_OK;
}

/* Molecules and open clusters: what they need, and what an open cluster cannot take. */
static int check_rigid(cfg *c, mc_err *err)
{
    const char *f = c->filename;
    int none = c->system.boundary == CFG_BOUNDARY_NONE;
    static const char *mol_keys[] = {"types", "counts", "geometry"};
    for (int i = 0; i < 3; i++) {
        /* gcmc gives each molecule type n_max slots (check_gcmc) */
        if (c->molecules.types && !cfg_line(c, "molecules", mol_keys[i]) && !(i == 1 && c->ensemble.type == CFG_ENSEMBLE_GCMC))
            MC_FAIL(err, MC_EINVAL, "%s: missing required key '%s' in [molecules]", f, mol_keys[i]);
        if (!c->molecules.types)
            MC_TRY(refuse(c, "molecules", mol_keys[i], "expected [molecules] types as well", err));
    }
    const int h5 = c->system.start == CFG_START_H5, xyz = c->system.start == CFG_START_XYZ;
    const int from_file = c->system.start == CFG_START_FILE || h5 || xyz;
    if (!from_file)
        MC_TRY(refuse(c, "system", "start_file", "expected start = file, h5 or xyz", err));
    if (from_file && !c->system.start_file)
        MC_FAIL(err, MC_EINVAL, "%s: missing required key 'start_file' in [system] (start = %s)", f,
                h5 ? "h5" : xyz ? "xyz" : "file");
    if (!h5) MC_TRY(refuse(c, "system", "start_chain", "expected start = h5", err));
    if (!cfg_rigid(c)) {
        static const char *keys[][2] = {{"mixture", "hard_core"}, {"moves", "max_rotation"}};
        for (int i = 0; i < 2; i++)
            MC_TRY(refuse(c, keys[i][0], keys[i][1],
                          "belongs to molecules or boundary = none (the rigid-body engine)", err));
        /* atoms start on [system] lattice, at random (melt) or from an earlier output (h5) */
        if (c->system.start == CFG_START_FILE)
            MC_TRY(refuse(c, "system", "start", "file belongs to molecules or boundary = none (the rigid-body "
                          "engine); atoms start on [system] lattice, at random (melt), or from an earlier output (h5)", err));
    }
    if (!none) {
        MC_TRY(refuse(c, "wall", "radius", "a wall confines an open cluster: expected [system] boundary = none", err));
        MC_TRY(refuse(c, "wall", "strength", "a wall confines an open cluster: expected [system] boundary = none", err));
        MC_TRY(refuse(c, "system", "lattice_constant", "periodic boxes take their size from density", err));
    } else {
        MC_TRY(refuse(c, "ensemble", "density", "an open cluster (boundary = none) has no density", err));
        MC_TRY(refuse(c, "ensemble", "mass_density", "an open cluster (boundary = none) has no density", err));
        if (c->potential.tail_correction && cfg_line(c, "potential", "tail_correction"))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] tail_correction = yes: an open cluster has no "
                    "uniform surroundings to correct for; expected no", f, cfg_line(c, "potential", "tail_correction"));
        c->potential.tail_correction = 0;
        if (!from_file && !(c->system.lattice_constant > 0))
            MC_FAIL(err, MC_EINVAL, "%s: missing required key 'lattice_constant' in [system] (boundary = none "
                    "builds its starting cluster from it)", f);
        if ((c->wall.radius > 0) != (c->wall.strength > 0))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [wall]: expected both radius and strength > 0, or neither", f,
                    cfg_line(c, "wall", c->wall.radius > 0 ? "radius" : "strength"));
    }
    if (none) { /* what physics forbids: an open cluster has no volume to change or insert into */
        if (c->ensemble.type == CFG_ENSEMBLE_NPT)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] type = npt: an open cluster (boundary = none) has "
                    "no volume to exchange; expected nvt", f, cfg_line(c, "ensemble", "type"));
        MC_TRY(refuse(c, "ensemble", "widom", "an open cluster (boundary = none) has no uniform volume to "
                      "insert test molecules into; expected 0", err));
    }
    return MC_OK;
}

/* The Gibbs ensemble (mc_gibbs.h): two periodic boxes of atoms or molecules, temperature the only axis. */
static int check_gibbs(const cfg *c, mc_err *err)
{
    const char *f = c->filename;
    static const char *fractions[] = {"displacement_fraction", "transfer_fraction", "volume_fraction"};
    if (c->ensemble.type != CFG_ENSEMBLE_GIBBS) {
        for (int i = 0; i < 3; i++) /* gcmc has two of them (check_gcmc) */
            if (c->ensemble.type != CFG_ENSEMBLE_GCMC || i == 2)
                MC_TRY(refuse(c, "moves", fractions[i], "expected [ensemble] type = gibbs", err));
        return refuse(c, "ensemble", "start_densities", "expected [ensemble] type = gibbs", err);
    }
    if (c->system.boundary == CFG_BOUNDARY_NONE)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] type = gibbs: the Gibbs ensemble exchanges volume and particles "
                "between two periodic boxes; an open cluster (boundary = none) has neither; expected boundary = "
                "periodic", f, cfg_line(c, "system", "boundary"));
    if (c->system.start == CFG_START_FILE)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [system] start = file: type = gibbs starts on a lattice or at random (melt) in "
                "each box", f, cfg_line(c, "system", "start"));
    if (c->system.start == CFG_START_H5 || c->system.start == CFG_START_XYZ)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [system] start = %s: type = gibbs starts on a lattice or at random (melt) in "
                "each box", f, cfg_line(c, "system", "start"), c->system.start == CFG_START_H5 ? "h5" : "xyz");
    if (c->ensemble.density.n != 1)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] density: expected one total density N/(V1 + V2) with type = gibbs "
                "(temperature is the axis), got %d values", f, cfg_line(c, "ensemble", "density"),
                c->ensemble.density.n);
    const cfg_list *start = &c->ensemble.start_densities;
    if (start->n && c->ensemble.density_is_mass) /* number densities against a mass density unconverted yet */
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] start_densities: give the total as density (molecules per volume), "
                "not mass_density, beside it", f, cfg_line(c, "ensemble", "start_densities"));
    if (start->n && (start->n != 2 || !(fmin(start->v[0], start->v[1]) < c->ensemble.density.v[0] &&
                                        c->ensemble.density.v[0] < fmax(start->v[0], start->v[1]))))
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] start_densities: expected two densities (box 0, box 1) with the "
                "total density %g between them", f, cfg_line(c, "ensemble", "start_densities"),
                c->ensemble.density.v[0]);
    if (c->ensemble.exchange_every)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] exchange_every: replica exchange is not built for type = gibbs; "
                "expected 0", f, cfg_line(c, "ensemble", "exchange_every"));
    if (c->output.snapshot_every)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [output] snapshot_every: trajectories of the two boxes of type = gibbs are "
                "not written (the final positions and box labels are); expected 0", f,
                cfg_line(c, "output", "snapshot_every"));
    if (c->run.precision == CFG_PRECISION_SINGLE)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [run] precision = single: type = gibbs runs in double on both backends",
                f, cfg_line(c, "run", "precision"));
    double sum = 0.0;
    for (int i = 0; i < 3; i++) sum += c->moves.move_fraction[i];
    if (fabs(sum - 1.0) > 1e-9) {
        int line = 0;
        for (int i = 0; i < 3; i++) line = line > cfg_line(c, "moves", fractions[i]) ? line : cfg_line(c, "moves", fractions[i]);
        MC_FAIL(err, MC_EINVAL, "%s:%d: [moves] displacement_fraction + transfer_fraction + volume_fraction = %g + %g + "
                "%g = %.12g: expected them to add up to 1", f, line, c->moves.move_fraction[0],
                c->moves.move_fraction[1], c->moves.move_fraction[2], sum);
    }
    for (int i = 1; i < 3; i++)
        if (!(c->moves.move_fraction[i] > 0))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [moves] %s = 0: expected > 0 with type = gibbs (without %s the boxes "
                    "cannot reach coexistence)", f, cfg_line(c, "moves", fractions[i]), fractions[i],
                    i == 1 ? "particle transfers their chemical potentials" : "volume exchange their pressures");
    return MC_OK;
}

/* The grand-canonical ensemble (mc_gcmc.h): atoms or rigid molecules in one periodic box of fixed
 * edge, ln z the axis beside temperature (several kinds, a mixture's species or molecule types, each
 * at their [mixture] or [molecules] lnz plus the axis's value). What
 * is not built for it yet is refused by name. It then sets what the rest of the code reads of every
 * run: [system] n is the slots (n_max for each species: a chain holds that many particle slots, each
 * present or absent), a mixture's counts n_max each, [ensemble] density n / V (the lattice the slots
 * start on), and the move fractions. */
static int check_gcmc(cfg *c, mc_err *err)
{
    const char *f = c->filename, *why = "expected [ensemble] type = gcmc";
    static const char *const only[][2] = {{"ensemble", "lnz"}, {"ensemble", "n_min"}, {"ensemble", "n_max"},
                                          {"system", "box_length"}, {"tmmc", "windows"}, {"tmmc", "bias"},
                                          {"mixture", "lnz"}, {"molecules", "lnz"}};
    if (c->ensemble.type != CFG_ENSEMBLE_GCMC) {
        for (size_t i = 0; i < sizeof only / sizeof only[0]; i++) MC_TRY(refuse(c, only[i][0], only[i][1], why, err));
        return MC_OK;
    }
    static const char *const not_yet[][3] = {
        {"ensemble", "widom", "type = gcmc inserts particles itself: ln Pi(N) gives the chemical potential; expected 0"},
        {"ensemble", "density", "type = gcmc takes [system] box_length; the density is an outcome"},
        {"ensemble", "mass_density", "type = gcmc takes [system] box_length; the density is an outcome"},
        {"system", "n", "type = gcmc takes [ensemble] n_max, the most particles a chain holds"},
        {"molecules", "counts", "type = gcmc gives every molecule type n_max slots; remove this key"},
        {"moves", "volume_fraction", "type = gcmc has no volume moves; expected the key left out"},
    };
    for (size_t i = 0; i < sizeof not_yet / sizeof not_yet[0]; i++)
        MC_TRY(refuse(c, not_yet[i][0], not_yet[i][1], not_yet[i][2], err));
    if (c->system.boundary == CFG_BOUNDARY_NONE)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [system] boundary = none: type = gcmc needs a periodic box", f,
                cfg_line(c, "system", "boundary"));
    if (c->system.start != CFG_START_LATTICE && c->system.start != CFG_START_MELT)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [system] start: type = gcmc starts on a lattice or at random (melt)", f,
                cfg_line(c, "system", "start"));
    /* the kinds that are inserted: molecule types, or a mixture's species; several take each their ln z */
    const char *kinds = c->molecules.types ? c->molecules.types : c->mixture.species ? c->mixture.species : "";
    int nkinds = 1;
    for (const char *q = kinds; *q; q++) nkinds += *q == ',';
    const int mixture = !c->molecules.types && c->mixture.species && c->mixture.species[0];
    const char *section = c->molecules.types ? "molecules" : "mixture";
    const cfg_list *kind_lnz = c->molecules.types ? &c->molecules.lnz : &c->mixture.lnz;
    if (!mixture)
        MC_TRY(refuse(c, "mixture", "lnz", c->molecules.types ? "the species of molecules are site types: give each "
                      "molecule type's as [molecules] lnz" : "expected [mixture] species as well", err));
    if (nkinds == 1) MC_TRY(refuse(c, "molecules", "lnz", "one molecule type: its ln z is [ensemble] lnz", err));
    if (nkinds > 1 && !kind_lnz->n)
        MC_FAIL(err, MC_EINVAL, "%s: missing required key 'lnz' in [%s] (type = gcmc: each %s ln z)", f, section,
                c->molecules.types ? "molecule type's" : "species'");
    if (nkinds > 1 && !c->ensemble.lnz.n) { /* the axis's one value: the kinds' ln z as given */
        if (!(c->ensemble.lnz.v = calloc(1, sizeof *c->ensemble.lnz.v))) MC_FAIL(err, MC_ENOMEM, "out of memory");
        c->ensemble.lnz.n = 1;
    }
    if (!c->ensemble.lnz.n) MC_FAIL(err, MC_EINVAL, "%s: missing required key 'lnz' in [ensemble] (type = gcmc)", f);
    if (!cfg_line(c, "ensemble", "n_max"))
        MC_FAIL(err, MC_EINVAL, "%s: missing required key 'n_max' in [ensemble] (type = gcmc)", f);
    if (!(c->system.box_length > 0))
        MC_FAIL(err, MC_EINVAL, "%s: missing required key 'box_length' in [system] (type = gcmc)", f);
    if (c->ensemble.n_max < 2)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] n_max = %ld: expected at least 2", f,
                cfg_line(c, "ensemble", "n_max"), c->ensemble.n_max);
    if (c->ensemble.n_min >= c->ensemble.n_max)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] n_min = %ld: expected below n_max = %ld", f,
                cfg_line(c, "ensemble", "n_min"), c->ensemble.n_min, c->ensemble.n_max);
    if (c->tmmc.windows > c->ensemble.n_max - c->ensemble.n_min)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [tmmc] windows = %ld: expected at most n_max - n_min = %ld (a window spans "
                "at least one transition)", f, cfg_line(c, "tmmc", "windows"), c->tmmc.windows,
                c->ensemble.n_max - c->ensemble.n_min);
    /* replica exchange trades whole configurations between state points: a chain's own bias and its
     * window are its state point's, and a configuration from another would not fit them; the ladder
     * runs along ln z (t/gcmc.sh checks its swaps against the ideal gas's exact rate) */
    if (c->ensemble.exchange_every && c->tmmc.bias)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] exchange_every = %ld with type = gcmc: expected [tmmc] bias = no (a "
                "biased chain's N walks its window by itself, and a traded configuration would not fit its bias)", f,
                cfg_line(c, "ensemble", "exchange_every"), c->ensemble.exchange_every);
    if (c->ensemble.exchange_every && c->ensemble.exchange_axis != CFG_EXCHANGE_LNZ)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] exchange_every = %ld with type = gcmc: expected exchange_axis = lnz "
                "(grand-canonical chains exchange along the activity; a temperature ladder of them is not validated yet)",
                f, cfg_line(c, "ensemble", "exchange_every"), c->ensemble.exchange_every);
    if (c->ensemble.exchange_every && c->tmmc.windows > 1)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [tmmc] windows = %ld with replica exchange: expected 1 (a traded configuration's "
                "N may lie outside a window)", f, cfg_line(c, "tmmc", "windows"), c->tmmc.windows);
    double *share = c->moves.move_fraction;
    if (!cfg_line(c, "moves", "transfer_fraction")) share[1] = 0.5;
    if (!cfg_line(c, "moves", "displacement_fraction")) share[0] = 1.0 - share[1];
    share[2] = 0.0;
    if (fabs(share[0] + share[1] - 1.0) > 1e-9 || !(share[1] > 0))
        MC_FAIL(err, MC_EINVAL, "%s:%d: [moves] displacement_fraction + transfer_fraction = %g + %g: expected them to "
                "add up to 1, transfer_fraction > 0, with type = gcmc", f, cfg_line(c, "moves", "transfer_fraction"),
                share[0], share[1]);
    /* each kind n_max slots, so that no kind's slots run out below n_max particles in all */
    if (mixture || c->molecules.types) {
        cfg_list *counts = c->molecules.types ? &c->molecules.counts : &c->mixture.counts;
        if (!(counts->v = malloc((size_t)nkinds * sizeof *counts->v))) MC_FAIL(err, MC_ENOMEM, "out of memory");
        counts->n = nkinds;
        for (int a = 0; a < nkinds; a++) counts->v[a] = (double)c->ensemble.n_max;
    }
    if (!c->molecules.types) c->system.n = nkinds * c->ensemble.n_max; /* molecules count their sites */
    if (!(c->ensemble.density.v = malloc(sizeof *c->ensemble.density.v))) MC_FAIL(err, MC_ENOMEM, "out of memory");
    c->ensemble.density.n = 1; /* molecules (atoms) per volume, as density is everywhere */
    c->ensemble.density.v[0] = (double)(nkinds * c->ensemble.n_max) / pow(c->system.box_length, 3);
    return MC_OK;
}

/* Two [run] keys that constrain each other or the GPU's batch shape. */
static int check_run(const cfg *c, mc_err *err)
{
    if (c->run.gpu_batch_trials % 32 != 0)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [run] gpu_batch_trials = %ld: expected 0 or a multiple of 32 up to 1024",
                c->filename, cfg_line(c, "run", "gpu_batch_trials"), c->run.gpu_batch_trials);
    if (c->run.production_sweeps % c->run.sample_every_sweeps != 0) {
        const int line = cfg_line(c, "run", "sample_every");
        if (line) /* the default is named as such: no line holds it */
            MC_FAIL(err, MC_EINVAL, "%s:%d: [run] sample_every = %ld: expected a divisor of production = %ld",
                    c->filename, line, c->run.sample_every_sweeps, c->run.production_sweeps);
        MC_FAIL(err, MC_EINVAL, "%s:%d: [run] production = %ld: expected a multiple of sample_every = %ld (its default): "
                "give sample_every", c->filename, cfg_line(c, "run", "production"), c->run.production_sweeps,
                c->run.sample_every_sweeps);
    }
    return MC_OK;
}

int cfg_check(cfg *c, mc_err *err)
{
    /* in this order: the first refusal is the message, and later checks rely on what earlier ones
     * settled (sigma from rmin or the preset, number densities from mass_density) */
    MC_TRY(check_rigid(c, err));
    MC_TRY(check_potential(c, err));
    MC_TRY(check_coulomb(c, err));
    MC_TRY(check_gcmc(c, err)); /* before check_ensemble: it sets the density that one reads */
    MC_TRY(check_ensemble(c, err));
    MC_TRY(check_exchange(c, err));
    MC_TRY(check_gibbs(c, err));
    return check_run(c, err);
}

int cfg_parse(cfg *c, const char *text, const char *filename, mc_err *err)
{
    MC_TRY(cfg_read(c, text, filename, err));
    if (cfg_check(c, err) == MC_OK) return MC_OK;
    cfg_fini(c);
    return err->code;
}
