/* cu_chain_cells: cell lists inside the many-chain kernel (issue 14, shape A). Chains of a few
 * thousand particles with a cutoff (examples/phase_diagram.ini: N = 4000, rc 2.5, six cells per
 * edge) spend 95% of an all-pairs move on partners beyond the cutoff; here a move sums over the 27
 * cells around the particle's old and its new position instead, one resident block per chain as
 * in cu_sweep_chains, under the same contract: the CPU backend's draws and decisions. With only a
 * few such chains per SM (two or four: chain_block) a move at a time leaves the SM waiting on
 * barriers; the block instead evaluates a batch of consecutive trials at once, one per warp, and
 * decides them in order (cells_chains_kernel says how that stays the sequential chain).
 *
 * Each chain has its own grid of m^3 cells (m the same for all chains, from the smallest box of the
 * run's state points: src/mc_cell_grid.h),
 * each a run of `cap` slots of particle indices in global memory; the counts live in shared
 * memory during a launch. An accepted move that changes a particle's cell swaps it out with the
 * cell's last member (O(1), by thread 0). Lists are then in arrival order, and sums over them
 * would carry that history in their last bits: every round's end sorts them (cu_cells_sort_lists,
 * as the one-chain cell path does), so a restart, which builds sorted lists, continues bit for bit.
 * A cell that would exceed `cap` stops the run with an error, as on the one-chain cell path. */
#include <math.h>
#include <string.h>

#include <type_traits>

#include "cu_backend.h"
#include "cu_cell_grid.cuh"
#include "cu_chain_move.cuh"
#include "cu_check.h"
#include "mc_cell_grid.h"

/* An SM runs 1024 of the kernel's threads, in one of three blocks (chain_block, chosen by
 * launch_cells_chains): four chains of 256 threads with their positions staged in shared memory,
 * where four such blocks fit an SM; two staged chains of 512, where two fit; else four chains of
 * 256 reading their positions from global memory. On an H100 or H200 at rho 0.8, rc 2.5 the first
 * holds single-precision chains up to N = 4,085 and double up to 2,182, the second up to 8,253 and
 * 4,405. A warp evaluates a trial, so a batch is 8 or 16 trials. The three blocks, and the 256
 * threads of a four-chain block, are the fastest measured (doc/performance.md, shape A). Members a
 * lane fetches at once: 8 for a pure fluid, 4 for a mixture, whose kernel spills registers with 8.
 * -D to measure others. */
#ifndef CELL_CHAIN_THREADS
#define CELL_CHAIN_THREADS 256 /* four chains an SM */
#endif
#ifndef CELL_CHAIN_THREADS_TWO
#define CELL_CHAIN_THREADS_TWO 512 /* two staged chains an SM */
#endif
#ifndef LOADS_IN_FLIGHT
#define LOADS_IN_FLIGHT 8
#endif
#ifndef MIX_LOADS_IN_FLIGHT
#define MIX_LOADS_IN_FLIGHT 4
#endif
#ifndef CHAIN_FOUR_STAGED_AT
#define CHAIN_FOUR_STAGED_AT 4 /* the chains of 256 threads an SM must hold for their positions to be staged */
#endif
#ifndef CHAIN_STAGE_TWO
#define CHAIN_STAGE_TWO 1 /* 0: chains whose positions four blocks cannot stage read them from global memory */
#endif
#ifndef TRIALS_PER_WARP
#define TRIALS_PER_WARP 1 /* a batch's trials a warp of a four-chain block evaluates, one after another
                             (2, batches of 16, ran slower) */
#endif
/* A launch's block: THREADS threads, 1024 / THREADS chains an SM (the launch bounds), positions in
 * shared memory or not, PER_WARP trials a warp. */
template <int THREADS, bool STAGED_, int PER_WARP> struct chain_block {
    enum { threads = THREADS, chains_per_sm = 1024 / THREADS, warps = THREADS / 32 };
    enum { batch = PER_WARP * warps }; /* trials evaluated per batch */
    static constexpr bool staged = STAGED_;
    static_assert((int)batch <= (int)DRAW_AHEAD, "a batch's draws come from one draw-ahead");
    static_assert((int)batch < 32, "decide_in_waves: a lane per trial, and a mask of the trials before the stop");
};
typedef chain_block<CELL_CHAIN_THREADS, false, TRIALS_PER_WARP> four_in_global;
typedef chain_block<CELL_CHAIN_THREADS, true, TRIALS_PER_WARP> four_staged;
typedef chain_block<CELL_CHAIN_THREADS_TWO, true, 1> two_staged;

