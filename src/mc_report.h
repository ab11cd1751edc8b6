/* mc_report: what mcens prints for a person, on stdout: the plan before a run and the results'
 * tables after it. The numbers come from the plan and the pooled results; nothing here decides. */
#ifndef MC_REPORT_H
#define MC_REPORT_H

#include "cfg.h"
#include "mc_plan.h"
#include "mc_results.h"

/* The state points, ladders and boxes, the memory per rank and the files, then every setting
 * (defaults marked): --dry-run's page and the head of a run's log. */
void mc_report_plan(const cfg *c, const mc_plan *p, const char *output, int chains_per_rank);

/* The results pooled over replicas, one row per state point: U/N and P (NPT also density and H/N;
 * an open cluster C_V/N and the Lindemann index; Gibbs the coexisting phases), and replica
 * exchange's acceptance and round trips. */
void mc_report_summary(const mc_plan *p, const mc_results *r);

#endif
