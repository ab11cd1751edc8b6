/* h5out: the output file's life (OUTPUT.part made or reopened, renamed on success) and its common
 * layout: /parameters, /statepoints, /species and /chains; /molecules and /results are
 * h5out_molecules.c's and h5out_results.c's. Small datasets are written by rank 0 with the other
 * ranks taking part with empty selections (a collective write needs everyone); per-chain rows by
 * their owners, each rank's chains being one contiguous block of rows. */
#include "h5out.h"

#include "ens.h"
#include "h5out_coulomb.h"
#include "h5out_molecules.h"
#include "h5out_results.h"
#include "h5out_tmmc.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The open output file: its writers' view (ds, whose part is this part) and its life on disk. */
struct h5out {
    h5ds ds;
    int overwrite;
    int keep; /* an unfinished file holds what a checkpoint refers to: a failed run leaves it */
    char *path, *part;
};

const h5ds *h5out_ds(const h5out *f) { return &f->ds; }

static h5out *h5out_alloc(MPI_Comm comm, const char *path, int overwrite, mc_err *err)
{
    h5out *f = calloc(1, sizeof *f);
    if (!f) return mc_err_set(err, MC_ENOMEM, "out of memory"), NULL;
    f->ds.comm = comm;
    f->overwrite = overwrite;
    f->ds.file = f->ds.dxpl = H5I_INVALID_HID;
    if (MPI_Comm_rank(comm, &f->ds.rank) != MPI_SUCCESS) {
        free(f);
        return mc_err_set(err, MC_EMPI, "MPI_Comm_rank failed"), NULL;
    }
    f->path = strdup(path);
    f->part = malloc(strlen(path) + 6);
    if (!f->path || !f->part) {
        h5out_close(f, H5OUT_DISCARD, NULL);
        return mc_err_set(err, MC_ENOMEM, "out of memory"), NULL;
    }
    sprintf(f->part, "%s.part", path);
    f->ds.part = f->part;
    return f;
}

/* Create (or open, to continue it) OUTPUT.part for collective writing; the same verdict on every
 * rank. */
static int open_part(h5out *f, int create, mc_err *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our messages replace HDF5's error stack dump */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* the HDF5 1.10 object formats: a group's links in its header and an extendible dataset's
     * chunks in an extensible array, not a B-tree and heap behind each, so that the trajectory's
     * groups and datasets per chain (traj.c) do not outweigh a small system's frames */
    if (fapl >= 0 && H5Pset_fapl_mpio(fapl, f->ds.comm, MPI_INFO_NULL) >= 0 &&
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110) >= 0)
        f->ds.file = create ? H5Fcreate(f->part, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(f->part, H5F_ACC_RDWR, fapl);
    int props_ok = fapl >= 0 && H5Pclose(fapl) >= 0;
    f->ds.dxpl = H5Pcreate(H5P_DATASET_XFER);
    props_ok = props_ok && f->ds.dxpl >= 0 && H5Pset_dxpl_mpio(f->ds.dxpl, H5FD_MPIO_COLLECTIVE) >= 0;
    int rc = f->ds.file >= 0 && props_ok ? MC_OK
             : create ? mc_err_set(err, MC_EHDF5, "%s: cannot create the output file (directory missing or not "
                                   "writable?)", f->part)
                      : mc_err_set(err, MC_EHDF5, "%s: cannot open it to continue the run (damaged?)", f->part);
    return ens_agree(f->ds.comm, rc, err);
}

h5out *h5out_create(MPI_Comm comm, const char *path, int overwrite, mc_err *err)
{
    h5out *f = h5out_alloc(comm, path, overwrite, err);
    int rc = f ? MC_OK : err->code;
    if (rc == MC_OK && f->ds.rank == 0 && !overwrite && access(path, F_OK) == 0)
        rc = mc_err_set(err, MC_EIO, "%s exists; refusing to overwrite it (set [run] overwrite = yes "
                        "or choose another file with -o)", path);
    if (ens_agree(comm, rc, err) != MC_OK || open_part(f, 1, err) != MC_OK) return h5out_close(f, H5OUT_DISCARD, NULL), NULL;
    return f;
}

