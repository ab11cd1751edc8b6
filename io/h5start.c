/* h5start: reading and checking the last frames of an earlier mcens output for start = h5.
 *
 * How the ranks read: every rank opens the file read-only through HDF5's MPI-IO driver (one
 * collective open and close) and reads for itself, independently, the small tables every rank
 * checks alike (species, molecules) and the last frames of its own block of chains only (with
 * start_chain, of that one chain). No rank holds another's chains, so memory per rank is that of
 * its chains whatever the file's size, and no rank waits on a reader at rank 0. The MPI-IO driver,
 * not one serial open per rank, because it takes no file lock (parallel file systems without
 * flock refuse HDF5's). Between the collective open and close nothing here is collective, so a
 * check failing on one rank cannot leave another waiting: the ranks agree once, after the close,
 * on the lowest failing rank's message (ens_agree). */
#include "h5start.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NAME = 64 }; /* longest species or molecule type name compared (mcens writes 64-byte names) */

typedef struct src {
    const char *path;
    hid_t file;
    int nchains; /* groups under /particles */
} src;

/* The fixed-length string values (as mcens writes them) of a dataset or attribute into out[max];
 * their count into *n. -1 when the object is not a list of at most max such strings. */
static int read_strings(hid_t obj, int is_attr, char (*out)[NAME], int max, int *n)
{
    hid_t ftype = is_attr ? H5Aget_type(obj) : H5Dget_type(obj);
    hid_t space = is_attr ? H5Aget_space(obj) : H5Dget_space(obj);
    hid_t mtype = H5Tcopy(H5T_C_S1);
    hssize_t count = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    int is_string = ftype >= 0 && H5Tget_class(ftype) == H5T_STRING;
    int variable = is_string && H5Tis_variable_str(ftype) > 0; /* mcens writes attributes so since issue 48 */
    int rc = -1;
    *n = (int)count;
    if (is_string && count >= 1 && count <= max && mtype >= 0) {
        if (variable) {
            char *values[count];
            /* HDF5 converts no character set into another: read in the file's (UTF-8 for mcens's) */
            if (H5Tset_size(mtype, H5T_VARIABLE) >= 0 && H5Tset_cset(mtype, H5Tget_cset(ftype)) >= 0 &&
                (is_attr ? H5Aread(obj, mtype, values) : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, values)) >= 0) {
                for (hssize_t i = 0; i < count; i++) snprintf(out[i], NAME, "%s", values[i] ? values[i] : "");
                rc = H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, values) >= 0 ? 0 : -1;
            }
        } else if (H5Tset_size(mtype, NAME) >= 0 && H5Tset_strpad(mtype, H5T_STR_NULLTERM) >= 0 &&
                   (is_attr ? H5Aread(obj, mtype, out) : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out)) >= 0) {
            rc = 0;
        }
    }
    for (int i = 0; rc == 0 && i < count; i++) out[i][NAME - 1] = '\0';
    if (mtype >= 0) H5Tclose(mtype);
    if (space >= 0) H5Sclose(space);
    if (ftype >= 0) H5Tclose(ftype);
    return rc;
}

static int read_string_dataset(hid_t loc, const char *name, char (*out)[NAME], int max, int *n)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) return -1;
    int rc = read_strings(d, 0, out, max, n);
    return (H5Dclose(d) < 0) | rc ? -1 : 0;
}

static int read_string_attr(hid_t loc, const char *obj, const char *name, char (*out)[NAME], int max, int *n)
{
    hid_t a = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) return -1;
    int rc = read_strings(a, 1, out, max, n);
    return (H5Aclose(a) < 0) | rc ? -1 : 0;
}

/* A whole small dataset of `ndims` dimensions whose sizes must be `dims` (0: any, then stored). */
static int read_whole(hid_t loc, const char *name, hid_t mtype, int ndims, hsize_t *dims, void *buf, size_t max_bytes,
                      size_t elem)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT), space = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hsize_t got[3] = {0, 0, 0};
    int ok = space >= 0 && ndims <= 3 && H5Sget_simple_extent_ndims(space) == ndims &&
             H5Sget_simple_extent_dims(space, got, NULL) == ndims;
    size_t total = elem;
    for (int i = 0; ok && i < ndims; i++) {
        ok = dims[i] == 0 || dims[i] == got[i];
        dims[i] = got[i];
        total *= (size_t)got[i];
    }
    ok = ok && total <= max_bytes && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
    if (space >= 0) ok &= H5Sclose(space) >= 0;
    if (d >= 0) ok &= H5Dclose(d) >= 0;
    return ok ? 0 : -1;
}

