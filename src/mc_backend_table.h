/* mc_backend_table: which backend runs a plan, from one (engine x device) table in which each
 * device's row says, per engine, which of the features that backends differ in it supports. A
 * plan's engine and features are read from the plan; a feature a device lacks is refused at plan
 * time when the config names that device ([run] backend), naming the key that asked for the
 * feature, and passed over (with a note) when the config leaves the choice to mcens. A new
 * feature is a bit here, the plan's test for it, and the rows that support it. */
#ifndef MC_BACKEND_TABLE_H
#define MC_BACKEND_TABLE_H

#include "cfg.h"
#include "mc_backend.h"
#include "mc_err.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The engines: what a chain holds, in one box or in two (the Gibbs ensemble). */
typedef enum { MC_ENGINE_ATOMS, MC_ENGINE_MOLECULES, MC_ENGINE_GIBBS_ATOMS, MC_ENGINE_GIBBS_MOLECULES, MC_NENGINES } mc_engine;

/* The features backends differ in, as bits. */
enum {
    MC_FEATURE_CHARGES = 1u << 0, /* charged sites: the Ewald sum or the damped shifted force */
    MC_FEATURE_GCMC = 1u << 1,    /* grand-canonical insertions and deletions (the Gibbs engines) */
    MC_FEATURE_OPEN_EXCHANGE = 1u << 2 /* replica exchange of grand-canonical chains (labels traded) */
};

mc_engine mc_plan_engine(const mc_plan *p);

/* The backend for this rank: [run] backend = cpu or gpu takes that device, refused (MC_EINVAL,
 * naming the config line of the feature) where its row lacks a feature the plan needs, and gpu
 * without a GPU (have_gpu 0) refused with no_gpu_reason (MC_ENODEV); auto takes the first row,
 * GPU before CPU, that this rank can run and that supports the plan. `note` (len bytes) receives
 * why auto passed over a GPU this rank has, or "" where it did not. */
int mc_backend_choose(const mc_plan *p, const cfg *c, int have_gpu, const char *no_gpu_reason, int rank, const char *host,
                      const mc_backend_ops **out, char *note, size_t len, mc_err *err);

#ifdef __cplusplus
}
#endif
#endif
