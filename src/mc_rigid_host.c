/* mc_rigid_host: starting configurations and full recomputation for the rigid-body engine. */
#include "mc_rigid_host.h"
#include "mc_start.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_site_energy.h"
#include "mc_lattice.h"
#include "mc_move.h"
#include "mc_rigid.h"
#include "mc_rng.h"

enum { ORIENTATION_TRIES = 200, MELT_TRIES = 10000 };
/* Start checks: site pairs of different molecules closer than MC_START_OVERLAP_SIGMA sigma_ab
 * (mc_molecule.h) or than their hard cores are an overlap, an error; the orientation search stops
 * at the first one that keeps every pair beyond COMFORT_SIGMA sigma_ab (LJ below 110 eps), else it
 * keeps the best it saw. Equilibration relaxes what remains. */
#define OVERLAP_SIGMA MC_START_OVERLAP_SIGMA
#define COMFORT_SIGMA 0.75

/* Setup-stream counters apart from the species shuffle (which uses keys below 2^40): use 1 for
 * orientations, 2 for melt points (3 for a Gibbs chain's box 1). */
static uint64_t setup_key(int use, long attempt, int nmol, int m)
{
    return ((uint64_t)use << 40) + (uint64_t)attempt * (uint64_t)nmol + (uint64_t)m;
}

static mc_quat random_orientation(uint64_t seed, uint32_t chain, uint64_t key)
{
    mc_rng4 r = mc_rng_block(seed, chain, MC_RNG_SETUP, key);
    return mc_quat_uniform(mc_rng_uniform(r.v[0]), mc_rng_uniform(r.v[1]), mc_rng_uniform(r.v[2]));
}

void mc_rigid_set(const mc_plan *p, mc_chain *c, int m, const double centre[3], mc_quat q)
{
    double box = mc_rigid_box_len(p, c, m);
    c->cx[m] = centre[0], c->cy[m] = centre[1], c->cz[m] = centre[2];
    c->q[4 * m] = q.w, c->q[4 * m + 1] = q.x, c->q[4 * m + 2] = q.y, c->q[4 * m + 3] = q.z;
    for (int s = p->mol.first[m]; s < p->mol.first[m + 1]; s++) {
        double out[3];
        mc_rigid_site(centre, q, &p->mol.site_body[3 * s], box, out);
        c->x[s] = out[0], c->y[s] = out[1], c->z[s] = out[2];
    }
}

/* The closest site pair of molecule m with molecules 0 .. m - 1 (of its box, in the Gibbs ensemble),
 * as r / sigma_ab (0 inside a hard core); *with names the other molecule. The search stops at the
 * first pair at or below `floor` (what the caller already has): the value returned is then no
 * better than floor, which is all the caller needs to know of it. A molecule whose centre is so
 * far from m's that no pair of their sites can come closer than the closest found so far is passed
 * over (gap: centre_gaps): its pairs could not change what is returned, and at a liquid's density
 * most molecules are that far. */
static double overlap_ratio(const mc_plan *p, const mc_chain *c, int m, double floor, const double *gap, int *with)
{
    const mc_molecules *mol = &p->mol;
    double worst = INFINITY, box = mc_rigid_box_len(p, c, m);
    for (int s = mol->first[m]; s < mol->first[m + 1]; s++)
        for (int other = 0; other < m; other++) {
            if (gap[other] >= worst) continue;
            for (int j = mol->first[other]; j < mol->first[other + 1]; j++) {
                int a = mol->site_species[s], b = mol->site_species[j];
                if (p->species.pair_epsilon[a][b] == 0.0 && mol->hard_core2[a][b] == 0.0) continue; /* ideal pair */
                if (c->in_box && c->in_box[j] != c->in_box[s]) continue;
                double dx = mc_rigid_separation(c->x[s] - c->x[j], box);
                double dy = mc_rigid_separation(c->y[s] - c->y[j], box);
                double dz = mc_rigid_separation(c->z[s] - c->z[j], box);
                double r2 = dx * dx + dy * dy + dz * dz;
                double ratio = r2 < mol->hard_core2[a][b] ? 0.0 : sqrt(r2) / p->species.pair_sigma[a][b];
                if (ratio < worst) worst = ratio, *with = other;
                if (worst <= floor) return worst;
            }
        }
    return worst;
}

