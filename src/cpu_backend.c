/* cpu_backend: the serial reference backend, for atoms and for molecules. Energy decomposition: a
 * trial move's dE is the moved particle's (or molecule's) energy with all others at its new place
 * minus at its old one. Atoms (one site, no orientation) take the single-site fast path: all pairs
 * in vectorised loops, or the 27 surrounding cells when the box holds at least 4 cutoff-wide
 * cells per edge. Molecules take the rigid-body move of mc_rigid.h over all other sites; their
 * measurements, Widom test molecules and volume scaling are mc_rigid_host's, which the GPU backend
 * shares. */
#include <math.h>
#include <stdlib.h>

#include "cpu_cells.h"
#include "cpu_gibbs.h"
#include "cpu_isa.h"
#include "cpu_site_energy.h"
#include "pair.h"
#include "mc_backend.h"
#include "mc_chain_state.h"
#include "mc_move.h"
#include "mc_rigid.h"
#include "mc_rigid_host.h"

typedef struct cpu_chain_scratch {
    cpu_cells move_cells; /* cells >= cutoff wide, kept current as particles move */
    cpu_cells rdf_cells;  /* cells >= rdf rmax wide, rebuilt at each RDF sample */
    /* charges: the chain's structure factors, kept current as molecules move and recomputed from
     * the positions at every measurement, trade and volume change, so that they are a function of
     * the configuration wherever a round begins (as the cell lists are); one per box (a chain of one
     * box uses [0]) */
    ewald_sums ewald[2];
} cpu_chain_scratch;

struct mc_backend {
    const mc_plan *plan;
    mc_chain **chains;
    int nchains;
    cpu_chain_scratch *scratch; /* atoms: [nchains] (molecules: no cells, ncell 0) */
    double *trial_pos;          /* npt: the coordinates of a trial volume (atoms [3][n]; molecules
                                   mc_rigid_scaled_scratch) */
    double *old_pos, *new_pos;  /* molecules: [3 max_sites] the moved molecule's sites */
    cpu_gibbs *gibbs;           /* Gibbs-ensemble chains' scratch (cpu_gibbs.c); NULL otherwise */
    double *ewald_change;       /* charges: [2 nk] a trial move's change of S(k) */
    ewald_sums ewald_trial;     /* charges, npt: the structure factors of a trial volume */
    double *columns;            /* molecules of mixed LJ species, charged or not: [2 or 3][nspecies][n] each site
                                   species' lj1, lj2 (and with charges k_e q_a q_b) with every site
                                   (pair_columns); NULL otherwise */
};

/* Molecules of mixed species whose every pair is LJ with one cutoff, no shift and no hard core,
 * charged or not: each species' constants with every site of a chain, laid out by site, so that a
 * move's loop loads them beside the positions instead of gathering them by the partner's species
 * (two species ran 2.3 times slower per move than one before; issue 48 item 13; and charged
 * water's gathers of nine constants a pair kept it from vectorising). The sites' species are the
 * plan's, the same in every chain: one table for the rank. NULL where the case does not apply, or
 * on no memory (the gathering loop then serves). */
static double *pair_columns(const mc_plan *p)
{
    const mc_species *sp = &p->species;
    const mc_molecules *mol = &p->mol;
    if (!p->rigid || sp->n == 1) return NULL;
    const pair_params *first = &sp->pair[0][0];
    for (int a = 0; a < sp->n; a++)
        for (int b = 0; b < sp->n; b++) {
            const pair_params *pp = &sp->pair[a][b];
            if (pp->form != PAIR_LJ || pp->slope != 0.0 || pp->shift != 0.0 || pp->rc2 != first->rc2 ||
                mol->hard_core2[a][b] != 0.0)
                return NULL;
        }
    const size_t n = (size_t)p->n, ns = (size_t)sp->n, blocks = p->charged ? 3 : 2;
    double *col = malloc(blocks * ns * n * sizeof *col);
    if (!col) return NULL;
    for (size_t a = 0; a < ns; a++)
        for (size_t j = 0; j < n; j++) {
            const pair_params *pp = &sp->pair[a][mol->site_species[j]];
            col[a * n + j] = pp->lj1, col[(ns + a) * n + j] = pp->lj2;
            if (p->charged) col[(2 * ns + a) * n + j] = pp->coulomb_qq;
        }
    return col;
}