/* Rank 0: OUTPUT.part from a copy of OUTPUT, flushed before it counts. */
static int copy_file(const char *from, const char *to, mc_err *err)
{
    int in = open(from, O_RDONLY), out = in >= 0 ? open(to, O_WRONLY | O_CREAT | O_EXCL, 0644) : -1;
    char buf[1 << 16];
    ssize_t got = 0;
    int rc = in >= 0 && out >= 0 ? MC_OK : mc_err_set(err, MC_EIO, "cannot copy %s to %s: %s", from, to, strerror(errno));
    while (rc == MC_OK && (got = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)got) != got) rc = mc_err_set(err, MC_EIO, "%s: cannot write the copy: %s", to, strerror(errno));
    if (rc == MC_OK && (got < 0 || fsync(out) != 0)) rc = mc_err_set(err, MC_EIO, "cannot copy %s to %s: %s", from, to, strerror(errno));
    if (in >= 0) close(in);
    if (out >= 0 && close(out) != 0 && rc == MC_OK) rc = mc_err_set(err, MC_EIO, "%s: %s", to, strerror(errno));
    if (rc != MC_OK && out >= 0) unlink(to);
    return rc;
}

static herr_t collect_name(hid_t g, const char *name, const H5L_info_t *info, void *names)
{
    (void)g, (void)info;
    char (*list)[32] = names;
    int k = 0;
    while (k < 15 && list[k][0]) k++;
    if (k < 15 && strlen(name) < sizeof list[0]) strcpy(list[k], name);
    return k < 15 ? 0 : -1;
}

/* Everything but the trajectory goes: the end of the run writes it again. */
static int drop_results(h5out *f, mc_err *err)
{
    char names[16][32];
    memset(names, 0, sizeof names);
    hsize_t at = 0;
    if (H5Literate(f->ds.file, H5_INDEX_NAME, H5_ITER_INC, &at, collect_name, names) < 0)
        MC_FAIL(err, MC_EHDF5, "%s: cannot list its groups (not an mcens output?)", f->part);
    for (int k = 0; k < 16 && names[k][0]; k++)
        if (strcmp(names[k], "h5md") != 0 && strcmp(names[k], "particles") != 0 && H5Ldelete(f->ds.file, names[k], H5P_DEFAULT) < 0)
            MC_FAIL(err, MC_EHDF5, "%s: cannot remove /%s to write it again", f->part, names[k]);
    return MC_OK;
}

h5out *h5out_reopen(MPI_Comm comm, const char *path, int overwrite, mc_err *err)
{
    h5out *f = h5out_alloc(comm, path, overwrite, err);
    int rc = f ? MC_OK : err->code;
    if (rc == MC_OK && f->ds.rank == 0 && access(f->part, F_OK) != 0) {
        if (access(path, F_OK) == 0) rc = copy_file(path, f->part, err);
        else rc = mc_err_set(err, MC_EIO, "%s: missing, and no finished %s: the trajectory that the checkpoint "
                             "continues is gone; start the run afresh (delete %s.ckpt)", f->part, path, path);
    }
    if (ens_agree(comm, rc, err) != MC_OK) return h5out_close(f, H5OUT_DISCARD, NULL), NULL;
    f->keep = 1; /* from here on it holds the frames the checkpoint counts */
    if (open_part(f, 0, err) != MC_OK || ens_agree(comm, drop_results(f, err), err) != MC_OK)
        return h5out_close(f, H5OUT_DISCARD, NULL), NULL;
    return f;
}

void h5out_keep(h5out *f) { f->keep = 1; }

