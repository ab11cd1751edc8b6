/* mc_plan: derive and check the run's constants from the config. */
#include "mc_plan.h"
#include "mc_snapshot.h"

#include <math.h>
#include <stdlib.h>

#include "dsf.h"
#include "mc_corrections.h"
#include "mc_gibbs.h"
#include "mc_lattice.h"
#include "mc_observable.h"
#include "mc_size.h"
#include "mc_stats.h"

/* ens_pool gathers per-chain records as MPI_BYTE counts of chains x record (an int): the largest
 * record, a chain's Widom estimates, times the most chains must fit. */
/* The Gibbs ensemble's kinds are species or molecule types, in arrays sized by species */
_Static_assert((int)MC_MAX_MOLTYPES <= (int)MC_MAX_SPECIES, "Gibbs kinds: MC_MAX_MOLTYPES must fit MC_MAX_SPECIES");
_Static_assert((double)MC_MAX_CHAINS * MC_MAX_MOLTYPES * sizeof(mc_estimate) < (double)INT_MAX,
               "MC_MAX_CHAINS too large for the per-chain gathers' int counts");

/* The closest two atoms may start on a lattice, in core diameters (core_diameter): closer starts
 * put pairs far up the repulsive wall. One rule for the state points' boxes and Gibbs' two. */
static const double min_start_spacing = 0.9;

/* Where the potential crosses zero, the smallest species': sigma for LJ, r0 - ln 2 / alpha for
 * Morse (mc_species keeps that as the species' sigma). */
static double core_diameter(const mc_plan *p)
{
    double d = INFINITY;
    for (int a = 0; a < p->species.n; a++)
        if (p->species.sigma[a] > 0) d = fmin(d, p->species.sigma[a]); /* not a site of charge alone */
    return isfinite(d) ? d : 0.0;
}

/* The distance below which two sites of different molecules overlap at the start (mc_rigid_start),
 * for the least demanding species pair present; 0 when some pair never overlaps (no epsilon and no
 * hard core), since then no spacing is sure to fail. */
static double start_overlap_distance(const mc_plan *p)
{
    const mc_species *s = &p->species;
    double d = INFINITY;
    for (int a = 0; a < s->n; a++)
        for (int b = 0; b < s->n; b++) {
            if (!s->count[a] || !s->count[b]) continue;
            double hc = sqrt(p->mol.hard_core2[a][b]);
            if (s->pair_epsilon[a][b] == 0.0 && hc == 0.0) return 0.0;
            d = fmin(d, fmax(MC_START_OVERLAP_SIGMA * s->pair_sigma[a][b], hc));
        }
    return isfinite(d) ? d : 0.0;
}

/* A lattice start of molecules that must overlap, refused here so that --dry-run sees it too (the
 * start itself is built with the chains, and its own check names no config line). Two starting
 * centres lie at most `apart` from each other; sites within the molecules' radius R of them are
 * then at most apart + 2 R away, and when that is inside the overlap distance of every species
 * pair, no orientation can help. Only sure failures are refused; mc_rigid_start checks the rest. */
static int check_rigid_packing(const cfg *c, const mc_plan *p, double apart, const char *section,
                               const char *key, double value, mc_err *err)
{
    if (p->start != CFG_START_LATTICE || p->nmol < 2) return MC_OK;
    double reach = apart + 2.0 * mc_molecules_radius(&p->mol), need = start_overlap_distance(p);
    if (reach < need)
        MC_FAIL(err, MC_EINVAL,
                "%s:%d: [%s] %s = %g cannot hold the %d molecules: starting centres %.3g apart put sites of "
                "neighbours at most %.3g apart, inside the overlap distance %.3g (%g sigma or the hard cores) "
                "in every orientation (the molecules reach %.3g %s from their centres: if that is larger than "
                "meant, check the geometry's unit)", c->filename, cfg_line(c, section, key), section, key, value,
                p->nmol, apart, reach, need, MC_START_OVERLAP_SIGMA, mc_molecules_radius(&p->mol), p->units.length);
    return MC_OK;
}

/* The largest distance between two sites of one molecule type, and that type. */
static double molecule_diameter(const mc_plan *p, int *type)
{
    double d = 0.0;
    *type = 0;
    for (int t = 0; t < p->mol.ntypes; t++)
        for (int a = 0; a < p->mol.type[t].nsites; a++)
            for (int b = a + 1; b < p->mol.type[t].nsites; b++) {
                const double *u = p->mol.type[t].body[a], *v = p->mol.type[t].body[b];
                double r = sqrt((u[0] - v[0]) * (u[0] - v[0]) + (u[1] - v[1]) * (u[1] - v[1]) + (u[2] - v[2]) * (u[2] - v[2]));
                if (r > d) d = r, *type = t;
            }
    return d;
}

/* The box edge a periodic box of molecules needs: no site may meet an image of its own molecule
 * inside the interaction range (the real-space terms skip the molecule's own sites, not their
 * images, and a move's energy would count a molecule against itself), so the diameter d of every
 * molecule and the longest cutoff rc need L >= d + rc; without a cutoff, every pair is taken under
 * the minimum image, and L >= 2 d. And four times the largest site radius: the molecular virial
 * finds a site pair's image of the centres' separation from the sites' offsets, which must differ
 * by less than half the box (mc_rigid_pair_image); it binds only for long molecules with a short
 * cutoff. */
static double molecules_min_box(const mc_plan *p, double diameter)
{
    double rc = isfinite(p->cutoff) ? p->cutoff : 0.0;
    const int coulomb = p->species.coulomb != CFG_COULOMB_NONE; /* (set before the plan's charges are) */
    if (coulomb) rc = fmax(rc, p->species.coulomb_cutoff);
    const double image_floor = 4.0 * mc_molecules_radius(&p->mol) * (1.0 + 1e-12);
    return fmax(isfinite(p->cutoff) || coulomb ? diameter + rc : 2.0 * diameter, image_floor);
}

