/* mc_rigid: the rigid-body move, written once for the CPU and the CUDA kernels (MC_HD), so that
 * both backends draw the same molecule, move kind, displacement or rotation for the same step and
 * place the moved sites by the same arithmetic. A molecule of more than one site is translated or
 * rotated with equal probability; a single site is only translated. Both kinds are symmetric
 * proposals, so the Metropolis test on the energy change keeps detailed balance. */
#ifndef MC_RIGID_H
#define MC_RIGID_H

#include <math.h>
#include <stdint.h>

#include "mc_hd.h"
#include "mc_rng.h"
#include "mc_rotation.h"
#include "pair.h"

typedef struct mc_rigid_trial {
    uint32_t molecule;
    int rotate;
    double dx, dy, dz; /* translation, each uniform in (-max_displacement, max_displacement) */
    mc_quat turn;      /* rotation about the centre (identity for a translation) */
} mc_rigid_trial;

/* The molecule a step moves, from that step's MC_RNG_TRIAL block r: mc_rigid_trial_draw's own
 * choice, alone (the GPU's batched trials find a molecule's earlier trials in a batch by it). */
MC_HD uint32_t mc_rigid_trial_molecule(mc_rng4 r, uint32_t nmol)
{
    return mc_rng_index(r.v[0], nmol);
}

/* first: the molecules' first sites [nmol + 1] (its nsites decide whether it may rotate). */
MC_HD mc_rigid_trial mc_rigid_trial_draw(uint64_t seed, uint32_t chain, uint64_t step, uint32_t nmol,
                                         const int *first, double max_displacement, double max_rotation)
{
    mc_rng4 r = mc_rng_block(seed, chain, MC_RNG_TRIAL, step);
    mc_rng4 s = mc_rng_block(seed, chain, MC_RNG_RIGID, step);
    mc_rigid_trial t;
    t.molecule = mc_rigid_trial_molecule(r, nmol);
    t.rotate = first[t.molecule + 1] - first[t.molecule] > 1 && (r.v[1] >> 31);
    double u0 = mc_rng_uniform(s.v[0]), u1 = mc_rng_uniform(s.v[1]), u2 = mc_rng_uniform(s.v[2]);
    t.dx = t.dy = t.dz = 0.0;
    t.turn = mc_quat_identity();
    if (t.rotate) {
        t.turn = mc_quat_trial(u0, u1, u2, max_rotation);
    } else {
        t.dx = max_displacement * (2.0 * u0 - 1.0);
        t.dy = max_displacement * (2.0 * u1 - 1.0);
        t.dz = max_displacement * (2.0 * u2 - 1.0);
    }
    return t;
}

/* The orientation of Widom test molecule `insertion` of sample `sample`, uniform on SO(3), from the
 * MC_RNG_WIDOM_ORIENTATION block of mc_widom_position's counter. */
MC_HD mc_quat mc_widom_orientation(uint64_t seed, uint32_t chain, uint64_t sample, uint32_t insertions,
                                   uint32_t insertion)
{
    mc_rng4 r = mc_rng_block(seed, chain, MC_RNG_WIDOM_ORIENTATION, sample * insertions + insertion);
    return mc_quat_uniform(mc_rng_uniform(r.v[0]), mc_rng_uniform(r.v[1]), mc_rng_uniform(r.v[2]));
}

/* A coordinate moved by d: folded into [0, box) when periodic (box > 0), as is. */
MC_HD double mc_rigid_shift(double x, double d, double box)
{
    return box > 0.0 ? mc_wrap(x + d, box) : x + d;
}

/* A site's lab position from its molecule's centre, orientation and body-frame coordinates
 * (periodic: folded into [0, box)). */
MC_HD void mc_rigid_site(const double centre[3], mc_quat q, const double *body, double box, double out[3])
{
    double lab[3];
    mc_quat_rotate(q, body, lab);
    for (int d = 0; d < 3; d++) out[d] = mc_rigid_shift(centre[d], lab[d], box);
}

/* Separation under the minimum image (box > 0), or plain (open cluster). */
MC_HD double mc_rigid_separation(double d, double box)
{
    return box > 0.0 ? mc_min_image(d, box, 0.5 * box) : d;
}

/* The separation of two molecules' centres along one axis in the image of a pair of their sites
 * whose separation (minimum image) is d: the centres' minimum image R, moved by a box length
 * where the sites' minimum image is another one (centres near half a box apart, sites within the
 * cutoff). The molecular virial sum F_ab . R_IJ needs the R_IJ of the pair's own image; the
 * centres' image alone gave a wrong pressure wherever a pair straddled half the box. d - R in the
 * pair's image is the difference of the two sites' offsets from their centres, below twice the
 * largest site radius and so below half the box (mc_plan's floor, molecules_min_box): the images
 * agree exactly when |d - R| is below half a box, and R is then returned to the bit. */
MC_HD double mc_rigid_pair_image(double R, double d, double box)
{
    const double half = 0.5 * box;
    R += d - R > half ? box : 0.0;
    R -= d - R < -half ? box : 0.0;
    return R;
}

/* The spherical wall about the origin: k (r - R)^2 / 2 beyond R (0 when k = 0). */
MC_HD double mc_wall_energy(double x, double y, double z, double radius, double strength)
{
    double r = sqrt(x * x + y * y + z * z);
    return r > radius ? 0.5 * strength * (r - radius) * (r - radius) : 0.0;
}

/* A site pair's energy, or +infinity inside the hard core (a move there is always rejected:
 * the Metropolis test fails for an infinite dE). */
MC_HD double mc_site_pair_energy(double r2, const pair_params *p, double hard_core2)
{
    return r2 < hard_core2 ? INFINITY : pair_energy(r2, p);
}

#endif
