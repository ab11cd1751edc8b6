/* mc_results: per-chain estimates, pooling over replicas and RDF normalisation. */
#include "mc_results.h"

#include <math.h>
#include <stdlib.h>

#include "mc_corrections.h"
#include "mc_observable.h"
#include "mc_gibbs.h"

void mc_results_destroy(mc_results *r)
{
    if (!r) return;
    for (int o = 0; o < MC_NOBS; o++) free(r->chain_obs[o]), free(r->obs[o]), free(r->chain_equilibration[o]);
    free(r->chain_max_volume_step);
    free(r->chain_widom);
    free(r->mu_excess);
    free(r->chain_max_displacement);
    free(r->chain_rdf_norm);
    free(r->rdf_r);
    free(r->rdf_counts);
    free(r->rdf_norm);
    free(r->chain_max_rotation);
    free(r->rdf_g);
    free(r->replica_scratch);
    free(r->exchange_attempts);
    free(r->exchange_accepted);
    free(r->walker_traversals);
    free(r->walker_state);
    free(r->exchange_acceptance);
    mc_tmmc_results_destroy(r->tmmc);
    free(r);
}

mc_results *mc_results_create(const mc_plan *plan, mc_err *err)
{
    mc_results *r = calloc(1, sizeof *r);
    if (!r) return mc_err_set(err, MC_ENOMEM, "out of memory for results"), NULL;
    size_t C = (size_t)plan->nchains, S = (size_t)plan->nstatepoints, B = (size_t)plan->rdf_bins;
    size_t P = (size_t)mc_chain_rdf_rows(plan);
    r->npairs = (int)P;
    r->widom_kinds = plan->widom_kinds;
    size_t M = (size_t)plan->widom_kinds;
    r->nchains = plan->nchains;
    r->nstatepoints = plan->nstatepoints;
    r->rdf_bins = plan->rdf_bins;
    int obs_ok = 1;
    for (int o = 0; o < MC_NOBS; o++)
        if (mc_observable_applies(plan, o)) {
            obs_ok &= (r->chain_obs[o] = calloc(C, sizeof(mc_estimate))) != NULL;
            obs_ok &= (r->obs[o] = calloc(S, sizeof(mc_estimate))) != NULL;
            if (mc_observables[o].kind == MC_OBS_SERIES)
                obs_ok &= (r->chain_equilibration[o] = calloc(C, sizeof(mc_equilibration))) != NULL;
        }
    r->chain_widom = calloc(C * M, sizeof *r->chain_widom);
    r->mu_excess = calloc(S * M, sizeof *r->mu_excess);
    r->chain_max_displacement = calloc(C, sizeof *r->chain_max_displacement);
    r->chain_rdf_norm = calloc(C * P, sizeof *r->chain_rdf_norm);
    r->rdf_r = calloc(B, sizeof *r->rdf_r);
    r->rdf_counts = calloc(S * P * B, sizeof *r->rdf_counts);
    r->rdf_norm = calloc(S * P, sizeof *r->rdf_norm);
    r->rdf_g = calloc(S * P * B, sizeof *r->rdf_g);
    r->chain_max_volume_step = calloc(C, sizeof *r->chain_max_volume_step);
    r->chain_max_rotation = calloc(C, sizeof(double));
    r->replica_scratch = calloc((size_t)plan->replicas, sizeof *r->replica_scratch);
    if (!obs_ok || !r->chain_widom || !r->mu_excess || !r->chain_max_displacement || !r->chain_rdf_norm ||
        !r->rdf_r || !r->rdf_counts || !r->rdf_norm || !r->rdf_g || !r->chain_max_volume_step ||
        !r->chain_max_rotation || !r->replica_scratch) {
        mc_results_destroy(r);
        return mc_err_set(err, MC_ENOMEM, "out of memory for results"), NULL;
    }
    for (size_t b = 0; b < B; b++) r->rdf_r[b] = (b + 0.5) * plan->rdf_dr;
    if (plan->ensemble->open && !(r->tmmc = mc_tmmc_results_create(plan, err))) {
        mc_results_destroy(r);
        return NULL;
    }
    if (!plan->exchange_every) return r;
    r->exchange_attempts = calloc(C, sizeof *r->exchange_attempts);
    r->exchange_accepted = calloc(C, sizeof *r->exchange_accepted);
    r->walker_traversals = calloc(C, sizeof *r->walker_traversals);
    r->walker_state = calloc(C * (size_t)plan->nsamples, sizeof *r->walker_state);
    r->exchange_acceptance = calloc(S, sizeof *r->exchange_acceptance);
    if (!r->exchange_attempts || !r->exchange_accepted || !r->walker_traversals || !r->walker_state ||
        !r->exchange_acceptance) {
        mc_results_destroy(r);
        return mc_err_set(err, MC_ENOMEM, "out of memory for the replica-exchange results of %zu chains", C), NULL;
    }
    return r;
}

