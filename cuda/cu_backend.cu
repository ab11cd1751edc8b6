/* cu_backend: the GPU backend's mc_backend_ops, for atoms and molecules. For atoms it owns the
 * device copies of a rank's chains (positions as [chain][x|y|z][n] in the plan's precision, and a
 * cu_chain_dev per chain mirrored on the host), picks the kernel shape, and moves the few numbers
 * the run driver needs across. Molecules (plan->rigid) take cu_rigid.cu: its kernels move them
 * and recompute energies; RDF samples, Widom test molecules and volume scaling run on fetched host
 * positions through mc_rigid_host, the CPU backend's own code. Gibbs-ensemble chains (two boxes)
 * take cu_gibbs.cu, atoms and molecules: moves, measurements and test insertions all on the device. */
#include <stdlib.h>
#include <string.h>

#include "cu_backend.h"
#include "cu_check.h"
#include "cu_device.h"
#include "cu_kernels.cuh"
#include "cu_gibbs.h"
#include "cu_rigid.h"
#include "mc_backend.h"
#include "mc_chain_state.h"
#include "mc_move.h"
#include "mc_rigid_host.h"

/* What a chain's volume draws for a launch are drawn from (mc_volume_draw's keys). */
struct volume_key {
    uint64_t first; /* its first volume move */
    double step;    /* max_volume_step */
    unsigned id;    /* the chain's stream */
};

struct mc_backend {
    const mc_plan *plan;
    mc_chain **chains;
    cu_rigid *rigid;                 /* molecules: the rigid-body path; NULL for atoms */
    cu_gibbs *gibbs;                 /* Gibbs-ensemble chains (cu_gibbs.cu); NULL otherwise */
    cu_view v;
    cu_chain_dev *mirror;            /* host copy of v.chains */
    unsigned long long *d_rdf, *h_rdf; /* [nchains][species pairs][bins] */
    double *h_energy, *h_virial;     /* [nchains] */
    void *h_pos;                     /* staging for positions in the device precision */
    double *d_scale;                 /* npt: device [nchains] box scaling of a volume move */
    double *d_draws, *h_draws;       /* npt in the chain kernel: [nchains][draw_sweeps][4] (cu_npt) */
    long draw_sweeps;                /* their room, in sweeps per chain */
    /* what h_draws holds (sweep_chains_npt): draws for launches of drawn_sweeps sweeps (0: none
     * yet), chain k's from drawn[k] */
    long drawn_sweeps;
    struct volume_key *drawn;
    int *d_pairs, *h_pairs;          /* replica exchange: [nchains] chain pairs that trade */
    int batched;
};

static void cu_destroy(mc_backend *b)
{
    if (!b) return;
    cu_rigid_destroy(b->rigid);
    cu_gibbs_destroy(b->gibbs);
    cu_cells_free(&b->v);
    cu_chain_cells_free(&b->v);
    cudaFree(b->v.chains);
    cudaFree(b->v.pos);
    cudaFree(b->v.partial);
    cudaFree(b->d_rdf);
    cudaFree(b->v.pair_table);
    cudaFree(b->d_scale);
    cudaFree(b->d_draws);
    cudaFreeHost(b->h_draws);
    free(b->drawn);
    cudaFree(b->d_pairs);
    free(b->h_pairs);
    cudaFreeHost(b->v.partial_host);
    cudaFreeHost(b->h_pos);
    free(b->mirror);
    free(b->h_rdf);
    free(b->h_energy);
    free(b->h_virial);
    free(b);
}

/* npt's volume moves are made inside the many-chain kernel (the all-pairs path of atoms); the
 * batched path and molecules leave them to the run driver. */
static int cu_moves_volume(const mc_backend *b)
{
    return b->plan->ensemble->imposed_pressure && !b->rigid && !b->gibbs && !b->batched && !b->v.cells_of;
}

static int cu_moves_volume_op(const mc_backend *b) { return cu_moves_volume(b); }

static size_t pos_bytes(const mc_backend *b)
{
    return (size_t)b->v.nchains * 3 * b->v.n * (b->v.single ? sizeof(float) : sizeof(double));
}

static int upload_chains(mc_backend *b, mc_err *err)
{
    for (int k = 0; k < b->v.nchains; k++) {
        const mc_chain *c = b->chains[k];
        cu_chain_dev *d = &b->mirror[k];
        d->max_displacement = mc_chain_step(c), d->max_step = c->max_displacement;
        d->production = (unsigned)mc_chain_in_production(b->plan, c);
        d->volume_moves = c->volume_moves, d->volume_accepted = c->volume_accepted;
        d->floor_hits = c->production_volume_floor_hits;
    }
    CU_TRY(cudaMemcpy(b->v.chains, b->mirror, b->v.nchains * sizeof *b->mirror,
                      cudaMemcpyHostToDevice), err);
    return MC_OK;
}

