/* cpu_gibbs_rigid: Gibbs-ensemble chains of rigid molecules on the CPU (mc_gibbs.h for the draws and
 * the acceptance rules, mc_rigid.h for the rigid-body move and the placement of sites). Every site
 * carries its molecule's box label (mc_chain.in_box), so a molecule's energy in its box is a loop
 * over all sites with the other box's and its own masked; a box's full energy and molecular virial
 * (measurements, volume exchanges) loop over the box's sites only, gathered in index order.
 * Grand-canonical chains of molecules (mc_gcmc.h) take this path with box 1 the absent slots.
 * Charged sites: each box keeps its own structure factors (ewald.h), which a move within a box
 * changes by the molecule's old and new sites, and a transfer, insertion or deletion by the
 * molecule's sites added to one box or taken out of the other; a molecule carries its self and
 * intramolecular terms (plan->coulomb_type_constant) with it from box to box. */
#include "cpu_gibbs_rigid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_isa.h"
#include "cpu_site_energy.h"
#include "mc_gcmc.h"
#include "mc_gibbs.h"
#include "mc_move.h"
#include "mc_rigid.h"
#include "mc_rigid_host.h"
#include "tmmc.h"

struct cpu_gibbs_rigid {
    double *old_pos, *new_pos; /* [3 max_sites] a moved molecule's sites before and after */
    double *sx, *sy, *sz;      /* [n] the sites of a trial volume exchange */
    double *scx, *scy, *scz;   /* [nmol] its centres */
    int *members;              /* [n] one box's sites, in index order */
    int *present, *present_first; /* gcmc: [nmol] the present molecules in index order, [nmol + 1] their
                                     first sites as mc_rigid_trial_draw takes them (packed) */
    /* charges (NULL or empty without): */
    double *ex, *ey, *ez, *eq;   /* [n] one box's sites and their charges, gathered for its S(k) */
    double *ewald_change[2];     /* [2 nk] a move's change of S(k) in the box it leaves ([0]) and enters ([1]) */
    ewald_sums trial[2];         /* the boxes' structure factors at a trial volume exchange */
};

/* Charges: the gathered sites, two changes of S(k) and a trial volume's structure factors. */
static int ewald_storage(const mc_plan *p, cpu_gibbs_rigid *g, mc_err *err)
{
    const size_t n = (size_t)p->n, nk = (size_t)p->kspace.nk;
    if (!(g->ex = malloc((4 * n + 4 * nk) * sizeof *g->ex))) MC_FAIL(err, MC_ENOMEM, "out of memory for the Ewald sums");
    g->ey = g->ex + n, g->ez = g->ey + n, g->eq = g->ez + n;
    g->ewald_change[0] = g->eq + n, g->ewald_change[1] = g->ewald_change[0] + 2 * nk;
    for (int b = 0; b < 2; b++) MC_TRY(ewald_sums_alloc(&p->kspace, &g->trial[b], err));
    return MC_OK;
}

cpu_gibbs_rigid *cpu_gibbs_rigid_create(const mc_plan *p, mc_err *err)
{
    cpu_gibbs_rigid *g = calloc(1, sizeof *g);
    size_t n = (size_t)p->n, nmol = (size_t)p->nmol, ms = (size_t)p->mol.max_sites;
    double *buf = g ? malloc((6 * ms + 3 * n + 3 * nmol) * sizeof *buf) : NULL;
    if (g) g->members = malloc((n + 2 * nmol + 1) * sizeof *g->members);
    if (!g || !buf || !g->members) {
        if (g) free(g->members);
        free(buf), free(g);
        return mc_err_set(err, MC_ENOMEM, "out of memory for the Gibbs scratch of molecules"), NULL;
    }
    g->old_pos = buf, g->new_pos = buf + 3 * ms;
    g->sx = buf + 6 * ms, g->sy = g->sx + n, g->sz = g->sy + n;
    g->scx = g->sz + n, g->scy = g->scx + nmol, g->scz = g->scy + nmol;
    g->present = g->members + n, g->present_first = g->present + nmol;
    if (p->ewald && ewald_storage(p, g, err) != MC_OK) return cpu_gibbs_rigid_destroy(g), NULL;
    return g;
}