/* The last frame of a time series NAME/value, float64 [F][want][cols], into out. *width gets the
 * file's second dimension even when it is not the one wanted (for the message). */
static int read_last_frame(hid_t g, const char *name, hsize_t want, hsize_t cols, hsize_t *width, double *out)
{
    char path[64];
    snprintf(path, sizeof path, "%s/value", name);
    hid_t d = H5Dopen2(g, path, H5P_DEFAULT), space = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hid_t mem = H5I_INVALID_HID;
    hsize_t dims[3] = {0, 0, 0};
    int ok = space >= 0 && H5Sget_simple_extent_ndims(space) == 3 && H5Sget_simple_extent_dims(space, dims, NULL) == 3;
    *width = dims[1];
    ok = ok && dims[0] >= 1 && dims[1] == want && dims[2] == cols;
    if (ok) {
        hsize_t start[3] = {dims[0] - 1, 0, 0}, count[3] = {1, want, cols}, flat = want * cols;
        mem = H5Screate_simple(1, &flat, NULL);
        ok = mem >= 0 && H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Dread(d, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, out) >= 0;
    }
    if (mem >= 0) ok &= H5Sclose(mem) >= 0;
    if (space >= 0) ok &= H5Sclose(space) >= 0;
    if (d >= 0) ok &= H5Dclose(d) >= 0;
    return ok ? 0 : -1;
}

/* What the file holds besides the frames: an mcens output with /particles, and its species. */
static int check_file(const mc_plan *p, src *s, char (*species)[NAME], int *nspecies, mc_err *err)
{
    const char *f = s->path;
    htri_t is_mcens = H5Lexists(s->file, "parameters", H5P_DEFAULT) > 0 &&
                      H5Aexists_by_name(s->file, "parameters", "mcens_version", H5P_DEFAULT) > 0;
    if (!is_mcens)
        MC_FAIL(err, MC_EINVAL, "%s: not an mcens output (no /parameters with an mcens_version); [system] start = h5 "
                "takes a file an earlier mcens run wrote", f);
    /* a grand-canonical run's frames hold every slot, the absent ones NaN (id -1) */
    htri_t has_statepoints = H5Lexists(s->file, "statepoints", H5P_DEFAULT);
    if (has_statepoints > 0 && H5Lexists(s->file, "statepoints/lnz", H5P_DEFAULT) > 0)
        MC_FAIL(err, MC_EINVAL, "%s: a grand-canonical (gcmc) output: its frames hold absent particle slots "
                "(/chains/tmmc/present marks them), which [system] start = h5 cannot take", f);
    H5G_info_t info;
    hid_t g = H5Lexists(s->file, "particles", H5P_DEFAULT) > 0 ? H5Gopen2(s->file, "particles", H5P_DEFAULT) : -1;
    int ok = g >= 0 && H5Gget_info(g, &info) >= 0;
    if (g >= 0) ok &= H5Gclose(g) >= 0;
    if (!ok)
        MC_FAIL(err, MC_EINVAL, "%s: no /particles (the trajectory of the chains' frames): written by an mcens "
                "without it?", f);
    s->nchains = (int)info.nlinks;
    if (read_string_dataset(s->file, "species/name", species, MC_MAX_SPECIES, nspecies) != 0)
        MC_FAIL(err, MC_EHDF5, "%s: cannot read /species/name (at most %d species names)", f, MC_MAX_SPECIES);
    if (p->start_chain < 0 && s->nchains != p->nchains)
        MC_FAIL(err, MC_EINVAL, "%s: %d chains, the run has %d: set [system] start_chain = K to start every "
                "chain from the file's chain K", f, s->nchains, p->nchains);
    if (p->start_chain >= s->nchains)
        MC_FAIL(err, MC_EINVAL, "[system] start_chain = %d: %s has chains 0 to %d", p->start_chain, f,
                s->nchains - 1);
    return MC_OK;
}

/* The name of each site's (atom's) species in the run. */
static const char *run_species_name(const mc_plan *p, int i)
{
    int a = p->rigid ? p->mol.site_species[i] : mc_species_of(&p->species, i);
    return p->species.name[a];
}

/* /molecules against the run's: type names and their order, counts, sites and their species (by
 * name) and body coordinates (to 1e-9 of the molecule's size: one geometry, written and read). */
