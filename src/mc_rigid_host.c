/* mc_rigid_host: energies and full recomputation for the rigid-body engine. */
#include "mc_rigid_host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_site_energy.h"
#include "mc_lattice.h"
#include "mc_move.h"
#include "mc_rigid.h"
#include "mc_rng.h"

void mc_rigid_set(const mc_plan *p, mc_chain *c, int m, const double centre[3], mc_quat q)
{
    double box = mc_rigid_box_len(p, c, m);
    c->cx[m] = centre[0], c->cy[m] = centre[1], c->cz[m] = centre[2];
    c->q[4 * m] = q.w, c->q[4 * m + 1] = q.x, c->q[4 * m + 2] = q.y, c->q[4 * m + 3] = q.z;
    for (int s = p->mol.first[m]; s < p->mol.first[m + 1]; s++) {
        double out[3];
        mc_rigid_site(centre, q, &p->mol.site_body[3 * s], box, out);
        c->x[s] = out[0], c->y[s] = out[1], c->z[s] = out[2];
    }
}

double mc_rigid_move_total(const mc_plan *p, double u_old, double u_new, const double old_centre[3],
                           const double new_centre[3])
{
    return (u_new + mc_wall_energy(new_centre[0], new_centre[1], new_centre[2], p->wall_radius, p->wall_strength)) -
           (u_old + mc_wall_energy(old_centre[0], old_centre[1], old_centre[2], p->wall_radius, p->wall_strength));
}

static void add_centre_pairs(const mc_plan *p, mc_chain *c)
{
    int row = p->species.npairs;
    size_t k = 0;
    for (int i = 0; i < c->nmol - 1; i++)
        for (int j = i + 1; j < c->nmol; j++, k++) {
            double dx = mc_rigid_separation(c->cx[i] - c->cx[j], c->box_len);
            double dy = mc_rigid_separation(c->cy[i] - c->cy[j], c->box_len);
            double dz = mc_rigid_separation(c->cz[i] - c->cz[j], c->box_len);
            double r = sqrt(dx * dx + dy * dy + dz * dz);
            if (c->lindemann_r) c->lindemann_r[k] += r, c->lindemann_r2[k] += r * r;
            int bin = (int)(r / p->rdf_dr);
            if (r < p->rdf_rmax && bin < p->rdf_bins) c->rdf_counts[(size_t)row * p->rdf_bins + bin]++;
        }
}

/* Every intermolecular site pair once (site i with the sites of later molecules): with
 * want_sums their energy (the wall added) and molecular virial, with add_rdf their RDF counts. */
static mc_rigid_sums site_pairs(const mc_plan *p, mc_chain *c, int want_sums, int add_rdf)
{
    const mc_molecules *mol = &p->mol;
    const mc_species *sp = &p->species;
    mc_rigid_sums s = {0.0, 0.0};
    double rmax2 = p->rdf_rmax * p->rdf_rmax;
    for (int i = 0; i < c->n - 1; i++) {
        int a = mol->site_species[i], mi = mol->site_mol[i];
        for (int j = mol->first[mi + 1]; j < c->n; j++) { /* sites of later molecules */
            int b = mol->site_species[j], mj = mol->site_mol[j];
            double dx = mc_rigid_separation(c->x[i] - c->x[j], c->box_len);
            double dy = mc_rigid_separation(c->y[i] - c->y[j], c->box_len);
            double dz = mc_rigid_separation(c->z[i] - c->z[j], c->box_len);
            double r2 = dx * dx + dy * dy + dz * dz;
            if (want_sums) {
                s.energy += mc_site_pair_energy(r2, &sp->pair[a][b], mol->hard_core2[a][b]);
                if (c->box_len > 0 && r2 > 0) {
                    const double L = c->box_len; /* the centres' separation in the pair's image */
                    double Rx = mc_rigid_pair_image(mc_rigid_separation(c->cx[mi] - c->cx[mj], L), dx, L);
                    double Ry = mc_rigid_pair_image(mc_rigid_separation(c->cy[mi] - c->cy[mj], L), dy, L);
                    double Rz = mc_rigid_pair_image(mc_rigid_separation(c->cz[mi] - c->cz[mj], L), dz, L);
                    s.virial += pair_virial(r2, &sp->pair[a][b]) * (dx * Rx + dy * Ry + dz * Rz) / r2;
                }
            }
            if (add_rdf && r2 < rmax2) {
                int bin = (int)(sqrt(r2) / p->rdf_dr);
                if (bin < p->rdf_bins)
                    c->rdf_counts[(size_t)mc_species_pair_index(sp, a, b) * p->rdf_bins + bin]++;
            }
        }
    }
    for (int m = 0; want_sums && m < c->nmol; m++)
        s.energy += mc_wall_energy(c->cx[m], c->cy[m], c->cz[m], p->wall_radius, p->wall_strength);
    return s;
}

/* The Coulomb terms beyond the site pairs: the constant self and intramolecular terms (ewald.h,
 * dsf.h), and with the Ewald sum its Fourier part of the chain into `ewald`, with its molecular
 * virial. */
