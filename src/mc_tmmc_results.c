/* mc_tmmc_results: pooling the chains' transition-matrix records into ln Pi per state point. */
#include "mc_tmmc_results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mc_gcmc.h"
#include "tmmc.h"

void mc_tmmc_results_destroy(mc_tmmc_results *t)
{
    if (!t) return;
    free(t->chain_collection), free(t->chain_energy_sum), free(t->chain_visits), free(t->chain_bias);
    free(t->ln_pi), free(t->ln_pi_stderr), free(t->energy), free(t->missing), free(t->n_mean), free(t->scratch);
    free(t);
}

mc_tmmc_results *mc_tmmc_results_create(const mc_plan *plan, mc_err *err)
{
    if (!plan->ensemble->open) return NULL;
    mc_tmmc_results *t = calloc(1, sizeof *t);
    size_t C = (size_t)plan->nchains, S = (size_t)plan->nstatepoints, M = (size_t)mc_gcmc_macrostates(plan);
    size_t R = (size_t)(plan->replicas / plan->tmmc_windows);
    if (t) {
        t->nmacro = (int)M;
        t->chain_collection = calloc(C * M * TMMC_ROW, sizeof(double));
        t->chain_energy_sum = calloc(C * M, sizeof(double));
        t->chain_visits = calloc(C * M, sizeof(uint64_t));
        t->chain_bias = calloc(C * M, sizeof(double));
        t->ln_pi = calloc(S * M, sizeof(double));
        t->ln_pi_stderr = calloc(S * M, sizeof(double));
        t->energy = calloc(S * M, sizeof(double));
        t->missing = calloc(S, sizeof(int));
        t->n_mean = calloc(S, sizeof(double));
        t->scratch = calloc((R + 1) * M * TMMC_ROW, sizeof(double));
    }
    if (!t || !t->chain_collection || !t->chain_energy_sum || !t->chain_visits || !t->chain_bias || !t->ln_pi ||
        !t->ln_pi_stderr || !t->energy || !t->missing || !t->n_mean || !t->scratch) {
        mc_tmmc_results_destroy(t);
        return mc_err_set(err, MC_ENOMEM, "out of memory for the ln Pi results of %zu chains", C), NULL;
    }
    return t;
}

void mc_tmmc_results_add_chain(mc_tmmc_results *t, const mc_plan *plan, const mc_chain *c)
{
    (void)plan;
    size_t M = (size_t)t->nmacro, at = (size_t)c->id * M;
    memcpy(t->chain_collection + at * TMMC_ROW, c->tmmc_c, M * TMMC_ROW * sizeof(double));
    memcpy(t->chain_energy_sum + at, c->tmmc_energy, M * sizeof(double));
    memcpy(t->chain_visits + at, c->tmmc_visits, M * sizeof(uint64_t));
    memcpy(t->chain_bias + at, c->tmmc_bias, M * sizeof(double));
}

void mc_tmmc_results_pool(mc_tmmc_results *t, const mc_plan *plan)
{
    const int M = t->nmacro, W = plan->tmmc_windows, R = plan->replicas / W, lo = plan->tmmc_n_min;
    double *ln_pis = t->scratch, *sum = t->scratch + (size_t)R * M * TMMC_ROW; /* R rows of ln Pi fit in R C's */
    for (int s = 0; s < plan->nstatepoints; s++) {
        double *mean = t->ln_pi + (size_t)s * M, *se = t->ln_pi_stderr + (size_t)s * M;
        /* each replica: its windows' rows added in window order */
        for (int r = 0; r < R; r++) {
            memset(sum, 0, (size_t)M * TMMC_ROW * sizeof *sum);
            for (int w = 0; w < W; w++) {
                const double *c = t->chain_collection + (size_t)(s * plan->replicas + w * R + r) * M * TMMC_ROW;
                for (size_t i = 0; i < (size_t)M * TMMC_ROW; i++) sum[i] += c[i];
            }
            int first;
            tmmc_ln_pi((const double(*)[TMMC_ROW])sum, lo, M, ln_pis + (size_t)r * M, &first);
        }
        tmmc_ln_pi_mean(ln_pis, R, M, mean, se);
        for (int i = 0; R < 2 && i < M; i++) se[i] = NAN; /* one replica: no spread to estimate it from */
        /* the missing transitions of all replicas' rows together */
        memset(sum, 0, (size_t)M * TMMC_ROW * sizeof *sum);
        for (int k = s * plan->replicas; k < (s + 1) * plan->replicas; k++)
            for (size_t i = 0; i < (size_t)M * TMMC_ROW; i++) sum[i] += t->chain_collection[(size_t)k * M * TMMC_ROW + i];
        int first;
        t->missing[s] = tmmc_ln_pi((const double(*)[TMMC_ROW])sum, lo, M, ln_pis, &first);
        /* the mean's distribution at the sampled activity (the mean of logs is not normalised) */
        memcpy(ln_pis, mean, (size_t)M * sizeof *mean);
        tmmc_normalize(ln_pis, M);
        t->n_mean[s] = tmmc_mean_n(ln_pis, lo, 0, M, NULL);
        for (int i = 0; i < M; i++) {
            double u = 0.0;
            uint64_t v = 0;
            for (int k = s * plan->replicas; k < (s + 1) * plan->replicas; k++) {
                u += t->chain_energy_sum[(size_t)k * M + i];
                v += t->chain_visits[(size_t)k * M + i];
            }
            t->energy[(size_t)s * M + i] = v ? u / (double)v : NAN;
        }
    }
}