static int check_molecules(const mc_plan *p, const src *s, const char (*species)[NAME], int nspecies, mc_err *err)
{
    const char *f = s->path;
    const mc_molecules *m = &p->mol;
    int has = H5Lexists(s->file, "molecules", H5P_DEFAULT) > 0;
    if (!p->rigid && has)
        MC_FAIL(err, MC_EINVAL, "%s holds molecules (/molecules), the run atoms: expected the same [molecules]", f);
    if (!p->rigid) return MC_OK;
    if (!has)
        MC_FAIL(err, MC_EINVAL, "%s holds atoms (no /molecules), the run molecules or an open cluster (the "
                "rigid-body engine)", f);
    char names[MC_MAX_MOLTYPES][NAME];
    int ntypes, count[MC_MAX_MOLTYPES], nsites[MC_MAX_MOLTYPES], site_species[MC_MAX_MOLTYPES * MC_MAX_SITES];
    double body[MC_MAX_MOLTYPES * MC_MAX_SITES][3];
    int W = 0; /* the file's width of the site tables (mc_molecule_table_sites of its run) */
    if (read_string_dataset(s->file, "molecules/name", names, MC_MAX_MOLTYPES, &ntypes) != 0)
        MC_FAIL(err, MC_EHDF5, "%s: cannot read /molecules/name (at most %d types)", f, MC_MAX_MOLTYPES);
    if (ntypes != m->ntypes)
        MC_FAIL(err, MC_EINVAL, "%s: %d molecule types, the run has %d ([molecules] types)", f, ntypes, m->ntypes);
    hsize_t d1[1] = {(hsize_t)ntypes}, d2[2] = {(hsize_t)ntypes, 0}, d3[3] = {(hsize_t)ntypes, 0, 3};
    if (read_whole(s->file, "molecules/count", H5T_NATIVE_INT, 1, d1, count, sizeof count, sizeof(int)) != 0 ||
        read_whole(s->file, "molecules/nsites", H5T_NATIVE_INT, 1, d1, nsites, sizeof nsites, sizeof(int)) != 0 ||
        read_whole(s->file, "molecules/site_species", H5T_NATIVE_INT, 2, d2, site_species, sizeof site_species,
                   sizeof(int)) != 0 ||
        read_whole(s->file, "molecules/site_body", H5T_NATIVE_DOUBLE, 3, d3, body, sizeof body, sizeof(double)) != 0)
        MC_FAIL(err, MC_EHDF5, "%s: cannot read /molecules/count, nsites, site_species and site_body ([%d types] x "
                "at most %d sites)", f, ntypes, MC_MAX_SITES);
    W = (int)d2[1];
    if (d3[1] != d2[1])
        MC_FAIL(err, MC_EHDF5, "%s: /molecules/site_species and site_body disagree on the sites a type (%llu, %llu)", f,
                (unsigned long long)d2[1], (unsigned long long)d3[1]);
    double size = fmax(mc_molecules_radius(m), p->sigma);
    for (int t = 0; t < ntypes; t++) {
        const mc_moltype *mt = &m->type[t];
        if (strcmp(names[t], mt->name) != 0)
            MC_FAIL(err, MC_EINVAL, "%s: molecule type %d is %s, the run's is %s ([molecules] types, in order)", f, t,
                    names[t], mt->name);
        if (count[t] != mt->count)
            MC_FAIL(err, MC_EINVAL, "%s: %d molecules of type %s, the run has %d ([molecules] counts)", f, count[t],
                    mt->name, mt->count);
        if (nsites[t] != mt->nsites)
            MC_FAIL(err, MC_EINVAL, "%s: molecule type %s has %d sites, the run's has %d ([molecules] geometry)", f,
                    mt->name, nsites[t], mt->nsites);
        if (nsites[t] > W)
            MC_FAIL(err, MC_EHDF5, "%s: molecule type %s has %d sites, but /molecules/site_body holds %d a type", f,
                    mt->name, nsites[t], W);
        for (int k = 0; k < mt->nsites; k++) {
            int a = site_species[t * W + k];
            const char *want = p->species.name[mt->species[k]];
            if (a < 0 || a >= nspecies || strcmp(species[a], want) != 0)
                MC_FAIL(err, MC_EINVAL, "%s: site %d of molecule type %s is species %s, the run's is %s ([molecules] "
                        "geometry)", f, k, mt->name, a >= 0 && a < nspecies ? species[a] : "(none)", want);
            for (int d = 0; d < 3; d++)
                if (!(fabs(body[t * W + k][d] - mt->body[k][d]) <= 1e-9 * size))
                    MC_FAIL(err, MC_EINVAL, "%s: site %d of molecule type %s lies at (%g, %g, %g) in the molecule's "
                            "frame, the run's at (%g, %g, %g) ([molecules] geometry)", f, k, mt->name, body[t * W + k][0],
                            body[t * W + k][1], body[t * W + k][2], mt->body[k][0], mt->body[k][1], mt->body[k][2]);
        }
    }
    return MC_OK;
}

