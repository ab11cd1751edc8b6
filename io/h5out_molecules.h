/* h5out_molecules: the parts of the output file that only runs with molecules have (plan->rigid):
 * /molecules, and each chain's rotation step in /chains (centres and orientations are in the
 * trajectory, traj.c). Called by h5out.c. */
#ifndef H5OUT_MOLECULES_H
#define H5OUT_MOLECULES_H

#include "h5out_dataset.h"

int h5out_molecules_tables(h5out *f, const mc_plan *plan, mc_err *err);
int h5out_molecules_chains(h5out *f, hid_t chains, const mc_plan *plan, const mc_results *res, mc_err *err);

#endif
