/* h5out_molecules: the parts of the output file that only runs with molecules have (plan->rigid):
 * /molecules, and each chain's rotation step in /chains (centres and orientations are in the
 * trajectory, traj.c). Written through h5ds alone; h5out_write calls them. */
#ifndef H5OUT_MOLECULES_H
#define H5OUT_MOLECULES_H

#include "h5ds.h"
#include "mc_err.h"
#include "mc_plan.h"
#include "mc_results.h"

/* /molecules in the file's root. */
int h5out_molecules_tables(const h5ds *f, const mc_plan *plan, mc_err *err);
/* The molecular members of the group chains (/chains). */
int h5out_molecules_chains(const h5ds *f, hid_t chains, const mc_plan *plan, const mc_results *res, mc_err *err);

#endif