/* The image shift of a neighbour cell's members: added to a separation from the home cell, it gives
 * the minimum image for every pair within the cutoff (one vector load per member's cell). Single
 * precision only: in double the 32-byte shifts push the kernel past its 64 registers, and it runs
 * slower with them than with cu_dist2's folds. */
#ifndef DOUBLE_SHIFTS
#define DOUBLE_SHIFTS 0 /* 1: shifts in double too, to measure */
#endif
template <typename real> __host__ __device__ constexpr bool uses_shift() { return sizeof(real) == sizeof(float) || DOUBLE_SHIFTS; }
template <typename real> struct image_shift;
template <> struct image_shift<float> { typedef float4 type; };
template <> struct image_shift<double> {
    typedef struct __align__(32) { double x, y, z, w; } type;
};

/* The 27 cells around one point as runs of one list (lane k of the warp set up cell k): cell k's
 * members are run indices start[k] to start[k + 1] - 1, member f of the run at slot base[k] + f,
 * its image shifted by shift[k]. */
template <typename real> struct warp_cells {
    typename image_shift<real>::type shift[uses_shift<real>() ? 27 : 1];
    int base[27];
    int start[28];
};

/* Squared distance of a from b + shift, the separation taken as cu_dist2 takes it: the difference
 * first, then the fold. Where the stencil's shift is the minimum image (every pair within the
 * cutoff: cells a cutoff wide, at least 3 per edge) this is cu_dist2's value to the bit; beyond the
 * cutoff both give a zero energy. */
template <typename real, typename S>
__device__ __forceinline__ real shifted_dist2(real ax, real ay, real az, real bx, real by, real bz, const S &s)
{
    real dx = (ax - bx) + s.x, dy = (ay - by) + s.y, dz = (az - bz) + s.z;
    return cu_norm2(dx, dy, dz);
}

/* The calling warp's pair energies of particle i placed at a (WANT & A_SUM) and at b (WANT & B_SUM)
 * with the members j != i of the 27 cells around `home`, this lane's share: every pair term rounded
 * once in real and added in double, as the all-pairs kernel adds them. A pair beyond the cutoff
 * adds an exact zero, so summing b over a's cells is exact wherever they hold every partner of b
 * within the cutoff (b_covered); b_folded: b is across the box's edge from a's cells, and its
 * separations take cu_dist2's fold instead of the stencil's shifts. WANT is a template argument
 * for a pure fluid: tested at run time per member, the two sums' branches would add to every
 * member's instructions. A mixture's kernel, with the species
 * lookups, spilled kilobytes of registers with three copies of the loop: it passes want at run
 * time (WANT_AT_RUN_TIME). The
 * warp flattens the cells' members into one run, which keeps its lanes busy however the members
 * fall in cells, and each lane fetches LOADS members' indices before it uses any (they
 * come from L2). */
enum { A_SUM = 1, B_SUM = 2, WANT_AT_RUN_TIME = -1 };

