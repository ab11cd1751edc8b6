/* mc_gibbs: the Gibbs ensemble (Panagiotopoulos, Mol. Phys. 61, 813 (1987); Frenkel & Smit, 2nd
 * ed., 8.3). A Gibbs chain holds its n particles in two periodic cubic boxes of fixed total volume
 * V = V0 + V1, each particle labelled with its box (mc_chain.in_box): the particle set, and so the
 * species blocks of the plan, never change; a transfer changes one label. Every trial move is one
 * of three kinds, drawn per step with the [moves] fractions:
 *   displacement  a particle drawn over all n moves within its box (a symmetric proposal: the step
 *                 is capped at half its box, the same box before and after); a molecule, drawn over
 *                 all molecules, is translated or rotated within its box (mc_rigid.h's move);
 *   transfer      a kind (a species of atoms, a type of molecules: mc_plan.nkinds) drawn
 *                 uniformly, a source box drawn uniformly, one of its particles (molecules) of that
 *                 kind uniformly, inserted uniformly into the other box, a molecule in an orientation
 *                 uniform on SO(3) (mc_gibbs_orientation):
 *                 acc = min(1, n_src V_dst / ((n_dst + 1) V_src) exp(-beta dU));
 *   volume        ln(V0/V1) changes by a uniform step in (-max, max) at fixed V:
 *                 acc = min(1, (V0'/V0)^(n0 + 1) (V1'/V1)^(n1 + 1) exp(-beta dU)), n_b counting
 *                 molecules (atoms): their centres scale, their orientations stay.
 * dU includes the change of each box's tail correction, which depends on its counts and volume.
 * The draws and the acceptance arithmetic are written once here for every backend; the random
 * numbers of step s come from the Gibbs stream's block s (kind, source, particle, species or
 * volume step), the trial stream's block s (a displacement, or the insertion point) and the
 * acceptance stream's block s, so a chain's decisions depend on (seed, chain, step) alone. */
#ifndef MC_GIBBS_H
#define MC_GIBBS_H

#include <math.h>
#include <stdint.h>

#include "mc_hd.h"
#include "mc_move.h"
#include "mc_rng.h"
#include "mc_rotation.h"
#include "mc_species.h"

enum mc_gibbs_move { MC_GIBBS_DISPLACEMENT = 0, MC_GIBBS_TRANSFER = 1, MC_GIBBS_VOLUME = 2, MC_GIBBS_NMOVES = 3 };

typedef struct mc_gibbs_trial {
    int move;          /* enum mc_gibbs_move */
    int source;        /* transfer: the box the particle leaves; the other box receives it */
    int kind;          /* transfer: the kind that moves (a species, or a molecule type) */
    uint32_t pick;     /* transfer: the particle is mc_rng_index(pick, n_src of the kind) */
    double log_ratio;  /* volume: the change of ln(V0/V1) */
} mc_gibbs_trial;

/* fraction[move] in enum order (they add up to 1); nkinds: mc_plan.nkinds. */
MC_HD mc_gibbs_trial mc_gibbs_draw(uint64_t seed, uint32_t chain, uint64_t step, const double *fraction,
                                   int nkinds, double max_volume_step)
{
    mc_rng4 r = mc_rng_block(seed, chain, MC_RNG_GIBBS, step);
    mc_gibbs_trial t;
    double u = mc_rng_uniform(r.v[0]);
    t.move = u < fraction[0] ? MC_GIBBS_DISPLACEMENT : u < fraction[0] + fraction[1] ? MC_GIBBS_TRANSFER : MC_GIBBS_VOLUME;
    t.source = (int)mc_rng_index(r.v[1], 2);
    t.pick = r.v[2];
    t.kind = (int)mc_rng_index(r.v[3], (uint32_t)nkinds);
    t.log_ratio = max_volume_step * (2.0 * mc_rng_uniform(r.v[3]) - 1.0); /* one of the two is used */
    return t;
}

/* A transfer's insertion point, uniform in [0, box) from the trial stream's block of the step. */
MC_HD void mc_gibbs_insertion_point(uint64_t seed, uint32_t chain, uint64_t step, double box, double *p)
{
    mc_rng4 r = mc_rng_block(seed, chain, MC_RNG_TRIAL, step);
    for (int k = 0; k < 3; k++) p[k] = box * (mc_rng_uniform(r.v[k + 1]) - 0.5 / 4294967296.0);
}

/* A transferred molecule's orientation, uniform on SO(3), from the rigid stream's block of the step
 * (which a transfer leaves unused otherwise). */
MC_HD mc_quat mc_gibbs_orientation(uint64_t seed, uint32_t chain, uint64_t step)
{
    mc_rng4 r = mc_rng_block(seed, chain, MC_RNG_RIGID, step);
    return mc_quat_uniform(mc_rng_uniform(r.v[0]), mc_rng_uniform(r.v[1]), mc_rng_uniform(r.v[2]));
}

/* The Metropolis argument of a transfer as an energy: dU - kT ln(n_src V_dst / ((n_dst + 1) V_src)),
 * n_src counting the particle that leaves, n_dst the kind's particles already in the other box. */