static int write_parameters(const h5ds *f, const h5out_info *info, mc_err *err)
{
    size_t len = strlen(info->config_text);
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), dset = H5I_INVALID_HID;
    int ok = type >= 0 && space >= 0 && H5Tset_size(type, len + 1) >= 0 &&
             (dset = H5Dcreate2(f->file, "parameters", type, space, H5P_DEFAULT, H5P_DEFAULT,
                                H5P_DEFAULT)) >= 0;
    if (ok && f->rank != 0) ok = H5Sselect_none(space) >= 0;
    if (ok) ok = H5Dwrite(dset, type, space, space, f->dxpl, info->config_text) >= 0;
    /* agreed before the next collective call, so a write failing on rank 0 alone cannot hang */
    int rc = ens_agree(f->comm, ok ? MC_OK : mc_err_set(err, MC_EHDF5, "cannot write /parameters"), err);
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    /* every rank must pass the same attribute values: take rank 0's clock */
    if (MPI_Bcast(when, sizeof when, MPI_CHAR, 0, f->comm) != MPI_SUCCESS && rc == MC_OK)
        rc = mc_err_set(err, MC_EMPI, "MPI_Bcast of the creation time failed");
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "description", "the config file as given", err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "config_file", info->config_file, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "mcens_version", info->version, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "git_revision", info->git_revision, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "creation_time", when, err);
    long nranks = info->nranks;
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(dset, "nranks", H5T_NATIVE_LONG, &nranks, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "hosts", info->hosts, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "backend", info->backend, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "cpu_isa", info->cpu_isas, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "paths", info->paths, err);
    long gpu[2] = {info->gpu_sm_count, info->gpu_smem_per_block};
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(dset, "gpu_sm_count", H5T_NATIVE_LONG, &gpu[0], err);
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(dset, "gpu_smem_per_block", H5T_NATIVE_LONG, &gpu[1], err);
    if (rc == MC_OK)
        rc = h5ds_set_scalar_attr(dset, "run_seconds", H5T_NATIVE_DOUBLE, &info->run_seconds, err);
    if (rc == MC_OK)
        rc = h5ds_set_scalar_attr(dset, "moves_per_second", H5T_NATIVE_DOUBLE, &info->moves_per_second, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "units", info->units, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "segments", info->segments ? info->segments : "", err);
    int closed = (H5Dclose(dset) >= 0) & (H5Sclose(space) >= 0) & (H5Tclose(type) >= 0); /* all, always */
    if (!closed && rc == MC_OK) rc = mc_err_set(err, MC_EHDF5, "cannot close /parameters");
    return rc;
}

static int write_statepoints(const h5ds *f, const mc_plan *plan, mc_err *err)
{
    hid_t g = h5ds_make_group(f->file, "statepoints");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "cannot create /statepoints");
    int S = plan->nstatepoints, rc = MC_OK;
    double *col = malloc((size_t)S * sizeof *col);
    if (!col) rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    hsize_t dims[1] = {(hsize_t)S};
    if (rc == MC_OK) {
        for (int s = 0; s < S; s++) col[s] = plan->statepoint[s].temperature_given;
        rc = h5ds_write_whole(f, g, "temperature", H5T_NATIVE_DOUBLE, 1, dims, col,
                         plan->units.temperature, "temperature of each state point", err);
    }
    const int open = plan->ensemble->open; /* gcmc: ln z is the axis, the density an outcome (/results/tmmc) */
    if (rc == MC_OK && open) {
        for (int s = 0; s < S; s++) col[s] = plan->statepoint[s].lnz;
        rc = h5ds_write_whole(f, g, "lnz", H5T_NATIVE_DOUBLE, 1, dims, col, "1",
                              "gcmc: ln z of each state point, z the activity in the length unit^-3", err);
    }
    if (rc == MC_OK && !open) {
        for (int s = 0; s < S; s++) col[s] = plan->statepoint[s].density;
        rc = h5ds_write_whole(f, g, "density", H5T_NATIVE_DOUBLE, 1, dims, col, plan->units.density,
                         plan->ensemble->imposed_pressure ? "starting number density N/V of each state point (npt)"
                                   : "number density N/V of each state point", err);
    }
    if (rc == MC_OK && plan->ensemble->imposed_pressure) {
        for (int s = 0; s < S; s++) col[s] = plan->statepoint[s].pressure_given;
        rc = h5ds_write_whole(f, g, "pressure", H5T_NATIVE_DOUBLE, 1, dims, col, plan->units.pressure,
                         "imposed pressure of each state point (npt)", err);
    }
    if (rc == MC_OK && !open) {
        for (int s = 0; s < S; s++)
            col[s] = plan->statepoint[s].density * plan->units.mass_density_factor;
        rc = h5ds_write_whole(f, g, "mass_density", H5T_NATIVE_DOUBLE, 1, dims, col,
                         plan->units.mass_density, "mass density of each state point ([system] mass)", err);
    }
    if (rc == MC_OK) {
        for (int s = 0; s < S; s++) col[s] = plan->statepoint[s].box_len;
        rc = h5ds_write_whole(f, g, "box_length", H5T_NATIVE_DOUBLE, 1, dims, col, plan->units.length,
                         "cubic box edge of each state point", err);
    }
    free(col);
    return h5ds_close_group(g, "/statepoints", rc, err);
}

