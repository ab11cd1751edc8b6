/* mc_exchange: ladder geometry, swap decisions and the configuration hand-off of replica exchange. */
#include "mc_exchange.h"

#include <math.h>
#include <string.h>

#include "mc_chain_state.h"
#include "mc_corrections.h"
#include "mc_gibbs.h"
#include "mc_move.h"
#include "mc_rng.h"

/* A ladder along the second axis of the state points (pressure or lnz), not along temperature. */
static int along_axis(const mc_plan *p) { return p->exchange_axis != CFG_EXCHANGE_TEMPERATURE; }

const char *mc_exchange_axis_name(const mc_plan *p)
{
    return p->exchange_axis == CFG_EXCHANGE_PRESSURE ? "pressure" : p->exchange_axis == CFG_EXCHANGE_LNZ ? "lnz"
                                                                                                      : "temperature";
}

int mc_exchange_rungs(const mc_plan *p) { return along_axis(p) ? p->naxis : p->ntemperatures; }

int mc_exchange_ladders(const mc_plan *p)
{
    return (along_axis(p) ? p->ntemperatures : p->naxis) * p->replicas;
}

/* Chain c is state point s = t naxis + a (temperature t; density, pressure or lnz a), replica c % R.
 * A temperature ladder fixes (a, replica), a ladder along the other axis (t, replica). */
int mc_exchange_chain(const mc_plan *p, int ladder, int rung)
{
    int fixed = ladder / p->replicas, replica = ladder % p->replicas;
    int s = along_axis(p) ? fixed * p->naxis + rung : rung * p->naxis + fixed;
    return s * p->replicas + replica;
}

int mc_exchange_ladder_of(const mc_plan *p, int chain)
{
    int s = chain / p->replicas, replica = chain % p->replicas;
    int fixed = along_axis(p) ? s / p->naxis : s % p->naxis;
    return fixed * p->replicas + replica;
}

int mc_exchange_rung_of(const mc_plan *p, int chain)
{
    int s = chain / p->replicas;
    return along_axis(p) ? s % p->naxis : s / p->naxis;
}

mc_exchange_config mc_exchange_config_of(const mc_plan *p, const mc_chain *c)
{
    mc_exchange_config x = {c->energy_pair, c->box_len, (double)p->n};
    if (p->ensemble->open) { /* the box's particles, and their tail energy (which depends on N) */
        const double v = c->box_len * c->box_len * c->box_len;
        x.energy_pair += mc_gibbs_tail_energy(p, c->gibbs_count[0], v);
        x.particles = (double)mc_gibbs_particles(p, c, 0);
    }
    return x;
}

/* beta_s H_s(X): configuration x at the state point of chain `at` (gcmc: beta_s U(X) - N ln z_s). */
static double reduced_enthalpy(const mc_plan *p, int at, const mc_exchange_config *x)
{
    const mc_statepoint *sp = &p->statepoint[mc_plan_statepoint_of(p, at)];
    double h = x->energy_pair;
    if (p->ensemble->open) return h / sp->temperature - x->particles * sp->lnz;
    if (p->periodic) {
        double v = x->box_len * x->box_len * x->box_len;
        h += p->n * mc_corrections_at(p, p->n / v, sp->temperature).u_tail + sp->pressure * v;
    }
    return h / sp->temperature;
}

double mc_exchange_delta(const mc_plan *p, int a, int b, const mc_exchange_config *all)
{
    return reduced_enthalpy(p, a, &all[b]) + reduced_enthalpy(p, b, &all[a]) - reduced_enthalpy(p, a, &all[a]) -
           reduced_enthalpy(p, b, &all[b]);
}

void mc_exchange_decide(const mc_plan *p, long step, const mc_exchange_config *all, int *partner,
                        unsigned char *attempted)
{
    int rungs = mc_exchange_rungs(p);
    for (int c = 0; c < p->nchains; c++) partner[c] = -1, attempted[c] = 0;
    for (int l = 0; l < mc_exchange_ladders(p); l++)
        for (int r = (int)(step % 2); r + 1 < rungs; r += 2) {
            int a = mc_exchange_chain(p, l, r), b = mc_exchange_chain(p, l, r + 1);
            /* one Philox block per pair: counter (step, rung), keyed by the ladder */
            mc_rng4 u = mc_rng_block(p->seed, (uint32_t)l, MC_RNG_EXCHANGE, (uint64_t)step * rungs + r);
            attempted[a] = 1;
            if (mc_metropolis_test(mc_exchange_delta(p, a, b, all), 1.0, -log(mc_rng_uniform(u.v[0]))))
                partner[a] = b, partner[b] = a;
        }
}

/* The traded members of the chain-state table, then the packing chain's id. */
size_t mc_exchange_config_len(const mc_plan *p) { return mc_state_traded_len(p) + 1; }

void mc_exchange_pack(const mc_plan *p, const mc_chain *c, double *buf)
{
    mc_state_pack_traded(p, c, buf);
    buf[mc_state_traded_len(p)] = c->id;
}

int mc_exchange_sender(const mc_plan *p, const double *buf) { return (int)buf[mc_exchange_config_len(p) - 1]; }

void mc_exchange_unpack(const mc_plan *p, mc_chain *c, const double *buf) { mc_state_unpack_traded(p, c, buf); }

void mc_exchange_swap_walkers(mc_chain *a, mc_chain *b)
{
    int64_t walker = a->walker, end = a->walker_end;
    uint64_t traversals = a->walker_traversals;
    a->walker = b->walker, a->walker_end = b->walker_end, a->walker_traversals = b->walker_traversals;
    b->walker = walker, b->walker_end = end, b->walker_traversals = traversals;
}

void mc_exchange_visit(const mc_plan *p, mc_chain *c)
{
    int rung = mc_exchange_rung_of(p, c->id), top = mc_exchange_rungs(p) - 1;
    int end = rung == 0 ? 0 : rung == top ? 1 : -1;
    if (end < 0 || end == c->walker_end) return;
    if (c->walker_end >= 0) c->walker_traversals++;
    c->walker_end = end;
}
