/* cu_cells: the large-chain path with a cutoff, one chain at a time, each on its own grid. Like
 * cu_sweep_batched it evaluates K consecutive trial moves at once and accepts them so that the
 * chain is exactly the sequential one, but every energy runs over the 27 cells around a position,
 * and trials are decided in parallel wherever they cannot interact:
 *  draws: one block draws the K trials, each particle's previous trial in the batch and
 *     multiplicity (cu_repeats.cuh): cells_draw_kernel for the first batch of a round of batches,
 *     cells_decide_kernel of the batch before for every other (a kernel boundary fewer per batch).
 *  energies (cells_trial_energy_kernel): ENERGY_WARPS_PER_TRIAL warps per trial (half at its new
 *     position, half at its old) sum its energy change over the cells (batch-start configuration)
 *     and list the earlier trials it may interact with: any whose particle's batch-start position
 *     is within rc + sqrt(3) max_disp (mult_k + mult_m), the farthest the two particles can reach
 *     within the batch; every other pair's correction is exactly zero.
 *  decisions (cells_decide_kernel): one block decides the trials in waves over those lists, each
 *     trial once every trial it depends on is decided; a trial whose particle already moved in the
 *     batch recomputes its energy change from its true old position. A trial whose corrections
 *     meet a pair term beyond CU_CANCEL_LIMIT kT ends the batch before it: the next batch starts
 *     with it, against a start configuration that is the present one (no correction, so nothing
 *     to cancel), and the host runs batches until every move is made. Positions are written and
 *     cell lists updated at the end, in a deterministic order.
 * Cells hold particle indices in slots; moving between cells swaps with the last slot. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cu_backend.h"
#include "cu_check.h"
#include "cu_cell_grid.cuh"
#include "cu_kernels.cuh"
#include "cu_launch.cuh"
#include "cu_repeats.cuh"
#include "mc_move.h"

/* The energy kernel's warps per trial: half sum its energy at the new position, half at the old,
 * each taking every (ENERGY_WARPS_PER_TRIAL / 2)-th group of four of a cell's members; -D to
 * measure others (2: one warp a position). */
#ifndef ENERGY_WARPS_PER_TRIAL
#define ENERGY_WARPS_PER_TRIAL 4
#endif
/* The energy kernel's second __launch_bounds__ argument, resident blocks an SM, that is, a
 * register cap of 64: room for single precision without spills (nvcc's own choice, 0, spilled);
 * -D to measure others */
#ifndef ENERGY_MIN_BLOCKS
#define ENERGY_MIN_BLOCKS 4
#endif
enum { MAXC = 32, ENERGY_WARPS = 8, MAX_CELL_CHANGES = 256 };
enum { ENERGY_PARTS = ENERGY_WARPS_PER_TRIAL / 2, ENERGY_TRIALS_PER_BLOCK = ENERGY_WARPS / ENERGY_WARPS_PER_TRIAL };
static_assert(ENERGY_PARTS >= 1 && ENERGY_TRIALS_PER_BLOCK >= 1 && ENERGY_WARPS % ENERGY_WARPS_PER_TRIAL == 0, "the energy kernel's shape");
static_assert(CU_MAX_BATCH_TRIALS <= 32 * 32, "the energy kernel lists a trial's conflicts from one warp's ballots");
/* The grid around a trial as its batch starts, read by the energy kernel while its sums run and
 * used by the decide kernel's cell moves: the particle's cell, its slot there, that cell's count
 * and last member; the drawn new position's cell and its count. Random loads from the grid are
 * slow, and in the decide kernel's one block they would be a chain of four at the batch's end. */
enum { G_HOME, G_SLOT, G_COUNT, G_LAST, G_NEW_CELL, G_NEW_COUNT, GRID_FIELDS };

/* The trial table of one batch, carved out of cells.trials: batches use two in turn, so that the
 * energy kernel of a batch can write the next one's draws while the decide kernel still reads this
 * one's. A trial's several values of one kind lie K apart ([3][K], [MAXC][K], ...): the decide
 * kernel's and the draws' threads, a trial each, then read and write them coalesced. */
struct tables {
    int K;                               /* trials the table holds: the stride below */
    int *p, *prev, *mult, *nconf, *conf; /* conf: [MAXC][K], ascending; nconf > MAXC: all earlier */
    int *grid;                           /* [GRID_FIELDS][K]: read ahead by the energy kernel for the decide kernel */
    double *threshold, *base, *d;        /* d: displacement [3][K] */
    double *base2;                       /* second occurrence of a particle: dE if the first moved */
    void *a, *b;                         /* real [3][K]: batch-start old position, drawn new one */
    unsigned long long *undecided;       /* trials the decide kernel left to later batches this round: both tables' */
};

/* Trial k's value i of a [n][K] table. */
template <typename T> __device__ inline T &entry(T *table, const tables &t, int i, int k)
{
    return table[(size_t)i * t.K + k];
}

static size_t align256(size_t x) { return (x + 255) / 256 * 256; }

/* cells.trials: the undecided count, padded to TRIALS_HEAD bytes, then the two tables */
enum { TRIALS_HEAD = 256 };

