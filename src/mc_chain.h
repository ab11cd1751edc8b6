/* mc_chain: the state of one Metropolis chain, shared by the run driver (mc_run) and the backends.
 * Positions live here on the host; a GPU backend keeps its own copy and writes back through its
 * fetch operation. A chain borrows its plan, which must outlive it. */
#ifndef MC_CHAIN_H
#define MC_CHAIN_H

#include <stdint.h>

#include "mc_err.h"
#include "mc_move.h"
#include "mc_observable.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_chain {
    int id;         /* global chain index: keys the random stream, names the HDF5 row */
    int statepoint; /* index into plan->statepoint */
    int n;
    double box_len, half_box, beta; /* beta = 1 / kT */
    double *x, *y, *z;              /* positions in [0, box_len) */
    double max_displacement;        /* per axis; adapted in equilibration only */
    uint64_t step;                  /* trial moves made so far: the random-number counter */
    uint64_t accepted;              /* accepted moves so far (all phases) */
    double energy_pair;             /* running pair energy, kept by adding accepted dE */
    /* npt: one volume move per sweep, counted apart from the translation moves */
    double max_volume_step;         /* max |ln V' - ln V|; adapted in equilibration only */
    uint64_t volume_moves, volume_accepted; /* volume_moves keys the volume random stream */
    uint64_t production_volume_moves0, production_volume_accepted0;
    uint64_t production_volume_floor_hits; /* production volume moves rejected for a box below
                                              plan->min_box_len (mc_run.c) */
    /* production record */
    long nsamples;                  /* samples taken so far */
    double *series[MC_NOBS];        /* [plan->nsamples] per MC_OBS_SERIES observable of
                                       mc_observables; NULL for the others and where it does not
                                       apply (mc_observable_applies) */
    double *widom;                  /* [species][plan->nsamples] mean exp(-beta dU) of the
                                       sample's insertions of each species; NULL without Widom */
    uint64_t production_step0, production_accepted0; /* counters when production began */
    uint64_t *rdf_counts;           /* [species pairs][plan->rdf_bins]: pair counts summed over
                                       samples (one species pair for a pure fluid) */
    double rdf_norm[MC_MAX_PAIRS + 1]; /* per species pair, the sum over samples of its ideal
                                       pair density: N_a (N_a - 1) / (2 V), or N_a N_b / V (rigid:
                                       intermolecular pairs only, then the centres' row) */
    /* The rigid-body engine (plan->rigid): x, y, z are the sites, placed from these. An open
     * cluster (box_len = 0) keeps positions about the origin, unfolded. */
    int nmol;
    double *cx, *cy, *cz;           /* [nmol] centres of mass */
    double *q;                      /* [4 nmol] unit quaternions (w, x, y, z), body to lab */
    double max_rotation;            /* radians; adapted in equilibration only */
    uint64_t rotations, rotations_accepted; /* the rotation moves among step and accepted */
    uint64_t production_rotations0, production_rotations_accepted0;
    double *lindemann_r, *lindemann_r2; /* open cluster: [nmol (nmol - 1) / 2] sums over samples
                                           of each centre pair's distance and its square */
    /* Replica exchange (mc_exchange.h): the chain keeps its state point; a swap trades its
     * configuration, and with it this walker record. */
    int64_t walker;                 /* the chain whose start this configuration is */
    int64_t walker_end;             /* the end of the ladder it visited last: 0 bottom, 1 top, -1 none */
    uint64_t walker_traversals;     /* its passes from one end of the ladder to the other */
    uint64_t exchange_attempts, exchange_accepted; /* swaps with the next rung up, all phases */
    uint64_t production_exchange_attempts0, production_exchange_accepted0; /* when production began */
    double *walker_at;              /* [plan->nsamples] the walker held at each sample; NULL without
                                       exchange */
    /* Gibbs ensemble (mc_gibbs.h): the n particles over two boxes; box_len is 0 and the volume
     * counters above count the volume exchanges (which are trial moves, counted in step) */
    int64_t *in_box;                /* [n] the box (0 or 1) of each particle; NULL otherwise */
    double gibbs_box_len[2];        /* the boxes' edges */
    double gibbs_energy[2];         /* each box's running pair energy (energy_pair is their sum) */
    int64_t gibbs_count[2][MC_MAX_SPECIES]; /* particles of each species in each box */
    uint64_t transfers, transfers_accepted; /* transfer moves among step and accepted */
    uint64_t production_transfers0, production_transfers_accepted0;
    /* gcmc (mc_gcmc.h): the labels above mark slots present (box 0) or absent (box 1), box 0 is the
     * chain's box (gibbs_box_len[0] = box_len); per macrostate N = plan->tmmc_n_min + i: */
    double *tmmc_c;                 /* [macrostates][TMMC_ROW] the collection matrix (tmmc.h) */
    double *tmmc_bias;              /* [macrostates] the ln Pi estimate the moves are biased by */
    double *tmmc_energy;            /* [macrostates] the sum over trial moves ending at N of the
                                       total potential energy (tail included) */
    uint64_t *tmmc_visits;          /* [macrostates] those moves' count */
} mc_chain;