template <bool MIX, int WANT, typename real>
__device__ __forceinline__ void cells_pair_energy(const real *x, const real *y, const real *z, const int *count,
                                                  const int *slots, int cap, int m, cell3 home, int i, real ax,
                                                  real ay, real az, real bx, real by, real bz, int want_now,
                                                  bool b_folded, real box, const cu_pairs<real> &pr,
                                                  warp_cells<real> *wc, double *ea, double *eb)
{
    typedef typename prec<real>::params params;
    typedef typename image_shift<real>::type shift;
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    __syncwarp(); /* the lanes are done with wc's previous contents */
    int c = 0, members = 0;
    if (lane < 27) { /* neighbour_cell(home, lane), wrapped by selects (no division), and the fold its wrap implies */
        int cx = home.x + lane / 9 - 1, cy = home.y + (lane / 3) % 3 - 1, cz = home.z + lane % 3 - 1;
        shift s;
        s.x = cx < 0 ? box : cx >= m ? -box : (real)0, cx = cx < 0 ? cx + m : cx >= m ? cx - m : cx;
        s.y = cy < 0 ? box : cy >= m ? -box : (real)0, cy = cy < 0 ? cy + m : cy >= m ? cy - m : cy;
        s.z = cz < 0 ? box : cz >= m ? -box : (real)0, cz = cz < 0 ? cz + m : cz >= m ? cz - m : cz;
        s.w = 0;
        c = (cx * m + cy) * m + cz, members = count[c];
        if (uses_shift<real>()) wc->shift[lane] = s;
    }
    const int upto = cu_warp_inclusive_sum(members, lane);
    const int total = __shfl_sync(all, upto, 31);
    if (lane < 27) wc->base[lane] = c * cap - (upto - members), wc->start[lane] = upto - members;
    if (lane == 0) wc->start[27] = total;
    __syncwarp();
    /* a lane's members in the same order (f = lane, lane + 32, ...) whatever LOADS: the same sums */
    constexpr int LOADS = MIX ? MIX_LOADS_IN_FLIGHT : LOADS_IN_FLIGHT;
    const int a_species = MIX ? pr.species_of(i) : 0;
    const int want = WANT == WANT_AT_RUN_TIME ? want_now : WANT; /* a constant where WANT is one */
    auto sum = [&](auto params_of) {
        double sa = 0.0, sb = 0.0;
        int k = 0, k_end = wc->start[1]; /* the cell of run index f, and where the next one starts; f only grows */
        for (int f0 = lane; f0 < total; f0 += 32 * LOADS) {
            int j[LOADS], kq[LOADS];
#pragma unroll
            for (int q = 0; q < LOADS; q++) {
                int f = f0 + 32 * q;
                j[q] = -1;
                if (f < total) {
                    while (k_end <= f) k_end = wc->start[++k + 1]; /* start[27] = total: k stays below 27 */
                    j[q] = slots[(unsigned)(wc->base[k] + f)]; /* >= 0: unsigned spares a sign extension */
                }
                kq[q] = k;
            }
#pragma unroll
            for (int q = 0; q < LOADS; q++) {
                if (j[q] < 0 || j[q] == i) continue;
                const params p = params_of(j[q]);
                const unsigned jj = (unsigned)j[q];
                real xj = x[jj], yj = y[jj], zj = z[jj];
                if constexpr (uses_shift<real>()) {
                    const shift s = wc->shift[kq[q]];
                    if (want & A_SUM)
                        sa += (double)prec<real>::energy(shifted_dist2(ax, ay, az, xj, yj, zj, s), p);
                    if (want & B_SUM)
                        sb += (double)prec<real>::energy(b_folded ? cu_dist2(bx, by, bz, xj, yj, zj, box)
                                                                  : shifted_dist2(bx, by, bz, xj, yj, zj, s), p);
                } else {
                    if (want & A_SUM)
                        sa += (double)prec<real>::energy(cu_dist2(ax, ay, az, xj, yj, zj, box), p);
                    if (want & B_SUM)
                        sb += (double)prec<real>::energy(cu_dist2(bx, by, bz, xj, yj, zj, box), p);
                }
            }
        }
        *ea += sa, *eb += sb;
        return 0.0;
    };
    if constexpr (MIX) sum([&](int j) { return pr.of(a_species, pr.species_of(j)); });
    else cu_specialised(pr.one, [&](const params &pp) { return sum([&](int) { return pp; }); });
}

/* Whether the 27 cells around cell c hold every partner within the cutoff of a point displaced
 * by d from o (o in c; cells of width w): in every dimension the point lies no farther outside c
 * than w exceeds the cutoff, less a thousandth of w for the rounding of cell_axis. Then one pass
 * over them sums the trial's old and new positions, also when the move leaves the cell, which
 * most such moves do by a small fraction of the cell (examples/phase_diagram.ini: cells 2.85 wide,
 * cutoff 2.5, moves under 0.2): before, such a trial took a second pass, around its new cell, and
 * a batch with one of them kept the block waiting for that warp. *folded: the displaced point as
 * stored (n, wrapped into the box) is across the box's edge from o. */
template <typename real>
__device__ __forceinline__ bool b_covered(cell3 c, const real o[3], const real n[3], const mc_trial &t, double w,
                                          double cutoff, real half, bool *folded)
{
    const double slack = w - cutoff - 1e-3 * w, d[3] = {t.dx, t.dy, t.dz};
    const int k[3] = {c.x, c.y, c.z};
    bool covered = slack >= 0.0, wrapped = false;
    for (int a = 0; a < 3; a++) {
        const double u = (double)o[a] + d[a], lo = k[a] * w, hi = lo + w; /* u: not wrapped */
        covered = covered && u >= lo - slack && u <= hi + slack;
        wrapped = wrapped || fabs((double)(n[a] - o[a])) > (double)half; /* moves are shorter than half a box */
    }
    *folded = wrapped;
    return covered;
}

