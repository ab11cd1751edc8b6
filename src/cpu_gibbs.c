/* cpu_gibbs: Gibbs-ensemble chains on the CPU (mc_gibbs.h for the moves and their acceptance), and
 * grand-canonical ones (mc_gcmc.h), whose absent slots are labelled box 1, a reservoir that
 * interacts with nothing.
 * A particle's energy in its box is a masked loop over all n particles (the other box's particles
 * add 0), in index order and species block by species block like the single-box fast path, so it
 * vectorises; a whole box's energy (measurements, volume exchanges) first compacts the box's
 * particles, which keeps their species blocks in order. */
#include "cpu_gibbs.h"

#include <math.h>
#include <stdlib.h>

#include "cpu_gibbs_rigid.h"
#include "cpu_isa.h"
#include "cpu_site_energy.h"
#include "mc_gcmc.h"
#include "mc_gibbs.h"
#include "mc_move.h"
#include "pair.h"
#include "tmmc.h"

/* One box's particles, compacted in index order: species a is [first[a], first[a + 1]). */
typedef struct box_points {
    double *x, *y, *z;
    int first[MC_MAX_SPECIES + 1];
    double len;
} box_points;

struct cpu_gibbs {
    double *buf;          /* [4][3 n]: two boxes, as they are and scaled */
    box_points box[2], scaled[2];
    cpu_gibbs_rigid *rigid; /* molecules: their own moves and scratch (cpu_gibbs_rigid.c) */
};

cpu_gibbs *cpu_gibbs_create(const mc_plan *p, mc_err *err)
{
    cpu_gibbs *g = calloc(1, sizeof *g);
    if (g && p->rigid) {
        if (!(g->rigid = cpu_gibbs_rigid_create(p, err))) return free(g), NULL;
        return g;
    }
    if (g) g->buf = malloc(12 * (size_t)p->n * sizeof *g->buf);
    if (!g || !g->buf) {
        free(g);
        return mc_err_set(err, MC_ENOMEM, "out of memory for the Gibbs scratch"), NULL;
    }
    for (int b = 0; b < 2; b++) {
        box_points *set[2] = {&g->box[b], &g->scaled[b]};
        for (int k = 0; k < 2; k++) {
            double *base = g->buf + (size_t)(2 * b + k) * 3 * p->n;
            set[k]->x = base, set[k]->y = base + p->n, set[k]->z = base + 2 * (size_t)p->n;
        }
    }
    return g;
}

void cpu_gibbs_destroy(cpu_gibbs *g)
{
    if (!g) return;
    cpu_gibbs_rigid_destroy(g->rigid);
    free(g->buf);
    free(g);
}

static double volume_of(double len) { return len * len * len; }

/* Energy of a particle of species a at pt in box `box` with every other particle there: skip is its
 * own index (-1 for a test or an inserted particle). */
static double energy_in_box(const mc_plan *p, const mc_chain *c, int a, int box, int skip, const double *pt)
{
    const mc_species *sp = &p->species;
    const cpu_partners in_box = {.x = c->x, .y = c->y, .z = c->z, .box = c->gibbs_box_len[box], .in_box = c->in_box,
                                 .box_label = box, .skip0 = skip};
    double u = 0.0;
    for (int b = 0; b < sp->n; b++)
        u += cpu_site_energy_in_box(&in_box, &sp->pair[a][b], sp->first[b], sp->first[b + 1], pt[0], pt[1], pt[2]);
    return u;
}

/* The index of the k-th particle (from 0, in index order) in box `box`, all species. */
static int kth_of_box(const mc_chain *c, int box, int64_t k)
{
    for (int i = 0; i < c->n; i++)
        if (c->in_box[i] == box && k-- == 0) return i;
    return -1; /* not reached: the counts match the labels */
}

/* A particle drawn over all n (Gibbs), or over the present ones (gcmc: an absent slot is not a
 * particle; none present, nothing moves), displaced within its box. */