/* The fcc cube of lattice_constant about the origin: its nmol sites nearest the origin. */
static int cluster_centres(const mc_plan *p, mc_chain *c, mc_err *err)
{
    int m = 1;
    while (4L * m * m * m < c->nmol) m++;
    int total = 4 * m * m * m;
    double *pos = malloc(4 * (size_t)total * sizeof *pos), half = 0.5 * m * p->lattice_constant;
    if (!pos) MC_FAIL(err, MC_ENOMEM, "out of memory for the starting cluster");
    double *x = pos, *y = x + total, *z = y + total, *r2 = z + total;
    mc_lattice_fill(CFG_LATTICE_FCC, total, m * p->lattice_constant, x, y, z);
    for (int i = 0; i < total; i++) {
        x[i] -= half, y[i] -= half, z[i] -= half;
        r2[i] = x[i] * x[i] + y[i] * y[i] + z[i] * z[i];
    }
    for (int k = 0; k < c->nmol; k++) { /* selection, nearest first (ties: the first in the current order) */
        int best = k;
        for (int i = k + 1; i < total; i++)
            if (r2[i] < r2[best]) best = i;
        double t;
        t = x[k], x[k] = x[best], x[best] = t;
        t = y[k], y[k] = y[best], y[best] = t;
        t = z[k], z[k] = z[best], z[best] = t;
        t = r2[k], r2[k] = r2[best], r2[best] = t;
        c->cx[k] = x[k], c->cy[k] = y[k], c->cz[k] = z[k];
    }
    free(pos);
    return MC_OK;
}

/* Points uniformly at random, no two closer than `spacings` of the lattice's nearest-neighbour
 * distance: in the box, or in a sphere 1.5 times the volume of the cluster lattice (open clusters).
 * Random sequential placement jams when the exclusion spheres fill about 38% of the volume, which
 * (in lattice spacings, fcc) is at 0.81 spacings whatever the density; 0.7 fills 25%. */
int mc_melt_points(const mc_plan *p, int chain, int box, int n, double box_len, double spacings, double *x, double *y,
                   double *z, mc_err *err)
{
    double nn = p->periodic ? mc_lattice_spacing(p->lattice, n, box_len) : p->lattice_constant / sqrt(2.0);
    double radius = cbrt(3.0 / (4.0 * M_PI) * 1.5 * n * pow(p->lattice_constant, 3) / 4.0);
    double min2 = spacings * spacings * nn * nn;
    for (int m = 0; m < n; m++) {
        int placed = 0;
        for (long t = 0; t < MELT_TRIES && !placed; t++) {
            mc_rng4 r = mc_rng_block(p->seed, (uint32_t)chain, MC_RNG_SETUP, setup_key(2 + box, t, n, m));
            double u[3];
            for (int d = 0; d < 3; d++) u[d] = mc_rng_uniform(r.v[d]);
            if (p->periodic) {
                x[m] = u[0] * box_len, y[m] = u[1] * box_len, z[m] = u[2] * box_len;
            } else { /* uniform in the ball: radius u^(1/3), direction uniform */
                double rr = radius * cbrt(u[0]), ct = 2.0 * u[1] - 1.0, st = sqrt(1.0 - ct * ct);
                double phi = 2.0 * M_PI * u[2];
                x[m] = rr * st * cos(phi), y[m] = rr * st * sin(phi), z[m] = rr * ct;
            }
            placed = 1;
            for (int j = 0; j < m && placed; j++) {
                double dx = mc_rigid_separation(x[m] - x[j], box_len);
                double dy = mc_rigid_separation(y[m] - y[j], box_len);
                double dz = mc_rigid_separation(z[m] - z[j], box_len);
                placed = dx * dx + dy * dy + dz * dz >= min2;
            }
        }
        if (!placed)
            MC_FAIL(err, MC_EINVAL, "chain %d: start = melt found no place for point %d of %d after %d tries (kept "
                    "%.3g apart, %g lattice spacings: random placement jams near that); start on the lattice",
                    chain, m, n, MELT_TRIES, sqrt(min2), spacings);
    }
    return MC_OK;
}

