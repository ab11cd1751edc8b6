/* run_lock: one run, one output. Before any compute, rank 0 takes an exclusive lock on
 * OUTPUT.lock (fcntl, so the kernel or the file server drops it when the process dies, however it
 * dies) and checks that the output directory is writable, that OUTPUT may be written, and that
 * the disk has room for the output and two checkpoints. A second run on the same output name is
 * refused while the first holds the lock, so neither can overwrite or claim the other's results.
 * Every call is collective; every rank returns the same status. */
#ifndef RUN_LOCK_H
#define RUN_LOCK_H

#include <mpi.h>
#include <stddef.h>

#include "mc_err.h"

typedef struct run_lock run_lock;

/* Take the lock on OUTPUT.lock. NULL (with the holder named) when another run holds it. */
run_lock *run_lock_take(MPI_Comm comm, const char *output, mc_err *err);

/* The checks before compute: OUTPUT's directory is writable; OUTPUT does not exist unless
 * may_replace; for a fresh run (fresh != 0) there is no stopped run's state (OUTPUT.ckpt with
 * OUTPUT.part) unless may_replace; the file system has `bytes` free. */
int run_lock_preflight(const run_lock *l, int may_replace, int fresh, double bytes, mc_err *err);

/* Drop the lock and remove OUTPUT.lock (rank 0). NULL-safe. */
void run_lock_release(run_lock *l);

#endif