static void displace(const mc_plan *p, mc_chain *c, uint64_t step)
{
    uint32_t among = p->ensemble->open ? (uint32_t)mc_gibbs_particles(p, c, 0) : (uint32_t)c->n;
    if (among == 0) return;
    mc_trial t = mc_trial_draw(p->seed, (uint32_t)c->id, step, among, 1.0);
    int i = p->ensemble->open ? kth_of_box(c, 0, t.particle) : (int)t.particle;
    int box = (int)c->in_box[i], a = mc_species_of(&p->species, i);
    double len = c->gibbs_box_len[box], max = mc_box_step(c->max_displacement, len);
    double old[3] = {c->x[i], c->y[i], c->z[i]};
    double now[3] = {mc_wrap(old[0] + t.dx * max, len), mc_wrap(old[1] + t.dy * max, len),
                     mc_wrap(old[2] + t.dz * max, len)};
    double dE = energy_in_box(p, c, a, box, i, now) - energy_in_box(p, c, a, box, i, old);
    if (!mc_metropolis_accept(dE, c->beta, p->seed, (uint32_t)c->id, step)) return;
    c->x[i] = now[0], c->y[i] = now[1], c->z[i] = now[2];
    c->gibbs_energy[box] += dE;
    c->energy_pair += dE;
    c->accepted++;
}

/* The index of the k-th particle (from 0, in index order) of species a in box `box`. */
static int kth_in_box(const mc_plan *p, const mc_chain *c, int a, int box, int64_t k)
{
    for (int i = p->species.first[a]; i < p->species.first[a + 1]; i++)
        if (c->in_box[i] == box && k-- == 0) return i;
    return -1; /* not reached: the counts match the labels */
}

/* gcmc: an insertion (a transfer out of the reservoir, box 1) or a deletion (out of box 0) of a
 * particle of kind t->kind (mc_gcmc.h): its unbiased acceptance collected in the row of N, then
 * taken with the bias where the window allows the new N. */
static void insert_or_delete(const mc_plan *p, mc_chain *c, uint64_t step, const mc_gibbs_trial *t)
{
    const int a = t->kind, insertion = t->source == 1;
    const int64_t n_kind = c->gibbs_count[0][a];
    const double len = c->box_len, volume = volume_of(len), lnz = mc_gcmc_lnz(p, c->statepoint, a);
    if (!mc_gcmc_attempt(p, c, step, a, insertion)) return;
    int i = -1;
    double pt[3], pair, log_ratio;
    const double tail = mc_gcmc_tail_change(p, c, a, insertion);
    if (insertion) {
        mc_gibbs_insertion_point(p->seed, (uint32_t)c->id, step, len, pt);
        pair = energy_in_box(p, c, a, 0, -1, pt);
        log_ratio = mc_gcmc_insertion_log_ratio(pair + tail, c->beta, lnz, volume, (double)n_kind);
    } else {
        i = kth_in_box(p, c, a, 0, (int64_t)mc_rng_index(t->pick, (uint32_t)n_kind));
        pt[0] = c->x[i], pt[1] = c->y[i], pt[2] = c->z[i];
        pair = energy_in_box(p, c, a, 0, i, pt);
        log_ratio = mc_gcmc_deletion_log_ratio(-(pair + tail), c->beta, lnz, volume, (double)n_kind);
    }
    if (!mc_gcmc_decide(p, c, step, insertion, log_ratio)) return;
    if (insertion) { /* the lowest absent slot of the kind: which one does not matter */
        i = kth_in_box(p, c, a, 1, 0);
        c->x[i] = pt[0], c->y[i] = pt[1], c->z[i] = pt[2];
    }
    c->in_box[i] = !insertion;
    mc_gcmc_taken(c, a, insertion, pair);
}