/* A trial of the batch as its warp evaluated it: the energy change against the batch's starting
 * configuration, and the positions. */
template <typename real> struct batch_trial {
    double dE;
    real old_pos[3], new_pos[3];
    int particle, from, to;
};

/* A batch's decisions by one warp (lane k: trial k < batch), exactly those of deciding the trials one
 * after another, each energy change corrected by the earlier accepted trials' pair terms (corr[k][a],
 * added in ascending a) and the batch ended at the first trial whose particle an earlier trial moved
 * or whose correction by an accepted trial is NaN (cu_pair_correction). Trial k waits only for the
 * earlier trials it depends on, those of its particle or with a nonzero correction: an exact zero
 * changes no sum (no trial's energy change is -0.0, which +0.0 would turn into +0.0: every sum
 * starts at +0.0), so the trials of a batch that share nothing decide at once, in one wave, not one
 * after another while the block waits. Returns the accepted trials before *stop (a bit each), the first
 * trial left to the next batch (batch: none); *dE: this lane's corrected energy change; *cancel:
 * whether a NaN correction ended the batch. */
template <int BATCH, typename real>
__device__ unsigned decide_in_waves(const batch_trial<real> *trial, const double (*corr)[BATCH], int batch,
                                    const double *threshold, double beta, int *stop, double *dE, bool *cancel)
{
    const unsigned all = 0xffffffffu;
    const int k = threadIdx.x & 31;
    unsigned same = 0u, dep = 0u; /* earlier trials of k's particle; those and any with a nonzero correction */
    double e = 0.0;
    if (k < batch) {
        e = trial[k].dE;
        for (int a = 0; a < k; a++) {
            const bool mine = trial[a].particle == trial[k].particle;
            same |= (unsigned)mine << a;
            dep |= (unsigned)(mine || corr[k][a] != 0.0) << a; /* NaN != 0 */
        }
    }
    unsigned decided = ~__ballot_sync(all, k < batch), accepted = 0u, halted = 0u, cancelled = 0u;
    while (decided != all) { /* a wave: every trial whose dependencies are decided; the lowest one is */
        const bool ready = !(decided >> k & 1u) && !(dep & ~decided);
        bool accept = false, halt = false, nan = false;
        if (ready) {
            const bool moved = same & accepted; /* an earlier trial moved it: k was evaluated where it no longer is */
            bool carried = !moved;
            for (unsigned r = dep & accepted; r && carried; r &= r - 1u) {
                const double c = corr[k][__ffs(r) - 1];
                carried = !isnan(c), e += c;
            }
            nan = !carried && !moved;
            halt = !carried;
            accept = carried && mc_metropolis_test(e, beta, threshold[k]);
        }
        accepted |= __ballot_sync(all, accept);
        halted |= __ballot_sync(all, halt);
        cancelled |= __ballot_sync(all, nan);
        decided |= __ballot_sync(all, ready);
    }
    *stop = halted ? __ffs(halted) - 1 : batch;
    *cancel = halted && (cancelled >> *stop & 1u);
    *dE = e;
    return accepted & ((1u << *stop) - 1u); /* a trial after the stop is decided again in the next batch */
}

/* One block per chain, `moves` moves, in batches of BATCH consecutive trials: warp w evaluates
 * trial w of the batch over the cells against the configuration at the batch's start, warp 0 sums
 * every pair of trials' corrections at once (cu_pair_correction: exact, the cells play no part in
 * it), then decides the trials as if in order (decide_in_waves), each energy change corrected by
 * those of the batch's earlier accepted moves. Warp 0 works while the block waits at its barrier:
 * the profiles of versions 20 and 25 found the barriers the warps' largest stall. A trial whose
 * particle an earlier trial of the batch moved, or whose corrections meet a pair term beyond
 * CU_CANCEL_LIMIT kT (its start sum holds a term they would take out inexactly), ends the batch
 * before it: the next batch starts with that trial, evaluated afresh, without corrections (so it
 * never ends a batch again, and every batch decides one trial at least). The chain is then the
 * sequential one, draw for draw (the large-chain paths' scheme, cu_batched.cu and cu_cells.cu, here
 * within a block): a move costs one warp's pass over the cells and a share of one barrier, not a
 * barrier and a block's reduction of its own.
 * Dynamic shared memory: the chain's cell counts (m^3 ints), then, when staged, its positions. */
