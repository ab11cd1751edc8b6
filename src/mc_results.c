/* mc_results: per-chain estimates, pooling over replicas and RDF normalisation. */
#include "mc_results.h"

#include <math.h>
#include <stdlib.h>

void mc_results_destroy(mc_results *r)
{
    if (!r) return;
    free(r->chain_density);
    free(r->chain_enthalpy);
    free(r->chain_volume_acceptance);
    free(r->chain_max_volume_step);
    free(r->density);
    free(r->enthalpy);
    free(r->volume_acceptance);
    free(r->chain_energy);
    free(r->chain_pressure);
    free(r->chain_heat_capacity);
    free(r->heat_capacity);
    free(r->chain_widom);
    free(r->mu_excess);
    free(r->chain_acceptance);
    free(r->chain_max_displacement);
    free(r->chain_rdf_norm);
    free(r->energy);
    free(r->pressure);
    free(r->acceptance);
    free(r->rdf_r);
    free(r->rdf_counts);
    free(r->rdf_norm);
    free(r->rdf_g);
    free(r);
}

mc_results *mc_results_create(const mc_plan *plan, mc_err *err)
{
    mc_results *r = calloc(1, sizeof *r);
    if (!r) return mc_err_set(err, MC_ENOMEM, "out of memory for results"), NULL;
    size_t C = (size_t)plan->nchains, S = (size_t)plan->nstatepoints, B = (size_t)plan->rdf_bins;
    r->nchains = plan->nchains;
    r->nstatepoints = plan->nstatepoints;
    r->rdf_bins = plan->rdf_bins;
    r->chain_energy = calloc(C, sizeof *r->chain_energy);
    r->chain_pressure = calloc(C, sizeof *r->chain_pressure);
    r->chain_heat_capacity = calloc(C, sizeof *r->chain_heat_capacity);
    r->heat_capacity = calloc(S, sizeof *r->heat_capacity);
    r->chain_widom = calloc(C, sizeof *r->chain_widom);
    r->mu_excess = calloc(S, sizeof *r->mu_excess);
    r->chain_acceptance = calloc(C, sizeof *r->chain_acceptance);
    r->chain_max_displacement = calloc(C, sizeof *r->chain_max_displacement);
    r->chain_rdf_norm = calloc(C, sizeof *r->chain_rdf_norm);
    r->energy = calloc(S, sizeof *r->energy);
    r->pressure = calloc(S, sizeof *r->pressure);
    r->acceptance = calloc(S, sizeof *r->acceptance);
    r->rdf_r = calloc(B, sizeof *r->rdf_r);
    r->rdf_counts = calloc(S * B, sizeof *r->rdf_counts);
    r->rdf_norm = calloc(S, sizeof *r->rdf_norm);
    r->rdf_g = calloc(S * B, sizeof *r->rdf_g);
    r->chain_density = calloc(C, sizeof *r->chain_density);
    r->chain_enthalpy = calloc(C, sizeof *r->chain_enthalpy);
    r->chain_volume_acceptance = calloc(C, sizeof *r->chain_volume_acceptance);
    r->chain_max_volume_step = calloc(C, sizeof *r->chain_max_volume_step);
    r->density = calloc(S, sizeof *r->density);
    r->enthalpy = calloc(S, sizeof *r->enthalpy);
    r->volume_acceptance = calloc(S, sizeof *r->volume_acceptance);
    if (!r->chain_density || !r->chain_enthalpy || !r->chain_volume_acceptance ||
        !r->chain_max_volume_step || !r->density || !r->enthalpy || !r->volume_acceptance ||
!r->chain_energy || !r->chain_pressure || !r->chain_acceptance || !r->chain_heat_capacity ||
        !r->heat_capacity || !r->chain_widom || !r->mu_excess ||
        !r->chain_max_displacement || !r->chain_rdf_norm || !r->energy || !r->pressure || !r->acceptance || !r->rdf_r ||
        !r->rdf_counts || !r->rdf_norm || !r->rdf_g) {
        mc_results_destroy(r);
        return mc_err_set(err, MC_ENOMEM, "out of memory for results"), NULL;
    }
    for (size_t b = 0; b < B; b++) r->rdf_r[b] = (b + 0.5) * plan->rdf_dr;
    return r;
}

