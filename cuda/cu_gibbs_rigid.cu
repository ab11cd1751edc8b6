/* cu_gibbs_rigid: Gibbs-ensemble chains of rigid molecules on the GPU, cpu_gibbs_rigid.c's twin under
 * cu_gibbs.cu's contract, pattern and -fmad=false: the molecule moves, measurement and test
 * insertions, their launches, and the molecule tables. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cu_gibbs.cuh"

/* ---- Molecules (plan->rigid): cpu_gibbs_rigid.c's moves. Threads below the molecule's site count
 * place its sites in shared memory; every thread sums its share of the other sites against them. */

__device__ mc_quat quat_of(const rigid_view &r, int m)
{
    mc_quat q = {r.quat[4 * m], r.quat[4 * m + 1], r.quat[4 * m + 2], r.quat[4 * m + 3]};
    return q;
}

/* The pair energies of the moved molecule's sites at pa (and pb) with this thread's share of the
 * sites of box b outside [f0, f1), under the minimum image of len; into *ea (and *eb). */
__device__ void molecule_pairs(const gibbs_consts &k, const chain_view &v, const rigid_view &r, int n, int f0, int f1,
                               int b, double len, const double *pa, const double *pb, double *ea, double *eb)
{
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        if (v.box[j] != b || (j >= f0 && j < f1)) continue;
        int e = r.species[j];
        for (int s = 0; s < f1 - f0; s++) {
            int a = r.species[f0 + s];
            *ea += mc_site_pair_energy(distance2(&pa[3 * s], v.x[j], v.y[j], v.z[j], len), &k.pair[a][e], k.hard_core2[a][e]);
            if (pb) *eb += mc_site_pair_energy(distance2(&pb[3 * s], v.x[j], v.y[j], v.z[j], len), &k.pair[a][e], k.hard_core2[a][e]);
        }
    }
}

/* The moved molecule's sites as they are into old_pos, and placed at centre in q in a box of len into
 * new_pos (threads below its site count); the block synchronised after. */
__device__ void stage_sites(const chain_view &v, const rigid_view &r, int f0, int f1, const double *centre, mc_quat q,
                            double len, double *old_pos, double *new_pos)
{
    int s = threadIdx.x;
    if (s < f1 - f0) {
        old_pos[3 * s] = v.x[f0 + s], old_pos[3 * s + 1] = v.y[f0 + s], old_pos[3 * s + 2] = v.z[f0 + s];
        mc_rigid_site(centre, q, &r.body[3 * (f0 + s)], len, &new_pos[3 * s]);
    }
    __syncthreads();
}

/* Molecule m at centre in q with its sites new_pos, in box b (threads below its site count, and
 * thread 0 the centre and orientation). */
__device__ void store_molecule(const chain_view &v, const rigid_view &r, int nmol, int m, int f0, int f1,
                               const double *centre, mc_quat q, const double *new_pos, int b)
{
    int s = threadIdx.x;
    if (s < f1 - f0) {
        v.x[f0 + s] = new_pos[3 * s], v.y[f0 + s] = new_pos[3 * s + 1], v.z[f0 + s] = new_pos[3 * s + 2];
        v.box[f0 + s] = (unsigned char)b;
    }
    if (s == 0) {
        r.centre[m] = centre[0], r.centre[nmol + m] = centre[1], r.centre[2 * nmol + m] = centre[2];
        r.quat[4 * m] = q.w, r.quat[4 * m + 1] = q.x, r.quat[4 * m + 2] = q.y, r.quat[4 * m + 3] = q.z;
    }
}

