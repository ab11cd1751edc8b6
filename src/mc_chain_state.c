/* mc_chain_state: the members of mc_chain that a checkpoint saves, as a table. */
#include "mc_chain_state.h"

#include <stdlib.h>
#include <string.h>

static size_t one(const mc_plan *p) { return (void)p, 1; }
static size_t sites(const mc_plan *p) { return (size_t)p->n; }
static size_t centres(const mc_plan *p) { return p->rigid ? (size_t)p->nmol : 0; }
static size_t quaternions(const mc_plan *p) { return p->rigid ? 4 * (size_t)p->nmol : 0; }
static size_t rigid_only(const mc_plan *p) { return p->rigid ? 1 : 0; }
static size_t volume_moves(const mc_plan *p) { return p->ensemble->volume_moves ? 1 : 0; }
static size_t gibbs_only(const mc_plan *p) { return mc_plan_labelled(p) ? 1 : 0; }
static size_t gibbs_boxes(const mc_plan *p) { return mc_plan_labelled(p) ? 2 : 0; }
static size_t gibbs_labels(const mc_plan *p) { return mc_plan_labelled(p) ? (size_t)p->n : 0; }
static size_t gibbs_counts(const mc_plan *p) { return mc_plan_labelled(p) ? 2 * (size_t)MC_MAX_SPECIES : 0; }
static size_t macrostates(const mc_plan *p) { return p->ensemble->open ? (size_t)(p->tmmc_n_max - p->tmmc_n_min + 1) : 0; }
static size_t collection(const mc_plan *p) { return 3 * macrostates(p); }
static size_t rdf_bins(const mc_plan *p) { return (size_t)mc_chain_rdf_rows(p) * (size_t)p->rdf_bins; }
static size_t rdf_rows(const mc_plan *p) { return (void)p, (size_t)MC_MAX_PAIRS + 1; }
static size_t widom_kinds(const mc_plan *p) { return p->widom_insertions ? (size_t)p->widom_kinds : 0; }
static size_t exchange_only(const mc_plan *p) { return p->exchange_every ? 1 : 0; }
static size_t centre_pairs(const mc_plan *p) /* the open cluster's Lindemann sums */
{
    return p->rigid && mc_plan_lindemann(p) ? (size_t)p->nmol * ((size_t)p->nmol - 1) / 2 : 0;
}

#define INSIDE(member, type, count) {#member, type, offsetof(mc_chain, member), 0, count, 0, 0, MC_STATE_KEPT}
#define POINTED(member, type, count) {#member, type, offsetof(mc_chain, member), 1, count, 0, 0, MC_STATE_KEPT}
#define PER_SAMPLE(member, rows, series) \
    {#member, MC_STATE_F64, offsetof(mc_chain, member), 1, rows, 1, series, MC_STATE_KEPT}
/* members that a replica exchange trades: the configuration, and the walker record that goes with it */
#define TRADED_INSIDE(member, type, count, role) {#member, type, offsetof(mc_chain, member), 0, count, 0, 0, role}
#define TRADED_POINTED(member, count) {#member, MC_STATE_F64, offsetof(mc_chain, member), 1, count, 0, 0, \
                                       MC_STATE_CONFIGURATION}
#define TRADED_POINTED_AS(member, type, count) {#member, type, offsetof(mc_chain, member), 1, count, 0, 0, \
                                                MC_STATE_CONFIGURATION}

