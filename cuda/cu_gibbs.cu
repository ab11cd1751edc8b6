/* cu_gibbs: Gibbs-ensemble chains on the GPU (mc_gibbs.h), under the CPU backend's contract
 * (cpu_gibbs.c): after `moves` trial moves a chain is the CPU chain, draw for draw. One resident
 * block per chain, its positions and box labels staged in shared memory where they fit. Every
 * thread draws the step's move itself (the same Philox block) and keeps its own copy of the
 * chain's scalars (boxes, counts, energies, counters), which all threads update alike from the same
 * block-wide sums, so no decision is broadcast; thread 0 alone writes a moved particle. A sum over
 * particles is each thread's share, then the warps' partials in a fixed order: deterministic. All
 * arithmetic is double, built with -fmad=false (Makefile.am) so that a displaced or inserted
 * coordinate is the CPU's number to the bit; sums differ from the CPU's only in their order, and a
 * volume exchange's new edges in the last bits of CUDA's exp, log and cbrt against glibc's (about
 * 1e-14: t/gpu_parity.c checks equal decisions, energies to 1e-10 and boxes to 1e-12).
 *
 * A displacement or transfer evaluates its particle against all n of the chain with the other
 * box's masked, as on the CPU; a volume exchange recomputes both boxes (each particle with the later
 * ones of its box, at the scaled coordinates). Measurements, the liquid box's RDF and the test
 * insertions for the chemical potentials run on the device as well; the host adds the RDF norms.
 * Molecules (cpu_gibbs_rigid.c's twin) have kernels of their own in cu_gibbs_rigid.cu, in the same
 * pattern; the drivers here launch them for a rigid plan. Grand-canonical chains (mc_gcmc.h) are
 * this path with box 1 the absent slots: insertions and deletions in the sweep kernel, their
 * collection rows, energy sums and visits in device arrays that travel with the scalars around
 * each sweep (the host updates the bias between sweeps, as on the CPU). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cu_gibbs.cuh"
#include "mc_gcmc.h"
#include "tmmc.h"


__device__ int kth_in_box(const gibbs_consts &k, const chain_view &v, int a, int box, long long kth, int *warp_count,
                          int *found);

/* gcmc: the k-th present particle (box 0) over all species in index order (cpu_gibbs.c's kth_of_box). */
__device__ int kth_present(const gibbs_consts &k, const gibbs_chain_dev &c, const chain_view &v, long long kth,
                           int *warp_count, int *found)
{
    for (int a = 0; a < k.nspecies; a++) {
        if (kth < c.count[0][a]) return kth_in_box(k, v, a, 0, kth, warp_count, found);
        kth -= c.count[0][a];
    }
    return -1; /* not reached: the counts match the labels */
}

/* A particle drawn over all n (Gibbs) or over the present ones (OPEN, gcmc: none present, nothing
 * moves), displaced within its box. */
template <bool OPEN>
__device__ void displace(const gibbs_consts &k, gibbs_chain_dev &c, const chain_view &v, int n, unsigned long long step,
                         double *warp_a, double *warp_b, int *warp_count, int *found)
{
    long long among = n;
    if (OPEN) {
        among = 0;
        for (int a = 0; a < k.nkinds; a++) among += c.count[0][a];
        if (among == 0) return;
    }
    mc_trial t = mc_trial_draw(k.seed, c.id, step, (uint32_t)among, 1.0);
    int i = OPEN ? kth_present(k, c, v, (long long)t.particle, warp_count, found) : (int)t.particle;
    int b = v.box[i], a = mc_species_block(k.first, k.nspecies, i);
    double len = c.box_len[b], max = mc_box_step(c.max_displacement, len);
    double old[3] = {v.x[i], v.y[i], v.z[i]};
    double now[3] = {mc_wrap(old[0] + t.dx * max, len), mc_wrap(old[1] + t.dy * max, len),
                     mc_wrap(old[2] + t.dz * max, len)};
    double e_new = 0.0, e_old = 0.0;
    for (int s = 0; s < k.nspecies; s++)
        for (int j = k.first[s] + threadIdx.x; j < k.first[s + 1]; j += blockDim.x) {
            if (v.box[j] != b || j == i) continue;
            e_new += pair_energy(distance2(now, v.x[j], v.y[j], v.z[j], len), &k.pair[a][s]);
            e_old += pair_energy(distance2(old, v.x[j], v.y[j], v.z[j], len), &k.pair[a][s]);
        }
    block_sum2(&e_new, &e_old, warp_a, warp_b);
    double dE = e_new - e_old;
    if (!mc_metropolis_accept(dE, c.beta, k.seed, c.id, step)) return;
    if (threadIdx.x == 0) v.x[i] = now[0], v.y[i] = now[1], v.z[i] = now[2];
    c.energy[b] += dE;
    c.accepted++;
}

/* The index of the k-th particle (from 0, in index order) of species a in box `box`: chunks of the
 * species block, each counted by ballots; every thread returns the same index. */
