/* ens: the ensemble layer. Spreads a plan's chains over MPI ranks in contiguous blocks, binds each
 * rank to a GPU by its node-local rank, drives the rounds of every rank in step (agreeing on failure
 * after each, so no rank is left waiting), and pools the results by reduction. */
#ifndef ENS_H
#define ENS_H

#include <mpi.h>

#include "mc_backend.h"
#include "mc_err.h"
#include "mc_plan.h"
#include "mc_results.h"
#include "mc_run.h"

typedef struct ens_layout {
    MPI_Comm comm;
    int rank, size;
    int local_rank, local_size; /* within the node (MPI_COMM_TYPE_SHARED) */
    int first_chain, nchains;   /* this rank's contiguous block of chains */
    int *chains_of;             /* [size] chains per rank, for gathers */
    int *first_of;              /* [size] first chain per rank */
    char host[256];
} ens_layout;

/* Rank 0 reads the file and broadcasts its text; every rank returns the same status. */
int ens_read_text(MPI_Comm comm, const char *path, char **text, mc_err *err);

/* Block distribution of nchains over the ranks of comm; more ranks than chains is an error. */
int ens_layout_init(ens_layout *l, MPI_Comm comm, int nchains, mc_err *err);
void ens_layout_fini(ens_layout *l);

/* Agree on failure: every rank passes its own status; all return the same one. On failure, err on
 * every rank holds the message of the lowest failing rank, prefixed with that rank. */
int ens_agree(MPI_Comm comm, int status, mc_err *err);

/* Gather one line per rank and print them in rank order on rank 0 (to stream). */
int ens_print_ordered(const ens_layout *l, const char *line, FILE *stream, mc_err *err);

/* How ens_drive paces a run besides its rounds. */
typedef struct ens_schedule {
    int quiet;                 /* no progress lines */
    double checkpoint_every_s; /* wall time between checkpoints; 0: only when a signal stops the run */
    double stall_timeout_s;    /* how long to wait for the other ranks after a round (plus ten of
                                  this rank's longest rounds) before ending the job as hung */
    int (*after_round)(void *ctx, mc_err *err); /* collective, after every round the ranks agreed
                                                    on and before its checkpoint (a trajectory frame) */
    int (*checkpoint)(void *ctx, mc_err *err); /* collective: write one */
    double write_allowance_s; /* a checkpoint's deadline beyond the stall deadline: its bytes at a
                                 slow file system's rate (ens_watchdog) */
    void *ctx;
    double stop_at; /* MPI_Wtime() on rank 0 after which the run stops at a round's end as a stop
                       signal stops it (--stop-after); 0: never */
} ens_schedule;

/* ens_outcome.stopped_by of a run that ens_schedule.stop_at stopped (no signal has this number) */
enum { ENS_STOPPED_BY_TIME = 1000 };

typedef struct ens_outcome {
    double seconds;  /* wall time of the rounds without the checkpoints and frames, rank 0's (the
                        same on every rank) */
    double checkpoint_seconds; /* wall time of the checkpoints written */
    double after_round_seconds; /* wall time of the after_round calls (trajectory frames) */
    double longest_round_s, longest_checkpoint_s; /* this rank's: what the deadlines after the rounds allow for */
    long sweeps_run; /* per chain, by this invocation (a restart counts only its own) */
    int stopped_by;  /* the stop signal that ended the run early (a checkpoint was written),
                        ENS_STOPPED_BY_TIME (stop_at), or 0 */
} ens_outcome;

/* Run the rounds to the end, agreeing after each on failures, stop signals and whether a
 * checkpoint is due (rank 0's clock decides, so every rank writes the same one): a checkpoint
 * every checkpoint_every_s, at the end of equilibration and at the end; rank 0 prints progress. */
int ens_drive(const ens_layout *l, mc_run *run, const ens_schedule *s, ens_outcome *out, mc_err *err);

/* Wait for n requests, polling; a rank that does not join within timeout_s (stopped, hung or dead)
 * ends the job with MPI_Abort and a message naming the sweep, rather than leaving it hanging. */
int ens_wait_within(const ens_layout *l, int n, MPI_Request *req, double timeout_s, long sweep, mc_err *err);

/* ens_agree for a phase of local work that may take long on some rank (building the chains): the
 * ranks meet in a polled barrier first, and one that does not arrive within timeout_s (stopped,
 * hung or dead) ends the job with a message naming `where` ("after building the chains"). */
int ens_agree_within(const ens_layout *l, int status, double timeout_s, const char *where, mc_err *err);

/* A deadline for a phase that waits in blocking collectives (a checkpoint, the output write,
 * MPI_Finalize): if it has not been disarmed within seconds, this rank prints that what did not
 * finish, naming itself, and exits with status 1, which ends the job. Arming again replaces the
 * deadline. */
int ens_watchdog_arm(const ens_layout *l, double seconds, const char *what, mc_err *err);
/* The same before the layout exists (the run's setup): the message names the rank of MPI_COMM_WORLD
 * and this host. */
int ens_watchdog_arm_early(double seconds, const char *what, mc_err *err);
void ens_watchdog_disarm(void);
/* A known wait inside the phase (for room on a full disk): the deadline moves by seconds, if armed. */
void ens_watchdog_extend(double seconds);

/* Replica exchange between the ranks' chains (mc_run's transport, mc_exchange.h): all-gathers of
 * every chain's energy and box, and point-to-point trades of configurations. */
typedef struct ens_exchange {
    const ens_layout *layout;
    const mc_run *run;
    double stall_timeout_s; /* plus ten times the longest stretch between two exchange steps */
    double last_s, longest_s;
    double *wire;           /* [3 nchains]: energy, box, status per chain */
    int *counts, *displs;   /* [ranks] the gather's blocks, in doubles */
} ens_exchange;

/* Connect run to the other ranks for replica exchange (nothing without it in the plan). */
int ens_exchange_attach(ens_exchange *x, const ens_layout *l, mc_run *run, double stall_timeout_s, mc_err *err);
void ens_exchange_detach(ens_exchange *x);

/* SIGTERM, SIGINT and SIGUSR1 ask the run to stop after its current round with a checkpoint; the
 * same signal a second time ends the process at once. */
int ens_signals_install(mc_err *err);
int ens_signal_received(void); /* the last stop signal, or 0 */

/* Pool this rank's finished chains with every other rank's into res (identical on all ranks). */
int ens_pool(const ens_layout *l, const mc_plan *plan, const mc_run *run, mc_results *res,
             mc_err *err);

/* Check an MPI return code (the communicator uses MPI_ERRORS_RETURN). */
int ens_mpi_check(int mpi_rc, const char *what, mc_err *err);

#endif
