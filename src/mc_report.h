/* mc_report: what mcens prints for a person, on stdout: the plan before a run and the results'
 * tables after it. The numbers come from the plan and the pooled results; nothing here decides. */
#ifndef MC_REPORT_H
#define MC_REPORT_H

#include "cfg.h"
#include "mc_plan.h"
#include "mc_energy.h"
#include "mc_results.h"
#include "mc_run.h"

/* The estimated wall time of a run (main.c's estimate_wall_time). */
typedef struct mc_report_time {
    mc_run_cost cost;  /* the calibrating rank's (rank 0's) */
    double seconds;    /* the slowest rank's estimate; NaN: not estimated */
    int ranks;
    int restart;       /* a restart runs only the sweeps left */
    const char *why_not; /* NaN seconds: the error that stopped the estimate, or NULL (not asked) */
} mc_report_time;

/* The state points, ladders and boxes, the memory per rank, the files and the estimated wall time,
 * then every setting (defaults marked): --dry-run's page. */
void mc_report_plan(const cfg *c, const mc_plan *p, const char *output, int chains_per_rank,
                    const mc_report_time *time);

/* mcens --energy: every chain's energy terms (terms[chain][term]), one row a chain, the columns
 * that apply to the plan (mc_energy_applies), in the run's energy unit. */
void mc_report_energy(const mc_plan *p, const double (*terms)[MC_NENERGY_TERMS]);

/* The results pooled over replicas, one row per state point: U/N and P (NPT also density and H/N;
 * an open cluster C_V/N and the Lindemann index; Gibbs the coexisting phases), and replica
 * exchange's acceptance and round trips. */
void mc_report_summary(const mc_plan *p, const mc_results *r);

/* Warnings on stderr about pooled results (rank 0 calls them): a replica-exchange pair that swapped
 * nothing, with a rung to put between; chains not stationary in production; infinite chemical
 * potentials with their likely cause (returns how many, which make the exit status 4; say = 0
 * counts without printing). */
void mc_report_warn_no_exchange(const mc_plan *p, const mc_results *r);
void mc_report_warn_not_stationary(const mc_plan *p, const mc_results *r);
long mc_report_warn_not_finite(const mc_plan *p, const mc_results *r, int say);

#endif