/* Lays a table of K trials out from base on (NULL: only measures it) and returns its bytes, so
 * that the layout and the size cannot disagree. */
static size_t table_layout(int K, size_t real_size, char *base, tables *t)
{
    size_t at = 0;
    auto take = [&](size_t bytes) {
        char *p = base ? base + at : NULL;
        at += bytes;
        return p;
    };
    t->K = K;
    t->threshold = (double *)take(K * sizeof(double)); /* the doubles first: aligned */
    t->base = (double *)take(K * sizeof(double));
    t->d = (double *)take(3 * K * sizeof(double));
    t->base2 = (double *)take(K * sizeof(double));
    t->a = take(3 * K * real_size);
    t->b = take(3 * K * real_size);
    t->p = (int *)take(K * sizeof(int));
    t->prev = (int *)take(K * sizeof(int));
    t->mult = (int *)take(K * sizeof(int));
    t->nconf = (int *)take(K * sizeof(int));
    t->conf = (int *)take((size_t)K * MAXC * sizeof(int));
    t->grid = (int *)take((size_t)K * GRID_FIELDS * sizeof(int));
    return align256(at);
}

static size_t table_bytes(int K, size_t real_size)
{
    tables t;
    return table_layout(K, real_size, NULL, &t);
}

/* Table `which` (0 or 1) of cells.trials, for batches of K trials. */
static tables table_at(void *buf, int which, int K, size_t real_size)
{
    tables t;
    t.undecided = (unsigned long long *)buf;
    table_layout(K, real_size, (char *)buf + TRIALS_HEAD + which * table_bytes(K, real_size), &t);
    return t;
}

static size_t trials_bytes(int K, size_t real_size)
{
    return TRIALS_HEAD + 2 * table_bytes(K, real_size);
}

size_t cu_cells_trials_bytes(size_t real_size) { return trials_bytes(CU_MAX_BATCH_TRIALS, real_size); }

/* Trial m's positions in table t: from a, displaced by d. */
template <typename real>
__device__ void place_trial(const tables &t, int m, const real (&a)[3], const double (&d)[3], real box)
{
    for (int c = 0; c < 3; c++) {
        entry((real *)t.a, t, c, m) = a[c];
        entry((real *)t.b, t, c, m) = cu_displace(a[c], d[c], box);
    }
}

/* The draws of a batch of `trials` <= blockDim.x trials from move `step` on into table t, by the
 * whole block (barriers inside): each trial's particle (t.p and sp), then on_trial(trial), then each
 * particle's previous trial in the batch and multiplicity (t.prev, t.mult). Returns this thread's
 * particle (-1: no trial). sp: shared [blockDim.x] ints. */
template <typename on_drawn>
__device__ __forceinline__ int draw_trials(const cu_chain_dev *cd, unsigned long long step, int n, int trials,
                                           const tables &t, unsigned long long seed, int *sp, repeat_table &repeats,
                                           on_drawn on_trial)
{
    const int k = threadIdx.x;
    repeat_clear(repeats);
    __syncthreads();
    int p = -1, home = 0;
    if (k < trials) {
        const mc_trial tr = mc_trial_draw(seed, cd->id, step + k, (uint32_t)n, cd->max_displacement);
        p = (int)tr.particle;
        on_trial(tr);
        t.p[k] = sp[k] = p;
        home = repeat_register(repeats, k, p);
    }
    __syncthreads();
    if (k < trials) t.prev[k] = repeat_prev(repeats, sp, k, p, home, &t.mult[k]);
    return p;
}

/* A whole batch's draws (draw_trials), with each trial's displacement, threshold and positions
 * from the particles' positions now. */
template <typename real>
__device__ void draw_batch(const cu_chain_dev *cd, unsigned long long step, const real *pos, int n, int trials,
                           tables t, unsigned long long seed, int *sp, repeat_table &repeats)
{
    const int k = threadIdx.x;
    draw_trials(cd, step, n, trials, t, seed, sp, repeats, [&](const mc_trial &tr) {
        const int p = (int)tr.particle;
        const double d[3] = {tr.dx, tr.dy, tr.dz};
        real a[3];
        for (int c = 0; c < 3; c++) a[c] = pos[c * n + p], entry(t.d, t, c, k) = d[c];
        place_trial(t, k, a, d, (real)cd->box);
        t.threshold[k] = mc_accept_threshold(seed, cd->id, step + k);
    });
}

/* The decide kernel's part of the next batch's draws before its wait, while the energy kernel runs (by the whole
 * block, barriers inside): draw_trials with the displacements into table t; and the return value:
 * the latest trial of the next batch that moves this batch's trial's particle p (-1: none), where
 * a move of p in this batch puts that trial's start right. sp: shared [blockDim.x] ints, repeats:
 * a shared table, both free after. */