static void add_coulomb(const mc_plan *p, const mc_chain *c, ewald_sums *ewald, mc_rigid_sums *s)
{
    if (!p->ewald) { /* coulomb = dsf */
        s->energy += p->coulomb_constant;
        return;
    }
    s->energy += ewald_recompute(&p->kspace, ewald, c->box_len, c->n, c->x, c->y, c->z, p->site_charge) +
                 p->coulomb_constant;
    s->virial += ewald_virial(&p->kspace, ewald);
    for (int i = 0; i < c->n; i++) { /* the molecular virial: less each site's force . its offset */
        const int m = p->mol.site_mol[i];
        const double r[3] = {c->x[i], c->y[i], c->z[i]},
                     d[3] = {mc_rigid_separation(c->x[i] - c->cx[m], c->box_len),
                             mc_rigid_separation(c->y[i] - c->cy[m], c->box_len),
                             mc_rigid_separation(c->z[i] - c->cz[m], c->box_len)};
        s->virial -= ewald_site_force_dot(&p->kspace, ewald, p->site_charge[i], r, d);
    }
}

mc_rigid_sums mc_rigid_measure(const mc_plan *p, mc_chain *c, int add_sample, ewald_sums *ewald)
{
    mc_rigid_sums s = site_pairs(p, c, 1, add_sample);
    if (p->charged) add_coulomb(p, c, ewald, &s);
    if (add_sample) {
        add_centre_pairs(p, c);
        mc_chain_add_rdf_sample(c, p);
    }
    return s;
}

/* The energy of a test molecule of type t placed at centre in orientation q with every site of
 * the chain (+infinity inside a hard core); with charges also its change of the Fourier part and its
 * own self and intramolecular terms. */
static double insertion_energy(const mc_plan *p, const mc_chain *c, int t, const double centre[3], mc_quat q,
                               ewald_sums *ewald)
{
    const mc_moltype *type = &p->mol.type[t];
    cpu_partners all = {.x = c->x, .y = c->y, .z = c->z, .box = c->box_len, .species = p->mol.site_species,
                        .skip0 = -1, .skip1 = -1};
    double u = 0.0, sites[3 * MC_MAX_SITES], charges[MC_MAX_SITES];
    for (int s = 0; s < type->nsites; s++) {
        double *site = &sites[3 * s];
        int a = type->species[s];
        mc_rigid_site(centre, q, type->body[s], c->box_len, site);
        all.pair_row = p->species.pair[a], all.hard_core_row = p->mol.hard_core2[a];
        u = cpu_site_energy_serial(&all, 0, c->n, site[0], site[1], site[2], u);
        charges[s] = p->species.charge[a];
    }
    if (p->charged && isfinite(u))
        u += (p->ewald ? ewald_insertion_change(&p->kspace, ewald, type->nsites, charges, sites, ewald->scratch) : 0.0) +
             p->coulomb_type_constant[t];
    return u;
}

double mc_rigid_widom_sum(const mc_plan *p, const mc_chain *c, int type, int insertions, long draw,
                          ewald_sums *ewald)
{
    double sum = 0.0;
    for (int i = 0; i < insertions; i++) {
        double centre[3];
        mc_widom_position(p->seed, (uint32_t)c->id, (uint64_t)draw, (uint32_t)insertions, (uint32_t)i,
                          c->box_len, &centre[0], &centre[1], &centre[2]);
        mc_quat q = mc_widom_orientation(p->seed, (uint32_t)c->id, (uint64_t)draw, (uint32_t)insertions, (uint32_t)i);
        sum += exp(-c->beta * insertion_energy(p, c, type, centre, q, ewald)); /* 0 inside a hard core */
    }
    return sum;
}

void mc_rigid_scale(const mc_plan *p, const mc_chain *c, double s, mc_chain *out)
{
    mc_chain_set_box(out, c->box_len * s);
    for (int m = 0; m < c->nmol; m++) {
        double centre[3] = {mc_scale_coordinate(c->cx[m], s, out->box_len),
                            mc_scale_coordinate(c->cy[m], s, out->box_len),
                            mc_scale_coordinate(c->cz[m], s, out->box_len)};
        mc_rigid_set(p, out, m, centre, mc_chain_quat(c, m));
    }
}

double mc_rigid_scaled_energy(const mc_plan *p, const mc_chain *c, double s, double *scratch, ewald_sums *ewald)
{
    mc_chain trial = *c; /* the scalars; the arrays it writes are the scratch's */
    size_t n = (size_t)c->n, M = (size_t)c->nmol;
    trial.x = scratch, trial.y = trial.x + n, trial.z = trial.y + n;
    trial.cx = trial.z + n, trial.cy = trial.cx + M, trial.cz = trial.cy + M, trial.q = trial.cz + M;
    mc_rigid_scale(p, c, s, &trial);
    return mc_rigid_measure(p, &trial, 0, ewald).energy;
}

size_t mc_rigid_scaled_scratch(const mc_plan *p) { return 3 * (size_t)p->n + 7 * (size_t)p->nmol; }

double mc_rigid_lindemann(const mc_chain *c)
{
    if (!c->lindemann_r || c->nsamples < 1 || c->nmol < 2) return NAN;
    size_t npairs = (size_t)c->nmol * (c->nmol - 1) / 2;
    double sum = 0.0, n = (double)c->nsamples;
    for (size_t k = 0; k < npairs; k++) {
        double mean = c->lindemann_r[k] / n, var = c->lindemann_r2[k] / n - mean * mean;
        sum += sqrt(fmax(var, 0.0)) / mean;
    }
    return sum / (double)npairs;
}
