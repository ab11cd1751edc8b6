/* ckpt: writing a run's state to OUTPUT.ckpt and reading it back for a restart. */
#include "ckpt.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "disk_room.h"
#include "ens.h"
#include "h5ds.h"
#include "h5out.h"
#include "mc_chain_state.h"

static const char FORMAT[] = "mcens checkpoint";
/* 2: the GPU the kernel shapes were chosen for; 3: a checksum of each chain's state */
enum { FORMAT_VERSION = 3, TEXT = 128 };

_Static_assert(sizeof(long) == 8 && sizeof(double) == 8, "the checkpoint stores 8-byte values");

struct ckpt {
    MPI_Comm comm;
    hid_t file;
    char *path, *config_text, *segments;
    char version[TEXT], git_revision[TEXT], backend[TEXT], precision[TEXT];
    long sweeps_done, nsamples, production_sweeps, nchains, n, nmol;
    long gpu_sm_count, gpu_smem_per_block;
    const mc_plan *plan; /* set by ckpt_bind */
    int first_chain;
};

char *ckpt_path(const char *output)
{
    char *path = malloc(strlen(output) + sizeof ".ckpt");
    if (path) sprintf(path, "%s.ckpt", output);
    return path;
}

static hid_t native_type(mc_state_type t)
{
    return t == MC_STATE_F64 ? H5T_NATIVE_DOUBLE : t == MC_STATE_U64 ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64;
}

/* The dataset of field f (observable o for the series) under /chains. */
static void field_name(const mc_state_field *f, int o, char *name, size_t len)
{
    if (f->series) snprintf(name, len, "series_%s", mc_observables[o].name);
    else snprintf(name, len, "%s", f->name);
}

/* Copy one chain's values of a field to or from a packed row of `stored` 8-byte values; a
 * per-sample member keeps its rows plan->nsamples apart in the chain, nsamples apart in the row. */
static void copy_field(const mc_state_field *f, const mc_plan *p, int o, mc_chain *c, uint64_t *row,
                       long nsamples, int to_chain)
{
    char *values = mc_state_values(f, c, o);
    size_t rows = f->per_sample ? f->count(p) : 1;
    size_t width = f->per_sample ? (size_t)nsamples : f->count(p);
    size_t stride = f->per_sample ? (size_t)p->nsamples : width;
    for (size_t r = 0; r < rows; r++) {
        char *in_chain = values + r * stride * 8;
        uint64_t *in_row = row + r * width;
        if (to_chain) memcpy(in_chain, in_row, width * 8);
        else memcpy(in_row, in_chain, width * 8);
    }
}

/* A chain's checksum (zlib's CRC-32) runs over its header, then its rows of the table's fields in
 * table order, as they are written: a restart recomputes it from what it read and refuses the
 * checkpoint where they differ, so a flipped bit in any value, or in the sweep and sample counts
 * the rows are read by, is caught before anything runs. */
static uLong checksum_start(int chain, long sweeps_done, long nsamples)
{
    const long head[3] = {chain, sweeps_done, nsamples};
    return crc32(crc32(0L, Z_NULL, 0), (const Bytef *)head, sizeof head);
}

static uLong checksum_add(uLong crc, const uint64_t *row, size_t stored)
{
    return crc32_z(crc, (const Bytef *)row, stored * 8);
}

/* The previous checkpoint is kept as PATH.prev (a hard link to it, made before the new one is
 * renamed over PATH): a damaged latest checkpoint still leaves a way back. Where the file system
 * has no hard links there is no PATH.prev, and the rest goes on. */
static void keep_previous(const char *path)
{
    char prev[4096];
    if (snprintf(prev, sizeof prev, "%s.prev", path) >= (int)sizeof prev) return;
    if (access(path, F_OK) != 0) return; /* the first checkpoint */
    unlink(prev);
    (void)link(path, prev);
}

/* A text as a one-element dataset of one fixed-length string. */
static int write_text(const h5ds *f, const char *name, const char *text, const char *description, mc_err *err)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hsize_t one[1] = {1};
    int rc = type >= 0 && H5Tset_size(type, strlen(text) + 1) >= 0
                 ? h5ds_write_whole(f, f->file, name, type, 1, one, text, "1", description, err)
                 : mc_err_set(err, MC_EHDF5, "cannot make the string type of /%s", name);
    if (type >= 0) H5Tclose(type);
    return rc;
}