/* This rank's rows of the per-chain series, packed [nlocal][nsamples], its Widom records and
 * its chains' own g(r) (for the spread over replicas). The configurations are the trajectory's
 * (traj.c), whose last frame is the end of the run. */
/* Gibbs: where the final frame's particles are (/particles holds their positions, each in its own
 * box) and the two boxes' edges. */
static int write_gibbs_boxes(const h5ds *f, hid_t g, const mc_plan *plan, const mc_run *run, int first_chain, mc_err *err)
{
    int nl = mc_run_nchains(run);
    size_t n = (size_t)plan->n;
    int *box = malloc((size_t)nl * n * sizeof *box);
    double *len = malloc(2 * (size_t)nl * sizeof *len);
    int rc = box && len ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory");
    for (int k = 0; rc == MC_OK && k < nl; k++) {
        const mc_chain *c = mc_run_chain(run, k);
        for (size_t i = 0; i < n; i++) box[k * n + i] = (int)c->in_box[i];
        len[2 * k] = c->gibbs_box_len[0], len[2 * k + 1] = c->gibbs_box_len[1];
    }
    hsize_t C = (hsize_t)plan->nchains, r0 = (hsize_t)first_chain, rows = (hsize_t)nl;
    hsize_t db[2] = {C, (hsize_t)n}, dl[2] = {C, 2};
    if (rc == MC_OK)
        rc = h5ds_write_rows(f, g, "box", H5T_NATIVE_INT, 2, db, r0, rows, box, "1",
                              "gibbs: the box (0 or 1) of each particle in the final frame of /particles", err);
    if (rc == MC_OK)
        rc = h5ds_write_rows(f, g, "box_length", H5T_NATIVE_DOUBLE, 2, dl, r0, rows, len, plan->units.length,
                              "gibbs: the edges of box 0 and box 1 at the final frame", err);
    free(box), free(len);
    return rc;
}