__device__ void move_molecule(const gibbs_consts &k, gibbs_chain_dev &c, const chain_view &v, const rigid_view &r, int n,
                              unsigned long long step, double *old_pos, double *new_pos, double *warp_a, double *warp_b)
{
    mc_rigid_trial t = mc_rigid_trial_draw(k.seed, c.id, step, (uint32_t)k.nmol, r.first, 1.0, c.max_rotation);
    int m = (int)t.molecule, f0 = r.first[m], f1 = r.first[m + 1], b = v.box[f0];
    double len = c.box_len[b], max = mc_box_step(c.max_displacement, len);
    double centre[3] = {mc_rigid_shift(r.centre[m], t.dx * max, len), mc_rigid_shift(r.centre[k.nmol + m], t.dy * max, len),
                        mc_rigid_shift(r.centre[2 * k.nmol + m], t.dz * max, len)};
    mc_quat q = quat_of(r, m);
    if (t.rotate) q = mc_quat_normalize(mc_quat_multiply(t.turn, q));
    stage_sites(v, r, f0, f1, centre, q, len, old_pos, new_pos);
    double e_new = 0.0, e_old = 0.0;
    molecule_pairs(k, v, r, n, f0, f1, b, len, new_pos, old_pos, &e_new, &e_old);
    block_sum2(&e_new, &e_old, warp_a, warp_b);
    c.rotations += t.rotate;
    double dE = e_new - e_old;
    if (!mc_metropolis_accept(dE, c.beta, k.seed, c.id, step)) return;
    store_molecule(v, r, k.nmol, m, f0, f1, centre, q, new_pos, b);
    c.energy[b] += dE;
    c.accepted++;
    c.rotations_accepted += t.rotate;
}

/* The k-th molecule (from 0, in index order) of kind `kind` in box `box`: kth_in_box over the kind's
 * block of molecules, each in the box of its first site. */
__device__ int kth_molecule(const gibbs_consts &k, const chain_view &v, const rigid_view &r, int kind, int box,
                            long long kth, int *warp_count, int *found)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int base = k.kind_first[kind]; base < k.kind_first[kind + 1]; base += blockDim.x) {
        int m = base + threadIdx.x;
        int hit = m < k.kind_first[kind + 1] && v.box[r.first[m]] == box;
        unsigned ballot = __ballot_sync(0xffffffffu, hit);
        if (lane == 0) warp_count[warp] = __popc(ballot);
        __syncthreads();
        int before = 0, total = 0;
        for (int w = 0; w < GIBBS_WARPS; w++) before += w < warp ? warp_count[w] : 0, total += warp_count[w];
        if (hit && before + __popc(ballot & ((1u << lane) - 1u)) == kth) *found = m;
        __syncthreads();
        if (kth < total) return *found;
        kth -= total;
    }
    return -1; /* not reached: the counts match the labels */
}

__device__ void transfer_molecule(const gibbs_consts &k, gibbs_chain_dev &c, const chain_view &v, const rigid_view &r,
                                  int n, unsigned long long step, const mc_gibbs_trial &t, double *old_pos,
                                  double *new_pos, double *warp_a, double *warp_b, int *warp_count, int *found)
{
    int kind = t.kind, src = t.source, dst = !src;
    int64_t n_src = c.count[src][kind], n_dst = c.count[dst][kind];
    c.transfers++;
    if (n_src == 0) return;
    int m = kth_molecule(k, v, r, kind, src, (long long)mc_rng_index(t.pick, (uint32_t)n_src), warp_count, found);
    int f0 = r.first[m], f1 = r.first[m + 1];
    double centre[3], len_src = c.box_len[src], len_dst = c.box_len[dst];
    mc_gibbs_insertion_point(k.seed, c.id, step, len_dst, centre);
    mc_quat q = mc_gibbs_orientation(k.seed, c.id, step);
    stage_sites(v, r, f0, f1, centre, q, len_dst, old_pos, new_pos);
    double removed = 0.0, inserted = 0.0;
    molecule_pairs(k, v, r, n, f0, f1, src, len_src, old_pos, NULL, &removed, NULL);
    molecule_pairs(k, v, r, n, f0, f1, dst, len_dst, new_pos, NULL, &inserted, NULL);
    block_sum2(&removed, &inserted, warp_a, warp_b);
    double v_src = len_src * len_src * len_src, v_dst = len_dst * len_dst * len_dst;
    double tail = -mc_gibbs_tail(k.tail, k.nkinds, c.count[src], v_src) - mc_gibbs_tail(k.tail, k.nkinds, c.count[dst], v_dst);
    c.count[src][kind]--, c.count[dst][kind]++;
    tail += mc_gibbs_tail(k.tail, k.nkinds, c.count[src], v_src) + mc_gibbs_tail(k.tail, k.nkinds, c.count[dst], v_dst);
    double cost = mc_gibbs_transfer_cost(inserted - removed + tail, 1.0 / c.beta, (double)n_src, (double)n_dst, v_src, v_dst);
    if (!mc_metropolis_accept(cost, c.beta, k.seed, c.id, step)) {
        c.count[src][kind]++, c.count[dst][kind]--;
        return;
    }
    store_molecule(v, r, k.nmol, m, f0, f1, centre, q, new_pos, dst);
    c.energy[src] -= removed;
    c.energy[dst] += inserted;
    c.accepted++;
    c.transfers_accepted++;
}

