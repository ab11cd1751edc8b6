/* mc_rigid_host: the host side of the rigid-body engine, shared by its CPU backend and by the GPU
 * backend's measurements: the starting configuration, a molecule's energy with everything else,
 * and the full recomputation of a chain with its RDF and Lindemann sums. The moves themselves
 * are in mc_rigid.h, written once for both backends. */
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

/* Allocate the chain's molecular state and build its start (plan->start): centres on the
 * lattice (a periodic box, or for an open cluster the fcc cube of lattice_constant about the
 * origin, nearest sites first), at random (melt), or from start_file; orientations uniformly at
 * random, redrawn (up to 200 times) while a molecule's sites come close to an earlier molecule's.
 * An error names the molecules when two sites of different molecules stay closer than
 * 0.5 sigma_ab or their hard cores. */
int mc_rigid_start(const mc_plan *p, mc_chain *c, mc_err *err);

static inline mc_quat mc_chain_quat(const mc_chain *c, int m)
{
    mc_quat q = {c->q[4 * m], c->q[4 * m + 1], c->q[4 * m + 2], c->q[4 * m + 3]};
    return q;
}

/* Put molecule m's centre and orientation into the chain and place its sites from them. */
void mc_rigid_set(const mc_plan *p, mc_chain *c, int m, const double centre[3], mc_quat q);

/* The energy change of moving molecule m from its sites at old_pos[3 k + d] (k over its sites)
 * and centre old_centre to new_pos and new_centre: its pair energy with the sites of every other
 * molecule plus its wall energy, new minus old, both placements in one pass over the others. */
double mc_rigid_move_energy(const mc_plan *p, const mc_chain *c, int m, const double *old_pos,
                            const double *new_pos, const double old_centre[3], const double new_centre[3]);

typedef struct mc_rigid_sums {
    double energy; /* all intermolecular site pairs and the wall */
    double virial; /* molecular virial: sum over site pairs of (r_ab . F_ab)(r_ab . R_IJ) / r_ab^2,
                      R_IJ the centres' separation; 0 for an open cluster */
} mc_rigid_sums;

/* Full recomputation from the sites on the host. A sample (add_sample) also adds the RDF counts
 * of every species pair and of the centres, and for an open cluster the Lindemann sums. */
mc_rigid_sums mc_rigid_measure(const mc_plan *p, mc_chain *c, int add_sample);

/* The backend ops the rigid-body engine does not have; the config check refuses Widom insertion
 * and npt before a run starts, so these only report an internal error. Both rigid backends use
 * them. */
int mc_rigid_no_widom(mc_backend *b, int species, int insertions, long draw, double *sum, mc_err *err);
int mc_rigid_no_volume_energy(mc_backend *b, const double *scale, double *energy, mc_err *err);
int mc_rigid_no_volume_apply(mc_backend *b, const double *scale, const double *energy, mc_err *err);

/* mc_rigid_measure for every chain into out (the backends' measure): the running energy is
 * reported for the drift check and then restarted from the full value. */
void mc_rigid_measure_chains(const mc_plan *p, mc_chain **chains, int nchains, int add_sample,
                             mc_measurement *out);

/* Lindemann index of the chain's samples: the mean over centre pairs of
 * sqrt(<r^2> - <r>^2) / <r> (open cluster; NaN before any sample or for periodic boxes). */
double mc_rigid_lindemann(const mc_chain *c);

#ifdef __cplusplus
}
#endif
#endif