/* Energy of a particle of species a at p with the members cpu_cells_gather gathered, species
 * block by species block (end from the gather), each with its pair constants. */
static double energy_gathered(const mc_chain *c, const cpu_cells *g, const mc_species *sp, int a, const int *end,
                              double px, double py, double pz)
{
    double u = 0.0;
    for (int b = 0; b < sp->n; b++)
        u += cpu_site_energy_all(g->gx, g->gy, g->gz, c->box_len, &sp->pair[a][b], sp->first[b], end[b], px, py, pz);
    return u;
}

/* Energy of particle skip (-1: a test particle) of species a at p with the members of the 27 cells
 * around p, gathered and summed by the vectorised loop. */
static double energy_cells(const mc_chain *c, const cpu_cells *g, const mc_species *sp, int a, int skip, double px,
                           double py, double pz)
{
    int end[MC_MAX_SPECIES];
    cpu_cells_gather(g, cpu_cells_index(g, px, py, pz), skip, c->x, c->y, c->z, sp->first, sp->n, end);
    return energy_gathered(c, g, sp, a, end, px, py, pz);
}

/* Energy of particle i (skip = i; -1 for a test particle) of species a placed at p with every
 * other particle: species block by species block, each with its own pair constants. */
static double particle_energy(const mc_chain *c, const cpu_cells *g, const mc_species *sp, int a,
                              int skip, double px, double py, double pz)
{
    if (g->ncell) return energy_cells(c, g, sp, a, skip, px, py, pz);
    double u = 0.0;
    for (int b = 0; b < sp->n; b++) {
        int j0 = sp->first[b], j1 = sp->first[b + 1];
        if (skip >= j0 && skip < j1) {
            u += cpu_site_energy_all(c->x, c->y, c->z, c->box_len, &sp->pair[a][b], j0, skip, px, py, pz) +
                 cpu_site_energy_all(c->x, c->y, c->z, c->box_len, &sp->pair[a][b], skip + 1, j1, px, py, pz);
        } else {
            u += cpu_site_energy_all(c->x, c->y, c->z, c->box_len, &sp->pair[a][b], j0, j1, px, py, pz);
        }
    }
    return u;
}

static int attempt_atom_move(const mc_plan *plan, mc_chain *c, cpu_cells *g, mc_err *err)
{
    uint64_t step = c->step++;
    mc_trial t = mc_trial_draw(plan->seed, (uint32_t)c->id, step, (uint32_t)c->n,
                               mc_chain_step(c));
    int i = (int)t.particle;
    double nx = mc_wrap(c->x[i] + t.dx, c->box_len);
    double ny = mc_wrap(c->y[i] + t.dy, c->box_len);
    double nz = mc_wrap(c->z[i] + t.dz, c->box_len);
    const mc_species *sp = &plan->species;
    int a = mc_species_of(sp, i);
    double dE;
    if (g->ncell && cpu_cells_index(g, nx, ny, nz) == g->cell_of[i]) { /* one gather serves both */
        int end[MC_MAX_SPECIES];
        cpu_cells_gather(g, g->cell_of[i], i, c->x, c->y, c->z, sp->first, sp->n, end);
        dE = energy_gathered(c, g, sp, a, end, nx, ny, nz) - energy_gathered(c, g, sp, a, end, c->x[i], c->y[i], c->z[i]);
    } else {
        dE = particle_energy(c, g, sp, a, i, nx, ny, nz) - particle_energy(c, g, sp, a, i, c->x[i], c->y[i], c->z[i]);
    }
    if (!mc_metropolis_accept(dE, c->beta, plan->seed, (uint32_t)c->id, step)) return MC_OK;
    c->x[i] = nx;
    c->y[i] = ny;
    c->z[i] = nz;
    c->energy_pair += dE;
    c->accepted++;
    return g->ncell ? cpu_cells_move(g, i, cpu_cells_index(g, nx, ny, nz), err) : MC_OK;
}

