/* mc_chain_state: the members of mc_chain that a checkpoint saves, as a table. */
#include "mc_chain_state.h"

#include <stdlib.h>

static size_t one(const mc_plan *p) { return (void)p, 1; }
static size_t sites(const mc_plan *p) { return (size_t)p->n; }
static size_t centres(const mc_plan *p) { return p->rigid ? (size_t)p->nmol : 0; }
static size_t quaternions(const mc_plan *p) { return p->rigid ? 4 * (size_t)p->nmol : 0; }
static size_t rigid_only(const mc_plan *p) { return p->rigid ? 1 : 0; }
static size_t volume_moves(const mc_plan *p) { return p->ensemble->volume_moves ? 1 : 0; }
static size_t gibbs_only(const mc_plan *p) { return p->ensemble->boxes > 1 ? 1 : 0; }
static size_t gibbs_boxes(const mc_plan *p) { return p->ensemble->boxes > 1 ? 2 : 0; }
static size_t gibbs_labels(const mc_plan *p) { return p->ensemble->boxes > 1 ? (size_t)p->n : 0; }
static size_t gibbs_counts(const mc_plan *p) { return p->ensemble->boxes > 1 ? 2 * (size_t)MC_MAX_SPECIES : 0; }
static size_t rdf_bins(const mc_plan *p) { return (size_t)mc_chain_rdf_rows(p) * (size_t)p->rdf_bins; }
static size_t rdf_rows(const mc_plan *p) { return (void)p, (size_t)MC_MAX_PAIRS + 1; }
static size_t widom_kinds(const mc_plan *p) { return p->widom_insertions ? (size_t)p->widom_kinds : 0; }
static size_t exchange_only(const mc_plan *p) { return p->exchange_every ? 1 : 0; }
static size_t centre_pairs(const mc_plan *p) /* the open cluster's Lindemann sums */
{
    return p->rigid && mc_plan_lindemann(p) ? (size_t)p->nmol * ((size_t)p->nmol - 1) / 2 : 0;
}

#define INSIDE(member, type, count) {#member, type, offsetof(mc_chain, member), 0, count, 0, 0}
#define POINTED(member, type, count) {#member, type, offsetof(mc_chain, member), 1, count, 0, 0}
#define PER_SAMPLE(member, rows, series) {#member, MC_STATE_F64, offsetof(mc_chain, member), 1, rows, 1, series}