void cpu_gibbs_rigid_destroy(cpu_gibbs_rigid *g)
{
    if (!g) return;
    free(g->old_pos); /* the start of the one buffer */
    free(g->members);
    free(g->ex);
    for (int b = 0; b < 2; b++) ewald_sums_free(&g->trial[b]);
    free(g);
}

static double volume_of(double len) { return len * len * len; }

/* The pair energy of the sites at pos[3 k + d] (species species[k], k < nsites) with every site of
 * box `box` outside [skip0, skip1) (the molecule's own sites; empty for a test molecule), under the
 * minimum image of edge len, one pass per site and species; +infinity inside a hard core. */
static double sites_energy(const mc_plan *p, const mc_chain *c, const int *species, int nsites, const double *pos,
                           int box, double len, int skip0, int skip1)
{
    cpu_partners in_box = {.x = c->x, .y = c->y, .z = c->z, .box = len, .in_box = c->in_box, .box_label = box,
                           .species = p->mol.site_species, .skip0 = skip0, .skip1 = skip1};
    double u = 0.0;
    for (int k = 0; k < nsites; k++)
        for (int b = 0; b < p->species.n; b++) {
            int a = species[k];
            in_box.species_b = b, in_box.hard_core2 = p->mol.hard_core2[a][b];
            u += cpu_site_energy_molecular(&in_box, &p->species.pair[a][b], 0, c->n, pos[3 * k], pos[3 * k + 1],
                                           pos[3 * k + 2]);
        }
    return u;
}

/* Molecule m's sites, as they are, into pos. */
static void sites_of(const mc_plan *p, const mc_chain *c, int m, double *pos)
{
    for (int s = p->mol.first[m], k = 0; s < p->mol.first[m + 1]; s++, k++)
        pos[3 * k] = c->x[s], pos[3 * k + 1] = c->y[s], pos[3 * k + 2] = c->z[s];
}

/* Molecule m's sites placed at centre in orientation q in a box of edge len, into pos. */
static void place(const mc_plan *p, int m, const double centre[3], mc_quat q, double len, double *pos)
{
    for (int s = p->mol.first[m], k = 0; s < p->mol.first[m + 1]; s++, k++)
        mc_rigid_site(centre, q, &p->mol.site_body[3 * s], len, &pos[3 * k]);
}

/* Molecule m into the chain: centre, orientation, sites (pos) and box. */
static void store(const mc_plan *p, mc_chain *c, int m, const double centre[3], mc_quat q, const double *pos, int box)
{
    c->cx[m] = centre[0], c->cy[m] = centre[1], c->cz[m] = centre[2];
    c->q[4 * m] = q.w, c->q[4 * m + 1] = q.x, c->q[4 * m + 2] = q.y, c->q[4 * m + 3] = q.z;
    for (int s = p->mol.first[m], k = 0; s < p->mol.first[m + 1]; s++, k++) {
        c->x[s] = pos[3 * k], c->y[s] = pos[3 * k + 1], c->z[s] = pos[3 * k + 2];
        c->in_box[s] = box;
    }
}

/* Charges: the change of a box's Fourier part (structure factors s) when a molecule's sites (of
 * species species[k]) at pos are added to it (sign +1) or taken out of it (sign -1, pos where they
 * are): the exact change, as for a test molecule; their change of S(k) into d, for ewald_accept. */
static double fourier_change(const mc_plan *p, const ewald_sums *s, int nsites, const int *species, const double *pos,
                             double sign, double *d)
{
    double q[MC_MAX_SITES];
    if (!p->ewald) return 0.0; /* coulomb = dsf: the pair terms are all */
    for (int k = 0; k < nsites; k++) q[k] = sign * p->species.charge[species[k]];
    return ewald_insertion_change(&p->kspace, s, nsites, q, pos, d);
}

/* gcmc: the present molecules in index order into g->present, and their site counts as a packed
 * first-site array (mc_rigid_trial_draw reads a molecule's site count from it); their number. */