/* The energy of a site at r with the sites outside its molecule [f0, f1): the loop of atoms with
 * the constants pp, or, where `mixed` is given, the loop with each partner's own (from the columns
 * where it has them). */
static double site_outside(const mc_chain *c, const cpu_partners *mixed, const pair_params *pp, int f0, int f1,
                           const double r[3])
{
    if (mixed && mixed->lj1_of)
        return cpu_site_energy_columns(mixed, 0, f0, r[0], r[1], r[2]) +
               cpu_site_energy_columns(mixed, f1, c->n, r[0], r[1], r[2]);
    if (mixed)
        return cpu_site_energy_mixed(mixed, 0, f0, r[0], r[1], r[2]) +
               cpu_site_energy_mixed(mixed, f1, c->n, r[0], r[1], r[2]);
    return cpu_site_energy_all(c->x, c->y, c->z, c->box_len, pp, 0, f0, r[0], r[1], r[2]) +
           cpu_site_energy_all(c->x, c->y, c->z, c->box_len, pp, f1, c->n, r[0], r[1], r[2]);
}

/* A molecule move's energy change (old_pos to new_pos, centre oc to nc): each moved site against
 * the sites before its molecule's and after them (an open cluster's box of 0 folds a separation to
 * -|d|, whose square is the plain difference's, as mc_rigid_separation takes it), and the wall
 * through mc_rigid_move_total. Molecules of one species without hard cores (united-atom benzene,
 * argon clusters) take the loop of atoms; mixed LJ species, charged or not, the loop with each
 * partner's constants from the columns (cpu_site_energy_columns; a site species without charge
 * leaves the Coulomb term out); the others (hard cores, unequal cutoffs, Morse) the same loop with
 * each partner's constants gathered by its species (cpu_site_energy_mixed), summed in the
 * vectoriser's order (doc/performance.md has the serial loop it replaced, five times slower). */
static double molecule_move_energy(const mc_plan *p, const double *columns, const mc_chain *c, int m,
                                   const double *old_pos, const double *new_pos, const double oc[3], const double nc[3])
{
    const mc_molecules *mol = &p->mol;
    const int f0 = mol->first[m], f1 = mol->first[m + 1];
    const int mixed = p->species.n != 1 || mol->hard_core2[0][0] != 0.0;
    cpu_partners others = {.x = c->x, .y = c->y, .z = c->z, .box = c->box_len, .species = mol->site_species,
                           .columns_rc2 = p->species.pair[0][0].rc2,
                           .columns_coulomb = p->species.pair[0][0]}; /* every pair's Coulomb constants alike */
    double u_old = 0.0, u_new = 0.0;
    for (int s = 0; s < f1 - f0; s++) {
        const int a = mol->site_species[f0 + s];
        if (mixed) /* the site's row of constants, and whether it is all plain LJ, once for its four sums */
            others.pair_row = p->species.pair[a], others.hard_core_row = mol->hard_core2[a],
            others.plain_row = cpu_pair_row_plain_lj(p->species.pair[a], p->species.n),
            others.lj_row = cpu_pair_row_lj(p->species.pair[a], p->species.n);
        if (columns)
            others.lj1_of = columns + (size_t)a * p->n, others.lj2_of = columns + (size_t)(p->species.n + a) * p->n,
            others.qq_of = cpu_pair_row_charged(p->species.pair[a], p->species.n) /* then the plan is charged */
                               ? columns + (size_t)(2 * p->species.n + a) * p->n
                               : NULL; /* a species without charge (TIP4P's O) pays no erfc */
        u_old += site_outside(c, mixed ? &others : NULL, &p->species.pair[0][0], f0, f1, &old_pos[3 * s]);
        u_new += site_outside(c, mixed ? &others : NULL, &p->species.pair[0][0], f0, f1, &new_pos[3 * s]);
    }
    return mc_rigid_move_total(p, u_old, u_new, oc, nc);
}

/* With charges: the move's energy change plus its change of the Ewald sum's Fourier part, whose
 * change of S(k) it leaves in b->ewald_change (the real-space term is in the pair function). */
