/* h5out_results: /results, what the run found: each state point's pooled estimates (the
 * observables' table, Widom's chemical potentials, the mass density), the pooled g(r) with its
 * pair names, and replica exchange's swap acceptances. */
#include "h5out_results.h"

#include "mc_exchange.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "mc_observable.h"

/* /results/NAME/{mean, stderr, n_independent, statistical_inefficiency, blocking_converged} from
 * estimates [S], or [S][m] when m > 0 (one per species or molecule type). scale multiplies mean
 * and stderr (unit conversion); the sample counts are as they are. */
static int write_estimates_per_kind(const h5ds *f, hid_t results, const char *name, const mc_estimate *est,
                                    int S, int m, double scale, const char *unit, const char *what,
                                    mc_err *err)
{
    hid_t g = h5ds_make_group(results, name);
    if (g < 0) MC_FAIL(err, MC_EHDF5, "cannot create /results/%s", name);
    size_t len = (size_t)S * (m > 0 ? m : 1);
    double *col = malloc(len * sizeof *col);
    int rc = col ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory");
    hsize_t dims[2] = {(hsize_t)S, (hsize_t)m};
    char desc[256];
    const struct {
        const char *name, *unit, *desc;
        size_t offset;
        double scale;
    } cols[] = {
        {"mean", unit, "%s: mean over samples and replicas", offsetof(mc_estimate, mean), scale},
        {"stderr", unit, "%s: standard error (replica spread, or blocking for one replica)",
         offsetof(mc_estimate, error), scale},
        {"n_independent", "1", "%s: independent samples behind the error bar",
         offsetof(mc_estimate, n_independent), 1.0},
        {"statistical_inefficiency", "1",
         "%s: samples per independent sample found by blocking (mean over replicas)",
         offsetof(mc_estimate, inefficiency), 1.0},
    };
    for (size_t c = 0; rc == MC_OK && c < sizeof cols / sizeof cols[0]; c++) {
        for (size_t s = 0; s < len; s++)
            col[s] = cols[c].scale * *(const double *)((const char *)&est[s] + cols[c].offset);
        snprintf(desc, sizeof desc, cols[c].desc, what);
        rc = h5ds_write_whole(f, g, cols[c].name, H5T_NATIVE_DOUBLE, m > 0 ? 2 : 1, dims, col,
                         cols[c].unit, desc, err);
    }
    int *flag = rc == MC_OK ? malloc(len * sizeof *flag) : NULL;
    if (rc == MC_OK && !flag) rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (rc == MC_OK) {
        for (size_t s = 0; s < len; s++) flag[s] = est[s].converged;
        snprintf(desc, sizeof desc,
                 "%s: 1 where blocking found a plateau with at least 4 blocks in every replica (the "
                 "error bar can be trusted), 0 where the run was too short for that", what);
        rc = h5ds_write_whole(f, g, "blocking_converged", H5T_NATIVE_INT, m > 0 ? 2 : 1, dims, flag, "1",
                         desc, err);
    }
    free(flag);
    free(col);
    return h5ds_close_group(g, name, rc, err);
}

static int write_estimates(const h5ds *f, hid_t results, const char *name, const mc_estimate *est,
                           int S, double scale, const char *unit, const char *what, mc_err *err)
{
    return write_estimates_per_kind(f, results, name, est, S, 0, scale, unit, what, err);
}

static int write_pair_names(const h5ds *f, hid_t rdf, const mc_plan *plan, mc_err *err)
{
    const mc_species *sp = &plan->species;
    char names[MC_MAX_PAIRS + 1][H5DS_NAME_LEN];
    for (int k = 0; k < sp->npairs; k++) mc_species_pair_name(sp, k, names[k], H5DS_NAME_LEN);
    if (plan->rigid) snprintf(names[sp->npairs], H5DS_NAME_LEN, "centres");
    return h5ds_write_names(f, rdf, "pairs", names, (hsize_t)mc_chain_rdf_rows(plan),
                       plan->rigid ? "species pair of each row of g and counts (intermolecular site pairs), "
                                     "then the molecular centres"
                                   : "species pair of each row of g and counts", err);
}

/* /results/exchange: the swap acceptance of every neighbouring pair, pooled over replicas, with
 * the settings as attributes. */