__device__ int kth_in_box(const gibbs_consts &k, const chain_view &v, int a, int box, long long kth, int *warp_count,
                          int *found)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int base = k.first[a]; base < k.first[a + 1]; base += blockDim.x) {
        int j = base + threadIdx.x;
        int hit = j < k.first[a + 1] && v.box[j] == box;
        unsigned ballot = __ballot_sync(0xffffffffu, hit);
        if (lane == 0) warp_count[warp] = __popc(ballot);
        __syncthreads();
        int before = 0, total = 0;
        for (int w = 0; w < GIBBS_WARPS; w++) before += w < warp ? warp_count[w] : 0, total += warp_count[w];
        if (hit && before + __popc(ballot & ((1u << lane) - 1u)) == kth) *found = j;
        __syncthreads();
        if (kth < total) return *found;
        kth -= total;
    }
    return -1; /* not reached: the counts match the labels */
}

__device__ void transfer(const gibbs_consts &k, gibbs_chain_dev &c, const chain_view &v, unsigned long long step,
                         const mc_gibbs_trial &t, double *warp_a, double *warp_b, int *warp_count, int *found)
{
    int a = t.kind, src = t.source, dst = !src;
    int64_t n_src = c.count[src][a], n_dst = c.count[dst][a];
    c.transfers++;
    if (n_src == 0) return;
    int i = kth_in_box(k, v, a, src, (long long)mc_rng_index(t.pick, (uint32_t)n_src), warp_count, found);
    double old[3] = {v.x[i], v.y[i], v.z[i]}, now[3];
    mc_gibbs_insertion_point(k.seed, c.id, step, c.box_len[dst], now);
    double len_src = c.box_len[src], len_dst = c.box_len[dst];
    double v_src = len_src * len_src * len_src, v_dst = len_dst * len_dst * len_dst;
    double removed = 0.0, inserted = 0.0;
    for (int s = 0; s < k.nspecies; s++)
        for (int j = k.first[s] + threadIdx.x; j < k.first[s + 1]; j += blockDim.x) {
            if (j == i) continue;
            if (v.box[j] == src) removed += pair_energy(distance2(old, v.x[j], v.y[j], v.z[j], len_src), &k.pair[a][s]);
            else inserted += pair_energy(distance2(now, v.x[j], v.y[j], v.z[j], len_dst), &k.pair[a][s]);
        }
    block_sum2(&removed, &inserted, warp_a, warp_b);
    double tail = -mc_gibbs_tail(k.tail, k.nkinds, c.count[src], v_src) - mc_gibbs_tail(k.tail, k.nkinds, c.count[dst], v_dst);
    c.count[src][a]--, c.count[dst][a]++;
    tail += mc_gibbs_tail(k.tail, k.nkinds, c.count[src], v_src) + mc_gibbs_tail(k.tail, k.nkinds, c.count[dst], v_dst);
    double cost = mc_gibbs_transfer_cost(inserted - removed + tail, 1.0 / c.beta, (double)n_src, (double)n_dst, v_src, v_dst);
    if (!mc_metropolis_accept(cost, c.beta, k.seed, c.id, step)) {
        c.count[src][a]++, c.count[dst][a]--;
        return;
    }
    if (threadIdx.x == 0) v.box[i] = (unsigned char)dst, v.x[i] = now[0], v.y[i] = now[1], v.z[i] = now[2];
    c.energy[src] -= removed;
    c.energy[dst] += inserted;
    c.accepted++;
    c.transfers_accepted++;
}

/* gcmc: an insertion (a transfer out of box 1, the absent slots) or a deletion of a particle of kind
 * t.kind, cpu_gibbs.c's insert_or_delete: its unbiased acceptance collected in the row of N (thread 0
 * writes it), then taken with the bias where the window allows the new N. */
__device__ void insert_or_delete(const gibbs_consts &k, gibbs_chain_dev &c, const chain_view &v, const tmmc_dev &tm,
                                 unsigned long long step, const mc_gibbs_trial &t, double *warp_a, double *warp_b,
                                 int *warp_count, int *found)
{
    const int a = t.kind, insertion = t.source == 1;
    const int64_t n_kind = c.count[0][a];
    int64_t N = 0, fewer[MC_MAX_SPECIES];
    for (int q = 0; q < k.nkinds; q++) N += c.count[0][q], fewer[q] = c.count[0][q] - (q == a && !insertion);
    const double len = c.box_len[0], volume = len * len * len;
    double *row = tm.rows + ((size_t)blockIdx.x * k.nmacro + (size_t)(N - k.n_lo)) * TMMC_ROW;
    c.transfers++;
    if (!insertion && n_kind == 0) { /* nothing to delete: a deletion that cannot be accepted */
        if (threadIdx.x == 0) tmmc_collect(row, TMMC_DOWN, 0.0);
        return;
    }
    const double tail = mc_gibbs_insertion_tail(k.tail, k.nkinds, fewer, a, volume);
    int i = -1;
    double pt[3], pair = 0.0, unused = 0.0;
    if (insertion) {
        mc_gibbs_insertion_point(k.seed, c.id, step, len, pt);
    } else {
        i = kth_in_box(k, v, a, 0, (long long)mc_rng_index(t.pick, (uint32_t)n_kind), warp_count, found);
        pt[0] = v.x[i], pt[1] = v.y[i], pt[2] = v.z[i];
    }
    for (int s = 0; s < k.nspecies; s++)
        for (int j = k.first[s] + threadIdx.x; j < k.first[s + 1]; j += blockDim.x)
            if (v.box[j] == 0 && j != i) pair += pair_energy(distance2(pt, v.x[j], v.y[j], v.z[j], len), &k.pair[a][s]);
    block_sum2(&pair, &unused, warp_a, warp_b);
    const double lnz = c.lnz + k.kind_lnz[a]; /* mc_gcmc_lnz: the same sum */
    double log_ratio = insertion ? mc_gcmc_insertion_log_ratio(pair + tail, c.beta, lnz, volume, (double)n_kind)
                                 : mc_gcmc_deletion_log_ratio(-(pair + tail), c.beta, lnz, volume, (double)n_kind);
    if (threadIdx.x == 0) tmmc_collect(row, insertion ? TMMC_UP : TMMC_DOWN, mc_gcmc_probability(log_ratio));
    const int64_t to = N + (insertion ? 1 : -1);
    if (to < c.window_lo || to > c.window_hi) return; /* the window's edge: collected, not taken */
    if (k.bias) log_ratio += tmmc_bias(tm.bias + (size_t)blockIdx.x * k.nmacro, (int)(N - k.n_lo), (int)(to - k.n_lo));
    if (!mc_gcmc_accept(log_ratio, k.seed, c.id, step)) return;
    if (insertion) i = kth_in_box(k, v, a, 1, 0, warp_count, found); /* the lowest absent slot of the kind */
    if (threadIdx.x == 0) {
        v.box[i] = (unsigned char)!insertion;
        if (insertion) v.x[i] = pt[0], v.y[i] = pt[1], v.z[i] = pt[2];
    }
    c.count[0][a] += insertion ? 1 : -1;
    c.count[1][a] -= insertion ? 1 : -1;
    c.energy[0] += insertion ? pair : -pair;
    c.accepted++;
    c.transfers_accepted++;
}