static double charged_move_energy(mc_backend *b, const mc_chain *c, const ewald_sums *sums, int m,
                                  const double oc[3], const double nc[3])
{
    const mc_plan *p = b->plan;
    const int f0 = p->mol.first[m], ns = p->mol.first[m + 1] - f0;
    const double du = molecule_move_energy(p, b->columns, c, m, b->old_pos, b->new_pos, oc, nc);
    return du + ewald_move_change(&p->kspace, sums, ns, &p->site_charge[f0], b->old_pos, b->new_pos, b->ewald_change);
}

/* A rigid-body move of one molecule (mc_rigid.h): translation, or rotation about its centre. */
static void attempt_molecule_move(mc_backend *b, mc_chain *c, cpu_chain_scratch *sc)
{
    const mc_plan *p = b->plan;
    const mc_molecules *mol = &p->mol;
    uint64_t step = c->step++;
    mc_rigid_trial t = mc_rigid_trial_draw(p->seed, (uint32_t)c->id, step, (uint32_t)c->nmol, mol->first,
                                           mc_chain_step(c), c->max_rotation);
    int m = (int)t.molecule, f0 = mol->first[m], ns = mol->first[m + 1] - f0;
    double old_centre[3] = {c->cx[m], c->cy[m], c->cz[m]}, centre[3];
    mc_quat q = mc_chain_quat(c, m);
    centre[0] = mc_rigid_shift(old_centre[0], t.dx, c->box_len);
    centre[1] = mc_rigid_shift(old_centre[1], t.dy, c->box_len);
    centre[2] = mc_rigid_shift(old_centre[2], t.dz, c->box_len);
    if (t.rotate) q = mc_quat_normalize(mc_quat_multiply(t.turn, q));
    for (int k = 0; k < ns; k++) {
        b->old_pos[3 * k] = c->x[f0 + k], b->old_pos[3 * k + 1] = c->y[f0 + k], b->old_pos[3 * k + 2] = c->z[f0 + k];
        mc_rigid_site(centre, q, &mol->site_body[3 * (f0 + k)], c->box_len, &b->new_pos[3 * k]);
    }
    c->rotations += t.rotate;
    double dE = p->ewald ? charged_move_energy(b, c, &sc->ewald[0], m, old_centre, centre)
                         : molecule_move_energy(p, b->columns, c, m, b->old_pos, b->new_pos, old_centre, centre);
    if (!mc_metropolis_accept(dE, c->beta, p->seed, (uint32_t)c->id, step)) return;
    if (p->ewald) ewald_accept(&p->kspace, &sc->ewald[0], b->ewald_change);
    c->cx[m] = centre[0], c->cy[m] = centre[1], c->cz[m] = centre[2];
    c->q[4 * m] = q.w, c->q[4 * m + 1] = q.x, c->q[4 * m + 2] = q.y, c->q[4 * m + 3] = q.z;
    for (int k = 0; k < ns; k++)
        c->x[f0 + k] = b->new_pos[3 * k], c->y[f0 + k] = b->new_pos[3 * k + 1], c->z[f0 + k] = b->new_pos[3 * k + 2];
    c->energy_pair += dE;
    c->accepted++;
    c->rotations_accepted += t.rotate;
}

/* A sweep is one move per molecule (per atom). */
static int cpu_sweep(mc_backend *b, long nsweeps, mc_err *err)
{
    for (int k = 0; k < b->nchains; k++) {
        mc_chain *c = b->chains[k];
        long moves = nsweeps * c->nmol;
        if (b->gibbs)
            cpu_gibbs_sweep(b->plan, b->gibbs, c, b->scratch[k].ewald, nsweeps);
        else if (b->plan->rigid)
            for (long m = 0; m < moves; m++) attempt_molecule_move(b, c, &b->scratch[k]);
        else
            for (long m = 0; m < moves; m++) MC_TRY(attempt_atom_move(b->plan, c, &b->scratch[k].move_cells, err));
    }
    return MC_OK;
}

typedef struct pair_sums {
    double energy, virial;
} pair_sums;

