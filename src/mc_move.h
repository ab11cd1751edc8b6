/* mc_move: the trial move and the Metropolis test, written once for both backends, so that CPU and
 * GPU chains draw the same particle, displacement and acceptance uniform for the same step. */
#ifndef MC_MOVE_H
#define MC_MOVE_H

#include <math.h>
#include <stdint.h>

#include "mc_hd.h"
#include "mc_rng.h"

typedef struct mc_trial {
    uint32_t particle;
    double dx, dy, dz; /* each uniform in (-max_displacement, max_displacement) */
} mc_trial;

MC_HD mc_trial mc_trial_draw(uint64_t seed, uint32_t chain, uint64_t step, uint32_t n,
                             double max_displacement)
{
    mc_rng4 r = mc_rng_block(seed, chain, MC_RNG_TRIAL, step);
    mc_trial t;
    t.particle = mc_rng_index(r.v[0], n);
    t.dx = max_displacement * (2.0 * mc_rng_uniform(r.v[1]) - 1.0);
    t.dy = max_displacement * (2.0 * mc_rng_uniform(r.v[2]) - 1.0);
    t.dz = max_displacement * (2.0 * mc_rng_uniform(r.v[3]) - 1.0);
    return t;
}

/* The acceptance threshold of a step: -ln u for its uniform u in (0, 1), a unit exponential
 * variate (finite: u is never 0). Kernels draw it ahead, off their sequential path. */
MC_HD double mc_accept_threshold(uint64_t seed, uint32_t chain, uint64_t step)
{
    return -log(mc_rng_uniform(mc_rng_block(seed, chain, MC_RNG_ACCEPT, step).v[0]));
}

/* Metropolis: accept with probability min(1, exp(-beta dE)), written u < exp(-beta dE) <=>
 * beta dE < -ln u, so the test itself needs no transcendental function. */
MC_HD int mc_metropolis_test(double dE, double beta, double threshold)
{
    return dE <= 0.0 || beta * dE < threshold;
}

/* The test with its threshold drawn here (only when dE > 0). */
MC_HD int mc_metropolis_accept(double dE, double beta, uint64_t seed, uint32_t chain, uint64_t step)
{
    return dE <= 0.0 || mc_metropolis_test(dE, beta, mc_accept_threshold(seed, chain, step));
}

/* An npt volume move: ln(V'/V) uniform in (-max_step, max_step) and its acceptance threshold
 * -ln u, both from one block of the volume stream keyed by the chain's volume-move count. */
typedef struct mc_volume_trial {
    double log_ratio; /* ln(V'/V) */
    double threshold;
} mc_volume_trial;

/* The displacement step of a particle in a box of edge `box`: at most half the box. The one rule
 * for every box, fixed or changing (mc_chain_step, the Gibbs moves, the npt chain kernel), on
 * either backend. */
MC_HD double mc_box_step(double max_displacement, double box)
{
    return max_displacement > 0.5 * box ? 0.5 * box : max_displacement;
}

MC_HD mc_volume_trial mc_volume_draw(uint64_t seed, uint32_t chain, uint64_t move, double max_step)
{
    mc_rng4 r = mc_rng_block(seed, chain, MC_RNG_VOLUME, move);
    mc_volume_trial t;
    t.log_ratio = max_step * (2.0 * mc_rng_uniform(r.v[0]) - 1.0);
    t.threshold = -log(mc_rng_uniform(r.v[1]));
    return t;
}

/* The Metropolis argument of an npt volume move as an energy: the pair energy's change dU, the tail
 * correction's (tail_nn / V is the whole box's, tail_nn = sum over species pairs of N_a N_b
 * 2 pi int_rc r^2 u_ab, 0 without tails), P dV, and -(N + 1) kT ln(V'/V) of the ln V walk, N the
 * scaled particles (molecules' centres). Written once for the run driver and the GPU's chain kernel. */
MC_HD double mc_npt_volume_cost(double dU, double tail_nn, double v, double v_new, double pressure, double kT,
                                double n_scaled, double log_ratio)
{
    return dU + tail_nn * (1.0 / v_new - 1.0 / v) + pressure * (v_new - v) - (n_scaled + 1.0) * kT * log_ratio;
}

/* A coordinate in [0, box) scaled with its box by s: x s in double, folded into [0, box s)
 * (rounding can land exactly on the edge). Every backend scales through this, so a trial volume's
 * energy and the accepted configuration are the same numbers. */
MC_HD double mc_scale_coordinate(double x, double s, double scaled_box)
{
    double v = x * s;
    return v >= scaled_box ? v - scaled_box : v;
}

/* Position of Widom insertion `insertion` of sample `sample`: uniform in the box. */
MC_HD void mc_widom_position(uint64_t seed, uint32_t chain, uint64_t sample, uint32_t insertions,
                             uint32_t insertion, double box, double *x, double *y, double *z)
{
    mc_rng4 r = mc_rng_block(seed, chain, MC_RNG_WIDOM, sample * insertions + insertion);
    *x = box * (mc_rng_uniform(r.v[0]) - 0.5 / 4294967296.0); /* [0, box): u is in (0, 1) */
    *y = box * (mc_rng_uniform(r.v[1]) - 0.5 / 4294967296.0);
    *z = box * (mc_rng_uniform(r.v[2]) - 0.5 / 4294967296.0);
}

#endif