/* gcmc: after every trial move, the total energy (tail included) into the sums of the chain's N
 * (thread 0; cpu_gibbs.c's record_macrostate). */
__device__ void record_macrostate(const gibbs_consts &k, const gibbs_chain_dev &c, const tmmc_dev &tm)
{
    if (threadIdx.x != 0) return;
    int64_t N = 0;
    for (int q = 0; q < k.nkinds; q++) N += c.count[0][q];
    const double len = c.box_len[0];
    size_t at = (size_t)blockIdx.x * k.nmacro + (size_t)(N - k.n_lo);
    tm.energy[at] += c.energy[0] + mc_gibbs_tail(k.tail, k.nkinds, c.count[0], len * len * len);
    tm.visits[at]++;
}

/* Both boxes' pair energies with every coordinate of box b scaled by scale[b] into a box of edge
 * len[b] (scale 1: as they are), and with virial the virials too: particle i with the later
 * particles of its box. out: energy 0, energy 1 (virial 0, virial 1 in out_w). */
__device__ void box_sums(const gibbs_consts &k, const chain_view &v, int n, const double *scale, const double *len,
                         int virial, double *out, double *out_w, double *warp_a, double *warp_b)
{
    double e[2] = {0.0, 0.0}, w[2] = {0.0, 0.0};
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        int b = v.box[i], a = mc_species_block(k.first, k.nspecies, i);
        if (k.open && b == 1) continue; /* gcmc: absent slots */
        double s = scale[b], l = len[b];
        /* s = 1 (a measurement): mc_scale_coordinate gives x itself, x being in [0, l) */
        double p[3] = {mc_scale_coordinate(v.x[i], s, l), mc_scale_coordinate(v.y[i], s, l),
                       mc_scale_coordinate(v.z[i], s, l)};
        for (int j = i + 1; j < n; j++) {
            if (v.box[j] != b) continue;
            double r2 = distance2(p, mc_scale_coordinate(v.x[j], s, l), mc_scale_coordinate(v.y[j], s, l),
                                  mc_scale_coordinate(v.z[j], s, l), l);
            const pair_params *pp = &k.pair[a][mc_species_block(k.first, k.nspecies, j)];
            e[b] += pair_energy(r2, pp);
            if (virial) w[b] += pair_virial(r2, pp);
        }
    }
    block_sum2(&e[0], &e[1], warp_a, warp_b);
    out[0] = e[0], out[1] = e[1];
    if (!virial) return;
    block_sum2(&w[0], &w[1], warp_a, warp_b);
    out_w[0] = w[0], out_w[1] = w[1];
}

__device__ void exchange_volume(const gibbs_consts &k, gibbs_chain_dev &c, const chain_view &v, int n,
                                unsigned long long step, const mc_gibbs_trial &t, double *warp_a, double *warp_b)
{
    double vol[2], vol_new[2], len_new[2], scale[2], energy_new[2];
    c.volume_moves++;
    for (int b = 0; b < 2; b++) vol[b] = c.box_len[b] * c.box_len[b] * c.box_len[b];
    mc_gibbs_new_volumes(vol[0], k.volume, t.log_ratio, &vol_new[0], &vol_new[1]);
    for (int b = 0; b < 2; b++) len_new[b] = cbrt(vol_new[b]);
    if (len_new[0] < k.min_box_len || len_new[1] < k.min_box_len) {
        c.floor_hits += c.production;
        return;
    }
    for (int b = 0; b < 2; b++) scale[b] = len_new[b] / c.box_len[b];
    box_sums(k, v, n, scale, len_new, 0, energy_new, NULL, warp_a, warp_b);
    if (!volume_accepted(k, c, vol, vol_new, energy_new, step)) return;
    for (int i = threadIdx.x; i < n; i += blockDim.x) { /* the same function as the trial: the same numbers */
        int b = v.box[i];
        v.x[i] = mc_scale_coordinate(v.x[i], scale[b], len_new[b]);
        v.y[i] = mc_scale_coordinate(v.y[i], scale[b], len_new[b]);
        v.z[i] = mc_scale_coordinate(v.z[i], scale[b], len_new[b]);
    }
    volume_commit(c, len_new, energy_new);
}


