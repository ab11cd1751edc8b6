/* mc_rigid_start: starting configurations of molecules, and the random and shuffled starting points
 * of atoms. */
#include "mc_rigid_start.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_lattice.h"
#include "mc_rigid.h"
#include "mc_rigid_host.h"
#include "mc_rng.h"
#include "mc_start.h"

void mc_chain_shuffle_points(const mc_chain *c, uint64_t seed, int n, double *x, double *y, double *z)
{
    mc_chain_shuffle_points_from(c, seed, 0, n, x, y, z);
}

void mc_chain_shuffle_points_from(const mc_chain *c, uint64_t seed, uint64_t first_key, int n, double *x, double *y,
                                  double *z)
{
    for (int i = n - 1; i > 0; i--) {
        mc_rng4 r = mc_rng_block(seed, (uint32_t)c->id, MC_RNG_SETUP, first_key + (uint64_t)i);
        int j = (int)mc_rng_index(r.v[0], (uint32_t)i + 1);
        double t;
        t = x[i], x[i] = x[j], x[j] = t;
        t = y[i], y[i] = y[j], y[j] = t;
        t = z[i], z[i] = z[j], z[j] = t;
    }
}

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

/* Whether the start gives the molecules' orientations (start = file, h5 or xyz): they are kept as given. */
static int start_given(const mc_plan *p) { return p->start == CFG_START_FILE || mc_start_from_frames(p); }

/* start = file: the plan's starting molecules (mc_start_load checked them against the boxes);
 * start = h5 or xyz: the chain's frame (h5start_load's of the earlier output, or mc_start_xyz's),
 * its centres scaled to this chain's box. */
static int copy_start(const mc_plan *p, mc_chain *c, mc_err *err)
{
    const double *centres = p->start_centres, *quats = p->start_orientations;
    double *scaled = NULL, scale;
    if (mc_start_from_frames(p)) {
        if (!(scaled = malloc(3 * (size_t)c->nmol * sizeof *scaled)))
            MC_FAIL(err, MC_ENOMEM, "out of memory for chain %d's start", c->id);
        int rc = mc_start_frame_points(p, c->id, c->box_len, scaled, &quats, &scale, err);
        if (rc != MC_OK) return free(scaled), rc;
        centres = scaled;
    }
    if (!centres || !quats) {
        free(scaled);
        MC_FAIL(err, MC_EINVAL, "internal: start = %s, but the molecules of %s were not loaded",
                p->start == CFG_START_H5 ? "h5" : p->start == CFG_START_XYZ ? "xyz" : "file", p->start_file);
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