static int write_chain_series(const h5ds *f, hid_t g, const mc_plan *plan, const mc_run *run,
                              int first_chain, mc_err *err)
{
    int nl = mc_run_nchains(run);
    size_t ns = (size_t)plan->nsamples, P = (size_t)mc_chain_rdf_rows(plan), B = (size_t)plan->rdf_bins;
    double *series = malloc((size_t)nl * ns * sizeof *series); /* one observable's rows at a time */
    double *rdf = malloc((size_t)nl * P * B * sizeof *rdf);
    size_t M = (size_t)plan->widom_kinds;
    double *w = plan->widom_insertions ? malloc((size_t)nl * M * ns * sizeof *w) : NULL;
    int *sp = malloc((size_t)nl * sizeof *sp), *rep = malloc((size_t)nl * sizeof *rep);
    int rc = series && rdf && sp && rep && (w || !plan->widom_insertions)
                 ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory");
    for (int k = 0; rc == MC_OK && k < nl; k++) {
        const mc_chain *c = mc_run_chain(run, k);
        if (w) memcpy(w + k * M * ns, c->widom, M * ns * sizeof *w);
        for (size_t q = 0; q < P; q++) mc_results_rdf_g(plan, c->rdf_counts + q * B, c->rdf_norm[q], rdf + (k * P + q) * B);
        sp[k] = c->statepoint;
        rep[k] = c->id % plan->replicas;
    }
    hsize_t C = (hsize_t)plan->nchains, r0 = (hsize_t)first_chain, n = (hsize_t)nl;
    hsize_t d1[1] = {C}, d2[2] = {C, ns}, dr[3] = {C, P, B}, dw[3] = {C, M, ns};
    if (rc == MC_OK)
        rc = h5ds_write_rows(f, g, "statepoint", H5T_NATIVE_INT, 1, d1, r0, n, sp, "1",
                        "index into /statepoints of each chain", err);
    if (rc == MC_OK)
        rc = h5ds_write_rows(f, g, "replica", H5T_NATIVE_INT, 1, d1, r0, n, rep, "1",
                        "replica number of each chain within its state point", err);
    for (int o = 0; rc == MC_OK && o < MC_NOBS; o++) { /* the table's series, in output units */
        const mc_observable *ob = &mc_observables[o];
        if (ob->kind != MC_OBS_SERIES || !mc_observable_applies(plan, o)) continue;
        double factor = mc_unit_factor(&plan->units, ob->unit);
        for (int k = 0; k < nl; k++)
            for (size_t i = 0; i < ns; i++) series[k * ns + i] = mc_run_chain(run, k)->series[o][i] * factor;
        rc = h5ds_write_rows(f, g, ob->name, H5T_NATIVE_DOUBLE, 2, d2, r0, n, series,
                              mc_unit_name(&plan->units, ob->unit), ob->per_chain, err);
    }
    if (rc == MC_OK)
        rc = h5ds_write_rows(f, g, "rdf_g", H5T_NATIVE_DOUBLE, 3, dr, r0, n, rdf, "1",
                              "each chain's own g(r), rows and bins as /results/rdf/g (their spread over replicas "
                              "is the error of the pooled one)", err);
    if (rc == MC_OK && plan->ensemble->boxes > 1) rc = write_gibbs_boxes(f, g, plan, run, first_chain, err);
    int *walker = plan->exchange_every ? malloc((size_t)nl * ns * sizeof *walker) : NULL;
    if (rc == MC_OK && plan->exchange_every && !walker) rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (rc == MC_OK && walker) {
        for (int k = 0; k < nl; k++)
            for (size_t i = 0; i < ns; i++) walker[k * ns + i] = (int)mc_run_chain(run, k)->walker_at[i];
        rc = h5ds_write_rows(f, g, "walker", H5T_NATIVE_INT, 2, d2, r0, n, walker, "1",
                              "replica exchange: the walker (the chain whose start the configuration was) each chain "
                              "held at each sample; /chains/state is its inverse", err);
    }
    free(walker);
    if (rc == MC_OK && w)
        rc = h5ds_write_rows(f, g, "widom_boltzmann", H5T_NATIVE_DOUBLE, 3, dw, r0, n, w, "1",
                        plan->rigid ? "mean exp(-beta dU) of each sample's test molecules of each type (/molecules order)"
                                    : "mean exp(-beta dU) of each sample's test particles of each species", err);
    free(series), free(rdf), free(sp), free(rep), free(w);
    return rc;
}

/* Where each chain's series became stationary and how far they drifted (mc_equilibration):
 * NAME_equilibration and NAME_drift per series, and equilibration_sample, the latest start of a
 * chain's series. */