template <typename real, bool MIX, typename block>
__global__ void __launch_bounds__(block::threads, block::chains_per_sm)
    cells_chains_kernel(cu_chain_dev *chains, real *pos, int n, long long moves, cu_pairs<real> pr,
                        unsigned long long seed, cu_cells_dev g)
{
    enum { WARPS = block::warps, BATCH = block::batch };
    constexpr bool STAGED = block::staged;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ draws next;
    __shared__ warp_cells<real> wcells[WARPS];
    __shared__ batch_trial<real> trial[BATCH];
    __shared__ double corr[BATCH][BATCH]; /* [k][a], a < k: trial k's pair terms with trial a's move */
    __shared__ double s_energy;
    __shared__ unsigned long long s_accepted;
    __shared__ int s_overflow, s_decided;
    cu_chain_dev *cd = &chains[blockIdx.x];
    const unsigned id = cd->id;
    const double beta = cd->beta, max_disp = cd->max_displacement;
    const real box = (real)cd->box, half = (real)cd->half_box, inv_w = (real)g.m / box;
    const double cell_width = (double)box / g.m;
    const unsigned long long step0 = cd->step;
    const int m = g.m, ncells = m * m * m, cap = g.cap, w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    int *count = (int *)smem, *g_count = g.count + (size_t)blockIdx.x * ncells;
    int *slots = g.slot + (size_t)blockIdx.x * ncells * cap, *slot_of = g.slot_of + (size_t)blockIdx.x * n;
    real *gx = pos + (size_t)blockIdx.x * 3 * n;
    /* STAGED a template argument: the compiler then knows x's memory (shared loads with 32-bit
     * addresses, not generic ones with 64-bit addresses, in the loop over a cell's members) */
    real *x = STAGED ? (real *)(smem + (ncells * sizeof(int) + 15) / 16 * 16) : gx, *y = x + n, *z = y + n;
    for (int c = threadIdx.x; c < ncells; c += blockDim.x) count[c] = g_count[c];
    if (STAGED)
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) x[j] = gx[j];
    if (threadIdx.x == 0) s_energy = cd->energy, s_accepted = cd->accepted, s_overflow = 0;
    long long base = -DRAW_AHEAD; /* the move the draws in `next` start at */
    for (long long mv = 0; mv < moves;) {
        const int batch = moves - mv < BATCH ? (int)(moves - mv) : BATCH;
        if (mv + batch > base + DRAW_AHEAD) { /* the first batch too: base starts below */
            base = mv;
            draw_ahead(&next, seed, id, step0 + mv, moves - mv, n, max_disp);
            __syncthreads(); /* draws written (the first batch: the staged counts and positions too) */
        } /* else the last batch's closing barrier published its moves, cells and s_decided */
        if (s_overflow) break;
        for (int tw = w; tw < batch; tw += WARPS) {
            const mc_trial t = next.trial[mv - base + tw];
            const int i = (int)t.particle;
            real ox = x[i], oy = y[i], oz = z[i], nx, ny, nz;
            trial_position(t, ox, oy, oz, box, &nx, &ny, &nz);
            const cell3 from3 = cell3_of(ox, oy, oz, inv_w, m), to3 = cell3_of(nx, ny, nz, inv_w, m);
            const int from = cell3_index(from3, m), to = cell3_index(to3, m);
            /* one pass over the cells around the old position where they hold the new one's partners
             * too (b_covered), else one around each */
            bool folded = false;
            const real o3[3] = {ox, oy, oz}, n3[3] = {nx, ny, nz};
            const bool one_pass = from == to || b_covered(from3, o3, n3, t, cell_width, g.cutoff, half, &folded);
            double e_old = 0.0, e_new = 0.0;
            if (!one_pass) folded = false; /* b around its own cell: the stencil's shifts are its minimum images */
            auto pass = [&](auto want, cell3 around, int want_now) {
                cells_pair_energy<MIX, decltype(want)::value>(x, y, z, count, slots, cap, m, around, i, ox, oy, oz, nx,
                                                              ny, nz, want_now, folded, box, pr, &wcells[w],
                                                              &e_old, &e_new);
            };
            if constexpr (MIX) { /* one copy of the loop (above) */
                for (int second = 0; second < (one_pass ? 1 : 2); second++)
                    pass(std::integral_constant<int, WANT_AT_RUN_TIME>(), second ? to3 : from3,
                         one_pass ? A_SUM | B_SUM : second ? B_SUM : A_SUM);
            } else if (one_pass) {
                pass(std::integral_constant<int, A_SUM | B_SUM>(), from3, 0);
            } else {
                pass(std::integral_constant<int, A_SUM>(), from3, 0);
                pass(std::integral_constant<int, B_SUM>(), to3, 0);
            }
            double part = e_new - e_old; /* the warp's lanes added in a fixed order */
            for (int off = 16; off > 0; off >>= 1) part += __shfl_down_sync(0xffffffffu, part, off);
            if (lane == 0)
                trial[tw] = batch_trial<real>{part, {ox, oy, oz}, {nx, ny, nz}, i, from, to};
        }
        __syncthreads(); /* the batch's evaluations visible */
        if (w == 0) { /* the corrections of every pair of the batch's trials, a pair a lane: the same whichever
                         earlier trials are accepted, and the decisions then only add them */
            for (int e = lane; e < BATCH * (BATCH - 1) / 2; e += 32) { /* pair e of the triangle a < k: one
                                                                            round of the lanes at 8 trials, 4 at 16 */
                int k = 1;
                while ((k + 1) * k / 2 <= e) k++;
                const int a = e - k * (k - 1) / 2;
                if (k >= batch) continue;
                const batch_trial<real> &tk = trial[k], &ta = trial[a];
                typename prec<real>::params p = pr.one;
                if constexpr (MIX) p = pr.of(pr.species_of(tk.particle), pr.species_of(ta.particle));
                corr[k][a] = cu_pair_correction(tk.old_pos[0], tk.old_pos[1], tk.old_pos[2], tk.new_pos[0],
                                                tk.new_pos[1], tk.new_pos[2], ta.old_pos, ta.new_pos, box, beta, p);
            }
            __syncwarp();
        }
        if (w == 0) { /* the decisions (decide_in_waves); then, in trial order, the energy and the cell moves */
            int stop;
            double dE;
            bool cancel;
            const unsigned accepted = decide_in_waves(trial, corr, batch, next.threshold + (mv - base), beta, &stop, &dE,
                                                      &cancel);
            if (accepted >> lane & 1u) { /* the accepted trials' particles differ: each one's own lane */
                const batch_trial<real> &tk = trial[lane];
                x[tk.particle] = tk.new_pos[0], y[tk.particle] = tk.new_pos[1], z[tk.particle] = tk.new_pos[2];
            }
            for (unsigned r = accepted; r; r &= r - 1u) {
                const int k = __ffs(r) - 1;
                const double dE_k = __shfl_sync(0xffffffffu, dE, k);
                const batch_trial<real> &tk = trial[k];
                if (lane != 0) continue;
                s_energy += dE_k;
                if (tk.from == tk.to || s_overflow) continue;
                /* out of its cell: the cell's last member takes its slot; into the new cell's end */
                const int i = tk.particle, at = slot_of[i], last = slots[tk.from * cap + --count[tk.from]];
                slots[tk.from * cap + at] = last, slot_of[last] = at;
                if (count[tk.to] == cap) s_overflow = 1, *g.overflow = 1; /* reported by the host; the run stops */
                else slots[tk.to * cap + count[tk.to]] = i, slot_of[i] = count[tk.to]++;
            }
            if (lane == 0) {
                if (cancel) CU_CANCEL_TRACE("many-chains-cells", step0 + mv + stop);
                s_accepted += __popc(accepted);
                s_decided = stop;
            }
        }
        __syncthreads(); /* how far the batch got */
        mv += s_decided;
    }
    __syncthreads();
    for (int c = threadIdx.x; c < ncells; c += blockDim.x) g_count[c] = count[c];
    if (STAGED)
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) gx[j] = x[j];
    if (threadIdx.x == 0) cd->step = step0 + moves, cd->accepted = s_accepted, cd->energy = s_energy;
}

