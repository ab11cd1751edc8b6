/* ens_run: drive the rounds of all ranks in step, report progress, pool the results. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ens.h"
#include "mc_test_hooks.h"
#include "tmmc.h"

/* The rate and the time left from the sweeps this process has run (since sweeps0: a restart or an
 * --extend starts part-way, and the sweeps before it took none of this run's time). */
static void print_progress(const mc_run *run, long sweeps0, double elapsed_s, int nchains)
{
    long done = mc_run_sweeps_done(run), total = mc_run_sweeps_total(run), run_here = done - sweeps0;
    double rate = run_here * (double)nchains / elapsed_s; /* chain-sweeps per second, all ranks */
    double eta_s = run_here > 0 ? elapsed_s * (total - done) / run_here : 0.0;
    printf("progress %5.1f%%  %10.1f sweeps/s  ETA %02d:%02d:%02d\n", 100.0 * done / total, rate,
           (int)(eta_s / 3600), (int)(eta_s / 60) % 60, (int)eta_s % 60);
    fflush(stdout);
}

/* Test hook MC_TEST_FAIL_RANK: rank R fails its first round, so the tests can check that one
 * failing rank ends the whole job cleanly. */
static int injected_failure(const ens_layout *l, mc_err *err)
{
    const char *v = mc_test_hook(MC_TEST_FAIL_RANK);
    if (v && atoi(v) == l->rank) MC_FAIL(err, MC_ECHECK, "injected failure (MCENS_TEST_FAIL_RANK)");
    return MC_OK;
}

/* Test hooks MC_TEST_SIGNAL_AT and MC_TEST_KILL_AT: rank R sends itself SIGUSR1 (a stop request) or
 * SIGKILL (a crash) once S sweeps are done, so that the tests can stop a run at a chosen point
 * instead of racing a timer. *raised keeps it to once. */
static void injected_signal(const ens_layout *l, long sweeps, int *raised)
{
    static const struct { enum mc_test_hook_id hook; int sig; } hooks[] = {
        {MC_TEST_SIGNAL_AT, SIGUSR1}, {MC_TEST_KILL_AT, SIGKILL}};
    for (int h = 0; h < 2; h++) {
        long at;
        if (*raised || !mc_test_hook_rank_sweep(hooks[h].hook, l->rank, &at) || sweeps < at) continue;
        *raised = 1;
        raise(hooks[h].sig);
    }
}

/* What the ranks agree on after every round, in one reduction (MPI_MAX): the lowest failing rank
 * (as -rank), the stop signal any rank received, and rank 0's verdict that a checkpoint is due. */
enum { AT_FAILED, AT_SIGNAL, AT_CHECKPOINT, AT_N };

/* The reduction, with a deadline. A rank that is stopped (SIGSTOP), hung in a device call or gone
 * without the runtime noticing never joins it; the others give up after timeout_s and end the job
 * with a message instead of waiting (and spinning) forever. Polling sleeps after the first 10 ms,
 * so a short round costs no latency and a long wait no CPU. */
/* Poll the n requests until they complete; past timeout_s print the message that `where` finishes
 * ("after sweep 12", "in the run's setup") and end the job. */
static int wait_polling(const ens_layout *l, int n, MPI_Request *req, double timeout_s, const char *where,
                        mc_err *err)
{
    double start = MPI_Wtime();
    for (int done = 0; !done;) {
        MC_TRY(ens_mpi_check(MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE), "MPI_Testall", err));
        double waited = MPI_Wtime() - start;
        if (done) break;
        if (waited > timeout_s) {
            fprintf(stderr, "mcens: error: rank %d on %s: %s the other ranks did not report within "
                    "%.0f s: at least one is stopped, hung or dead; ending the job (the last checkpoint is "
                    "kept; raise [run] stall_timeout if the ranks really differ that much)\n",
                    l->rank, l->host, where, timeout_s);
            fflush(stderr);
            MPI_Abort(l->comm, 1);
        }
        if (waited > 0.01) nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    return MC_OK;
}

int ens_wait_within(const ens_layout *l, int n, MPI_Request *req, double timeout_s, long sweep, mc_err *err)
{
    char where[48];
    snprintf(where, sizeof where, "after sweep %ld", sweep);
    return wait_polling(l, n, req, timeout_s, where, err);
}

int ens_agree_within(const ens_layout *l, int status, double timeout_s, const char *where, mc_err *err)
{
    /* a polled barrier first, so that a rank that never arrives ends the job; then the agreement
     * (ens_agree: the failing rank's message to every rank), whose collectives all ranks have reached */
    MPI_Request req;
    MC_TRY(ens_mpi_check(MPI_Ibarrier(l->comm, &req), "MPI_Ibarrier", err));
    MC_TRY(wait_polling(l, 1, &req, timeout_s, where, err));
    return ens_agree(l->comm, status, err);
}

