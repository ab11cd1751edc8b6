/* h5out: the one output file of a run, written collectively through HDF5's MPI-IO driver. The file
 * is made as OUTPUT.part when the rounds begin (the trajectory goes into it as the run goes, see
 * traj.h), the results are added at the end, and it is renamed to OUTPUT only after a successful
 * close; an existing OUTPUT is never replaced unless overwrite is set. A run that stops or fails
 * after a checkpoint leaves OUTPUT.part for --restart, which reopens it.
 * Every call here is collective over the communicator given to h5out_create(). */
#ifndef H5OUT_H
#define H5OUT_H

#include <mpi.h>

#include "h5ds.h"
#include "mc_err.h"
#include "mc_plan.h"
#include "mc_results.h"
#include "mc_run.h"

typedef struct h5out h5out;

/* Provenance stored as attributes of /parameters. */
typedef struct h5out_info {
    const char *config_text, *config_file;
    const char *version, *git_revision, *hosts, *backend, *units;
    const char *cpu_isas; /* each rank's CPU loop level (cpu_isa.h), space separated */
    const char *paths;    /* each rank's kernels or loops (mc_backend_ops.path), space separated */
    int nranks;
    int gpu_sm_count, gpu_smem_per_block; /* the GPU the kernels were shaped for (mc_plan; 0: none) */
    double run_seconds;      /* wall time of the rounds this invocation ran (a restart: its own), checkpoints excluded */
    double moves_per_second; /* attempted moves of all chains over run_seconds */
    const char *segments;    /* the run's segments: start, restarts, extensions (a line each) */
} h5out_info;

/* Refuses an existing path unless overwrite; NULL on failure (same on every rank). */
h5out *h5out_create(MPI_Comm comm, const char *path, int overwrite, mc_err *err);

/* A continued run (--restart, --extend): open OUTPUT.part, or when there is none a copy of a
 * finished OUTPUT (an extension), and remove what the end of the run writes again (everything but
 * the trajectory). The file is kept if the run fails again. */
h5out *h5out_reopen(MPI_Comm comm, const char *path, int overwrite, mc_err *err);

/* The open file as the dataset writers (h5ds.h) take it; valid until h5out_close. For the parts
 * of the file written outside this module: the trajectory (traj.c), checkpoints (ckpt.c). */
const h5ds *h5out_ds(const h5out *f);

/* From now on the unfinished file holds frames a checkpoint counts: a failed run keeps it. */
void h5out_keep(h5out *f);

/* Write the whole layout: provenance, state points, this rank's chains (rows first_chain onward,
 * as held by run), and the pooled results. */
int h5out_write(h5out *f, const h5out_info *info, const mc_plan *plan, const mc_run *run,
                int first_chain, const mc_results *res, mc_err *err);

/* Close the HDF5 library; call before MPI_Finalize. */
void h5out_library_close(void);

/* How h5out_close ends a file. */
enum h5out_end {
    H5OUT_COMMIT,  /* close, flush to disk, rename OUTPUT.part to OUTPUT */
    H5OUT_DISCARD, /* close, delete OUTPUT.part (unless kept, see h5out_keep) */
    H5OUT_ABANDON  /* after a failed write or on a full disk: HDF5's states on the ranks may differ,
                      so a collective close could hang and a failed one crash HDF5's shutdown. The
                      file is not closed (what a checkpoint counts was flushed with it), OUTPUT.part
                      goes unless kept, and the process must end without closing HDF5 (MC_EHALT) */
};

/* End the file as end says. NULL-safe. Returns MC_EHALT where HDF5's close failed on any rank
 * (the file is then abandoned), and after H5OUT_ABANDON. */
int h5out_close(h5out *f, enum h5out_end end, mc_err *err);

#endif