enum pair_task { PAIR_ENERGY, PAIR_RDF };

static void add_pair(const mc_plan *plan, mc_chain *c, int i, int j, enum pair_task task,
                     pair_sums *s)
{
    double r2 = mc_image_dist2(c->x[i] - c->x[j], c->y[i] - c->y[j], c->z[i] - c->z[j], c->box_len);
    const mc_species *sp = &plan->species;
    int a = mc_species_of(sp, i), b = mc_species_of(sp, j);
    if (task == PAIR_ENERGY) {
        s->energy += pair_energy(r2, &sp->pair[a][b]);
        s->virial += pair_virial(r2, &sp->pair[a][b]);
    } else if (r2 < plan->rdf_rmax * plan->rdf_rmax) {
        int bin = (int)(sqrt(r2) / plan->rdf_dr);
        if (bin < plan->rdf_bins)
            c->rdf_counts[(size_t)mc_species_pair_index(sp, a, b) * plan->rdf_bins + bin]++;
    }
}

/* Every pair once: all i < j, or i < j within the 27 cells around i's cell. The grid must be
 * current (the move grid always is; the RDF grid is rebuilt by the caller). */
static pair_sums pair_pass(const mc_plan *plan, mc_chain *c, const cpu_cells *g,
                           enum pair_task task)
{
    pair_sums s = {0.0, 0.0};
    if (!g->ncell) {
        for (int i = 0; i < c->n - 1; i++)
            for (int j = i + 1; j < c->n; j++) add_pair(plan, c, i, j, task, &s);
        return s;
    }
    int around[27];
    for (int i = 0; i < c->n; i++) {
        cpu_cells_neighbours(g, g->cell_of[i], around);
        for (int k = 0; k < 27; k++) {
            int count;
            const int *member = cpu_cells_members(g, around[k], &count);
            for (int m = 0; m < count; m++)
                if (member[m] > i) add_pair(plan, c, i, member[m], task, &s);
        }
    }
    return s;
}

static int cpu_measure(mc_backend *b, int add_rdf, mc_measurement *out, mc_err *err)
{
    if (b->gibbs) { /* atoms or molecules in two boxes */
        for (int k = 0; k < b->nchains; k++)
            cpu_gibbs_measure(b->plan, b->gibbs, b->chains[k], b->scratch[k].ewald, add_rdf, &out[k]);
        return MC_OK;
    }
    if (b->plan->rigid) {
        for (int k = 0; k < b->nchains; k++) {
            mc_chain *c = b->chains[k];
            mc_rigid_sums s = mc_rigid_measure(b->plan, c, add_rdf, &b->scratch[k].ewald[0]);
            out[k].energy_pair = s.energy;
            out[k].virial_pair = s.virial;
            out[k].energy_pair_running = c->energy_pair;
            c->energy_pair = s.energy; /* restart the running sum from the exact value */
        }
        return MC_OK;
    }
    for (int k = 0; k < b->nchains; k++) {
        mc_chain *c = b->chains[k];
        cpu_chain_scratch *sc = &b->scratch[k];
        /* Moves leave each cell's members in an order their history made (a leaving member's slot
         * goes to the cell's last); summing in that order would make the energies' last bits
         * depend on the path. Rebuilt in index order here, at every
         * round's end, the lists are the ones a restart from a checkpoint builds (mc_chain_state). */
        if (sc->move_cells.ncell) MC_TRY(cpu_cells_build(&sc->move_cells, c->n, c->x, c->y, c->z, err));
        pair_sums s = pair_pass(b->plan, c, &sc->move_cells, PAIR_ENERGY);
        if (add_rdf) {
            if (sc->rdf_cells.ncell) MC_TRY(cpu_cells_build(&sc->rdf_cells, c->n, c->x, c->y, c->z, err));
            pair_pass(b->plan, c, &sc->rdf_cells, PAIR_RDF);
        }
        out[k].energy_pair = s.energy;
        out[k].virial_pair = s.virial;
        out[k].energy_pair_running = c->energy_pair;
        c->energy_pair = s.energy; /* restart the running sum from the exact value */
        if (add_rdf) mc_chain_add_rdf_sample(c, b->plan);
    }
    return MC_OK;
}