MC_HD double mc_gibbs_transfer_cost(double dU, double kT, double n_src, double n_dst, double v_src, double v_dst)
{
    return dU - kT * log(n_src * v_dst / ((n_dst + 1.0) * v_src));
}

/* The new volumes of a volume exchange at total volume v_total: ln(V0'/V1') = ln(V0/V1) + log_ratio.
 * V1' is v_total - V0', so the total never drifts. */
MC_HD void mc_gibbs_new_volumes(double v0, double v_total, double log_ratio, double *v0_new, double *v1_new)
{
    double x = log(v0 / (v_total - v0)) + log_ratio;
    *v0_new = v_total / (1.0 + exp(-x));
    *v1_new = v_total - *v0_new;
}

/* The Metropolis argument of a volume exchange as an energy: dU - kT [(n0 + 1) ln(V0'/V0) +
 * (n1 + 1) ln(V1'/V1)], n_b all particles of box b. */
MC_HD double mc_gibbs_volume_cost(double dU, double kT, double n0, double n1, double v0, double v1, double v0_new,
                                  double v1_new)
{
    return dU - kT * ((n0 + 1.0) * log(v0_new / v0) + (n1 + 1.0) * log(v1_new / v1));
}

/* A box's tail correction from its counts (count[k], kind k) and volume: sum over pairs of kinds of
 * N_k N_l coef[k][l] / V, coef the plan's kind_tail (0 without tails). */
MC_HD double mc_gibbs_tail(const double (*coef)[MC_MAX_SPECIES], int nkinds, const int64_t *count, double volume)
{
    double u = 0.0;
    for (int k = 0; k < nkinds; k++)
        for (int l = 0; l < nkinds; l++) u += (double)count[k] * (double)count[l] * coef[k][l] / volume;
    return u;
}

/* The change of a box's tail correction when one particle (molecule) of kind `kind` is added to its
 * counts (count[k]) at this volume: a test insertion's, and a transfer's destination half. */
MC_HD double mc_gibbs_insertion_tail(const double (*coef)[MC_MAX_SPECIES], int nkinds, const int64_t *count, int kind,
                                     double volume)
{
    int64_t more[MC_MAX_SPECIES];
    for (int k = 0; k < nkinds; k++) more[k] = count[k] + (k == kind);
    return mc_gibbs_tail(coef, nkinds, more, volume) - mc_gibbs_tail(coef, nkinds, count, volume);
}

#include "mc_chain.h"
#include "mc_err.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tail correction to a box's energy: sum over site species pairs of N_a N_b 2 pi / V int_rc r^2
 * u_ab, from its counts of each kind (count[k]) and volume; 0 without tails (mc_gibbs_tail). */
static inline double mc_gibbs_tail_energy(const mc_plan *p, const int64_t *count, double volume)
{
    return mc_gibbs_tail(p->kind_tail, p->nkinds, count, volume);
}

/* Tail and impulsive corrections of a box at its own composition of kinds (count[k]), per site as
 * mc_corrections_at; zero for an empty box. */
mc_corrections mc_gibbs_corrections(const mc_plan *p, const int64_t *count, double volume, double temperature);

/* Particles (molecules) in box b, all kinds: what its density counts. */
int64_t mc_gibbs_particles(const mc_plan *p, const mc_chain *c, int b);

/* Sites in box b (atoms: its particles): what its energy is per. */
int64_t mc_gibbs_sites(const mc_plan *p, const mc_chain *c, int b);

/* The box of molecule (atom) m. */
static inline int mc_gibbs_box_of(const mc_plan *p, const mc_chain *c, int m)
{
    return (int)c->in_box[p->rigid ? p->mol.first[m] : m];
}

/* The box holding the liquid at this moment: the denser one (box 0 on a tie). */
int mc_gibbs_liquid_box(const mc_plan *p, const mc_chain *c);

/* One RDF sample's ideal-gas norms of box `box` (mc_chain_add_rdf_sample's at the box's own counts
 * and volume): the g(r) of a Gibbs chain is its liquid box's. */
void mc_gibbs_add_rdf_norm(const mc_plan *p, mc_chain *c, int box);

/* The particles (molecules) of each kind box 0 starts with (counts[k]; box 1 takes the rest), and the
 * two starting volumes: half of every kind and of the volume each, or with start densities rho_0
 * and rho_1 the split n0 / rho_0 + (n - n0) / rho_1 = V, n0 rounded, kinds in proportion. */
void mc_gibbs_start_split(const mc_plan *p, int64_t *count0, double *volume);

/* Split the chain's particles (molecules) over its two boxes (mc_gibbs_start_split; box 0 takes the
 * first ones of each kind's block) and place them, or their centres, on the plan's lattice, or at
 * random (start = melt); molecules are then oriented as mc_rigid_start does in one box. */
int mc_gibbs_start(const mc_plan *p, mc_chain *c, mc_err *err);

/* How clearly a chain's boxes separated into two phases: the mean of |rho_0 - rho_1| over the
 * production samples divided by its standard deviation. A chain whose boxes hold one phase has a
 * half-normal gap (mean/sd = 1.32); two phases give a gap far above its fluctuation. */
double mc_gibbs_separation(const mc_chain *c);
#define MC_GIBBS_SEPARATED 3.0 /* separation above this counts as two phases */

#ifdef __cplusplus
}
#endif

#endif
