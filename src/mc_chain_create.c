/* mc_chain_create: a chain from the plan: its arrays (the chain-state table), its walker record and
 * its start (atoms on the lattice, at random or from an earlier output's frame; molecules,
 * mc_rigid_start; two boxes, mc_gibbs_start; gcmc slots labelled by mc_gcmc_start). */
#include "mc_chain.h"

#include <stdlib.h>

#include "mc_chain_state.h"
#include "mc_exchange.h"
#include "mc_gcmc.h"
#include "mc_gibbs.h"
#include "mc_lattice.h"
#include "mc_rigid_start.h"
#include "mc_start.h"

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
        if (plan->ensemble->open) mc_gcmc_start(plan, c); /* the first molecules of each type present */
        return c;
    }
    if (mc_start_from_frames(plan)) {
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
        if (plan->ensemble->open) mc_gcmc_start(plan, c);
        return c;
    }
    mc_lattice_fill(plan->lattice, plan->n, c->box_len, c->x, c->y, c->z);
    /* gcmc: shuffled, so that the slots present at the start are spread over the box */
    if (plan->species.n > 1 || plan->ensemble->open) mc_chain_shuffle_points(c, plan->seed, c->n, c->x, c->y, c->z);
    if (plan->ensemble->open) mc_gcmc_start(plan, c);
    return c;
}

void mc_chain_destroy(mc_chain *c)
{
    if (!c) return;
    mc_state_free(c);
    free(c);
}