/* The boundary and length unit of /particles/chain_K: "periodic" or "none", as the run's. */
static int check_chain_kind(const mc_plan *p, const src *s, hid_t g, int chain, mc_err *err)
{
    const char *f = s->path;
    char boundary[3][NAME], unit[1][NAME];
    int n;
    if (read_string_attr(g, "box", "boundary", boundary, 3, &n) != 0 || n != 3)
        MC_FAIL(err, MC_EHDF5, "%s: cannot read the boundary attribute of /particles/chain_%06d/box (3 strings)", f,
                chain);
    int periodic = strcmp(boundary[0], "periodic") == 0;
    if (periodic != p->periodic)
        MC_FAIL(err, MC_EINVAL, "%s: chain %d's boundary is %s, the run's is %s ([system] boundary)", f, chain,
                periodic ? "periodic" : "none (an open cluster)", p->periodic ? "periodic" : "none (an open cluster)");
    /* H5MD leaves dimensionless (reduced) lengths without a unit: no attribute reads as sigma */
    snprintf(unit[0], NAME, "sigma");
    if (H5Aexists_by_name(g, "position/value", "unit", H5P_DEFAULT) > 0 &&
        read_string_attr(g, "position/value", "unit", unit, 1, &n) != 0)
        MC_FAIL(err, MC_EHDF5, "%s: cannot read the unit attribute of /particles/chain_%06d/position/value", f, chain);
    if (strcmp(unit[0], p->units.length) != 0)
        MC_FAIL(err, MC_EINVAL, "%s: lengths in %s, the run's in %s ([system] units)", f, unit[0], p->units.length);
    return MC_OK;
}

/* Every particle's species, by name: /particles/chain_K/species against the run's order. */
static int check_chain_species(const mc_plan *p, const src *s, hid_t g, int chain, const char (*species)[NAME],
                               int nspecies, mc_err *err)
{
    int *idx = malloc((size_t)p->n * sizeof *idx);
    if (!idx) MC_FAIL(err, MC_ENOMEM, "out of memory reading %s", s->path);
    hsize_t dims[1] = {(hsize_t)p->n};
    int rc = read_whole(g, "species", H5T_NATIVE_INT, 1, dims, idx, (size_t)p->n * sizeof *idx, sizeof *idx) == 0
                 ? MC_OK
                 : mc_err_set(err, MC_EHDF5, "%s: cannot read /particles/chain_%06d/species (int32[%d])", s->path,
                              chain, p->n);
    for (int i = 0; rc == MC_OK && i < p->n; i++) {
        const char *want = run_species_name(p, i);
        if (idx[i] < 0 || idx[i] >= nspecies || strcmp(species[idx[i]], want) != 0)
            rc = mc_err_set(err, MC_EINVAL, "%s: chain %d, particle %d is species %s, the run's is %s (species "
                            "and counts, in order, must be the run's)", s->path, chain, i,
                            idx[i] >= 0 && idx[i] < nspecies ? species[idx[i]] : "(none)", want);
    }
    free(idx);
    return rc;
}

/* The box of the last frame: a cube, finite and positive; 0 for an open cluster. mcens writes
 * H5MD's box vectors [F][3][3], a diagonal matrix for its cubic boxes. */
static int read_box(const mc_plan *p, const src *s, hid_t g, int chain, double *box, mc_err *err)
{
    *box = 0.0;
    if (!p->periodic) return MC_OK;
    double m[9];
    hsize_t width;
    if (read_last_frame(g, "box/edges", 3, 3, &width, m) != 0)
        MC_FAIL(err, MC_EHDF5, "%s: cannot read /particles/chain_%06d/box/edges/value (float64[frames][3][3])",
                s->path, chain);
    int diagonal = m[1] == 0 && m[2] == 0 && m[3] == 0 && m[5] == 0 && m[6] == 0 && m[7] == 0;
    if (!diagonal || !(m[0] > 0) || !isfinite(m[0]) || m[4] != m[0] || m[8] != m[0])
        MC_FAIL(err, MC_EINVAL, "%s: chain %d's last box is not a cube (edges %g, %g, %g%s)", s->path, chain,
                m[0], m[4], m[8], diagonal ? "" : ", not at right angles");
    *box = m[0];
    return MC_OK;
}

