/* h5ds: collective writes of datasets, attributes and groups into an open parallel HDF5 file, for
 * the writers of io/ (the output's layout, its molecular parts and results, checkpoints, the
 * trajectory). It knows no file's layout and no file's life: the owner of the file (h5out) fills an
 * h5ds and keeps it valid while the file is open. Every dataset writer is collective over comm,
 * checks each HDF5 call (closes included) and returns an mc status. */
#ifndef H5DS_H
#define H5DS_H

#include <hdf5.h>
#include <mpi.h>

#include "mc_err.h"

/* An open file as its writers see it. */
typedef struct h5ds {
    MPI_Comm comm;
    int rank;
    hid_t file, dxpl;  /* dxpl: collective transfer */
    const char *part;  /* the file's name on disk: messages, and the test hook below */
} h5ds;

enum { H5DS_NAME_LEN = 64 }; /* fixed-length HDF5 strings for species, pair and molecule names */

/* Test hook: MCENS_TEST_FAIL_WRITE=R:SUFFIX makes rank R's writes to a file whose name ends in
 * SUFFIX fail, as a full disk under one rank would. */
int h5ds_injected_failure(const h5ds *f);

/* A dataset of rank ndims (at most 3); this rank writes rows [row0, row0 + nrows) of dimension 0
 * from data (row-major). nrows = 0 joins the collective write with nothing. The dataset gets
 * string attributes unit and description. The ranks agree on the outcome before returning: a
 * write that fails on one rank only (a full disk under rank 0's rows) must not leave the others
 * in the next collective call. */
int h5ds_write_rows(const h5ds *f, hid_t loc, const char *name, hid_t type, int ndims, const hsize_t *dims,
                    hsize_t row0, hsize_t nrows, const void *data, const char *unit,
                    const char *description, mc_err *err);
/* A dataset every rank holds in full; rank 0 writes it. */
int h5ds_write_whole(const h5ds *f, hid_t loc, const char *name, hid_t type, int ndims, const hsize_t *dims,
                     const void *data, const char *unit, const char *description, mc_err *err);
/* A [len] dataset of fixed-length strings. */
int h5ds_write_names(const h5ds *f, hid_t loc, const char *name, const char (*names)[H5DS_NAME_LEN], hsize_t len,
                     const char *description, mc_err *err);
/* Attributes on an object. type: a native type (H5T_NATIVE_LONG, H5T_NATIVE_DOUBLE, ...). */
int h5ds_set_string_attr(hid_t obj, const char *name, const char *value, mc_err *err);
int h5ds_set_scalar_attr(hid_t obj, const char *name, hid_t type, const void *value, mc_err *err);

/* A new group (negative on failure), and its close: returns rc, or a close failure when rc was
 * MC_OK. g < 0 is skipped. */
hid_t h5ds_make_group(hid_t loc, const char *name);
int h5ds_close_group(hid_t g, const char *name, int rc, mc_err *err);

#endif
