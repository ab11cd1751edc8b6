/* traj: H5MD particles groups written frame by frame, and the observables' time series.
 *
 * Layout (H5MD 1.1; the README's "Trajectories" section is the user's view of it):
 *   /h5md                      version {1, 1}; author/name; creator/name, creator/version
 *   /particles/chain_NNNNNN    attributes statepoint, replica
 *     position/{step, time, value [F][N][3]}
 *     box                      dimension 3, boundary periodic (or none for an open cluster)
 *     box/edges/{step, time, value [F][3][3]} periodic only: the box vectors (diagonal), time-
 *                                            dependent even at fixed volume; MDAnalysis reads this
 *                                            form (and no other) at every frame
 *     species [N]              index into /species/name
 *     molecule [N], centre/{...[F][M][3]}, orientation/{...[F][M][4]}   rigid molecules only
 *     id/{step, time, value [F][N]}   gcmc only: each slot's index where its particle (site) is
 *                                     present in the frame, -1 where absent (H5MD's id element for a
 *                                     varying N); an absent slot's position (and its molecule's
 *                                     centre and orientation) is NaN
 *   /observables/<series>/{step, time, value [samples][chains]}
 * step and time are the sweep count; the frames of all chains share them, so chain 0 holds the
 * datasets (and species, molecule) and every other element hard-links them, as H5MD allows.
 *
 * Creating the groups is collective metadata, done alike by every rank; the frames are written
 * by each chain's owner with independent I/O into chunks allocated when the dataset was made
 * (parallel HDF5 needs that allocation collective, and it keeps a frame write free of metadata). */
#include "traj.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ens.h"
#include "h5ds.h"
#include "mc_gibbs.h"
#include "mc_observable.h"
#include "mc_snapshot.h"

enum { TRAJ_NAME_LEN = 32 };

struct traj {
    const h5ds *f; /* the output file (h5out_ds) */
    const mc_plan *plan;
    int first_chain, nlocal;
    long nframes;
    hid_t dxpl_independent;
    /* [nlocal] the open value datasets of this rank's chains (edges: periodic; centre and
       orientation: rigid; id: gcmc; H5I_INVALID_HID where absent) */
    hid_t *position, *edges, *centre, *orientation, *id;
    double *buf; /* one chain's frame of one element */
    int *ids;    /* one chain's frame of id */
};

static void chain_group_name(int chain, char *name, size_t len) { snprintf(name, len, "chain_%06d", chain); }

/* H5MD's units module takes SI-like unit strings ("nm"), which readers such as MDAnalysis parse
 * and refuse when unknown: reduced lengths (sigma) and the sweep count get no unit attribute, only
 * a description. */
static int set_h5md_unit(hid_t value, const mc_plan *p, const char *description, mc_err *err)
{
    if (p->units.real) MC_TRY(h5ds_set_string_attr(value, "unit", p->units.length, err));
    return h5ds_set_string_attr(value, "description", description, err);
}

void traj_close(traj *t)
{
    if (!t) return;
    for (int k = 0; k < t->nlocal; k++) {
        hid_t *sets[] = {t->position, t->edges, t->centre, t->orientation, t->id};
        for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
            if (sets[s] && sets[s][k] >= 0) H5Dclose(sets[s][k]);
    }
    if (t->dxpl_independent >= 0) H5Pclose(t->dxpl_independent);
    free(t->position), free(t->edges), free(t->centre), free(t->orientation), free(t->id), free(t->buf), free(t->ids);
    free(t);
}

static traj *traj_alloc(const h5ds *f, const mc_plan *plan, const mc_run *run, int first_chain, mc_err *err)
{
    traj *t = calloc(1, sizeof *t);
    if (!t) return mc_err_set(err, MC_ENOMEM, "out of memory"), NULL;
    t->f = f, t->plan = plan, t->first_chain = first_chain, t->nlocal = mc_run_nchains(run);
    t->nframes = mc_snapshot_frames(plan);
    t->dxpl_independent = H5Pcreate(H5P_DATASET_XFER);
    size_t nl = (size_t)t->nlocal, per_chain = (size_t)plan->n * 3 > (size_t)plan->nmol * 4 ? (size_t)plan->n * 3
                                                                                            : (size_t)plan->nmol * 4;
    t->position = malloc(nl * sizeof *t->position), t->edges = malloc(nl * sizeof *t->edges);
    t->centre = malloc(nl * sizeof *t->centre), t->orientation = malloc(nl * sizeof *t->orientation);
    t->id = malloc(nl * sizeof *t->id);
    t->buf = malloc(per_chain * sizeof *t->buf), t->ids = malloc((size_t)plan->n * sizeof *t->ids);
    if (!t->position || !t->edges || !t->centre || !t->orientation || !t->id || !t->buf || !t->ids) {
        t->nlocal = 0;
        traj_close(t);
        return mc_err_set(err, MC_ENOMEM, "out of memory for the trajectory"), NULL;
    }
    for (size_t k = 0; k < nl; k++)
        t->position[k] = t->edges[k] = t->centre[k] = t->orientation[k] = t->id[k] = H5I_INVALID_HID;
    if (t->dxpl_independent < 0 || H5Pset_dxpl_mpio(t->dxpl_independent, H5FD_MPIO_INDEPENDENT) < 0) {
        traj_close(t);
        return mc_err_set(err, MC_EHDF5, "cannot make a transfer property list"), NULL;
    }
    return t;
}

