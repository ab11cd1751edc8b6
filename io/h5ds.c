/* h5ds: the dataset writers every part of an output or checkpoint file uses (collective rows, arrays
 * rank 0 holds in full, names, groups, attributes). Each returns an mc status
 * and checks every HDF5 call, closes included. */
#include "h5ds.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ens.h"
#include "mc_test_hooks.h"

int h5ds_set_string_attr(hid_t obj, const char *name, const char *value, mc_err *err)
{
    /* variable-length UTF-8, as H5MD's string attributes are and as readers (h5py, MDAnalysis) take
     * them: h5py returns a fixed-length string as bytes, which MDAnalysis refused as a unit */
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), attr = H5I_INVALID_HID;
    int rc = type >= 0 && space >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 &&
             H5Tset_cset(type, H5T_CSET_UTF8) >= 0 &&
             (attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
             H5Awrite(attr, type, &value) >= 0;
    int closed = (H5Aclose(attr) >= 0) & (H5Sclose(space) >= 0) & (H5Tclose(type) >= 0);
    if (!rc || !closed) MC_FAIL(err, MC_EHDF5, "cannot write attribute %s", name);
    return MC_OK;
}

/* A scalar attribute of a native type (H5T_NATIVE_LONG, H5T_NATIVE_DOUBLE, ...). */
int h5ds_set_scalar_attr(hid_t obj, const char *name, hid_t type, const void *value, mc_err *err)
{
    hid_t space = H5Screate(H5S_SCALAR), attr = H5I_INVALID_HID;
    int rc = space >= 0 &&
             (attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
             H5Awrite(attr, type, value) >= 0;
    int closed = (H5Aclose(attr) >= 0) & (H5Sclose(space) >= 0);
    if (!rc || !closed) MC_FAIL(err, MC_EHDF5, "cannot write attribute %s", name);
    return MC_OK;
}

/* Test hook MC_TEST_FAIL_WRITE (rank R, SUFFIX): rank R's dataset writes to a file whose name ends
 * in SUFFIX fail (".ckpt.part": checkpoints, ".h5.part": the output), as a full disk under one
 * rank would; the tests check that every rank ends with its message and nothing safe is lost. */
int h5ds_injected_failure(const h5ds *f)
{
    const char *v = mc_test_hook(MC_TEST_FAIL_WRITE);
    char suffix[64];
    int rank;
    size_t len = strlen(f->part);
    if (!v || sscanf(v, "%d:%63s", &rank, suffix) != 2 || rank != f->rank) return 0;
    return len >= strlen(suffix) && strcmp(f->part + len - strlen(suffix), suffix) == 0;
}

/* A dataset of rank ndims; this rank writes rows [row0, row0 + nrows) of dimension 0 from data
 * (row-major, nrows x the other dims). nrows = 0 joins the collective write with nothing. */
int h5ds_write_rows(const h5ds *f, hid_t loc, const char *name, hid_t type, int ndims,
                      const hsize_t *dims, hsize_t row0, hsize_t nrows, const void *data,
                      const char *unit, const char *description, mc_err *err)
{
    hid_t fspace = H5Screate_simple(ndims, dims, NULL);
    hid_t dset = H5Dcreate2(loc, name, type, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t start[3] = {row0, 0, 0}, count[3] = {nrows, ndims > 1 ? dims[1] : 0, ndims > 2 ? dims[2] : 0};
    hid_t mspace = H5Screate_simple(ndims, count, NULL);
    int ok = fspace >= 0 && dset >= 0 && mspace >= 0;
    if (ok && nrows > 0) ok = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0;
    if (ok && nrows == 0) ok = H5Sselect_none(fspace) >= 0 && H5Sselect_none(mspace) >= 0;
    if (ok) ok = H5Dwrite(dset, type, mspace, fspace, f->dxpl, data) >= 0;
    int rc = ok ? MC_OK : mc_err_set(err, MC_EHDF5, "%s: cannot write dataset %s (disk full?)", f->part, name);
    if (rc == MC_OK && h5ds_injected_failure(f))
        rc = mc_err_set(err, MC_EHDF5, "%s: cannot write dataset %s (injected: MCENS_TEST_FAIL_WRITE)", f->part, name);
    /* before the attributes: creating them is collective metadata, which every rank must do alike */
    rc = ens_agree(f->comm, rc, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "unit", unit, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(dset, "description", description, err);
    int closed = (H5Sclose(mspace) >= 0) & (H5Dclose(dset) >= 0) & (H5Sclose(fspace) >= 0); /* all, always */
    if (!closed && rc == MC_OK) rc = mc_err_set(err, MC_EHDF5, "cannot close dataset %s", name);
    return ens_agree(f->comm, rc, err);
}

/* A 1-D or 2-D dataset that every rank holds in full; rank 0 writes it. */
int h5ds_write_whole(const h5ds *f, hid_t loc, const char *name, hid_t type, int ndims,
                       const hsize_t *dims, const void *data, const char *unit,
                       const char *description, mc_err *err)
{
    return h5ds_write_rows(f, loc, name, type, ndims, dims, 0, f->rank == 0 ? dims[0] : 0, data, unit,
                      description, err);
}


/* A [len] dataset of fixed-length strings, rank 0 writing. */
int h5ds_write_names(const h5ds *f, hid_t loc, const char *name, const char (*names)[H5DS_NAME_LEN],
                       hsize_t len, const char *description, mc_err *err)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type < 0 || H5Tset_size(type, H5DS_NAME_LEN) < 0) {
        H5Tclose(type);
        MC_FAIL(err, MC_EHDF5, "cannot make a string type for %s", name);
    }
    hsize_t dims[1] = {len};
    int rc = h5ds_write_whole(f, loc, name, type, 1, dims, names, "1", description, err);
    if (H5Tclose(type) < 0 && rc == MC_OK) rc = mc_err_set(err, MC_EHDF5, "cannot close the string type of %s", name);
    return rc;
}

hid_t h5ds_make_group(hid_t loc, const char *name)
{
    return H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

int h5ds_close_group(hid_t g, const char *name, int rc, mc_err *err)
{
    if (g >= 0 && H5Gclose(g) < 0 && rc == MC_OK) rc = mc_err_set(err, MC_EHDF5, "cannot close group %s", name);
    return rc;
}