__device__ static int draw_ahead(const cu_chain_dev *cd, unsigned long long step, int n, int trials, tables t,
                                 unsigned long long seed, int p, int *sp, repeat_table &repeats)
{
    const int k = threadIdx.x;
    draw_trials(cd, step, n, trials, t, seed, sp, repeats, [&](const mc_trial &tr) {
        entry(t.d, t, 0, k) = tr.dx, entry(t.d, t, 1, k) = tr.dy, entry(t.d, t, 2, k) = tr.dz;
    });
    int link = -1;
    if (p >= 0)
        for (int e = repeat_home(p), m; (m = repeats.trial[e]) >= 0; e = (e + 1) & (REPEAT_SLOTS - 1))
            if (sp[m] == p) link = max(link, m);
    __syncthreads(); /* the table and sp read */
    return link;
}

/* The draws that the decide kernel made before its wait, finished after the batch before them (by the whole
 * block): the energy kernel put each particle's position as that batch started in t.a, so each trial's new
 * position follows, and a thread whose `moved` >= 0 (that batch's last move of its particle, to
 * `moved_to`) puts right the start of each next-batch trial from `link` back. */
template <typename real>
__device__ void finish_draws(const tables &t, int trials, real box, int moved, const real (&moved_to)[3], int link)
{
    const int k = threadIdx.x;
    if (k < trials)
        for (int c = 0; c < 3; c++)
            entry((real *)t.b, t, c, k) = cu_displace(entry((const real *)t.a, t, c, k), entry(t.d, t, c, k), box);
    __syncthreads(); /* the block's stores before the corrections' */
    if (moved >= 0) /* about one trial in a few batches */
        for (int m = link; m >= 0; m = t.prev[m]) {
            const double d[3] = {entry(t.d, t, 0, m), entry(t.d, t, 1, m), entry(t.d, t, 2, m)};
            place_trial(t, m, moved_to, d, box);
        }
}

/* The draw kernel: the draws of a round's first batch (the decide kernel draws those of the batches after it). */
template <typename real>
__global__ void __launch_bounds__(1024)
    cells_draw_kernel(const cu_chain_dev *cd, const real *pos, int n, int trials, tables t,
                      unsigned long long seed)
{
    cu_after_previous(); /* chained launches: nothing read before the last kernel ends */
    extern __shared__ int sp[]; /* [K] particle of each trial */
    __shared__ repeat_table repeats;
    draw_batch(cd, cd->step, pos, n, trials, t, seed, sp, repeats);
}

/* Warp-summed energy of particle p placed at q (lane = neighbour cell; of each cell the groups of
 * four members part, part + parts, ...), complete in lane 0. */
template <typename real>
__device__ double warp_energy(const cu_cells_dev &g, const real *pos, int n, int p, const real *q, real box, int lane,
                              const typename prec<real>::params &lj, int part, int parts)
{
    double e = lane < 27 ? cells_energy(g, pos, n, p, q[0], q[1], q[2], box, lane, 32, lj, part, parts) : 0.0;
    for (int off = 16; off > 0; off >>= 1) e += __shfl_down_sync(0xffffffffu, e, off);
    return e;
}

/* The energy kernel: ENERGY_WARPS_PER_TRIAL warps per trial, half summing the energy at its new
 * position and half at its old, each half's warps taking alternate groups of a cell's members, and
 * all of them splitting the conflict scan over the earlier trials by chunks of 32. A warp's pass
 * is a chain of dependent loads (a cell's index list, then its members' positions): the more warps
 * a trial has, the more of them an SM holds to hide it. */
