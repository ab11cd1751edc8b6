/* ens_run: drive the rounds of all ranks in step, report progress, pool the results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ens.h"

static void print_progress(const mc_run *run, double elapsed_s, int nchains)
{
    long done = mc_run_sweeps_done(run), total = mc_run_sweeps_total(run);
    double rate = done * (double)nchains / elapsed_s; /* chain-sweeps per second, all ranks */
    double eta_s = done > 0 ? elapsed_s * (total - done) / done : 0.0;
    printf("progress %5.1f%%  %10.1f sweeps/s  ETA %02d:%02d:%02d\n", 100.0 * done / total, rate,
           (int)(eta_s / 3600), (int)(eta_s / 60) % 60, (int)eta_s % 60);
    fflush(stdout);
}

/* Test hook: MCENS_TEST_FAIL_RANK=R makes rank R fail its first round, so the tests can check
 * that one failing rank ends the whole job cleanly. */
static int injected_failure(const ens_layout *l, mc_err *err)
{
    const char *v = getenv("MCENS_TEST_FAIL_RANK");
    if (v && atoi(v) == l->rank) MC_FAIL(err, MC_ECHECK, "injected failure (MCENS_TEST_FAIL_RANK)");
    return MC_OK;
}

int ens_drive(const ens_layout *l, mc_run *run, int quiet, double *seconds, mc_err *err)
{
    const double progress_every_s = 5.0;
    double start = MPI_Wtime(), last = start;
    int nchains_total = 0, first = 1;
    for (int r = 0; r < l->size; r++) nchains_total += l->chains_of[r];
    while (!mc_run_finished(run)) {
        int rc = mc_run_round(run, err);
        if (rc == MC_OK && first) rc = injected_failure(l, err);
        first = 0;
        MC_TRY(ens_agree(l->comm, rc, err));
        double now = MPI_Wtime();
        if (!quiet && l->rank == 0 && now - last >= progress_every_s) {
            print_progress(run, now - start, nchains_total);
            last = now;
        }
    }
    MC_TRY(ens_agree(l->comm, mc_run_fetch(run, err), err));
    *seconds = MPI_Wtime() - start;
    return ens_mpi_check(MPI_Bcast(seconds, 1, MPI_DOUBLE, 0, l->comm), "MPI_Bcast", err);
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
    MC_TRY(gather_chain_block(l, res->chain_widom, res->widom_kinds * sizeof *res->chain_widom, err));
    MC_TRY(gather_chain_block(l, res->chain_max_displacement, sizeof *res->chain_max_displacement,
                              err));
    MC_TRY(gather_chain_block(l, res->chain_rdf_norm, res->npairs * sizeof *res->chain_rdf_norm, err));
    if (plan->npt)
        MC_TRY(gather_chain_block(l, res->chain_max_volume_step, sizeof *res->chain_max_volume_step, err));
    if (plan->rigid) MC_TRY(gather_chain_block(l, res->chain_max_rotation, sizeof(double), err));
    /* integer counts: the sum is exact in any order */
    int sb = plan->nstatepoints * res->npairs * plan->rdf_bins;
    MC_TRY(ens_mpi_check(MPI_Allreduce(MPI_IN_PLACE, res->rdf_counts, sb, MPI_UINT64_T, MPI_SUM,
                                       l->comm), "MPI_Allreduce", err));
    mc_results_pool(res, plan);
    return MC_OK;
}