static int reduce_within(const ens_layout *l, int *in, int *out, double timeout_s, long sweep, mc_err *err)
{
    MPI_Request req;
    MC_TRY(ens_mpi_check(MPI_Iallreduce(in, out, AT_N, MPI_INT, MPI_MAX, l->comm, &req), "MPI_Iallreduce", err));
    return ens_wait_within(l, 1, &req, timeout_s, sweep, err);
}

/* A collective write between rounds (a trajectory frame, a checkpoint) under the watchdog: HDF5's
 * collectives cannot poll, so a rank that stops during one would leave the others waiting. The
 * deadline allows for the slowest round and checkpoint seen so far ten times over, beside the
 * stall deadline and the write's allowance. */
static int write_within(const ens_layout *l, const ens_schedule *s, double longest_round, ens_outcome *out,
                        int (*write)(void *ctx, mc_err *err), const char *what, double *longest, mc_err *err)
{
    double start = MPI_Wtime();
    double deadline = s->stall_timeout_s + 10.0 * (longest_round + out->longest_checkpoint_s) + s->write_allowance_s;
    MC_TRY(ens_watchdog_arm(l, deadline, what, err));
    int rc = write(s->ctx, err);
    ens_watchdog_disarm();
    if (longest) *longest = fmax(*longest, MPI_Wtime() - start);
    return rc;
}

int ens_drive(const ens_layout *l, mc_run *run, const ens_schedule *s, ens_outcome *out, mc_err *err)
{
    const double progress_every_s = 5.0;
    double start = MPI_Wtime(), last = start, last_checkpoint = start, longest_round = 0.0;
    int nchains_total = 0, first = 1, raised = 0;
    long sweeps0 = mc_run_sweeps_done(run), checkpointed_at = -1;
    memset(out, 0, sizeof *out);
    for (int r = 0; r < l->size; r++) nchains_total += l->chains_of[r];
    while (!mc_run_finished(run)) {
        double round_start = MPI_Wtime();
        int rc = mc_run_round(run, err);
        if (rc == MC_OK && first) rc = injected_failure(l, err);
        first = 0;
        injected_signal(l, mc_run_sweeps_done(run), &raised);
        double now = MPI_Wtime();
        if (now - round_start > longest_round) longest_round = now - round_start;
        /* a signal, else rank 0's clock past stop_at (one clock, so that every rank agrees) */
        const int sig = ens_signal_received();
        const int stop = sig ? sig : l->rank == 0 && s->stop_at > 0 && now >= s->stop_at ? ENS_STOPPED_BY_TIME : 0;
        int in[AT_N] = {rc != MC_OK ? -l->rank : -l->size, stop,
                        l->rank == 0 && ((s->checkpoint_every_s > 0 && now - last_checkpoint >= s->checkpoint_every_s) ||
                                         (s->checkpoint_every_s > 0 && mc_run_equilibrated_now(run)))};
        int all[AT_N];
        MC_TRY(reduce_within(l, in, all, s->stall_timeout_s + 10.0 * longest_round, mc_run_sweeps_done(run), err));
        if (all[AT_FAILED] != -l->size) return ens_agree(l->comm, rc, err); /* the failing rank's message */
        if (s->after_round) {
            double t = MPI_Wtime();
            MC_TRY(write_within(l, s, longest_round, out, s->after_round, "a trajectory frame's write", NULL, err));
            out->after_round_seconds += MPI_Wtime() - t;
        }
        if (all[AT_SIGNAL] || all[AT_CHECKPOINT]) {
            double t = MPI_Wtime();
            MC_TRY(write_within(l, s, longest_round, out, s->checkpoint, "a checkpoint write", &out->longest_checkpoint_s, err));
            checkpointed_at = mc_run_sweeps_done(run);
            last_checkpoint = MPI_Wtime();
            out->checkpoint_seconds += last_checkpoint - t;
        }
        if (all[AT_SIGNAL]) {
            out->stopped_by = all[AT_SIGNAL];
            break;
        }
        now = MPI_Wtime();
        if (!s->quiet && l->rank == 0 && now - last >= progress_every_s) {
            print_progress(run, sweeps0, now - start, nchains_total);
            last = now;
        }
    }
    /* the last state too, whatever checkpoint_every says, so that --extend can go on from it and a
     * failed output write loses nothing (unless the last round wrote it already) */
    /* the rounds' time without the checkpoints' and frames', so that moves/s measures the sampling */
    double end = MPI_Wtime();
    out->seconds = end - start - out->checkpoint_seconds - out->after_round_seconds;
    if (!out->stopped_by && mc_run_sweeps_done(run) > sweeps0 && checkpointed_at != mc_run_sweeps_done(run)) {
        MC_TRY(write_within(l, s, longest_round, out, s->checkpoint, "a checkpoint write", &out->longest_checkpoint_s, err));
        out->checkpoint_seconds += MPI_Wtime() - end;
    }
    MC_TRY(ens_agree(l->comm, mc_run_fetch(run, err), err));
    out->sweeps_run = mc_run_sweeps_done(run) - sweeps0;
    out->longest_round_s = longest_round;
    return ens_mpi_check(MPI_Bcast(&out->seconds, 1, MPI_DOUBLE, 0, l->comm), "MPI_Bcast", err);
}