static int write_equilibration(const h5ds *f, hid_t g, const mc_plan *plan, const mc_results *res, mc_err *err)
{
    hsize_t d1[1] = {(hsize_t)plan->nchains};
    long long *start = malloc((size_t)plan->nchains * sizeof *start), *latest = calloc((size_t)plan->nchains, sizeof *latest);
    double *drift = malloc((size_t)plan->nchains * sizeof *drift);
    int rc = start && latest && drift ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory");
    char name[96], what[320];
    for (int o = 0; rc == MC_OK && o < MC_NOBS; o++) {
        const mc_equilibration *e = res->chain_equilibration[o];
        if (!e) continue;
        for (int k = 0; k < plan->nchains; k++) {
            start[k] = e[k].start, drift[k] = e[k].drift_sigmas;
            if (start[k] > latest[k]) latest[k] = start[k];
        }
        snprintf(name, sizeof name, "%s_equilibration", mc_observables[o].name);
        snprintf(what, sizeof what, "first production sample of the stationary part of /chains/%s (Chodera 2016: the "
                 "start that maximises the effective sample count)", mc_observables[o].name);
        rc = h5ds_write_whole(f, g, name, H5T_NATIVE_LLONG, 1, d1, start, "1", what, err);
        snprintf(name, sizeof name, "%s_drift", mc_observables[o].name);
        snprintf(what, sizeof what, "mean of the last third of /chains/%s minus that of the first, in combined standard "
                 "errors (NaN below %d samples: not tested)", mc_observables[o].name, MC_EQUILIBRATION_MIN_SAMPLES);
        if (rc == MC_OK) rc = h5ds_write_whole(f, g, name, H5T_NATIVE_DOUBLE, 1, d1, drift, "1", what, err);
    }
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "equilibration_sample", H5T_NATIVE_LLONG, 1, d1, latest, "1",
                               "the latest NAME_equilibration of each chain: samples before it were still relaxing", err);
    free(start), free(latest), free(drift);
    return rc;
}

/* Replica exchange: each chain's swaps with the next rung up, and each walker's path and ladder
 * traversals (mc_exchange.h). */
static int write_exchange_chains(const h5ds *f, hid_t g, const mc_plan *plan, const mc_results *res, mc_err *err)
{
    size_t C = (size_t)plan->nchains;
    hsize_t d1[1] = {C}, d2[2] = {C, (hsize_t)plan->nsamples};
    double *v = malloc(C * sizeof *v);
    if (!v) MC_FAIL(err, MC_ENOMEM, "out of memory");
    for (size_t c = 0; c < C; c++)
        v[c] = res->exchange_attempts[c] ? (double)res->exchange_accepted[c] / (double)res->exchange_attempts[c] : NAN;
    int rc = h5ds_write_whole(f, g, "exchange_acceptance", H5T_NATIVE_DOUBLE, 1, d1, v, "1",
                               "replica exchange: accepted / attempted swaps of the chain with the next rung up its "
                               "ladder in production (NaN at the last rung)", err);
    for (size_t c = 0; c < C; c++) v[c] = 0.5 * (double)res->walker_traversals[c];
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "round_trips", H5T_NATIVE_DOUBLE, 1, d1, v, "1",
                               "replica exchange, row w: walker w's passes from one end of its ladder to the other, "
                               "halved (a round trip is two), over the whole run", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "state", H5T_NATIVE_INT, 2, d2, res->walker_state, "1",
                               "replica exchange, row w: the state point (index into /statepoints) walker w held at "
                               "each sample: its path through the ladder", err);
    free(v);
    return rc;
}

static int write_chains(const h5ds *f, const mc_plan *plan, const mc_run *run, int first_chain,
                        const mc_results *res, mc_err *err)
{
    hid_t g = h5ds_make_group(f->file, "chains");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "cannot create /chains");
    int rc = write_chain_series(f, g, plan, run, first_chain, err);
    hsize_t d1[1] = {(hsize_t)plan->nchains};
    double *value = malloc((size_t)plan->nchains * sizeof *value);
    if (rc == MC_OK && !value) rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    for (int o = 0; rc == MC_OK && o < MC_NOBS; o++) { /* the table's per-chain values, every chain */
        const mc_observable *ob = &mc_observables[o];
        if (ob->kind != MC_OBS_PER_CHAIN || !res->chain_obs[o]) continue;
        for (int k = 0; k < plan->nchains; k++) value[k] = res->chain_obs[o][k].mean * mc_unit_factor(&plan->units, ob->unit);
        rc = h5ds_write_whole(f, g, ob->name, H5T_NATIVE_DOUBLE, 1, d1, value, mc_unit_name(&plan->units, ob->unit),
                               ob->per_chain, err);
    }
    free(value);
    if (rc == MC_OK) rc = write_equilibration(f, g, plan, res, err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "max_displacement", H5T_NATIVE_DOUBLE, 1, d1,
                         res->chain_max_displacement, plan->units.length,
                         "maximum displacement per axis in production (adapted in equilibration)",
                         err);
    if (rc == MC_OK && plan->rigid) rc = h5out_molecules_chains(f, g, plan, res, err);
    if (rc == MC_OK && plan->exchange_every) rc = write_exchange_chains(f, g, plan, res, err);
    if (rc == MC_OK && plan->ensemble->imposed_pressure)
        rc = h5ds_write_whole(f, g, "max_volume_step", H5T_NATIVE_DOUBLE, 1, d1,
                         res->chain_max_volume_step, "1",
                         "maximum |ln V' - ln V| of a volume move in production (npt)", err);
    return h5ds_close_group(g, "/chains", rc, err);
}