static int download_chains(mc_backend *b, mc_err *err)
{
    CU_TRY(cudaMemcpy(b->mirror, b->v.chains, b->v.nchains * sizeof *b->mirror,
                      cudaMemcpyDeviceToHost), err);
    for (int k = 0; k < b->v.nchains; k++) {
        mc_chain *c = b->chains[k];
        const cu_chain_dev *d = &b->mirror[k];
        c->step = d->step, c->accepted = d->accepted, c->energy_pair = d->energy;
        if (!cu_moves_volume(b)) continue;
        mc_chain_set_box(c, d->box);
        c->volume_moves = d->volume_moves, c->volume_accepted = d->volume_accepted;
        c->production_volume_floor_hits = d->floor_hits;
    }
    return MC_OK;
}

static int upload_positions(mc_backend *b, mc_err *err)
{
    int n = b->v.n;
    for (int k = 0; k < b->v.nchains; k++) {
        const double *src[3] = {b->chains[k]->x, b->chains[k]->y, b->chains[k]->z};
        for (int a = 0; a < 3; a++)
            for (int i = 0; i < n; i++) {
                size_t at = ((size_t)k * 3 + a) * n + i;
                if (b->v.single) ((float *)b->h_pos)[at] = (float)src[a][i];
                else ((double *)b->h_pos)[at] = src[a][i];
            }
    }
    CU_TRY(cudaMemcpy(b->v.pos, b->h_pos, pos_bytes(b), cudaMemcpyHostToDevice), err);
    return MC_OK;
}

static int cu_fetch(mc_backend *b, mc_err *err)
{
    if (b->rigid) {
        MC_TRY(cu_rigid_fetch(b->rigid, err));
        return cu_rigid_fetch_sums(b->rigid, err);
    }
    if (b->gibbs) return cu_gibbs_fetch(b->gibbs, err);
    CU_TRY(cudaMemcpy(b->h_pos, b->v.pos, pos_bytes(b), cudaMemcpyDeviceToHost), err);
    int n = b->v.n;
    for (int k = 0; k < b->v.nchains; k++) {
        double *dst[3] = {b->chains[k]->x, b->chains[k]->y, b->chains[k]->z};
        for (int a = 0; a < 3; a++)
            for (int i = 0; i < n; i++) {
                size_t at = ((size_t)k * 3 + a) * n + i;
                dst[a][i] = b->v.single ? ((float *)b->h_pos)[at] : ((double *)b->h_pos)[at];
            }
    }
    return MC_OK;
}