static size_t count_bytes(const cu_cells_dev *g) { return ((size_t)g->m * g->m * g->m * sizeof(int) + 15) / 16 * 16; }

enum { FOUR_STAGED = 1, TWO_STAGED, FOUR_IN_GLOBAL }; /* cu_view.chain_cells_block */

/* A block's dynamic shared memory: the chain's cell counts and, staged, its positions. */
template <typename real, typename block> static size_t dynamic_bytes(const cu_view *v)
{
    return count_bytes(&v->chain_cells) + (block::staged ? 3 * (size_t)v->n * sizeof(real) : 0);
}

/* The kernel's dynamic shared memory is allowed at each launch, not once: another backend of the
 * process (the tests hold several) may have allowed the same kernel less. */
template <typename real, bool MIX, typename block>
static int launch_block(const cu_view *v, long long moves, mc_err *err)
{
    auto kernel = cells_chains_kernel<real, MIX, block>;
    const size_t bytes = dynamic_bytes<real, block>(v);
    CU_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), err);
    kernel<<<v->nchains, block::threads, bytes>>>(v->chains, (real *)v->pos, v->n, moves, cu_pairs_of<real>(v), v->seed,
                                                  v->chain_cells);
    CU_LAUNCHED(err);
    return MC_OK;
}

/* The block for these chains (chain_block), once at setup: four chains of 256 an SM with their
 * positions staged where four such blocks fit an SM, else two staged chains of 512 where two fit,
 * else four reading the positions from global memory. The two-chain block decides batches of 16 trials, the others of 8, and the
 * energy's last bits depend on the batch (a trial's energy change is its sum against the batch's
 * start plus the corrections), so the choice is made for the GPU the run's kernels are shaped for
 * (mc_plan.gpu_smem_per_block: the same on every rank and after a restart), not for this one. An
 * SM's shared memory is taken as a block's opt-in limit and the 1 kB the GPU reserves for each
 * block (compute capability 8.0 to 9.0: 164 and 163 kB, 228 and 227 kB). */
