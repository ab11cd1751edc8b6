/* ens_exchange: replica exchange between ranks. Every rank gathers every chain's energy, box and N
 * and takes all decisions itself (mc_exchange_decide is a pure function of them and the seed), so
 * the ranks agree without a broadcast; configurations then travel only between the two ranks of
 * each accepted swap. Every wait has the run's stall deadline, so a rank that stops answering ends
 * the job instead of hanging it. */
#include <stdio.h>
#include <stdlib.h>

#include "ens.h"
#include "mc_test_hooks.h"

enum { WIRE = 4 }; /* doubles per chain in the gather: energy, box, particles, the rank's status */

static double deadline(const ens_exchange *x) { return x->stall_timeout_s + 10.0 * x->longest_s; }

static int gather(void *ctx, long sweep, const mc_exchange_config *mine, int status, mc_exchange_config *all,
                  mc_err *err)
{
    ens_exchange *x = ctx;
    const ens_layout *l = x->layout;
    double now = MPI_Wtime();
    if (now - x->last_s > x->longest_s) x->longest_s = now - x->last_s;
    double *own = x->wire + (size_t)WIRE * l->first_chain;
    for (int k = 0; k < l->nchains; k++)
        own[WIRE * k] = mine[k].energy_pair, own[WIRE * k + 1] = mine[k].box_len, own[WIRE * k + 2] = mine[k].particles,
        own[WIRE * k + 3] = status;
    MPI_Request req;
    MC_TRY(ens_mpi_check(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x->wire, x->counts, x->displs,
                                         MPI_DOUBLE, l->comm, &req), "MPI_Iallgatherv", err));
    MC_TRY(ens_wait_within(l, 1, &req, deadline(x), sweep, err));
    int failed = 0;
    for (int r = 0; r < l->size; r++) failed |= x->wire[(size_t)WIRE * l->first_of[r] + 3] != MC_OK;
    if (failed) return ens_agree(l->comm, status, err); /* every rank is here: share the message */
    int C = l->first_of[l->size - 1] + l->chains_of[l->size - 1];
    for (int c = 0; c < C; c++)
        all[c] = (mc_exchange_config){x->wire[WIRE * c], x->wire[WIRE * c + 1], x->wire[WIRE * c + 2]};
    x->last_s = MPI_Wtime();
    return MC_OK;
}

/* Test hook MC_TEST_FAIL_EXCHANGE (rank R, sweep S): rank R fails the first exchange step at or
 * after sweep S between its decisions and its trades, as a device error there would. */
static int injected_failure(const ens_layout *l, long sweep, int status, mc_err *err)
{
    long at;
    if (status != MC_OK || !mc_test_hook_rank_sweep(MC_TEST_FAIL_EXCHANGE, l->rank, &at) || sweep < at) return status;
    return mc_err_set(err, MC_ECHECK, "injected exchange failure at sweep %ld (MCENS_TEST_FAIL_EXCHANGE)", sweep);
}

/* Every rank's status under the deadline; a failure anywhere becomes every rank's, with the
 * failing rank's message. */
static int agree(void *ctx, long sweep, int status, mc_err *err)
{
    ens_exchange *x = ctx;
    status = injected_failure(x->layout, sweep, status, err);
    int mine = status != MC_OK, any = 0;
    MPI_Request req;
    MC_TRY(ens_mpi_check(MPI_Iallreduce(&mine, &any, 1, MPI_INT, MPI_MAX, x->layout->comm, &req), "MPI_Iallreduce",
                         err));
    MC_TRY(ens_wait_within(x->layout, 1, &req, deadline(x), sweep, err));
    return any ? ens_agree(x->layout->comm, status, err) : MC_OK;
}

static int rank_of(const ens_layout *l, int chain)
{
    int lo = 0, hi = l->size - 1; /* the last rank whose block starts at or before chain */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (l->first_of[mid] <= chain) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static int trade(void *ctx, long sweep, int ntrades, const int *chain, const int *peer, double *const *send,
                 double *const *recv, size_t len, mc_err *err)
{
    ens_exchange *x = ctx;
    const ens_layout *l = x->layout;
    MPI_Request *req = malloc(2 * (size_t)ntrades * sizeof *req);
    if (!req) MC_FAIL(err, MC_ENOMEM, "out of memory for replica exchange");
    int rc = MC_OK, posted = 0;
    /* A pair's tag is its lower chain, folded into the 32768 tags MPI always allows. Matching does
     * not rest on it: both ranks post their trades in chain order, and a ladder's chains rise with
     * its rungs by a fixed step, so the two lists are in the same order, which MPI's non-overtaking
     * rule keeps even where two tags coincide (and the receiver checks the sender's id). */
    for (int i = 0; rc == MC_OK && i < ntrades; i++) {
        int rank = rank_of(l, peer[i]), tag = (chain[i] < peer[i] ? chain[i] : peer[i]) % 32768;
        rc = ens_mpi_check(MPI_Irecv(recv[i], (int)len, MPI_DOUBLE, rank, tag, l->comm, &req[posted]), "MPI_Irecv", err);
        if (rc == MC_OK) posted++;
        if (rc == MC_OK)
            rc = ens_mpi_check(MPI_Isend(send[i], (int)len, MPI_DOUBLE, rank, tag, l->comm, &req[posted]), "MPI_Isend", err);
        if (rc == MC_OK) posted++;
    }
    if (rc == MC_OK) rc = ens_wait_within(l, posted, req, deadline(x), sweep, err);
    else /* the buffers must not be written after this returns */
        for (int i = 0; i < posted; i++) MPI_Cancel(&req[i]), MPI_Request_free(&req[i]);
    free(req);
    return rc;
}

int ens_exchange_attach(ens_exchange *x, const ens_layout *l, mc_run *run, double stall_timeout_s, mc_err *err)
{
    const mc_plan *p = mc_run_plan(run);
    *x = (ens_exchange){l, run, stall_timeout_s, MPI_Wtime(), 0.0, NULL, NULL, NULL};
    if (!p->exchange_every) return MC_OK;
    x->wire = calloc((size_t)WIRE * p->nchains, sizeof *x->wire);
    x->counts = malloc((size_t)l->size * sizeof *x->counts);
    x->displs = malloc((size_t)l->size * sizeof *x->displs);
    if (!x->wire || !x->counts || !x->displs)
        MC_FAIL(err, MC_ENOMEM, "out of memory for replica exchange over %d chains", p->nchains);
    for (int r = 0; r < l->size; r++) x->counts[r] = WIRE * l->chains_of[r], x->displs[r] = WIRE * l->first_of[r];
    mc_run_set_exchange_transport(run, &(mc_run_exchange_transport){gather, agree, trade, x});
    return MC_OK;
}

void ens_exchange_detach(ens_exchange *x)
{
    free(x->wire), free(x->counts), free(x->displs);
    x->wire = NULL, x->counts = x->displs = NULL;
}