__device__ void exchange_volume_molecules(const gibbs_consts &k, gibbs_chain_dev &c, const chain_view &v,
                                          const rigid_view &r, int n, unsigned long long step, const mc_gibbs_trial &t,
                                          double *warp_a, double *warp_b)
{
    double vol[2], vol_new[2], len_new[2], scale[2];
    c.volume_moves++;
    for (int b = 0; b < 2; b++) vol[b] = c.box_len[b] * c.box_len[b] * c.box_len[b];
    mc_gibbs_new_volumes(vol[0], k.volume, t.log_ratio, &vol_new[0], &vol_new[1]);
    for (int b = 0; b < 2; b++) len_new[b] = cbrt(vol_new[b]), scale[b] = len_new[b] / c.box_len[b];
    if (len_new[0] < k.min_box_len || len_new[1] < k.min_box_len) {
        c.floor_hits += c.production;
        return;
    }
    int nmol = k.nmol;
    double *tx = r.trial, *ty = tx + n, *tz = ty + n, *tc = tz + n; /* sites, then centres [3][nmol] */
    for (int m = threadIdx.x; m < nmol; m += blockDim.x) {
        int b = v.box[r.first[m]];
        double s = scale[b], l = len_new[b];
        double centre[3] = {mc_scale_coordinate(r.centre[m], s, l), mc_scale_coordinate(r.centre[nmol + m], s, l),
                            mc_scale_coordinate(r.centre[2 * nmol + m], s, l)};
        tc[m] = centre[0], tc[nmol + m] = centre[1], tc[2 * nmol + m] = centre[2];
        mc_quat q = quat_of(r, m);
        for (int i = r.first[m]; i < r.first[m + 1]; i++) {
            double site[3];
            mc_rigid_site(centre, q, &r.body[3 * i], l, site);
            tx[i] = site[0], ty[i] = site[1], tz[i] = site[2];
        }
    }
    __syncthreads();
    double e[2] = {0.0, 0.0};
    for (int i = threadIdx.x; i < n; i += blockDim.x) { /* site i with the later molecules' sites of its box */
        int b = v.box[i], a = r.species[i];
        double p[3] = {tx[i], ty[i], tz[i]};
        for (int j = r.first[r.site_mol[i] + 1]; j < n; j++) {
            if (v.box[j] != b) continue;
            int f = r.species[j];
            e[b] += mc_site_pair_energy(distance2(p, tx[j], ty[j], tz[j], len_new[b]), &k.pair[a][f], k.hard_core2[a][f]);
        }
    }
    block_sum2(&e[0], &e[1], warp_a, warp_b);
    if (!volume_accepted(k, c, vol, vol_new, e, step)) return;
    for (int i = threadIdx.x; i < n; i += blockDim.x) v.x[i] = tx[i], v.y[i] = ty[i], v.z[i] = tz[i];
    for (int j = threadIdx.x; j < 3 * nmol; j += blockDim.x) r.centre[j] = tc[j];
    volume_commit(c, len_new, e);
}

