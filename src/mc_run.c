/* mc_run: equilibration with step-size adaptation, then production sampling, round by round. */
#include "mc_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mc_ensemble.h"
#include "mc_gcmc.h"

struct mc_run {
    const mc_plan *plan;
    const mc_backend_ops *ops;
    mc_backend *backend;
    mc_chain **chains;
    int nchains;
    long sweeps_done;
    mc_measurement *measured; /* [nchains] scratch for one round */
    double *boltzmann;        /* [nchains] Widom sums of one sample */
    mc_round_counts *round0;  /* [nchains] counts of each kind of move when the round began */
    mc_ensemble_ctx ensemble; /* what the plan's ensemble row acts on, with its scratch */
    /* replica exchange (plan->exchange_every > 0) */
    int first_chain;
    mc_run_exchange_transport transport; /* zeroed: the run holds every chain */
    mc_exchange_config *exchange_mine, *exchange_all; /* [nchains], [plan->nchains] */
    int *partner;                 /* [plan->nchains] the decisions of one exchange step */
    unsigned char *attempted;     /* [plan->nchains] */
    unsigned char *changed;       /* [nchains] this rank's chains whose configuration was traded */
    unsigned char *remote;        /* [nchains] ... with a chain of another rank */
    int *pair_first, *pair_second; /* [nchains] the rank's pairs of chains that trade, local indices */
    int *trade_peer, *trade_mine; /* [nchains] the trades with other ranks of one step */
    double **trade_send, **trade_recv;
    double *trade_buf;            /* packed configurations: two per swap being made */
    size_t trade_len;             /* doubles in trade_buf */
};

void mc_run_destroy(mc_run *r)
{
    if (!r) return;
    if (r->backend) r->ops->destroy(r->backend);
    for (int k = 0; r->chains && k < r->nchains; k++) mc_chain_destroy(r->chains[k]);
    free(r->chains);
    free(r->measured);
    free(r->boltzmann);
    free(r->round0);
    free(r->ensemble.scale);
    free(r->ensemble.trial_energy);
    free(r->ensemble.volume_trial);
    free(r->exchange_mine);
    free(r->exchange_all);
    free(r->partner);
    free(r->attempted);
    free(r->changed);
    free(r->remote);
    free(r->pair_first);
    free(r->pair_second);
    free(r->trade_peer), free(r->trade_mine), free(r->trade_send), free(r->trade_recv);
    free(r->trade_buf);
    free(r);
}

void mc_run_set_exchange_transport(mc_run *r, const mc_run_exchange_transport *t) { r->transport = *t; }

static int allocate_exchange(mc_run *r, mc_err *err)
{
    size_t C = (size_t)r->plan->nchains, n = (size_t)r->nchains;
    r->exchange_mine = calloc(n, sizeof *r->exchange_mine);
    r->exchange_all = calloc(C, sizeof *r->exchange_all);
    r->partner = calloc(C, sizeof *r->partner);
    r->attempted = calloc(C, 1);
    r->changed = calloc(n, 1);
    r->remote = calloc(n, 1);
    r->pair_first = calloc(n, sizeof *r->pair_first);
    r->pair_second = calloc(n, sizeof *r->pair_second);
    r->trade_peer = calloc(n, sizeof *r->trade_peer);
    r->trade_mine = calloc(n, sizeof *r->trade_mine);
    r->trade_send = calloc(n, sizeof *r->trade_send);
    r->trade_recv = calloc(n, sizeof *r->trade_recv);
    if (!r->exchange_mine || !r->exchange_all || !r->partner || !r->attempted || !r->changed || !r->remote ||
        !r->pair_first || !r->pair_second || !r->trade_peer || !r->trade_mine || !r->trade_send || !r->trade_recv)
        MC_FAIL(err, MC_ENOMEM, "out of memory for replica exchange over %zu chains", C);
    return MC_OK;
}

