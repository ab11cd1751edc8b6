/* h5out_tmmc: /chains/tmmc and /results/tmmc (h5out_tmmc.h). */
#include "h5out_tmmc.h"

#include <math.h>
#include <stdlib.h>

#include "mc_gcmc.h"
#include "tmmc.h"

int h5out_tmmc_chains(const h5ds *f, const mc_plan *plan, const mc_run *run, int first_chain, const mc_results *res,
                      mc_err *err)
{
    const mc_tmmc_results *t = res->tmmc;
    hid_t g = h5ds_make_group(f->file, "chains/tmmc");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "%s: cannot create /chains/tmmc", f->part);
    const hsize_t C = (hsize_t)plan->nchains, M = (hsize_t)t->nmacro, n = (hsize_t)plan->n;
    const hsize_t d3[3] = {C, M, TMMC_ROW}, d2[2] = {C, M}, dw[2] = {C, 2}, dp[2] = {C, n};
    int nl = mc_run_nchains(run);
    int *window = malloc(2 * (size_t)C * sizeof *window), *present = malloc((size_t)nl * n * sizeof *present);
    int rc = window && present ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory for /chains/tmmc");
    for (int k = 0; rc == MC_OK && k < plan->nchains; k++) mc_gcmc_window(plan, k, &window[2 * k], &window[2 * k + 1]);
    for (int k = 0; rc == MC_OK && k < nl; k++)
        for (hsize_t i = 0; i < n; i++) present[k * n + i] = mc_run_chain(run, k)->in_box[i] == 0;
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "collection", H5T_NATIVE_DOUBLE, 3, d3, t->chain_collection, "1",
                              "each chain's transition-matrix collection in production: per N = n_min + i the summed "
                              "unbiased acceptance probabilities of its attempted deletions (column 0) and insertions "
                              "(column 2), and their complements (column 1)", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "energy_sum", H5T_NATIVE_DOUBLE, 2, d2, t->chain_energy_sum, plan->units.energy,
                              "each chain's sum, over the production trial moves that ended at N = n_min + i, of the "
                              "total potential energy (tail correction included)", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "visits", H5T_NATIVE_UINT64, 2, d2, t->chain_visits, "1",
                              "each chain's production trial moves that ended at N = n_min + i", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "bias", H5T_NATIVE_DOUBLE, 2, d2, t->chain_bias, "1",
                              "the ln Pi estimate each chain's moves were biased by at the end (over its window; 0 "
                              "elsewhere, and everywhere with [tmmc] bias = no)", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "window", H5T_NATIVE_INT, 2, dw, window, "1",
                              "the lowest and highest N each chain could visit", err);
    if (rc == MC_OK)
        rc = h5ds_write_rows(f, g, "present", H5T_NATIVE_INT, 2, dp, (hsize_t)first_chain, (hsize_t)nl, present, "1",
                             "1 for the slots of /particles' final frame that hold a particle, 0 for the absent ones "
                             "(whose positions are left over)", err);
    free(window), free(present);
    return h5ds_close_group(g, "/chains/tmmc", rc, err);
}

int h5out_tmmc_results(const h5ds *f, const mc_plan *plan, const mc_results *res, mc_err *err)
{
    const mc_tmmc_results *t = res->tmmc;
    hid_t g = h5ds_make_group(f->file, "results/tmmc");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "%s: cannot create /results/tmmc", f->part);
    const int S = plan->nstatepoints, M = t->nmacro;
    const hsize_t dS[1] = {(hsize_t)S}, dM[1] = {(hsize_t)M}, d2[2] = {(hsize_t)S, (hsize_t)M};
    const double volume = pow(plan->statepoint[0].box_len, 3);
    long *macro = malloc((size_t)M * sizeof *macro);
    double *lnz = malloc((size_t)S * sizeof *lnz), *density = malloc((size_t)S * sizeof *density);
    int rc = macro && lnz && density ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory for /results/tmmc");
    for (int i = 0; rc == MC_OK && i < M; i++) macro[i] = plan->tmmc_n_min + i;
    for (int s = 0; rc == MC_OK && s < S; s++) lnz[s] = plan->statepoint[s].lnz, density[s] = t->n_mean[s] / volume;
    const hsize_t dK[1] = {(hsize_t)plan->nkinds};
    const struct {
        const char *name;
        hid_t type;
        int rank;
        const hsize_t *dims;
        const void *data;
        const char *unit, *description;
    } rows[] = {
        {"n", H5T_NATIVE_LONG, 1, dM, macro, "1", "the macrostates N, n_min .. n_max"},
        {"lnz", H5T_NATIVE_DOUBLE, 1, dS, lnz, "1",
         "ln z of each state point, the activity ln Pi was sampled at (z in the length unit^-3)"},
        {"ln_pi", H5T_NATIVE_DOUBLE, 2, d2, t->ln_pi, "1",
         "ln Pi(N) at each state point's ln z: the mean over replicas of each replica's normalised estimate from its "
         "windows' collection matrices together (the mean of logs is not normalised itself: normalise exp(ln_pi) "
         "before using it as a distribution)"},
        {"ln_pi_stderr", H5T_NATIVE_DOUBLE, 2, d2, t->ln_pi_stderr, "1",
         "standard error of ln_pi: the replicas' standard deviation over sqrt(replicas); NaN with one replica"},
        {"energy", H5T_NATIVE_DOUBLE, 2, d2, t->energy, plan->units.energy,
         "mean total potential energy at N (tail correction included; not per particle) over every chain's "
         "production trial moves that ended there; NaN where none did"},
        {"n_mean", H5T_NATIVE_DOUBLE, 1, dS, t->n_mean, "1",
         "<N> at the sampled ln z, from exp(ln_pi) normalised over n_min .. n_max"},
        {"density", H5T_NATIVE_DOUBLE, 1, dS, density, plan->units.density, "<N> / V at the sampled ln z"},
        {"missing_transitions", H5T_NATIVE_INT, 1, dS, t->missing, "1",
         "transitions N -> N + 1 without data in either direction in all chains' collection together (ln Pi is "
         "flat across them: 0 is a complete estimate)"},
        {"kind_lnz", H5T_NATIVE_DOUBLE, 1, dK, plan->kind_lnz, "1",
         "each kind's (a mixture's species, or a molecule type) ln z less the state point's lnz ([mixture] or "
         "[molecules] lnz; 0 for one kind): a kind's activity is exp(lnz + kind_lnz)"},
    };
    for (size_t r = 0; rc == MC_OK && r < sizeof rows / sizeof rows[0]; r++)
        rc = h5ds_write_whole(f, g, rows[r].name, rows[r].type, rows[r].rank, rows[r].dims, rows[r].data, rows[r].unit,
                              rows[r].description, err);
    const long windows = plan->tmmc_windows, bias = plan->tmmc_bias;
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(g, "volume", H5T_NATIVE_DOUBLE, &volume, err);
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(g, "windows", H5T_NATIVE_LONG, &windows, err);
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(g, "bias", H5T_NATIVE_LONG, &bias, err);
    free(macro), free(lnz), free(density);
    return h5ds_close_group(g, "/results/tmmc", rc, err);
}