__global__ void __launch_bounds__(GIBBS_THREADS)
    gibbs_rigid_sweep_kernel(gibbs_chain_dev *chains, double *pos, unsigned char *boxes, gibbs_consts k, rigid_view r,
                             int n, long long moves, int staged)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double warp_a[GIBBS_WARPS], warp_b[GIBBS_WARPS], old_pos[3 * MC_MAX_SITES], new_pos[3 * MC_MAX_SITES];
    __shared__ int warp_count[GIBBS_WARPS], found;
    chain_view v = view_of(pos, boxes, n, staged, smem);
    r.centre += (size_t)blockIdx.x * 3 * k.nmol;
    r.quat += (size_t)blockIdx.x * 4 * k.nmol;
    r.trial += (size_t)blockIdx.x * (3 * (size_t)n + 3 * (size_t)k.nmol);
    gibbs_chain_dev c = chains[blockIdx.x]; /* every thread's own copy, updated alike */
    for (long long mv = 0; mv < moves; mv++) {
        unsigned long long step = c.step++;
        mc_gibbs_trial t = mc_gibbs_draw(k.seed, c.id, step, k.fraction, k.nkinds, c.max_volume_step);
        if (t.move == MC_GIBBS_DISPLACEMENT) move_molecule(k, c, v, r, n, step, old_pos, new_pos, warp_a, warp_b);
        else if (t.move == MC_GIBBS_TRANSFER)
            transfer_molecule(k, c, v, r, n, step, t, old_pos, new_pos, warp_a, warp_b, warp_count, &found);
        else exchange_volume_molecules(k, c, v, r, n, step, t, warp_a, warp_b);
        __syncthreads(); /* the move's writes are seen by the next */
    }
    if (threadIdx.x == 0) chains[blockIdx.x] = c;
    if (staged) write_back(v, pos, boxes, n);
}

/* Molecules: cpu_gibbs_rigid_measure's twin. Both boxes' intermolecular site-pair energies and
 * molecular virials into sums[chain][4]; with rdf, the site-pair counts of box liquid[chain] by
 * species pair and its centre pairs (the last row) added to rdf[chain][row][bin]. */
