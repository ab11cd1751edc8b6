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

/* Run every round to the end, agreeing after each; rank 0 prints progress unless quiet.
 * *seconds: wall time of the rounds (the same on every rank: they end together). */
int ens_drive(const ens_layout *l, mc_run *run, int quiet, double *seconds, mc_err *err);

/* Pool this rank's finished chains with every other rank's into res (identical on all ranks). */
int ens_pool(const ens_layout *l, const mc_plan *plan, const mc_run *run, mc_results *res,
             mc_err *err);

/* Check an MPI return code (the communicator uses MPI_ERRORS_RETURN). */
int ens_mpi_check(int mpi_rc, const char *what, mc_err *err);

#endif