/* Chain `id` of the plan at its starting lattice (a mixture's species dealt over the sites by a
 * shuffle from the chain's setup stream). NULL on failure. */
mc_chain *mc_chain_create(const mc_plan *plan, int id, mc_err *err);
void mc_chain_destroy(mc_chain *c);

/* Count one more RDF sample in the normalisation of every species pair: N_a (N_a - 1) / (2 V) for
 * like pairs, N_a N_b / V for unlike ones (the ideal-gas pair densities). */
void mc_chain_add_rdf_sample(mc_chain *c, const mc_plan *p);

/* Acceptance ratio of the production phase so far (0 before any production move). */
double mc_chain_production_acceptance(const mc_chain *c);
double mc_chain_production_volume_acceptance(const mc_chain *c);

/* The same with the setup stream's keys from first_key on (a second set of points of one chain, such
 * as a Gibbs chain's second box). */
void mc_chain_shuffle_points_from(const mc_chain *c, uint64_t seed, uint64_t first_key, int n, double *x, double *y,
                                  double *z);

/* Rows of rdf_counts: the species pairs, and for the rigid engine the molecular centres. */
static inline int mc_chain_rdf_rows(const mc_plan *p) { return p->species.npairs + (p->rigid ? 1 : 0); }

/* Gibbs ensemble: production acceptance of the displacements and of the transfers. */
double mc_chain_production_displacement_acceptance(const mc_chain *c);
double mc_chain_production_transfer_acceptance(const mc_chain *c);

/* Production acceptance of the translation and of the rotation moves apart (rigid engine). */
double mc_chain_production_translation_acceptance(const mc_chain *c);
double mc_chain_production_rotation_acceptance(const mc_chain *c);

/* Whether the chain's production has begun (mc_run sets production_step0 when equilibration ends):
 * volume moves (exchanges) below the smallest box count as floor hits from then on. */
static inline int mc_chain_in_production(const mc_plan *p, const mc_chain *c)
{
    return p->equilibration_sweeps == 0 || c->production_step0 > 0;
}

/* The translation step a move uses: max_displacement, but at most half the current periodic box
 * (mc_box_step; an open cluster has no box and no cap). An npt box can shrink below twice a step
 * frozen for production; a larger step would move a coordinate by more than one box edge, which
 * the one-fold wrap cannot fold back. At one box the proposal stays symmetric (forward and reverse
 * moves see the same box). */
static inline double mc_chain_step(const mc_chain *c)
{
    return c->box_len > 0 ? mc_box_step(c->max_displacement, c->box_len) : c->max_displacement;
}

/* Change the box edge to box_len (npt), keeping half_box in step. */
static inline void mc_chain_set_box(mc_chain *c, double box_len)
{
    c->box_len = box_len;
    c->half_box = 0.5 * box_len;
}


#ifdef __cplusplus
}
#endif
#endif
