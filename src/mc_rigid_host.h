/* mc_rigid_host: the host side of molecules (chains with plan->rigid), shared by the CPU backend
 * and by the GPU backend's measurements: the starting configuration, a molecule's energy with
 * everything else, the full recomputation of a chain with its RDF and Lindemann sums, Widom test
 * molecules and volume scaling. The moves themselves are in mc_rigid.h, written once for both
 * backends. */
#ifndef MC_RIGID_HOST_H
#define MC_RIGID_HOST_H

#include "mc_backend.h"
#include "mc_chain.h"
#include "mc_err.h"
#include "mc_plan.h"
#include "mc_rotation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The edge of molecule m's periodic box: the chain's, or in the Gibbs ensemble its box's; 0 for
 * an open cluster. */
static inline double mc_rigid_box_len(const mc_plan *p, const mc_chain *c, int m)
{
    return c->in_box ? c->gibbs_box_len[c->in_box[p->mol.first[m]]] : c->box_len;
}

static inline mc_quat mc_chain_quat(const mc_chain *c, int m)
{
    mc_quat q = {c->q[4 * m], c->q[4 * m + 1], c->q[4 * m + 2], c->q[4 * m + 3]};
    return q;
}

/* Put molecule m's centre and orientation into the chain and place its sites from them. */
void mc_rigid_set(const mc_plan *p, mc_chain *c, int m, const double centre[3], mc_quat q);

/* A molecule move's energy change from its pair energies with the other sites before (u_old) and
 * after (u_new): each plus the wall energy of its centre there, new minus old (every CPU molecule
 * move sums it so, whichever loop gave u_old and u_new). */
double mc_rigid_move_total(const mc_plan *p, double u_old, double u_new, const double old_centre[3],
                           const double new_centre[3]);

typedef struct mc_rigid_sums {
    double energy; /* all intermolecular site pairs and the wall; with charges the whole Ewald sum */
    double virial; /* molecular virial: sum over site pairs of (r_ab . F_ab)(r_ab . R_IJ) / r_ab^2,
                      R_IJ the centres' separation; 0 for an open cluster */
} mc_rigid_sums;

/* Full recomputation from the sites on the host. A sample (add_sample) also adds the RDF counts
 * of every species pair and of the centres, and for an open cluster the Lindemann sums. With
 * charges (plan->charged) the energy takes the constant self and intramolecular terms, and with the
 * Ewald sum (plan->ewald) its Fourier part, recomputed into `ewald` (the chain's structure factors
 * from then on; NULL where there is no Fourier part), with its virial. */
mc_rigid_sums mc_rigid_measure(const mc_plan *p, mc_chain *c, int add_sample, ewald_sums *ewald);

/* Widom insertion of a test molecule of `type`: the sum over `insertions` test molecules of
 * exp(-beta dU), each at mc_widom_position of draw `draw` in an orientation uniform on SO(3) from
 * the MC_RNG_WIDOM_ORIENTATION block of the same counter (a single site's orientation changes
 * nothing). Both backends call this on host positions. With charges dU is the whole change of the
 * Ewald sum: the real-space term through the pair function, the Fourier part's exact change from
 * the chain's structure factors `ewald` (current for its positions), and the test molecule's own
 * self and intramolecular terms; `ewald` NULL without charges (its scratch holds a test
 * molecule's S(k)). */
double mc_rigid_widom_sum(const mc_plan *p, const mc_chain *c, int type, int insertions, long draw,
                          ewald_sums *ewald);

/* npt: the chain's box and molecular centres scaled by s (mc_scale_coordinate), orientations kept,
 * sites placed again from them, into out (which may be c itself: each molecule is read before it
 * is written). */
void mc_rigid_scale(const mc_plan *p, const mc_chain *c, double s, mc_chain *out);

/* The pair energy (with the wall, and with charges the Ewald sum, its structure factors into
 * `ewald`) the chain would have scaled by s; changes nothing else. scratch holds
 * mc_rigid_scaled_scratch(p) doubles. */
double mc_rigid_scaled_energy(const mc_plan *p, const mc_chain *c, double s, double *scratch, ewald_sums *ewald);
size_t mc_rigid_scaled_scratch(const mc_plan *p);


/* Lindemann index of the chain's samples: the mean over centre pairs of
 * sqrt(<r^2> - <r>^2) / <r> (open cluster; NaN before any sample or for periodic boxes). */
double mc_rigid_lindemann(const mc_chain *c);

#ifdef __cplusplus
}
#endif
#endif