/* Whether the start gives the molecules' orientations (start = file or h5): they are kept as given. */
static int start_given(const mc_plan *p) { return p->start == CFG_START_FILE || p->start == CFG_START_H5; }

/* start = file: the plan's starting molecules (mc_start_load checked them against the boxes);
 * start = h5: the chain's frame of the earlier output (h5start_load), its centres scaled to this
 * chain's box. */
static int copy_start(const mc_plan *p, mc_chain *c, mc_err *err)
{
    const double *centres = p->start_centres, *quats = p->start_orientations;
    double *scaled = NULL, scale;
    if (p->start == CFG_START_H5) {
        if (!(scaled = malloc(3 * (size_t)c->nmol * sizeof *scaled)))
            MC_FAIL(err, MC_ENOMEM, "out of memory for chain %d's start", c->id);
        int rc = mc_start_frame_points(p, c->id, c->box_len, scaled, &quats, &scale, err);
        if (rc != MC_OK) return free(scaled), rc;
        centres = scaled;
    }
    if (!centres || !quats) {
        free(scaled);
        MC_FAIL(err, MC_EINVAL, "internal: start = %s, but the molecules of %s were not loaded",
                p->start == CFG_START_H5 ? "h5" : "file", p->start_file);
    }
    for (int m = 0; m < c->nmol; m++) {
        c->cx[m] = centres[3 * m], c->cy[m] = centres[3 * m + 1], c->cz[m] = centres[3 * m + 2];
        memcpy(&c->q[4 * m], &quats[4 * m], 4 * sizeof *c->q);
    }
    free(scaled);
    return MC_OK;
}

/* For each molecule before m, a ratio that none of its site pairs with m's can be below, whatever
 * the orientations: the distance of the centres less twice the largest site radius
 * (mc_molecules_radius), over the largest sigma; 0 where that could fall inside a hard core. */
static void centre_gaps(const mc_plan *p, const mc_chain *c, int m, double *gap)
{
    double box = mc_rigid_box_len(p, c, m), sigma_max = 0.0, core2_max = 0.0;
    for (int a = 0; a < p->species.n; a++)
        for (int b = 0; b < p->species.n; b++)
            sigma_max = fmax(sigma_max, p->species.pair_sigma[a][b]), core2_max = fmax(core2_max, p->mol.hard_core2[a][b]);
    /* the slack covers the rounding of the sites' positions */
    const double reach = 2.0 * mc_molecules_radius(&p->mol) * (1.0 + 1e-9) + 1e-9;
    for (int other = 0; other < m; other++) {
        double dx = mc_rigid_separation(c->cx[m] - c->cx[other], box);
        double dy = mc_rigid_separation(c->cy[m] - c->cy[other], box);
        double dz = mc_rigid_separation(c->cz[m] - c->cz[other], box);
        double d = sqrt(dx * dx + dy * dy + dz * dz) - reach;
        gap[other] = d > 0.0 && d * d >= core2_max && sigma_max > 0.0 ? d / sigma_max * (1.0 - 1e-12) : 0.0;
    }
}

/* Place molecule m at its centre in the best orientation found (see COMFORT_SIGMA); -1 when it
 * overlaps none placed before, else the molecule it overlaps. gap: scratch of m doubles. */
