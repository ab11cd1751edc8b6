/* mc_gcmc: the host side of the grand-canonical ensemble: windows, a chain's starting labels, its
 * bias and its collection (the moves are each backend's: cpu_gibbs.c; mc_gcmc.h). */
#include "mc_gcmc.h"

#include <math.h>
#include <string.h>

#include "mc_chain.h"
#include "mc_gibbs.h"
#include "tmmc.h"

void mc_gcmc_window(const mc_plan *p, int chain, int *lo, int *hi)
{
    long range = p->tmmc_n_max - p->tmmc_n_min, w = mc_gcmc_window_of(p, chain), W = p->tmmc_windows;
    *lo = p->tmmc_n_min + (int)(w * range / W);
    *hi = p->tmmc_n_min + (int)((w + 1) * range / W);
}

void mc_gcmc_start(const mc_plan *p, mc_chain *c)
{
    int lo, hi;
    mc_gcmc_window(p, c->id, &lo, &hi);
    for (int k = 0; k < p->nkinds; k++) { /* lo / nkinds each, the remainder to the first kinds */
        int share = lo / p->nkinds + (k < lo % p->nkinds);
        for (int m = p->kind_first[k]; m < p->kind_first[k + 1]; m++) {
            int absent = m - p->kind_first[k] >= share;
            /* a molecule's sites carry its label (mc_gibbs_box_of reads its first) */
            for (int i = p->rigid ? p->mol.first[m] : m; i < (p->rigid ? p->mol.first[m + 1] : m + 1); i++)
                c->in_box[i] = absent;
        }
        c->gibbs_count[0][k] = share;
        c->gibbs_count[1][k] = p->kind_first[k + 1] - p->kind_first[k] - share;
    }
    c->gibbs_box_len[0] = c->gibbs_box_len[1] = c->box_len;
}

double mc_gcmc_tail_change(const mc_plan *p, const mc_chain *c, int kind, int insertion)
{
    int64_t fewer[MC_MAX_SPECIES]; /* the box's counts without the particle that is deleted */
    for (int k = 0; k < p->nkinds; k++) fewer[k] = c->gibbs_count[0][k] - (k == kind && !insertion);
    const double len = c->box_len;
    return mc_gibbs_insertion_tail(p->kind_tail, p->nkinds, fewer, kind, len * len * len);
}

int mc_gcmc_decide(const mc_plan *p, mc_chain *c, uint64_t step, int insertion, double log_ratio)
{
    const int64_t N = mc_gibbs_particles(p, c, 0), to = N + (insertion ? 1 : -1);
    const int n_lo = p->tmmc_n_min;
    tmmc_collect(c->tmmc_c + (size_t)TMMC_ROW * (size_t)(N - n_lo), insertion ? TMMC_UP : TMMC_DOWN,
                 mc_gcmc_probability(log_ratio));
    int lo, hi;
    mc_gcmc_window(p, c->id, &lo, &hi);
    if (to < lo || to > hi) return 0; /* the window's edge: collected, not taken */
    if (p->tmmc_bias) log_ratio += tmmc_bias(c->tmmc_bias, (int)(N - n_lo), (int)(to - n_lo));
    return mc_gcmc_accept(log_ratio, p->seed, (uint32_t)c->id, step);
}

int mc_gcmc_attempt(const mc_plan *p, mc_chain *c, uint64_t step, int kind, int insertion)
{
    c->transfers++;
    if (insertion || c->gibbs_count[0][kind] > 0) return 1;
    mc_gcmc_decide(p, c, step, 0, -INFINITY); /* nothing to delete: collected as never accepted */
    return 0;
}

void mc_gcmc_taken(mc_chain *c, int kind, int insertion, double pair)
{
    c->gibbs_count[0][kind] += insertion ? 1 : -1;
    c->gibbs_count[1][kind] -= insertion ? 1 : -1;
    double dE = insertion ? pair : -pair;
    c->gibbs_energy[0] += dE;
    c->energy_pair += dE;
    c->accepted++;
    c->transfers_accepted++;
}

void mc_gcmc_record(const mc_plan *p, mc_chain *c)
{
    size_t at = (size_t)(mc_gibbs_particles(p, c, 0) - p->tmmc_n_min);
    const double len = c->box_len; /* the volume as the moves take it, len^3 multiplied out */
    c->tmmc_energy[at] += c->energy_pair + mc_gibbs_tail_energy(p, c->gibbs_count[0], len * len * len);
    c->tmmc_visits[at]++;
}

void mc_gcmc_update_bias(const mc_plan *p, mc_chain *c)
{
    int lo, hi, missing;
    mc_gcmc_window(p, c->id, &lo, &hi);
    int i0 = lo - p->tmmc_n_min;
    /* only the window's macrostates: the chain never leaves them, and its rows outside are empty */
    tmmc_ln_pi((const double(*)[TMMC_ROW])(c->tmmc_c + (size_t)TMMC_ROW * i0), lo, hi - lo + 1, c->tmmc_bias + i0,
               &missing);
}

void mc_gcmc_restart_collection(const mc_plan *p, mc_chain *c)
{
    size_t m = (size_t)mc_gcmc_macrostates(p);
    memset(c->tmmc_c, 0, TMMC_ROW * m * sizeof *c->tmmc_c);
    memset(c->tmmc_energy, 0, m * sizeof *c->tmmc_energy);
    memset(c->tmmc_visits, 0, m * sizeof *c->tmmc_visits);
}