static int write_header(const h5ds *f, const ckpt_info *info, const mc_plan *p, long sweeps_done,
                        long nsamples, mc_err *err)
{
    long format_version = FORMAT_VERSION, nchains = p->nchains, n = p->n, nmol = p->nmol;
    const struct { const char *name; const long *value; } longs[] = {
        {"format_version", &format_version}, {"sweeps_done", &sweeps_done}, {"nsamples", &nsamples},
        {"production_sweeps", &info->production_sweeps}, {"nchains", &nchains}, {"n", &n},
        {"nmol", &nmol}, {"gpu_sm_count", &info->gpu_sm_count}, {"gpu_smem_per_block", &info->gpu_smem_per_block}};
    const struct { const char *name, *value; } strings[] = {
        {"format", FORMAT}, {"mcens_version", info->version}, {"git_revision", info->git_revision},
        {"backend", info->backend}, {"precision", info->precision}};
    int rc = MC_OK;
    for (size_t i = 0; rc == MC_OK && i < sizeof strings / sizeof strings[0]; i++)
        rc = h5ds_set_string_attr(f->file, strings[i].name, strings[i].value, err);
    for (size_t i = 0; rc == MC_OK && i < sizeof longs / sizeof longs[0]; i++)
        rc = h5ds_set_scalar_attr(f->file, longs[i].name, H5T_NATIVE_LONG, longs[i].value, err);
    if (rc == MC_OK)
        rc = write_text(f, "config", info->config_text, "the config file as given: a restart must use the same", err);
    if (rc == MC_OK)
        rc = write_text(f, "segments", info->segments ? info->segments : "", "the run's segments so far: start, restarts, extensions", err);
    return rc;
}

/* Every field of the table as [nchains][stored] rows; this rank writes its own chains' rows. */
static int write_chains(const h5ds *f, mc_run *run, int first_chain, long nsamples, mc_err *err)
{
    const mc_plan *p = mc_run_plan(run);
    int nl = mc_run_nchains(run);
    hid_t g = h5ds_make_group(f->file, "chains");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "cannot create /chains in the checkpoint");
    uint64_t *crc = malloc((size_t)(nl > 0 ? nl : 1) * sizeof *crc);
    if (!crc) return h5ds_close_group(g, "/chains", mc_err_set(err, MC_ENOMEM, "out of memory writing a checkpoint"), err);
    for (int k = 0; k < nl; k++) crc[k] = checksum_start(first_chain + k, mc_run_sweeps_done(run), nsamples);
    int rc = MC_OK;
    for (int i = 0; rc == MC_OK && i < mc_state_nfields; i++) {
        const mc_state_field *fd = &mc_state_fields[i];
        for (int o = 0; rc == MC_OK && o < (fd->series ? MC_NOBS : 1); o++) {
            size_t stored = mc_state_stored(fd, p, nsamples);
            if (!mc_state_present(fd, p, o) || stored == 0) continue;
            uint64_t *buf = malloc((size_t)nl * stored * 8);
            if (!buf) {
                rc = mc_err_set(err, MC_ENOMEM, "out of memory writing a checkpoint");
                break;
            }
            for (int k = 0; k < nl; k++) {
                copy_field(fd, p, o, (mc_chain *)mc_run_chain(run, k), buf + (size_t)k * stored, nsamples, 0);
                crc[k] = checksum_add((uLong)crc[k], buf + (size_t)k * stored, stored);
            }
            char name[96];
            field_name(fd, o, name, sizeof name);
            hsize_t dims[2] = {(hsize_t)p->nchains, stored};
            rc = h5ds_write_rows(f, g, name, native_type(fd->type), 2, dims, (hsize_t)first_chain,
                                  (hsize_t)nl, buf, "1", "chain state (mc_chain_state.c)", err);
            free(buf);
        }
    }
    hsize_t dims[2] = {(hsize_t)p->nchains, 1};
    if (rc == MC_OK)
        rc = h5ds_write_rows(f, g, "checksum", H5T_NATIVE_UINT64, 2, dims, (hsize_t)first_chain, (hsize_t)nl, crc, "1",
                             "CRC-32 (zlib) of the chain's sweeps, samples and rows above, in table order", err);
    free(crc);
    return h5ds_close_group(g, "/chains", rc, err);
}