static int write_exchange_results(const h5ds *f, hid_t results, const mc_plan *plan, const mc_results *res, mc_err *err)
{
    hid_t g = h5ds_make_group(results, "exchange");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "cannot create /results/exchange");
    hsize_t d1[1] = {(hsize_t)plan->nstatepoints};
    long long every = plan->exchange_every;
    int rc = h5ds_set_scalar_attr(g, "exchange_every", H5T_NATIVE_LLONG, &every, err);
    if (rc == MC_OK)
        rc = h5ds_set_string_attr(g, "axis", mc_exchange_axis_name(plan), err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "acceptance", H5T_NATIVE_DOUBLE, 1, d1, res->exchange_acceptance, "1",
                               "per state point: accepted / attempted production swaps with the next state point up "
                               "its ladder (along the axis attribute), summed over replicas; NaN at the last rung",
                               err);
    return h5ds_close_group(g, "/results/exchange", rc, err);
}

int h5out_results_write(const h5ds *f, const mc_plan *plan, const mc_results *res, mc_err *err)
{
    hid_t g = h5ds_make_group(f->file, "results");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "cannot create /results");
    int S = plan->nstatepoints, rc;
    const mc_units *u = &plan->units;
    rc = MC_OK;
    for (int o = 0; rc == MC_OK && o < MC_NOBS; o++) { /* the table's pooled estimates */
        const mc_observable *ob = &mc_observables[o];
        if (res->obs[o])
            rc = write_estimates(f, g, ob->name, res->obs[o], S, mc_unit_factor(u, ob->unit),
                                       mc_unit_name(u, ob->unit), ob->pooled, err);
    }
    if (rc == MC_OK && plan->widom_insertions)
        rc = write_estimates_per_kind(f, g, plan->ensemble->boxes > 1 ? "chemical_potential" : "mu_excess", res->mu_excess, S,
                             plan->widom_kinds, 1.0, u->energy,
                             plan->ensemble->boxes > 1 ? "gibbs: chemical potential -kT ln <V/(N_a + 1) exp(-beta dU)> of each phase "
                                           "and species (columns: the liquid's species, then the vapour's) by test "
                                           "insertions into each box at each sample, thermal wavelength 1 length unit, "
                                           "tail term included, over the chains whose boxes separated"
                             : plan->rigid ? "excess chemical potential of each molecule type by Widom "
                                           "insertion (uniform orientations), tail term included when tails are on"
                                         : "excess chemical potential of each species by Widom insertion, tail "
                                           "term included when tails are on", err);
    if (rc == MC_OK && res->obs[MC_OBS_DENSITY]) /* the density again, in mass units */
        rc = write_estimates(f, g, "mass_density", res->obs[MC_OBS_DENSITY], S, u->mass_density_factor,
                                   u->mass_density, "mass density ([system] mass) (npt)", err);
    hid_t rdf = rc == MC_OK ? h5ds_make_group(g, "rdf") : H5I_INVALID_HID;
    if (rc == MC_OK && rdf < 0) rc = mc_err_set(err, MC_EHDF5, "cannot create /results/rdf");
    hsize_t P = (hsize_t)mc_chain_rdf_rows(plan);
    hsize_t db[1] = {(hsize_t)plan->rdf_bins}, dsb[3] = {(hsize_t)S, P, (hsize_t)plan->rdf_bins};
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, rdf, "r", H5T_NATIVE_DOUBLE, 1, db, res->rdf_r, u->length,
                         "bin centres", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, rdf, "g", H5T_NATIVE_DOUBLE, 3, dsb, res->rdf_g, "1",
                         "radial distribution function per state point and species pair (names in "
                         "pairs), pooled over replicas", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, rdf, "counts", H5T_NATIVE_UINT64, 3, dsb, res->rdf_counts, "1",
                         "pair counts per bin summed over samples and replicas", err);
    if (rc == MC_OK) rc = write_pair_names(f, rdf, plan, err);
    rc = h5ds_close_group(rdf, "/results/rdf", rc, err);
    if (rc == MC_OK && plan->exchange_every) rc = write_exchange_results(f, g, plan, res, err);
    return h5ds_close_group(g, "/results", rc, err);
}
