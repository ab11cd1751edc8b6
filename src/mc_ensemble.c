/* mc_ensemble: the rows of the ensemble table and what each adds to the run driver. */
#include "mc_ensemble.h"

#include <math.h>

#include "mc_backend.h"
#include "mc_corrections.h"
#include "mc_gcmc.h"
#include "mc_gibbs.h"
#include "mc_observable.h"

mc_round_counts mc_round_counts_of(const mc_chain *c)
{
    return (mc_round_counts){c->step,      c->accepted,           c->volume_moves, c->volume_accepted,
                             c->rotations, c->rotations_accepted, c->transfers,    c->transfers_accepted};
}

/* Scale a step toward the target acceptance; bounded factors keep one noisy block from
 * collapsing or exploding it, and `largest` caps it (half the box for a displacement). */
static double adapted_step(double step, double acceptance, double target, double largest)
{
    double factor = acceptance / target;
    factor = factor < 0.5 ? 0.5 : factor > 1.5 ? 1.5 : factor;
    return fmin(step * factor, largest);
}

/* The backend's sweeps alone: every move of the ensemble is made inside them. */
static int backend_sweeps(const mc_ensemble_ctx *x, long nsweeps, mc_err *err)
{
    return x->ops->sweep(x->backend, nsweeps, err);
}

/* One box: the displacement step over the round's translations (n_mol per sweep less the
 * rotations), at most half the box, and the rotation step over the rotations, at most pi. */
static void adapt_one_box(const mc_plan *p, mc_chain *c, const mc_round_counts *at, long sweeps)
{
    double rotations = (double)(c->rotations - at->rotations);
    double rotated = (double)(c->rotations_accepted - at->rotations_accepted);
    double translations = (double)sweeps * c->nmol - rotations;
    /* an open cluster has no box to bound the step: a lattice spacing's worth is plenty */
    double largest = p->periodic ? c->half_box : fmax(p->lattice_constant, p->sigma);
    if (translations > 0)
        c->max_displacement = adapted_step(c->max_displacement,
                                           ((double)(c->accepted - at->accepted) - rotated) / translations,
                                           p->target_acceptance, largest);
    if (rotations > 0)
        c->max_rotation = adapted_step(c->max_rotation, rotated / rotations, p->target_acceptance, M_PI);
}