static void transfer(const mc_plan *p, mc_chain *c, uint64_t step, const mc_gibbs_trial *t)
{
    int a = t->kind, src = t->source, dst = !src;
    int64_t n_src = c->gibbs_count[src][a], n_dst = c->gibbs_count[dst][a];
    c->transfers++;
    if (n_src == 0) return; /* nothing of that species to move: rejected */
    int i = kth_in_box(p, c, a, src, (int64_t)mc_rng_index(t->pick, (uint32_t)n_src));
    double old[3] = {c->x[i], c->y[i], c->z[i]}, now[3];
    mc_gibbs_insertion_point(p->seed, (uint32_t)c->id, step, c->gibbs_box_len[dst], now);
    double v_src = volume_of(c->gibbs_box_len[src]), v_dst = volume_of(c->gibbs_box_len[dst]);
    double removed = energy_in_box(p, c, a, src, i, old), inserted = energy_in_box(p, c, a, dst, i, now);
    /* the tails at the counts after the move minus before */
    double tail = -mc_gibbs_tail_energy(p, c->gibbs_count[src], v_src) - mc_gibbs_tail_energy(p, c->gibbs_count[dst], v_dst);
    c->gibbs_count[src][a]--, c->gibbs_count[dst][a]++;
    tail += mc_gibbs_tail_energy(p, c->gibbs_count[src], v_src) + mc_gibbs_tail_energy(p, c->gibbs_count[dst], v_dst);
    double cost = mc_gibbs_transfer_cost(inserted - removed + tail, 1.0 / c->beta, (double)n_src, (double)n_dst,
                                         v_src, v_dst);
    if (!mc_metropolis_accept(cost, c->beta, p->seed, (uint32_t)c->id, step)) {
        c->gibbs_count[src][a]++, c->gibbs_count[dst][a]--;
        return;
    }
    c->in_box[i] = dst;
    c->x[i] = now[0], c->y[i] = now[1], c->z[i] = now[2];
    c->gibbs_energy[src] -= removed;
    c->gibbs_energy[dst] += inserted;
    c->energy_pair += inserted - removed;
    c->accepted++;
    c->transfers_accepted++;
}

/* Box b's particles into out, in index order, each coordinate scaled by s into a box of edge len
 * (s = 1: as they are). */
static void compact(const mc_plan *p, const mc_chain *c, int b, double s, double len, box_points *out)
{
    int k = 0;
    out->len = len;
    for (int a = 0; a < p->species.n; a++) {
        out->first[a] = k;
        for (int i = p->species.first[a]; i < p->species.first[a + 1]; i++) {
            if (c->in_box[i] != b) continue;
            out->x[k] = mc_scale_coordinate(c->x[i], s, len); /* s = 1: x itself, x being in [0, len) */
            out->y[k] = mc_scale_coordinate(c->y[i], s, len);
            out->z[k] = mc_scale_coordinate(c->z[i], s, len);
            k++;
        }
    }
    out->first[p->species.n] = k;
}

typedef struct pair_sums {
    double energy, virial;
} pair_sums;

/* Particle i of a compacted box with particles [j0, j1): energy and virial added to s. */
static inline __attribute__((always_inline)) void
pairs_of(const box_points *bp, const pair_params *pp, int i, int j0, int j1, pair_sums *s)
{
    const double len = bp->len, *x = bp->x, *y = bp->y, *z = bp->z;
    double u = 0.0, w = 0.0;
#pragma omp simd reduction(+ : u, w)
    for (int j = j0; j < j1; j++) {
        double r2 = mc_image_dist2(x[i] - x[j], y[i] - y[j], z[i] - z[j], len);
        u += pair_energy(r2, pp);
        w += pair_virial(r2, pp);
    }
    s->energy += u, s->virial += w;
}

/* Every pair of a compacted box once: for each i, the later particles species block by block
 * (plain LJ with its constants known to the compiler, as masked_range). */
MC_CPU_CLONES static pair_sums box_pairs(const mc_plan *p, const box_points *bp)
{
    const mc_species *sp = &p->species;
    pair_sums s = {0.0, 0.0};
    for (int a = 0; a < sp->n; a++)
        for (int i = bp->first[a]; i < bp->first[a + 1]; i++)
            for (int b = a; b < sp->n; b++) {
                const pair_params *pp = &sp->pair[a][b];
                int j0 = b == a ? i + 1 : bp->first[b];
                if (!pair_is_plain_lj(pp)) {
                    pairs_of(bp, pp, i, j0, bp->first[b + 1], &s);
                    continue;
                }
                const pair_params plain = pair_as_plain_lj(*pp);
                pairs_of(bp, &plain, i, j0, bp->first[b + 1], &s);
            }
    return s;
}