static int check_molecule_fits(const cfg *c, const mc_plan *p, double box, const char *where, mc_err *err)
{
    int t;
    const double d = molecule_diameter(p, &t), need = molecules_min_box(p, d);
    if (box < need)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [molecules] geometry: molecule %s is %.4g %s across; the box of edge %.4g (%s) "
                "needs at least %.4g: the molecule plus the %s, or no site would stay clear of its own molecule's "
                "periodic image, and four times the largest site's distance from its centre (%.4g), or the molecular "
                "virial could take a site pair's wrong image (lower the density, use more molecules, or a smaller cutoff)",
                c->filename, cfg_line(c, "molecules", "geometry"), p->mol.type[t].name, d, p->units.length, box, where,
                need, isfinite(p->cutoff) || p->species.coulomb != CFG_COULOMB_NONE ? "cutoff" : "molecule again (no cutoff: every pair under the "
                "minimum image)", 4.0 * mc_molecules_radius(&p->mol));
    return MC_OK;
}

/* The density key the config gave (mass_density becomes number densities in cfg_check), and a
 * number density in that key's terms, for messages that name what the user wrote. */
static const char *density_key(const cfg *c) { return cfg_line(c, "ensemble", "mass_density") ? "mass_density" : "density"; }
static double density_as_given(const cfg *c, const mc_plan *p, double density)
{
    return cfg_line(c, "ensemble", "mass_density") ? density * p->units.mass_density_factor : density;
}

/* A hint where a number density looks like a mass density in kg/m^3 (real units: no liquid has
 * 200 particles a nm^3). */
static const char *mass_density_hint(const cfg *c, double density)
{
    return c->system.units == CFG_UNITS_REAL && density > 200 && !cfg_line(c, "ensemble", "mass_density")
               ? " (if that is a mass density in kg/m^3, give it as [ensemble] mass_density)"
               : "";
}

/* gcmc: the box holds the cutoff and the RDF range under the minimum image, and n_max slots on the
 * starting lattice (as many particles packed closer are no fluid). */
static int check_gcmc_box(const cfg *c, const mc_plan *p, const mc_statepoint *sp, mc_err *err)
{
    const double len = sp->box_len, nn = mc_lattice_spacing(p->lattice, p->nmol, len);
    if (isfinite(p->cutoff) && p->cutoff > 0.5 * len)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [system] box_length = %g: expected at least twice [potential] cutoff = %g "
                "(minimum image)", c->filename, cfg_line(c, "system", "box_length"), len, p->cutoff);
    if (c->rdf.rmax > 0.5 * len)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [rdf] rmax = %g: expected at most half [system] box_length = %g",
                c->filename, cfg_line(c, "rdf", "rmax"), c->rdf.rmax, len);
    if (!p->rigid && nn < min_start_spacing * core_diameter(p)) /* molecules: check_rigid_packing */
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] n_max = %d: a box of edge %g holds the %d slots only %.3f core "
                "diameters apart on the %s lattice (density %.4g); expected at least %.1f: lower n_max",
                c->filename, cfg_line(c, "ensemble", "n_max"), p->tmmc_n_max, len, p->n, nn / core_diameter(p),
                p->lattice == CFG_LATTICE_FCC ? "fcc" : "sc", sp->density, min_start_spacing);
    return MC_OK;
}

static int check_statepoint(const cfg *c, const mc_plan *p, const mc_statepoint *sp, mc_err *err)
{
    if (p->ensemble->open) MC_TRY(check_gcmc_box(c, p, sp, err));
    if (p->ensemble->open && !p->rigid) return MC_OK; /* molecules: their own checks below too */
    double half_box = 0.5 * sp->box_len;
    if (isfinite(p->cutoff) && p->cutoff > half_box)
        MC_FAIL(err, MC_EINVAL,
                "%s:%d: [potential] cutoff = %g: expected at most half the box edge, %g at "
                "%s %g with n = %d (minimum image)%s",
                c->filename, cfg_line(c, "potential", "cutoff"), p->cutoff, half_box, density_key(c),
                density_as_given(c, p, sp->density), p->n, mass_density_hint(c, sp->density));
    if (c->rdf.rmax > half_box)
        MC_FAIL(err, MC_EINVAL,
                "%s:%d: [rdf] rmax = %g: expected at most half the box edge, %g at density %g",
                c->filename, cfg_line(c, "rdf", "rmax"), c->rdf.rmax, half_box, sp->density);
    if (c->moves.max_displacement > half_box)
        MC_FAIL(err, MC_EINVAL,
                "%s:%d: [moves] max_displacement = %g: expected at most half the box edge, %g at density %g",
                c->filename, cfg_line(c, "moves", "max_displacement"), c->moves.max_displacement, half_box,
                sp->density);
    if (p->rigid && c->molecules.types) {
        char where[64];
        snprintf(where, sizeof where, "at density %g", sp->density);
        MC_TRY(check_molecule_fits(c, p, sp->box_len, where, err));
    }
    if (p->rigid) return check_rigid_packing(c, p, mc_lattice_spacing(p->lattice, p->nmol, sp->box_len),
                                             "ensemble", density_key(c), density_as_given(c, p, sp->density), err);
    double nn = mc_lattice_spacing(p->lattice, p->n, sp->box_len);
    if (nn < min_start_spacing * core_diameter(p))
        MC_FAIL(err, MC_EINVAL,
                "%s:%d: [ensemble] %s = %g cannot hold n = %d particles on the %s lattice: "
                "neighbours would start %.3f core diameters apart (where u = 0), expected at least %.1f%s",
                c->filename, cfg_line(c, "ensemble", density_key(c)), density_key(c),
                density_as_given(c, p, sp->density), p->n, p->lattice == CFG_LATTICE_FCC ? "fcc" : "sc",
                nn / core_diameter(p), min_start_spacing, mass_density_hint(c, sp->density));
    return MC_OK;
}