static int list_present(const mc_plan *p, cpu_gibbs_rigid *g, const mc_chain *c)
{
    int k = 0;
    g->present_first[0] = 0;
    for (int m = 0; m < c->nmol; m++) {
        if (mc_gibbs_box_of(p, c, m) != 0) continue;
        g->present[k] = m;
        g->present_first[k + 1] = g->present_first[k] + p->mol.first[m + 1] - p->mol.first[m];
        k++;
    }
    return k;
}

/* A molecule drawn over all (gcmc: over the present ones; none, nothing moves), translated or
 * rotated within its box (the step at most half the box). */
static void move_molecule(const mc_plan *p, cpu_gibbs_rigid *g, mc_chain *c, ewald_sums *ewald, uint64_t step)
{
    const mc_molecules *mol = &p->mol;
    const int open = p->ensemble->open, among = open ? list_present(p, g, c) : c->nmol;
    if (among == 0) return;
    mc_rigid_trial t = mc_rigid_trial_draw(p->seed, (uint32_t)c->id, step, (uint32_t)among,
                                           open ? g->present_first : mol->first, 1.0, c->max_rotation);
    int m = open ? g->present[t.molecule] : (int)t.molecule;
    int f0 = mol->first[m], f1 = mol->first[m + 1], box = (int)c->in_box[f0];
    const int *species = &mol->site_species[f0];
    double len = c->gibbs_box_len[box], max = mc_box_step(c->max_displacement, len);
    double centre[3] = {mc_rigid_shift(c->cx[m], t.dx * max, len), mc_rigid_shift(c->cy[m], t.dy * max, len),
                        mc_rigid_shift(c->cz[m], t.dz * max, len)};
    mc_quat q = mc_chain_quat(c, m);
    if (t.rotate) q = mc_quat_normalize(mc_quat_multiply(t.turn, q));
    sites_of(p, c, m, g->old_pos);
    place(p, m, centre, q, len, g->new_pos);
    c->rotations += t.rotate;
    double dE = sites_energy(p, c, species, f1 - f0, g->new_pos, box, len, f0, f1) -
                sites_energy(p, c, species, f1 - f0, g->old_pos, box, len, f0, f1);
    if (p->ewald)
        dE += ewald_move_change(&p->kspace, &ewald[box], f1 - f0, &p->site_charge[f0], g->old_pos, g->new_pos,
                                g->ewald_change[0]);
    if (!mc_metropolis_accept(dE, c->beta, p->seed, (uint32_t)c->id, step)) return;
    if (p->ewald) ewald_accept(&p->kspace, &ewald[box], g->ewald_change[0]);
    store(p, c, m, centre, q, g->new_pos, box);
    c->gibbs_energy[box] += dE;
    c->energy_pair += dE;
    c->accepted++;
    c->rotations_accepted += t.rotate;
}

/* The k-th molecule (from 0, in index order) of kind `kind` in box `box`; -1 where there is none (a
 * gcmc insertion with every slot of the type present; elsewhere the counts match the labels). */
static int kth_in_box(const mc_plan *p, const mc_chain *c, int kind, int box, int64_t k)
{
    for (int m = p->kind_first[kind]; m < p->kind_first[kind + 1]; m++)
        if (mc_gibbs_box_of(p, c, m) == box && k-- == 0) return m;
    return -1;
}