mc_run *mc_run_create(const mc_plan *plan, const mc_backend_ops *ops, int first_chain, int nchains,
                      mc_err *err)
{
    return mc_run_resume(plan, ops, first_chain, nchains, NULL, NULL, err);
}

/* A restored chain's running energy against the one its backend recomputed from the restored
 * positions: a checkpoint holds one consistent state, so they agree as the drift check demands
 * (damage the checksums missed, or a state written inconsistently, does not run on). */
static int check_restored_energy(const mc_run *r, int k, double stored, mc_err *err)
{
    const mc_chain *c = r->chains[k];
    mc_err drift = {MC_OK, ""};
    if (mc_check_drift(stored, c->energy_pair, r->plan->n, fmax(r->plan->epsilon, 1.0 / c->beta), c->id,
                       r->sweeps_done, &drift) == MC_OK)
        return MC_OK;
    MC_FAIL(err, MC_ECHECK, "the checkpoint's chain %d after sweep %ld: its running energy %.15g differs from %.15g "
            "recomputed from its positions beyond the drift limit %g: the checkpoint does not hold one consistent "
            "state", c->id, r->sweeps_done, stored, c->energy_pair, MC_DRIFT_TOLERANCE);
}

mc_run *mc_run_resume(const mc_plan *plan, const mc_backend_ops *ops, int first_chain, int nchains,
                      mc_run_restore restore, void *ctx, mc_err *err)
{
    mc_run *r = calloc(1, sizeof *r);
    if (!r) return mc_err_set(err, MC_ENOMEM, "out of memory for the run"), NULL;
    r->plan = plan;
    r->ops = ops;
    r->nchains = nchains;
    r->first_chain = first_chain;
    r->chains = calloc((size_t)nchains, sizeof *r->chains);
    r->measured = calloc((size_t)nchains, sizeof *r->measured);
    r->boltzmann = calloc((size_t)nchains, sizeof *r->boltzmann);
    r->round0 = calloc((size_t)nchains, sizeof *r->round0);
    mc_ensemble_ctx *x = &r->ensemble;
    x->scale = calloc((size_t)nchains, sizeof *x->scale);
    x->trial_energy = calloc((size_t)nchains, sizeof *x->trial_energy);
    x->volume_trial = calloc((size_t)nchains, sizeof *x->volume_trial);
    if (!r->chains || !r->measured || !r->boltzmann || !r->round0 || !x->scale || !x->trial_energy ||
        !x->volume_trial) {
        mc_run_destroy(r);
        return mc_err_set(err, MC_ENOMEM, "out of memory for %d chains", nchains), NULL;
    }
    if (plan->exchange_every && allocate_exchange(r, err) != MC_OK) {
        mc_run_destroy(r);
        return NULL;
    }
    for (int k = 0; k < nchains; k++)
        if (!(r->chains[k] = mc_chain_create(plan, first_chain + k, err))) {
            mc_run_destroy(r);
            return NULL;
        }
    /* the saved state replaces the start before the backend copies the chains */
    if (restore && restore(ctx, r->chains, nchains, &r->sweeps_done, err) != MC_OK) {
        mc_run_destroy(r);
        return NULL;
    }
    double *stored = malloc((size_t)nchains * sizeof *stored); /* the running energies as saved */
    if (!stored) {
        mc_run_destroy(r);
        return mc_err_set(err, MC_ENOMEM, "out of memory for %d chains", nchains), NULL;
    }
    for (int k = 0; k < nchains; k++) stored[k] = r->chains[k]->energy_pair;
    r->backend = ops->create(plan, r->chains, nchains, err);
    int rc = r->backend ? MC_OK : err->code;
    for (int k = 0; rc == MC_OK && restore && k < nchains; k++) rc = check_restored_energy(r, k, stored[k], err);
    free(stored);
    if (rc != MC_OK) {
        mc_run_destroy(r);
        return NULL;
    }
    x->plan = plan, x->ops = ops, x->backend = r->backend, x->chains = r->chains, x->nchains = nchains;
    return r;
}