static mc_units units_of(const cfg *c, const mc_plan *p)
{
    const mc_species *sp = &p->species;
    double mass = 0.0; /* mean particle (molecule) mass */
    for (int a = 0; a < sp->n; a++) mass += mc_species_fraction(sp, a) * sp->mass[a];
    if (p->rigid) {
        mass = 0.0;
        for (int t = 0; t < p->mol.ntypes; t++) mass += p->mol.type[t].count * p->mol.type[t].mass / p->nmol;
    }
    /* from the exact SI constants: 1 kJ/mol/nm^3 = 1e3 J / (N_A 1e-27 m^3) = 16.6054 bar, and
     * n particles/nm^3 of M g/mol weigh n M 1e-3 kg / N_A per 1e-27 m^3 */
    const double bar_per_kjmol_nm3 = 1e3 / (MC_AVOGADRO * 1e-27) / 1e5;
    const double kgm3_per_gmol_nm3 = MC_KGM3_PER_GMOL_NM3;
    if (c->system.units == CFG_UNITS_REAL)
        return (mc_units){1, MC_BOLTZMANN_KJ_MOL_K, bar_per_kjmol_nm3,
                          kgm3_per_gmol_nm3 * mass, "kJ/mol", "nm", "K", "bar", "nm^-3",
                          "kg/m^3", "nm^3", "real: nm, kJ/mol, K, bar, g/mol; k_B = R = 0.008314462618 kJ/mol/K"};
    return (mc_units){0, 1.0, 1.0, mass, "epsilon", "sigma", "epsilon/k_B",
                      "epsilon sigma^-3", "sigma^-3", "mass sigma^-3", "sigma^3",
                      "reduced: epsilon, sigma, k_B = 1"};
}

/* State points: temperature x density (nvt) or temperature x pressure (npt, from the one starting
 * density). */
static int fill_statepoints(const cfg *c, mc_plan *p, mc_err *err)
{
    const cfg_list *T = &c->ensemble.temperature, *rho = &c->ensemble.density;
    const cfg_list *P = &c->ensemble.pressure;
    int naxis = !p->periodic ? 1 : p->ensemble->imposed_pressure ? P->n : p->ensemble->open ? c->ensemble.lnz.n : rho->n;
    /* an open cluster: temperature only */
    size_t npoints;
    /* 1e5 temperatures x 1e5 densities wrapped an int and ended in "out of memory" */
    if (mc_mul_overflows((size_t)T->n, (size_t)naxis, &npoints) || npoints > MC_MAX_CHAINS) {
        const char *axis = p->ensemble->imposed_pressure ? "pressure" : "density", *key = T->n >= naxis ? "temperature" : axis;
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] %s: %d temperatures x %d %s values give %.0f state points; "
                "expected at most %d (each is a chain)", c->filename, cfg_line(c, "ensemble", key), key, T->n,
                naxis, axis, (double)T->n * naxis, MC_MAX_CHAINS);
    }
    p->nstatepoints = (int)npoints;
    p->ntemperatures = T->n;
    p->naxis = naxis;
    p->statepoint = calloc((size_t)p->nstatepoints, sizeof *p->statepoint);
    if (!p->statepoint) MC_FAIL(err, MC_ENOMEM, "out of memory for %d state points", p->nstatepoints);
    for (int it = 0; it < T->n; it++)
        for (int ia = 0; ia < naxis; ia++) {
            mc_statepoint *sp = &p->statepoint[it * naxis + ia];
            sp->temperature_given = T->v[it];
            sp->temperature = T->v[it] * p->units.kT_per_temperature;
            /* gcmc: the slots' density n_max / V, which the start's lattice and the checks use */
            sp->density = p->periodic ? rho->v[p->ensemble->imposed_pressure || p->ensemble->open ? 0 : ia] : 0.0;
            if (p->ensemble->open) sp->lnz = c->ensemble.lnz.v[ia];
            if (c->ensemble.density_is_mass) sp->density /= p->units.mass_density_factor;
            if (p->ensemble->imposed_pressure) {
                sp->pressure_given = P->v[ia];
                sp->pressure = P->v[ia] / p->units.pressure_factor;
            }
            if (!p->periodic) continue; /* no box, no density, no corrections */
            /* gibbs: each box starts with half the particles at the total density */
            sp->box_len = cbrt((p->ensemble->boxes > 1 ? 0.5 : 1.0) * p->nmol / sp->density);
            if (p->ensemble->boxes > 1) p->total_volume = p->nmol / sp->density;
            sp->corr = mc_corrections_at(p, p->n / (sp->box_len * sp->box_len * sp->box_len),
                                           sp->temperature);
            MC_TRY(check_statepoint(c, p, sp, err));
        }
    return MC_OK;
}

double mc_plan_smallest_box(const mc_plan *p)
{
    double b = INFINITY;
    for (int s = 0; s < p->nstatepoints; s++) b = fmin(b, p->statepoint[s].box_len);
    return b;
}

/* The rigid-body engine's constants: molecules (sites now count as the particles n), boundary,
 * wall and start. */