static void transfer(const mc_plan *p, cpu_gibbs_rigid *g, mc_chain *c, ewald_sums *ewald, uint64_t step,
                     const mc_gibbs_trial *t)
{
    const mc_molecules *mol = &p->mol;
    int kind = t->kind, src = t->source, dst = !src;
    int64_t n_src = c->gibbs_count[src][kind], n_dst = c->gibbs_count[dst][kind];
    c->transfers++;
    if (n_src == 0) return; /* nothing of that kind to move: rejected */
    int m = kth_in_box(p, c, kind, src, (int64_t)mc_rng_index(t->pick, (uint32_t)n_src));
    int f0 = mol->first[m], f1 = mol->first[m + 1];
    double centre[3], len_src = c->gibbs_box_len[src], len_dst = c->gibbs_box_len[dst];
    mc_gibbs_insertion_point(p->seed, (uint32_t)c->id, step, len_dst, centre);
    mc_quat q = mc_gibbs_orientation(p->seed, (uint32_t)c->id, step);
    sites_of(p, c, m, g->old_pos);
    place(p, m, centre, q, len_dst, g->new_pos);
    double v_src = volume_of(len_src), v_dst = volume_of(len_dst);
    double removed = sites_energy(p, c, &mol->site_species[f0], f1 - f0, g->old_pos, src, len_src, f0, f1);
    double inserted = sites_energy(p, c, &mol->site_species[f0], f1 - f0, g->new_pos, dst, len_dst, f0, f1);
    if (p->charged) { /* the molecule's share of each box's Fourier part, its constant terms with it */
        const double own = p->coulomb_type_constant[kind];
        const int *species = &mol->site_species[f0];
        removed += own - fourier_change(p, &ewald[src], f1 - f0, species, g->old_pos, -1.0, g->ewald_change[0]);
        inserted += own + fourier_change(p, &ewald[dst], f1 - f0, species, g->new_pos, 1.0, g->ewald_change[1]);
    }
    /* the tails at the counts after the move minus before */
    double tail = -mc_gibbs_tail_energy(p, c->gibbs_count[src], v_src) - mc_gibbs_tail_energy(p, c->gibbs_count[dst], v_dst);
    c->gibbs_count[src][kind]--, c->gibbs_count[dst][kind]++;
    tail += mc_gibbs_tail_energy(p, c->gibbs_count[src], v_src) + mc_gibbs_tail_energy(p, c->gibbs_count[dst], v_dst);
    double cost = mc_gibbs_transfer_cost(inserted - removed + tail, 1.0 / c->beta, (double)n_src, (double)n_dst,
                                         v_src, v_dst);
    if (!mc_metropolis_accept(cost, c->beta, p->seed, (uint32_t)c->id, step)) {
        c->gibbs_count[src][kind]++, c->gibbs_count[dst][kind]--;
        return;
    }
    if (p->ewald)
        ewald_accept(&p->kspace, &ewald[src], g->ewald_change[0]), ewald_accept(&p->kspace, &ewald[dst], g->ewald_change[1]);
    store(p, c, m, centre, q, g->new_pos, dst);
    c->gibbs_energy[src] -= removed;
    c->gibbs_energy[dst] += inserted;
    c->energy_pair += inserted - removed;
    c->accepted++;
    c->transfers_accepted++;
}

/* gcmc: an insertion (out of box 1, the absent slots) or a deletion of a molecule of type t->kind,
 * cpu_gibbs.c's insert_or_delete for molecules: inserted at a uniform centre in an orientation
 * uniform on SO(3) (mc_gibbs_orientation), the lowest absent molecule of the type taking it. With
 * every slot of the type present (N = n_max) the insertion's acceptance is still collected, for
 * a molecule of the type's geometry that no slot holds; the window then refuses it. */