static int cpu_widom(mc_backend *b, int species, int insertions, long draw, double *boltzmann_sum,
                     mc_err *err)
{
    (void)err;
    for (int k = 0; k < b->nchains; k++) {
        const mc_chain *c = b->chains[k];
        if (b->gibbs) { /* species is a phase and a kind (species or molecule type) here */
            boltzmann_sum[k] = cpu_gibbs_insertion_sum(b->plan, c, b->scratch[k].ewald, species, insertions, draw);
            continue;
        }
        if (b->plan->rigid) { /* species is a molecule type here */
            boltzmann_sum[k] = mc_rigid_widom_sum(b->plan, c, species, insertions, draw, &b->scratch[k].ewald[0]);
            continue;
        }
        double sum = 0.0, x, y, z;
        for (int i = 0; i < insertions; i++) {
            mc_widom_position(b->plan->seed, (uint32_t)c->id, (uint64_t)draw, (uint32_t)insertions,
                              (uint32_t)i, c->box_len, &x, &y, &z);
            /* skip = -1: the test particle is none of the n */
            sum += exp(-c->beta * particle_energy(c, &b->scratch[k].move_cells, &b->plan->species,
                                                  species, -1, x, y, z));
        }
        boltzmann_sum[k] = sum;
    }
    return MC_OK;
}

/* Size the grid for the chain's current box and fill it (an npt box changes its cell count). */
static int cells_reset(cpu_cells *g, const mc_chain *c, double min_len, mc_err *err)
{
    cpu_cells_fini(g);
    MC_TRY(cpu_cells_init(g, c->n, c->box_len, min_len, err));
    return g->ncell ? cpu_cells_build(g, c->n, c->x, c->y, c->z, err) : MC_OK;
}

/* The chain scaled by s into out, whose coordinates are b->trial_pos. */
static void scaled_chain(const mc_backend *b, const mc_chain *c, double s, mc_chain *out)
{
    *out = *c;
    out->x = b->trial_pos, out->y = out->x + c->n, out->z = out->y + c->n;
    mc_chain_set_box(out, c->box_len * s);
    for (int i = 0; i < c->n; i++) {
        out->x[i] = mc_scale_coordinate(c->x[i], s, out->box_len);
        out->y[i] = mc_scale_coordinate(c->y[i], s, out->box_len);
        out->z[i] = mc_scale_coordinate(c->z[i], s, out->box_len);
    }
}

/* Charges: chain k's structure factors from its positions and box (nothing without charges). */
static void recompute_ewald(mc_backend *b, int k)
{
    const mc_plan *p = b->plan;
    const mc_chain *c = b->chains[k];
    if (!p->ewald) return;
    if (b->gibbs) cpu_gibbs_ewald_recompute(p, b->gibbs, c, b->scratch[k].ewald);
    else ewald_recompute(&p->kspace, &b->scratch[k].ewald[0], c->box_len, c->n, c->x, c->y, c->z, p->site_charge);
}

static int cpu_volume_energy(mc_backend *b, const double *scale, double *energy, mc_err *err)
{
    for (int k = 0; k < b->nchains; k++) {
        if (scale[k] == 1.0) continue;
        if (b->plan->rigid) {
            energy[k] = mc_rigid_scaled_energy(b->plan, b->chains[k], scale[k], b->trial_pos, &b->ewald_trial);
            continue;
        }
        mc_chain trial;
        cpu_cells cells = {0};
        scaled_chain(b, b->chains[k], scale[k], &trial);
        MC_TRY(cells_reset(&cells, &trial, b->plan->cutoff, err));
        energy[k] = pair_pass(b->plan, &trial, &cells, PAIR_ENERGY).energy;
        cpu_cells_fini(&cells);
    }
    return MC_OK;
}