/* One block per pair of chains trades their slices of positions (3 n reals each) in place. */
template <typename real>
__global__ void swap_slices_kernel(real *pos, const int *pairs, int reals_per_chain)
{
    real *a = pos + (size_t)pairs[2 * blockIdx.x] * reals_per_chain;
    real *b = pos + (size_t)pairs[2 * blockIdx.x + 1] * reals_per_chain;
    for (int i = threadIdx.x; i < reals_per_chain; i += blockDim.x) {
        real t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

/* Replica exchange within the rank, atoms: the positions trade places on the device in one launch,
 * the boxes and energies in the mirror; nothing comes to the host. Molecules take the host path
 * (fetch, trade, upload); a large chain's cell grid goes with its positions. Called at every
 * exchange step on every rank, traded or not: every cell list is then in canonical order (the
 * chain kernel's rebuilt, the large chains' sorted), so that no chain's sums depend on whether
 * another chain of its rank traded, that is on how the chains are spread over ranks. */
static int cu_swap(mc_backend *b, int npairs, const int *first, const int *second, mc_err *err)
{
    /* large chains' grids in canonical order: the order cu_reload's rebuild gives a chain traded
     * with another rank */
    for (int c = 0; b->v.cells_of && c < b->v.nchains; c++)
        if (b->v.cells_of[c].m) MC_TRY(cu_cells_sort_lists(&b->v.cells_of[c], 1, b->v.n, err));
    if (npairs == 0) return b->v.chain_cells.m ? cu_chain_cells_rebuild(&b->v, err) : MC_OK;
    if (b->rigid) {
        MC_TRY(cu_rigid_fetch(b->rigid, err));
        unsigned char *swapped = cu_rigid_changed_mask(b->rigid);
        for (int i = 0; i < npairs; i++) {
            mc_state_swap_configuration(b->plan, b->chains[first[i]], b->chains[second[i]]);
            swapped[first[i]] = swapped[second[i]] = 1;
        }
        return cu_rigid_upload(b->rigid, 1, swapped, err);
    }
    for (int i = 0; i < npairs; i++) {
        int k = first[i], j = second[i];
        mc_state_swap_configuration(b->plan, b->chains[k], b->chains[j]); /* the host positions are stale until a fetch */
        cu_chain_dev t = b->mirror[k];
        b->mirror[k].box = b->mirror[j].box, b->mirror[k].half_box = b->mirror[j].half_box;
        b->mirror[k].energy = b->mirror[j].energy;
        b->mirror[j].box = t.box, b->mirror[j].half_box = t.half_box, b->mirror[j].energy = t.energy;
        b->h_pairs[2 * i] = k, b->h_pairs[2 * i + 1] = j;
    }
    CU_TRY(cudaMemcpy(b->d_pairs, b->h_pairs, 2 * (size_t)npairs * sizeof *b->h_pairs, cudaMemcpyHostToDevice), err);
    if (b->v.single) swap_slices_kernel<float><<<npairs, 256>>>((float *)b->v.pos, b->d_pairs, 3 * b->v.n);
    else swap_slices_kernel<double><<<npairs, 256>>>((double *)b->v.pos, b->d_pairs, 3 * b->v.n);
    CU_LAUNCHED(err);
    MC_TRY(upload_chains(b, err)); /* the boxes the cell grids are built in */
    for (int i = 0; b->v.cells_of && i < npairs; i++) { /* a large chain's grid goes with its positions */
        cu_cells_dev t = b->v.cells_of[first[i]];
        b->v.cells_of[first[i]] = b->v.cells_of[second[i]];
        b->v.cells_of[second[i]] = t;
    }
    return b->v.chain_cells.m ? cu_chain_cells_rebuild(&b->v, err) : MC_OK;
}

/* The positions of the chains with which[k] to the host, each chain's slice apart. */
static int cu_fetch_some(mc_backend *b, const unsigned char *which, mc_err *err)
{
    if (b->rigid) return cu_rigid_fetch(b->rigid, err);
    int n = b->v.n;
    size_t real = b->v.single ? sizeof(float) : sizeof(double), slice = 3 * (size_t)n * real;
    for (int k = 0; k < b->v.nchains; k++) {
        if (!which[k]) continue;
        CU_TRY(cudaMemcpy((char *)b->h_pos + k * slice, (char *)b->v.pos + k * slice, slice, cudaMemcpyDeviceToHost),
               err);
        double *dst[3] = {b->chains[k]->x, b->chains[k]->y, b->chains[k]->z};
        for (int a = 0; a < 3; a++)
            for (int i = 0; i < n; i++) {
                size_t at = ((size_t)k * 3 + a) * n + i;
                dst[a][i] = b->v.single ? ((float *)b->h_pos)[at] : ((double *)b->h_pos)[at];
            }
    }
    return MC_OK;
}

/* Replica exchange: the changed chains' host configurations to the device, each chain's slice of
 * positions apart, and their cell lists rebuilt from them. */
static int cu_reload(mc_backend *b, const unsigned char *changed, mc_err *err)
{
    if (b->rigid) return cu_rigid_upload(b->rigid, 1, changed, err);
    int n = b->v.n, any = 0;
    size_t real = b->v.single ? sizeof(float) : sizeof(double), slice = 3 * (size_t)n * real;
    for (int k = 0; k < b->v.nchains; k++) {
        if (!changed[k]) continue;
        const mc_chain *c = b->chains[k];
        const double *src[3] = {c->x, c->y, c->z};
        for (int a = 0; a < 3; a++)
            for (int i = 0; i < n; i++) {
                size_t at = ((size_t)k * 3 + a) * n + i;
                if (b->v.single) ((float *)b->h_pos)[at] = (float)src[a][i];
                else ((double *)b->h_pos)[at] = src[a][i];
            }
        CU_TRY(cudaMemcpy((char *)b->v.pos + k * slice, (char *)b->h_pos + k * slice, slice,
                          cudaMemcpyHostToDevice), err);
        b->mirror[k].box = c->box_len;
        b->mirror[k].half_box = c->half_box;
        b->mirror[k].energy = c->energy_pair;
        any = 1;
    }
    for (int k = 0; b->v.cells_of && k < b->v.nchains; k++)
        if (changed[k]) MC_TRY(cu_cells_rebuild(&b->v, k, b->h_pos, b->chains[k]->box_len, b->plan->cutoff, err));
    MC_TRY(upload_chains(b, err));
    return any && b->v.chain_cells.m ? cu_chain_cells_rebuild(&b->v, err) : MC_OK;
}

/* Each chain's volume draws for a launch of nsweeps sweeps into h_draws, from its volume move
 * volume_moves + ahead on, made as the run driver makes them (mc_volume_draw keyed by the host
 * chain's volume_moves, exp in glibc, so that the boxes are the CPU's to the bit). */
static void draw_volumes(mc_backend *b, long nsweeps, long ahead)
{
    for (size_t k = 0; k < (size_t)b->v.nchains; k++) {
        const mc_chain *c = b->chains[k];
        const struct volume_key key = {c->volume_moves + (uint64_t)ahead, c->max_volume_step, (unsigned)c->id};
        b->drawn[k] = key;
        for (long s = 0; s < nsweeps; s++) {
            mc_volume_trial t = mc_volume_draw(b->plan->seed, key.id, key.first + (uint64_t)s, key.step);
            double *d = b->h_draws + (k * nsweeps + s) * 4;
            d[0] = t.log_ratio, d[1] = t.threshold, d[2] = exp(t.log_ratio / 3.0), d[3] = exp(t.log_ratio);
        }
    }
    b->drawn_sweeps = nsweeps;
}

/* Whether h_draws holds this launch's draws: as many sweeps, and every chain at the volume move, with
 * the volume step (it adapts during equilibration) and the id they were drawn for. */
static int drawn_for(const mc_backend *b, long nsweeps)
{
    if (b->drawn_sweeps != nsweeps) return 0;
    for (int k = 0; k < b->v.nchains; k++) {
        const mc_chain *c = b->chains[k];
        if (b->drawn[k].first != c->volume_moves || b->drawn[k].step != c->max_volume_step ||
            b->drawn[k].id != (unsigned)c->id)
            return 0;
    }
    return 1;
}

/* npt in the chain kernel: a launch of nsweeps sweeps with each chain's volume draws for them.
 * The draws of the launch after are made while the kernel runs, for as many sweeps and the volume
 * steps as they are, so that the host's draws never hold the GPU up. */
static int sweep_chains_npt(mc_backend *b, long nsweeps, mc_err *err)
{
    const size_t C = (size_t)b->v.nchains;
    if (nsweeps > b->draw_sweeps) {
        cudaFree(b->d_draws), cudaFreeHost(b->h_draws);
        b->d_draws = NULL, b->h_draws = NULL, b->draw_sweeps = 0, b->drawn_sweeps = 0;
        CU_TRY(cudaMalloc(&b->d_draws, C * nsweeps * 4 * sizeof *b->d_draws), err);
        CU_TRY(cudaMallocHost(&b->h_draws, C * nsweeps * 4 * sizeof *b->h_draws), err);
        b->draw_sweeps = nsweeps;
    }
    if (!b->drawn && !(b->drawn = (struct volume_key *)calloc(C, sizeof *b->drawn)))
        MC_FAIL(err, MC_ENOMEM, "out of memory for the volume draws' keys");
    if (!drawn_for(b, nsweeps)) draw_volumes(b, nsweeps, 0);
    /* from pinned memory cudaMemcpy returns once the copy is done: h_draws is free again */
    CU_TRY(cudaMemcpy(b->d_draws, b->h_draws, C * nsweeps * 4 * sizeof *b->h_draws, cudaMemcpyHostToDevice), err);
    const cu_npt npt = {1, (int)nsweeps, b->plan->npt_tail, b->plan->min_box_len, (double)b->plan->nmol, b->d_draws};
    MC_TRY(cu_sweep_chains(&b->v, (long long)nsweeps * b->v.n, &npt, err));
    draw_volumes(b, nsweeps, nsweeps); /* the next launch's, while this one runs */
    return MC_OK;
}

enum { NPT_SWEEPS_PER_LAUNCH = 1024 }; /* bounds the draws' buffers whatever sample_every is */

static int sweep_launch(mc_backend *b, long nsweeps, mc_err *err);

static int cu_sweep(mc_backend *b, long nsweeps, mc_err *err)
{
    if (b->rigid) return cu_rigid_sweep(b->rigid, nsweeps, err);
    if (b->gibbs) return cu_gibbs_sweep(b->gibbs, nsweeps, err);
    if (!cu_moves_volume(b)) return sweep_launch(b, nsweeps, err);
    for (long done = 0; done < nsweeps; done += NPT_SWEEPS_PER_LAUNCH) /* each launch's draws from the host's counters */
        MC_TRY(sweep_launch(b, nsweeps - done < NPT_SWEEPS_PER_LAUNCH ? nsweeps - done : NPT_SWEEPS_PER_LAUNCH, err));
    return MC_OK;
}

/* Few large chains with cell grids: each chain in turn, through its grid where it has one, else
 * over all pairs (the one-chain view of cu_chain_view: cu_sweep_batched itself runs a view's chains side by side). */
static int sweep_large_chains(mc_backend *b, long long moves, mc_err *err)
{
    for (int c = 0; c < b->v.nchains; c++) {
        cu_view one = cu_chain_view(&b->v, c);
        MC_TRY(one.cells.m ? cu_sweep_cells(&one, moves, b->plan->cutoff, b->mirror[c].step, err)
                           : cu_sweep_batched(&one, moves, err));
    }
    return MC_OK;
}

/* One launch of nsweeps sweeps; the host chains current before and after. */
static int sweep_launch(mc_backend *b, long nsweeps, mc_err *err)
{
    MC_TRY(upload_chains(b, err));
    long long moves = (long long)nsweeps * b->v.n;
    const cu_npt nvt = {0, 0, 0.0, 0.0, 0.0, NULL};
    if (cu_moves_volume(b)) MC_TRY(sweep_chains_npt(b, nsweeps, err));
    else if (b->v.cells_of) MC_TRY(sweep_large_chains(b, moves, err));
    else if (b->batched) MC_TRY(cu_sweep_batched(&b->v, moves, err));
    else if (b->v.chain_cells.m) MC_TRY(cu_sweep_cells_chains(&b->v, moves, err));
    else MC_TRY(cu_sweep_chains(&b->v, moves, &nvt, err));
    MC_TRY(download_chains(b, err)); /* synchronises: a kernel fault surfaces here */
    if (b->v.chain_cells.m) MC_TRY(cu_chain_cells_overflowed(&b->v, err));
    for (int c = 0; b->v.cells_of && c < b->v.nchains; c++) {
        cu_view one = cu_chain_view(&b->v, c);
        if (one.cells.m) MC_TRY(cu_cells_overflowed(&one, err));
    }
    return MC_OK;
}

/* Energy and virial (and, when add_rdf, pair counts) through the cells where the chain has them. */
static int measure_energies(mc_backend *b, int add_rdf, mc_err *err)
{
    const mc_plan *p = b->plan;
    unsigned long long *rdf = add_rdf ? b->d_rdf : NULL;
    if (b->v.chain_cells.m) /* every round's end: the order a restart builds */
        MC_TRY(cu_cells_sort_lists(&b->v.chain_cells, b->v.nchains, b->v.n, err));
    if (!b->v.cells_of)
        return cu_measure(&b->v, b->h_energy, b->h_virial, rdf, p->rdf_bins, p->rdf_rmax, p->rdf_dr, err);
    for (int c = 0; c < b->v.nchains; c++) { /* large chains: one at a time, each its own way */
        cu_view one = cu_chain_view(&b->v, c);
        unsigned long long *rdf_c = rdf ? rdf + (size_t)c * b->v.rdf_pairs * p->rdf_bins : NULL;
        double *e = &b->h_energy[c], *w = &b->h_virial[c];
        if (!one.cells.m) {
            MC_TRY(cu_measure(&one, e, w, rdf_c, p->rdf_bins, p->rdf_rmax, p->rdf_dr, err));
            continue;
        }
        MC_TRY(cu_cells_sort_lists(&one.cells, 1, b->v.n, err)); /* every round's end: the order a restart builds */
        int rdf_in_cells = p->rdf_rmax <= b->chains[c]->box_len / one.cells.m;
        MC_TRY(cu_measure_cells(&one, e, w, rdf_in_cells ? rdf_c : NULL, p->rdf_bins, p->rdf_rmax, p->rdf_dr, err));
        double e2, w2; /* the RDF reaches past the cells: count its pairs over all pairs */
        if (rdf_c && !rdf_in_cells) MC_TRY(cu_measure(&one, &e2, &w2, rdf_c, p->rdf_bins, p->rdf_rmax, p->rdf_dr, err));
    }
    return MC_OK;
}

static int cu_measure_all(mc_backend *b, int add_rdf, mc_measurement *out, mc_err *err)
{
    const mc_plan *p = b->plan;
    if (b->rigid) return cu_rigid_measure(b->rigid, add_rdf, out, err);
    if (b->gibbs) return cu_gibbs_measure(b->gibbs, add_rdf, out, err);
    size_t row = (size_t)b->v.rdf_pairs * p->rdf_bins, hist = b->v.nchains * row * sizeof *b->h_rdf;
    if (add_rdf) CU_TRY(cudaMemset(b->d_rdf, 0, hist), err);
    MC_TRY(measure_energies(b, add_rdf, err));
    for (int k = 0; k < b->v.nchains; k++) {
        out[k].energy_pair = b->h_energy[k];
        out[k].virial_pair = b->h_virial[k];
        out[k].energy_pair_running = b->mirror[k].energy;
        b->mirror[k].energy = b->chains[k]->energy_pair = b->h_energy[k]; /* restart from exact */
    }
    MC_TRY(upload_chains(b, err));
    if (!add_rdf) return MC_OK;
    CU_TRY(cudaMemcpy(b->h_rdf, b->d_rdf, hist, cudaMemcpyDeviceToHost), err);
    for (int k = 0; k < b->v.nchains; k++) {
        for (size_t bin = 0; bin < row; bin++)
            b->chains[k]->rdf_counts[bin] += b->h_rdf[k * row + bin];
        mc_chain_add_rdf_sample(b->chains[k], p);
    }
    return MC_OK;
}

static int cu_widom_all(mc_backend *b, int species, int insertions, long draw, double *sums,
                        mc_err *err)
{
    if (b->gibbs) return cu_gibbs_insertion(b->gibbs, species, insertions, draw, sums, err); /* a phase and a species */
    if (b->rigid) return cu_rigid_widom(b->rigid, species, insertions, draw, sums, err); /* species: a molecule type */
    if (!b->v.cells_of) return cu_widom_chains(&b->v, species, insertions, draw, sums, err);
    for (int c = 0; c < b->v.nchains; c++) { /* large chains: one at a time, each its own way */
        cu_view one = cu_chain_view(&b->v, c);
        MC_TRY(one.cells.m ? cu_widom_cells(&one, insertions, draw, &sums[c], err)
                           : cu_widom_chains(&one, species, insertions, draw, &sums[c], err));
    }
    return MC_OK;
}

static int cu_volume_energy_all(mc_backend *b, const double *scale, double *energy, mc_err *err)
{
    if (b->rigid) return cu_rigid_volume_energy(b->rigid, scale, energy, err);
    CU_TRY(cudaMemcpy(b->d_scale, scale, b->v.nchains * sizeof *scale, cudaMemcpyHostToDevice), err);
    MC_TRY(cu_volume_energy(&b->v, b->d_scale, b->h_energy, err));
    for (int k = 0; k < b->v.nchains; k++)
        if (scale[k] != 1.0) energy[k] = b->h_energy[k];
    return MC_OK;
}

static int cu_volume_apply(mc_backend *b, const double *scale, const double *energy, mc_err *err)
{
    if (b->rigid) { /* the host positions are those cu_volume_energy_all fetched */
        unsigned char *scaled = cu_rigid_changed_mask(b->rigid);
        for (int k = 0; k < b->v.nchains; k++) {
            if (scale[k] == 1.0) continue;
            mc_rigid_scale(b->plan, b->chains[k], scale[k], b->chains[k]);
            b->chains[k]->energy_pair = energy[k];
            scaled[k] = 1;
        }
        return cu_rigid_upload(b->rigid, 1, scaled, err);
    }
    CU_TRY(cudaMemcpy(b->d_scale, scale, b->v.nchains * sizeof *scale, cudaMemcpyHostToDevice), err);
    if (b->v.chain_cells.m) MC_FAIL(err, MC_ECHECK, "internal: a volume move on the many-chain cell path");
    MC_TRY(cu_volume_scale(&b->v, b->d_scale, err)); /* reads the old boxes: before the update */
    for (int k = 0; k < b->v.nchains; k++) {
        if (scale[k] == 1.0) continue;
        mc_chain *c = b->chains[k];
        mc_chain_set_box(c, c->box_len * scale[k]);
        b->mirror[k].box = c->box_len;
        b->mirror[k].half_box = c->half_box;
        b->mirror[k].energy = c->energy_pair = energy[k];
    }
    return upload_chains(b, err);
}

/* One block per chain fills the GPU when there are many chains; fewer chains than SMs instead run
 * through batched trials, side by side, each over many SMs: a large chain takes the whole GPU, a
 * few medium ones share it. "Fewer" counts the run's chains, not this rank's: the two paths sum a
 * chain's energies in different orders, and a chain's numbers must not depend on how many ranks
 * share the run. */
static int use_batched(const cu_view *v, const mc_plan *plan)
{
    return plan->nchains < v->sm_count && v->n >= 4 * v->batch_trials;
}

/* K, trials a batch, by chain size: 512 for large chains, the fastest measured (shape E); 256 from
 * CU_MEDIUM_CHAIN_MAX, and 64 below it, so that repeats of a particle within a batch (about K^2 / 2N,
 * each decided apart) stay rare: 4 a batch at N = 500 (doc/performance.md version 47). */
static int default_batch_trials(int n) { return n >= 16384 ? 512 : n >= CU_MEDIUM_CHAIN_MAX ? 256 : 64; }

/* A mixture's pair constants, [a][b], in the kernel precision. */
static int upload_pair_table(mc_backend *b, mc_err *err)
{
    const mc_species *sp = &b->plan->species;
    int n = sp->n;
    pair_params_f f[MC_MAX_SPECIES * MC_MAX_SPECIES];
    pair_params d[MC_MAX_SPECIES * MC_MAX_SPECIES];
    for (int a = 0; a < n; a++)
        for (int c = 0; c < n; c++) {
            d[a * n + c] = sp->pair[a][c];
            f[a * n + c] = prec<float>::make(sp->pair[a][c]);
        }
    size_t bytes = (size_t)n * n * (b->v.single ? sizeof *f : sizeof *d);
    CU_TRY(cudaMalloc(&b->v.pair_table, bytes), err);
    CU_TRY(cudaMemcpy(b->v.pair_table, b->v.single ? (const void *)f : (const void *)d, bytes,
                      cudaMemcpyHostToDevice), err);
    return MC_OK;
}

static int allocate(mc_backend *b, mc_err *err)
{
    cu_view *v = &b->v;
    size_t C = (size_t)v->nchains, bins = (size_t)b->plan->rdf_bins * v->rdf_pairs;
    b->mirror = (cu_chain_dev *)calloc(C, sizeof *b->mirror);
    b->h_rdf = (unsigned long long *)calloc(C * bins, sizeof *b->h_rdf);
    b->h_energy = (double *)calloc(C, sizeof(double));
    b->h_virial = (double *)calloc(C, sizeof(double));
    if (!b->mirror || !b->h_rdf || !b->h_energy || !b->h_virial)
        MC_FAIL(err, MC_ENOMEM, "out of host memory for the GPU backend");
    /* the host copy holds what the measurements and Widom sums read back; the device scratch also
     * every batched chain's tables (cu_batched_scratch: all chains at once) */
    size_t host_len = cu_measure_scratch(v), cells = cu_cells_scratch(v);
    if (cells > host_len) host_len = cells;
    if ((size_t)b->plan->widom_insertions > host_len) host_len = b->plan->widom_insertions;
    v->partial_len = host_len;
    if (b->batched && cu_batched_scratch(v) > v->partial_len) v->partial_len = cu_batched_scratch(v);
    CU_TRY(cudaMalloc(&v->chains, C * sizeof *v->chains), err);
    CU_TRY(cudaMalloc(&v->pos, pos_bytes(b)), err);
    CU_TRY(cudaMalloc(&v->partial, v->partial_len * sizeof(double)), err);
    CU_TRY(cudaMalloc(&b->d_rdf, C * bins * sizeof *b->d_rdf), err);
    CU_TRY(cudaMallocHost(&v->partial_host, host_len * sizeof(double)), err);
    CU_TRY(cudaMallocHost(&b->h_pos, pos_bytes(b)), err);
    if (v->nspecies > 1) MC_TRY(upload_pair_table(b, err));
    if (b->plan->ensemble->imposed_pressure) CU_TRY(cudaMalloc(&b->d_scale, C * sizeof *b->d_scale), err);
    if (b->plan->exchange_every) {
        CU_TRY(cudaMalloc(&b->d_pairs, C * sizeof *b->d_pairs), err);
        if (!(b->h_pairs = (int *)malloc(C * sizeof *b->h_pairs))) MC_FAIL(err, MC_ENOMEM, "out of host memory");
    }
    return MC_OK;
}

static int setup(mc_backend *b, mc_err *err)
{
    cu_view *v = &b->v;
    MC_TRY(cu_shape_gpu(b->plan, &v->sm_count, &v->smem_per_block, err));
    v->batch_trials = b->plan->gpu_batch_trials ? b->plan->gpu_batch_trials : default_batch_trials(v->n);
    b->batched = use_batched(v, b->plan);
    if (b->batched) MC_TRY(cu_batched_fits(v, err));
    MC_TRY(allocate(b, err));
    for (int c = 0; c < v->nchains; c++) {
        const mc_chain *ch = b->chains[c];
        cu_chain_dev d = {ch->box_len, ch->half_box, ch->beta, ch->max_displacement, ch->step,
                          ch->accepted, 0.0, (unsigned)ch->id, 0};
        const mc_statepoint *sp = &b->plan->statepoint[ch->statepoint];
        d.pressure = sp->pressure, d.kT = sp->temperature; /* npt in the kernel */
        b->mirror[c] = d;
    }
    MC_TRY(upload_chains(b, err));
    MC_TRY(upload_positions(b, err));
    /* npt and mixtures keep to the all-pairs paths: a volume move would invalidate the cell
     * grid, and the cell kernels hold one set of pair constants; medium chains too (see
     * CU_MEDIUM_CHAIN_MAX) */
    if (b->batched && !b->plan->ensemble->imposed_pressure && b->plan->species.n == 1 && v->n >= CU_MEDIUM_CHAIN_MAX) {
        double *box = (double *)malloc(v->nchains * sizeof *box);
        if (!box) MC_FAIL(err, MC_ENOMEM, "out of host memory for the GPU backend");
        for (int c = 0; c < v->nchains; c++) box[c] = b->chains[c]->box_len;
        int rc = cu_cells_setup(v, b->h_pos, box, b->plan->cutoff, err);
        free(box);
        MC_TRY(rc);
    }
    /* many NVT chains with a cutoff: cell lists inside the chain kernel where they
     * pay, on a grid from the smallest box of every state point, not of this rank's chains: the
     * grid orders a chain's sums, and a chain's numbers must not depend on the ranks it shares the
     * run with. Mixtures too: the kernel looks up each partner's species. */
    if (!b->batched && !b->plan->ensemble->imposed_pressure && b->plan->gpu_cell_lists == CFG_GPU_CELL_LISTS_AUTO) {
        double min_box = b->plan->statepoint[0].box_len;
        for (int s = 1; s < b->plan->nstatepoints; s++)
            if (b->plan->statepoint[s].box_len < min_box) min_box = b->plan->statepoint[s].box_len;
        MC_TRY(cu_chain_cells_setup(v, min_box, b->plan->cutoff, err));
    }
    /* cell path: trials mostly far apart, so larger batches only amortise launches */
    v->cells_trials = !b->plan->gpu_batch_trials && v->n >= 4 * CU_MAX_BATCH_TRIALS ? CU_MAX_BATCH_TRIALS
                                                                                     : v->batch_trials;
    MC_TRY(measure_energies(b, 0, err));
    for (int c = 0; c < v->nchains; c++)
        b->mirror[c].energy = b->chains[c]->energy_pair = b->h_energy[c];
    return upload_chains(b, err);
}

static mc_backend *cu_create(const mc_plan *plan, mc_chain **chains, int nchains, mc_err *err)
{
    /* charges on the molecule path alone (the backend table, mc_backend_table.c, asks no other of it):
     * the other kernels' pair function has no Coulomb term (PAIR_COULOMB_TERM, src/pair.h) */
    if (plan->charged && (!plan->rigid || mc_plan_labelled(plan)))
        return mc_err_set(err, MC_EINVAL, "internal: charged sites reached a GPU path without them"), (mc_backend *)NULL;
    mc_backend *b = (mc_backend *)calloc(1, sizeof *b);
    if (!b) return mc_err_set(err, MC_ENOMEM, "out of memory for the GPU backend"), (mc_backend *)NULL;
    b->plan = plan;
    b->chains = chains;
    b->v.nchains = nchains;
    b->v.n = plan->n;
    b->v.single = plan->precision == CFG_PRECISION_SINGLE;
    b->v.seed = plan->seed;
    b->v.pair = plan->pair;
    b->v.nspecies = plan->species.n;
    b->v.rdf_pairs = plan->species.npairs;
    for (int a = 0; a <= MC_MAX_SPECIES; a++) b->v.species_first[a] = plan->species.first[a];
    int rc;
    if (mc_plan_labelled(plan)) { /* atoms or molecules (gcmc: atoms); exchange and trades do not reach this path (cfg refuses them) */
        rc = (b->gibbs = cu_gibbs_create(plan, chains, nchains, err)) ? MC_OK : err->code;
    } else if (plan->rigid) {
        rc = (b->rigid = cu_rigid_create(plan, chains, nchains, err)) ? MC_OK : err->code;
    } else {
        rc = setup(b, err);
    }
    if (rc != MC_OK) {
        cu_destroy(b);
        return NULL;
    }
    return b;
}

/* The kernel shapes of doc/performance.md by name: many-chains (npt: with its volume moves),
 * many-chains-cells, few-chains (medium chains batched side by side), large-chain and
 * large-chain-cells (per chain, so both can be listed), molecules-resident, molecules-batched, gibbs. */
static const char *cu_path(const mc_backend *b)
{
    if (b->gibbs) return "gibbs";
    if (b->rigid) return cu_rigid_path(b->rigid);
    if (b->batched && b->v.n < CU_MEDIUM_CHAIN_MAX) return "few-chains";
    if (b->batched) {
        int cells = 0, pairs = 0;
        for (int c = 0; c < b->v.nchains; c++) b->v.cells_of && b->v.cells_of[c].m ? cells++ : pairs++;
        return cells && pairs ? "large-chain-cells+large-chain" : cells ? "large-chain-cells" : "large-chain";
    }
    if (b->v.chain_cells.m) return "many-chains-cells";
    return cu_moves_volume(b) ? "many-chains-npt" : "many-chains";
}

extern "C" const mc_backend_ops mc_backend_cuda = {
    "gpu", cu_create, cu_sweep, cu_measure_all, cu_widom_all, cu_volume_energy_all, cu_volume_apply,
    cu_fetch, cu_swap, cu_fetch_some, cu_reload, cu_destroy, cu_moves_volume_op, cu_path};