double ckpt_bytes(const mc_plan *p, const ckpt_info *info)
{
    /* each dataset's object header with its unit and description (under 2 KiB as written), the
     * checksums and the two texts, the root's attributes and the superblock */
    double datasets = 1.0;
    for (int i = 0; i < mc_state_nfields; i++)
        for (int o = 0; o < (mc_state_fields[i].series ? MC_NOBS : 1); o++)
            datasets += mc_state_present(&mc_state_fields[i], p, o);
    double texts = (double)strlen(info->config_text) + (info->segments ? (double)strlen(info->segments) : 0.0);
    return 1.05 * ((double)p->nchains * ((double)mc_state_bytes_per_chain(p) + 8.0) + texts) + 4096.0 * datasets +
           65536.0;
}

int ckpt_write(MPI_Comm comm, const char *path, const ckpt_info *info, mc_run *run, int first_chain,
               double *bytes, double *seconds, mc_err *err)
{
    double start = MPI_Wtime();
    /* a device failure on one rank must not leave the others in the collective create */
    MC_TRY(ens_agree(comm, mc_run_fetch(run, err), err));
    char part[4096];
    if (snprintf(part, sizeof part, "%s.part", path) >= (int)sizeof part) MC_FAIL(err, MC_EINVAL, "%s: path too long", path);
    MC_TRY(disk_room_claim(comm, part, 1, ckpt_bytes(mc_run_plan(run), info), info->disk_full_wait_s,
                           "the checkpoint", err));
    h5out *f = h5out_create(comm, path, 1, err);
    if (!f) return err->code;
    long nsamples = mc_run_chain(run, 0)->nsamples; /* the rounds keep every chain in step */
    int rc = write_header(h5out_ds(f), info, mc_run_plan(run), mc_run_sweeps_done(run), nsamples, err);
    rc = ens_agree(comm, rc, err);
    if (rc == MC_OK) rc = write_chains(h5out_ds(f), run, first_chain, nsamples, err);
    rc = ens_agree(comm, rc, err);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rc == MC_OK && rank == 0) keep_previous(path); /* rank 0 renames the new one over path */
    MC_TRY(h5out_close(f, rc == MC_OK ? H5OUT_COMMIT : H5OUT_ABANDON, err));
    if (rank == 0) disk_room_trim(path);
    struct stat st;
    *bytes = stat(path, &st) == 0 ? (double)st.st_size : 0.0;
    /* the time on rank 0, which renamed the file last */
    *seconds = MPI_Wtime() - start;
    if (MPI_Bcast(seconds, 1, MPI_DOUBLE, 0, comm) != MPI_SUCCESS)
        MC_FAIL(err, MC_EMPI, "MPI_Bcast failed after writing a checkpoint");
    return MC_OK;
}

/* What a refusal of a damaged checkpoint adds: the way back through the one before it, where the
 * run kept one (keep_previous). */
static const char *previous_hint(const ckpt *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s.prev", c->path);
    if (access(buf, R_OK) != 0) return "; no earlier checkpoint was kept";
    snprintf(buf, len, "; the one before it is kept: mv %s.prev %s, then --restart again", c->path, c->path);
    return buf;
}

/* ---- reading --------------------------------------------------------------------------------- */

/* A string attribute, fixed-length (as mcens writes them) or variable-length (as h5py does). */
static int read_string_attr(ckpt *c, const char *name, char *out, size_t len, mc_err *err)
{
    hid_t attr = H5Aopen(c->file, name, H5P_DEFAULT);
    hid_t type = attr >= 0 ? H5Aget_type(attr) : H5I_INVALID_HID;
    int ok = type >= 0 && H5Tget_class(type) == H5T_STRING;
    if (ok && H5Tis_variable_str(type) > 0) {
        char *value = NULL;
        ok = H5Aread(attr, type, &value) >= 0 && value;
        if (ok) snprintf(out, len, "%s", value);
        if (value) H5free_memory(value);
    } else if (ok) {
        size_t size = H5Tget_size(type);
        char *value = size > 0 ? calloc(1, size + 1) : NULL;
        ok = value && H5Aread(attr, type, value) >= 0;
        if (ok) snprintf(out, len, "%s", value);
        free(value);
    }
    if (type >= 0) H5Tclose(type);
    if (attr >= 0) H5Aclose(attr);
    if (!ok) MC_FAIL(err, MC_EINVAL, "%s: no readable attribute %s: not an mcens checkpoint, or a corrupt one", c->path, name);
    return MC_OK;
}