template <typename real>
__global__ void __launch_bounds__(32 * ENERGY_WARPS, ENERGY_MIN_BLOCKS)
    cells_trial_energy_kernel(const cu_chain_dev *cd, const real *pos, int n, int trials, tables t, tables next_t,
                        cu_cells_dev g, typename prec<real>::params lj, double cutoff, unsigned long long seed,
                        unsigned long long next_step, int next_trials)
{
    enum { PER_BLOCK = ENERGY_TRIALS_PER_BLOCK };
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int slot = warp / ENERGY_WARPS_PER_TRIAL, role = warp % ENERGY_WARPS_PER_TRIAL; /* role: new parts, then old */
    const int k = blockIdx.x * PER_BLOCK + slot;
    /* The next batch's trial k as it will be if the decide kernel decides every trial of this batch (it
     * then starts at move next_step, and the decide kernel checks that it does), drawn while the kernel
     * before this one runs, for its threshold and its particle's position (the decide kernel writes the
     * particle and displacement, before its own wait). Nothing read here is written by a kernel
     * (the chain's id and step size are the host's). */
    __shared__ mc_trial s_next[PER_BLOCK];
    __shared__ double s_next_threshold[PER_BLOCK];
    if (lane == 0 && k < next_trials) {
        if (role == ENERGY_WARPS_PER_TRIAL - 1)
            s_next[slot] = mc_trial_draw(seed, cd->id, next_step + k, (uint32_t)n, cd->max_displacement);
        if (role == ENERGY_WARPS_PER_TRIAL - 2)
            s_next_threshold[slot] = mc_accept_threshold(seed, cd->id, next_step + k);
    }
    cu_wait_previous(); /* chained launches: nothing a kernel writes is read before the last one ends */
    cu_launch_next();   /* after the wait: the decide kernel reads the table the kernel before wrote before its own wait */
    if (*g.overflow) return; /* a cell overflowed: the grid is broken, the run stops after the launch */
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ unsigned s_hits[PER_BLOCK][CU_MAX_BATCH_TRIALS / 32]; /* conflict ballots per chunk */
    __shared__ double s_sum[PER_BLOCK][ENERGY_WARPS_PER_TRIAL][2];         /* each warp's part of e, e2 */
    /* the trial table up to this block's last trial, staged for the conflict scan */
    const int staged = min(trials, (int)(blockIdx.x + 1) * PER_BLOCK);
    real *sa = (real *)smem;
    int *sp = (int *)(sa + 3 * staged + 1), *smult = sp + staged;
    for (int m = threadIdx.x; m < staged; m += blockDim.x) {
        sp[m] = t.p[m], smult[m] = t.mult[m];
        for (int c = 0; c < 3; c++) sa[3 * m + c] = entry((const real *)t.a, t, c, m);
    }
    __syncthreads(); /* the staged table, and s_next */
    /* the next trial's particle where this batch starts, by a lane idle in the sums, its loads
     * given the sums to arrive in (in the decide kernel's one block they would be waited for) */
    const bool reads_next = role == ENERGY_WARPS_PER_TRIAL - 1 && lane == 30 && k < next_trials;
    real next_a[3];
    if (reads_next)
        for (int c = 0; c < 3; c++) next_a[c] = pos[c * n + (int)s_next[slot].particle];
    const bool old_half = role >= ENERGY_PARTS;
    const bool active = k < trials; /* whole warps: every warp still meets the barriers below */
    const real box = (real)cd->box;
    const int p = active ? sp[k] : 0, mult = active ? smult[k] : 0;
    const real *a = sa;
    real b[3]; /* its drawn position */
    for (int c = 0; c < 3; c++) b[c] = active ? entry((const real *)t.b, t, c, k) : (real)0;
    const double step = 1.7320508075688772 * cd->max_displacement; /* longest single move */
    /* the grid for the decide kernel (G_*), by lane 31 of an old position's warp (idle in the sums), its
     * loads spread so that each has the scan or the sums to arrive in */
    const bool reads_grid = active && role == ENERGY_WARPS_PER_TRIAL - 1 && lane == 31;
    int grid[GRID_FIELDS];
    if (reads_grid) grid[G_HOME] = g.cell_of[p], grid[G_SLOT] = g.slot_of[p];
    for (int c = role; active && 32 * c < k; c += ENERGY_WARPS_PER_TRIAL) {
        int m = 32 * c + lane;
        bool hit = false;
        if (m < k) {
            if (sp[m] == p) {
                hit = true;
            } else {
                double reach = cutoff + step * (mult + smult[m]) + 1e-6;
                double r2 = (double)cu_dist2(a[3 * k], a[3 * k + 1], a[3 * k + 2], a[3 * m],
                                             a[3 * m + 1], a[3 * m + 2], box);
                hit = r2 < reach * reach;
            }
        }
        unsigned ballot = __ballot_sync(0xffffffffu, hit);
        if (lane == 0) s_hits[slot][c] = ballot;
    }
    if (reads_grid) {
        grid[G_COUNT] = g.count[grid[G_HOME]];
        grid[G_NEW_CELL] = cell_index(b[0], b[1], b[2], (real)g.m / box, g.m);
        grid[G_NEW_COUNT] = g.count[grid[G_NEW_CELL]];
    }
    /* as drawn: the particle's earlier trial, if any, was rejected; a third occurrence is
     * evaluated in the decide kernel, from its true position */
    if (active && mult <= 2) {
        const int part = role % ENERGY_PARTS;
        real q[3]; /* chosen by value, not by pointer: the positions stay in registers */
        for (int c = 0; c < 3; c++) q[c] = old_half ? a[3 * k + c] : b[c];
        double e = warp_energy(g, pos, n, p, q, box, lane, lj, part, (int)ENERGY_PARTS);
        double e2 = 0.0;
        if (mult == 2) { /* second occurrence: also the case that the first one was accepted and moved it there */
            const int first = t.prev[k];
            for (int c = 0; c < 3; c++) {
                const real o = entry((const real *)t.b, t, c, first);
                q[c] = old_half ? o : cu_displace(o, entry(t.d, t, c, k), box);
            }
            e2 = warp_energy(g, pos, n, p, q, box, lane, lj, part, (int)ENERGY_PARTS);
        }
        if (lane == 0) s_sum[slot][role][0] = e, s_sum[slot][role][1] = e2;
    }
    if (reads_grid) {
        grid[G_LAST] = g.slot[(size_t)grid[G_HOME] * g.cap + grid[G_COUNT] - 1];
        for (int f = 0; f < GRID_FIELDS; f++) entry(t.grid, t, f, k) = grid[f];
    }
    __syncthreads();
    if (reads_next) { /* into the next table, which the batch before used: its kernels are done with it */
        next_t.threshold[k] = s_next_threshold[slot];
        for (int c = 0; c < 3; c++) entry((real *)next_t.a, next_t, c, k) = next_a[c];
    }
    if (!active || role != 0) return;
    /* the conflict list in ascending trial order from the chunks' ballots, a chunk a lane (k < 1024:
     * at most 32 chunks), each lane's place from a prefix sum of the hits, not a serial pass over
     * the chunks */
    const unsigned ballot = 32 * lane < k ? s_hits[slot][lane] : 0u;
    const int upto = cu_warp_inclusive_sum(__popc(ballot), lane);
    const int count = __shfl_sync(0xffffffffu, upto, 31);
    int at = upto - __popc(ballot);
    for (unsigned rest = ballot; rest; rest &= rest - 1, at++)
        if (at < MAXC) entry(t.conf, t, at, k) = 32 * lane + __ffs(rest) - 1;
    if (lane != 0) return;
    t.nconf[k] = count;
    if (count == 0) entry(t.conf, t, 0, k) = 0; /* the decide kernel loads the first entry beside nconf, unchecked */
    auto change = [&](int w) { /* e (w = 0) or e2 (w = 1): the warps' parts in a fixed order */
        double e_new = s_sum[slot][0][w], e_old = s_sum[slot][ENERGY_PARTS][w];
        for (int q = 1; q < ENERGY_PARTS; q++) e_new += s_sum[slot][q][w], e_old += s_sum[slot][ENERGY_PARTS + q][w];
        return e_new - e_old;
    };
    if (mult <= 2) t.base[k] = change(0);
    if (mult == 2) t.base2[k] = change(1);
}