/* A time-dependent value (or step, time): chunked along the frames, extendible (--extend), its
 * chunks allocated now and never filled (the frames overwrite them). */
static hid_t make_series(hid_t loc, const char *name, hid_t type, int ndims, const hsize_t *dims, hsize_t frames_per_chunk)
{
    hsize_t maxdims[3] = {H5S_UNLIMITED, ndims > 1 ? dims[1] : 0, ndims > 2 ? dims[2] : 0};
    hsize_t chunk[3] = {frames_per_chunk, maxdims[1], maxdims[2]};
    hid_t space = H5Screate_simple(ndims, dims, maxdims), dcpl = H5Pcreate(H5P_DATASET_CREATE), d = H5I_INVALID_HID;
    if (space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, ndims, chunk) >= 0 &&
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0)
        d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Sclose(space), H5Pclose(dcpl);
    return d;
}

/* Rank 0 writes a whole dataset (or rows [row0, row0 + rows) of it); the others join the
 * collective write with nothing. The ranks agree on the outcome. */
static int write_rows_by_rank0(traj *t, hid_t d, hid_t memtype, hsize_t row0, hsize_t rows, const void *data,
                               const char *what, mc_err *err)
{
    hid_t fspace = H5Dget_space(d);
    hsize_t dims[3] = {0, 1, 1};
    int ndims = fspace >= 0 ? H5Sget_simple_extent_dims(fspace, dims, NULL) : -1;
    hsize_t start[3] = {row0, 0, 0}, count[3] = {rows, dims[1], dims[2]};
    hid_t mspace = ndims > 0 ? H5Screate_simple(ndims, count, NULL) : H5I_INVALID_HID;
    int ok = mspace >= 0;
    if (ok && t->f->rank == 0) ok = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0;
    if (ok && t->f->rank != 0) ok = H5Sselect_none(fspace) >= 0 && H5Sselect_none(mspace) >= 0;
    if (ok) ok = H5Dwrite(d, memtype, mspace, fspace, t->f->dxpl, data) >= 0;
    H5Sclose(mspace), H5Sclose(fspace);
    return ens_agree(t->f->comm, ok ? MC_OK : mc_err_set(err, MC_EHDF5, "%s: cannot write %s", t->f->part, what), err);
}

/* The shared step and time of every frame: the sweep count. */
static int write_steps(traj *t, hid_t step, hid_t time, mc_err *err)
{
    long F = t->nframes;
    long long *steps = malloc((size_t)F * sizeof *steps);
    double *times = malloc((size_t)F * sizeof *times);
    int rc = steps && times ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory");
    for (long j = 0; rc == MC_OK && j < F; j++) times[j] = (double)(steps[j] = mc_snapshot_sweep_at(t->plan, j));
    if (rc == MC_OK) rc = write_rows_by_rank0(t, step, H5T_NATIVE_LLONG, 0, (hsize_t)F, steps, "/particles step", err);
    if (rc == MC_OK) rc = write_rows_by_rank0(t, time, H5T_NATIVE_DOUBLE, 0, (hsize_t)F, times, "/particles time", err);
    free(steps), free(times);
    return rc;
}

static int set_int_attr(hid_t obj, const char *name, int value, mc_err *err)
{
    return h5ds_set_scalar_attr(obj, name, H5T_NATIVE_INT, &value, err);
}