static int place_without_overlap(const mc_plan *p, mc_chain *c, int m, double *gap)
{
    double centre[3] = {c->cx[m], c->cy[m], c->cz[m]}, best = -1.0;
    int with = -1, best_with = -1, fixed = start_given(p) || p->mol.first[m + 1] - p->mol.first[m] == 1;
    mc_quat best_q = mc_chain_quat(c, m);
    centre_gaps(p, c, m, gap);
    for (long t = 0; t < (fixed ? 1 : ORIENTATION_TRIES) && best < COMFORT_SIGMA; t++) {
        mc_quat q = fixed ? mc_chain_quat(c, m) : random_orientation(p->seed, (uint32_t)c->id, setup_key(1, t, c->nmol, m));
        mc_rigid_set(p, c, m, centre, q);
        double ratio = overlap_ratio(p, c, m, best, gap, &with);
        if (ratio > best) best = ratio, best_q = q, best_with = with;
    }
    mc_rigid_set(p, c, m, centre, best_q);
    return best >= OVERLAP_SIGMA ? -1 : best_with;
}

void mc_rigid_reset_orientations(const mc_plan *p, mc_chain *c)
{
    c->max_rotation = p->max_rotation0;
    for (int m = 0; m < c->nmol; m++) memcpy(&c->q[4 * m], &(mc_quat){1, 0, 0, 0}, sizeof(mc_quat));
}

int mc_rigid_start(const mc_plan *p, mc_chain *c, mc_err *err)
{
    mc_rigid_reset_orientations(p, c);
    if (start_given(p)) MC_TRY(copy_start(p, c, err));
    else if (p->start == CFG_START_MELT) MC_TRY(mc_melt_points(p, c->id, 0, c->nmol, c->box_len, 0.8, c->cx, c->cy, c->cz, err));
    else if (p->periodic) mc_lattice_fill(p->lattice, c->nmol, c->box_len, c->cx, c->cy, c->cz);
    else MC_TRY(cluster_centres(p, c, err));
    if (!start_given(p) && p->mol.ntypes > 1)
        mc_chain_shuffle_points(c, p->seed, c->nmol, c->cx, c->cy, c->cz);
    return mc_rigid_orient(p, c, err);
}

int mc_rigid_orient(const mc_plan *p, mc_chain *c, mc_err *err)
{
    double *gap = malloc(((size_t)c->nmol + 1) * sizeof *gap);
    if (!gap) MC_FAIL(err, MC_ENOMEM, "out of memory for chain %d's start", c->id);
    int rc = MC_OK;
    for (int m = 0; m < c->nmol && rc == MC_OK; m++) {
        int with = place_without_overlap(p, c, m, gap);
        if (with >= 0)
            rc = mc_err_set(err, MC_EINVAL, "chain %d: molecule %d (%s) overlaps molecule %d at the start (sites "
                            "closer than %.2f sigma or their hard cores%s); lower the density or give another start",
                            c->id, m, p->mol.type[p->mol.mol_type[m]].name, with, OVERLAP_SIGMA,
                            start_given(p) ? "" : ", in every orientation tried");
    }
    free(gap);
    return rc;
}

double mc_rigid_move_energy(const mc_plan *p, const mc_chain *c, int m, const double *old_pos,
                            const double *new_pos, const double old_centre[3], const double new_centre[3])
{
    const mc_molecules *mol = &p->mol;
    int f0 = mol->first[m], f1 = mol->first[m + 1];
    cpu_partners others = {.x = c->x, .y = c->y, .z = c->z, .box = c->box_len, .species = mol->site_species,
                           .skip0 = f0, .skip1 = f1};
    double u_old = 0.0, u_new = 0.0;
    for (int s = f0; s < f1; s++) {
        int a = mol->site_species[s];
        const double *o = &old_pos[3 * (s - f0)], *nw = &new_pos[3 * (s - f0)];
        others.pair_row = p->species.pair[a], others.hard_core_row = mol->hard_core2[a];
        u_old = cpu_site_energy_serial(&others, 0, c->n, o[0], o[1], o[2], u_old);
        u_new = cpu_site_energy_serial(&others, 0, c->n, nw[0], nw[1], nw[2], u_new);
    }
    return mc_rigid_move_total(p, u_old, u_new, old_centre, new_centre);
}