/* Chain `chain`'s last frame into frame k of p->frames, after the checks against the run. */
static int read_chain(mc_plan *p, const src *s, int chain, int k, const char (*species)[NAME], int nspecies,
                      mc_err *err)
{
    const char *f = s->path, *what = p->rigid ? "sites" : "particles";
    char name[32];
    snprintf(name, sizeof name, "particles/chain_%06d", chain);
    hid_t g = H5Lexists(s->file, name, H5P_DEFAULT) > 0 ? H5Gopen2(s->file, name, H5P_DEFAULT) : H5I_INVALID_HID;
    if (g < 0) MC_FAIL(err, MC_EINVAL, "%s: no /%s (its chains must be chain_000000 onward)", f, name);
    mc_start_frames *fr = &p->frames;
    size_t np = (size_t)fr->npoints;
    double *points = fr->points + (size_t)k * np * 3, *sites = NULL;
    hsize_t width;
    int rc = check_chain_kind(p, s, g, chain, err);
    if (rc == MC_OK && !(sites = malloc((size_t)p->n * 3 * sizeof *sites)))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory reading %s", f);
    /* the sites' count first: the message every mismatch of the system ends in */
    if (rc == MC_OK && read_last_frame(g, "position", (hsize_t)p->n, 3, &width, sites) != 0)
        rc = width != (hsize_t)p->n && width > 0
                 ? mc_err_set(err, MC_EINVAL, "%s: chain %d has %llu %s, the run has %d", f, chain,
                              (unsigned long long)width, what, p->n)
                 : mc_err_set(err, MC_EHDF5, "%s: cannot read /%s/position/value (float64[frames][%d][3])", f, name,
                              p->n);
    if (rc == MC_OK) rc = check_chain_species(p, s, g, chain, species, nspecies, err);
    if (rc == MC_OK && !p->rigid) memcpy(points, sites, np * 3 * sizeof *points);
    if (rc == MC_OK && p->rigid && read_last_frame(g, "centre", np, 3, &width, points) != 0)
        rc = mc_err_set(err, MC_EHDF5, "%s: cannot read /%s/centre/value (float64[frames][%d][3])", f, name, p->nmol);
    if (rc == MC_OK && p->rigid && read_last_frame(g, "orientation", np, 4, &width, fr->quats + (size_t)k * np * 4) != 0)
        rc = mc_err_set(err, MC_EHDF5, "%s: cannot read /%s/orientation/value (float64[frames][%d][4])", f, name,
                        p->nmol);
    if (rc == MC_OK) rc = read_box(p, s, g, chain, &fr->box[k], err);
    for (size_t i = 0; rc == MC_OK && i < 3 * np; i++)
        if (!isfinite(points[i]))
            rc = mc_err_set(err, MC_EINVAL, "%s: chain %d's last frame holds a non-finite coordinate (%s %zu)", f,
                            chain, p->rigid ? "molecule" : "particle", i / 3);
    for (size_t m = 0; rc == MC_OK && p->rigid && m < np; m++) {
        double *q = fr->quats + (k * np + m) * 4, norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(fabs(norm - 1.0) < 1e-6))
            rc = mc_err_set(err, MC_EINVAL, "%s: chain %d, molecule %zu: orientation of norm %g, expected a unit "
                            "quaternion", f, chain, m, norm);
        for (int d = 0; d < 4 && rc == MC_OK; d++) q[d] /= norm;
    }
    free(sites);
    if (H5Gclose(g) < 0 && rc == MC_OK) rc = mc_err_set(err, MC_EHDF5, "%s: cannot close /%s", f, name);
    return rc;
}

/* The frames this rank needs, allocated and read: its chains', or start_chain's alone. */
static int read_frames(mc_plan *p, const ens_layout *l, src *s, mc_err *err)
{
    char species[MC_MAX_SPECIES][NAME];
    int nspecies;
    MC_TRY(check_file(p, s, species, &nspecies, err));
    MC_TRY(check_molecules(p, s, species, nspecies, err));
    mc_start_frames *fr = &p->frames;
    int shared = p->start_chain >= 0;
    fr->first_chain = shared ? -1 : l->first_chain;
    fr->npoints = p->rigid ? p->nmol : p->n;
    int nframes = shared ? 1 : l->nchains;
    size_t np = (size_t)fr->npoints;
    fr->points = malloc((size_t)nframes * np * 3 * sizeof *fr->points);
    fr->box = malloc((size_t)nframes * sizeof *fr->box);
    if (p->rigid) fr->quats = malloc((size_t)nframes * np * 4 * sizeof *fr->quats);
    if (!fr->points || !fr->box || (p->rigid && !fr->quats))
        MC_FAIL(err, MC_ENOMEM, "out of memory for the starting frames of %d chains read from %s", nframes, s->path);
    for (int k = 0; k < nframes; k++) MC_TRY(read_chain(p, s, shared ? p->start_chain : l->first_chain + k, k,
                                                        species, nspecies, err));
    fr->nframes = nframes;
    return MC_OK;
}