__global__ void __launch_bounds__(GIBBS_THREADS)
    gibbs_rigid_measure_kernel(const gibbs_chain_dev *chains, double *pos, unsigned char *boxes, gibbs_consts k,
                               rigid_view r, int n, double *sums, const int *liquid, unsigned long long *rdf)
{
    __shared__ double warp_a[GIBBS_WARPS], warp_b[GIBBS_WARPS];
    chain_view v = view_of(pos, boxes, n, 0, NULL);
    const gibbs_chain_dev &c = chains[blockIdx.x];
    int nmol = k.nmol, lb = rdf ? liquid[blockIdx.x] : -1;
    const double *cx = r.centre + (size_t)blockIdx.x * 3 * nmol, *cy = cx + nmol, *cz = cy + nmol;
    unsigned long long *hist = rdf ? rdf + (size_t)blockIdx.x * k.rdf_rows * k.rdf_bins : NULL;
    double e[2] = {0.0, 0.0}, w[2] = {0.0, 0.0}, rmax2 = k.rdf_rmax * k.rdf_rmax;
    for (int i = threadIdx.x; i < n; i += blockDim.x) { /* site i with the later molecules' sites of its box */
        int b = v.box[i], a = r.species[i], mi = r.site_mol[i];
        double len = c.box_len[b], half = 0.5 * len;
        for (int j = r.first[mi + 1]; j < n; j++) {
            if (v.box[j] != b) continue;
            int f = r.species[j], mj = r.site_mol[j];
            double dx = mc_min_image(v.x[i] - v.x[j], len, half), dy = mc_min_image(v.y[i] - v.y[j], len, half),
                   dz = mc_min_image(v.z[i] - v.z[j], len, half);
            double r2 = dx * dx + dy * dy + dz * dz;
            e[b] += mc_site_pair_energy(r2, &k.pair[a][f], k.hard_core2[a][f]);
            if (r2 > 0) {
                double Rx = mc_rigid_pair_image(mc_min_image(cx[mi] - cx[mj], len, half), dx, len),
                       Ry = mc_rigid_pair_image(mc_min_image(cy[mi] - cy[mj], len, half), dy, len),
                       Rz = mc_rigid_pair_image(mc_min_image(cz[mi] - cz[mj], len, half), dz, len);
                w[b] += pair_virial(r2, &k.pair[a][f]) * (dx * Rx + dy * Ry + dz * Rz) / r2;
            }
            if (b == lb && r2 < rmax2) {
                int bin = (int)(sqrt(r2) / k.rdf_dr);
                if (bin < k.rdf_bins) atomicAdd(&hist[(size_t)mc_pair_index(a, f, k.nspecies) * k.rdf_bins + bin], 1ull);
            }
        }
    }
    block_sum2(&e[0], &e[1], warp_a, warp_b);
    block_sum2(&w[0], &w[1], warp_a, warp_b);
    if (threadIdx.x == 0) {
        double *out = sums + 4 * (size_t)blockIdx.x;
        out[0] = e[0], out[1] = e[1], out[2] = w[0], out[3] = w[1];
    }
    if (lb < 0) return;
    double len = c.box_len[lb], half = 0.5 * len;
    unsigned long long *row = hist + (size_t)(k.rdf_rows - 1) * k.rdf_bins; /* the centres' */
    for (int m = threadIdx.x; m < nmol; m += blockDim.x) {
        if (v.box[r.first[m]] != lb) continue;
        for (int l = m + 1; l < nmol; l++) {
            if (v.box[r.first[l]] != lb) continue;
            double dx = mc_min_image(cx[m] - cx[l], len, half), dy = mc_min_image(cy[m] - cy[l], len, half),
                   dz = mc_min_image(cz[m] - cz[l], len, half);
            double d = sqrt(dx * dx + dy * dy + dz * dz);
            int bin = (int)(d / k.rdf_dr);
            if (d < k.rdf_rmax && bin < k.rdf_bins) atomicAdd(&row[bin], 1ull);
        }
    }
}

/* Molecules: cpu_gibbs_rigid_insertion_sum's twin, `insertions` test molecules of `type` (nsites
 * sites of species[s] at body[s] from the centre) into box box_of[chain]. */
__global__ void __launch_bounds__(GIBBS_THREADS)
    gibbs_rigid_insertion_kernel(const gibbs_chain_dev *chains, double *pos, unsigned char *boxes, gibbs_consts k,
                                 rigid_view r, int n, const double *body, const int *species, int nsites,
                                 const int *box_of, int type, int insertions, long long draw, double *sums)
{
    __shared__ double warp_a[GIBBS_WARPS], warp_b[GIBBS_WARPS], site[3 * MC_MAX_SITES];
    chain_view v = view_of(pos, boxes, n, 0, NULL);
    const gibbs_chain_dev &c = chains[blockIdx.x];
    int b = box_of[blockIdx.x];
    double len = c.box_len[b], volume = len * len * len, sum = 0.0;
    double tail = mc_gibbs_insertion_tail(k.tail, k.nkinds, c.count[b], type, volume);
    for (int m = 0; m < insertions; m++) {
        if (threadIdx.x < nsites) {
            double centre[3];
            mc_widom_position(k.seed, c.id, (uint64_t)draw, (uint32_t)insertions, (uint32_t)m, len, &centre[0],
                              &centre[1], &centre[2]);
            mc_quat q = mc_widom_orientation(k.seed, c.id, (uint64_t)draw, (uint32_t)insertions, (uint32_t)m);
            mc_rigid_site(centre, q, &body[3 * threadIdx.x], len, &site[3 * threadIdx.x]);
        }
        __syncthreads();
        double e = 0.0, unused = 0.0;
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            if (v.box[j] != b) continue;
            int f = r.species[j];
            for (int s = 0; s < nsites; s++)
                e += mc_site_pair_energy(distance2(&site[3 * s], v.x[j], v.y[j], v.z[j], len), &k.pair[species[s]][f],
                                         k.hard_core2[species[s]][f]);
        }
        block_sum2(&e, &unused, warp_a, warp_b); /* ends synchronised: site[] may be placed again */
        sum += exp(-c.beta * (e + tail));
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = sum * volume / (double)(c.count[b][type] + 1);
}

