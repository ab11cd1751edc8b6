/* h5out_results: /results of the output file, the pooled estimates of every state point, the pooled
 * g(r) and replica exchange's acceptances. Written through h5ds alone; h5out_write calls it. */
#ifndef H5OUT_RESULTS_H
#define H5OUT_RESULTS_H

#include "h5ds.h"
#include "mc_err.h"
#include "mc_plan.h"
#include "mc_results.h"

/* /results in the file's root, as every rank holds it (res: pooled over replicas and ranks). */
int h5out_results_write(const h5ds *f, const mc_plan *plan, const mc_results *res, mc_err *err);

#endif