/* Rank 0 alone: a readable HDF5 file, so that the collective open fails only on what HDF5 finds. */
static int check_readable(const char *path, mc_err *err)
{
    if (access(path, R_OK) != 0)
        MC_FAIL(err, MC_EINVAL, "[system] start_file = %s: cannot read it: %s", path, strerror(errno));
    if (H5Fis_hdf5(path) <= 0)
        MC_FAIL(err, MC_EINVAL, "%s: not an HDF5 file; [system] start = h5 takes an output an earlier mcens run "
                "wrote", path);
    return MC_OK;
}

/* Rank 0's log line: the chains' source, and the boxes scaled (from every rank). */
static int log_start(const mc_plan *p, const ens_layout *l, FILE *log, mc_err *err)
{
    double lo = INFINITY, hi = -INFINITY, scaled = 0.0;
    for (int id = l->first_chain; id < l->first_chain + l->nchains; id++) {
        const mc_start_frames *fr = &p->frames;
        double from = fr->box[fr->first_chain < 0 ? 0 : id - fr->first_chain];
        double to = p->statepoint[mc_plan_statepoint_of(p, id)].box_len;
        if (!p->periodic || from == to) continue;
        scaled += 1.0, lo = fmin(lo, to / from), hi = fmax(hi, to / from);
    }
    MC_TRY(ens_mpi_check(MPI_Allreduce(MPI_IN_PLACE, &scaled, 1, MPI_DOUBLE, MPI_SUM, l->comm), "MPI_Allreduce", err));
    MC_TRY(ens_mpi_check(MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, l->comm), "MPI_Allreduce", err));
    MC_TRY(ens_mpi_check(MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, l->comm), "MPI_Allreduce", err));
    if (!log || l->rank != 0) return MC_OK;
    if (p->start_chain >= 0)
        fprintf(log, "start = h5: every chain starts from the last frame of chain %d of %s\n", p->start_chain,
                p->start_file);
    else
        fprintf(log, "start = h5: each chain starts from the last frame of its chain in %s\n", p->start_file);
    if (scaled > 0)
        fprintf(log, "start = h5: %.0f of %d chains had another box than their state point's: scaled affinely by "
                "%.6g to %.6g (%s)\n", scaled, p->nchains, lo, hi,
                p->rigid ? "molecular centres; orientations kept" : "positions");
    fflush(log);
    return MC_OK;
}

int h5start_load(mc_plan *p, const ens_layout *l, FILE *log, mc_err *err)
{
    if (p->start != CFG_START_H5) return MC_OK;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our messages replace HDF5's error stack dump */
    MC_TRY(ens_agree(l->comm, l->rank == 0 ? check_readable(p->start_file, err) : MC_OK, err));
    src s = {p->start_file, H5I_INVALID_HID, 0};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_fapl_mpio(fapl, l->comm, MPI_INFO_NULL) >= 0)
        s.file = H5Fopen(p->start_file, H5F_ACC_RDONLY, fapl);
    int fapl_ok = fapl >= 0 && H5Pclose(fapl) >= 0;
    int rc = s.file >= 0 && fapl_ok ? MC_OK : mc_err_set(err, MC_EHDF5, "%s: HDF5 cannot open it read-only", p->start_file);
    if (ens_agree(l->comm, rc, err) != MC_OK) {
        if (s.file >= 0) H5Fclose(s.file); /* opened on every rank, since every rank agreed on failure */
        return err->code;
    }
    rc = read_frames(p, l, &s, err); /* nothing collective inside: ranks may fail apart */
    if (H5Fclose(s.file) < 0 && rc == MC_OK) rc = mc_err_set(err, MC_EHDF5, "%s: closing it failed", p->start_file);
    MC_TRY(ens_agree(l->comm, rc, err));
    return log_start(p, l, log, err);
}