/* The molecule tables and states as the kernels take them (the per-chain arrays at chain 0). */
static rigid_view rigid_of(const cu_gibbs *g)
{
    rigid_view r = {g->d_first, g->d_site_mol, g->d_species, g->d_body, g->d_centre, g->d_quat, g->d_trial};
    return r;
}

const void *cu_gibbs_rigid_sweep_kernel(void) { return (const void *)gibbs_rigid_sweep_kernel; }

int cu_gibbs_rigid_sweep(cu_gibbs *g, long nsweeps, mc_err *err)
{
    gibbs_rigid_sweep_kernel<<<g->nchains, GIBBS_THREADS, g->smem>>>(g->d_chains, g->d_pos, g->d_box, g->k, rigid_of(g), g->n,
                                                                   (long long)nsweeps * g->k.nmol, g->smem > 0);
    CU_LAUNCHED(err);
    return MC_OK;
}

int cu_gibbs_rigid_measure(cu_gibbs *g, int add_rdf, mc_err *err)
{
    gibbs_rigid_measure_kernel<<<g->nchains, GIBBS_THREADS>>>(g->d_chains, g->d_pos, g->d_box, g->k, rigid_of(g),
                                                              g->n, g->d_sums, g->d_liquid, add_rdf ? g->d_rdf : NULL);
    CU_LAUNCHED(err);
    return MC_OK;
}

int cu_gibbs_rigid_insertion(cu_gibbs *g, int t, int insertions, long draw, mc_err *err)
{
    const mc_plan *p = g->plan;
    gibbs_rigid_insertion_kernel<<<g->nchains, GIBBS_THREADS>>>(
        g->d_chains, g->d_pos, g->d_box, g->k, rigid_of(g), g->n, g->d_type_body + (size_t)t * 3 * MC_MAX_SITES,
        g->d_type_species + (size_t)t * MC_MAX_SITES, p->mol.type[t].nsites, g->d_liquid, t, insertions,
        (long long)draw, g->d_sums);
    CU_LAUNCHED(err);
    return MC_OK;
}

/* Molecules: the tables and every chain's centres and orientations on the device, the trial scratch,
 * and the host's measurement scratch. 0 (err set) on failure, g left to its creator to destroy
 * (cu_gibbs_create), so that this file calls nothing of cu_gibbs.cu's. */
