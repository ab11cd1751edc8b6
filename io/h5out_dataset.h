/* h5out_dataset: the dataset writers that every part of the output file uses (h5out.c for the
 * common layout, h5out_molecules.c for the molecular parts); not for callers outside io/. Every
 * writer is collective over the file's communicator, checks each HDF5 call (closes included) and
 * returns an mc status. */
#ifndef H5OUT_DATASET_H
#define H5OUT_DATASET_H

#include <hdf5.h>

#include "h5out.h"

/* The open output file as its writers see it. */
struct h5out {
    MPI_Comm comm;
    int rank, overwrite;
    int keep; /* an unfinished file holds what a checkpoint refers to: a failed run leaves it */
    hid_t file, dxpl; /* dxpl: collective transfer */
    char *path, *part;
};

enum { H5OUT_NAME_LEN = 64 }; /* fixed-length HDF5 strings for species, pair and molecule names */

/* Every rank's status agreed: the worst one, so that all ranks take the same branch before the
 * next collective call. A failing reduction is itself an MPI error. */
int h5out_agree(MPI_Comm comm, int rc, mc_err *err);

/* Test hook: MCENS_TEST_FAIL_WRITE=R:SUFFIX makes rank R's writes to a file whose name ends in
 * SUFFIX fail, as a full disk under one rank would. */
int h5out_injected_failure(const h5out *f);

/* A dataset of rank ndims (at most 3); this rank writes rows [row0, row0 + nrows) of dimension 0
 * from data (row-major). nrows = 0 joins the collective write with nothing. The dataset gets
 * string attributes unit and description. The ranks agree on the outcome before returning: a
 * write that fails on one rank only (a full disk under rank 0's rows) must not leave the others
 * in the next collective call. */
int h5out_write_rows(h5out *f, hid_t loc, const char *name, hid_t type, int ndims, const hsize_t *dims,
                     hsize_t row0, hsize_t nrows, const void *data, const char *unit,
                     const char *description, mc_err *err);
/* A dataset every rank holds in full; rank 0 writes it. */
int h5out_write_whole(h5out *f, hid_t loc, const char *name, hid_t type, int ndims, const hsize_t *dims,
                      const void *data, const char *unit, const char *description, mc_err *err);
/* A [len] dataset of fixed-length strings. */
int h5out_write_names(h5out *f, hid_t loc, const char *name, const char (*names)[H5OUT_NAME_LEN], hsize_t len,
                      const char *description, mc_err *err);
/* /results/NAME/{mean, stderr, n_independent, statistical_inefficiency, blocking_converged} of S
 * estimates, mean and stderr times scale (unit conversion); the per-kind form takes [S][kinds]
 * (kinds > 0: one per species or molecule type). */
int h5out_write_estimates(h5out *f, hid_t results, const char *name, const mc_estimate *est, int S,
                          double scale, const char *unit, const char *what, mc_err *err);
int h5out_write_estimates_per_kind(h5out *f, hid_t results, const char *name, const mc_estimate *est, int S,
                                   int kinds, double scale, const char *unit, const char *what, mc_err *err);
/* Attributes on an object. type: a native type (H5T_NATIVE_LONG, H5T_NATIVE_DOUBLE, ...). */
int h5out_set_string_attr(hid_t obj, const char *name, const char *value, mc_err *err);
int h5out_set_scalar_attr(hid_t obj, const char *name, hid_t type, const void *value, mc_err *err);

/* A new group (negative on failure), and its close: returns rc, or a close failure when rc was
 * MC_OK. g < 0 is skipped. */
hid_t h5out_make_group(hid_t loc, const char *name);
int h5out_close_group(hid_t g, const char *name, int rc, mc_err *err);

#endif