static int rigid_setup(const cfg *c, mc_plan *p, mc_err *err)
{
    MC_TRY(mc_molecules_build(&p->mol, &p->species, c, err));
    for (int t = 0; t < p->mol.ntypes; t++) /* two sites in one place: no molecule, and 1/r = inf */
        for (int a = 0; a < p->mol.type[t].nsites; a++)
            for (int b = a + 1; b < p->mol.type[t].nsites; b++) {
                const double *u = p->mol.type[t].body[a], *v = p->mol.type[t].body[b];
                if (fabs(u[0] - v[0]) + fabs(u[1] - v[1]) + fabs(u[2] - v[2]) < 1e-9)
                    MC_FAIL(err, MC_EINVAL, "%s:%d: [molecules] geometry: molecule %s has sites %d and %d at the same "
                            "position", c->filename, cfg_line(c, "molecules", "geometry"), p->mol.type[t].name, a + 1,
                            b + 1);
            }
    p->n = p->mol.nsites;
    p->nmol = p->mol.nmol;
    p->lattice_constant = c->system.lattice_constant;
    p->wall_radius = c->wall.radius;
    p->wall_strength = c->wall.strength;
    p->max_rotation0 = c->moves.max_rotation;
    if (!p->periodic) /* the wall's sphere, else the starting fcc cluster's volume */
        p->rdf_volume = p->wall_radius > 0 ? 4.0 / 3.0 * M_PI * pow(p->wall_radius, 3)
                                           : p->nmol * pow(p->lattice_constant, 3) / 4.0;
    /* the cluster's first two centres are the lattice points nearest the origin: the first within
     * a / 2 of it (the fcc lattice's deepest hole), the second no farther than the first's
     * neighbours, so the two lie at most a + a / sqrt 2 apart */
    if (!p->periodic)
        MC_TRY(check_rigid_packing(c, p, p->lattice_constant * (1.0 + M_SQRT1_2), "system", "lattice_constant",
                                   p->lattice_constant, err));
    return MC_OK;
}

/* coulomb = ewald: the wave vectors, kmax from the precision and the largest box a chain may reach
 * (biggest) unless given. */
static int ewald_kspace_setup(const cfg *c, mc_plan *p, double biggest, mc_err *err)
{
    /* exp(-k^2 / (4 alpha^2)) = precision at k = 2 pi kmax / L of the largest box */
    const double alpha = p->species.coulomb_alpha, precision = c->potential.ewald_precision;
    long kmax = c->potential.ewald_kmax;
    if (!kmax) kmax = (long)ceil(2.0 * alpha * sqrt(-log(precision)) * biggest / (2.0 * M_PI));
    if (kmax > 64)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] ewald_precision = %g with alpha %g in a box of %g needs kmax = %ld "
                "(at most 64): lower the precision or give ewald_alpha, or a smaller coulomb_cutoff", c->filename,
                cfg_line(c, "potential", "ewald_precision"), precision, alpha, biggest, kmax);
    long ksq_max = c->potential.ewald_ksq_max ? c->potential.ewald_ksq_max : kmax * kmax;
    if (ksq_max > 3 * kmax * kmax)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] ewald_ksq_max = %ld: expected at most 3 kmax^2 = %ld",
                c->filename, cfg_line(c, "potential", "ewald_ksq_max"), ksq_max, 3 * kmax * kmax);
    MC_TRY(ewald_kspace_init(&p->kspace, alpha, (int)kmax, (int)ksq_max, mc_species_coulomb_constant(c), err));
    p->ewald = 1;
    return MC_OK;
}

double mc_plan_coulomb_self_energy(const mc_plan *p, int n, const double *q)
{
    const mc_species *sp = &p->species;
    return p->ewald ? ewald_self_energy(&p->kspace, n, q)
                    : dsf_self_energy(sp->coulomb_alpha, sp->coulomb_cutoff, sp->coulomb_k_e, n, q);
}
double mc_plan_coulomb_intra_energy(const mc_plan *p, const mc_moltype *type, const double *q)
{
    const mc_species *sp = &p->species;
    return p->ewald ? ewald_intra_energy(&p->kspace, type->nsites, q, &type->body[0][0])
                    : dsf_intra_energy(sp->coulomb_alpha, sp->coulomb_cutoff, sp->coulomb_k_e, type->nsites, q,
                                       &type->body[0][0]);
}

/* coulomb = ewald or dsf: every chain's net charge 0 (with a varying N or two boxes: every
 * molecule's, so that every box is neutral at any count); the pair term's cutoff inside half of
 * every box; Ewald's wave vectors; each site's charge and the constant self and intramolecular
 * terms. */
