/* mc_gcmc: the grand-canonical ensemble at fixed temperature, volume and activity z, with
 * transition-matrix sampling of the macrostate distribution ln Pi(N) (tmmc.h). z = exp(mu / kT) /
 * Lambda^3 in the length unit^-3, NIST's convention: an ideal gas at activity z has density z.
 *
 * A chain holds n_max particle slots of each species, each present (label 0) or absent (label 1): the Gibbs
 * ensemble's box labels (mc_gibbs.h) with box 1 an ideal reservoir that interacts with nothing, so
 * the Gibbs moves' draws and counts serve both. Each step draws a move with mc_gibbs_draw (the
 * volume fraction is 0):
 *   displacement  a present particle drawn uniformly, moved as in nvt;
 *   insertion     (a transfer out of box 1) N -> N + 1 at a point uniform in the box:
 *                 acc = min(1, z V / (N + 1) exp(-beta dU));
 *   deletion      (a transfer out of box 0) a present particle drawn uniformly, N -> N - 1:
 *                 acc = min(1, N / (z V) exp(-beta dU))
 * (Frenkel & Smit, 2nd ed., 5.6), N and z those of the move's species (drawn uniformly, a mixture's
 * each at its own activity: the axis's ln z plus [mixture] lnz), dU including the change of the
 * tail correction. The macrostate is the total N; a sweep is n_max trial moves. Which
 * absent slot an insertion fills does not matter (absent particles have no coordinates that count):
 * the lowest one, so that nothing is drawn for it.
 *
 * Every insertion or deletion attempt adds its unbiased acceptance to the chain's collection row of
 * its N (tmmc_collect), also where the chain's window forbids the move, which is then rejected. With
 * [tmmc] bias the move is accepted with the log ratio plus ln Pi(N) - ln Pi(N') of the chain's own
 * estimate (mc_chain.tmmc_bias), which the ensemble's sweeps update from its collection after every
 * call (mc_ensemble.c): N then walks flat over the window. The collection starts again when
 * production begins, with the bias learned in equilibration kept.
 *
 * Windows: the chains of a state point are windows x replicas (window-major, as replicas are
 * state-point-major); window w of W covers macrostates [lo_w, hi_w], equal shares of [n_min, n_max]
 * whose edges neighbouring windows share, so their rows meet and add up to one matrix. */
#ifndef MC_GCMC_H
#define MC_GCMC_H

#include <math.h>
#include <stdint.h>

#include "mc_hd.h"
#include "mc_move.h"

/* ln of the acceptance ratio of an insertion into a box of this volume holding n particles, dU its
 * energy change (tail included). */
MC_HD double mc_gcmc_insertion_log_ratio(double dU, double beta, double lnz, double volume, double n)
{
    return -beta * dU + lnz + log(volume / (n + 1.0));
}

/* ln of the acceptance ratio of a deletion from a box of this volume holding n particles. */
MC_HD double mc_gcmc_deletion_log_ratio(double dU, double beta, double lnz, double volume, double n)
{
    return -beta * dU - lnz + log(n / volume);
}

/* The unbiased acceptance probability min(1, ratio) that a collection row adds. */
MC_HD double mc_gcmc_probability(double log_ratio) { return log_ratio >= 0.0 ? 1.0 : exp(log_ratio); }

/* The Metropolis test of a move with this log ratio (the bias added), against the step's threshold
 * -ln u: accepted when ln ratio > ln u. NaN is rejected. */
MC_HD int mc_gcmc_accept(double log_ratio, uint64_t seed, uint32_t chain, uint64_t step)
{
    return log_ratio >= 0.0 || -log_ratio < mc_accept_threshold(seed, chain, step);
}

#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mc_chain;

/* The macrostates a chain of the plan may visit: [*lo, *hi] of its window. */
void mc_gcmc_window(const mc_plan *p, int chain, int *lo, int *hi);

/* A new chain's labels: N = lo of its window present, shared out over the species (the first slots
 * of each species' block; its points already placed, in shuffled order), the others absent; its box
 * is box 0. */
void mc_gcmc_start(const mc_plan *p, struct mc_chain *c);

/* The CPU backends' insertion and deletion (cpu_gibbs.c for atoms, cpu_gibbs_rigid.c for molecules;
 * the GPU's cu_gibbs.cu has their twin), apart from placing the particle and its energy:
 * mc_gcmc_attempt: counts the attempt; 0 for a deletion with no particle of the kind present,
 * collected as an attempt that cannot be accepted (nothing more to do), else 1;
 * mc_gcmc_tail_change: the tail correction's change when a particle of `kind` is inserted, or with
 * its sign turned, deleted (the box's counts and volume now);
 * mc_gcmc_decide: the move's unbiased acceptance collected in the row of the chain's N, then whether
 * it is taken: allowed by the window, and accepted with the bias added (mc_gcmc_accept);
 * mc_gcmc_taken: a taken move's counts, energies (pair: the particle's pair energy) and counters. */
double mc_gcmc_tail_change(const mc_plan *p, const struct mc_chain *c, int kind, int insertion);
int mc_gcmc_decide(const mc_plan *p, struct mc_chain *c, uint64_t step, int insertion, double log_ratio);
int mc_gcmc_attempt(const mc_plan *p, struct mc_chain *c, uint64_t step, int kind, int insertion);
void mc_gcmc_taken(struct mc_chain *c, int kind, int insertion, double pair);

/* After every trial move: the chain's total potential energy (tail included) into the sums of its N,
 * and one more visit there. */
void mc_gcmc_record(const mc_plan *p, struct mc_chain *c);

/* The chain's bias: ln Pi over its window from its collection so far (missing transitions flat). */
void mc_gcmc_update_bias(const mc_plan *p, struct mc_chain *c);

/* Production begins: the collection, energies and visits start again (the bias is kept). */
void mc_gcmc_restart_collection(const mc_plan *p, struct mc_chain *c);

/* The window of a chain (0 .. plan->tmmc_windows - 1) and its replica within the window. */
static inline int mc_gcmc_window_of(const mc_plan *p, int chain)
{
    return (chain % p->replicas) / (p->replicas / p->tmmc_windows);
}
static inline int mc_gcmc_replica_of(const mc_plan *p, int chain) { return chain % (p->replicas / p->tmmc_windows); }

/* ln z of kind a at the chain's state point: the axis's value plus the kind's own ([mixture] lnz). */
static inline double mc_gcmc_lnz(const mc_plan *p, int statepoint, int a)
{
    return p->statepoint[statepoint].lnz + p->kind_lnz[a];
}

/* Macrostates of ln Pi: n_min .. n_max. */
static inline int mc_gcmc_macrostates(const mc_plan *p) { return p->tmmc_n_max - p->tmmc_n_min + 1; }

#ifdef __cplusplus
}
#endif
#endif