static void insert_or_delete(const mc_plan *p, cpu_gibbs_rigid *g, mc_chain *c, ewald_sums *ewald, uint64_t step,
                             const mc_gibbs_trial *t)
{
    const mc_molecules *mol = &p->mol;
    const int kind = t->kind, insertion = t->source == 1;
    const int64_t n_kind = c->gibbs_count[0][kind];
    const double len = c->box_len, volume = volume_of(len), lnz = mc_gcmc_lnz(p, c->statepoint, kind);
    if (!mc_gcmc_attempt(p, c, step, kind, insertion)) return;
    const double tail = mc_gcmc_tail_change(p, c, kind, insertion);
    /* the molecule: the lowest absent one of the type (which does not matter), or the one deleted */
    const int m = kth_in_box(p, c, kind, insertion ? 1 : 0, insertion ? 0 : (int64_t)mc_rng_index(t->pick, (uint32_t)n_kind));
    const mc_moltype *type = &mol->type[kind];
    /* its sites [f0, f1) and their species; none for the insertion no slot can take */
    const int f0 = m >= 0 ? mol->first[m] : 0, f1 = m >= 0 ? mol->first[m + 1] : 0, nsites = m >= 0 ? f1 - f0 : type->nsites;
    const int *species = m >= 0 ? &mol->site_species[f0] : type->species;
    double centre[3], pair, log_ratio;
    mc_quat q = mc_quat_identity();
    if (insertion) {
        mc_gibbs_insertion_point(p->seed, (uint32_t)c->id, step, len, centre);
        q = mc_gibbs_orientation(p->seed, (uint32_t)c->id, step);
        if (m >= 0) place(p, m, centre, q, len, g->new_pos);
        else
            for (int k = 0; k < nsites; k++) mc_rigid_site(centre, q, type->body[k], len, &g->new_pos[3 * k]);
        pair = sites_energy(p, c, species, nsites, g->new_pos, 0, len, f0, f1);
        if (p->charged)
            pair += p->coulomb_type_constant[kind] + fourier_change(p, &ewald[0], nsites, species, g->new_pos, 1.0, g->ewald_change[0]);
        log_ratio = mc_gcmc_insertion_log_ratio(pair + tail, c->beta, lnz, volume, (double)n_kind);
    } else {
        sites_of(p, c, m, g->old_pos);
        pair = sites_energy(p, c, species, nsites, g->old_pos, 0, len, f0, f1);
        if (p->charged)
            pair += p->coulomb_type_constant[kind] - fourier_change(p, &ewald[0], nsites, species, g->old_pos, -1.0, g->ewald_change[0]);
        log_ratio = mc_gcmc_deletion_log_ratio(-(pair + tail), c->beta, lnz, volume, (double)n_kind);
    }
    /* m < 0 (every slot of the type present, N = n_max): collected, and the window refuses it */
    if (!mc_gcmc_decide(p, c, step, insertion, log_ratio) || m < 0) return;
    if (p->ewald) ewald_accept(&p->kspace, &ewald[0], g->ewald_change[0]);
    if (insertion) store(p, c, m, centre, q, g->new_pos, 0);
    else
        for (int s = f0; s < f1; s++) c->in_box[s] = 1;
    mc_gcmc_taken(c, kind, insertion, pair);
}

typedef struct box_sums {
    double energy, virial;
} box_sums;

/* Every intermolecular site pair of box b once, at sites (x, y, z) and centres (cx, cy, cz) in a box
 * of edge len: the energy and the molecular virial (mc_rigid_sums' definition), and with rdf (a
 * sample of the chain) their counts, the centres' included. */
static box_sums box_pairs(const mc_plan *p, cpu_gibbs_rigid *g, mc_chain *c, int b, const double *x, const double *y,
                          const double *z, const double *cx, const double *cy, const double *cz, double len, int rdf)
{
    const mc_molecules *mol = &p->mol;
    const mc_species *sp = &p->species;
    int nb = 0;
    for (int i = 0; i < c->n; i++)
        if (c->in_box[i] == b) g->members[nb++] = i;
    box_sums s = {0.0, 0.0};
    double rmax2 = p->rdf_rmax * p->rdf_rmax;
    for (int k = 0; k < nb; k++) {
        int i = g->members[k], a = mol->site_species[i], mi = mol->site_mol[i];
        for (int l = k + 1; l < nb; l++) {
            int j = g->members[l], mj = mol->site_mol[j], e = mol->site_species[j];
            if (mj == mi) continue; /* the molecule's own sites */
            double dx = mc_rigid_separation(x[i] - x[j], len), dy = mc_rigid_separation(y[i] - y[j], len),
                   dz = mc_rigid_separation(z[i] - z[j], len);
            double r2 = dx * dx + dy * dy + dz * dz;
            s.energy += mc_site_pair_energy(r2, &sp->pair[a][e], mol->hard_core2[a][e]);
            if (r2 > 0) {
                double Rx = mc_rigid_pair_image(mc_rigid_separation(cx[mi] - cx[mj], len), dx, len),
                       Ry = mc_rigid_pair_image(mc_rigid_separation(cy[mi] - cy[mj], len), dy, len),
                       Rz = mc_rigid_pair_image(mc_rigid_separation(cz[mi] - cz[mj], len), dz, len);
                s.virial += pair_virial(r2, &sp->pair[a][e]) * (dx * Rx + dy * Ry + dz * Rz) / r2;
            }
            if (rdf && r2 < rmax2) {
                int bin = (int)(sqrt(r2) / p->rdf_dr);
                if (bin < p->rdf_bins) c->rdf_counts[(size_t)mc_species_pair_index(sp, a, e) * p->rdf_bins + bin]++;
            }
        }
    }
    for (int m = 0; rdf && m < c->nmol; m++) { /* the centres' row */
        if (mc_gibbs_box_of(p, c, m) != b) continue;
        for (int l = m + 1; l < c->nmol; l++) {
            if (mc_gibbs_box_of(p, c, l) != b) continue;
            double dx = mc_rigid_separation(cx[m] - cx[l], len), dy = mc_rigid_separation(cy[m] - cy[l], len),
                   dz = mc_rigid_separation(cz[m] - cz[l], len);
            double r = sqrt(dx * dx + dy * dy + dz * dz);
            int bin = (int)(r / p->rdf_dr);
            if (r < p->rdf_rmax && bin < p->rdf_bins) c->rdf_counts[(size_t)sp->npairs * p->rdf_bins + bin]++;
        }
    }
    return s;
}