static int coulomb_setup(const cfg *c, mc_plan *p, mc_err *err)
{
    const mc_species *sp = &p->species;
    const char *method = sp->coulomb == CFG_COULOMB_EWALD ? "the Ewald sum with a conducting boundary"
                                                          : "coulomb = dsf (as the Ewald sum it stands for)";
    double net = 0.0, biggest = 0.0;
    for (int a = 0; a < sp->n; a++) net += sp->count[a] * sp->charge[a];
    const char *section = c->mixture.species ? "mixture" : "potential";
    if (fabs(net) > 1e-6)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [%s] charge: the system's net charge is %.6g; %s needs it neutral", c->filename,
                cfg_line(c, section, "charge"), section, net, method);
    for (int t = 0; mc_plan_labelled(p) && t < p->mol.ntypes; t++) {
        const mc_moltype *type = &p->mol.type[t];
        double q = 0.0;
        for (int k = 0; k < type->nsites; k++) q += sp->charge[type->species[k]];
        if (fabs(q) > 1e-6)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [%s] charge: molecule type '%s' has net charge %.6g; %s moves whole "
                    "molecules, so each must be neutral", c->filename, cfg_line(c, section, "charge"), section,
                    type->name, q, p->ensemble->open ? "type = gcmc" : "the Gibbs ensemble");
    }
    for (int s = 0; s < p->nstatepoints; s++) {
        const double box = p->statepoint[s].box_len;
        /* a Gibbs box may grow to nearly the whole volume, twice the starting box's */
        biggest = fmax(biggest, p->ensemble->boxes > 1 ? cbrt(2.0) * box : box);
        if (sp->coulomb_cutoff > 0.5 * box) {
            const char *key = c->potential.coulomb_cutoff > 0 ? "coulomb_cutoff" : "cutoff";
            MC_FAIL(err, MC_EINVAL, "%s:%d: [potential] %s = %g: the real-space Coulomb term needs at most half the box "
                    "edge, %g at density %g (minimum image)", c->filename, cfg_line(c, "potential", key), key,
                    sp->coulomb_cutoff, 0.5 * box, p->statepoint[s].density);
        }
    }
    if (sp->coulomb == CFG_COULOMB_EWALD) MC_TRY(ewald_kspace_setup(c, p, biggest, err));
    if (!(p->site_charge = malloc((size_t)p->n * sizeof *p->site_charge)))
        MC_FAIL(err, MC_ENOMEM, "out of memory for the sites' charges");
    for (int i = 0; i < p->n; i++) p->site_charge[i] = sp->charge[p->mol.site_species[i]];
    p->coulomb_constant = mc_plan_coulomb_self_energy(p, p->n, p->site_charge);
    for (int t = 0; t < p->mol.ntypes; t++) {
        const mc_moltype *type = &p->mol.type[t];
        double q[MC_MAX_SITES];
        for (int k = 0; k < type->nsites; k++) q[k] = sp->charge[type->species[k]];
        const double intra = mc_plan_coulomb_intra_energy(p, type, q);
        p->coulomb_constant += type->count * intra;
        p->coulomb_type_constant[t] = mc_plan_coulomb_self_energy(p, type->nsites, q) + intra;
    }
    p->charged = 1;
    return MC_OK;
}

/* One chain's host state, in parts, so that a refusal can name the key behind the largest. All
 * products saturate at SIZE_MAX (mc_size.h): an estimate that overflows stays "too large". */
typedef struct chain_bytes {
    size_t particles; /* positions, molecular centres and quaternions, Lindemann sums, CPU cell lists */
    size_t samples;   /* the series and the Widom record, [nsamples] each */
    size_t rdf;       /* the RDF histogram */
} chain_bytes;

static chain_bytes chain_bytes_of(const mc_plan *p)
{
    chain_bytes b;
    const size_t d = sizeof(double);
    size_t n = (size_t)p->n, nmol = (size_t)p->nmol;
    b.particles = mc_mul_sat(3 * d, n); /* x, y, z */
    if (p->rigid) b.particles = mc_add_sat(b.particles, mc_mul_sat(7 * d, nmol)); /* centres, quaternions */
    if (p->rigid && mc_plan_lindemann(p)) /* Lindemann: r and r^2 summed per centre pair */
        b.particles = mc_add_sat(b.particles, mc_mul_sat(2 * d, mc_mul_sat(nmol, nmol > 0 ? nmol - 1 : 0) / 2));
    if (!p->rigid) /* the CPU backend's two cell lists: at most 8 n heads and 3 n links each */
        b.particles = mc_add_sat(b.particles, mc_mul_sat(2 * 11 * sizeof(int), n));
    size_t rows = 0;
    for (int o = 0; o < MC_NOBS; o++) rows += mc_observables[o].kind == MC_OBS_SERIES && mc_observable_applies(p, o);
    if (p->widom_insertions) rows += (size_t)p->widom_kinds;
    b.samples = mc_mul_sat(mc_mul_sat(rows, d), (size_t)p->nsamples);
    b.rdf = mc_mul_sat(mc_mul_sat((size_t)(p->species.npairs + (p->rigid ? 1 : 0)), (size_t)p->rdf_bins),
                       sizeof(uint64_t));
    return b;
}

size_t mc_plan_host_bytes_per_chain(const mc_plan *p)
{
    chain_bytes b = chain_bytes_of(p);
    return mc_add_sat(mc_add_sat(b.particles, b.samples), b.rdf);
}

/* The key that sets the particle (site) count: molecules, a mixture, or [system] n. */
static void particle_key(const cfg *c, const char **section, const char **key)
{
    *section = c->molecules.types ? "molecules" : c->mixture.species ? "mixture" : "system";
    *key = c->molecules.types || c->mixture.species ? "counts" : "n";
}

int mc_plan_check_host_memory(const mc_plan *p, const cfg *c, int chains_on_rank, size_t host_bytes,
                              mc_err *err)
{
    chain_bytes b = chain_bytes_of(p);
    size_t per_chain = mc_plan_host_bytes_per_chain(p), total = mc_mul_sat(per_chain, (size_t)chains_on_rank);
    if (total <= host_bytes) return MC_OK;
    const char *section = "rdf", *key = "bins", *what = "RDF bins";
    if (b.samples >= b.particles && b.samples >= b.rdf) {
        section = "run", what = "samples (production / sample_every)";
        key = cfg_line(c, "run", "sample_every") || !cfg_line(c, "run", "production") ? "sample_every" : "production";
    } else if (b.particles >= b.rdf) {
        particle_key(c, &section, &key);
        what = "particles";
    }
    /* GB as a double: a saturated estimate prints as about 1.8e10 GB, more than any machine */
    if (chains_on_rank == 1)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [%s] %s: one chain's state would take %.3g GB (mostly %s), more than the "
                "%.3g GB of host memory this machine has", c->filename, cfg_line(c, section, key), section, key,
                per_chain / 1e9, what, host_bytes / 1e9);
    MC_FAIL(err, MC_EINVAL, "%s:%d: [%s] %s: %d chains on one rank would take %.3g GB (%.3g GB each, mostly %s), "
            "more than the %.3g GB of host memory this machine has; change this key or run on more ranks",
            c->filename, cfg_line(c, section, key), section, key, chains_on_rank, total / 1e9, per_chain / 1e9,
            what, host_bytes / 1e9);
}

