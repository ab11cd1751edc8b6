/* mc_run: equilibration with step-size adaptation, then production sampling, round by round. */
#include "mc_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mc_gibbs.h"
#include "mc_move.h"

typedef struct mc_round_counts {
    uint64_t step, volume_moves, transfers, transfers_accepted;
} mc_round_counts;

struct mc_run {
    const mc_plan *plan;
    const mc_backend_ops *ops;
    mc_backend *backend;
    mc_chain **chains;
    int nchains;
    long sweeps_done;
    mc_measurement *measured; /* [nchains] scratch for one round */
    double *boltzmann;        /* [nchains] Widom sums of one sample */
    uint64_t *accepted0;      /* [nchains] accepted count when the round began */
    uint64_t *volume_accepted0; /* [nchains] accepted volume moves when the round began */
    uint64_t *rotations0, *rotations_accepted0; /* [nchains] rotation moves, the same */
    mc_round_counts *round0;  /* [nchains] gibbs: counts of each kind of move when the round began */
    double *scale, *trial_energy; /* npt [nchains]: one volume move's box scaling and energy */
    mc_volume_trial *volume_trial; /* npt [nchains]: its draws */
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
    free(r->accepted0);
    free(r->volume_accepted0);
    free(r->rotations0);
    free(r->rotations_accepted0);
    free(r->round0);
    free(r->scale);
    free(r->trial_energy);
    free(r->volume_trial);
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
    r->accepted0 = calloc((size_t)nchains, sizeof *r->accepted0);
    r->boltzmann = calloc((size_t)nchains, sizeof *r->boltzmann);
    r->volume_accepted0 = calloc((size_t)nchains, sizeof *r->volume_accepted0);
    r->scale = calloc((size_t)nchains, sizeof *r->scale);
    r->trial_energy = calloc((size_t)nchains, sizeof *r->trial_energy);
    r->volume_trial = calloc((size_t)nchains, sizeof *r->volume_trial);
    r->rotations0 = calloc((size_t)nchains, sizeof *r->rotations0);
    r->rotations_accepted0 = calloc((size_t)nchains, sizeof *r->rotations_accepted0);
    r->round0 = calloc((size_t)nchains, sizeof *r->round0);
    if (!r->chains || !r->measured || !r->accepted0 || !r->boltzmann || !r->volume_accepted0 ||
        !r->scale || !r->trial_energy || !r->volume_trial || !r->rotations0 || !r->rotations_accepted0 || !r->round0) {
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
    if (!(r->backend = ops->create(plan, r->chains, nchains, err))) {
        mc_run_destroy(r);
        return NULL;
    }
    return r;
}

/* Scale a step toward the target acceptance; bounded factors keep one noisy block from
 * collapsing or exploding it, and `largest` caps it (half the box for a displacement). */
static double adapted_step(double step, double acceptance, double target, double largest)
{
    double factor = acceptance / target;
    factor = factor < 0.5 ? 0.5 : factor > 1.5 ? 1.5 : factor;
    return fmin(step * factor, largest);
}

/* npt: one volume move per chain, a random walk in ln V. With V' = V e^d, d uniform in
 * (-dmax, dmax), the walk's proposal density in V is 1/V', so detailed balance for the NPT weight
 * V^N exp(-beta (U + P V)) accepts with min(1, exp(-beta [dU + P dV] + (N + 1) d)) (Frenkel &
 * Smit, 2nd ed., 5.4.2). N counts what the volume move scales: atoms, or for rigid molecules their
 * centres (the sites follow each centre unchanged, so only the centres' coordinates carry the
 * Jacobian). dU includes the change of the tail correction, which depends on V. A box
 * that would end below plan->min_box_len is rejected without evaluation (the cutoff and the RDF
 * range must stay within half the box): the ensemble is then the one restricted to larger boxes.
 * That is harmless while equilibration compresses a dilute start, and rare rejections in
 * production (a small system's broad volume distribution) barely touch the averages; they are
 * counted, and a chain pinned at the floor (a quarter of its production volume moves rejected there,
 * over at least 100: at the floor about half the proposals shrink the box) stops the run. */
static int volume_move(mc_run *r, mc_err *err)
{
    const mc_plan *p = r->plan;
    mc_volume_trial *t = r->volume_trial;
    for (int k = 0; k < r->nchains; k++) {
        mc_chain *c = r->chains[k];
        t[k] = mc_volume_draw(p->seed, (uint32_t)c->id, c->volume_moves++, c->max_volume_step);
        r->scale[k] = exp(t[k].log_ratio / 3.0);
        if (c->box_len * r->scale[k] >= p->min_box_len) continue;
        r->scale[k] = 1.0;
        c->production_volume_floor_hits += mc_chain_in_production(p, c); /* as the GPU's chain kernel counts */
    }
    MC_TRY(r->ops->volume_energy(r->backend, r->scale, r->trial_energy, err));
    for (int k = 0; k < r->nchains; k++) {
        mc_chain *c = r->chains[k];
        if (r->scale[k] == 1.0) continue;
        const mc_statepoint *sp = &p->statepoint[c->statepoint];
        double v = c->box_len * c->box_len * c->box_len, v_new = v * exp(t[k].log_ratio);
        double dh = mc_npt_volume_cost(r->trial_energy[k] - c->energy_pair, p->npt_tail, v, v_new, sp->pressure,
                                       sp->temperature, (double)c->nmol, t[k].log_ratio);
        if (mc_metropolis_test(dh, c->beta, t[k].threshold)) c->volume_accepted++;
        else r->scale[k] = 1.0;
    }
    return r->ops->volume_apply(r->backend, r->scale, r->trial_energy, err);
}

/* nsweeps sweeps of translation moves, each followed by a volume move in npt: here, or inside the
 * backend's sweep where it makes them itself (the same draws and rule, mc_npt_volume_cost). */
static int sweeps(mc_run *r, long nsweeps, mc_err *err)
{
    if (!r->plan->npt || (r->ops->moves_volume && r->ops->moves_volume(r->backend)))
        return r->ops->sweep(r->backend, nsweeps, err);
    for (long s = 0; s < nsweeps; s++) {
        MC_TRY(r->ops->sweep(r->backend, 1, err));
        MC_TRY(volume_move(r, err));
    }
    return MC_OK;
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
        r->exchange_mine[k] = (mc_exchange_config){r->chains[k]->energy_pair, r->chains[k]->box_len};
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
    if (!every) return sweeps(r, nsweeps, err);
    for (long done = 0; done < nsweeps;) {
        long at = r->sweeps_done + done, chunk = nsweeps - done, to_exchange = every - at % every;
        if (to_exchange < chunk) chunk = to_exchange;
        int rc = sweeps(r, chunk, err);
        done += chunk;
        if ((at + chunk) % every == 0) MC_TRY(exchange_step(r, (at + chunk) / every, rc, err));
        else MC_TRY(rc);
    }
    return MC_OK;
}

static int measure_and_check(mc_run *r, int add_rdf, mc_err *err)
{
    MC_TRY(r->ops->measure(r->backend, add_rdf, r->measured, err));
    for (int k = 0; k < r->nchains; k++)
        /* the floor's energy scale: epsilon, or kT where there is none (ideal particles in a wall) */
        MC_TRY(mc_check_drift(r->measured[k].energy_pair_running, r->measured[k].energy_pair,
                              r->plan->n, fmax(r->plan->epsilon, 1.0 / r->chains[k]->beta),
                              r->chains[k]->id, r->sweeps_done, err));
    for (int k = 0; r->plan->gibbs && k < r->nchains; k++) /* each box's running sum too */
        for (int b = 0; b < 2; b++)
            MC_TRY(mc_check_drift(r->measured[k].box_energy_running[b], r->measured[k].box_energy[b], r->plan->n,
                                  fmax(r->plan->epsilon, 1.0 / r->chains[k]->beta), r->chains[k]->id, r->sweeps_done,
                                  err));
    for (int k = 0; k < r->nchains; k++) /* the drift check above already refuses a non-finite energy */
        if (!isfinite(r->measured[k].virial_pair))
            MC_FAIL(err, MC_ECHECK, "chain %d, sweep %ld: the virial is %g (overlapping particles?): "
                    "the run stops rather than write it", r->chains[k]->id, r->sweeps_done,
                    r->measured[k].virial_pair);
    return MC_OK;
}

/* Gibbs: the displacement step toward the target acceptance (at most half the smaller box), the
 * rotation step of molecules likewise (at most pi), and the volume step (at most a change of
 * ln(V0/V1) by 1), from the round's own counts of each kind of move; transfers have nothing to
 * adapt. */
static void adapt_gibbs(mc_run *r, int k)
{
    const mc_plan *p = r->plan;
    mc_chain *c = r->chains[k];
    const mc_round_counts *at = &r->round0[k];
    double volume = (double)(c->volume_moves - at->volume_moves);
    double transfer = (double)(c->transfers - at->transfers);
    double rotations = (double)(c->rotations - r->rotations0[k]);
    double rotated = (double)(c->rotations_accepted - r->rotations_accepted0[k]);
    double displaced = (double)(c->step - at->step) - volume - transfer - rotations;
    double vol_acc = (double)(c->volume_accepted - r->volume_accepted0[k]);
    double acc = (double)(c->accepted - r->accepted0[k]) - vol_acc -
                 (double)(c->transfers_accepted - at->transfers_accepted) - rotated;
    double largest = 0.5 * fmin(c->gibbs_box_len[0], c->gibbs_box_len[1]);
    if (displaced > 0)
        c->max_displacement = adapted_step(c->max_displacement, acc / displaced, p->target_acceptance, largest);
    if (rotations > 0)
        c->max_rotation = adapted_step(c->max_rotation, rotated / rotations, p->target_acceptance, M_PI);
    if (volume > 0)
        c->max_volume_step = adapted_step(c->max_volume_step, vol_acc / volume, p->target_acceptance, 1.0);
}

static int equilibration_round(mc_run *r, mc_err *err)
{
    const mc_plan *p = r->plan;
    long sweeps = p->equilibration_sweeps - r->sweeps_done;
    if (sweeps > p->adapt_every_sweeps) sweeps = p->adapt_every_sweeps;
    for (int k = 0; k < r->nchains; k++) {
        r->accepted0[k] = r->chains[k]->accepted;
        r->volume_accepted0[k] = r->chains[k]->volume_accepted;
        r->rotations0[k] = r->chains[k]->rotations;
        r->rotations_accepted0[k] = r->chains[k]->rotations_accepted;
        r->round0[k] = (mc_round_counts){r->chains[k]->step, r->chains[k]->volume_moves, r->chains[k]->transfers,
                                         r->chains[k]->transfers_accepted};
    }
    MC_TRY(advance(r, sweeps, err));
    for (int k = 0; p->gibbs && k < r->nchains; k++) adapt_gibbs(r, k);
    for (int k = 0; !p->gibbs && k < r->nchains; k++) {
        mc_chain *c = r->chains[k];
        double rotations = (double)(c->rotations - r->rotations0[k]);
        double rotated = (double)(c->rotations_accepted - r->rotations_accepted0[k]);
        double translations = (double)sweeps * c->nmol - rotations;
        /* an open cluster has no box to bound the step: a lattice spacing's worth is plenty */
        double largest = p->periodic ? c->half_box : fmax(p->lattice_constant, p->sigma);
        if (translations > 0)
            c->max_displacement = adapted_step(c->max_displacement,
                                               ((double)(c->accepted - r->accepted0[k]) - rotated) / translations,
                                               p->target_acceptance, largest);
        if (rotations > 0)
            c->max_rotation = adapted_step(c->max_rotation, rotated / rotations, p->target_acceptance, M_PI);
        if (p->npt) /* at most a change of V by e^1 per move */
            c->max_volume_step = adapted_step(c->max_volume_step,
                                              (double)(c->volume_accepted - r->volume_accepted0[k]) / sweeps,
                                              p->target_acceptance, 1.0);
    }
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

/* npt and gibbs: stop when a chain is pinned at the smallest box the minimum image allows
 * (volume_move; cpu_gibbs.c's volume exchange). */
static int check_volume_floor(const mc_run *r, mc_err *err)
{
    const mc_plan *p = r->plan;
    for (int k = 0; (p->npt || p->gibbs) && k < r->nchains; k++) {
        const mc_chain *c = r->chains[k];
        uint64_t moves = c->volume_moves - c->production_volume_moves0, hits = c->production_volume_floor_hits;
        if (moves >= 100 && 4 * hits > moves && p->gibbs)
            MC_FAIL(err, MC_ECHECK, "chain %d, sweep %ld: %llu of %llu production volume exchanges would have taken a "
                    "box below %g (twice the cutoff or the RDF range, which the minimum image needs): the liquid box is "
                    "too small for this n; raise [system] n, or lower [potential] cutoff and [rdf] rmax", c->id,
                    r->sweeps_done, (unsigned long long)hits, (unsigned long long)moves, p->min_box_len);
        if (moves >= 100 && 4 * hits > moves)
            MC_FAIL(err, MC_ECHECK, "chain %d, sweep %ld: %llu of %llu production volume moves would have taken "
                    "the box below %g (twice the cutoff or the RDF range, which the minimum image needs): at "
                    "pressure %g the fluid is denser than that; lower [ensemble] pressure, or [potential] "
                    "cutoff and [rdf] rmax", c->id, r->sweeps_done, (unsigned long long)hits,
                    (unsigned long long)moves, p->min_box_len, p->statepoint[c->statepoint].pressure_given);
    }
    return MC_OK;
}

/* Gibbs: both boxes into the sample's context, the denser labelled the liquid. */
static void gibbs_sample(const mc_plan *p, const mc_chain *c, const mc_measurement *m, mc_sample_ctx *s)
{
    for (int b = 0; b < 2; b++) {
        double volume = pow(c->gibbs_box_len[b], 3);
        s->box[b] = (mc_gibbs_box_sample){(double)mc_gibbs_particles(p, c, b), volume, (double)mc_gibbs_sites(p, c, b),
                                          m->box_energy[b], m->box_virial[b],
                                          mc_gibbs_corrections(p, c->gibbs_count[b], volume, s->sp->temperature)};
    }
    s->liquid = mc_gibbs_liquid_box(p, c);
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
                           .corr = p->npt ? mc_plan_corrections(p, c->n / volume, sp->temperature) : sp->corr,
                           .energy_pair = r->measured[k].energy_pair, .virial_pair = r->measured[k].virial_pair};
        if (p->gibbs) gibbs_sample(p, c, &r->measured[k], &s);
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