/* Move particle p from cell c to another cell c2: its slot s in c takes c's last member q (c holds
 * count_c), and it is appended to c2 at s2, c2's count. */
__device__ static void cell_move_at(cu_cells_dev &g, int p, int c, int c2, int s, int count_c, int q, int s2)
{
    int last = count_c - 1;
    g.slot[(size_t)c * g.cap + s] = q;
    g.slot_of[q] = s;
    g.count[c] = last;
    if (s2 >= g.cap) {
        *g.overflow = 1; /* reported by the host; the run stops */
        return;
    }
    g.slot[(size_t)c2 * g.cap + s2] = p;
    g.count[c2] = s2 + 1;
    g.cell_of[p] = c2;
    g.slot_of[p] = s2;
}

/* The cells that a batch's cell moves touch, counted in a shared hash (linear probing): a move is
 * alone, and commutes with every other, when its two cells are touched once each. A batch's moves
 * touch at most 2 K <= 2048 cells, so the table never overflows (at about 45 moves a batch it is
 * nearly empty); 16 kB keep the decide kernel within the 99 kB a block gets on compute capability 8.6 and 8.9 at
 * K = 1024 in double. Before, each move compared itself with every other: at about 45 moves a
 * batch, a few thousand cycles of the decide kernel's one block. */
enum { CELL_HASH = 2 * CU_MAX_BATCH_TRIALS };
struct cell_uses {
    int key[CELL_HASH], uses[CELL_HASH];
};

__device__ static int cell_slot(const cell_uses &h, int cell)
{
    int e = (int)(((unsigned)cell * 2654435761u) & (CELL_HASH - 1));
    while (h.key[e] != cell) e = (e + 1) & (CELL_HASH - 1); /* present: it was added */
    return e;
}

__device__ static void cell_use(cell_uses &h, int cell)
{
    int e = (int)(((unsigned)cell * 2654435761u) & (CELL_HASH - 1));
    for (;;) {
        int key = atomicCAS(&h.key[e], -1, cell);
        if (key == -1 || key == cell) break;
        e = (e + 1) & (CELL_HASH - 1);
    }
    atomicAdd(&h.uses[e], 1);
}

__device__ static bool cells_alone(const cell_uses &h, int c, int c2)
{
    return h.uses[cell_slot(h, c)] == 1 && h.uses[cell_slot(h, c2)] == 1;
}

__device__ static void cell_move(cu_cells_dev &g, int p, int c, int c2)
{
    int count_c = g.count[c];
    cell_move_at(g, p, c, c2, g.slot_of[p], count_c, g.slot[(size_t)c * g.cap + count_c - 1], g.count[c2]);
}

/* The decide kernel (the file's head says what it decides), then the next batch's draws (next_trials of
 * them; 0: none, the host's loop ends or the next round starts with the draw kernel). Drawn here they
 * cost no kernel boundary of their own: a batch is two kernels, not three. */