/* Gibbs: the kinds a transfer moves (species of atoms, or molecule types), their blocks of
 * molecules and sites, and the tail coefficients between kinds. */
static void gibbs_kinds(mc_plan *p)
{
    const mc_species *sp = &p->species;
    p->nkinds = p->rigid ? p->mol.ntypes : sp->n;
    p->kind_first[0] = 0;
    for (int k = 0; k < p->nkinds; k++) {
        int count = p->rigid ? p->mol.type[k].count : sp->first[k + 1] - sp->first[k];
        p->kind_first[k + 1] = p->kind_first[k] + count;
        for (int a = 0; a < sp->n; a++) p->kind_sites[k][a] = 0;
        if (!p->rigid) p->kind_sites[k][k] = 1;
        for (int s = 0; p->rigid && s < p->mol.type[k].nsites; s++) p->kind_sites[k][p->mol.type[k].species[s]]++;
    }
    /* the tail is bilinear in the site counts, N_a = sum_k N_k sites[k][a]: per pair of kinds the
     * sum over their sites' species pairs of pair_tail_energy(pp, 1, 1) (N_a = N_b = V = 1) */
    int tails = isfinite(p->cutoff) && p->tail_correction;
    for (int k = 0; k < p->nkinds; k++)
        for (int l = 0; l < p->nkinds; l++) {
            double coef = 0.0;
            for (int a = 0; tails && a < sp->n; a++)
                for (int b = 0; b < sp->n; b++)
                    coef += p->kind_sites[k][a] * p->kind_sites[l][b] * pair_tail_energy(&sp->pair[a][b], 1.0, 1.0);
            p->kind_tail[k][l] = coef;
        }
}

/* Gibbs: enough particles for two bulk phases (a few dozen leave one box all interface). */
static int check_gibbs_size(const cfg *c, const mc_plan *p, mc_err *err)
{
    const char *section, *key;
    particle_key(c, &section, &key);
    if (p->nmol < 64)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [%s] %s: %d %s; expected at least 64 with type = gibbs (too few to form "
                "two bulk phases; several hundred are usual)", c->filename, cfg_line(c, section, key), section, key,
                p->nmol, p->rigid ? "molecules" : "particles");
    return MC_OK;
}

/* Gibbs: starting boxes that the lattice and the minimum image allow. */
static int check_gibbs_start(const cfg *c, mc_plan *p, mc_err *err)
{
    const cfg_list *start = &c->ensemble.start_densities;
    if (!start->n) return MC_OK;
    p->box_start_density[0] = start->v[0], p->box_start_density[1] = start->v[1];
    double v[2];
    int64_t count0[MC_MAX_SPECIES], n0 = 0;
    mc_gibbs_start_split(p, count0, v);
    for (int k = 0; k < p->nkinds; k++) n0 += count0[k];
    for (int b = 0; b < 2; b++) {
        int nb = (int)(b ? p->nmol - n0 : n0);
        double nn = mc_lattice_spacing(p->lattice, nb, cbrt(v[b]));
        if (p->rigid) /* molecules: as check_statepoint, for this box */
            MC_TRY(check_rigid_packing(c, p, nn, "ensemble", "start_densities", start->v[b], err));
        else if (p->start == CFG_START_LATTICE && nn < min_start_spacing * core_diameter(p))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] start_densities: box %d cannot hold its %d particles on the "
                    "lattice: neighbours would start %.3f core diameters apart (where u = 0), expected at least %.1f",
                    c->filename, cfg_line(c, "ensemble", "start_densities"), b, nb, nn / core_diameter(p),
                    min_start_spacing);
        if (cbrt(v[b]) < p->min_box_len)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] start_densities: box %d would start with an edge of %g, below %g "
                    "(twice the cutoff or the RDF range, which the minimum image needs); raise [system] n or bring the "
                    "densities nearer the total", c->filename, cfg_line(c, "ensemble", "start_densities"), b, cbrt(v[b]),
                    p->min_box_len);
    }
    return MC_OK;
}

/* Every count that sizes memory, before anything is allocated for the chains: the pooled RDF is
 * reduced with an int count (ens_pool: state points x rows x bins), every rank holds the pooled
 * results, and no rank can run even one chain whose state exceeds the machine's memory. How many
 * chains the largest rank holds is known only after the layout (mc_plan_check_host_memory). */
static int check_sizes(const cfg *c, const mc_plan *p, size_t host_bytes, mc_err *err)
{
    size_t rows = (size_t)(p->species.npairs + (p->rigid ? 1 : 0));
    size_t cells = mc_mul_sat(mc_mul_sat((size_t)p->nstatepoints, rows), (size_t)p->rdf_bins);
    if (cells > (size_t)INT_MAX)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [rdf] bins = %d: %d state points x %zu pair rows x %d bins = %zu "
                "histogram cells; expected at most %d (the count of one MPI reduction)", c->filename,
                cfg_line(c, "rdf", "bins"), p->rdf_bins, p->nstatepoints, rows, p->rdf_bins, cells, INT_MAX);
    /* the results every rank holds: counts and g(r) per cell, and a few records per chain */
    size_t per_chain_results = (MC_NOBS + MC_MAX_MOLTYPES) * sizeof(mc_estimate) + (rows + 3) * sizeof(double);
    size_t results = mc_add_sat(mc_mul_sat(cells, 2 * sizeof(double)),
                                mc_mul_sat((size_t)p->nchains, per_chain_results));
    if (results > host_bytes)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [rdf] bins = %d: the pooled results (%zu histogram cells over %d state "
                "points) need %.3g GB on every rank, more than the %.3g GB this machine has", c->filename,
                cfg_line(c, "rdf", "bins"), p->rdf_bins, cells, p->nstatepoints, results / 1e9, host_bytes / 1e9);
    /* replica exchange: every walker's state at every sample (mc_results walker_state) */
    size_t paths = p->exchange_every ? mc_mul_sat(mc_mul_sat((size_t)p->nchains, (size_t)p->nsamples), sizeof(int)) : 0;
    if (paths > host_bytes - results)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [ensemble] exchange_every: the walkers' paths (/chains/state) of %d chains x "
                "%ld samples need %.3g GB on every rank besides %.3g GB of pooled results, more than the %.3g GB this "
                "machine has; sample less often ([run] sample_every)", c->filename,
                cfg_line(c, "ensemble", "exchange_every"), p->nchains, p->nsamples, paths / 1e9, results / 1e9,
                host_bytes / 1e9);
    return mc_plan_check_host_memory(p, c, 1, host_bytes - results - paths, err);
}