/* Charges: box b's terms beyond its site pairs from its sites at (x, y, z) (centres cx, cy, cz) in a
 * box of edge len: its molecules' self and intramolecular terms (energy), and with the Ewald sum
 * its S(k) into s, the Fourier part and, with virial, its molecular virial (mc_rigid_host's
 * add_coulomb for one of two boxes). */
static box_sums box_coulomb(const mc_plan *p, cpu_gibbs_rigid *g, const mc_chain *c, int b, const double *x,
                            const double *y, const double *z, const double *cx, const double *cy, const double *cz,
                            double len, ewald_sums *s, int virial)
{
    if (!p->ewald) { /* coulomb = dsf */
        box_sums out = {0.0, 0.0};
        for (int m = 0; m < c->nmol; m++)
            if (mc_gibbs_box_of(p, c, m) == b) out.energy += p->coulomb_type_constant[p->mol.mol_type[m]];
        return out;
    }
    int nb = 0;
    for (int i = 0; i < c->n; i++)
        if (c->in_box[i] == b) g->ex[nb] = x[i], g->ey[nb] = y[i], g->ez[nb] = z[i], g->eq[nb] = p->site_charge[i], g->members[nb++] = i;
    box_sums out = {ewald_recompute(&p->kspace, s, len, nb, g->ex, g->ey, g->ez, g->eq), 0.0};
    for (int m = 0; m < c->nmol; m++)
        if (mc_gibbs_box_of(p, c, m) == b) out.energy += p->coulomb_type_constant[p->mol.mol_type[m]];
    if (!virial) return out;
    out.virial = ewald_virial(&p->kspace, s);
    for (int k = 0; k < nb; k++) { /* the molecular virial: less each site's force . its offset */
        const int i = g->members[k], m = p->mol.site_mol[i];
        const double r[3] = {g->ex[k], g->ey[k], g->ez[k]},
                     d[3] = {mc_rigid_separation(x[i] - cx[m], len), mc_rigid_separation(y[i] - cy[m], len),
                             mc_rigid_separation(z[i] - cz[m], len)};
        out.virial -= ewald_site_force_dot(&p->kspace, s, g->eq[k], r, d);
    }
    return out;
}

/* ln(V0/V1) changes at fixed V: every centre of box b scaled by its boxes' edge ratio, the
 * orientations kept, the sites placed again; both boxes' energies recomputed. */
