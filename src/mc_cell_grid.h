/* mc_cell_grid: how the GPU's many-chain kernel lays cell lists over its chains' boxes, written once
 * for the kernel's set-up (cuda/cu_chain_cells.cu) and the benchmark's count of the pair terms a
 * move evaluates (src/bench.c). Cells are at least cutoff / reach wide, so the (2 reach + 1)^3 cells
 * around a point's own cell hold every partner within the cutoff. Half-cutoff cells (reach 2) hold
 * fewer candidates (125 cells of an eighth of the volume: 0.46 of the 27 cutoff-wide cells' count),
 * but a move then walks 125 runs instead of 27. */
#ifndef MC_CELL_GRID_H
#define MC_CELL_GRID_H

#include <math.h>

typedef struct mc_cell_grid {
    int reach;      /* cells per cutoff (1 or 2); 0: no cell lists, all pairs */
    int m;          /* cells per box edge */
    double members; /* expected members of the cells around one position (all pairs: n) */
} mc_cell_grid;

enum { MC_CELL_GRID_MAX_EDGE = 16 }; /* a chain's counts stay in 16 kB of shared memory */

/* The grid for chains of n particles whose smallest box is min_box: the reach whose cells hold the
 * fewest members, counting a cell's own overhead as one member; none when that is more than 0.3 n
 * (measured on an H100: 0.22 n ran 1.36 times the all-pairs kernel, 0.42 n as fast as it;
 * doc/performance.md version 16). */
static inline mc_cell_grid mc_cell_grid_choose(int n, double min_box, double cutoff)
{
    mc_cell_grid all_pairs = {0, 0, (double)n}, best = all_pairs;
    double best_cost = (double)n;
    if (!isfinite(cutoff) || cutoff <= 0) return all_pairs;
    for (int reach = 1; reach <= 2; reach++) {
        int m = (int)floor(min_box * reach / cutoff), most = (int)cbrt(8.0 * n); /* wider cells are as exact */
        if (m > most) m = most;
        if (m > MC_CELL_GRID_MAX_EDGE) m = MC_CELL_GRID_MAX_EDGE;
        if (m < 2 * reach + 1) continue; /* the stencil's cells must be distinct */
        double side = 2 * reach + 1, cells = side * side * side, members = cells * n / ((double)m * m * m);
        if (members + cells < best_cost) best = (mc_cell_grid){reach, m, members}, best_cost = members + cells;
    }
    return best_cost <= 0.3 * n ? best : all_pairs;
}

#endif
