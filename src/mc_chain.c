/* mc_chain: allocation and the starting state of a chain. */
#include "mc_chain.h"

#include <stdlib.h>

#include "mc_lattice.h"

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
    size_t n = (size_t)plan->n, ns = (size_t)plan->nsamples;
    c->x = malloc(n * sizeof *c->x);
    c->y = malloc(n * sizeof *c->y);
    c->z = malloc(n * sizeof *c->z);
    c->energy = malloc(ns * sizeof *c->energy);
    c->pressure = malloc(ns * sizeof *c->pressure);
    c->rdf_counts = calloc((size_t)plan->rdf_bins, sizeof *c->rdf_counts);
    if (plan->widom_insertions) c->widom = malloc(ns * sizeof *c->widom);
    if (plan->npt) {
        c->density = malloc(ns * sizeof *c->density);
        c->enthalpy = malloc(ns * sizeof *c->enthalpy);
    }
    if (!c->x || !c->y || !c->z || !c->energy || !c->pressure || !c->rdf_counts ||
        (plan->widom_insertions && !c->widom) || (plan->npt && (!c->density || !c->enthalpy))) {
        mc_chain_destroy(c);
        return mc_err_set(err, MC_ENOMEM, "out of memory for chain %d (n = %d)", id, plan->n), NULL;
    }
    mc_lattice_fill(plan->lattice, plan->n, c->box_len, c->x, c->y, c->z);
    return c;
}

void mc_chain_destroy(mc_chain *c)
{
    if (!c) return;
    free(c->x);
    free(c->y);
    free(c->z);
    free(c->energy);
    free(c->pressure);
    free(c->widom);
    free(c->density);
    free(c->enthalpy);
    free(c->rdf_counts);
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

void mc_chain_add_rdf_sample(mc_chain *c)
{
    c->rdf_norm += 0.5 * c->n * (c->n - 1) / (c->box_len * c->box_len * c->box_len);
}
