/* mc_gibbs: the host side of the Gibbs ensemble: tail corrections by composition, the counts of a
 * box, the starting split and the separation test (the start itself: mc_gibbs_start.c). The moves
 * themselves are each backend's (cpu_gibbs.c), from mc_gibbs.h. */
#include "mc_gibbs.h"

#include <math.h>
#include <stdlib.h>

#include "mc_chain.h"
#include "mc_stats.h"

/* The site counts of species a in a box from its counts of each kind. */
static void site_counts(const mc_plan *p, const int64_t *count, double *sites)
{
    for (int a = 0; a < p->species.n; a++) {
        sites[a] = 0.0;
        for (int k = 0; k < p->nkinds; k++) sites[a] += (double)count[k] * p->kind_sites[k][a];
    }
}

mc_corrections mc_gibbs_corrections(const mc_plan *p, const int64_t *count, double volume, double temperature)
{
    mc_corrections k = {0.0, 0.0, 0.0};
    const mc_species *s = &p->species;
    double sites[MC_MAX_SPECIES], n = 0.0;
    site_counts(p, count, sites);
    for (int a = 0; a < s->n; a++) n += sites[a];
    if (n == 0.0 || !isfinite(p->cutoff)) return k;
    double density = n / volume;
    for (int a = 0; a < s->n; a++)
        for (int b = 0; b < s->n; b++) {
            double w = sites[a] / n * (sites[b] / n); /* the box's site fractions */
            const pair_params *pp = &s->pair[a][b];
            if (p->tail_correction) {
                k.u_tail += w * pair_tail_energy(pp, 1.0, 1.0 / density);
                k.p_tail += w * pair_tail_pressure(pp, density);
            } else if (p->cutoff_scheme == CFG_CUTOFF_TRUNCATED) {
                k.p_impulsive += w * pair_impulsive_pressure(pp, p->cutoff, density, temperature);
            }
        }
    return k;
}

int64_t mc_gibbs_particles(const mc_plan *p, const mc_chain *c, int b)
{
    int64_t n = 0;
    for (int k = 0; k < p->nkinds; k++) n += c->gibbs_count[b][k];
    return n;
}

int64_t mc_gibbs_sites(const mc_plan *p, const mc_chain *c, int b)
{
    double sites[MC_MAX_SPECIES], n = 0.0;
    site_counts(p, c->gibbs_count[b], sites);
    for (int a = 0; a < p->species.n; a++) n += sites[a];
    return (int64_t)n;
}

int mc_gibbs_liquid_box(const mc_plan *p, const mc_chain *c)
{
    double rho[2];
    for (int b = 0; b < 2; b++) rho[b] = (double)mc_gibbs_particles(p, c, b) / pow(c->gibbs_box_len[b], 3);
    return rho[1] > rho[0];
}

void mc_gibbs_start_split(const mc_plan *p, int64_t *count0, double *volume)
{
    double rho0 = p->box_start_density[0], rho1 = p->box_start_density[1], n = p->nmol;
    /* n0 / rho0 + (n - n0) / rho1 = V, or half each */
    double share = rho0 > 0 ? (p->total_volume - n / rho1) / (1.0 / rho0 - 1.0 / rho1) / n : 0.5;
    int64_t n0 = 0;
    for (int k = 0; k < p->nkinds; k++) {
        int64_t nk = p->kind_first[k + 1] - p->kind_first[k];
        count0[k] = (int64_t)(share * nk + (rho0 > 0 ? 0.5 : 0.0)); /* half: the floor, as before */
        if (count0[k] > nk) count0[k] = nk;
        n0 += count0[k];
    }
    volume[0] = rho0 > 0 ? n0 / rho0 : n0 / n * p->total_volume; /* else both at the total density */
    volume[1] = p->total_volume - volume[0];
}

double mc_gibbs_separation(const mc_chain *c)
{
    const double *n0 = c->series[MC_OBS_BOX0_PARTICLES], *n1 = c->series[MC_OBS_BOX1_PARTICLES];
    const double *v0 = c->series[MC_OBS_BOX0_VOLUME], *v1 = c->series[MC_OBS_BOX1_VOLUME];
    long m = c->nsamples;
    if (!n0 || m < 2) return NAN;
    double mean = 0.0, var = 0.0;
    for (long k = 0; k < m; k++) mean += fabs(n0[k] / v0[k] - n1[k] / v1[k]) / m;
    for (long k = 0; k < m; k++) {
        double d = fabs(n0[k] / v0[k] - n1[k] / v1[k]) - mean;
        var += d * d / (m - 1);
    }
    return var > 0 ? mean / sqrt(var) : mean > 0 ? INFINITY : 0.0;
}

void mc_gibbs_add_rdf_norm(const mc_plan *p, mc_chain *c, int box)
{
    const mc_species *sp = &p->species;
    const int64_t *count = c->gibbs_count[box];
    double volume = pow(c->gibbs_box_len[box], 3), sites[MC_MAX_SPECIES];
    site_counts(p, count, sites);
    for (int a = 0; a < sp->n; a++)
        for (int b = a; b < sp->n; b++) {
            /* the box's site pairs, less those within a molecule (which the RDF does not count) */
            double pairs = a == b ? 0.5 * sites[a] * (sites[a] - 1.0) : sites[a] * sites[b];
            for (int k = 0; p->rigid && k < p->nkinds; k++) {
                double na = p->kind_sites[k][a], nb = p->kind_sites[k][b];
                pairs -= (double)count[k] * (a == b ? 0.5 * na * (na - 1.0) : na * nb);
            }
            c->rdf_norm[mc_species_pair_index(sp, a, b)] += pairs / volume;
        }
    if (p->rigid) { /* the centres' row */
        double m = (double)mc_gibbs_particles(p, c, box);
        c->rdf_norm[sp->npairs] += 0.5 * m * (m - 1.0) / volume;
    }
}
