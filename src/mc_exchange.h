/* mc_exchange: replica exchange (parallel tempering) between the state points of a ladder.
 *
 * A ladder is the chains of one replica index along [ensemble] exchange_axis, the other axis
 * fixed: along temperature at each density (npt: each pressure), or along pressure at each
 * temperature. Rung r of a ladder is its r-th value in the config's order. After every
 * plan->exchange_every sweeps (exchange step e = sweeps done / exchange_every), neighbouring rungs
 * (r, r + 1) with r even on even steps, odd on odd ones, try to swap; every pair's decision is a
 * Metropolis test on the numbers of the whole ensemble, keyed by (seed, ladder, e), so every rank
 * takes the same decisions and a run is bit-identical on any number of ranks.
 *
 * What a swap trades. A chain is its state point's slot: it keeps its state point, its step sizes,
 * its random stream and everything it sums over samples (series, RDF, Widom record). An accepted
 * swap trades the two chains' configurations (positions, molecular centres and orientations, box,
 * running energy) and with them the walker record: which chain's start the configuration is, and
 * where it has been on the ladder. Moving a configuration costs 24 N bytes (a copy, or one message
 * between ranks), against the N moves of every sweep between two attempts; moving the state would
 * drag every per-state sum (an open cluster's Lindemann pair sums are 8 N^2 bytes) and make every
 * sample's state point depend on the path. The walkers' paths are stored per sample, so that
 * each walker's route through the ladder is in the output (/chains/walker, /chains/state).
 *
 * Acceptance. With H_s(X) = U(X) + N u_tail(N/V_X, T_s) + P_s V_X the configurational enthalpy of
 * configuration X at state s (P_s = 0 in nvt; U includes the wall), a swap of X_a (at state a) and
 * X_b (at b) is accepted with min(1, exp(-delta)),
 *   delta = beta_a H_a(X_b) + beta_b H_b(X_a) - beta_a H_a(X_a) - beta_b H_b(X_b),
 * which is (beta_a - beta_b)(U_b - U_a) (+ the p V terms) for a temperature ladder, the rule of
 * Swendsen & Wang (1986) and Okabe et al. (2001) for pressure.
 *
 * The grand-canonical ensemble (type = gcmc, [tmmc] bias = no, one window) weighs a configuration
 * of N particles at state s by z_s^N V^N / N! exp(-beta_s H_s), H_s = U + N's tail energy; V^N / N!
 * belongs to the configuration and cancels in a swap, and (mixtures) each kind's ln z is the state
 * point's plus a constant offset, which cancels too, so beta_s H_s(X) becomes beta_s H(X) - N_X ln z_s:
 * along lnz delta = (ln z_a - ln z_b)(N_a - N_b), the hyper-parallel tempering of Yan and de Pablo
 * (1999) (along temperature at one ln z it would be (beta_a - beta_b)(H_b - H_a): cfg_check.c refuses
 * that ladder until it is validated). A swap trades the labels that say which slots are present, the
 * counts and the box's energy with the positions. */
#ifndef MC_EXCHANGE_H
#define MC_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "mc_chain.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ladder geometry of a plan: ladders, rungs per ladder, and where a chain sits; the axis's name
 * ("temperature", "pressure" or "lnz", as the output's /results/exchange@axis). */
const char *mc_exchange_axis_name(const mc_plan *p);
int mc_exchange_ladders(const mc_plan *p);
int mc_exchange_rungs(const mc_plan *p);
int mc_exchange_chain(const mc_plan *p, int ladder, int rung); /* the chain at (ladder, rung) */
int mc_exchange_ladder_of(const mc_plan *p, int chain);
int mc_exchange_rung_of(const mc_plan *p, int chain);

/* What a decision needs of a chain's current configuration. */
typedef struct mc_exchange_config {
    double energy_pair; /* running pair energy (wall included; gcmc: the tail energy of its N too) */
    double box_len;     /* 0 for an open cluster */
    double particles;   /* N: the plan's n, or a gcmc chain's particles (molecules) in its box */
} mc_exchange_config;

/* A chain's numbers for the decisions. */
mc_exchange_config mc_exchange_config_of(const mc_plan *p, const mc_chain *c);

/* delta of the swap of chains a and b (the rule above); all[] is indexed by chain. */
double mc_exchange_delta(const mc_plan *p, int a, int b, const mc_exchange_config *all);

/* The decisions of exchange step `step` for every ladder: partner[c] is the chain c trades its
 * configuration with, or -1 (no swap); attempted[c] is 1 where c is the lower rung of a pair tried.
 * Identical on every rank for the same all[]. */
void mc_exchange_decide(const mc_plan *p, long step, const mc_exchange_config *all, int *partner,
                        unsigned char *attempted);

/* A chain's configuration with its walker record, packed as doubles (walker numbers are exact
 * integers far below 2^53), for a trade with another rank; the packing chain's id goes with it,
 * so that the receiver can check it got its partner's (mc_exchange_sender). */
size_t mc_exchange_config_len(const mc_plan *p);
void mc_exchange_pack(const mc_plan *p, const mc_chain *c, double *buf);
void mc_exchange_unpack(const mc_plan *p, mc_chain *c, const double *buf);
int mc_exchange_sender(const mc_plan *p, const double *buf);

/* A trade within a rank: a and b exchange walker records (the configurations go by the backend). */
void mc_exchange_swap_walkers(mc_chain *a, mc_chain *b);

/* After every exchange step: the walker now at chain c notes whether it reached an end of its
 * ladder, counting a traversal when it arrives at the end opposite the last one it visited. */
void mc_exchange_visit(const mc_plan *p, mc_chain *c);

#ifdef __cplusplus
}
#endif
#endif
