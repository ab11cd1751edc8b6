/* cpu_rigid: the serial reference backend of the rigid-body engine. A trial move's dE is the moved
 * molecule's energy with all other sites (and the wall) at its new placement minus at its old. */
#include <stdlib.h>

#include "mc_backend.h"
#include "mc_move.h"
#include "mc_rigid.h"
#include "mc_rigid_host.h"

struct mc_backend {
    const mc_plan *plan;
    mc_chain **chains;
    int nchains;
    double *old_pos, *new_pos; /* [3 max_sites] one molecule's sites */
};

static void attempt_move(mc_backend *b, mc_chain *c)
{
    const mc_plan *p = b->plan;
    const mc_molecules *mol = &p->mol;
    uint64_t step = c->step++;
    mc_rigid_trial t = mc_rigid_trial_draw(p->seed, (uint32_t)c->id, step, (uint32_t)c->nmol, mol->first,
                                           c->max_displacement, c->max_rotation);
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
    double dE = mc_rigid_move_energy(p, c, m, b->old_pos, b->new_pos, old_centre, centre);
    if (!mc_metropolis_accept(dE, c->beta, p->seed, (uint32_t)c->id, step)) return;
    c->cx[m] = centre[0], c->cy[m] = centre[1], c->cz[m] = centre[2];
    c->q[4 * m] = q.w, c->q[4 * m + 1] = q.x, c->q[4 * m + 2] = q.y, c->q[4 * m + 3] = q.z;
    for (int k = 0; k < ns; k++)
        c->x[f0 + k] = b->new_pos[3 * k], c->y[f0 + k] = b->new_pos[3 * k + 1], c->z[f0 + k] = b->new_pos[3 * k + 2];
    c->energy_pair += dE;
    c->accepted++;
    c->rotations_accepted += t.rotate;
}

static int rigid_sweep(mc_backend *b, long nsweeps, mc_err *err)
{
    (void)err;
    for (int k = 0; k < b->nchains; k++) {
        mc_chain *c = b->chains[k];
        for (long m = 0; m < nsweeps * c->nmol; m++) attempt_move(b, c);
    }
    return MC_OK;
}

static int rigid_measure(mc_backend *b, int add_rdf, mc_measurement *out, mc_err *err)
{
    (void)err;
    mc_rigid_measure_chains(b->plan, b->chains, b->nchains, add_rdf, out);
    return MC_OK;
}

static int rigid_fetch(mc_backend *b, mc_err *err)
{
    (void)b, (void)err;
    return MC_OK;
}

static void rigid_destroy(mc_backend *b)
{
    if (!b) return;
    free(b->old_pos);
    free(b);
}

static mc_backend *rigid_create(const mc_plan *plan, mc_chain **chains, int nchains, mc_err *err)
{
    mc_backend *b = calloc(1, sizeof *b);
    if (b) b->old_pos = malloc(6 * (size_t)plan->mol.max_sites * sizeof *b->old_pos);
    if (!b || !b->old_pos) {
        rigid_destroy(b);
        return mc_err_set(err, MC_ENOMEM, "out of memory for the CPU backend"), NULL;
    }
    b->new_pos = b->old_pos + 3 * plan->mol.max_sites;
    b->plan = plan;
    b->chains = chains;
    b->nchains = nchains;
    for (int k = 0; k < nchains; k++) chains[k]->energy_pair = mc_rigid_measure(plan, chains[k], 0).energy;
    return b;
}

const mc_backend_ops mc_backend_cpu_rigid = {"cpu",
                                             rigid_create,
                                             rigid_sweep,
                                             rigid_measure,
                                             mc_rigid_no_widom,
                                             mc_rigid_no_volume_energy,
                                             mc_rigid_no_volume_apply,
                                             rigid_fetch,
                                             rigid_destroy};