static void volume_exchange(const mc_plan *p, cpu_gibbs *g, mc_chain *c, const mc_gibbs_trial *t, uint64_t step)
{
    double v[2], v_new[2], len_new[2], tail = 0.0;
    c->volume_moves++;
    for (int b = 0; b < 2; b++) v[b] = volume_of(c->gibbs_box_len[b]);
    mc_gibbs_new_volumes(v[0], p->total_volume, t->log_ratio, &v_new[0], &v_new[1]);
    for (int b = 0; b < 2; b++) len_new[b] = cbrt(v_new[b]);
    if (len_new[0] < p->min_box_len || len_new[1] < p->min_box_len) {
        c->production_volume_floor_hits += mc_chain_in_production(p, c); /* mc_run stops a pinned chain */
        return;
    }
    double energy_new[2], dU = 0.0;
    for (int b = 0; b < 2; b++) {
        compact(p, c, b, len_new[b] / c->gibbs_box_len[b], len_new[b], &g->scaled[b]);
        energy_new[b] = box_pairs(p, &g->scaled[b]).energy;
        tail += mc_gibbs_tail_energy(p, c->gibbs_count[b], v_new[b]) - mc_gibbs_tail_energy(p, c->gibbs_count[b], v[b]);
        dU += energy_new[b] - c->gibbs_energy[b];
    }
    double cost = mc_gibbs_volume_cost(dU + tail, 1.0 / c->beta, (double)mc_gibbs_particles(p, c, 0),
                                       (double)mc_gibbs_particles(p, c, 1), v[0], v[1], v_new[0], v_new[1]);
    if (!mc_metropolis_accept(cost, c->beta, p->seed, (uint32_t)c->id, step)) return;
    for (int b = 0; b < 2; b++) {
        double s = len_new[b] / c->gibbs_box_len[b];
        for (int i = 0; i < c->n; i++) { /* the same function as the trial: the same numbers */
            if (c->in_box[i] != b) continue;
            c->x[i] = mc_scale_coordinate(c->x[i], s, len_new[b]);
            c->y[i] = mc_scale_coordinate(c->y[i], s, len_new[b]);
            c->z[i] = mc_scale_coordinate(c->z[i], s, len_new[b]);
        }
        c->gibbs_box_len[b] = len_new[b];
        c->gibbs_energy[b] = energy_new[b];
    }
    c->energy_pair = energy_new[0] + energy_new[1];
    c->accepted++;
    c->volume_accepted++;
}

void cpu_gibbs_sweep(const mc_plan *p, cpu_gibbs *g, mc_chain *c, ewald_sums *ewald, long nsweeps)
{
    if (g->rigid) {
        cpu_gibbs_rigid_sweep(p, g->rigid, c, ewald, nsweeps);
        return;
    }
    const int open = p->ensemble->open;
    long moves = nsweeps * (open ? p->tmmc_n_max : c->n); /* gcmc: n_max a sweep, whatever the slots */
    for (long m = 0; m < moves; m++) {
        uint64_t step = c->step++;
        mc_gibbs_trial t = mc_gibbs_draw(p->seed, (uint32_t)c->id, step, p->move_fraction, p->nkinds,
                                         c->max_volume_step);
        if (t.move == MC_GIBBS_DISPLACEMENT) displace(p, c, step);
        else if (t.move == MC_GIBBS_TRANSFER && open) insert_or_delete(p, c, step, &t);
        else if (t.move == MC_GIBBS_TRANSFER) transfer(p, c, step, &t);
        else volume_exchange(p, g, c, &t, step);
        if (open) mc_gcmc_record(p, c);
    }
}