/* Scales in place by the same function as the trial, so the result is the trial configuration. */
static int cpu_volume_apply(mc_backend *b, const double *scale, const double *energy, mc_err *err)
{
    for (int k = 0; k < b->nchains; k++) {
        if (scale[k] == 1.0) continue;
        mc_chain *c = b->chains[k];
        double s = scale[k];
        c->energy_pair = energy[k];
        if (b->plan->rigid) {
            mc_rigid_scale(b->plan, c, s, c);
            recompute_ewald(b, k);
            continue;
        }
        mc_chain_set_box(c, c->box_len * s);
        for (int i = 0; i < c->n; i++) {
            c->x[i] = mc_scale_coordinate(c->x[i], s, c->box_len);
            c->y[i] = mc_scale_coordinate(c->y[i], s, c->box_len);
            c->z[i] = mc_scale_coordinate(c->z[i], s, c->box_len);
        }
        MC_TRY(cells_reset(&b->scratch[k].move_cells, c, b->plan->cutoff, err));
        MC_TRY(cells_reset(&b->scratch[k].rdf_cells, c, b->plan->rdf_rmax, err));
    }
    return MC_OK;
}

static int cpu_fetch(mc_backend *b, mc_err *err)
{
    (void)b, (void)err;
    return MC_OK;
}

/* The positions are the chains' own arrays: a trade of pointers, and of the cell grids built for
 * their boxes. The lists are built again in index order, as a trade with another rank (reload)
 * builds them: a list's order, which the moves since the last round's end have shuffled, decides
 * the order of a move's energy sum, so a carried one would make the last bits of the running energy
 * depend on where the partner chain lives. */
static int cpu_swap(mc_backend *b, int npairs, const int *first, const int *second, mc_err *err)
{
    for (int i = 0; i < npairs; i++) {
        int pair[2] = {first[i], second[i]};
        mc_state_swap_configuration(b->plan, b->chains[pair[0]], b->chains[pair[1]]);
        cpu_chain_scratch t = b->scratch[pair[0]];
        b->scratch[pair[0]] = b->scratch[pair[1]];
        b->scratch[pair[1]] = t;
        for (int k = 0; k < 2; k++) {
            const mc_chain *c = b->chains[pair[k]];
            cpu_cells *g = &b->scratch[pair[k]].move_cells;
            if (g->ncell) MC_TRY(cpu_cells_build(g, c->n, c->x, c->y, c->z, err));
            recompute_ewald(b, pair[k]);
        }
    }
    return MC_OK;
}

static int cpu_fetch_some(mc_backend *b, const unsigned char *which, mc_err *err)
{
    (void)b, (void)which, (void)err;
    return MC_OK;
}

static int cpu_reload(mc_backend *b, const unsigned char *changed, mc_err *err)
{
    for (int k = 0; k < b->nchains; k++) {
        if (!changed[k]) continue;
        recompute_ewald(b, k);
        if (b->plan->rigid) continue; /* molecules keep no lists */
        MC_TRY(cells_reset(&b->scratch[k].move_cells, b->chains[k], b->plan->cutoff, err));
        MC_TRY(cells_reset(&b->scratch[k].rdf_cells, b->chains[k], b->plan->rdf_rmax, err));
    }
    return MC_OK;
}

static void cpu_destroy(mc_backend *b)
{
    if (!b) return;
    for (int k = 0; b->scratch && k < b->nchains; k++) {
        cpu_cells_fini(&b->scratch[k].move_cells);
        cpu_cells_fini(&b->scratch[k].rdf_cells);
        ewald_sums_free(&b->scratch[k].ewald[0]);
        ewald_sums_free(&b->scratch[k].ewald[1]);
    }
    ewald_sums_free(&b->ewald_trial);
    free(b->ewald_change);
    free(b->scratch);
    cpu_gibbs_destroy(b->gibbs);
    free(b->trial_pos);
    free(b->old_pos);
    free(b->columns);
    free(b);
}

/* Charges: every chain's structure factors (for each of its boxes), a trial volume's, and a move's
 * change. */