double mc_rigid_move_total(const mc_plan *p, double u_old, double u_new, const double old_centre[3],
                           const double new_centre[3])
{
    return (u_new + mc_wall_energy(new_centre[0], new_centre[1], new_centre[2], p->wall_radius, p->wall_strength)) -
           (u_old + mc_wall_energy(old_centre[0], old_centre[1], old_centre[2], p->wall_radius, p->wall_strength));
}

static void add_centre_pairs(const mc_plan *p, mc_chain *c)
{
    int row = p->species.npairs;
    size_t k = 0;
    for (int i = 0; i < c->nmol - 1; i++)
        for (int j = i + 1; j < c->nmol; j++, k++) {
            double dx = mc_rigid_separation(c->cx[i] - c->cx[j], c->box_len);
            double dy = mc_rigid_separation(c->cy[i] - c->cy[j], c->box_len);
            double dz = mc_rigid_separation(c->cz[i] - c->cz[j], c->box_len);
            double r = sqrt(dx * dx + dy * dy + dz * dz);
            if (c->lindemann_r) c->lindemann_r[k] += r, c->lindemann_r2[k] += r * r;
            int bin = (int)(r / p->rdf_dr);
            if (r < p->rdf_rmax && bin < p->rdf_bins) c->rdf_counts[(size_t)row * p->rdf_bins + bin]++;
        }
}

/* Every intermolecular site pair once (site i with the sites of later molecules): with
 * want_sums their energy (the wall added) and molecular virial, with add_rdf their RDF counts. */
static mc_rigid_sums site_pairs(const mc_plan *p, mc_chain *c, int want_sums, int add_rdf)
{
    const mc_molecules *mol = &p->mol;
    const mc_species *sp = &p->species;
    mc_rigid_sums s = {0.0, 0.0};
    double rmax2 = p->rdf_rmax * p->rdf_rmax;
    for (int i = 0; i < c->n - 1; i++) {
        int a = mol->site_species[i], mi = mol->site_mol[i];
        for (int j = mol->first[mi + 1]; j < c->n; j++) { /* sites of later molecules */
            int b = mol->site_species[j], mj = mol->site_mol[j];
            double dx = mc_rigid_separation(c->x[i] - c->x[j], c->box_len);
            double dy = mc_rigid_separation(c->y[i] - c->y[j], c->box_len);
            double dz = mc_rigid_separation(c->z[i] - c->z[j], c->box_len);
            double r2 = dx * dx + dy * dy + dz * dz;
            if (want_sums) {
                s.energy += mc_site_pair_energy(r2, &sp->pair[a][b], mol->hard_core2[a][b]);
                if (c->box_len > 0 && r2 > 0) {
                    double Rx = mc_rigid_separation(c->cx[mi] - c->cx[mj], c->box_len);
                    double Ry = mc_rigid_separation(c->cy[mi] - c->cy[mj], c->box_len);
                    double Rz = mc_rigid_separation(c->cz[mi] - c->cz[mj], c->box_len);
                    s.virial += pair_virial(r2, &sp->pair[a][b]) * (dx * Rx + dy * Ry + dz * Rz) / r2;
                }
            }
            if (add_rdf && r2 < rmax2) {
                int bin = (int)(sqrt(r2) / p->rdf_dr);
                if (bin < p->rdf_bins)
                    c->rdf_counts[(size_t)mc_species_pair_index(sp, a, b) * p->rdf_bins + bin]++;
            }
        }
    }
    for (int m = 0; want_sums && m < c->nmol; m++)
        s.energy += mc_wall_energy(c->cx[m], c->cy[m], c->cz[m], p->wall_radius, p->wall_strength);
    return s;
}

mc_rigid_sums mc_rigid_measure(const mc_plan *p, mc_chain *c, int add_sample)
{
    mc_rigid_sums s = site_pairs(p, c, 1, add_sample);
    if (add_sample) {
        add_centre_pairs(p, c);
        mc_chain_add_rdf_sample(c, p);
    }
    return s;
}