/* OPEN: gcmc chains (k.open), compiled apart so that the Gibbs ensemble's kernel carries none of the
 * insertions, deletions and collection (with them it ran 2.6% slower on an H200, mcens-bench case 5) */
template <bool OPEN>
__global__ void __launch_bounds__(GIBBS_THREADS)
    gibbs_sweep_kernel(gibbs_chain_dev *chains, double *pos, unsigned char *boxes, gibbs_consts k, int n,
                       long long moves, int staged, tmmc_dev tm)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double warp_a[GIBBS_WARPS], warp_b[GIBBS_WARPS];
    __shared__ int warp_count[GIBBS_WARPS], found;
    chain_view v = view_of(pos, boxes, n, staged, smem);
    gibbs_chain_dev c = chains[blockIdx.x]; /* every thread's own copy, updated alike */
    for (long long mv = 0; mv < moves; mv++) {
        unsigned long long step = c.step++;
        mc_gibbs_trial t = mc_gibbs_draw(k.seed, c.id, step, k.fraction, k.nkinds, c.max_volume_step);
        if (t.move == MC_GIBBS_DISPLACEMENT) displace<OPEN>(k, c, v, n, step, warp_a, warp_b, warp_count, &found);
        else if (t.move == MC_GIBBS_TRANSFER && OPEN) insert_or_delete(k, c, v, tm, step, t, warp_a, warp_b, warp_count, &found);
        else if (t.move == MC_GIBBS_TRANSFER) transfer(k, c, v, step, t, warp_a, warp_b, warp_count, &found);
        else if (!OPEN) exchange_volume(k, c, v, n, step, t, warp_a, warp_b);
        if (OPEN) record_macrostate(k, c, tm);
        __syncthreads(); /* the move's writes are seen by the next */
    }
    if (threadIdx.x == 0) chains[blockIdx.x] = c;
    if (staged) write_back(v, pos, boxes, n);
}


/* Energies and virials of both boxes into sums[chain][4]; with rdf, the pair counts of box
 * liquid[chain] added to rdf[chain][species pair][bin]. */
__global__ void __launch_bounds__(GIBBS_THREADS)
    gibbs_measure_kernel(const gibbs_chain_dev *chains, double *pos, unsigned char *boxes, gibbs_consts k, int n,
                         double *sums, const int *liquid, unsigned long long *rdf)
{
    __shared__ double warp_a[GIBBS_WARPS], warp_b[GIBBS_WARPS];
    chain_view v = view_of(pos, boxes, n, 0, NULL);
    const gibbs_chain_dev &c = chains[blockIdx.x];
    double one[2] = {1.0, 1.0}, len[2] = {c.box_len[0], c.box_len[1]}, e[2], w[2];
    box_sums(k, v, n, one, len, 1, e, w, warp_a, warp_b);
    if (threadIdx.x == 0) {
        double *out = sums + 4 * (size_t)blockIdx.x;
        out[0] = e[0], out[1] = e[1], out[2] = w[0], out[3] = w[1];
    }
    if (!rdf) return;
    int b = liquid[blockIdx.x];
    double l = len[b], rmax2 = k.rdf_rmax * k.rdf_rmax;
    unsigned long long *hist = rdf + (size_t)blockIdx.x * k.rdf_rows * k.rdf_bins;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        if (v.box[i] != b) continue;
        int a = mc_species_block(k.first, k.nspecies, i);
        double p[3] = {v.x[i], v.y[i], v.z[i]};
        for (int j = i + 1; j < n; j++) {
            if (v.box[j] != b) continue;
            double r2 = distance2(p, v.x[j], v.y[j], v.z[j], l);
            if (r2 >= rmax2) continue;
            int bin = (int)(sqrt(r2) / k.rdf_dr);
            int s = mc_species_block(k.first, k.nspecies, j);
            int q = mc_pair_index(a, s, k.nspecies);
            if (bin < k.rdf_bins) atomicAdd(&hist[(size_t)q * k.rdf_bins + bin], 1ull);
        }
    }
}

