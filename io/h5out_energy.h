/* h5out_energy: /energy of an output written by mcens --energy: each term of mc_energy's table that
 * applies to the plan as a [chains] dataset in the run's energy unit, with the chains' state
 * points, and with charges the Coulomb method's parameters (h5out_coulomb). Written through h5ds alone. */
#ifndef H5OUT_ENERGY_H
#define H5OUT_ENERGY_H

#include "h5ds.h"
#include "mc_energy.h"
#include "mc_err.h"
#include "mc_plan.h"

/* terms[chain][MC_NENERGY_TERMS] of every chain of the plan, held in full by every rank; the
 * config's text as /energy@config. */
int h5out_energy_write(const h5ds *f, const mc_plan *plan, const double (*terms)[MC_NENERGY_TERMS],
                       const char *config_text, mc_err *err);

#endif