static int read_long_attr(ckpt *c, const char *name, long *out, mc_err *err)
{
    hid_t attr = H5Aopen(c->file, name, H5P_DEFAULT);
    int ok = attr >= 0 && H5Aread(attr, H5T_NATIVE_LONG, out) >= 0;
    if (attr >= 0) H5Aclose(attr);
    if (!ok) MC_FAIL(err, MC_EINVAL, "%s: no readable attribute %s: not an mcens checkpoint, or a corrupt one", c->path, name);
    return MC_OK;
}

/* A one-string dataset (write_text) into *out (malloc'd). */
static int read_text(ckpt *c, const char *name, char **out, mc_err *err)
{
    hid_t d = H5Dopen2(c->file, name, H5P_DEFAULT);
    hid_t type = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
    size_t size = type >= 0 ? H5Tget_size(type) : 0;
    int ok = size > 0 && (*out = calloc(1, size + 1)) != NULL && H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) >= 0;
    if (type >= 0) H5Tclose(type);
    if (d >= 0) H5Dclose(d);
    if (!ok) MC_FAIL(err, MC_EINVAL, "%s: cannot read /%s (corrupt?)", c->path, name);
    return MC_OK;
}

static int read_config(ckpt *c, mc_err *err)
{
    MC_TRY(read_text(c, "config", &c->config_text, err));
    return read_text(c, "segments", &c->segments, err);
}

static int read_header(ckpt *c, mc_err *err)
{
    char format[TEXT];
    long format_version = 0;
    MC_TRY(read_string_attr(c, "format", format, sizeof format, err));
    if (strcmp(format, FORMAT) != 0) MC_FAIL(err, MC_EINVAL, "%s: not an mcens checkpoint", c->path);
    MC_TRY(read_long_attr(c, "format_version", &format_version, err));
    if (format_version != FORMAT_VERSION)
        MC_FAIL(err, MC_EINVAL, "%s: checkpoint format %ld; this mcens reads format %d", c->path,
                format_version, FORMAT_VERSION);
    MC_TRY(read_string_attr(c, "mcens_version", c->version, sizeof c->version, err));
    MC_TRY(read_string_attr(c, "git_revision", c->git_revision, sizeof c->git_revision, err));
    MC_TRY(read_string_attr(c, "backend", c->backend, sizeof c->backend, err));
    MC_TRY(read_string_attr(c, "precision", c->precision, sizeof c->precision, err));
    const struct { const char *name; long *value; } longs[] = {
        {"sweeps_done", &c->sweeps_done}, {"nsamples", &c->nsamples},
        {"production_sweeps", &c->production_sweeps}, {"nchains", &c->nchains}, {"n", &c->n},
        {"nmol", &c->nmol}, {"gpu_sm_count", &c->gpu_sm_count}, {"gpu_smem_per_block", &c->gpu_smem_per_block}};
    for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++)
        MC_TRY(read_long_attr(c, longs[i].name, longs[i].value, err));
    return read_config(c, err);
}

ckpt *ckpt_open(MPI_Comm comm, const char *path, mc_err *err)
{
    ckpt *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        return mc_err_set(err, MC_ENOMEM, "out of memory"), NULL;
    }
    c->comm = comm;
    c->file = H5I_INVALID_HID;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    struct stat st;
    int rc = stat(path, &st) == 0 ? MC_OK
             : mc_err_set(err, MC_EINVAL, "%s: no checkpoint to restart from (it is written next to the "
                          "output; [run] checkpoint_every = 0 writes none)", path);
    hid_t fapl = rc == MC_OK ? H5Pcreate(H5P_FILE_ACCESS) : H5I_INVALID_HID;
    if (rc == MC_OK && fapl >= 0 && H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) >= 0)
        c->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (fapl >= 0) H5Pclose(fapl);
    if (rc == MC_OK && c->file < 0)
        rc = mc_err_set(err, MC_EINVAL, "%s: cannot open it as HDF5 (truncated or corrupt?); the "
                        "checkpoint is left as it is", path);
    if (rc == MC_OK) rc = read_header(c, err);
    if (ens_agree(comm, rc, err) != MC_OK) {
        ckpt_close(c);
        return NULL;
    }
    return c;
}