/* cpu_gibbs_insertion_sum: `insertions` test particles of species a into box box_of[chain]. */
__global__ void __launch_bounds__(GIBBS_THREADS)
    gibbs_insertion_kernel(const gibbs_chain_dev *chains, double *pos, unsigned char *boxes, gibbs_consts k, int n,
                           const int *box_of, int a, int insertions, long long draw, double *sums)
{
    __shared__ double warp_a[GIBBS_WARPS], warp_b[GIBBS_WARPS];
    chain_view v = view_of(pos, boxes, n, 0, NULL);
    const gibbs_chain_dev &c = chains[blockIdx.x];
    int b = box_of[blockIdx.x];
    double len = c.box_len[b], volume = len * len * len, sum = 0.0;
    double tail = mc_gibbs_insertion_tail(k.tail, k.nkinds, c.count[b], a, volume);
    for (int m = 0; m < insertions; m++) {
        double p[3], e = 0.0, unused = 0.0;
        mc_widom_position(k.seed, c.id, (uint64_t)draw, (uint32_t)insertions, (uint32_t)m, len, &p[0], &p[1], &p[2]);
        for (int s = 0; s < k.nspecies; s++)
            for (int j = k.first[s] + threadIdx.x; j < k.first[s + 1]; j += blockDim.x)
                if (v.box[j] == b) e += pair_energy(distance2(p, v.x[j], v.y[j], v.z[j], len), &k.pair[a][s]);
        block_sum2(&e, &unused, warp_a, warp_b);
        sum += exp(-c.beta * (e + tail));
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = sum * volume / (double)(c.count[b][a] + 1);
}

void cu_gibbs_destroy(cu_gibbs *g)
{
    if (!g) return;
    cudaFree(g->d_chains), cudaFree(g->d_pos), cudaFree(g->d_box), cudaFree(g->d_sums), cudaFree(g->d_liquid),
        cudaFree(g->d_rdf);
    cudaFreeHost(g->h_chains), cudaFreeHost(g->h_pos), cudaFreeHost(g->h_box), cudaFreeHost(g->h_sums),
        cudaFreeHost(g->h_liquid), cudaFreeHost(g->h_rdf);
    cudaFree(g->d_first), cudaFree(g->d_site_mol), cudaFree(g->d_species), cudaFree(g->d_body), cudaFree(g->d_centre),
        cudaFree(g->d_quat), cudaFree(g->d_trial);
    cudaFree(g->d_type_body), cudaFree(g->d_type_species);
    cudaFreeHost(g->h_centre), cudaFreeHost(g->h_quat);
    cudaFree(g->d_tmmc.rows), cudaFree(g->d_tmmc.bias), cudaFree(g->d_tmmc.energy), cudaFree(g->d_tmmc.visits);
    cudaFreeHost(g->h_tmmc.rows), cudaFreeHost(g->h_tmmc.bias), cudaFreeHost(g->h_tmmc.energy),
        cudaFreeHost(g->h_tmmc.visits);
    free(g);
}

/* gcmc: every chain's transition-matrix record between the host chains and the device through the
 * pinned mirror: up (1) before a sweep, since the host updates the bias and restarts the collection
 * between sweeps; down (0) after it. */
static int move_tmmc(cu_gibbs *g, int up, mc_err *err)
{
    const size_t M = (size_t)g->k.nmacro, C = (size_t)g->nchains;
    const struct { void *d, *h; size_t bytes; int member; } part[] = {
        {g->d_tmmc.rows, g->h_tmmc.rows, TMMC_ROW * M * sizeof(double), 0},
        {g->d_tmmc.bias, g->h_tmmc.bias, M * sizeof(double), 1},
        {g->d_tmmc.energy, g->h_tmmc.energy, M * sizeof(double), 2},
        {g->d_tmmc.visits, g->h_tmmc.visits, M * sizeof(unsigned long long), 3},
    };
    for (int q = 0; q < 4; q++) {
        if (!up) CU_TRY(cudaMemcpy(part[q].h, part[q].d, C * part[q].bytes, cudaMemcpyDeviceToHost), err);
        for (size_t c = 0; c < C; c++) {
            mc_chain *ch = g->chains[c];
            void *host[] = {ch->tmmc_c, ch->tmmc_bias, ch->tmmc_energy, ch->tmmc_visits};
            char *mirror = (char *)part[q].h + c * part[q].bytes;
            if (up) memcpy(mirror, host[part[q].member], part[q].bytes);
            else memcpy(host[part[q].member], mirror, part[q].bytes);
        }
        if (up) CU_TRY(cudaMemcpy(part[q].d, part[q].h, C * part[q].bytes, cudaMemcpyHostToDevice), err);
    }
    return MC_OK;
}

/* The host chains' scalars into the device mirror (the run driver adapts the steps and starts
 * production between sweeps). */
static int upload_scalars(cu_gibbs *g, mc_err *err)
{
    const mc_plan *p = g->plan;
    for (int c = 0; c < g->nchains; c++) {
        const mc_chain *ch = g->chains[c];
        gibbs_chain_dev *d = &g->h_chains[c];
        for (int b = 0; b < 2; b++) {
            d->box_len[b] = ch->gibbs_box_len[b], d->energy[b] = ch->gibbs_energy[b];
            for (int a = 0; a < MC_MAX_SPECIES; a++) d->count[b][a] = ch->gibbs_count[b][a];
        }
        d->beta = ch->beta, d->max_displacement = ch->max_displacement, d->max_volume_step = ch->max_volume_step;
        d->max_rotation = ch->max_rotation, d->rotations = ch->rotations, d->rotations_accepted = ch->rotations_accepted;
        d->step = ch->step, d->accepted = ch->accepted, d->transfers = ch->transfers;
        d->transfers_accepted = ch->transfers_accepted, d->volume_moves = ch->volume_moves;
        d->volume_accepted = ch->volume_accepted, d->floor_hits = ch->production_volume_floor_hits;
        d->id = (unsigned int)ch->id;
        d->production = mc_chain_in_production(p, ch);
        if (p->ensemble->open) d->lnz = p->statepoint[ch->statepoint].lnz, mc_gcmc_window(p, ch->id, &d->window_lo, &d->window_hi);
    }
    CU_TRY(cudaMemcpy(g->d_chains, g->h_chains, (size_t)g->nchains * sizeof *g->d_chains, cudaMemcpyHostToDevice), err);
    return p->ensemble->open ? move_tmmc(g, 1, err) : MC_OK;
}

static int download_scalars(cu_gibbs *g, mc_err *err)
{
    CU_TRY(cudaMemcpy(g->h_chains, g->d_chains, (size_t)g->nchains * sizeof *g->d_chains, cudaMemcpyDeviceToHost), err);
    for (int c = 0; c < g->nchains; c++) {
        mc_chain *ch = g->chains[c];
        const gibbs_chain_dev *d = &g->h_chains[c];
        for (int b = 0; b < 2; b++) {
            ch->gibbs_box_len[b] = d->box_len[b], ch->gibbs_energy[b] = d->energy[b];
            for (int a = 0; a < MC_MAX_SPECIES; a++) ch->gibbs_count[b][a] = d->count[b][a];
        }
        ch->energy_pair = d->energy[0] + d->energy[1];
        ch->step = d->step, ch->accepted = d->accepted, ch->transfers = d->transfers;
        ch->transfers_accepted = d->transfers_accepted, ch->volume_moves = d->volume_moves;
        ch->volume_accepted = d->volume_accepted, ch->production_volume_floor_hits = d->floor_hits;
        ch->rotations = d->rotations, ch->rotations_accepted = d->rotations_accepted;
    }
    return g->plan->ensemble->open ? move_tmmc(g, 0, err) : MC_OK;
}

int cu_gibbs_fetch(cu_gibbs *g, mc_err *err)
{
    size_t n = (size_t)g->n;
    CU_TRY(cudaMemcpy(g->h_pos, g->d_pos, (size_t)g->nchains * 3 * n * sizeof *g->h_pos, cudaMemcpyDeviceToHost), err);
    CU_TRY(cudaMemcpy(g->h_box, g->d_box, (size_t)g->nchains * n, cudaMemcpyDeviceToHost), err);
    for (int c = 0; c < g->nchains; c++) {
        mc_chain *ch = g->chains[c];
        const double *p = g->h_pos + (size_t)c * 3 * n;
        memcpy(ch->x, p, n * sizeof *p), memcpy(ch->y, p + n, n * sizeof *p), memcpy(ch->z, p + 2 * n, n * sizeof *p);
        for (size_t i = 0; i < n; i++) ch->in_box[i] = g->h_box[(size_t)c * n + i];
    }
    if (g->plan->rigid) { /* centres and orientations */
        size_t M = (size_t)g->plan->nmol;
        CU_TRY(cudaMemcpy(g->h_centre, g->d_centre, (size_t)g->nchains * 3 * M * sizeof *g->h_centre, cudaMemcpyDeviceToHost), err);
        CU_TRY(cudaMemcpy(g->h_quat, g->d_quat, (size_t)g->nchains * 4 * M * sizeof *g->h_quat, cudaMemcpyDeviceToHost), err);
        for (int c = 0; c < g->nchains; c++) {
            mc_chain *ch = g->chains[c];
            const double *p = g->h_centre + (size_t)c * 3 * M;
            memcpy(ch->cx, p, M * sizeof *p), memcpy(ch->cy, p + M, M * sizeof *p), memcpy(ch->cz, p + 2 * M, M * sizeof *p);
            memcpy(ch->q, g->h_quat + (size_t)c * 4 * M, 4 * M * sizeof *ch->q);
        }
    }
    return MC_OK;
}

int cu_gibbs_sweep(cu_gibbs *g, long nsweeps, mc_err *err)
{
    MC_TRY(upload_scalars(g, err));
    if (g->plan->rigid) {
        MC_TRY(cu_gibbs_rigid_sweep(g, nsweeps, err));
    } else {
        const long long moves = (long long)nsweeps * (g->k.open ? g->plan->tmmc_n_max : g->n);
        if (g->k.open)
            gibbs_sweep_kernel<true><<<g->nchains, GIBBS_THREADS, g->smem>>>(g->d_chains, g->d_pos, g->d_box, g->k, g->n,
                                                                            moves, g->smem > 0, g->d_tmmc);
        else
            gibbs_sweep_kernel<false><<<g->nchains, GIBBS_THREADS, g->smem>>>(g->d_chains, g->d_pos, g->d_box, g->k,
                                                                             g->n, moves, g->smem > 0, g->d_tmmc);
        CU_LAUNCHED(err);
    }
    return download_scalars(g, err);
}

int cu_gibbs_measure(cu_gibbs *g, int add_rdf, mc_measurement *out, mc_err *err)
{
    const mc_plan *p = g->plan;
    size_t rdf_len = (size_t)g->nchains * g->k.rdf_rows * g->k.rdf_bins;
    for (int c = 0; add_rdf && c < g->nchains; c++) /* gcmc: the box; box 1 holds the absent slots */
        g->h_liquid[c] = p->ensemble->open ? 0 : mc_gibbs_liquid_box(p, g->chains[c]);
    if (add_rdf) {
        CU_TRY(cudaMemcpy(g->d_liquid, g->h_liquid, (size_t)g->nchains * sizeof *g->d_liquid, cudaMemcpyHostToDevice), err);
        CU_TRY(cudaMemset(g->d_rdf, 0, rdf_len * sizeof *g->d_rdf), err);
    }
    if (p->rigid) {
        MC_TRY(cu_gibbs_rigid_measure(g, add_rdf, err));
    } else {
        gibbs_measure_kernel<<<g->nchains, GIBBS_THREADS>>>(g->d_chains, g->d_pos, g->d_box, g->k, g->n, g->d_sums,
                                                            g->d_liquid, add_rdf ? g->d_rdf : NULL);
        CU_LAUNCHED(err);
    }
    CU_TRY(cudaMemcpy(g->h_sums, g->d_sums, 4 * (size_t)g->nchains * sizeof *g->h_sums, cudaMemcpyDeviceToHost), err);
    if (add_rdf) CU_TRY(cudaMemcpy(g->h_rdf, g->d_rdf, rdf_len * sizeof *g->h_rdf, cudaMemcpyDeviceToHost), err);
    size_t per_chain = (size_t)g->k.rdf_rows * g->k.rdf_bins;
    for (int c = 0; c < g->nchains; c++) {
        mc_chain *ch = g->chains[c];
        const double *s = g->h_sums + 4 * (size_t)c;
        out[c].energy_pair_running = ch->energy_pair;
        out[c].energy_pair = s[0] + s[1], out[c].virial_pair = s[2] + s[3];
        for (int b = 0; b < 2; b++) {
            out[c].box_energy[b] = s[b], out[c].box_virial[b] = s[2 + b];
            out[c].box_energy_running[b] = ch->gibbs_energy[b];
            ch->gibbs_energy[b] = s[b]; /* restart the running sums from the exact values */
        }
        ch->energy_pair = out[c].energy_pair;
        if (!add_rdf) continue;
        for (size_t q = 0; q < per_chain; q++) ch->rdf_counts[q] += g->h_rdf[(size_t)c * per_chain + q];
        mc_gibbs_add_rdf_norm(p, ch, g->h_liquid[c]);
    }
    return MC_OK;
}

int cu_gibbs_insertion(cu_gibbs *g, int kind, int insertions, long draw, double *sums, mc_err *err)
{
    const mc_plan *p = g->plan;
    int ns = p->nkinds;
    for (int c = 0; c < g->nchains; c++) { /* the box of the kind's phase, as cpu_gibbs_insertion_sum takes it */
        int liquid = mc_gibbs_liquid_box(p, g->chains[c]);
        g->h_liquid[c] = kind / ns == 0 ? liquid : !liquid;
    }
    CU_TRY(cudaMemcpy(g->d_liquid, g->h_liquid, (size_t)g->nchains * sizeof *g->d_liquid, cudaMemcpyHostToDevice), err);
    int t = kind % ns;
    if (p->rigid) {
        MC_TRY(cu_gibbs_rigid_insertion(g, t, insertions, draw, err));
    } else {
        gibbs_insertion_kernel<<<g->nchains, GIBBS_THREADS>>>(g->d_chains, g->d_pos, g->d_box, g->k, g->n, g->d_liquid, t,
                                                              insertions, (long long)draw, g->d_sums);
        CU_LAUNCHED(err);
    }
    CU_TRY(cudaMemcpy(g->h_sums, g->d_sums, (size_t)g->nchains * sizeof *g->h_sums, cudaMemcpyDeviceToHost), err);
    memcpy(sums, g->h_sums, (size_t)g->nchains * sizeof *sums);
    return MC_OK;
}

cu_gibbs *cu_gibbs_create(const mc_plan *plan, mc_chain **chains, int nchains, mc_err *err)
{
    cu_gibbs *g = (cu_gibbs *)calloc(1, sizeof *g);
    if (!g) return mc_err_set(err, MC_ENOMEM, "out of memory for the GPU's Gibbs chains"), (cu_gibbs *)NULL;
    g->plan = plan, g->chains = chains, g->nchains = nchains, g->n = plan->n;
    gibbs_consts *k = &g->k;
    memcpy(k->pair, plan->species.pair, sizeof k->pair);
    memcpy(k->tail, plan->kind_tail, sizeof k->tail);
    memcpy(k->fraction, plan->move_fraction, sizeof k->fraction);
    memcpy(k->first, plan->species.first, sizeof k->first);
    k->volume = plan->total_volume, k->min_box_len = plan->min_box_len;
    k->rdf_rmax = plan->rdf_rmax, k->rdf_dr = plan->rdf_dr, k->rdf_bins = plan->rdf_bins;
    k->nspecies = plan->species.n, k->nkinds = plan->nkinds, k->rdf_rows = mc_chain_rdf_rows(plan), k->seed = plan->seed;
    memcpy(k->kind_first, plan->kind_first, sizeof k->kind_first);
    memcpy(k->hard_core2, plan->mol.hard_core2, sizeof k->hard_core2);
    k->nmol = plan->nmol;
    k->open = plan->ensemble->open, k->bias = plan->tmmc_bias;
    k->n_lo = plan->tmmc_n_min, k->nmacro = plan->ensemble->open ? mc_gcmc_macrostates(plan) : 0;
    memcpy(k->kind_lnz, plan->kind_lnz, sizeof k->kind_lnz);
    size_t n = (size_t)g->n, C = (size_t)nchains, rdf_len = C * k->rdf_rows * k->rdf_bins;
    GIBBS_ALLOC(cudaMalloc(&g->d_chains, C * sizeof *g->d_chains), "chain states");
    GIBBS_ALLOC(cudaMallocHost(&g->h_chains, C * sizeof *g->h_chains), "chain states");
    GIBBS_ALLOC(cudaMalloc(&g->d_pos, C * 3 * n * sizeof *g->d_pos), "positions");
    GIBBS_ALLOC(cudaMallocHost(&g->h_pos, C * 3 * n * sizeof *g->h_pos), "positions");
    GIBBS_ALLOC(cudaMalloc(&g->d_box, C * n), "box labels");
    GIBBS_ALLOC(cudaMallocHost(&g->h_box, C * n), "box labels");
    GIBBS_ALLOC(cudaMalloc(&g->d_sums, 4 * C * sizeof *g->d_sums), "sums");
    GIBBS_ALLOC(cudaMallocHost(&g->h_sums, 4 * C * sizeof *g->h_sums), "sums");
    GIBBS_ALLOC(cudaMalloc(&g->d_liquid, C * sizeof *g->d_liquid), "box choices");
    GIBBS_ALLOC(cudaMallocHost(&g->h_liquid, C * sizeof *g->h_liquid), "box choices");
    GIBBS_ALLOC(cudaMalloc(&g->d_rdf, rdf_len * sizeof *g->d_rdf), "RDF counts");
    GIBBS_ALLOC(cudaMallocHost(&g->h_rdf, rdf_len * sizeof *g->h_rdf), "RDF counts");
    if (k->open) {
        size_t M = (size_t)k->nmacro;
        GIBBS_ALLOC(cudaMalloc(&g->d_tmmc.rows, C * TMMC_ROW * M * sizeof(double)), "collection matrices");
        GIBBS_ALLOC(cudaMallocHost(&g->h_tmmc.rows, C * TMMC_ROW * M * sizeof(double)), "collection matrices");
        GIBBS_ALLOC(cudaMalloc(&g->d_tmmc.bias, C * M * sizeof(double)), "biases");
        GIBBS_ALLOC(cudaMallocHost(&g->h_tmmc.bias, C * M * sizeof(double)), "biases");
        GIBBS_ALLOC(cudaMalloc(&g->d_tmmc.energy, C * M * sizeof(double)), "energy sums");
        GIBBS_ALLOC(cudaMallocHost(&g->h_tmmc.energy, C * M * sizeof(double)), "energy sums");
        GIBBS_ALLOC(cudaMalloc(&g->d_tmmc.visits, C * M * sizeof(unsigned long long)), "visits");
        GIBBS_ALLOC(cudaMallocHost(&g->h_tmmc.visits, C * M * sizeof(unsigned long long)), "visits");
    }
    if (plan->rigid && !cu_gibbs_upload_molecules(g, err)) {
        cu_gibbs_destroy(g);
        return NULL;
    }
    for (size_t c = 0; c < C; c++) {
        double *p = g->h_pos + c * 3 * n;
        memcpy(p, chains[c]->x, n * sizeof *p), memcpy(p + n, chains[c]->y, n * sizeof *p);
        memcpy(p + 2 * n, chains[c]->z, n * sizeof *p);
        for (size_t i = 0; i < n; i++) g->h_box[c * n + i] = (unsigned char)chains[c]->in_box[i];
    }
    int rc = MC_OK;
    cudaError_t up = cudaMemcpy(g->d_pos, g->h_pos, C * 3 * n * sizeof *g->d_pos, cudaMemcpyHostToDevice);
    if (up == cudaSuccess) up = cudaMemcpy(g->d_box, g->h_box, C * n, cudaMemcpyHostToDevice);
    if (up != cudaSuccess) rc = mc_err_set(err, MC_ECUDA, "cannot copy the Gibbs chains to the GPU: %s", cudaGetErrorString(up));
    /* positions and labels in shared memory where they fit beside the sweep kernel's static arrays */
    int device = 0, optin = 0;
    size_t want = 3 * n * sizeof(double) + n;
    cudaFuncAttributes fa;
    const void *sweep = plan->rigid             ? cu_gibbs_rigid_sweep_kernel()
                        : plan->ensemble->open ? (const void *)gibbs_sweep_kernel<true>
                                               : (const void *)gibbs_sweep_kernel<false>;
    if (rc == MC_OK && (up = cudaFuncGetAttributes(&fa, sweep)) != cudaSuccess)
        rc = mc_err_set(err, MC_ECUDA, "cannot read the Gibbs kernel's attributes: %s", cudaGetErrorString(up));
    if (rc == MC_OK && cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) == cudaSuccess &&
        want + fa.sharedSizeBytes <= (size_t)optin) {
        g->smem = want;
        up = cudaFuncSetAttribute(sweep, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)want);
        if (up != cudaSuccess) rc = mc_err_set(err, MC_ECUDA, "cannot set the Gibbs kernel's shared memory: %s", cudaGetErrorString(up));
    }
    mc_measurement *m = rc == MC_OK ? (mc_measurement *)calloc(C, sizeof *m) : NULL;
    if (rc == MC_OK && !m) rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (rc == MC_OK) rc = upload_scalars(g, err); /* then a sweep's download keeps the mirror current */
    if (rc == MC_OK) rc = cu_gibbs_measure(g, 0, m, err); /* the running energies start exact */
    free(m);
    if (rc != MC_OK) {
        cu_gibbs_destroy(g);
        return NULL;
    }
    return g;
}

