/* cu_cells_grid: each large chain's cell grid for cu_cells.cu's path: built from the host's
 * positions, sorted, rebuilt and freed; and the chain's energy, virial, RDF and Widom insertions
 * measured through it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cu_backend.h"
#include "cu_check.h"
#include "cu_cell_grid.cuh"
#include "cu_kernels.cuh"
#include "mc_move.h"

enum { MEASURE_CELL_THREADS = 256, WIDOM_WARPS = 8 /* a test position a warp */ };

/* Grid g's lists from one chain's host positions, in index order: the same lists every run. */
template <typename real>
static int build_cells(cu_cells_dev *g, const real *pos, int n, double box_len, mc_err *err)
{
    int m = g->m;
    size_t ncells = (size_t)m * m * m;
    int *count = (int *)calloc(ncells, sizeof(int)), *slot = (int *)malloc(ncells * g->cap * sizeof(int));
    int *cell_of = (int *)malloc(n * sizeof(int)), *slot_of = (int *)malloc(n * sizeof(int));
    int rc = count && slot && cell_of && slot_of ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory");
    real inv_w = (real)m / (real)box_len;
    for (int i = 0; rc == MC_OK && i < n; i++) {
        int c = cell_index(pos[i], pos[n + i], pos[2 * n + i], inv_w, m);
        if (count[c] == g->cap) rc = mc_err_set(err, MC_ECHECK, "more than %d particles in one cell", g->cap);
        else cell_of[i] = c, slot_of[i] = count[c], slot[c * g->cap + count[c]++] = i;
    }
    if (rc == MC_OK &&
        (cudaMemcpy(g->count, count, ncells * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess ||
         cudaMemcpy(g->slot, slot, ncells * g->cap * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess ||
         cudaMemcpy(g->cell_of, cell_of, n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess ||
         cudaMemcpy(g->slot_of, slot_of, n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess))
        rc = mc_err_set(err, MC_ECUDA, "copying the cell lists to the GPU failed");
    free(count), free(slot), free(cell_of), free(slot_of);
    return rc;
}

/* One thread per cell (of every chain's grid): its members in ascending index, the order
 * build_cells gives. Moves leave a cell's members in arrival order, and the energies summed over
 * them would carry that history in their last bits; sorted at every round's end, the lists are
 * those a restart from a checkpoint builds, so a restarted run takes the same course bit for bit
 * (t/restart.sh). */
__global__ void sort_cells_kernel(cu_cells_dev g, int ncells, int nchains, int n)
{
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= (long long)ncells * nchains) return;
    int *s = g.slot + (size_t)c * g.cap, count = g.count[c];
    int *slot_of = g.slot_of + (size_t)(c / ncells) * n;
    for (int a = 1; a < count; a++) { /* a few dozen members: insertion sort */
        int v = s[a], b = a - 1;
        for (; b >= 0 && s[b] > v; b--) s[b + 1] = s[b];
        s[b + 1] = v;
    }
    for (int a = 0; a < count; a++) slot_of[s[a]] = a;
}

int cu_cells_sort_lists(const cu_cells_dev *g, int nchains, int n, mc_err *err)
{
    int ncells = g->m * g->m * g->m;
    long long threads = (long long)ncells * nchains;
    sort_cells_kernel<<<(unsigned)((threads + 255) / 256), 256>>>(*g, ncells, nchains, n);
    CU_LAUNCHED(err);
    return MC_OK;
}

static void free_grid(cu_cells_dev *g)
{
    cudaFree(g->count), cudaFree(g->slot), cudaFree(g->cell_of), cudaFree(g->slot_of);
    cudaFree(g->trials), cudaFree(g->overflow);
    memset(g, 0, sizeof *g);
}

/* Cells per edge for a box: at least a cutoff wide, at least 4 per edge (else 0: all pairs pay
 * better), and no more than about 8 per particle, beyond which wider cells only hold empty lists. */
static int grid_edge(int n, double box_len, double cutoff)
{
    int m = isfinite(cutoff) ? (int)floor(box_len / cutoff) : 0;
    if (m > (int)cbrt(8.0 * n)) m = (int)cbrt(8.0 * n);
    return m < 4 ? 0 : m;
}

/* Chain c's grid for its box, built from its slice of host_pos. */
static int setup_grid(cu_view *v, int c, const void *host_pos, double box_len, double cutoff, mc_err *err)
{
    cu_cells_dev *g = &v->cells_of[c];
    free_grid(g);
    int m = grid_edge(v->n, box_len, cutoff);
    if (!m) return MC_OK;
    double per_cell = (double)v->n / ((double)m * m * m);
    g->m = m, g->cutoff = cutoff;
    g->cap = (int)(4 * per_cell) + 32; /* room for density fluctuations; overflow is detected */
    size_t ncells = (size_t)m * m * m, real_size = v->single ? sizeof(float) : sizeof(double);
    CU_TRY(cudaMalloc(&g->count, ncells * sizeof(int)), err);
    CU_TRY(cudaMalloc(&g->slot, ncells * g->cap * sizeof(int)), err);
    CU_TRY(cudaMalloc(&g->cell_of, v->n * sizeof(int)), err);
    CU_TRY(cudaMalloc(&g->slot_of, v->n * sizeof(int)), err);
    /* sized for the largest batch, whatever K the caller settles on after this */
    CU_TRY(cudaMalloc(&g->trials, cu_cells_trials_bytes(real_size)), err);
    CU_TRY(cudaMalloc(&g->overflow, sizeof(int)), err);
    CU_TRY(cudaMemset(g->overflow, 0, sizeof(int)), err);
    const char *slice = (const char *)host_pos + (size_t)c * 3 * v->n * real_size;
    return v->single ? build_cells(g, (const float *)slice, v->n, box_len, err)
                     : build_cells(g, (const double *)slice, v->n, box_len, err);
}

int cu_cells_setup(cu_view *v, const void *host_pos, const double *box_len, double cutoff, mc_err *err)
{
    int any = 0;
    for (int c = 0; c < v->nchains; c++) any |= grid_edge(v->n, box_len[c], cutoff) > 0;
    if (!any) return MC_OK;
    if (!(v->cells_of = (cu_cells_dev *)calloc(v->nchains, sizeof *v->cells_of)))
        MC_FAIL(err, MC_ENOMEM, "out of host memory for the cell lists");
    for (int c = 0; c < v->nchains; c++) MC_TRY(setup_grid(v, c, host_pos, box_len[c], cutoff, err));
    return MC_OK;
}

int cu_cells_rebuild(cu_view *v, int c, const void *host_pos, double box_len, double cutoff, mc_err *err)
{
    return setup_grid(v, c, host_pos, box_len, cutoff, err);
}

void cu_cells_free(cu_view *v)
{
    for (int c = 0; v->cells_of && c < v->nchains; c++) free_grid(&v->cells_of[c]);
    free(v->cells_of);
    v->cells_of = NULL;
}

cu_view cu_chain_view(const cu_view *v, int c)
{
    cu_view one = *v;
    size_t real_size = v->single ? sizeof(float) : sizeof(double);
    one.nchains = 1;
    one.chains = v->chains + c;
    one.pos = (char *)v->pos + (size_t)c * 3 * v->n * real_size;
    one.cells_of = NULL;
    memset(&one.cells, 0, sizeof one.cells);
    if (v->cells_of && v->cells_of[c].m) one.cells = v->cells_of[c], one.batch_trials = v->cells_trials;
    return one;
}

int cu_cells_overflowed(const cu_view *v, mc_err *err)
{
    int overflow = 0;
    CU_TRY(cudaMemcpy(&overflow, v->cells.overflow, sizeof overflow, cudaMemcpyDeviceToHost), err);
    if (overflow)
        MC_FAIL(err, MC_ECHECK, "a GPU cell list exceeded its capacity of %d particles", v->cells.cap);
    return MC_OK;
}

size_t cu_cells_scratch(const cu_view *v)
{
    return 2 * (size_t)((v->n + MEASURE_CELL_THREADS - 1) / MEASURE_CELL_THREADS);
}

/* Thread i: pairs (i, j > i) in the 27 cells around i; per-block partials, added on the host. */
template <typename real>
__global__ void __launch_bounds__(MEASURE_CELL_THREADS)
    measure_cells_kernel(const cu_chain_dev *cd, const real *pos, int n, cu_cells_dev g,
                         typename prec<real>::params lj, double *partial, unsigned long long *rdf,
                         int bins, double rdf_rmax2, double rdf_dr)
{
    __shared__ double red[2][32];
    const real box = (real)cd->box;
    const real *x = pos, *y = pos + n, *z = pos + 2 * n;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double e = 0.0, w = 0.0;
    if (i < n) {
        int home = g.cell_of[i];
        for (int k = 0; k < 27; k++) {
            int c = neighbour_cell(home, k, g.m);
            for (int s = 0; s < g.count[c]; s++) {
                int j = g.slot[(size_t)c * g.cap + s];
                if (j <= i) continue;
                cu_measure_pair(cu_dist2(x[i], y[i], z[i], x[j], y[j], z[j], box), lj, &e, &w,
                                rdf, bins, rdf_rmax2, rdf_dr);
            }
        }
    }
    double etot = cu_block_sum(e, red[0]), wtot = cu_block_sum(w, red[1]);
    if (threadIdx.x == 0) partial[2 * blockIdx.x] = etot, partial[2 * blockIdx.x + 1] = wtot;
}

int cu_measure_cells(const cu_view *v, double *energy, double *virial, unsigned long long *rdf,
                     int bins, double rdf_rmax, double rdf_dr, mc_err *err)
{
    int nb = (v->n + MEASURE_CELL_THREADS - 1) / MEASURE_CELL_THREADS;
    if (v->single)
        measure_cells_kernel<float><<<nb, MEASURE_CELL_THREADS>>>(
            v->chains, (const float *)v->pos, v->n, v->cells, prec<float>::make(v->pair), v->partial,
            rdf, bins, rdf_rmax * rdf_rmax, rdf_dr);
    else
        measure_cells_kernel<double><<<nb, MEASURE_CELL_THREADS>>>(
            v->chains, (const double *)v->pos, v->n, v->cells, prec<double>::make(v->pair),
            v->partial, rdf, bins, rdf_rmax * rdf_rmax, rdf_dr);
    CU_LAUNCHED(err);
    CU_TRY(cudaMemcpy(v->partial_host, v->partial, 2 * nb * sizeof(double), cudaMemcpyDeviceToHost), err);
    energy[0] = virial[0] = 0.0;
    for (int b = 0; b < nb; b++) energy[0] += v->partial_host[2 * b], virial[0] += v->partial_host[2 * b + 1];
    return MC_OK;
}

/* Widom insertion through the cells: one warp per test position, exp(-beta dU) per insertion. */
template <typename real>
__global__ void __launch_bounds__(32 * WIDOM_WARPS)
    widom_cells_kernel(const cu_chain_dev *cd, const real *pos, int n, cu_cells_dev g,
                       typename prec<real>::params lj, unsigned long long seed, int insertions,
                       unsigned long long sample, double *out)
{
    const int lane = threadIdx.x & 31, i = blockIdx.x * WIDOM_WARPS + (threadIdx.x >> 5);
    if (i >= insertions) return;
    const real box = (real)cd->box;
    double px, py, pz;
    mc_widom_position(seed, cd->id, sample, (uint32_t)insertions, (uint32_t)i, cd->box, &px, &py, &pz);
    double e = lane < 27 ? cells_energy(g, pos, n, -1, (real)px, (real)py, (real)pz, box, lane, 32, lj)
                         : 0.0;
    for (int off = 16; off > 0; off >>= 1) e += __shfl_down_sync(0xffffffffu, e, off);
    if (lane == 0) out[i] = exp(-cd->beta * e);
}

int cu_widom_cells(const cu_view *v, int insertions, long sample, double *sums, mc_err *err)
{
    int blocks = (insertions + WIDOM_WARPS - 1) / WIDOM_WARPS;
    if (v->single)
        widom_cells_kernel<float><<<blocks, 32 * WIDOM_WARPS>>>(v->chains, (const float *)v->pos, v->n,
                                                             v->cells, prec<float>::make(v->pair),
                                                             v->seed, insertions, sample, v->partial);
    else
        widom_cells_kernel<double><<<blocks, 32 * WIDOM_WARPS>>>(v->chains, (const double *)v->pos, v->n,
                                                              v->cells, prec<double>::make(v->pair),
                                                              v->seed, insertions, sample, v->partial);
    CU_LAUNCHED(err);
    CU_TRY(cudaMemcpy(v->partial_host, v->partial, insertions * sizeof(double), cudaMemcpyDeviceToHost), err);
    sums[0] = 0.0;
    for (int i = 0; i < insertions; i++) sums[0] += v->partial_host[i]; /* insertion order */
    return MC_OK;
}