void mc_results_add_chain(mc_results *r, const mc_plan *plan, const mc_chain *c)
{
    for (int o = 0; o < MC_NOBS; o++)
        if (r->chain_obs[o]) r->chain_obs[o][c->id] = mc_observable_estimate(plan, c, o);
    for (int o = 0; o < MC_NOBS; o++)
        if (r->chain_equilibration[o]) r->chain_equilibration[o][c->id] = mc_equilibration_detect(c->series[o], c->nsamples);
    r->chain_max_volume_step[c->id] = c->max_volume_step;
    r->chain_max_rotation[c->id] = c->max_rotation;
    for (int a = 0; c->widom && a < r->widom_kinds; a++)
        r->chain_widom[(size_t)c->id * r->widom_kinds + a] =
            mc_stats_block(c->widom + (size_t)a * plan->nsamples, c->nsamples);
    r->chain_max_displacement[c->id] = c->max_displacement;
    size_t PB = (size_t)r->npairs * plan->rdf_bins;
    uint64_t *counts = r->rdf_counts + (size_t)c->statepoint * PB;
    for (size_t b = 0; b < PB; b++) counts[b] += c->rdf_counts[b];
    for (int k = 0; k < r->npairs; k++) r->chain_rdf_norm[(size_t)c->id * r->npairs + k] = c->rdf_norm[k];
    if (r->tmmc) mc_tmmc_results_add_chain(r->tmmc, plan, c);
    if (!r->exchange_attempts) return;
    r->exchange_attempts[c->id] = c->exchange_attempts - c->production_exchange_attempts0;
    r->exchange_accepted[c->id] = c->exchange_accepted - c->production_exchange_accepted0;
    r->walker_traversals[c->walker] = c->walker_traversals;
    /* states are stored plus one: the ensemble layer sums these over ranks, each entry set once */
    for (long t = 0; t < c->nsamples; t++)
        r->walker_state[(size_t)c->walker_at[t] * plan->nsamples + t] = c->statepoint + 1;
}

/* mu_ex of species a = -kT ln <w> with <w> pooled over replicas (equal samples each, so the mean
 * of the chain means is the pooled Boltzmann-factor sum over all insertions), plus the tail
 * correction of a test particle when tails are on (2 U_tail/N for a pure fluid); error by the
 * delta method, kT se(w) / <w>. */
static mc_estimate widom_mu(mc_estimate w, const mc_plan *plan, const mc_statepoint *sp, int a)
{
    mc_estimate mu = {NAN, NAN, NAN, NAN, 0};
    if (!plan->widom_insertions) return mu;
    mu = w;
    /* gibbs: w is <V/(n_a + 1) exp(-beta dU)>, the tail inside dU: -kT ln w is the whole mu (Lambda 1) */
    double tail = plan->ensemble->boxes > 1 ? 0.0 : mc_corrections_widom_tail(plan, pow(sp->box_len, 3), a);
    mu.mean = -sp->temperature * log(w.mean) + tail;
    mu.error = sp->temperature * w.error / w.mean;
    return mu;
}

/* g(r) of species pair q at state point s: its counts over all samples and replicas divided by
 * the ideal-gas count (the summed ideal pair densities times the shell volume). The norms are
 * summed in chain order, so the result does not depend on how chains met ranks. */
void mc_results_rdf_g(const mc_plan *plan, const uint64_t *counts, double norm, double *g)
{
    for (int b = 0; b < plan->rdf_bins; b++) {
        double r_in = b * plan->rdf_dr, r_out = (b + 1) * plan->rdf_dr;
        double shell = 4.0 / 3.0 * M_PI * (r_out * r_out * r_out - r_in * r_in * r_in);
        double expected = norm * shell;
        g[b] = expected > 0 ? (double)counts[b] / expected : 0.0;
    }
}