template <typename real>
__global__ void __launch_bounds__(1024)
    cells_decide_kernel(cu_chain_dev *cd, real *pos, int n, int trials, tables t, tables next_t, cu_cells_dev g,
                        typename prec<real>::params lj, unsigned long long seed, unsigned long long next_step,
                        int next_trials)
{
    /* Chained: launched once every block of the energy kernel has waited for the batch before, so what the
     * kernels before the energy kernel wrote (the trials' draws and positions, the chain's counts) is read
     * before waiting for the energy kernel; what the energy kernel writes is read after. This holds only while the
     * energy kernel lets the next kernel launch after its own wait, and never writes what is read here.
     * Before its wait this kernel also writes the next table's particles, displacements and
     * repeats (draw_ahead): safe while the energy kernel neither reads nor writes those four arrays of
     * the next table (it writes its thresholds and start positions), and the kernels of the batch
     * that used that table last have ended (the energy kernel waited for them). */
    cu_launch_next();
    extern __shared__ __align__(16) unsigned char smem[];
    const int K = blockDim.x, k = threadIdx.x;
    real *sa = (real *)smem, *sb = sa + 3 * K;
    double *gain = (double *)(sb + 3 * K + (3 * K * sizeof(real) % 8 ? 1 : 0));
    int *level = (int *)(gain + K), *next = level + K, *chg_old = next + K, *chg_new = chg_old + K;
    int *particle = chg_new + K;
    unsigned char *acc = (unsigned char *)(particle + K);
    __shared__ double red[32];
    __shared__ int s_stop; /* the first trial left to the next batch */
    const real box = (real)cd->box;
    const double beta = cd->beta;
    const bool active = k < trials;
    /* from L2 (__ldcg): what a load before the wait sees of an earlier kernel's writes is not among
     * the guarantees of chained launches, which cover the kernel waited for */
    const int p = active ? __ldcg(&t.p[k]) : -1;
    /* the cell changes' hash (after the decisions), and before the wait the next batch's repeats */
    __shared__ union {
        cell_uses cells;
        repeat_table repeats;
    } hashes;
    cell_uses &touched = hashes.cells;
    /* the next batch's particles and repeats while the energy kernel runs, in the cell changes' arrays and
     * table (used after the decisions), first, while few values are live: chg_new holds each
     * trial's link until then */
    chg_new[k] = next_trials > 0 ? draw_ahead(cd, next_step, n, next_trials, next_t, seed, p, chg_old,
                                              hashes.repeats)
                                 : -1;
    int prev = -1, mult = 1;
    double threshold = 0.0;
    if (active) {
        prev = __ldcg(&t.prev[k]), mult = __ldcg(&t.mult[k]), threshold = __ldcg(&t.threshold[k]);
        for (int c = 0; c < 3; c++)
            sa[3 * k + c] = __ldcg(&entry((real *)t.a, t, c, k)), sb[3 * k + c] = __ldcg(&entry((real *)t.b, t, c, k));
    }
    level[k] = -1, next[k] = -1, acc[k] = 0, gain[k] = 0.0, particle[k] = p;
    chg_old[k] = -1;
    for (int e = k; e < CELL_HASH; e += K) touched.key[e] = -1, touched.uses[e] = 0;
    /* the chain's counts, which thread 0 adds to last: loaded here, the wait hides their latency */
    __shared__ unsigned long long s_accepted;
    __shared__ double s_energy;
    if (k == 0) s_stop = trials, s_accepted = __ldcg(&cd->accepted), s_energy = __ldcg(&cd->energy);
    __syncthreads();
    if (active && prev >= 0) next[prev] = k;
    cu_wait_previous();
    if (*g.overflow) return; /* as in the energy kernel */
    const unsigned long long step0 = cd->step; /* thread 0 advances cd->step at the end */
    /* the energy kernel's results, every one a decision needs loaded here, where the block waits for the
     * first anyway: loaded where they were used, each level of decisions waited for its own */
    int nconf = 0, conf0 = 0;
    /* the grid around p as the batch starts (G_*): a cell move that no other move of the batch
     * touches finds it unchanged */
    int grid[GRID_FIELDS] = {-1, 0, 0, 0, -1, 0};
    double base = 0.0;
    if (active) {
        nconf = t.nconf[k];
        if (mult <= 2) base = t.base[k]; /* the energy kernel writes none for a third occurrence, summed here */
        conf0 = entry(t.conf, t, 0, k); /* the first earlier trial it depends on (most depend on one at most) */
        for (int f = 0; f < GRID_FIELDS; f++) grid[f] = entry(t.grid, t, f, k);
    }
    const bool all_earlier = nconf > MAXC; /* list overflowed: depend on every earlier trial */
    const int nlist = all_earlier ? k : nconf;
    auto conflict = [&](int c) { return all_earlier ? c : c == 0 ? conf0 : entry(t.conf, t, c, k); };
    /* Decided in waves: a trial decides once every trial it depends on has, so the wave it decides
     * in is its dependency level (1 + the highest among those trials'), and trials of one wave
     * decide at once. level[k] < 0: not yet decided. (Assigning every level first, then deciding
     * level by level, takes more barriers a level.) */
    for (int wave = 0;; wave++) {
        bool ready = active && level[k] < 0;
        for (int c = 0; ready && c < nlist; c++) ready = level[conflict(c)] >= 0;
        __syncthreads(); /* every thread has read the levels before this wave sets any */
        if (ready) {
            real ox = sa[3 * k], oy = sa[3 * k + 1], oz = sa[3 * k + 2];
            real nx = sb[3 * k], ny = sb[3 * k + 1], nz = sb[3 * k + 2];
            double dE = base;
            if (mult == 2 && acc[prev]) { /* the first occurrence moved it: the energy kernel's second case */
                ox = sb[3 * prev], oy = sb[3 * prev + 1], oz = sb[3 * prev + 2];
                nx = cu_displace(ox, entry(t.d, t, 0, k), box);
                ny = cu_displace(oy, entry(t.d, t, 1, k), box);
                nz = cu_displace(oz, entry(t.d, t, 2, k), box);
                dE = t.base2[k];
            } else if (mult > 2) { /* its particle may have moved: start from where it is now */
                int m = prev;
                while (m >= 0 && !acc[m]) m = t.prev[m];
                if (m >= 0) ox = sb[3 * m], oy = sb[3 * m + 1], oz = sb[3 * m + 2];
                nx = cu_displace(ox, entry(t.d, t, 0, k), box);
                ny = cu_displace(oy, entry(t.d, t, 1, k), box);
                nz = cu_displace(oz, entry(t.d, t, 2, k), box);
                dE = cells_energy(g, pos, n, p, nx, ny, nz, box, 0, 1, lj) -
                     cells_energy(g, pos, n, p, ox, oy, oz, box, 0, 1, lj);
            }
            bool carried = true;
            for (int c = 0; c < nlist && carried; c++) { /* ascending m: a fixed order */
                const int m = conflict(c);
                if (!acc[m] || particle[m] == p) continue;
                const double corr =
                    cu_pair_correction(ox, oy, oz, nx, ny, nz, sa + 3 * m, sb + 3 * m, box, beta, lj);
                carried = !isnan(corr), dE += corr;
            }
            sa[3 * k] = ox, sa[3 * k + 1] = oy, sa[3 * k + 2] = oz;
            sb[3 * k] = nx, sb[3 * k + 1] = ny, sb[3 * k + 2] = nz;
            /* a term beyond the limit: the batch ends before k. Trial 0 has no corrections, so a
             * batch always decides one trial at least. The smallest such k is the sequential
             * chain's: every trial before it was decided as the sequential chain decides it. */
            if (!carried) atomicMin(&s_stop, k);
            else if (mc_metropolis_test(dE, beta, threshold)) acc[k] = 1, gain[k] = dE;
            level[k] = wave;
        }
        if (!__syncthreads_or(active && level[k] < 0)) break;
    }
    /* trials from stop on are left to the next batch (their decisions here may rest on stop's,
     * which was not made); the count's barrier publishes the cleared flags */
    const int stop = s_stop;
    if (k >= stop) acc[k] = 0, gain[k] = 0.0;
    cu_warp_sums(gain[k], red); /* the batch's energy change: thread 0 adds the warps' sums at the end */
    int accepted = __syncthreads_count(acc[k]);
    /* the last accepted move of each particle sets its position and cell */
    real inv_w = (real)g.m / box;
    int moved = -1; /* p, where this trial is its last accepted move */
    real moved_to[3] = {0, 0, 0};
    const int link = chg_new[k]; /* draw_ahead's, before chg_new takes the cell change */
    chg_new[k] = -1;
    if (active && acc[k]) {
        int m = next[k];
        while (m >= 0 && !acc[m]) m = next[m];
        if (m < 0) {
            moved = p;
            for (int c = 0; c < 3; c++) moved_to[c] = sb[3 * k + c];
            pos[p] = sb[3 * k], pos[n + p] = sb[3 * k + 1], pos[2 * n + p] = sb[3 * k + 2];
            int c2 = cell_index(sb[3 * k], sb[3 * k + 1], sb[3 * k + 2], inv_w, g.m);
            if (c2 != grid[G_HOME]) chg_old[k] = grid[G_HOME], chg_new[k] = c2;
        }
    }
    __syncthreads();
    /* cell moves touching cells no other move touches commute: all of them at once */
    const int changes = chg_old[k] >= 0;
    if (changes) cell_use(touched, chg_old[k]), cell_use(touched, chg_new[k]);
    __syncthreads();
    const bool alone = !changes || cells_alone(touched, chg_old[k], chg_new[k]);
    if (changes && alone) {
        const int c2 = chg_new[k];
        cell_move_at(g, p, grid[G_HOME], c2, grid[G_SLOT], grid[G_COUNT], grid[G_LAST],
                     c2 == grid[G_NEW_CELL] ? grid[G_NEW_COUNT] : g.count[c2]);
    }
    /* the rest in trial order by thread 0, from a list of them: needed in a batch in twenty or so
     * (two of its about 40 cell changes share a cell), so the list is made only then */
    if (__syncthreads_or(changes && !alone)) {
        __shared__ int s_nrest, s_rest[MAX_CELL_CHANGES];
        __shared__ int s_warp_rest[32];
        const bool rest = changes && !alone;
        const unsigned mask = __ballot_sync(0xffffffffu, rest);
        if ((k & 31) == 0) s_warp_rest[k >> 5] = __popc(mask);
        __syncthreads();
        if (k < 32) { /* the warps' counts to their offsets: a prefix sum by warp 0's lanes */
            const int c = k < (K >> 5) ? s_warp_rest[k] : 0;
            const int upto = cu_warp_inclusive_sum(c, k);
            if (k < (K >> 5)) s_warp_rest[k] = upto - c;
            if (k == 31) s_nrest = upto;
        }
        __syncthreads();
        const int nrest = s_nrest;
        const bool listed = nrest <= MAX_CELL_CHANGES;
        if (rest && listed) s_rest[s_warp_rest[k >> 5] + __popc(mask & ((1u << (k & 31)) - 1u))] = k;
        __syncthreads();
        if (k == 0)
            for (int e = 0; e < (listed ? nrest : trials); e++) {
                int m = listed ? s_rest[e] : e;
                if (chg_old[m] >= 0 && !cells_alone(touched, chg_old[m], chg_new[m]))
                    cell_move(g, particle[m], chg_old[m], chg_new[m]);
            }
    }
    if (next_trials > 0) {
        /* this batch's tables and shared memory used, its positions written: the draws' tables
         * overlay the block's arrays (the 16 kB repeat table reaches the cell changes' arrays from
         * K = 384 down in single and from K = 224 down in double) */
        __syncthreads();
        /* the draws made ahead hold where the next batch starts where the host assumed */
        if (step0 + stop == next_step)
            finish_draws(next_t, next_trials, box, moved, moved_to, link);
        else
            draw_batch(cd, step0 + stop, pos, n, next_trials, next_t, seed, (int *)(smem + sizeof(repeat_table)),
                       *(repeat_table *)smem);
    }
    /* thread 0's bookkeeping last, its warp's sums off the block's barriers */
    if (k == 0) {
        if (stop < trials) {
            CU_CANCEL_TRACE("large-chain-cells", step0 + stop);
            *t.undecided += trials - stop;
        }
        cd->step = step0 + stop;
        cd->accepted = s_accepted + accepted;
        cd->energy = s_energy + cu_warps_total(red);
    }
}