template <typename real, bool MIX>
static int choose_block(cu_view *v, mc_err *err)
{
    enum { RESERVED = 1024 }; /* bytes of shared memory an SM reserves for each resident block */
    const size_t per_block = (size_t)v->smem_per_block, per_sm = per_block + RESERVED;
    cudaFuncAttributes attr;
    auto fits = [&](auto block, size_t chains, bool *ok) -> int { /* *ok: chains such blocks fit an SM */
        typedef decltype(block) B;
        CU_TRY(cudaFuncGetAttributes(&attr, cells_chains_kernel<real, MIX, B>), err);
        const size_t bytes = dynamic_bytes<real, B>(v) + attr.sharedSizeBytes;
        *ok = bytes <= per_block && chains * (bytes + RESERVED) <= per_sm;
        return MC_OK;
    };
    bool ok = false;
    MC_TRY(fits(four_staged(), CHAIN_FOUR_STAGED_AT, &ok));
    if (ok) return v->chain_cells_block = FOUR_STAGED, MC_OK;
    MC_TRY(fits(two_staged(), two_staged::chains_per_sm, &ok));
    if (CHAIN_STAGE_TWO && ok) return v->chain_cells_block = TWO_STAGED, MC_OK;
    MC_TRY(fits(four_in_global(), 1, &ok));
    if (!ok)
        MC_FAIL(err, MC_ECHECK, "internal: %zu bytes of cell counts exceed the GPU's shared memory",
                count_bytes(&v->chain_cells));
    return v->chain_cells_block = FOUR_IN_GLOBAL, MC_OK;
}

template <typename real, bool MIX>
static int launch_cells_chains(const cu_view *v, long long moves, mc_err *err)
{
    switch (v->chain_cells_block) {
    case FOUR_STAGED: return launch_block<real, MIX, four_staged>(v, moves, err);
    case TWO_STAGED: return launch_block<real, MIX, two_staged>(v, moves, err);
    case FOUR_IN_GLOBAL: return launch_block<real, MIX, four_in_global>(v, moves, err);
    }
    MC_FAIL(err, MC_ECHECK, "internal: the chain kernel's cell lists have no block (setup not run)");
}

int cu_sweep_cells_chains(const cu_view *v, long long moves, mc_err *err)
{
    return by_precision_and_mix(v, [&](auto real_tag, auto mix) {
        return launch_cells_chains<decltype(real_tag), decltype(mix)::value>(v, moves, err);
    });
}

/* ---- the lists ------------------------------------------------------------------------------- */

/* One block per chain: every particle into the cell of its stored coordinates (slots in any
 * order; cu_cells_sort_lists orders them). */