void ckpt_close(ckpt *c)
{
    if (!c) return;
    if (c->file >= 0) H5Fclose(c->file);
    free(c->path);
    free(c->config_text);
    free(c->segments);
    free(c);
}

long ckpt_production_sweeps(const ckpt *c) { return c->production_sweeps; }
const char *ckpt_segments(const ckpt *c) { return c->segments ? c->segments : ""; }
long ckpt_sweeps_done(const ckpt *c) { return c->sweeps_done; }
void ckpt_gpu_shape(const ckpt *c, long *sm_count, long *smem_per_block)
{
    *sm_count = c->gpu_sm_count, *smem_per_block = c->gpu_smem_per_block;
}
int ckpt_finished(const ckpt *c, long equilibration_sweeps)
{
    return c->sweeps_done >= equilibration_sweeps + c->production_sweeps;
}

/* The first line where two texts differ, 1-based, and the two lines (cut to fit). */
static int first_difference(const char *a, const char *b, char *la, char *lb, size_t len)
{
    int line = 1;
    for (;;) {
        size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
        if (na != nb || memcmp(a, b, na) != 0 || !a[na] != !b[nb]) {
            snprintf(la, len, "%.*s", (int)na, a);
            snprintf(lb, len, "%.*s", (int)nb, b);
            if (!*a && !a[na]) snprintf(la, len, "(end of file)");
            if (!*b && !b[nb]) snprintf(lb, len, "(end of file)");
            return line;
        }
        if (!a[na]) return 0;
        a += na + 1, b += nb + 1, line++;
    }
}

int ckpt_check(const ckpt *c, const ckpt_info *now, const char *config_path, mc_err *err)
{
    char was[120], is[120];
    int line = first_difference(c->config_text, now->config_text, was, is, sizeof was);
    if (line)
        MC_FAIL(err, MC_EINVAL, "%s: written for another config: %s line %d is \"%s\", the checkpoint's "
                "is \"%s\" (a restart continues the same run; to add production use --extend)",
                c->path, config_path, line, is, was);
    const struct { const char *what, *then, *now; } same[] = {
        {"mcens version", c->version, now->version},
        {"git revision", c->git_revision, now->git_revision},
        {"backend", c->backend, now->backend},
        {"precision", c->precision, now->precision}};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        if (strcmp(same[i].then, same[i].now) != 0)
            MC_FAIL(err, MC_EINVAL, "%s: written by %s %s, this run has %s %s; only the same build on the "
                    "same backend and precision continues a run bit for bit", c->path, same[i].what,
                    same[i].then, same[i].what, same[i].now);
    return MC_OK;
}

void ckpt_bind(ckpt *c, const mc_plan *plan, int first_chain)
{
    c->plan = plan;
    c->first_chain = first_chain;
}

/* Rows first_chain .. + nl of dataset /chains/name, which must be [nchains][stored]. */
static int read_rows(ckpt *c, const char *name, hid_t type, size_t stored, int nl, void *buf, mc_err *err)
{
    char path[128];
    snprintf(path, sizeof path, "chains/%s", name);
    hid_t d = H5Dopen2(c->file, path, H5P_DEFAULT);
    hid_t fspace = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hsize_t dims[2] = {0, 0}, start[2] = {(hsize_t)c->first_chain, 0}, count[2] = {(hsize_t)nl, stored};
    int shape_ok = fspace >= 0 && H5Sget_simple_extent_ndims(fspace) == 2 &&
                   H5Sget_simple_extent_dims(fspace, dims, NULL) == 2 &&
                   dims[0] == (hsize_t)c->plan->nchains && dims[1] == stored;
    hid_t mspace = shape_ok ? H5Screate_simple(2, count, NULL) : H5I_INVALID_HID;
    int ok = shape_ok && mspace >= 0 &&
             H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Dread(d, type, mspace, fspace, H5P_DEFAULT, buf) >= 0;
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
    if (d >= 0) H5Dclose(d);
    if (d < 0) MC_FAIL(err, MC_EINVAL, "%s: no dataset /%s (corrupt checkpoint?)", c->path, path);
    if (!shape_ok)
        MC_FAIL(err, MC_EINVAL, "%s: /%s is %llux%llu, expected %dx%zu (corrupt checkpoint?)", c->path, path,
                (unsigned long long)dims[0], (unsigned long long)dims[1], c->plan->nchains, stored);
    if (!ok) MC_FAIL(err, MC_EINVAL, "%s: cannot read /%s (truncated or corrupt checkpoint?)", c->path, path);
    return MC_OK;
}