/* A symmetric [n][n] table of the species pairs, row-major. */
static void pair_table(const mc_species *sp, const double t[MC_MAX_SPECIES][MC_MAX_SPECIES], double *out)
{
    for (int a = 0; a < sp->n; a++)
        for (int b = 0; b < sp->n; b++) out[a * sp->n + b] = t[a][b];
}

/* /species: names, counts, masses, and the pair constants after mixing (LJ sigma and epsilon;
 * Morse epsilon, alpha, r0 and the zero crossing in pair_sigma). */
static int write_species(const h5ds *f, const mc_plan *plan, mc_err *err)
{
    const mc_species *sp = &plan->species;
    hid_t g = h5ds_make_group(f->file, "species");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "cannot create /species");
    char names[MC_MAX_SPECIES][H5DS_NAME_LEN];
    for (int a = 0; a < sp->n; a++) snprintf(names[a], H5DS_NAME_LEN, "%s", sp->name[a]);
    double table[MC_MAX_SPECIES * MC_MAX_SPECIES];
    hsize_t d1[1] = {(hsize_t)sp->n}, d2[2] = {(hsize_t)sp->n, (hsize_t)sp->n};
    const mc_units *u = &plan->units;
    int rc = h5ds_write_names(f, g, "name", names, d1[0], "species names (all: a pure fluid)", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "count", H5T_NATIVE_INT, 1, d1, sp->count, "1",
                               "particles of each species per chain", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "mass", H5T_NATIVE_DOUBLE, 1, d1, sp->mass, u->real ? "g/mol" : "mass",
                               "particle mass of each species", err);
    pair_table(sp, sp->pair_sigma, table);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "pair_sigma", H5T_NATIVE_DOUBLE, 2, d2, table, u->length,
                               sp->morse ? "Morse zero crossing r0 - ln 2 / alpha of each species pair"
                                         : "LJ sigma of each species pair (Lorentz rule or override)", err);
    pair_table(sp, sp->pair_epsilon, table);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "pair_epsilon", H5T_NATIVE_DOUBLE, 2, d2, table, u->energy,
                               sp->morse ? "Morse well depth of each species pair (Berthelot rule or override)"
                                         : "LJ epsilon of each species pair (Berthelot rule or override)", err);
    pair_table(sp, sp->pair_morse_alpha, table);
    if (rc == MC_OK && sp->morse)
        rc = h5ds_write_whole(f, g, "pair_morse_alpha", H5T_NATIVE_DOUBLE, 2, d2, table,
                               u->real ? "1/nm" : "1/sigma",
                               "Morse width alpha of each species pair (arithmetic mean or override)", err);
    pair_table(sp, sp->pair_morse_r0, table);
    if (rc == MC_OK && sp->morse)
        rc = h5ds_write_whole(f, g, "pair_morse_r0", H5T_NATIVE_DOUBLE, 2, d2, table, u->length,
                               "Morse minimum r0 of each species pair (arithmetic mean or override)", err);
    return h5ds_close_group(g, "/species", rc, err);
}