template <typename real>
static int launch_cells(const cu_view *v, long long moves, double cutoff, unsigned long long step, mc_err *err)
{
    const int K = v->batch_trials;
    const tables both[2] = {table_at(v->cells.trials, 0, K, sizeof(real)), table_at(v->cells.trials, 1, K, sizeof(real))};
    size_t smem_b = 6 * (size_t)K * sizeof(real) + 8 + (size_t)K * (sizeof(double) + 5 * sizeof(int) + 1);
    const size_t smem_draws = sizeof(repeat_table) + (size_t)K * sizeof(int); /* over the decide kernel's own at its end */
    if (smem_b < smem_draws) smem_b = smem_draws;
    /* with its 17 kB of static tables (cell_uses) the block needs more than 48 kB from K = 512 in
     * double (56 kB) and K = 1024 in single (72 kB; 94 kB at 1024 in double): set whatever K */
    CU_TRY(cudaFuncSetAttribute(cells_decide_kernel<real>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_b),
           err);
    typename prec<real>::params lj = prec<real>::make(v->pair);
    real *pos = (real *)v->pos;
    int chained = 0;
    MC_TRY(cu_chained_launches(cells_draw_kernel<real>, &chained, err));
    /* rounds of batches: a batch that the decide kernel ended early leaves moves to the next round (rare:
     * a pair term beyond CU_CANCEL_LIMIT kT; the round's one copy back is its only wait) */
    for (unsigned long long left = (unsigned long long)moves; left > 0;) {
        CU_TRY(cudaMemsetAsync(both[0].undecided, 0, sizeof *both[0].undecided), err);
        const unsigned long long round_step = step + ((unsigned long long)moves - left);
        for (unsigned long long done = 0, batch = 0; done < left; done += K, batch++) {
            const int trials = (int)(left - done < (unsigned long long)K ? left - done : K);
            const unsigned long long after = left - done - trials;
            const int next_trials = (int)(after < (unsigned long long)K ? after : K);
            const unsigned long long next_step = round_step + done + trials; /* if all so far are decided */
            const tables t = both[batch & 1], next_t = both[(batch + 1) & 1];
            if (done == 0)
                CU_TRY(cu_launch(chained, cells_draw_kernel<real>, 1, K, K * sizeof(int), v->chains, pos, v->n, trials,
                                 t, v->seed), err);
            size_t smem_a = (3 * (size_t)trials + 1) * sizeof(real) + 2 * (size_t)trials * sizeof(int);
            CU_TRY(cu_launch(chained, cells_trial_energy_kernel<real>, (trials + ENERGY_TRIALS_PER_BLOCK - 1) / ENERGY_TRIALS_PER_BLOCK,
                             32 * ENERGY_WARPS, smem_a, v->chains, pos, v->n, trials, t, next_t, v->cells, lj, cutoff,
                             v->seed, next_step, next_trials), err);
            CU_TRY(cu_launch(chained, cells_decide_kernel<real>, 1, K, smem_b, v->chains, pos, v->n, trials, t, next_t,
                             v->cells, lj, v->seed, next_step, next_trials), err);
        }
        CU_TRY(cudaMemcpy(&left, both[0].undecided, sizeof left, cudaMemcpyDeviceToHost), err);
    }
    return MC_OK;
}

int cu_sweep_cells(const cu_view *v, long long moves, double cutoff, unsigned long long step, mc_err *err)
{
    return v->single ? launch_cells<float>(v, moves, cutoff, step, err)
                     : launch_cells<double>(v, moves, cutoff, step, err);
}