static void nvt_sample(const mc_plan *p, const mc_chain *c, const mc_measurement *m, mc_sample_ctx *s)
{
    (void)p, (void)c, (void)m;
    s->corr = s->sp->corr;
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
static int npt_volume_move(const mc_ensemble_ctx *x, mc_err *err)
{
    const mc_plan *p = x->plan;
    mc_volume_trial *t = x->volume_trial;
    for (int k = 0; k < x->nchains; k++) {
        mc_chain *c = x->chains[k];
        t[k] = mc_volume_draw(p->seed, (uint32_t)c->id, c->volume_moves++, c->max_volume_step);
        x->scale[k] = exp(t[k].log_ratio / 3.0);
        if (c->box_len * x->scale[k] >= p->min_box_len) continue;
        x->scale[k] = 1.0;
        c->production_volume_floor_hits += mc_chain_in_production(p, c); /* as the GPU's chain kernel counts */
    }
    MC_TRY(x->ops->volume_energy(x->backend, x->scale, x->trial_energy, err));
    for (int k = 0; k < x->nchains; k++) {
        mc_chain *c = x->chains[k];
        if (x->scale[k] == 1.0) continue;
        const mc_statepoint *sp = &p->statepoint[c->statepoint];
        double v = c->box_len * c->box_len * c->box_len, v_new = v * exp(t[k].log_ratio);
        double dh = mc_npt_volume_cost(x->trial_energy[k] - c->energy_pair, p->npt_tail, v, v_new, sp->pressure,
                                       sp->temperature, (double)c->nmol, t[k].log_ratio);
        if (mc_metropolis_test(dh, c->beta, t[k].threshold)) c->volume_accepted++;
        else x->scale[k] = 1.0;
    }
    return x->ops->volume_apply(x->backend, x->scale, x->trial_energy, err);
}

/* npt: nsweeps sweeps of translation moves, each followed by a volume move: here, or inside the
 * backend's sweep where it makes them itself (the same draws and rule, mc_npt_volume_cost). */
static int npt_sweeps(const mc_ensemble_ctx *x, long nsweeps, mc_err *err)
{
    if (x->ops->moves_volume && x->ops->moves_volume(x->backend)) return backend_sweeps(x, nsweeps, err);
    for (long s = 0; s < nsweeps; s++) {
        MC_TRY(x->ops->sweep(x->backend, 1, err));
        MC_TRY(npt_volume_move(x, err));
    }
    return MC_OK;
}

/* npt: the one-box steps, and the volume step over the round's volume moves (one per sweep), at
 * most a change of V by e^1 per move. */
static void npt_adapt(const mc_plan *p, mc_chain *c, const mc_round_counts *at, long sweeps)
{
    adapt_one_box(p, c, at, sweeps);
    c->max_volume_step = adapted_step(c->max_volume_step, (double)(c->volume_accepted - at->volume_accepted) / sweeps,
                                      p->target_acceptance, 1.0);
}

/* npt: the corrections at the chain's current density. */
static void npt_sample(const mc_plan *p, const mc_chain *c, const mc_measurement *m, mc_sample_ctx *s)
{
    (void)m;
    s->corr = mc_corrections_at(p, c->n / s->volume, s->sp->temperature);
}

static int npt_floor_error(const mc_plan *p, const mc_chain *c, long sweep, uint64_t hits, uint64_t moves,
                           mc_err *err)
{
    MC_FAIL(err, MC_ECHECK, "chain %d, sweep %ld: %llu of %llu production volume moves would have taken "
            "the box below %g (twice the cutoff or the RDF range, which the minimum image needs): at "
            "pressure %g the fluid is denser than that; lower [ensemble] pressure, or [potential] "
            "cutoff and [rdf] rmax", c->id, sweep, (unsigned long long)hits, (unsigned long long)moves,
            p->min_box_len, p->statepoint[c->statepoint].pressure_given);
}

/* Gibbs: the displacement step toward the target acceptance (at most half the smaller box), the
 * rotation step of molecules likewise (at most pi), and the volume step (at most a change of
 * ln(V0/V1) by 1), from the round's own counts of each kind of move; transfers have nothing to
 * adapt. */
static void gibbs_adapt(const mc_plan *p, mc_chain *c, const mc_round_counts *at, long sweeps)
{
    (void)sweeps; /* every kind of move is drawn per step: the round's counts say how many there were */
    double volume = (double)(c->volume_moves - at->volume_moves);
    double transfer = (double)(c->transfers - at->transfers);
    double rotations = (double)(c->rotations - at->rotations);
    double rotated = (double)(c->rotations_accepted - at->rotations_accepted);
    double displaced = (double)(c->step - at->step) - volume - transfer - rotations;
    double vol_acc = (double)(c->volume_accepted - at->volume_accepted);
    double acc = (double)(c->accepted - at->accepted) - vol_acc -
                 (double)(c->transfers_accepted - at->transfers_accepted) - rotated;
    double largest = 0.5 * fmin(c->gibbs_box_len[0], c->gibbs_box_len[1]);
    if (displaced > 0)
        c->max_displacement = adapted_step(c->max_displacement, acc / displaced, p->target_acceptance, largest);
    if (rotations > 0)
        c->max_rotation = adapted_step(c->max_rotation, rotated / rotations, p->target_acceptance, M_PI);
    if (volume > 0)
        c->max_volume_step = adapted_step(c->max_volume_step, vol_acc / volume, p->target_acceptance, 1.0);
}

/* Gibbs: both boxes into the sample's context, the denser labelled the liquid. */
static void gibbs_sample(const mc_plan *p, const mc_chain *c, const mc_measurement *m, mc_sample_ctx *s)
{
    s->corr = s->sp->corr;
    for (int b = 0; b < 2; b++) {
        double volume = pow(c->gibbs_box_len[b], 3);
        s->box[b] = (mc_gibbs_box_sample){(double)mc_gibbs_particles(p, c, b), volume, (double)mc_gibbs_sites(p, c, b),
                                          m->box_energy[b], m->box_virial[b],
                                          mc_gibbs_corrections(p, c->gibbs_count[b], volume, s->sp->temperature)};
    }
    s->liquid = mc_gibbs_liquid_box(p, c);
}

static int gibbs_floor_error(const mc_plan *p, const mc_chain *c, long sweep, uint64_t hits, uint64_t moves,
                             mc_err *err)
{
    MC_FAIL(err, MC_ECHECK, "chain %d, sweep %ld: %llu of %llu production volume exchanges would have taken a "
            "box below %g (twice the cutoff or the RDF range, which the minimum image needs): the liquid box is "
            "too small for this n; raise [system] n, or lower [potential] cutoff and [rdf] rmax", c->id,
            sweep, (unsigned long long)hits, (unsigned long long)moves, p->min_box_len);
}

/* gcmc: the backend's sweeps (displacements, insertions and deletions, all drawn inside them), then
 * each chain's bias from its collection so far (mc_gcmc.h). */
static int gcmc_sweeps(const mc_ensemble_ctx *x, long nsweeps, mc_err *err)
{
    MC_TRY(backend_sweeps(x, nsweeps, err));
    for (int k = 0; x->plan->tmmc_bias && k < x->nchains; k++) mc_gcmc_update_bias(x->plan, x->chains[k]);
    return MC_OK;
}

/* gcmc: the displacement step over the round's displacements (the moves that were not insertions
 * or deletions), at most half the box. */
static void gcmc_adapt(const mc_plan *p, mc_chain *c, const mc_round_counts *at, long sweeps)
{
    (void)sweeps;
    double displaced = (double)(c->step - at->step) - (double)(c->transfers - at->transfers);
    double acc = (double)(c->accepted - at->accepted) - (double)(c->transfers_accepted - at->transfers_accepted);
    if (displaced > 0)
        c->max_displacement = adapted_step(c->max_displacement, acc / displaced, p->target_acceptance, c->half_box);
}

/* gcmc: the present particles are the sample's, the corrections at their density. */
static void gcmc_sample(const mc_plan *p, const mc_chain *c, const mc_measurement *m, mc_sample_ctx *s)
{
    (void)m;
    s->n = s->nmol = (int)mc_gibbs_particles(p, c, 0);
    s->corr = mc_corrections_at(p, s->n / s->volume, s->sp->temperature);
}

const mc_ensemble mc_ensembles[] = {
    [CFG_ENSEMBLE_NVT] = {"nvt", "NVT", 1, 0, 0, 0, backend_sweeps, adapt_one_box, nvt_sample, NULL},
    [CFG_ENSEMBLE_NPT] = {"npt", "NPT", 1, 1, 1, 0, npt_sweeps, npt_adapt, npt_sample, npt_floor_error},
    /* the Gibbs moves (displacements, transfers, volume exchanges) are all drawn inside the sweep */
    [CFG_ENSEMBLE_GIBBS] = {"gibbs", "Gibbs", 2, 1, 0, 0, backend_sweeps, gibbs_adapt, gibbs_sample, gibbs_floor_error},
    [CFG_ENSEMBLE_GCMC] = {"gcmc", "grand-canonical", 1, 0, 0, 1, gcmc_sweeps, gcmc_adapt, gcmc_sample, NULL},
};