/* Per-chain estimates travel as raw bytes: each rank's chains are one contiguous block, so an
 * all-gather of blocks assembles the full arrays without arithmetic on them. */
static int gather_chain_block(const ens_layout *l, void *array, size_t elem, mc_err *err)
{
    int *counts = malloc((size_t)l->size * sizeof *counts);
    int *displs = malloc((size_t)l->size * sizeof *displs);
    if (!counts || !displs) {
        free(counts), free(displs);
        MC_FAIL(err, MC_ENOMEM, "out of memory");
    }
    for (int r = 0; r < l->size; r++) {
        counts[r] = (int)(l->chains_of[r] * elem);
        displs[r] = (int)(l->first_of[r] * elem);
    }
    int rc = ens_mpi_check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, array, counts, displs,
                                          MPI_BYTE, l->comm), "MPI_Allgatherv", err);
    free(counts);
    free(displs);
    return rc;
}

int ens_pool(const ens_layout *l, const mc_plan *plan, const mc_run *run, mc_results *res,
             mc_err *err)
{
    for (int k = 0; k < mc_run_nchains(run); k++) mc_results_add_chain(res, plan, mc_run_chain(run, k));
    for (int o = 0; o < MC_NOBS; o++) /* every observable of the table the run has */
        if (res->chain_obs[o]) MC_TRY(gather_chain_block(l, res->chain_obs[o], sizeof(mc_estimate), err));
    for (int o = 0; o < MC_NOBS; o++)
        if (res->chain_equilibration[o]) MC_TRY(gather_chain_block(l, res->chain_equilibration[o], sizeof(mc_equilibration), err));
    MC_TRY(gather_chain_block(l, res->chain_widom, res->widom_kinds * sizeof *res->chain_widom, err));
    MC_TRY(gather_chain_block(l, res->chain_max_displacement, sizeof *res->chain_max_displacement,
                              err));
    MC_TRY(gather_chain_block(l, res->chain_rdf_norm, res->npairs * sizeof *res->chain_rdf_norm, err));
    if (plan->ensemble->imposed_pressure)
        MC_TRY(gather_chain_block(l, res->chain_max_volume_step, sizeof *res->chain_max_volume_step, err));
    if (plan->rigid) MC_TRY(gather_chain_block(l, res->chain_max_rotation, sizeof(double), err));
    if (res->exchange_attempts) { /* walkers sit on any rank: each entry is set by one, zero elsewhere */
        MC_TRY(gather_chain_block(l, res->exchange_attempts, sizeof *res->exchange_attempts, err));
        MC_TRY(gather_chain_block(l, res->exchange_accepted, sizeof *res->exchange_accepted, err));
        MC_TRY(ens_mpi_check(MPI_Allreduce(MPI_IN_PLACE, res->walker_traversals, plan->nchains, MPI_UINT64_T, MPI_SUM,
                                           l->comm), "MPI_Allreduce", err));
        /* to rank 0 only, which writes it (an in-place all-reduce would hold a second copy on every rank) */
        size_t total = (size_t)plan->nchains * plan->nsamples, chunk = 1u << 28; /* counts are ints */
        for (size_t at = 0; at < total; at += chunk) {
            int count = (int)(total - at < chunk ? total - at : chunk);
            void *send = l->rank == 0 ? MPI_IN_PLACE : (void *)(res->walker_state + at);
            MC_TRY(ens_mpi_check(MPI_Reduce(send, res->walker_state + at, count, MPI_INT, MPI_SUM, 0, l->comm),
                                 "MPI_Reduce", err));
        }
    }
    if (res->tmmc) { /* every chain's record, bytes as they are: the pooling order is the same on any ranks */
        size_t M = (size_t)res->tmmc->nmacro;
        MC_TRY(gather_chain_block(l, res->tmmc->chain_collection, M * TMMC_ROW * sizeof(double), err));
        MC_TRY(gather_chain_block(l, res->tmmc->chain_energy_sum, M * sizeof(double), err));
        MC_TRY(gather_chain_block(l, res->tmmc->chain_visits, M * sizeof(uint64_t), err));
        MC_TRY(gather_chain_block(l, res->tmmc->chain_bias, M * sizeof(double), err));
    }
    /* integer counts: the sum is exact in any order */
    int sb = (int)((size_t)plan->nstatepoints * res->npairs * plan->rdf_bins); /* the plan bounds it to an int */
    MC_TRY(ens_mpi_check(MPI_Allreduce(MPI_IN_PLACE, res->rdf_counts, sb, MPI_UINT64_T, MPI_SUM,
                                       l->comm), "MPI_Allreduce", err));
    mc_results_pool(res, plan);
    return MC_OK;
}
