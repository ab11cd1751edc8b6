/* mc_run: equilibration with step-size adaptation, then production sampling, round by round. */
#include "mc_run.h"

#include <math.h>
#include <stdlib.h>

struct mc_run {
    const mc_plan *plan;
    const mc_backend_ops *ops;
    mc_backend *backend;
    mc_chain **chains;
    int nchains;
    long sweeps_done;
    mc_measurement *measured; /* [nchains] scratch for one round */
    double *boltzmann;        /* [nchains] Widom sums of one sample */
    uint64_t *accepted0;      /* [nchains] accepted count when the round began */
};

void mc_run_destroy(mc_run *r)
{
    if (!r) return;
    if (r->backend) r->ops->destroy(r->backend);
    for (int k = 0; r->chains && k < r->nchains; k++) mc_chain_destroy(r->chains[k]);
    free(r->chains);
    free(r->measured);
    free(r->boltzmann);
    free(r->accepted0);
    free(r);
}

mc_run *mc_run_create(const mc_plan *plan, const mc_backend_ops *ops, int first_chain, int nchains,
                      mc_err *err)
{
    mc_run *r = calloc(1, sizeof *r);
    if (!r) return mc_err_set(err, MC_ENOMEM, "out of memory for the run"), NULL;
    r->plan = plan;
    r->ops = ops;
    r->nchains = nchains;
    r->chains = calloc((size_t)nchains, sizeof *r->chains);
    r->measured = calloc((size_t)nchains, sizeof *r->measured);
    r->accepted0 = calloc((size_t)nchains, sizeof *r->accepted0);
    r->boltzmann = calloc((size_t)nchains, sizeof *r->boltzmann);
    if (!r->chains || !r->measured || !r->accepted0 || !r->boltzmann) {
        mc_run_destroy(r);
        return mc_err_set(err, MC_ENOMEM, "out of memory for %d chains", nchains), NULL;
    }
    for (int k = 0; k < nchains; k++)
        if (!(r->chains[k] = mc_chain_create(plan, first_chain + k, err))) {
            mc_run_destroy(r);
            return NULL;
        }
    if (!(r->backend = ops->create(plan, r->chains, nchains, err))) {
        mc_run_destroy(r);
        return NULL;
    }
    return r;
}

/* Scale the step toward the target acceptance; bounded factors keep one noisy block from
 * collapsing or exploding it, and half the box is the largest step the minimum image allows. */
static void adapt_step(mc_chain *c, double acceptance, double target)
{
    double factor = acceptance / target;
    factor = factor < 0.5 ? 0.5 : factor > 1.5 ? 1.5 : factor;
    c->max_displacement = fmin(c->max_displacement * factor, c->half_box);
}

static int measure_and_check(mc_run *r, int add_rdf, mc_err *err)
{
    MC_TRY(r->ops->measure(r->backend, add_rdf, r->measured, err));
    for (int k = 0; k < r->nchains; k++)
        MC_TRY(mc_check_drift(r->measured[k].energy_pair_running, r->measured[k].energy_pair,
                              r->plan->n, r->plan->epsilon,
                              r->chains[k]->id, r->sweeps_done, err));
    return MC_OK;
}

static int equilibration_round(mc_run *r, mc_err *err)
{
    const mc_plan *p = r->plan;
    long sweeps = p->equilibration_sweeps - r->sweeps_done;
    if (sweeps > p->adapt_every_sweeps) sweeps = p->adapt_every_sweeps;
    for (int k = 0; k < r->nchains; k++) r->accepted0[k] = r->chains[k]->accepted;
    MC_TRY(r->ops->sweep(r->backend, sweeps, err));
    for (int k = 0; k < r->nchains; k++) {
        mc_chain *c = r->chains[k];
        adapt_step(c, (double)(c->accepted - r->accepted0[k]) / ((double)sweeps * c->n),
                   p->target_acceptance);
    }
    r->sweeps_done += sweeps;
    MC_TRY(measure_and_check(r, 0, err));
    if (r->sweeps_done == p->equilibration_sweeps)
        for (int k = 0; k < r->nchains; k++) {
            r->chains[k]->production_step0 = r->chains[k]->step;
            r->chains[k]->production_accepted0 = r->chains[k]->accepted;
        }
    return MC_OK;
}

static int production_round(mc_run *r, mc_err *err)
{
    const mc_plan *p = r->plan;
    MC_TRY(r->ops->sweep(r->backend, p->sample_every_sweeps, err));
    r->sweeps_done += p->sample_every_sweeps;
    MC_TRY(measure_and_check(r, 1, err));
    int m = p->widom_insertions;
    if (m) MC_TRY(r->ops->widom(r->backend, m, r->chains[0]->nsamples, r->boltzmann, err));
    for (int k = 0; k < r->nchains; k++) {
        mc_chain *c = r->chains[k];
        if (m) c->widom[c->nsamples] = r->boltzmann[k] / m;
        const mc_statepoint *sp = &p->statepoint[c->statepoint];
        double volume = c->box_len * c->box_len * c->box_len;
        c->energy[c->nsamples] = r->measured[k].energy_pair / c->n + sp->u_tail;
        c->pressure[c->nsamples] = sp->density * sp->temperature +
                                   r->measured[k].virial_pair / (3.0 * volume) + sp->p_tail +
                                   sp->p_impulsive;
        c->nsamples++;
    }
    return MC_OK;
}

int mc_run_round(mc_run *r, mc_err *err)
{
    if (r->sweeps_done < r->plan->equilibration_sweeps) return equilibration_round(r, err);
    if (!mc_run_finished(r)) return production_round(r, err);
    return MC_OK;
}

int mc_run_finished(const mc_run *r) { return r->sweeps_done >= mc_run_sweeps_total(r); }
long mc_run_sweeps_done(const mc_run *r) { return r->sweeps_done; }
long mc_run_sweeps_total(const mc_run *r)
{
    return r->plan->equilibration_sweeps + r->plan->production_sweeps;
}
int mc_run_fetch(mc_run *r, mc_err *err) { return r->ops->fetch(r->backend, err); }
int mc_run_nchains(const mc_run *r) { return r->nchains; }
const mc_chain *mc_run_chain(const mc_run *r, int k) { return r->chains[k]; }