#undef GIBBS_ALLOC
#define GIBBS_ALLOC(call, what) GIBBS_ALLOC_OR(call, what, (void)0)
cu_gibbs *cu_gibbs_upload_molecules(cu_gibbs *g, mc_err *err)
{
    const mc_plan *plan = g->plan;
    const mc_molecules *mol = &plan->mol;
    int nchains = g->nchains;
    size_t n = (size_t)g->n, M = (size_t)plan->nmol, C = (size_t)nchains;
    double type_body[MC_MAX_MOLTYPES][MC_MAX_SITES][3];
    int type_species[MC_MAX_MOLTYPES][MC_MAX_SITES];
    memset(type_body, 0, sizeof type_body), memset(type_species, 0, sizeof type_species);
    for (int t = 0; t < mol->ntypes; t++) {
        memcpy(type_body[t], mol->type[t].body, sizeof type_body[t]);
        memcpy(type_species[t], mol->type[t].species, sizeof type_species[t]);
    }
    GIBBS_ALLOC(cudaMalloc(&g->d_first, (M + 1) * sizeof *g->d_first), "molecule tables");
    GIBBS_ALLOC(cudaMalloc(&g->d_site_mol, n * sizeof *g->d_site_mol), "molecule tables");
    GIBBS_ALLOC(cudaMalloc(&g->d_species, n), "molecule tables");
    GIBBS_ALLOC(cudaMalloc(&g->d_body, 3 * n * sizeof *g->d_body), "molecule tables");
    GIBBS_ALLOC(cudaMalloc(&g->d_centre, C * 3 * M * sizeof *g->d_centre), "centres");
    GIBBS_ALLOC(cudaMallocHost(&g->h_centre, C * 3 * M * sizeof *g->h_centre), "centres");
    GIBBS_ALLOC(cudaMalloc(&g->d_quat, C * 4 * M * sizeof *g->d_quat), "orientations");
    GIBBS_ALLOC(cudaMallocHost(&g->h_quat, C * 4 * M * sizeof *g->h_quat), "orientations");
    GIBBS_ALLOC(cudaMalloc(&g->d_trial, C * 3 * (n + M) * sizeof *g->d_trial), "trial volumes");
    GIBBS_ALLOC(cudaMalloc(&g->d_type_body, sizeof type_body), "molecule types");
    GIBBS_ALLOC(cudaMalloc(&g->d_type_species, sizeof type_species), "molecule types");
    unsigned char *species = (unsigned char *)malloc(n); /* after the allocations, which return on failure */
    if (!species) {
        mc_err_set(err, MC_ENOMEM, "out of memory for the Gibbs molecules' tables");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) species[i] = (unsigned char)mol->site_species[i];
    for (size_t c = 0; c < C; c++) {
        const mc_chain *ch = g->chains[c];
        double *p = g->h_centre + c * 3 * M;
        memcpy(p, ch->cx, M * sizeof *p), memcpy(p + M, ch->cy, M * sizeof *p), memcpy(p + 2 * M, ch->cz, M * sizeof *p);
        memcpy(g->h_quat + c * 4 * M, ch->q, 4 * M * sizeof *ch->q);
    }
    cudaError_t up = cudaMemcpy(g->d_first, mol->first, (M + 1) * sizeof *g->d_first, cudaMemcpyHostToDevice);
    if (up == cudaSuccess) up = cudaMemcpy(g->d_site_mol, mol->site_mol, n * sizeof *g->d_site_mol, cudaMemcpyHostToDevice);
    if (up == cudaSuccess) up = cudaMemcpy(g->d_species, species, n, cudaMemcpyHostToDevice);
    if (up == cudaSuccess) up = cudaMemcpy(g->d_body, mol->site_body, 3 * n * sizeof *g->d_body, cudaMemcpyHostToDevice);
    if (up == cudaSuccess) up = cudaMemcpy(g->d_centre, g->h_centre, C * 3 * M * sizeof *g->d_centre, cudaMemcpyHostToDevice);
    if (up == cudaSuccess) up = cudaMemcpy(g->d_quat, g->h_quat, C * 4 * M * sizeof *g->d_quat, cudaMemcpyHostToDevice);
    if (up == cudaSuccess) up = cudaMemcpy(g->d_type_body, type_body, sizeof type_body, cudaMemcpyHostToDevice);
    if (up == cudaSuccess) up = cudaMemcpy(g->d_type_species, type_species, sizeof type_species, cudaMemcpyHostToDevice);
    free(species);
    if (up != cudaSuccess) {
        mc_err_set(err, MC_ECUDA, "cannot copy the Gibbs molecules to the GPU: %s", cudaGetErrorString(up));
        return NULL;
    }
    return g;
}
