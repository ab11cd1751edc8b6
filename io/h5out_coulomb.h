/* h5out_coulomb: charged sites' electrostatics as run, beside the results and the --energy terms:
 * /ewald (the Ewald sum's alpha, cutoff and wave vectors) or /dsf (the damped shifted force's
 * alpha and cutoff), each as attributes, with Coulomb's constant; nothing without charges. */
#ifndef H5OUT_COULOMB_H
#define H5OUT_COULOMB_H

#include "h5ds.h"
#include "mc_plan.h"

int h5out_coulomb_write(const h5ds *f, const mc_plan *plan, mc_err *err);

#endif