static int ewald_storage(mc_backend *b, mc_err *err)
{
    const ewald_kspace *e = &b->plan->kspace;
    for (int k = 0; k < b->nchains; k++)
        for (int box = 0; box < b->plan->ensemble->boxes; box++)
            MC_TRY(ewald_sums_alloc(e, &b->scratch[k].ewald[box], err));
    MC_TRY(ewald_sums_alloc(e, &b->ewald_trial, err));
    if (!(b->ewald_change = malloc(2 * (size_t)e->nk * sizeof *b->ewald_change)))
        MC_FAIL(err, MC_ENOMEM, "out of memory for the Ewald sum");
    return MC_OK;
}

static mc_backend *cpu_create(const mc_plan *plan, mc_chain **chains, int nchains, mc_err *err)
{
    mc_backend *b = calloc(1, sizeof *b);
    if (b) b->scratch = calloc((size_t)nchains, sizeof *b->scratch);
    if (!b || !b->scratch) {
        free(b);
        return mc_err_set(err, MC_ENOMEM, "out of memory for the CPU backend"), NULL;
    }
    b->plan = plan;
    b->chains = chains;
    b->nchains = nchains;
    size_t trial_len = plan->rigid ? mc_rigid_scaled_scratch(plan) : 3 * (size_t)plan->n;
    if ((plan->ensemble->imposed_pressure && !(b->trial_pos = malloc(trial_len * sizeof *b->trial_pos))) ||
        (plan->rigid && !(b->old_pos = malloc(6 * (size_t)plan->mol.max_sites * sizeof *b->old_pos)))) {
        cpu_destroy(b);
        return mc_err_set(err, MC_ENOMEM, "out of memory for the CPU backend"), NULL;
    }
    if (mc_plan_labelled(plan)) { /* two boxes per chain (gcmc: a box and the absent slots), no cell lists */
        mc_measurement m;
        if (!(b->gibbs = cpu_gibbs_create(plan, err)) || (plan->ewald && ewald_storage(b, err) != MC_OK)) {
            cpu_destroy(b);
            return NULL;
        }
        for (int k = 0; k < nchains; k++) cpu_gibbs_measure(plan, b->gibbs, chains[k], b->scratch[k].ewald, 0, &m);
        return b;
    }
    if (plan->rigid) {
        b->new_pos = b->old_pos + 3 * plan->mol.max_sites;
        b->columns = pair_columns(plan);
        if (plan->ewald && ewald_storage(b, err) != MC_OK) {
            cpu_destroy(b);
            return NULL;
        }
        for (int k = 0; k < nchains; k++)
            chains[k]->energy_pair = mc_rigid_measure(plan, chains[k], 0, &b->scratch[k].ewald[0]).energy;
        return b;
    }
    for (int k = 0; k < nchains; k++) {
        mc_chain *c = chains[k];
        cpu_chain_scratch *s = &b->scratch[k];
        if (cpu_cells_init(&s->move_cells, c->n, c->box_len, plan->cutoff, err) != MC_OK ||
            cpu_cells_init(&s->rdf_cells, c->n, c->box_len, plan->rdf_rmax, err) != MC_OK ||
            (s->move_cells.ncell && cpu_cells_build(&s->move_cells, c->n, c->x, c->y, c->z, err) != MC_OK)) {
            cpu_destroy(b);
            return NULL;
        }
        c->energy_pair = pair_pass(plan, c, &s->move_cells, PAIR_ENERGY).energy;
    }
    return b;
}

/* all-pairs, cells, both (chains of several boxes), molecules or gibbs: see mc_backend_ops.path */
static const char *cpu_path(const mc_backend *b)
{
    if (b->gibbs) return "gibbs";
    if (b->plan->rigid) return "molecules";
    int cells = 0, pairs = 0;
    for (int k = 0; k < b->nchains; k++) b->scratch[k].move_cells.ncell ? cells++ : pairs++;
    return cells && pairs ? "cells+all-pairs" : cells ? "cells" : "all-pairs";
}

const mc_backend_ops mc_backend_cpu = {"cpu",          cpu_create,        cpu_sweep,
                                       cpu_measure,    cpu_widom,         cpu_volume_energy,
                                       cpu_volume_apply, cpu_fetch,       cpu_swap,
                                       cpu_fetch_some, cpu_reload,        cpu_destroy,
                                       NULL /* npt: the run driver makes the volume moves */,
                                       cpu_path};
