/* ckpt: checkpoints, the complete state of a run between two rounds in one HDF5 file next to the
 * output (OUTPUT.ckpt). Every chain's state is the table of mc_chain_state, one dataset per member
 * with a row per chain, so a checkpoint written by any number of ranks restores on any other; the
 * random state is the chains' counters (the streams of mc_rng.h are keyed by them). A checkpoint
 * is written collectively to OUTPUT.ckpt.part, flushed to disk, and renamed over the previous
 * one: a crash during the write leaves the last good checkpoint. Every call is collective. */
#ifndef CKPT_H
#define CKPT_H

#include <mpi.h>

#include "mc_err.h"
#include "mc_plan.h"
#include "mc_run.h"

/* What a checkpoint records besides the chains, and what a restart must match. */
typedef struct ckpt_info {
    const char *config_text;      /* the config file as given */
    const char *version, *git_revision, *backend, *precision;
    long production_sweeps;       /* the run's production, extensions included */
    long gpu_sm_count, gpu_smem_per_block; /* the GPU its kernel shapes were chosen for (mc_plan) */
    const char *segments;         /* the run's segments so far (start, restarts, extensions), a line each */
    double disk_full_wait_s;      /* how the write waits for room on a full file system (disk_room.h) */
} ckpt_info;

/* OUTPUT.ckpt for an output path (malloc'd; NULL when out of memory). */
char *ckpt_path(const char *output);

/* Write the run's state (the chains of this rank are rows first_chain onward). Fetches the
 * positions from the device first; claims the room the file needs first (disk_room.h). *bytes:
 * the file's size; *seconds: the write's wall time. A failed write abandons the file (MC_EHALT,
 * h5out.h); the last checkpoint is left as it was. */
/* About how many bytes a checkpoint of the plan takes on disk with its HDF5 structure: room to
 * reserve before writing one (an over-estimate within a few percent and 64 KiB). */
double ckpt_bytes(const mc_plan *p, const ckpt_info *info);

int ckpt_write(MPI_Comm comm, const char *path, const ckpt_info *info, mc_run *run, int first_chain,
               double *bytes, double *seconds, mc_err *err);

typedef struct ckpt ckpt; /* an open checkpoint, for a restart */

/* Open and read the header; a missing, truncated or foreign file is refused with its name. */
ckpt *ckpt_open(MPI_Comm comm, const char *path, mc_err *err);
void ckpt_close(ckpt *c);

/* The production the checkpointed run had, and whether it had finished it. */
long ckpt_production_sweeps(const ckpt *c);
int ckpt_finished(const ckpt *c, long equilibration_sweeps);
long ckpt_sweeps_done(const ckpt *c);

/* The segments the checkpointed run recorded (ckpt_info.segments; "" where it has none). */
const char *ckpt_segments(const ckpt *c);

/* The GPU the checkpointed run's kernel shapes were chosen for (mc_plan.gpu_sm_count; 0: none). */
void ckpt_gpu_shape(const ckpt *c, long *sm_count, long *smem_per_block);

/* Refuse a checkpoint that this run cannot continue bit for bit: another config text (the first
 * differing line is named), mcens version or revision, backend or precision. */
int ckpt_check(const ckpt *c, const ckpt_info *now, const char *config_path, mc_err *err);

/* Bind the checkpoint to the restarted run's plan and this rank's first chain; then ckpt_restore
 * (an mc_run_restore, ctx = the ckpt) fills the chains. */
void ckpt_bind(ckpt *c, const mc_plan *plan, int first_chain);
int ckpt_restore(void *ctx, mc_chain *const *chains, int nchains, long *sweeps_done, mc_err *err);

#endif