int h5out_write(h5out *f, const h5out_info *info, const mc_plan *plan, const mc_run *run,
                int first_chain, const mc_results *res, mc_err *err)
{
    const h5ds *ds = &f->ds;
    int rc = write_parameters(ds, info, err);
    if (rc == MC_OK) rc = h5out_coulomb_write(ds, plan, err);
    if (rc == MC_OK) rc = write_statepoints(ds, plan, err);
    if (rc == MC_OK) rc = write_species(ds, plan, err);
    if (rc == MC_OK && plan->rigid) rc = h5out_molecules_tables(ds, plan, err);
    if (rc == MC_OK) rc = write_chains(ds, plan, run, first_chain, res, err);
    if (rc == MC_OK) rc = h5out_results_write(ds, plan, res, err);
    if (rc == MC_OK && res->tmmc) rc = h5out_tmmc_chains(ds, plan, run, first_chain, res, err);
    if (rc == MC_OK && res->tmmc) rc = h5out_tmmc_results(ds, plan, res, err);
    return ens_agree(ds->comm, rc, err);
}

/* The file's bytes on disk before the rename makes it the one of record: a crash just after the
 * rename must not leave a name pointing at data still in the page cache. */
static int sync_to_disk(const char *path, mc_err *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        MC_FAIL(err, MC_EIO, "%s: cannot flush it to disk: %s", path, strerror(e));
    }
    close(fd);
    return MC_OK;
}

/* Rank 0: an unfinished file goes unless a checkpoint counts its frames. */
static void remove_unkept(const h5out *f)
{
    if (f->ds.rank == 0 && f->ds.file >= 0 && !f->keep) unlink(f->part);
}

static void h5out_free(h5out *f)
{
    free(f->path);
    free(f->part);
    free(f);
}

int h5out_close(h5out *f, enum h5out_end end, mc_err *err)
{
    if (!f) return MC_OK;
    if (end == H5OUT_ABANDON) { /* the ids stay open: HDF5 is not to be called on this file again */
        remove_unkept(f);
        h5out_free(f);
        return MC_EHALT;
    }
    int rc = MC_OK;
    if (f->ds.dxpl >= 0 && H5Pclose(f->ds.dxpl) < 0)
        rc = mc_err_set(err, MC_EHDF5, "%s: closing the transfer property list failed", f->part);
    int closed = f->ds.file < 0 || H5Fclose(f->ds.file) >= 0;
    if (!closed) rc = mc_err_set(err, MC_EHDF5, "%s: closing the file failed (disk full?)", f->part);
    /* a file whose close failed on any rank stays in HDF5's tables, and H5close crashes on it */
    int failed_close = !closed;
    if (MPI_Allreduce(MPI_IN_PLACE, &failed_close, 1, MPI_INT, MPI_MAX, f->ds.comm) != MPI_SUCCESS)
        rc = mc_err_set(err, MC_EMPI, "MPI_Allreduce failed closing %s", f->part);
    rc = ens_agree(f->ds.comm, rc, err);
    if (f->ds.rank == 0 && f->ds.file >= 0) {
        if (rc == MC_OK && end == H5OUT_COMMIT) rc = sync_to_disk(f->part, err);
        if (rc == MC_OK && end == H5OUT_COMMIT) {
            /* RENAME_NOREPLACE: a file that appeared at OUTPUT during the run is not clobbered */
            unsigned flags = f->overwrite ? 0 : RENAME_NOREPLACE;
            if (renameat2(AT_FDCWD, f->part, AT_FDCWD, f->path, flags) != 0)
                rc = mc_err_set(err, MC_EIO, "cannot rename %s to %s: %s (results left in %s)",
                                f->part, f->path, strerror(errno), f->part);
        } else if (rc != MC_OK || end != H5OUT_COMMIT) {
            remove_unkept(f);
        }
    }
    if (end == H5OUT_COMMIT) rc = ens_agree(f->ds.comm, rc, err);
    h5out_free(f);
    return failed_close ? MC_EHALT : rc;
}

void h5out_library_close(void) { H5close(); }