static int is_local(const mc_run *r, int chain) { return chain >= r->first_chain && chain < r->first_chain + r->nchains; }

/* Room for `swaps` pairs of packed configurations in trade_buf. */
static int trade_room(mc_run *r, size_t swaps, mc_err *err)
{
    size_t need = 2 * swaps * mc_exchange_config_len(r->plan);
    if (need <= r->trade_len) return MC_OK;
    double *grown = realloc(r->trade_buf, need * sizeof *grown);
    if (!grown) MC_FAIL(err, MC_ENOMEM, "out of memory for %zu configurations of replica exchange", 2 * swaps);
    r->trade_buf = grown, r->trade_len = need;
    return MC_OK;
}

/* Trades with chains of other ranks, through the transport: this rank's configurations out,
 * theirs in (each checked to be its partner's), and the backend takes them. Nothing here
 * allocates: every rank has agreed that it is ready before its partners start waiting. */
static int trade_remote(mc_run *r, long sweep, int nremote, mc_err *err)
{
    const mc_plan *p = r->plan;
    size_t len = mc_exchange_config_len(p);
    int *peer = r->trade_peer, *mine = r->trade_mine, rc = MC_OK;
    double **send = r->trade_send, **recv = r->trade_recv;
    for (int k = 0, t = 0; k < r->nchains; k++) {
        if (!r->remote[k]) continue;
        mine[t] = r->chains[k]->id, peer[t] = r->partner[r->chains[k]->id];
        send[t] = r->trade_buf + 2 * (size_t)t * len, recv[t] = send[t] + len;
        mc_exchange_pack(p, r->chains[k], send[t++]);
    }
    if (rc == MC_OK) rc = r->transport.trade(r->transport.ctx, sweep, nremote, mine, peer, send, recv, len, err);
    for (int k = 0, t = 0; rc == MC_OK && k < r->nchains; k++) {
        if (!r->remote[k]) continue;
        if (mc_exchange_sender(p, recv[t]) != peer[t])
            rc = mc_err_set(err, MC_ECHECK, "replica exchange, sweep %ld: chain %d received chain %d's configuration, "
                            "expected chain %d's", sweep, mine[t], mc_exchange_sender(p, recv[t]), peer[t]);
        else mc_exchange_unpack(p, r->chains[k], recv[t++]);
    }
    MC_TRY(rc);
    return r->ops->reload(r->backend, r->remote, err);
}

/* The configurations of this rank's chains that an exchange step's decisions trade: pairs within
 * the rank through the backend (on the device where the chains live there), the others with their
 * ranks by way of the host. With other ranks involved, every rank agrees on its status before the
 * trade and after it (agree()), so that a failure on one rank (a device error, memory) ends the
 * step on all of them instead of leaving a partner waiting. */
static int trade_configurations(mc_run *r, long sweep, mc_err *err)
{
    int npairs = 0, nremote = 0;
    for (int k = 0; k < r->nchains; k++) {
        mc_chain *c = r->chains[k];
        int j = r->partner[c->id];
        r->remote[k] = r->changed[k] && !is_local(r, j);
        nremote += r->remote[k];
        if (!r->changed[k] || r->remote[k] || j < c->id) continue;
        r->pair_first[npairs] = k, r->pair_second[npairs++] = j - r->first_chain;
        mc_exchange_swap_walkers(c, r->chains[j - r->first_chain]);
    }
    int rc = r->ops->swap(r->backend, npairs, r->pair_first, r->pair_second, err);
    if (rc == MC_OK && nremote) rc = trade_room(r, (size_t)nremote, err);
    if (rc == MC_OK && nremote) rc = r->ops->fetch_some(r->backend, r->remote, err);
    if (!r->transport.agree) return rc == MC_OK && nremote ? mc_err_set(err, MC_ECHECK, "replica exchange with "
                                                                    "chains of other ranks needs a transport") : rc;
    MC_TRY(r->transport.agree(r->transport.ctx, sweep, rc, err));
    if (nremote) rc = trade_remote(r, sweep, nremote, err);
    return r->transport.agree(r->transport.ctx, sweep, rc, err);
}