/* A trajectory that would fill a disk is far more often a typo (snapshot_every = 1 for 4000
 * chains) than a wish: refuse it at parse time unless the config says force. */
static int check_trajectory_size(const cfg *c, const mc_plan *p, mc_err *err)
{
    double bytes = mc_snapshot_frames(p) * mc_snapshot_frame_bytes(p), budget = c->output.snapshot_budget_gb * 1e9;
    if (bytes <= budget || c->output.force) return MC_OK;
    MC_FAIL(err, MC_EINVAL, "%s:%d: [output] snapshot_every = %ld gives %ld frames of %d chains, %.3g GB, over "
            "[output] snapshot_budget = %g GB: take frames less often, raise the budget, or set [output] force = yes",
            c->filename, cfg_line(c, "output", "snapshot_every"), p->snapshot_every, mc_snapshot_frames(p),
            p->nchains, bytes / 1e9, c->output.snapshot_budget_gb);
}

mc_plan *mc_plan_create(const cfg *c, mc_err *err)
{
    mc_plan *p = calloc(1, sizeof *p);
    if (!p) return mc_err_set(err, MC_ENOMEM, "out of memory for the plan"), NULL;
    p->cutoff = c->potential.cutoff;
    if (mc_species_build(&p->species, c, p->cutoff, err) != MC_OK) return mc_plan_destroy(p), NULL;
    p->n = p->species.first[p->species.n];
    p->nmol = p->n;
    p->periodic = c->system.boundary == CFG_BOUNDARY_PERIODIC;
    p->start = c->system.start;
    p->start_file = c->system.start_file;
    p->start_chain = (int)c->system.start_chain;
    if ((p->rigid = cfg_rigid(c)) && rigid_setup(c, p, err) != MC_OK) return mc_plan_destroy(p), NULL;
    p->lattice = c->system.lattice;
    p->replicas = (int)c->ensemble.replicas;
    p->seed = c->run.seed;
    p->precision = c->run.precision;
    p->gpu_batch_trials = (int)c->run.gpu_batch_trials;
    p->gpu_cell_lists = c->run.gpu_cell_lists;
    p->tail_correction = c->potential.tail_correction;
    p->cutoff_scheme = c->potential.cutoff_scheme;
    p->ensemble = &mc_ensembles[c->ensemble.type];
    if (p->ensemble->open) { /* gcmc: each replica is a set of windows (mc_gcmc.h) */
        p->tmmc_n_min = (int)c->ensemble.n_min;
        p->tmmc_n_max = (int)c->ensemble.n_max;
        p->tmmc_windows = (int)c->tmmc.windows;
        p->tmmc_bias = c->tmmc.bias;
        if ((double)p->replicas * p->tmmc_windows > MC_MAX_CHAINS) {
            mc_err_set(err, MC_EINVAL, "%s:%d: [tmmc] windows = %d times [ensemble] replicas = %d: too many chains",
                       c->filename, cfg_line(c, "tmmc", "windows"), p->tmmc_windows, p->replicas);
            return mc_plan_destroy(p), NULL;
        }
        p->replicas *= p->tmmc_windows;
        /* the kinds inserted: molecule types, or species of atoms (gibbs_kinds) */
        const int nk = p->rigid ? p->mol.ntypes : p->species.n;
        const cfg_list *lnz = p->rigid ? &c->molecules.lnz : &c->mixture.lnz;
        const char *section = p->rigid ? "molecules" : "mixture", *what = p->rigid ? "molecule types" : "species";
        if (nk > 1 && lnz->n != nk) {
            mc_err_set(err, MC_EINVAL, "%s:%d: [%s] lnz: %d values for %d %s; expected one for each", c->filename,
                       cfg_line(c, section, "lnz"), section, lnz->n, nk, what);
            return mc_plan_destroy(p), NULL;
        }
        for (int a = 0; nk > 1 && a < nk; a++) p->kind_lnz[a] = lnz->v[a];
    }
    for (int k = 0; k < 3; k++) p->move_fraction[k] = c->moves.move_fraction[k];
    p->max_volume_step0 = c->moves.max_volume_step;
    p->units = units_of(c, p);
    p->sigma = p->epsilon = 0.0; /* the largest of the species: the scale of lengths and energies */
    for (int a = 0; a < p->species.n; a++) {
        p->sigma = fmax(p->sigma, p->species.sigma[a]);
        p->epsilon = fmax(p->epsilon, p->species.epsilon[a]);
    }
    p->pair = p->species.pair[0][0];
    p->equilibration_sweeps = c->run.equilibration_sweeps;
    p->production_sweeps = c->run.production_sweeps;
    p->sample_every_sweeps = c->run.sample_every_sweeps;
    p->adapt_every_sweeps = c->moves.adapt_every_sweeps;
    p->nsamples = p->production_sweeps / p->sample_every_sweeps;
    p->target_acceptance = c->moves.target_acceptance;
    p->max_displacement0 = c->moves.max_displacement;
    p->widom_insertions = (int)c->ensemble.widom;
    p->exchange_every = c->ensemble.exchange_every;
    p->exchange_axis = c->ensemble.exchange_axis;
    /* gibbs: the test particles (molecules) of each kind go into the liquid and into the vapour box */
    p->widom_kinds = (p->ensemble->boxes > 1 ? 2 : 1) * (p->rigid ? p->mol.ntypes : p->species.n);
    /* a cutoff inside the core truncates the repulsion itself: no fluid, and tail terms that
     * overflow (cutoff = 1e-300 gave NaN energies) */
    if (isfinite(p->cutoff) && p->cutoff < core_diameter(p)) {
        mc_err_set(err, MC_EINVAL, "%s:%d: [potential] cutoff = %g: expected at least the core diameter %g (where "
                   "the pair potential crosses zero)", c->filename, cfg_line(c, "potential", "cutoff"), p->cutoff,
                   core_diameter(p));
        return mc_plan_destroy(p), NULL;
    }
    if (p->ensemble->boxes > 1 && check_gibbs_size(c, p, err) != MC_OK) return mc_plan_destroy(p), NULL;
    if (fill_statepoints(c, p, err) != MC_OK) return mc_plan_destroy(p), NULL;
    if (p->ensemble->boxes > 1 || p->ensemble->open) gibbs_kinds(p); /* gcmc: the tail by the box's counts */
    for (int a = 0; p->ensemble->imposed_pressure && isfinite(p->cutoff) && p->tail_correction && a < p->species.n; a++)
        for (int b = 0; b < p->species.n; b++) /* pair_tail_energy(pp, 1, 1): N_a = N_b = V = 1 */
            p->npt_tail += (double)p->species.count[a] * p->species.count[b] * pair_tail_energy(&p->species.pair[a][b], 1.0, 1.0);
    size_t nchains;
    if (mc_mul_overflows((size_t)p->nstatepoints, (size_t)p->replicas, &nchains) || nchains > MC_MAX_CHAINS) {
        mc_err_set(err, MC_EINVAL, "%s:%d: [ensemble] replicas = %d gives %.0f chains; at most %d",
                   c->filename, cfg_line(c, "ensemble", "replicas"), p->replicas,
                   (double)p->nstatepoints * p->replicas, MC_MAX_CHAINS);
        return mc_plan_destroy(p), NULL;
    }
    p->nchains = (int)nchains;
    p->rdf_bins = (int)c->rdf.bins;
    /* an open cluster's default RDF range is its cutoff, so without one the range must be given */
    if (!p->periodic && !(c->rdf.rmax > 0) && !isfinite(p->cutoff)) {
        mc_err_set(err, MC_EINVAL, "%s: missing required key 'rmax' in [rdf] (boundary = none without a "
                   "cutoff has no default range)", c->filename);
        return mc_plan_destroy(p), NULL;
    }
    /* gibbs: the liquid box shrinks well below its start, so the default range is the cutoff;
     * npt: the box breathes, so the default range leaves it room to shrink by a fifth */
    p->rdf_rmax = c->rdf.rmax > 0     ? c->rdf.rmax
                  : !p->periodic      ? p->cutoff
                  : p->ensemble->boxes > 1 && isfinite(p->cutoff) ? p->cutoff
                                      : (p->ensemble->imposed_pressure ? 0.4 : 0.5) * mc_plan_smallest_box(p);
    p->rdf_dr = p->rdf_rmax / p->rdf_bins;
    p->min_box_len = 2.0 * fmax(p->rdf_rmax, isfinite(p->cutoff) ? p->cutoff : 0.0);
    if (c->potential.coulomb != CFG_COULOMB_NONE) {
        if (coulomb_setup(c, p, err) != MC_OK) return mc_plan_destroy(p), NULL;
        p->min_box_len = fmax(p->min_box_len, 2.0 * p->species.coulomb_cutoff);
    }
    if (p->rigid && p->periodic && c->molecules.types) { /* volume moves keep every molecule clear of its image */
        int t;
        p->min_box_len = fmax(p->min_box_len, molecules_min_box(p, molecule_diameter(p, &t)));
    }
    if (p->ensemble->boxes > 1 && check_gibbs_start(c, p, err) != MC_OK) return mc_plan_destroy(p), NULL;
    if (check_sizes(c, p, mc_host_memory_bytes(), err) != MC_OK) return mc_plan_destroy(p), NULL;
    p->snapshot_every = c->output.snapshot_every;
    if (check_trajectory_size(c, p, err) != MC_OK) return mc_plan_destroy(p), NULL;
    return p;
}

void mc_plan_destroy(mc_plan *p)
{
    if (!p) return;
    mc_molecules_fini(&p->mol);
    free(p->start_centres);
    free(p->start_orientations);
    free(p->frames.points);
    free(p->frames.quats);
    free(p->frames.box);
    free(p->statepoint);
    free(p->site_charge);
    ewald_kspace_fini(&p->kspace);
    free(p);
}

int mc_check_drift(double running, double full, int n, double epsilon, int chain, long sweep,
                   mc_err *err)
{
    double scale = fmax(fabs(full), n * epsilon);
    double diff = fabs(running - full), rel = scale > 0 ? diff / scale : diff;
    if (!(diff <= MC_DRIFT_TOLERANCE * scale)) /* also catches NaN; exact agreement passes at scale 0 */
        MC_FAIL(err, MC_ECHECK,
                "chain %d, sweep %ld: running energy %.15g differs from the full recomputation "
                "%.15g by %.3g relative (limit %g)",
                chain, sweep, running, full, rel, MC_DRIFT_TOLERANCE);
    return MC_OK;
}
