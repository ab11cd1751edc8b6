/* traj: the run's trajectory in the H5MD 1.1 layout, inside the output file, written as the run
 * goes. Every chain is a particles group /particles/chain_NNNNNN (zero-padded, so that name order
 * is chain order and a reader that takes the first group gets chain 0) with position, box edges
 * and species, and for rigid molecules each site's molecule and the molecules' centres and
 * orientations. The frames (mc_snapshot.h) are preallocated when the file is made, so writing one
 * touches raw data only: after the flush that precedes every checkpoint the file stays readable
 * whatever happens to the process, and a restart reopens it and writes on from the checkpoint.
 * /observables holds each per-sample series as H5MD time series, written at the end.
 * Every call is collective over the output file's communicator. */
#ifndef TRAJ_H
#define TRAJ_H

#include "h5out.h"
#include "mc_err.h"
#include "mc_plan.h"
#include "mc_run.h"

typedef struct traj traj;

/* Make /h5md and /particles for the plan's chains; this rank owns chains first_chain onward (as
 * many as run holds). author: who ran it (H5MD asks for a name). */
traj *traj_create(h5out *f, const mc_plan *plan, const mc_run *run, int first_chain, const char *author,
                  const char *version, mc_err *err);

/* A resumed run: check that the file's trajectory is this run's and holds every frame taken by
 * `samples` samples, resize it to the plan's frames (an extension has more), and rewrite the steps. */
traj *traj_reopen(h5out *f, const mc_plan *plan, const mc_run *run, int first_chain, long samples, mc_err *err);

/* After a production round: write the frame that falls due at the run's sample count, if any
 * (the positions are fetched from the device first). */
int traj_after_round(traj *t, mc_run *run, mc_err *err);

/* The last frame: the configuration at the end of the run (fetched already). */
int traj_write_final(traj *t, const mc_run *run, mc_err *err);

/* Everything written so far on disk (before a checkpoint that counts these frames). */
int traj_flush(traj *t, mc_err *err);

/* At most how many bytes traj_flush writes: HDF5's metadata cache as it is now, all of it dirty,
 * and its accumulator; the room to claim before it (disk_room.h). */
double traj_flush_bytes(const traj *t);

/* /observables/<name>/{step, time, value [samples][chains]} of every per-sample series. */
int traj_write_observables(traj *t, const mc_run *run, mc_err *err);

void traj_close(traj *t); /* NULL-safe; closes the datasets, not the file */

#endif
