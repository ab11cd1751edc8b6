/* mc_gcmc: the host side of the grand-canonical ensemble: windows, a chain's starting labels, its
 * bias and its collection (the moves are each backend's: cpu_gibbs.c; mc_gcmc.h). */
#include "mc_gcmc.h"

#include <string.h>

#include "mc_chain.h"
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
    const mc_species *sp = &p->species;
    for (int a = 0; a < sp->n; a++) { /* lo / nspecies each, the remainder to the first species */
        int share = lo / sp->n + (a < lo % sp->n);
        for (int i = sp->first[a]; i < sp->first[a + 1]; i++) c->in_box[i] = i - sp->first[a] >= share;
        c->gibbs_count[0][a] = share;
        c->gibbs_count[1][a] = sp->count[a] - share;
    }
    c->gibbs_box_len[0] = c->gibbs_box_len[1] = c->box_len;
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