int ckpt_restore(void *ctx, mc_chain *const *chains, int nchains, long *sweeps_done, mc_err *err)
{
    ckpt *c = ctx;
    const mc_plan *p = c->plan;
    if (c->nchains != p->nchains || c->n != p->n || c->nmol != p->nmol || c->nsamples > p->nsamples ||
        c->sweeps_done > p->equilibration_sweeps + p->production_sweeps)
        MC_FAIL(err, MC_EINVAL, "%s: holds %ld chains of %ld sites (%ld molecules) after %ld sweeps; "
                "the config has %d chains of %d (%d) and %ld sweeps (corrupt checkpoint?)", c->path,
                c->nchains, c->n, c->nmol, c->sweeps_done, p->nchains, p->n, p->nmol,
                p->equilibration_sweeps + p->production_sweeps);
    char hint[2 * 4096 + 64];
    /* samples are taken every sample_every sweeps of production, and rounds end on them */
    const long production_done = c->sweeps_done - p->equilibration_sweeps;
    const long samples_then = production_done > 0 ? production_done / p->sample_every_sweeps : 0;
    if (c->nsamples != samples_then)
        MC_FAIL(err, MC_EINVAL, "%s: holds %ld samples after %ld sweeps; %ld sweeps of equilibration and a sample "
                "every %ld give %ld (corrupt checkpoint?)%s", c->path, c->nsamples, c->sweeps_done,
                p->equilibration_sweeps, p->sample_every_sweeps, samples_then, previous_hint(c, hint, sizeof hint));
    uLong *crc = malloc((size_t)(nchains > 0 ? nchains : 1) * sizeof *crc);
    if (!crc) MC_FAIL(err, MC_ENOMEM, "out of memory reading %s", c->path);
    for (int k = 0; k < nchains; k++) crc[k] = checksum_start(c->first_chain + k, c->sweeps_done, c->nsamples);
    int rc = MC_OK;
    for (int i = 0; rc == MC_OK && i < mc_state_nfields; i++) {
        const mc_state_field *fd = &mc_state_fields[i];
        for (int o = 0; rc == MC_OK && o < (fd->series ? MC_NOBS : 1); o++) {
            size_t stored = mc_state_stored(fd, p, c->nsamples);
            if (!mc_state_present(fd, p, o) || stored == 0) continue;
            uint64_t *buf = malloc((size_t)nchains * stored * 8);
            if (!buf) {
                rc = mc_err_set(err, MC_ENOMEM, "out of memory reading %s", c->path);
                break;
            }
            char name[96];
            field_name(fd, o, name, sizeof name);
            rc = read_rows(c, name, native_type(fd->type), stored, nchains, buf, err);
            for (int k = 0; rc == MC_OK && k < nchains; k++) {
                copy_field(fd, p, o, chains[k], buf + (size_t)k * stored, c->nsamples, 1);
                crc[k] = checksum_add(crc[k], buf + (size_t)k * stored, stored);
            }
            free(buf);
        }
    }
    uint64_t *stored_crc = rc == MC_OK ? malloc((size_t)(nchains > 0 ? nchains : 1) * sizeof *stored_crc) : NULL;
    if (rc == MC_OK && !stored_crc) rc = mc_err_set(err, MC_ENOMEM, "out of memory reading %s", c->path);
    if (rc == MC_OK) rc = read_rows(c, "checksum", H5T_NATIVE_UINT64, 1, nchains, stored_crc, err);
    for (int k = 0; rc == MC_OK && k < nchains; k++)
        if (stored_crc[k] != (uint64_t)crc[k])
            rc = mc_err_set(err, MC_EINVAL, "%s: chain %d's state does not match the checksum written with it: the "
                            "checkpoint is damaged%s", c->path, c->first_chain + k, previous_hint(c, hint, sizeof hint));
    free(stored_crc);
    free(crc);
    MC_TRY(rc);
    for (int k = 0; k < nchains; k++) mc_chain_set_box(chains[k], chains[k]->box_len);
    *sweeps_done = c->sweeps_done;
    return MC_OK;
}