/* /h5md: the version, and who and what wrote the file. */
static int write_h5md_group(traj *t, const char *author, const char *version, mc_err *err)
{
    hid_t h5md = h5ds_make_group(t->f->file, "h5md");
    hid_t who = h5md >= 0 ? h5ds_make_group(h5md, "author") : H5I_INVALID_HID;
    hid_t what = h5md >= 0 ? h5ds_make_group(h5md, "creator") : H5I_INVALID_HID;
    int rc = who >= 0 && what >= 0 ? MC_OK : mc_err_set(err, MC_EHDF5, "%s: cannot create /h5md", t->f->part);
    hsize_t two = 2;
    int v[2] = {1, 1};
    hid_t space = H5Screate_simple(1, &two, NULL), attr = H5I_INVALID_HID;
    if (rc == MC_OK && (space < 0 || (attr = H5Acreate2(h5md, "version", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
                        H5Awrite(attr, H5T_NATIVE_INT, v) < 0))
        rc = mc_err_set(err, MC_EHDF5, "%s: cannot write /h5md version", t->f->part);
    if (attr >= 0) H5Aclose(attr);
    if (space >= 0) H5Sclose(space);
    if (rc == MC_OK) rc = h5ds_set_string_attr(who, "name", author, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(what, "name", "mcens", err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(what, "version", version, err);
    rc = h5ds_close_group(what, "/h5md/creator", rc, err);
    rc = h5ds_close_group(who, "/h5md/author", rc, err);
    return h5ds_close_group(h5md, "/h5md", rc, err);
}

/* box: dimension 3 and the boundary of each axis, as H5MD's string array. */
static int write_box_attrs(hid_t box, int periodic, mc_err *err)
{
    char boundary[3][9];
    for (int a = 0; a < 3; a++) snprintf(boundary[a], sizeof boundary[a], "%s", periodic ? "periodic" : "none");
    hsize_t three = 3;
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate_simple(1, &three, NULL), attr = H5I_INVALID_HID;
    int ok = type >= 0 && space >= 0 && H5Tset_size(type, sizeof boundary[0]) >= 0 &&
             (attr = H5Acreate2(box, "boundary", type, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
             H5Awrite(attr, type, boundary) >= 0;
    if (attr >= 0) H5Aclose(attr);
    H5Sclose(space), H5Tclose(type);
    if (!ok) MC_FAIL(err, MC_EHDF5, "cannot write the box boundary attribute");
    return set_int_attr(box, "dimension", 3, err);
}

/* One time-dependent element of chain `g`: a group with step and time linked to chain 0's and
 * its own value dataset; returns the value dataset (negative on failure). */
static hid_t make_element(hid_t g, const char *name, hid_t type, hid_t chain0, const hsize_t *dims, int ndims,
                          hsize_t frames_per_chunk, const mc_plan *p, const char *description)
{
    hid_t e = h5ds_make_group(g, name), v = H5I_INVALID_HID;
    if (e < 0) return H5I_INVALID_HID;
    mc_err ignored;
    if (H5Lcreate_hard(chain0, "position/step", e, "step", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
        H5Lcreate_hard(chain0, "position/time", e, "time", H5P_DEFAULT, H5P_DEFAULT) >= 0)
        v = make_series(e, "value", type, ndims, dims, frames_per_chunk);
    if (v >= 0 && (p ? set_h5md_unit(v, p, description, &ignored) : h5ds_set_string_attr(v, "description", description, &ignored)) != MC_OK) {
        H5Dclose(v);
        v = H5I_INVALID_HID;
    }
    H5Gclose(e);
    return v;
}

/* Chain 0's shared datasets: position/step and time, species and (molecules) molecule. */
static int make_shared(traj *t, hid_t chain0, mc_err *err)
{
    const mc_plan *p = t->plan;
    hsize_t F = (hsize_t)t->nframes, chunk = F < 1024 ? F : 1024, n = (hsize_t)p->n;
    hid_t pos = h5ds_make_group(chain0, "position");
    hid_t step = pos >= 0 ? make_series(pos, "step", H5T_STD_I64LE, 1, &F, chunk) : H5I_INVALID_HID;
    hid_t time = pos >= 0 ? make_series(pos, "time", H5T_IEEE_F64LE, 1, &F, chunk) : H5I_INVALID_HID;
    hid_t nspace = H5Screate_simple(1, &n, NULL);
    hid_t species = H5Dcreate2(chain0, "species", H5T_STD_I32LE, nspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t molecule = p->rigid ? H5Dcreate2(chain0, "molecule", H5T_STD_I32LE, nspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                              : H5I_INVALID_HID;
    int rc = step >= 0 && time >= 0 && species >= 0 && (molecule >= 0 || !p->rigid)
                 ? MC_OK : mc_err_set(err, MC_EHDF5, "%s: cannot create /particles/chain_000000", t->f->part);
    if (rc == MC_OK) rc = h5ds_set_string_attr(time, "description", "sweep count (equilibration included) of each frame", err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(step, "description", "sweep count (equilibration included) of each frame", err);
    if (rc == MC_OK) rc = write_steps(t, step, time, err);
    int *index = rc == MC_OK ? malloc((size_t)p->n * sizeof *index) : NULL;
    if (rc == MC_OK && !index) rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (rc == MC_OK) {
        for (int i = 0; i < p->n; i++) index[i] = p->rigid ? p->mol.site_species[i] : mc_species_of(&p->species, i);
        rc = write_rows_by_rank0(t, species, H5T_NATIVE_INT, 0, n, index, "/particles species", err);
    }
    if (rc == MC_OK) rc = h5ds_set_string_attr(species, "description", "index into /species/name of each particle (site)", err);
    if (rc == MC_OK && p->rigid) rc = write_rows_by_rank0(t, molecule, H5T_NATIVE_INT, 0, n, p->mol.site_mol, "/particles molecule", err);
    if (rc == MC_OK && p->rigid) rc = h5ds_set_string_attr(molecule, "description", "molecule (0 to M - 1) of each site", err);
    free(index);
    if (molecule >= 0) H5Dclose(molecule);
    if (species >= 0) H5Dclose(species);
    H5Sclose(nspace);
    if (time >= 0) H5Dclose(time);
    if (step >= 0) H5Dclose(step);
    return h5ds_close_group(pos, "position", rc, err);
}

static const char id_description[] = "the slot's index where its particle (site) is present in the frame, -1 where "
                                     "absent (gcmc: N varies); an absent slot's position is NaN";

/* Chain k's group; its value datasets stay open when this rank owns the chain. */
static int make_chain(traj *t, hid_t particles, hid_t chain0, int k, mc_err *err)
{
    const mc_plan *p = t->plan;
    char name[TRAJ_NAME_LEN];
    chain_group_name(k, name, sizeof name);
    hid_t g = k == 0 ? chain0 : h5ds_make_group(particles, name);
    if (g < 0) MC_FAIL(err, MC_EHDF5, "%s: cannot create /particles/%s", t->f->part, name);
    int rc = set_int_attr(g, "statepoint", mc_plan_statepoint_of(p, k), err);
    if (rc == MC_OK) rc = set_int_attr(g, "replica", k % p->replicas, err);
    if (rc == MC_OK && k > 0 && (H5Lcreate_hard(chain0, "species", g, "species", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
                                 (p->rigid && H5Lcreate_hard(chain0, "molecule", g, "molecule", H5P_DEFAULT, H5P_DEFAULT) < 0)))
        rc = mc_err_set(err, MC_EHDF5, "%s: cannot link /particles/%s/species", t->f->part, name);
    hsize_t F = (hsize_t)t->nframes, n = (hsize_t)p->n, m = (hsize_t)p->nmol;
    hsize_t dpos[3] = {F, n, 3}, dedge[3] = {F, 3, 3}, dcentre[3] = {F, m, 3}, dquat[3] = {F, m, 4}, did[2] = {F, n};
    const int open = p->ensemble->open;
    hid_t sets[5] = {H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID};
    hid_t box = rc == MC_OK ? h5ds_make_group(g, "box") : H5I_INVALID_HID;
    if (rc == MC_OK && box < 0) rc = mc_err_set(err, MC_EHDF5, "%s: cannot create /particles/%s/box", t->f->part, name);
    if (rc == MC_OK) rc = write_box_attrs(box, p->periodic, err);
    if (rc == MC_OK) {
        /* chain 0's position group exists already (make_shared): only its value is new */
        hid_t pos = k == 0 ? H5Gopen2(g, "position", H5P_DEFAULT) : H5I_INVALID_HID;
        const char *where = !p->periodic ? "positions about the origin (open cluster)"
                            : p->rigid   ? "site positions in [0, box)" : "positions in [0, box)";
        sets[0] = k == 0 ? (pos >= 0 ? make_series(pos, "value", H5T_IEEE_F64LE, 3, dpos, 1) : H5I_INVALID_HID)
                         : make_element(g, "position", H5T_IEEE_F64LE, chain0, dpos, 3, 1, p, where);
        if (k == 0 && sets[0] >= 0 && set_h5md_unit(sets[0], p, where, err) != MC_OK)
            H5Dclose(sets[0]), sets[0] = H5I_INVALID_HID;
        if (pos >= 0) H5Gclose(pos);
        if (p->periodic)
            sets[1] = make_element(box, "edges", H5T_IEEE_F64LE, chain0, dedge, 3, F < 64 ? F : 64, p,
                                   "box vectors as rows (a diagonal matrix: the box is cubic)");
        if (p->rigid)
            sets[2] = make_element(g, "centre", H5T_IEEE_F64LE, chain0, dcentre, 3, 1, p,
                                   p->periodic ? "molecular centres of mass in [0, box)" : "molecular centres of mass about the origin");
        if (p->rigid)
            sets[3] = make_element(g, "orientation", H5T_IEEE_F64LE, chain0, dquat, 3, 1, NULL,
                                   "unit quaternions (w, x, y, z) taking /molecules/site_body to the lab frame: "
                                   "site = centre + R(q) body");
        if (open) sets[4] = make_element(g, "id", H5T_STD_I32LE, chain0, did, 2, 1, NULL, id_description);
        if (sets[0] < 0 || (p->periodic && sets[1] < 0) || (p->rigid && (sets[2] < 0 || sets[3] < 0)) || (open && sets[4] < 0))
            rc = mc_err_set(err, MC_EHDF5, "%s: cannot create the elements of /particles/%s", t->f->part, name);
    }
    rc = h5ds_close_group(box, "box", rc, err);
    int local = k - t->first_chain;
    if (rc == MC_OK && local >= 0 && local < t->nlocal) {
        t->position[local] = sets[0], t->edges[local] = sets[1], t->centre[local] = sets[2], t->orientation[local] = sets[3];
        t->id[local] = sets[4];
    } else {
        for (int s = 0; s < 5; s++) if (sets[s] >= 0) H5Dclose(sets[s]);
    }
    return k == 0 ? rc : h5ds_close_group(g, name, rc, err);
}

traj *traj_create(h5out *out, const mc_plan *plan, const mc_run *run, int first_chain, const char *author,
                  const char *version, mc_err *err)
{
    const h5ds *f = h5out_ds(out);
    traj *t = traj_alloc(f, plan, run, first_chain, err);
    int rc = t ? MC_OK : err->code;
    if (rc == MC_OK) rc = write_h5md_group(t, author, version, err);
    hid_t particles = rc == MC_OK ? h5ds_make_group(f->file, "particles") : H5I_INVALID_HID;
    char name[TRAJ_NAME_LEN];
    chain_group_name(0, name, sizeof name);
    hid_t chain0 = particles >= 0 ? h5ds_make_group(particles, name) : H5I_INVALID_HID;
    if (rc == MC_OK && chain0 < 0) rc = mc_err_set(err, MC_EHDF5, "%s: cannot create /particles", f->part);
    if (rc == MC_OK) rc = make_shared(t, chain0, err);
    for (int k = 0; rc == MC_OK && k < plan->nchains; k++) rc = make_chain(t, particles, chain0, k, err);
    rc = h5ds_close_group(chain0, name, rc, err);
    rc = h5ds_close_group(particles, "/particles", rc, err);
    if (ens_agree(f->comm, rc, err) != MC_OK) return traj_close(t), NULL;
    return t;
}

/* Open (and resize to the plan's frames) one element's value of chain group g. */
static hid_t reopen_value(hid_t g, const char *path, hsize_t frames)
{
    hid_t d = H5Dopen2(g, path, H5P_DEFAULT), space = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hsize_t dims[3];
    int nd = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
    H5Sclose(space);
    if (nd < 1 || (dims[0] != frames && H5Dset_extent(d, (hsize_t[3]){frames, nd > 1 ? dims[1] : 0, nd > 2 ? dims[2] : 0}) < 0)) {
        if (d >= 0) H5Dclose(d);
        return H5I_INVALID_HID;
    }
    return d;
}

/* Whether dataset d has rank `rank` and `width` rows in its second dimension (a frame's particles). */
static int has_width(hid_t d, int rank, hsize_t width)
{
    hid_t space = H5Dget_space(d);
    hsize_t dims[3] = {0, 0, 0};
    int ok = space >= 0 && H5Sget_simple_extent_ndims(space) == rank && H5Sget_simple_extent_dims(space, dims, NULL) == rank &&
             dims[1] == width;
    if (space >= 0) H5Sclose(space);
    return ok;
}

/* What the file's trajectory must be to continue it: this run's chain count and particle count,
 * and every frame taken by `samples` samples. */
static int check_reopened(traj *t, hid_t particles, long samples, mc_err *err)
{
    const mc_plan *p = t->plan;
    H5G_info_t info;
    if (H5Gget_info(particles, &info) < 0) MC_FAIL(err, MC_EHDF5, "%s: cannot read /particles", t->f->part);
    hid_t d = H5Dopen2(particles, "chain_000000/position/value", H5P_DEFAULT);
    hid_t space = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hsize_t dims[3] = {0, 0, 0};
    int nd = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
    H5Sclose(space);
    if (d >= 0) H5Dclose(d);
    long regular = mc_snapshot_regular_frames(p); /* the regular frames taken by then */
    long needed = p->snapshot_every > 0 && samples / p->snapshot_every < regular ? samples / p->snapshot_every : regular;
    if (info.nlinks != (hsize_t)p->nchains || nd != 3 || dims[1] != (hsize_t)p->n || dims[2] != 3 || dims[0] < (hsize_t)needed)
        MC_FAIL(err, MC_EIO, "%s: its trajectory is not the one the checkpoint continues (%llu chains of %llu "
                "particles, %llu frames; the run has %d chains of %d, %ld frames taken); it cannot be continued",
                t->f->part, (unsigned long long)info.nlinks, (unsigned long long)dims[1], (unsigned long long)dims[0],
                p->nchains, p->n, needed);
    return MC_OK;
}

traj *traj_reopen(h5out *out, const mc_plan *plan, const mc_run *run, int first_chain, long samples, mc_err *err)
{
    const h5ds *f = h5out_ds(out);
    traj *t = traj_alloc(f, plan, run, first_chain, err);
    int rc = t ? MC_OK : err->code;
    hid_t particles = rc == MC_OK ? H5Gopen2(f->file, "particles", H5P_DEFAULT) : H5I_INVALID_HID;
    if (rc == MC_OK && particles < 0)
        rc = mc_err_set(err, MC_EIO, "%s: no /particles: not the trajectory of this run", f->part);
    if (rc == MC_OK) rc = check_reopened(t, particles, samples, err);
    hsize_t F = rc == MC_OK ? (hsize_t)t->nframes : 0;
    /* every chain's elements, resized collectively (an extension adds frames) */
    for (int k = 0; rc == MC_OK && k < plan->nchains; k++) {
        char name[TRAJ_NAME_LEN];
        chain_group_name(k, name, sizeof name);
        hid_t g = H5Gopen2(particles, name, H5P_DEFAULT);
        const int open = plan->ensemble->open;
        /* a gcmc trajectory written before the id element (its one frame, the final one, not yet
         * written when the checkpoint was) takes one now: created collectively, as at the start */
        if (open && g >= 0 && H5Lexists(g, "id", H5P_DEFAULT) == 0) {
            hid_t chain0 = H5Gopen2(particles, "chain_000000", H5P_DEFAULT);
            const hsize_t did[2] = {F, (hsize_t)plan->n};
            hid_t made = chain0 >= 0 ? make_element(g, "id", H5T_STD_I32LE, chain0, did, 2, 1, NULL, id_description)
                                     : H5I_INVALID_HID;
            if (made >= 0) H5Dclose(made);
            if (chain0 >= 0) H5Gclose(chain0);
        }
        hid_t sets[5] = {reopen_value(g, "position/value", F),
                         plan->periodic ? reopen_value(g, "box/edges/value", F) : H5I_INVALID_HID,
                         plan->rigid ? reopen_value(g, "centre/value", F) : H5I_INVALID_HID,
                         plan->rigid ? reopen_value(g, "orientation/value", F) : H5I_INVALID_HID,
                         open ? reopen_value(g, "id/value", F) : H5I_INVALID_HID};
        if (g < 0 || sets[0] < 0 || (plan->periodic && sets[1] < 0) || (plan->rigid && (sets[2] < 0 || sets[3] < 0)) ||
            (open && (sets[4] < 0 || !has_width(sets[4], 2, (hsize_t)plan->n))))
            rc = mc_err_set(err, MC_EIO, "%s: /particles/%s is incomplete: not the trajectory of this run", f->part, name);
        int local = k - first_chain;
        if (rc == MC_OK && local >= 0 && local < t->nlocal) {
            t->position[local] = sets[0], t->edges[local] = sets[1], t->centre[local] = sets[2], t->orientation[local] = sets[3];
            t->id[local] = sets[4];
        } else {
            for (int s = 0; s < 5; s++) if (sets[s] >= 0) H5Dclose(sets[s]);
        }
        if (g >= 0) H5Gclose(g);
    }
    hid_t step = rc == MC_OK ? reopen_value(particles, "chain_000000/position/step", F) : H5I_INVALID_HID;
    hid_t time = rc == MC_OK ? reopen_value(particles, "chain_000000/position/time", F) : H5I_INVALID_HID;
    if (rc == MC_OK && (step < 0 || time < 0)) rc = mc_err_set(err, MC_EIO, "%s: cannot resize the frames' steps", f->part);
    if (rc == MC_OK) rc = write_steps(t, step, time, err);
    if (time >= 0) H5Dclose(time);
    if (step >= 0) H5Dclose(step);
    rc = h5ds_close_group(particles, "/particles", rc, err);
    if (ens_agree(f->comm, rc, err) != MC_OK) return traj_close(t), NULL;
    return t;
}

/* This rank's rows of frame j of one element: [count][width] values of memtype at [j][0][0] (a
 * dataset of rank 3), or [count] (width 0: rank 2). */
static int write_slab_of(traj *t, hid_t d, long j, hsize_t count, hsize_t width, hid_t memtype, const void *data)
{
    hid_t fspace = H5Dget_space(d);
    int nd = fspace >= 0 ? H5Sget_simple_extent_ndims(fspace) : -1;
    hsize_t start[3] = {(hsize_t)j, 0, 0}, cnt[3] = {1, count, width};
    hid_t mspace = H5Screate_simple(nd, cnt, NULL);
    int ok = nd == (width ? 3 : 2) && mspace >= 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, cnt, NULL) >= 0 &&
             H5Dwrite(d, memtype, mspace, fspace, t->dxpl_independent, data) >= 0;
    H5Sclose(mspace), H5Sclose(fspace);
    return ok;
}

static int write_slab(traj *t, hid_t d, long j, hsize_t count, hsize_t width, const double *data)
{
    return write_slab_of(t, d, j, count, width, H5T_NATIVE_DOUBLE, data);
}

/* Frame j of every chain of this rank, then agreement (a full disk under one rank ends all). */
static int write_frame(traj *t, const mc_run *run, long j, mc_err *err)
{
    const mc_plan *p = t->plan;
    int ok = 1;
    for (int k = 0; ok && k < t->nlocal; k++) {
        const mc_chain *c = mc_run_chain(run, k);
        const int open = p->ensemble->open;
        for (int i = 0; i < c->n; i++) { /* gcmc: label 0 a present slot (mc_gcmc.h), per site */
            const int here = !open || c->in_box[i] == 0;
            t->buf[3 * i] = here ? c->x[i] : NAN, t->buf[3 * i + 1] = here ? c->y[i] : NAN, t->buf[3 * i + 2] = here ? c->z[i] : NAN;
            t->ids[i] = here ? i : -1;
        }
        ok = write_slab(t, t->position[k], j, (hsize_t)c->n, 3, t->buf);
        if (ok && open) ok = write_slab_of(t, t->id[k], j, (hsize_t)c->n, 0, H5T_NATIVE_INT, t->ids);
        /* gibbs: no one box holds the chain (/chains/box and box_length say which holds each particle) */
        double len = p->ensemble->boxes > 1 ? NAN : c->box_len, edges[9] = {len, 0, 0, 0, len, 0, 0, 0, len};
        if (ok && p->periodic) ok = write_slab(t, t->edges[k], j, 3, 3, edges);
        if (ok && p->rigid) {
            for (int i = 0; i < p->nmol; i++) {
                const int here = !open || mc_gibbs_box_of(p, c, i) == 0;
                t->buf[3 * i] = here ? c->cx[i] : NAN, t->buf[3 * i + 1] = here ? c->cy[i] : NAN;
                t->buf[3 * i + 2] = here ? c->cz[i] : NAN;
            }
            ok = write_slab(t, t->centre[k], j, (hsize_t)p->nmol, 3, t->buf);
            for (int i = 0; i < p->nmol; i++) {
                const int here = !open || mc_gibbs_box_of(p, c, i) == 0;
                for (int d = 0; d < 4; d++) t->buf[4 * i + d] = here ? c->q[4 * i + d] : NAN;
            }
            if (ok) ok = write_slab(t, t->orientation[k], j, (hsize_t)p->nmol, 4, t->buf);
        }
    }
    int rc = ok ? MC_OK : mc_err_set(err, MC_EHDF5, "%s: cannot write frame %ld of the trajectory (disk full?)", t->f->part, j);
    if (rc == MC_OK && h5ds_injected_failure(t->f))
        rc = mc_err_set(err, MC_EHDF5, "%s: cannot write frame %ld of the trajectory (injected: MCENS_TEST_FAIL_WRITE)",
                        t->f->part, j);
    return ens_agree(t->f->comm, rc, err);
}

int traj_after_round(traj *t, mc_run *run, mc_err *err)
{
    long j = mc_snapshot_due(t->plan, t->nlocal > 0 ? mc_run_chain(run, 0)->nsamples : 0);
    if (j < 0) return MC_OK;
    MC_TRY(ens_agree(t->f->comm, mc_run_fetch(run, err), err));
    return write_frame(t, run, j, err);
}

int traj_write_final(traj *t, const mc_run *run, mc_err *err) { return write_frame(t, run, t->nframes - 1, err); }

double traj_flush_bytes(const traj *t)
{
    /* every cached metadata entry may be dirty; the metadata accumulator adds up to 64 KiB */
    size_t max_size = 0, min_clean = 0, cur_size = 0;
    int entries = 0;
    if (H5Fget_mdc_size(t->f->file, &max_size, &min_clean, &cur_size, &entries) < 0) cur_size = max_size = 4u << 20;
    return (double)cur_size + 65536.0;
}

int traj_flush(traj *t, mc_err *err)
{
    int rc = H5Fflush(t->f->file, H5F_SCOPE_GLOBAL) >= 0 ? MC_OK
                                                         : mc_err_set(err, MC_EHDF5, "%s: cannot flush the trajectory", t->f->part);
    return ens_agree(t->f->comm, rc, err);
}

/* One series as H5MD's observables/<name>: this rank's chains are a block of columns. */
static int write_observable(traj *t, hid_t obs, const char **first, const mc_run *run, int o, double *cols, mc_err *err)
{
    const mc_plan *p = t->plan;
    const mc_observable *ob = &mc_observables[o];
    hsize_t S = (hsize_t)p->nsamples, dims[2] = {S, (hsize_t)p->nchains};
    hid_t g = h5ds_make_group(obs, ob->name);
    if (g < 0) MC_FAIL(err, MC_EHDF5, "%s: cannot create /observables/%s", t->f->part, ob->name);
    int rc = MC_OK;
    if (!*first) { /* the first observable holds step and time; the others link them */
        *first = ob->name;
        hid_t space = H5Screate_simple(1, &S, NULL);
        hid_t step = H5Dcreate2(g, "step", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t time = H5Dcreate2(g, "time", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Sclose(space);
        long long *steps = malloc(S * sizeof *steps);
        double *times = malloc(S * sizeof *times);
        rc = step >= 0 && time >= 0 && steps && times ? MC_OK : mc_err_set(err, MC_EHDF5, "%s: cannot create /observables", t->f->part);
        for (hsize_t i = 0; rc == MC_OK && i < S; i++)
            times[i] = (double)(steps[i] = p->equilibration_sweeps + (long long)(i + 1) * p->sample_every_sweeps);
        if (rc == MC_OK) rc = write_rows_by_rank0(t, step, H5T_NATIVE_LLONG, 0, S, steps, "/observables step", err);
        if (rc == MC_OK) rc = write_rows_by_rank0(t, time, H5T_NATIVE_DOUBLE, 0, S, times, "/observables time", err);
        if (rc == MC_OK) rc = h5ds_set_string_attr(time, "description", "sweep count (equilibration included) of each sample", err);
        free(steps), free(times);
        if (time >= 0) H5Dclose(time);
        if (step >= 0) H5Dclose(step);
    } else {
        char path[2][TRAJ_NAME_LEN + 8];
        snprintf(path[0], sizeof path[0], "%s/step", *first);
        snprintf(path[1], sizeof path[1], "%s/time", *first);
        if (H5Lcreate_hard(obs, path[0], g, "step", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
            H5Lcreate_hard(obs, path[1], g, "time", H5P_DEFAULT, H5P_DEFAULT) < 0)
            rc = mc_err_set(err, MC_EHDF5, "%s: cannot link /observables/%s step and time", t->f->part, ob->name);
    }
    hid_t fspace = H5Screate_simple(2, dims, NULL);
    hid_t d = rc == MC_OK ? H5Dcreate2(g, "value", H5T_IEEE_F64LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
    double factor = mc_unit_factor(&p->units, ob->unit);
    hsize_t nl = (hsize_t)t->nlocal, start[2] = {0, (hsize_t)t->first_chain}, count[2] = {S, nl};
    for (hsize_t i = 0; i < S; i++)
        for (hsize_t k = 0; k < nl; k++) cols[i * nl + k] = mc_run_chain(run, (int)k)->series[o][i] * factor;
    hid_t mspace = H5Screate_simple(2, count, NULL);
    int ok = rc == MC_OK && d >= 0 && mspace >= 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Dwrite(d, H5T_NATIVE_DOUBLE, mspace, fspace, t->f->dxpl, cols) >= 0;
    if (rc == MC_OK && !ok) rc = mc_err_set(err, MC_EHDF5, "%s: cannot write /observables/%s", t->f->part, ob->name);
    rc = ens_agree(t->f->comm, rc, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(d, "unit", mc_unit_name(&p->units, ob->unit), err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(d, "description", ob->per_chain, err);
    H5Sclose(mspace), H5Sclose(fspace);
    if (d >= 0) H5Dclose(d);
    return h5ds_close_group(g, ob->name, rc, err);
}

int traj_write_observables(traj *t, const mc_run *run, mc_err *err)
{
    const mc_plan *p = t->plan;
    hid_t obs = h5ds_make_group(t->f->file, "observables");
    const char *first = NULL;
    double *cols = malloc((size_t)p->nsamples * (t->nlocal > 0 ? t->nlocal : 1) * sizeof *cols);
    int rc = obs >= 0 && cols ? MC_OK : mc_err_set(err, MC_EHDF5, "%s: cannot create /observables", t->f->part);
    for (int o = 0; rc == MC_OK && o < MC_NOBS; o++)
        if (mc_observables[o].kind == MC_OBS_SERIES && mc_observable_applies(p, o))
            rc = write_observable(t, obs, &first, run, o, cols, err);
    free(cols);
    rc = h5ds_close_group(obs, "/observables", rc, err);
    return ens_agree(t->f->comm, rc, err);
}
