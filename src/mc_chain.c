/* mc_chain: allocation and the starting state of a chain. */
#include "mc_chain.h"

#include <stdlib.h>

#include "mc_chain_state.h"
#include "mc_exchange.h"
#include "mc_gibbs.h"
#include "mc_lattice.h"
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

/* start = h5 for atoms: the frame's positions (scaled to the chain's box), in the file's order,
 * which is the species order (checked when the frames were read). */
static int atoms_from_frame(const mc_plan *plan, mc_chain *c, mc_err *err)
{
    double *xyz = malloc(3 * (size_t)c->n * sizeof *xyz), scale;
    const double *quats;
    if (!xyz) MC_FAIL(err, MC_ENOMEM, "out of memory for chain %d's start", c->id);
    int rc = mc_start_frame_points(plan, c->id, c->box_len, xyz, &quats, &scale, err);
    for (int i = 0; rc == MC_OK && i < c->n; i++)
        c->x[i] = xyz[3 * i], c->y[i] = xyz[3 * i + 1], c->z[i] = xyz[3 * i + 2];
    free(xyz);
    return rc;
}

mc_chain *mc_chain_create(const mc_plan *plan, int id, mc_err *err)
{
    if (id < 0 || id >= plan->nchains)
        return mc_err_set(err, MC_EINVAL, "chain %d: the plan has chains 0-%d", id, plan->nchains - 1), NULL;
    mc_chain *c = calloc(1, sizeof *c);
    if (!c) return mc_err_set(err, MC_ENOMEM, "out of memory for chain %d", id), NULL;
    const mc_statepoint *sp = &plan->statepoint[mc_plan_statepoint_of(plan, id)];
    c->id = id;
    c->statepoint = mc_plan_statepoint_of(plan, id);
    c->n = plan->n;
    c->box_len = sp->box_len;
    c->half_box = 0.5 * sp->box_len;
    c->beta = 1.0 / sp->temperature;
    c->max_displacement = plan->max_displacement0;
    c->max_volume_step = plan->max_volume_step0;
    c->nmol = plan->nmol;
    if (mc_state_allocate(plan, c, err) != MC_OK) { /* every array the plan's chains have */
        mc_chain_destroy(c);
        return NULL;
    }
    c->walker = id;
    c->walker_end = -1;
    if (plan->exchange_every) mc_exchange_visit(plan, c); /* a walker starting at an end has been there */
    if (plan->ensemble->boxes > 1) { /* atoms or molecules, in two boxes */
        if (mc_gibbs_start(plan, c, err) != MC_OK) {
            mc_chain_destroy(c);
            return NULL;
        }
        return c;
    }
    if (plan->rigid) {
        if (!plan->periodic) mc_chain_set_box(c, 0.0);
        if (mc_rigid_start(plan, c, err) != MC_OK) {
            mc_chain_destroy(c);
            return NULL;
        }
        return c;
    }
    if (plan->start == CFG_START_H5) {
        if (atoms_from_frame(plan, c, err) != MC_OK) {
            mc_chain_destroy(c);
            return NULL;
        }
        return c;
    }
    if (plan->start == CFG_START_MELT) { /* random points: the species need no shuffle */
        if (mc_melt_points(plan, c->id, 0, c->n, c->box_len, 0.7, c->x, c->y, c->z, err) != MC_OK) {
            mc_chain_destroy(c);
            return NULL;
        }
        return c;
    }
    mc_lattice_fill(plan->lattice, plan->n, c->box_len, c->x, c->y, c->z);
    if (plan->species.n > 1) mc_chain_shuffle_points(c, plan->seed, c->n, c->x, c->y, c->z);
    return c;
}

void mc_chain_destroy(mc_chain *c)
{
    if (!c) return;
    mc_state_free(c);
    free(c);
}

double mc_chain_production_acceptance(const mc_chain *c)
{
    uint64_t moves = c->step - c->production_step0;
    return moves ? (double)(c->accepted - c->production_accepted0) / (double)moves : 0.0;
}

double mc_chain_production_volume_acceptance(const mc_chain *c)
{
    uint64_t moves = c->volume_moves - c->production_volume_moves0;
    return moves ? (double)(c->volume_accepted - c->production_volume_accepted0) / (double)moves : 0.0;
}

void mc_chain_set_box(mc_chain *c, double box_len)
{
    c->box_len = box_len;
    c->half_box = 0.5 * box_len;
}

void mc_chain_add_rdf_sample(mc_chain *c, const mc_plan *p)
{
    const mc_species *s = &p->species;
    double volume = c->box_len > 0 ? c->box_len * c->box_len * c->box_len : p->rdf_volume;
    for (int a = 0; a < s->n; a++)
        for (int b = a; b < s->n; b++) {
            int k = mc_species_pair_index(s, a, b);
            c->rdf_norm[k] += p->rigid ? p->mol.inter_pairs[k] / volume
                              : a == b ? 0.5 * s->count[a] * (s->count[a] - 1.0) / volume
                                       : (double)s->count[a] * s->count[b] / volume;
        }
    if (p->rigid) c->rdf_norm[s->npairs] += 0.5 * p->nmol * (p->nmol - 1.0) / volume;
}

double mc_chain_production_displacement_acceptance(const mc_chain *c)
{
    uint64_t moves = (c->step - c->production_step0) - (c->transfers - c->production_transfers0) -
                     (c->volume_moves - c->production_volume_moves0);
    uint64_t acc = (c->accepted - c->production_accepted0) - (c->transfers_accepted - c->production_transfers_accepted0) -
                   (c->volume_accepted - c->production_volume_accepted0);
    return moves ? (double)acc / (double)moves : 0.0;
}

double mc_chain_production_transfer_acceptance(const mc_chain *c)
{
    uint64_t moves = c->transfers - c->production_transfers0;
    return moves ? (double)(c->transfers_accepted - c->production_transfers_accepted0) / (double)moves : 0.0;
}

double mc_chain_production_translation_acceptance(const mc_chain *c)
{
    /* a Gibbs chain's transfers and volume exchanges are trial moves too (npt's volume moves are not) */
    int gibbs = c->in_box != NULL;
    uint64_t moves = (c->step - c->production_step0) - (c->rotations - c->production_rotations0) -
                     (c->transfers - c->production_transfers0) -
                     (gibbs ? c->volume_moves - c->production_volume_moves0 : 0);
    uint64_t acc = (c->accepted - c->production_accepted0) -
                   (c->rotations_accepted - c->production_rotations_accepted0) -
                   (c->transfers_accepted - c->production_transfers_accepted0) -
                   (gibbs ? c->volume_accepted - c->production_volume_accepted0 : 0);
    return moves ? (double)acc / (double)moves : 0.0;
}

double mc_chain_production_rotation_acceptance(const mc_chain *c)
{
    uint64_t moves = c->rotations - c->production_rotations0;
    return moves ? (double)(c->rotations_accepted - c->production_rotations_accepted0) / (double)moves : 0.0;
}