/* One sample of the liquid box's pair counts (their norms: mc_gibbs_add_rdf_norm). */
static void liquid_rdf(const mc_plan *p, mc_chain *c, const box_points *bp)
{
    const mc_species *sp = &p->species;
    const double len = bp->len, rmax2 = p->rdf_rmax * p->rdf_rmax;
    for (int a = 0; a < sp->n; a++)
        for (int i = bp->first[a]; i < bp->first[a + 1]; i++)
            for (int b = a; b < sp->n; b++) {
                uint64_t *row = c->rdf_counts + (size_t)mc_species_pair_index(sp, a, b) * p->rdf_bins;
                for (int j = b == a ? i + 1 : bp->first[b]; j < bp->first[b + 1]; j++) {
                    double r2 = mc_image_dist2(bp->x[i] - bp->x[j], bp->y[i] - bp->y[j], bp->z[i] - bp->z[j], len);
                    if (r2 >= rmax2) continue;
                    int bin = (int)(sqrt(r2) / p->rdf_dr);
                    if (bin < p->rdf_bins) row[bin]++;
                }
            }
}

void cpu_gibbs_measure(const mc_plan *p, cpu_gibbs *g, mc_chain *c, ewald_sums *ewald, int add_rdf,
                       mc_measurement *out)
{
    if (g->rigid) {
        cpu_gibbs_rigid_measure(p, g->rigid, c, ewald, add_rdf, out);
        return;
    }
    out->energy_pair = out->virial_pair = 0.0;
    out->energy_pair_running = c->energy_pair;
    out->box_energy[1] = out->box_virial[1] = out->box_energy_running[1] = 0.0;
    for (int b = 0; b < p->ensemble->boxes; b++) { /* gcmc: one box, label 1 the absent slots */
        compact(p, c, b, 1.0, c->gibbs_box_len[b], &g->box[b]);
        pair_sums s = box_pairs(p, &g->box[b]);
        out->box_energy[b] = s.energy, out->box_virial[b] = s.virial;
        out->box_energy_running[b] = c->gibbs_energy[b];
        out->energy_pair += s.energy, out->virial_pair += s.virial;
        c->gibbs_energy[b] = s.energy; /* restart the running sums from the exact values */
    }
    c->energy_pair = out->energy_pair;
    if (add_rdf) {
        int liquid = p->ensemble->open ? 0 : mc_gibbs_liquid_box(p, c);
        liquid_rdf(p, c, &g->box[liquid]);
        mc_gibbs_add_rdf_norm(p, c, liquid);
    }
}

void cpu_gibbs_ewald_recompute(const mc_plan *p, cpu_gibbs *g, const mc_chain *c, ewald_sums *ewald)
{
    if (g->rigid) cpu_gibbs_rigid_ewald_recompute(p, g->rigid, c, ewald); /* charged sites are molecules' */
}

double cpu_gibbs_insertion_sum(const mc_plan *p, const mc_chain *c, ewald_sums *ewald, int kind, int insertions,
                               long draw)
{
    if (p->rigid) return cpu_gibbs_rigid_insertion_sum(p, c, ewald, kind, insertions, draw);
    int ns = p->species.n, a = kind % ns, liquid = mc_gibbs_liquid_box(p, c);
    int box = kind / ns == 0 ? liquid : !liquid;
    double len = c->gibbs_box_len[box], volume = volume_of(len), pt[3], sum = 0.0;
    double tail = mc_gibbs_insertion_tail(p->kind_tail, p->nkinds, c->gibbs_count[box], a, volume);
    for (int i = 0; i < insertions; i++) {
        mc_widom_position(p->seed, (uint32_t)c->id, (uint64_t)draw, (uint32_t)insertions, (uint32_t)i, len, &pt[0],
                          &pt[1], &pt[2]);
        sum += exp(-c->beta * (energy_in_box(p, c, a, box, -1, pt) + tail));
    }
    return sum * volume / (double)(c->gibbs_count[box][a] + 1);
}