/* Exchange step `step` (mc_exchange.h), after the sweeps whose outcome is `status`: every rank
 * takes part even when its sweeps failed, so that no rank waits on another. */
static int exchange_step(mc_run *r, long step, int status, mc_err *err)
{
    const mc_plan *p = r->plan;
    long sweep = step * p->exchange_every;
    for (int k = 0; k < r->nchains; k++)
        r->exchange_mine[k] = mc_exchange_config_of(p, r->chains[k]);
    if (r->transport.gather) {
        MC_TRY(r->transport.gather(r->transport.ctx, sweep, r->exchange_mine, status, r->exchange_all, err));
    } else {
        MC_TRY(status);
        if (r->nchains != p->nchains)
            MC_FAIL(err, MC_ECHECK, "replica exchange over %d of %d chains needs a transport", r->nchains, p->nchains);
        memcpy(r->exchange_all, r->exchange_mine, (size_t)r->nchains * sizeof *r->exchange_all);
    }
    mc_exchange_decide(p, step, r->exchange_all, r->partner, r->attempted);
    for (int k = 0; k < r->nchains; k++) {
        mc_chain *c = r->chains[k];
        c->exchange_attempts += r->attempted[c->id];
        c->exchange_accepted += r->attempted[c->id] && r->partner[c->id] >= 0;
        r->changed[k] = r->partner[c->id] >= 0;
    }
    MC_TRY(trade_configurations(r, sweep, err));
    for (int k = 0; k < r->nchains; k++) mc_exchange_visit(p, r->chains[k]);
    return MC_OK;
}

/* nsweeps sweeps, with an exchange step after every sweep count divisible by exchange_every. A
 * failed stretch still reaches its exchange step, where every rank learns of the failure. */
static int advance(mc_run *r, long nsweeps, mc_err *err)
{
    long every = r->plan->exchange_every;
    if (!every) return r->plan->ensemble->sweeps(&r->ensemble, nsweeps, err);
    for (long done = 0; done < nsweeps;) {
        long at = r->sweeps_done + done, chunk = nsweeps - done, to_exchange = every - at % every;
        if (to_exchange < chunk) chunk = to_exchange;
        int rc = r->plan->ensemble->sweeps(&r->ensemble, chunk, err);
        done += chunk;
        if ((at + chunk) % every == 0) MC_TRY(exchange_step(r, (at + chunk) / every, rc, err));
        else MC_TRY(rc);
    }
    return MC_OK;
}

static int measure_and_check(mc_run *r, int add_rdf, mc_err *err)
{
    const mc_plan *p = r->plan;
    MC_TRY(r->ops->measure(r->backend, add_rdf, r->measured, err));
    for (int k = 0; k < r->nchains; k++) {
        const mc_measurement *m = &r->measured[k];
        /* the floor's energy scale: epsilon, or kT where there is none (ideal particles in a wall) */
        double scale = fmax(p->epsilon, 1.0 / r->chains[k]->beta);
        MC_TRY(mc_check_drift(m->energy_pair_running, m->energy_pair, p->n, scale, r->chains[k]->id, r->sweeps_done,
                              err));
        for (int b = 0; p->ensemble->boxes > 1 && b < p->ensemble->boxes; b++) /* each box's running sum too */
            MC_TRY(mc_check_drift(m->box_energy_running[b], m->box_energy[b], p->n, scale, r->chains[k]->id,
                                  r->sweeps_done, err));
    }
    for (int k = 0; k < r->nchains; k++) /* the drift check above already refuses a non-finite energy */
        if (!isfinite(r->measured[k].virial_pair))
            MC_FAIL(err, MC_ECHECK, "chain %d, sweep %ld: the virial is %g (overlapping particles?): "
                    "the run stops rather than write it", r->chains[k]->id, r->sweeps_done,
                    r->measured[k].virial_pair);
    return MC_OK;
}

