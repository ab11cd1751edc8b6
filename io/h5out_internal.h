/* h5out_internal: what the h5out writers share (h5out.c and h5out_rigid.c); not for callers. */
#ifndef H5OUT_INTERNAL_H
#define H5OUT_INTERNAL_H

#include <hdf5.h>

#include "h5out.h"

struct h5out {
    MPI_Comm comm;
    int rank, overwrite;
    hid_t file, dxpl; /* dxpl: collective transfer */
    char *path, *part;
};

enum { NAME_LEN = 64 }; /* fixed-length HDF5 strings for species, pair and molecule names */

/* A dataset of rank ndims (at most 3); this rank writes rows [row0, row0 + nrows) of dimension 0
 * from data (row-major). nrows = 0 joins the collective write with nothing. */
int write_rows(h5out *f, hid_t loc, const char *name, hid_t type, int ndims, const hsize_t *dims,
               hsize_t row0, hsize_t nrows, const void *data, const char *unit,
               const char *description, mc_err *err);
/* A dataset every rank holds in full; rank 0 writes it. */
int write_whole(h5out *f, hid_t loc, const char *name, hid_t type, int ndims, const hsize_t *dims,
                const void *data, const char *unit, const char *description, mc_err *err);
/* A [len] dataset of fixed-length strings. */
int write_names(h5out *f, hid_t loc, const char *name, const char (*names)[NAME_LEN], hsize_t len,
                const char *description, mc_err *err);
/* /results/NAME/{mean, stderr, ...} of S estimates, mean and stderr times scale. */
int write_estimates(h5out *f, hid_t results, const char *name, const mc_estimate *est, int S,
                    double scale, const char *unit, const char *what, mc_err *err);
hid_t make_group(hid_t loc, const char *name);

/* The rigid-body engine's parts of the file (h5out_rigid.c): /molecules, the per-chain molecular
 * datasets in /chains (g), and the per-state-point ones in /results (g). */
int h5out_rigid_molecules(h5out *f, const mc_plan *plan, mc_err *err);
int h5out_rigid_chains(h5out *f, hid_t g, const mc_plan *plan, const mc_run *run, int first_chain,
                       const mc_results *res, mc_err *err);
int h5out_rigid_results(h5out *f, hid_t g, const mc_plan *plan, const mc_results *res, mc_err *err);

#endif