const mc_state_field mc_state_fields[] = {
    INSIDE(box_len, MC_STATE_F64, one),
    INSIDE(max_displacement, MC_STATE_F64, one),
    INSIDE(step, MC_STATE_U64, one),
    INSIDE(accepted, MC_STATE_U64, one),
    INSIDE(energy_pair, MC_STATE_F64, one),
    INSIDE(max_volume_step, MC_STATE_F64, volume_moves),
    INSIDE(volume_moves, MC_STATE_U64, volume_moves),
    INSIDE(volume_accepted, MC_STATE_U64, volume_moves),
    INSIDE(production_volume_moves0, MC_STATE_U64, volume_moves),
    INSIDE(production_volume_accepted0, MC_STATE_U64, volume_moves),
    INSIDE(production_volume_floor_hits, MC_STATE_U64, volume_moves),
    INSIDE(gibbs_box_len, MC_STATE_F64, gibbs_boxes),
    INSIDE(gibbs_energy, MC_STATE_F64, gibbs_boxes),
    INSIDE(gibbs_count, MC_STATE_I64, gibbs_counts),
    INSIDE(transfers, MC_STATE_U64, gibbs_only),
    INSIDE(transfers_accepted, MC_STATE_U64, gibbs_only),
    INSIDE(production_transfers0, MC_STATE_U64, gibbs_only),
    INSIDE(production_transfers_accepted0, MC_STATE_U64, gibbs_only),
    INSIDE(nsamples, MC_STATE_I64, one),
    INSIDE(production_step0, MC_STATE_U64, one),
    INSIDE(production_accepted0, MC_STATE_U64, one),
    INSIDE(rdf_norm, MC_STATE_F64, rdf_rows),
    INSIDE(max_rotation, MC_STATE_F64, rigid_only),
    INSIDE(rotations, MC_STATE_U64, rigid_only),
    INSIDE(rotations_accepted, MC_STATE_U64, rigid_only),
    INSIDE(production_rotations0, MC_STATE_U64, rigid_only),
    INSIDE(production_rotations_accepted0, MC_STATE_U64, rigid_only),
    INSIDE(walker, MC_STATE_I64, exchange_only),
    INSIDE(walker_end, MC_STATE_I64, exchange_only),
    INSIDE(walker_traversals, MC_STATE_U64, exchange_only),
    INSIDE(exchange_attempts, MC_STATE_U64, exchange_only),
    INSIDE(exchange_accepted, MC_STATE_U64, exchange_only),
    INSIDE(production_exchange_attempts0, MC_STATE_U64, exchange_only),
    INSIDE(production_exchange_accepted0, MC_STATE_U64, exchange_only),
    POINTED(x, MC_STATE_F64, sites),
    POINTED(y, MC_STATE_F64, sites),
    POINTED(z, MC_STATE_F64, sites),
    POINTED(in_box, MC_STATE_I64, gibbs_labels),
    POINTED(cx, MC_STATE_F64, centres),
    POINTED(cy, MC_STATE_F64, centres),
    POINTED(cz, MC_STATE_F64, centres),
    POINTED(q, MC_STATE_F64, quaternions),
    POINTED(rdf_counts, MC_STATE_U64, rdf_bins),
    POINTED(lindemann_r, MC_STATE_F64, centre_pairs),
    POINTED(lindemann_r2, MC_STATE_F64, centre_pairs),
    PER_SAMPLE(widom, widom_kinds, 0),
    PER_SAMPLE(walker_at, exchange_only, 0),
    PER_SAMPLE(series, one, 1),
};
const int mc_state_nfields = (int)(sizeof mc_state_fields / sizeof mc_state_fields[0]);

void *mc_state_values(const mc_state_field *f, mc_chain *c, int observable)
{
    char *member = (char *)c + f->offset;
    if (f->series) return ((double **)member)[observable];
    return f->indirect ? *(void **)member : member;
}

int mc_state_present(const mc_state_field *f, const mc_plan *p, int observable)
{
    if (f->series)
        return mc_observables[observable].kind == MC_OBS_SERIES && mc_observable_applies(p, observable);
    return f->count(p) > 0;
}

size_t mc_state_stored(const mc_state_field *f, const mc_plan *p, long nsamples)
{
    return f->count(p) * (f->per_sample ? (size_t)nsamples : 1);
}

int mc_state_allocate(const mc_plan *p, mc_chain *c, mc_err *err)
{
    for (int i = 0; i < mc_state_nfields; i++) {
        const mc_state_field *f = &mc_state_fields[i];
        if (!f->indirect) continue;
        for (int o = 0; o < (f->series ? MC_NOBS : 1); o++) {
            if (!mc_state_present(f, p, o)) continue;
            void **member = f->series ? (void **)&c->series[o] : (void **)((char *)c + f->offset);
            size_t count = mc_state_stored(f, p, p->nsamples);
            if (!(*member = calloc(count, 8)))
                MC_FAIL(err, MC_ENOMEM, "out of memory for chain %d's %s (%zu values)", c->id, f->name, count);
        }
    }
    return MC_OK;
}

void mc_state_free(mc_chain *c)
{
    for (int i = 0; i < mc_state_nfields; i++) {
        const mc_state_field *f = &mc_state_fields[i];
        if (!f->indirect) continue;
        for (int o = 0; o < (f->series ? MC_NOBS : 1); o++) {
            void **member = f->series ? (void **)&c->series[o] : (void **)((char *)c + f->offset);
            free(*member);
            *member = NULL;
        }
    }
}

size_t mc_state_bytes_per_chain(const mc_plan *p)
{
    size_t bytes = 0;
    for (int i = 0; i < mc_state_nfields; i++) {
        const mc_state_field *f = &mc_state_fields[i];
        for (int o = 0; o < (f->series ? MC_NOBS : 1); o++)
            if (mc_state_present(f, p, o)) bytes += 8 * mc_state_stored(f, p, p->nsamples);
    }
    return bytes;
}