const mc_state_field mc_state_fields[] = {
    TRADED_INSIDE(box_len, MC_STATE_F64, one, MC_STATE_CONFIGURATION),
    INSIDE(max_displacement, MC_STATE_F64, one),
    INSIDE(step, MC_STATE_U64, one),
    INSIDE(accepted, MC_STATE_U64, one),
    TRADED_INSIDE(energy_pair, MC_STATE_F64, one, MC_STATE_CONFIGURATION),
    INSIDE(max_volume_step, MC_STATE_F64, volume_moves),
    INSIDE(volume_moves, MC_STATE_U64, volume_moves),
    INSIDE(volume_accepted, MC_STATE_U64, volume_moves),
    INSIDE(production_volume_moves0, MC_STATE_U64, volume_moves),
    INSIDE(production_volume_accepted0, MC_STATE_U64, volume_moves),
    INSIDE(production_volume_floor_hits, MC_STATE_U64, volume_moves),
    INSIDE(gibbs_box_len, MC_STATE_F64, gibbs_boxes),
    /* a configuration of slots present and absent (gcmc's exchange trades it: mc_exchange.h) */
    TRADED_INSIDE(gibbs_energy, MC_STATE_F64, gibbs_boxes, MC_STATE_CONFIGURATION),
    TRADED_INSIDE(gibbs_count, MC_STATE_I64, gibbs_counts, MC_STATE_CONFIGURATION),
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
    TRADED_INSIDE(walker, MC_STATE_I64, exchange_only, MC_STATE_WALKER),
    TRADED_INSIDE(walker_end, MC_STATE_I64, exchange_only, MC_STATE_WALKER),
    TRADED_INSIDE(walker_traversals, MC_STATE_U64, exchange_only, MC_STATE_WALKER),
    INSIDE(exchange_attempts, MC_STATE_U64, exchange_only),
    INSIDE(exchange_accepted, MC_STATE_U64, exchange_only),
    INSIDE(production_exchange_attempts0, MC_STATE_U64, exchange_only),
    INSIDE(production_exchange_accepted0, MC_STATE_U64, exchange_only),
    TRADED_POINTED(x, sites),
    TRADED_POINTED(y, sites),
    TRADED_POINTED(z, sites),
    TRADED_POINTED_AS(in_box, MC_STATE_I64, gibbs_labels),
    TRADED_POINTED(cx, centres),
    TRADED_POINTED(cy, centres),
    TRADED_POINTED(cz, centres),
    TRADED_POINTED(q, quaternions),
    POINTED(rdf_counts, MC_STATE_U64, rdf_bins),
    POINTED(lindemann_r, MC_STATE_F64, centre_pairs),
    POINTED(lindemann_r2, MC_STATE_F64, centre_pairs),
    POINTED(tmmc_c, MC_STATE_F64, collection),
    POINTED(tmmc_bias, MC_STATE_F64, macrostates),
    POINTED(tmmc_energy, MC_STATE_F64, macrostates),
    POINTED(tmmc_visits, MC_STATE_U64, macrostates),
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

size_t mc_state_traded_len(const mc_plan *p)
{
    size_t len = 0;
    for (int i = 0; i < mc_state_nfields; i++)
        if (mc_state_fields[i].role != MC_STATE_KEPT) len += mc_state_fields[i].count(p);
    return len;
}

/* Each traded member's 8-byte values copied as they are (walker numbers included, so nothing is
 * converted), in table order. */
static void copy_traded(const mc_plan *p, mc_chain *c, double *buf, int into_chain)
{
    for (int i = 0; i < mc_state_nfields; i++) {
        const mc_state_field *f = &mc_state_fields[i];
        size_t bytes = 8 * f->count(p);
        if (f->role == MC_STATE_KEPT || !bytes) continue;
        void *values = mc_state_values(f, c, 0);
        if (into_chain) memcpy(values, buf, bytes);
        else memcpy(buf, values, bytes);
        buf += bytes / 8;
    }
    if (into_chain) mc_chain_set_box(c, c->box_len); /* half_box follows */
}

void mc_state_pack_traded(const mc_plan *p, const mc_chain *c, double *buf)
{
    copy_traded(p, (mc_chain *)c, buf, 0); /* only read */
}

void mc_state_unpack_traded(const mc_plan *p, mc_chain *c, const double *buf)
{
    copy_traded(p, c, (double *)buf, 1); /* only read */
}

void mc_state_swap_configuration(const mc_plan *p, mc_chain *a, mc_chain *b)
{
    for (int i = 0; i < mc_state_nfields; i++) {
        const mc_state_field *f = &mc_state_fields[i];
        if (f->role != MC_STATE_CONFIGURATION || !f->count(p)) continue;
        char *ma = (char *)a + f->offset, *mb = (char *)b + f->offset;
        size_t bytes = f->indirect ? sizeof(void *) : 8 * f->count(p); /* arrays by pointer */
        char t[8 * 4];
        for (size_t k = 0; k < bytes; k += sizeof t) {
            size_t m = bytes - k < sizeof t ? bytes - k : sizeof t;
            memcpy(t, ma + k, m), memcpy(ma + k, mb + k, m), memcpy(mb + k, t, m);
        }
    }
    mc_chain_set_box(a, a->box_len), mc_chain_set_box(b, b->box_len);
}