template <typename real>
__global__ void build_chain_cells_kernel(const cu_chain_dev *chains, const real *pos, int n, cu_cells_dev g)
{
    const int m = g.m, ncells = m * m * m;
    int *count = g.count + (size_t)blockIdx.x * ncells, *slots = g.slot + (size_t)blockIdx.x * ncells * g.cap;
    const real *x = pos + (size_t)blockIdx.x * 3 * n, *y = x + n, *z = y + n;
    const real box = (real)chains[blockIdx.x].box, inv_w = (real)m / box; /* as the sweep kernel has it */
    for (int c = threadIdx.x; c < ncells; c += blockDim.x) count[c] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        int c = cell_index(x[i], y[i], z[i], inv_w, m), s = atomicAdd(&count[c], 1);
        if (s < g.cap) slots[c * g.cap + s] = i;
        else *g.overflow = 1;
    }
    __syncthreads();
    for (int c = threadIdx.x; c < ncells; c += blockDim.x)
        if (count[c] > g.cap) count[c] = g.cap; /* the run stops; keep the sort in bounds */
}

int cu_chain_cells_overflowed(const cu_view *v, mc_err *err)
{
    int overflow = 0;
    CU_TRY(cudaMemcpy(&overflow, v->chain_cells.overflow, sizeof overflow, cudaMemcpyDeviceToHost), err);
    if (overflow)
        MC_FAIL(err, MC_ECHECK, "a GPU cell list of the many-chain kernel exceeded its capacity of %d particles "
                "([run] gpu_cell_lists = no runs these chains over all pairs)", v->chain_cells.cap);
    return MC_OK;
}

int cu_chain_cells_rebuild(const cu_view *v, mc_err *err)
{
    const cu_cells_dev *g = &v->chain_cells;
    if (v->single) build_chain_cells_kernel<float><<<v->nchains, 256>>>(v->chains, (const float *)v->pos, v->n, *g);
    else build_chain_cells_kernel<double><<<v->nchains, 256>>>(v->chains, (const double *)v->pos, v->n, *g);
    CU_LAUNCHED(err);
    MC_TRY(cu_cells_sort_lists(g, v->nchains, v->n, err));
    return cu_chain_cells_overflowed(v, err);
}

int cu_chain_cells_setup(cu_view *v, double min_box, double cutoff, mc_err *err)
{
    cu_cells_dev *g = &v->chain_cells;
    memset(g, 0, sizeof *g);
    const int m = mc_cell_grid_choose(v->n, min_box, cutoff).m;
    if (!m) return MC_OK;
    size_t ncells = (size_t)m * m * m, C = (size_t)v->nchains;
    double per_cell = (double)v->n / (double)ncells;
    int cap = ((int)(4 * per_cell) + 32 + 7) / 8 * 8; /* room for density fluctuations; overflow is detected */
    /* decided from the plan alone (never from the memory free on the device, which would make the
     * kernel, and so a chain's last bits, depend on the rank's other chains): too little memory is
     * an error that names the way out */
    g->m = m, g->cap = cap, g->cutoff = cutoff;
    if (cudaMalloc(&g->count, C * ncells * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&g->slot, C * ncells * cap * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&g->slot_of, C * v->n * sizeof(int)) != cudaSuccess) {
        cudaGetLastError(); /* clear the failed allocation's error */
        MC_FAIL(err, MC_ENOMEM, "out of GPU memory for %zu MB of cell lists for %zu chains ([run] gpu_cell_lists = no "
                "runs them over all pairs)", (C * ncells * (cap + 1) + C * v->n) * sizeof(int) >> 20, C);
    }
    CU_TRY(cudaMalloc(&g->overflow, sizeof(int)), err);
    CU_TRY(cudaMemset(g->overflow, 0, sizeof(int)), err);
    MC_TRY(by_precision_and_mix(v, [&](auto real_tag, auto mix) {
        return choose_block<decltype(real_tag), decltype(mix)::value>(v, err);
    }));
    return cu_chain_cells_rebuild(v, err);
}

void cu_chain_cells_free(cu_view *v)
{
    cu_cells_dev *g = &v->chain_cells;
    cudaFree(g->count), cudaFree(g->slot), cudaFree(g->slot_of), cudaFree(g->overflow);
    memset(g, 0, sizeof *g);
    v->chain_cells_block = 0;
}