static int equilibration_round(mc_run *r, mc_err *err)
{
    const mc_plan *p = r->plan;
    long sweeps = p->equilibration_sweeps - r->sweeps_done;
    if (sweeps > p->adapt_every_sweeps) sweeps = p->adapt_every_sweeps;
    for (int k = 0; k < r->nchains; k++) r->round0[k] = mc_round_counts_of(r->chains[k]);
    MC_TRY(advance(r, sweeps, err));
    for (int k = 0; k < r->nchains; k++) p->ensemble->adapt(p, r->chains[k], &r->round0[k], sweeps);
    r->sweeps_done += sweeps;
    MC_TRY(measure_and_check(r, 0, err));
    if (r->sweeps_done == p->equilibration_sweeps)
        for (int k = 0; k < r->nchains; k++) {
            mc_chain *c = r->chains[k];
            c->production_step0 = c->step;
            c->production_accepted0 = c->accepted;
            c->production_volume_moves0 = c->volume_moves;
            c->production_volume_accepted0 = c->volume_accepted;
            c->production_rotations0 = c->rotations;
            c->production_rotations_accepted0 = c->rotations_accepted;
            c->production_exchange_attempts0 = c->exchange_attempts;
            c->production_exchange_accepted0 = c->exchange_accepted;
            c->production_transfers0 = c->transfers;
            c->production_transfers_accepted0 = c->transfers_accepted;
            if (p->ensemble->open) mc_gcmc_restart_collection(p, c);
        }
    return MC_OK;
}

/* Widom insertion of test particles of every species into the current sample's slot; each
 * species draws its own positions (draw = sample * species + species index). */
static int widom_sample(mc_run *r, mc_err *err)
{
    const mc_plan *p = r->plan;
    int m = p->widom_insertions, ns = p->widom_kinds;
    if (!m) return MC_OK;
    long sample = r->chains[0]->nsamples;
    for (int a = 0; a < ns; a++) {
        MC_TRY(r->ops->widom(r->backend, a, m, sample * ns + a, r->boltzmann, err));
        for (int k = 0; k < r->nchains; k++)
            r->chains[k]->widom[(size_t)a * p->nsamples + sample] = r->boltzmann[k] / m;
    }
    return MC_OK;
}

/* Ensembles that change volume: stop when a chain is pinned at the smallest box the minimum image
 * allows (a quarter of at least 100 production volume moves rejected there). */
static int check_volume_floor(const mc_run *r, mc_err *err)
{
    const mc_plan *p = r->plan;
    for (int k = 0; p->ensemble->volume_moves && k < r->nchains; k++) {
        const mc_chain *c = r->chains[k];
        uint64_t moves = c->volume_moves - c->production_volume_moves0, hits = c->production_volume_floor_hits;
        if (moves >= 100 && 4 * hits > moves)
            return p->ensemble->floor_error(p, c, r->sweeps_done, hits, moves, err);
    }
    return MC_OK;
}

static int production_round(mc_run *r, mc_err *err)
{
    const mc_plan *p = r->plan;
    MC_TRY(advance(r, p->sample_every_sweeps, err));
    MC_TRY(check_volume_floor(r, err));
    r->sweeps_done += p->sample_every_sweeps;
    MC_TRY(measure_and_check(r, 1, err));
    MC_TRY(widom_sample(r, err));
    for (int k = 0; k < r->nchains; k++) {
        mc_chain *c = r->chains[k];
        const mc_statepoint *sp = &p->statepoint[c->statepoint];
        double volume = c->box_len * c->box_len * c->box_len;
        mc_sample_ctx s = {.plan = p, .sp = sp, .n = c->n, .nmol = c->nmol, .volume = volume,
                           .energy_pair = r->measured[k].energy_pair, .virial_pair = r->measured[k].virial_pair};
        p->ensemble->sample(p, c, &r->measured[k], &s);
        long at = c->nsamples++;
        if (c->walker_at) c->walker_at[at] = (double)c->walker;
        for (int o = 0; o < MC_NOBS; o++)
            if (c->series[o]) c->series[o][at] = mc_observables[o].sample(&s);
    }
    return MC_OK;
}