void mc_rigid_measure_chains(const mc_plan *p, mc_chain **chains, int nchains, int add_sample,
                             mc_measurement *out)
{
    for (int k = 0; k < nchains; k++) {
        mc_rigid_sums s = mc_rigid_measure(p, chains[k], add_sample);
        out[k].energy_pair = s.energy;
        out[k].virial_pair = s.virial;
        out[k].energy_pair_running = chains[k]->energy_pair;
        chains[k]->energy_pair = s.energy;
    }
}

/* The energy of a test molecule of type t placed at centre in orientation q with every site of
 * the chain (+infinity inside a hard core). */
static double insertion_energy(const mc_plan *p, const mc_chain *c, int t, const double centre[3], mc_quat q)
{
    const mc_moltype *type = &p->mol.type[t];
    cpu_partners all = {.x = c->x, .y = c->y, .z = c->z, .box = c->box_len, .species = p->mol.site_species,
                        .skip0 = -1, .skip1 = -1};
    double u = 0.0;
    for (int s = 0; s < type->nsites; s++) {
        double site[3];
        int a = type->species[s];
        mc_rigid_site(centre, q, type->body[s], c->box_len, site);
        all.pair_row = p->species.pair[a], all.hard_core_row = p->mol.hard_core2[a];
        u = cpu_site_energy_serial(&all, 0, c->n, site[0], site[1], site[2], u);
    }
    return u;
}

double mc_rigid_widom_sum(const mc_plan *p, const mc_chain *c, int type, int insertions, long draw)
{
    double sum = 0.0;
    for (int i = 0; i < insertions; i++) {
        double centre[3];
        mc_widom_position(p->seed, (uint32_t)c->id, (uint64_t)draw, (uint32_t)insertions, (uint32_t)i,
                          c->box_len, &centre[0], &centre[1], &centre[2]);
        mc_quat q = mc_widom_orientation(p->seed, (uint32_t)c->id, (uint64_t)draw, (uint32_t)insertions, (uint32_t)i);
        sum += exp(-c->beta * insertion_energy(p, c, type, centre, q)); /* 0 inside a hard core */
    }
    return sum;
}

void mc_rigid_scale(const mc_plan *p, const mc_chain *c, double s, mc_chain *out)
{
    mc_chain_set_box(out, c->box_len * s);
    for (int m = 0; m < c->nmol; m++) {
        double centre[3] = {mc_scale_coordinate(c->cx[m], s, out->box_len),
                            mc_scale_coordinate(c->cy[m], s, out->box_len),
                            mc_scale_coordinate(c->cz[m], s, out->box_len)};
        mc_rigid_set(p, out, m, centre, mc_chain_quat(c, m));
    }
}

double mc_rigid_scaled_energy(const mc_plan *p, const mc_chain *c, double s, double *scratch)
{
    mc_chain trial = *c; /* the scalars; the arrays it writes are the scratch's */
    size_t n = (size_t)c->n, M = (size_t)c->nmol;
    trial.x = scratch, trial.y = trial.x + n, trial.z = trial.y + n;
    trial.cx = trial.z + n, trial.cy = trial.cx + M, trial.cz = trial.cy + M, trial.q = trial.cz + M;
    mc_rigid_scale(p, c, s, &trial);
    return mc_rigid_measure(p, &trial, 0).energy;
}

size_t mc_rigid_scaled_scratch(const mc_plan *p) { return 3 * (size_t)p->n + 7 * (size_t)p->nmol; }

double mc_rigid_lindemann(const mc_chain *c)
{
    if (!c->lindemann_r || c->nsamples < 1 || c->nmol < 2) return NAN;
    size_t npairs = (size_t)c->nmol * (c->nmol - 1) / 2;
    double sum = 0.0, n = (double)c->nsamples;
    for (size_t k = 0; k < npairs; k++) {
        double mean = c->lindemann_r[k] / n, var = c->lindemann_r2[k] / n - mean * mean;
        sum += sqrt(fmax(var, 0.0)) / mean;
    }
    return sum / (double)npairs;
}