static void pool_rdf(mc_results *r, const mc_plan *plan, int s, int q)
{
    int R = plan->replicas, P = r->npairs;
    double *norm = &r->rdf_norm[(size_t)s * P + q];
    *norm = 0.0;
    for (int k = 0; k < R; k++) *norm += r->chain_rdf_norm[(size_t)(s * R + k) * P + q];
    size_t row = ((size_t)s * P + q) * plan->rdf_bins;
    mc_results_rdf_g(plan, r->rdf_counts + row, *norm, r->rdf_g + row);
}

/* Gibbs: whether chain k's boxes held two phases (mc_gibbs_separation). */
static int separated(const mc_results *r, int k)
{
    return r->chain_obs[MC_OBS_SEPARATION][k].mean > MC_GIBBS_SEPARATED;
}

/* The estimates of state point s's replicas, per_chain[k * stride] for chain k, pooled: all of
 * them, or with phase (the Gibbs ensemble's phase quantities) those whose boxes separated, NaN
 * where none did. acc: scratch for the replicas. */
static mc_estimate pool_replicas(const mc_results *r, const mc_plan *plan, int s, int phase,
                                 const mc_estimate *per_chain, size_t stride, mc_estimate *acc)
{
    int R = plan->replicas, m = 0;
    for (int k = s * R; k < (s + 1) * R; k++)
        if (!phase || separated(r, k)) acc[m++] = per_chain[(size_t)k * stride];
    return m ? mc_stats_pool(acc, m) : (mc_estimate){NAN, NAN, NAN, NAN, 0};
}

void mc_results_pool(mc_results *r, const mc_plan *plan)
{
    int R = plan->replicas;
    mc_estimate *acc = r->replica_scratch;
    for (int s = 0; s < plan->nstatepoints; s++) {
        for (int o = 0; o < MC_NOBS; o++)
            if (r->obs[o]) r->obs[o][s] = pool_replicas(r, plan, s, mc_observables[o].phase, r->chain_obs[o], 1, acc);
        for (int a = 0; a < r->widom_kinds; a++) /* gibbs: each phase's, over the separated chains */
            r->mu_excess[(size_t)s * r->widom_kinds + a] =
                widom_mu(pool_replicas(r, plan, s, plan->ensemble->boxes > 1, r->chain_widom + a, (size_t)r->widom_kinds, acc), plan,
                         &plan->statepoint[s], a);
        for (int q = 0; q < r->npairs; q++) pool_rdf(r, plan, s, q);
        if (r->exchange_attempts) {
            uint64_t tried = 0, taken = 0;
            for (int k = 0; k < R; k++) tried += r->exchange_attempts[s * R + k], taken += r->exchange_accepted[s * R + k];
            r->exchange_acceptance[s] = tried ? (double)taken / (double)tried : NAN;
        }
    }
    if (r->walker_state)
        for (size_t i = 0; i < (size_t)plan->nchains * plan->nsamples; i++) r->walker_state[i] -= 1;
    if (r->tmmc) mc_tmmc_results_pool(r->tmmc, plan);
}

/* An infinite pooled energy, pressure, density, enthalpy or heat capacity means a run that went
 * wrong (a temperature too low for double precision): stop before writing it as a result. The
 * samples stay in the final checkpoint. (NaN stands for "absent" in some rows, such as an open
 * cluster's pressure; a NaN energy is caught at the round it appears, by the drift check.) */
int mc_results_check_finite(const mc_plan *p, const mc_results *r, mc_err *err)
{
    for (int o = 0; o < MC_NOBS; o++) {
        if (!r->obs[o] || mc_observables[o].kind == MC_OBS_PER_CHAIN) continue;
        for (int s = 0; s < p->nstatepoints; s++)
            if (isinf(r->obs[o][s].mean))
                MC_FAIL(err, MC_ECHECK, "state point %d (T = %g): %s is %g; the run is not written as a "
                        "result (overlapping particles, or a temperature too low for double precision?)",
                        s, p->statepoint[s].temperature_given, mc_observables[o].name, r->obs[o][s].mean);
    }
    return MC_OK;
}