static void volume_exchange(const mc_plan *p, cpu_gibbs_rigid *g, mc_chain *c, ewald_sums *ewald,
                            const mc_gibbs_trial *t, uint64_t step)
{
    double v[2], v_new[2], len_new[2], scale[2], tail = 0.0;
    c->volume_moves++;
    for (int b = 0; b < 2; b++) v[b] = volume_of(c->gibbs_box_len[b]);
    mc_gibbs_new_volumes(v[0], p->total_volume, t->log_ratio, &v_new[0], &v_new[1]);
    for (int b = 0; b < 2; b++) len_new[b] = cbrt(v_new[b]), scale[b] = len_new[b] / c->gibbs_box_len[b];
    if (len_new[0] < p->min_box_len || len_new[1] < p->min_box_len) {
        c->production_volume_floor_hits += mc_chain_in_production(p, c); /* mc_run stops a pinned chain */
        return;
    }
    for (int m = 0; m < c->nmol; m++) {
        int b = mc_gibbs_box_of(p, c, m);
        double s = scale[b], l = len_new[b];
        double centre[3] = {mc_scale_coordinate(c->cx[m], s, l), mc_scale_coordinate(c->cy[m], s, l),
                            mc_scale_coordinate(c->cz[m], s, l)};
        g->scx[m] = centre[0], g->scy[m] = centre[1], g->scz[m] = centre[2];
        mc_quat q = mc_chain_quat(c, m);
        for (int i = p->mol.first[m]; i < p->mol.first[m + 1]; i++) {
            double site[3];
            mc_rigid_site(centre, q, &p->mol.site_body[3 * i], l, site);
            g->sx[i] = site[0], g->sy[i] = site[1], g->sz[i] = site[2];
        }
    }
    double energy_new[2], dU = 0.0;
    for (int b = 0; b < 2; b++) {
        energy_new[b] = box_pairs(p, g, c, b, g->sx, g->sy, g->sz, g->scx, g->scy, g->scz, len_new[b], 0).energy;
        if (p->charged)
            energy_new[b] +=
                box_coulomb(p, g, c, b, g->sx, g->sy, g->sz, g->scx, g->scy, g->scz, len_new[b], &g->trial[b], 0).energy;
        tail += mc_gibbs_tail_energy(p, c->gibbs_count[b], v_new[b]) - mc_gibbs_tail_energy(p, c->gibbs_count[b], v[b]);
        dU += energy_new[b] - c->gibbs_energy[b];
    }
    double cost = mc_gibbs_volume_cost(dU + tail, 1.0 / c->beta, (double)mc_gibbs_particles(p, c, 0),
                                       (double)mc_gibbs_particles(p, c, 1), v[0], v[1], v_new[0], v_new[1]);
    if (!mc_metropolis_accept(cost, c->beta, p->seed, (uint32_t)c->id, step)) return;
    size_t n = (size_t)c->n, nmol = (size_t)c->nmol;
    memcpy(c->x, g->sx, n * sizeof *c->x), memcpy(c->y, g->sy, n * sizeof *c->y), memcpy(c->z, g->sz, n * sizeof *c->z);
    memcpy(c->cx, g->scx, nmol * sizeof *c->cx), memcpy(c->cy, g->scy, nmol * sizeof *c->cy);
    memcpy(c->cz, g->scz, nmol * sizeof *c->cz);
    for (int b = 0; b < 2; b++) c->gibbs_box_len[b] = len_new[b], c->gibbs_energy[b] = energy_new[b];
    for (int b = 0; p->ewald && b < 2; b++) { /* the trial's structure factors are the boxes' now */
        ewald_sums kept = ewald[b];
        ewald[b] = g->trial[b], g->trial[b] = kept;
    }
    c->energy_pair = energy_new[0] + energy_new[1];
    c->accepted++;
    c->volume_accepted++;
}

void cpu_gibbs_rigid_sweep(const mc_plan *p, cpu_gibbs_rigid *g, mc_chain *c, ewald_sums *ewald, long nsweeps)
{
    const int open = p->ensemble->open;
    long moves = nsweeps * (open ? p->tmmc_n_max : c->nmol); /* gcmc: n_max a sweep, whatever the slots */
    for (long mv = 0; mv < moves; mv++) {
        uint64_t step = c->step++;
        mc_gibbs_trial t = mc_gibbs_draw(p->seed, (uint32_t)c->id, step, p->move_fraction, p->nkinds,
                                         c->max_volume_step);
        if (t.move == MC_GIBBS_DISPLACEMENT) move_molecule(p, g, c, ewald, step);
        else if (t.move == MC_GIBBS_TRANSFER && open) insert_or_delete(p, g, c, ewald, step, &t);
        else if (t.move == MC_GIBBS_TRANSFER) transfer(p, g, c, ewald, step, &t);
        else volume_exchange(p, g, c, ewald, &t, step);
        if (open) mc_gcmc_record(p, c);
    }
}