void mc_results_add_chain(mc_results *r, const mc_plan *plan, const mc_chain *c)
{
    r->chain_energy[c->id] = mc_stats_block(c->energy, c->nsamples);
    r->chain_pressure[c->id] = mc_stats_block(c->pressure, c->nsamples);
    /* npt: the enthalpy per particle in the same formula gives C_P (its ideal-gas 5/2 comes from
     * the volume fluctuations, N var(P V/N) / T^2 = 1) */
    r->chain_heat_capacity[c->id] = mc_stats_heat_capacity(
        plan->npt ? c->enthalpy : c->energy, c->nsamples, c->n,
        plan->statepoint[c->statepoint].temperature);
    if (plan->npt) {
        r->chain_density[c->id] = mc_stats_block(c->density, c->nsamples);
        r->chain_enthalpy[c->id] = mc_stats_block(c->enthalpy, c->nsamples);
        r->chain_volume_acceptance[c->id] = mc_chain_production_volume_acceptance(c);
        r->chain_max_volume_step[c->id] = c->max_volume_step;
    }
    if (c->widom) r->chain_widom[c->id] = mc_stats_block(c->widom, c->nsamples);
    r->chain_acceptance[c->id] = mc_chain_production_acceptance(c);
    r->chain_max_displacement[c->id] = c->max_displacement;
    uint64_t *counts = r->rdf_counts + (size_t)c->statepoint * plan->rdf_bins;
    for (int b = 0; b < plan->rdf_bins; b++) counts[b] += c->rdf_counts[b];
    r->chain_rdf_norm[c->id] = c->rdf_norm;
}

/* mu_ex = -kT ln <w> with <w> pooled over replicas (equal samples each, so the mean of the chain
 * means is the pooled Boltzmann-factor sum over all insertions), plus the tail 2 U_tail/N when
 * tails are on; error by the delta method, kT se(w) / <w>. */
static mc_estimate widom_mu(mc_estimate w, const mc_statepoint *sp, int insertions)
{
    mc_estimate mu = {NAN, NAN, NAN, NAN, 0};
    if (!insertions) return mu;
    mu = w;
    mu.mean = -sp->temperature * log(w.mean) + 2.0 * sp->corr.u_tail;
    mu.error = sp->temperature * w.error / w.mean;
    return mu;
}

/* Acceptance ratios of r replicas pooled like any estimate (scratch: r estimates, or NULL). */
static mc_estimate pool_ratios(const double *ratio, int r, mc_estimate *scratch)
{
    if (!scratch) return (mc_estimate){NAN, NAN, NAN, NAN, 0};
    for (int k = 0; k < r; k++) scratch[k] = (mc_estimate){ratio[k], NAN, NAN, NAN, 1};
    return mc_stats_pool(scratch, r);
}

void mc_results_pool(mc_results *r, const mc_plan *plan)
{
    int R = plan->replicas, B = plan->rdf_bins;
    mc_estimate *acc = malloc((size_t)R * sizeof *acc);
    for (int s = 0; s < plan->nstatepoints; s++) {
        r->energy[s] = mc_stats_pool(r->chain_energy + s * R, R);
        r->pressure[s] = mc_stats_pool(r->chain_pressure + s * R, R);
        r->heat_capacity[s] = mc_stats_pool(r->chain_heat_capacity + s * R, R);
        r->mu_excess[s] = widom_mu(mc_stats_pool(r->chain_widom + s * R, R), &plan->statepoint[s],
                                   plan->widom_insertions);
        r->acceptance[s] = pool_ratios(r->chain_acceptance + s * R, R, acc);
        if (plan->npt) {
            r->density[s] = mc_stats_pool(r->chain_density + s * R, R);
            r->enthalpy[s] = mc_stats_pool(r->chain_enthalpy + s * R, R);
            r->volume_acceptance[s] = pool_ratios(r->chain_volume_acceptance + s * R, R, acc);
        }
        /* summed in chain order, so the result does not depend on how chains met ranks */
        r->rdf_norm[s] = 0.0;
        for (int k = 0; k < R; k++) r->rdf_norm[s] += r->chain_rdf_norm[s * R + k];
        for (int b = 0; b < B; b++) {
            double r_in = b * plan->rdf_dr, r_out = (b + 1) * plan->rdf_dr;
            double shell = 4.0 / 3.0 * M_PI * (r_out * r_out * r_out - r_in * r_in * r_in);
            double expected = r->rdf_norm[s] * shell; /* ideal-gas count over all samples */
            r->rdf_g[(size_t)s * B + b] =
                expected > 0 ? (double)r->rdf_counts[(size_t)s * B + b] / expected : 0.0;
        }
    }
    free(acc);
}