int mc_run_round(mc_run *r, mc_err *err)
{
    if (r->sweeps_done < r->plan->equilibration_sweeps) return equilibration_round(r, err);
    if (!mc_run_finished(r)) return production_round(r, err);
    return MC_OK;
}

int mc_run_finished(const mc_run *r) { return r->sweeps_done >= mc_run_sweeps_total(r); }
long mc_run_sweeps_done(const mc_run *r) { return r->sweeps_done; }
const char *mc_run_path(const mc_run *r) { return r->ops->path(r->backend); }
long mc_run_sweeps_total(const mc_run *r)
{
    return r->plan->equilibration_sweeps + r->plan->production_sweeps;
}
int mc_run_fetch(mc_run *r, mc_err *err) { return r->ops->fetch(r->backend, err); }
int mc_run_nchains(const mc_run *r) { return r->nchains; }
const mc_chain *mc_run_chain(const mc_run *r, int k) { return r->chains[k]; }
const mc_plan *mc_run_plan(const mc_run *r) { return r->plan; }
int mc_run_equilibrated_now(const mc_run *r)
{
    return r->plan->equilibration_sweeps > 0 && r->sweeps_done == r->plan->equilibration_sweeps;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Time one measurement and one sample's Widom insertions of every chain, into cost. */
static int time_sample(mc_run *r, mc_run_cost *cost, mc_err *err)
{
    const mc_plan *p = r->plan;
    double t0 = now_seconds();
    MC_TRY(r->ops->measure(r->backend, 1, r->measured, err));
    cost->measure_seconds = now_seconds() - t0;
    t0 = now_seconds();
    for (int a = 0; p->widom_insertions && a < p->widom_kinds; a++)
        MC_TRY(r->ops->widom(r->backend, a, p->widom_insertions, a, r->boltzmann, err));
    cost->widom_seconds = now_seconds() - t0;
    return MC_OK;
}

int mc_run_calibrate(mc_run *r, double min_seconds, mc_run_cost *cost, mc_err *err)
{
    const mc_plan *p = r->plan;
    /* the first sweep pays for what comes once (caches, a GPU's module loading) */
    double t0 = now_seconds();
    MC_TRY(p->ensemble->sweeps(&r->ensemble, 1, err));
    double warm = now_seconds() - t0, timed = 0.0;
    /* then calls of as many sweeps as the run makes at a time (a production round's, or up to the
     * next exchange: each call has its own cost, a GPU's copies for one), fewer where they would
     * take longer than min_seconds */
    long chunk = p->sample_every_sweeps;
    if (p->exchange_every > 0 && p->exchange_every < chunk) chunk = p->exchange_every;
    if (warm > 0.0 && (double)chunk * warm > min_seconds) chunk = (long)fmax(1.0, floor(min_seconds / warm));
    long sweeps = 0;
    while (timed < min_seconds) {
        t0 = now_seconds();
        MC_TRY(p->ensemble->sweeps(&r->ensemble, chunk, err));
        timed += now_seconds() - t0, sweeps += chunk;
    }
    cost->sweep_seconds = timed / (double)sweeps;
    cost->sweeps_timed = sweeps;
    MC_TRY(time_sample(r, cost, err)); /* the first of each pays for what comes once, as above */
    return time_sample(r, cost, err);
}

double mc_run_cost_seconds(const mc_plan *p, const mc_run_cost *cost)
{
    double sweeps = (double)p->equilibration_sweeps + (double)p->production_sweeps;
    double samples = (double)p->production_sweeps / (double)p->sample_every_sweeps;
    double adaptations = ceil((double)p->equilibration_sweeps / (double)p->adapt_every_sweeps); /* both >= 1 */
    return sweeps * cost->sweep_seconds + (samples + adaptations) * cost->measure_seconds +
           samples * cost->widom_seconds;
}