void cpu_gibbs_rigid_measure(const mc_plan *p, cpu_gibbs_rigid *g, mc_chain *c, ewald_sums *ewald, int add_rdf,
                             mc_measurement *out)
{
    int liquid = p->ensemble->open ? 0 : mc_gibbs_liquid_box(p, c); /* gcmc: box 1 holds the absent slots */
    out->energy_pair = out->virial_pair = 0.0;
    out->energy_pair_running = c->energy_pair;
    out->box_energy[1] = out->box_virial[1] = out->box_energy_running[1] = 0.0;
    for (int b = 0; b < p->ensemble->boxes; b++) {
        box_sums s = box_pairs(p, g, c, b, c->x, c->y, c->z, c->cx, c->cy, c->cz, c->gibbs_box_len[b],
                               add_rdf && b == liquid);
        if (p->charged) {
            box_sums e = box_coulomb(p, g, c, b, c->x, c->y, c->z, c->cx, c->cy, c->cz, c->gibbs_box_len[b], &ewald[b], 1);
            s.energy += e.energy, s.virial += e.virial;
        }
        out->box_energy[b] = s.energy, out->box_virial[b] = s.virial;
        out->box_energy_running[b] = c->gibbs_energy[b];
        out->energy_pair += s.energy, out->virial_pair += s.virial;
        c->gibbs_energy[b] = s.energy; /* restart the running sums from the exact values */
    }
    c->energy_pair = out->energy_pair;
    if (add_rdf) mc_gibbs_add_rdf_norm(p, c, liquid);
}

void cpu_gibbs_rigid_ewald_recompute(const mc_plan *p, cpu_gibbs_rigid *g, const mc_chain *c, ewald_sums *ewald)
{
    for (int b = 0; b < p->ensemble->boxes; b++)
        box_coulomb(p, g, c, b, c->x, c->y, c->z, c->cx, c->cy, c->cz, c->gibbs_box_len[b], &ewald[b], 0);
}

double cpu_gibbs_rigid_insertion_sum(const mc_plan *p, const mc_chain *c, ewald_sums *ewald, int kind, int insertions,
                                     long draw)
{
    int nk = p->nkinds, type = kind % nk, liquid = mc_gibbs_liquid_box(p, c);
    int box = kind / nk == 0 ? liquid : !liquid;
    const mc_moltype *mt = &p->mol.type[type];
    double len = c->gibbs_box_len[box], volume = volume_of(len), sum = 0.0, pos[3 * MC_MAX_SITES];
    double tail = mc_gibbs_insertion_tail(p->kind_tail, nk, c->gibbs_count[box], type, volume);
    for (int i = 0; i < insertions; i++) {
        double centre[3];
        mc_widom_position(p->seed, (uint32_t)c->id, (uint64_t)draw, (uint32_t)insertions, (uint32_t)i, len,
                          &centre[0], &centre[1], &centre[2]);
        mc_quat q = mc_widom_orientation(p->seed, (uint32_t)c->id, (uint64_t)draw, (uint32_t)insertions, (uint32_t)i);
        for (int s = 0; s < mt->nsites; s++) mc_rigid_site(centre, q, mt->body[s], len, &pos[3 * s]);
        double u = sites_energy(p, c, mt->species, mt->nsites, pos, box, len, 0, 0) + tail;
        if (p->charged && isfinite(u)) /* the test molecule's constant terms and exact change of the box's Fourier part */
            u += p->coulomb_type_constant[type] + fourier_change(p, &ewald[box], mt->nsites, mt->species, pos, 1.0,
                                                              ewald[box].scratch);
        sum += exp(-c->beta * u);
    }
    return sum * volume / (double)(c->gibbs_count[box][type] + 1);
}
