/* mc_chain_state: the table of every member of mc_chain that makes up a chain's state between two
 * rounds: it allocates the chain's arrays (mc_state_allocate), and a checkpoint saves what it lists
 * so that a restart rebuilds the chain bit for bit. What is
 * not in the table is derived from the plan (id, statepoint, n, nmol, beta), from a member that is
 * (half_box from box_len), or is scratch of one round. A new member of mc_chain that survives a
 * round goes here, or a restarted run silently differs from an uninterrupted one (t/restart.sh
 * compares the two). */
#ifndef MC_CHAIN_STATE_H
#define MC_CHAIN_STATE_H

#include <stddef.h>

#include "mc_chain.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MC_STATE_F64, MC_STATE_U64, MC_STATE_I64 } mc_state_type; /* all 8 bytes wide */

/* What a replica exchange does with a member: nothing (the chain keeps it with its state point),
 * or it trades it, as part of the configuration or of the walker record that travels with it. */
typedef enum { MC_STATE_KEPT, MC_STATE_CONFIGURATION, MC_STATE_WALKER } mc_state_role;

typedef struct mc_state_field {
    const char *name;   /* the dataset name in a checkpoint (series: series_NAME per observable) */
    mc_state_type type;
    size_t offset;      /* of the member in mc_chain */
    int indirect;       /* 1: the member points to the values; 0: they are inside mc_chain */
    /* values per chain, 0 where the plan has no such member; for a per-sample member the rows of
     * its [rows][plan->nsamples] array, of which the first chain->nsamples columns hold samples */
    size_t (*count)(const mc_plan *p);
    int per_sample;
    int series;         /* 1: the member is series[MC_NOBS]: one array per series observable */
    mc_state_role role;
} mc_state_field;

extern const mc_state_field mc_state_fields[];
extern const int mc_state_nfields;

/* The values of field f of chain c (for a series field, those of observable `observable`, NULL
 * where the plan has none). */
void *mc_state_values(const mc_state_field *f, mc_chain *c, int observable);

/* Whether field f (for a series field, observable `observable`) is part of the plan's state. */
int mc_state_present(const mc_state_field *f, const mc_plan *p, int observable);

/* Values per chain of field f after `nsamples` samples. */
size_t mc_state_stored(const mc_state_field *f, const mc_plan *p, long nsamples);

/* Allocate every array of the table that the plan has (the pointed members, and the per-sample
 * ones for all of plan->nsamples), zeroed, so that a new array of mc_chain is one row of the table:
 * allocated, freed, checkpointed and restored alike. */
int mc_state_allocate(const mc_plan *p, mc_chain *c, mc_err *err);

/* Free every array of the table (NULL-safe, whatever the plan). */
void mc_state_free(mc_chain *c);

/* Replica exchange: the values (8 bytes each) of the members a trade carries, its configuration
 * and walker record; packed into buf and unpacked from it in table order, exactly. */
size_t mc_state_traded_len(const mc_plan *p);
void mc_state_pack_traded(const mc_plan *p, const mc_chain *c, double *buf);
void mc_state_unpack_traded(const mc_plan *p, mc_chain *c, const double *buf);

/* a and b trade their configurations (the arrays by pointer), not their walker records. */
void mc_state_swap_configuration(const mc_plan *p, mc_chain *a, mc_chain *b);

/* Bytes of one chain's state with all of the plan's samples taken: the size per chain of the
 * last checkpoint of a run. */
size_t mc_state_bytes_per_chain(const mc_plan *p);

#ifdef __cplusplus
}
#endif
#endif
