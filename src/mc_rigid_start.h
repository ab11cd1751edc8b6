/* mc_rigid_start: where a chain's molecules start (plan->start): centres on the lattice, in an fcc
 * cluster about the origin, at random (melt) or from start_file, each oriented so that its sites
 * keep clear of the molecules placed before it; and the random points kept apart of start = melt,
 * which atoms use too. Called once per chain, by mc_chain_create and mc_gibbs_start. */
#ifndef MC_RIGID_START_H
#define MC_RIGID_START_H

#include "mc_chain.h"
#include "mc_err.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Build the chain's molecular start (plan->start): centres on the
 * lattice (a periodic box, or for an open cluster the fcc cube of lattice_constant about the
 * origin, nearest sites first), at random (melt), or from start_file; orientations uniformly at
 * random, redrawn (up to 200 times) while a molecule's sites come close to an earlier molecule's.
 * An error names the molecules when two sites of different molecules stay closer than
 * 0.5 sigma_ab or their hard cores. */
int mc_rigid_start(const mc_plan *p, mc_chain *c, mc_err *err);

/* The pieces of mc_rigid_start, for the Gibbs ensemble's start (mc_gibbs_start), which places the
 * centres box by box: the starting rotation step and every orientation the identity (the arrays
 * come with the chain, mc_state_allocate); then, centres placed, every molecule oriented as
 * described above. */
void mc_rigid_reset_orientations(const mc_plan *p, mc_chain *c);
int mc_rigid_orient(const mc_plan *p, mc_chain *c, mc_err *err);

/* start = melt: n points uniformly at random, no two closer than `spacings` lattice spacings (in
 * the box, or for an open cluster in a ball), from chain's setup stream: molecules' centres (0.8)
 * and atoms (0.7, which random placement reaches at any density). box: 0, or a Gibbs chain's box 1,
 * whose points come from other keys of the stream than box 0's. */
int mc_melt_points(const mc_plan *p, int chain, int box, int n, double box_len, double spacings, double *x, double *y,
                   double *z, mc_err *err);

/* Fisher-Yates over n starting points (lattice sites or molecular centres), so that each species
 * or molecule type (a block of indices) spreads over the box instead of filling one end of it;
 * keyed by the chain's setup stream like every other number of the chain. */
void mc_chain_shuffle_points(const mc_chain *c, uint64_t seed, int n, double *x, double *y, double *z);

#ifdef __cplusplus
}
#endif
#endif
