/* mc_gibbs_start: a Gibbs chain's particles (molecules) split over its two boxes and placed. */
#include "mc_gibbs.h"

#include <math.h>
#include <stdlib.h>

#include "mc_lattice.h"
#include "mc_rigid_start.h"

int mc_gibbs_start(const mc_plan *p, mc_chain *c, mc_err *err)
{
    int nmol = c->nmol;
    double *pts = malloc(3 * (size_t)nmol * sizeof *pts);
    if (!pts) MC_FAIL(err, MC_ENOMEM, "out of memory for chain %d's two boxes", c->id);
    mc_chain_set_box(c, 0.0); /* a Gibbs chain has two boxes, in gibbs_box_len */
    if (p->rigid) mc_rigid_reset_orientations(p, c);
    int rc = MC_OK;
    int64_t count0[MC_MAX_SPECIES];
    double volume[2];
    mc_gibbs_start_split(p, count0, volume);
    for (int k = 0; k < p->nkinds; k++) {
        int m0 = p->kind_first[k], m1 = p->kind_first[k + 1];
        c->gibbs_count[0][k] = count0[k];
        c->gibbs_count[1][k] = m1 - m0 - count0[k];
        for (int m = m0; m < m1; m++) { /* every site of a molecule in its box */
            int s0 = p->rigid ? p->mol.first[m] : m, s1 = p->rigid ? p->mol.first[m + 1] : m + 1;
            for (int i = s0; i < s1; i++) c->in_box[i] = m - m0 >= count0[k];
        }
    }
    /* atoms' positions, or molecules' centres */
    double *px = p->rigid ? c->cx : c->x, *py = p->rigid ? c->cy : c->y, *pz = p->rigid ? c->cz : c->z;
    for (int b = 0; rc == MC_OK && b < 2; b++) {
        int nb = (int)mc_gibbs_particles(p, c, b);
        c->gibbs_box_len[b] = cbrt(volume[b]);
        double *x = pts, *y = pts + nb, *z = pts + 2 * nb;
        if (p->start == CFG_START_MELT) {
            rc = mc_melt_points(p, c->id, b, nb, c->gibbs_box_len[b], p->rigid ? 0.8 : 0.7, x, y, z, err);
        } else {
            mc_lattice_fill(p->lattice, nb, c->gibbs_box_len[b], x, y, z);
            /* a mixture's kinds spread over the box; box 1 takes the setup keys after box 0's */
            if (p->nkinds > 1) mc_chain_shuffle_points_from(c, p->seed, (uint64_t)b * (uint64_t)p->n, nb, x, y, z);
        }
        for (int m = 0, k = 0; rc == MC_OK && m < nmol; m++)
            if (mc_gibbs_box_of(p, c, m) == b) px[m] = x[k], py[m] = y[k], pz[m] = z[k], k++;
    }
    free(pts);
    if (rc == MC_OK && p->rigid) rc = mc_rigid_orient(p, c, err);
    return rc;
}
