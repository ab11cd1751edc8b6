/* mc_cell_grid: how the GPU's many-chain kernel lays cell lists over its chains' boxes, written once
 * for the kernel's set-up (cuda/cu_chain_cells.cu) and the benchmark's count of the pair terms a
 * move evaluates (src/bench.c). Cells at least a cutoff wide, m per edge (the same m for all
 * chains, from the smallest box), so that the 27 cells around a point's own hold every partner
 * within the cutoff. (Half-cutoff cells, 125 around a point, hold fewer members but add more
 * cells to visit; they pay nothing.) */
#ifndef MC_CELL_GRID_H
#define MC_CELL_GRID_H

#include <math.h>

typedef struct mc_cell_grid {
    int m;          /* cells per box edge; 0: no cell lists, all pairs */
    double members; /* expected members of the 27 cells around one position (all pairs: n) */
} mc_cell_grid;

enum { MC_CELL_GRID_MAX_EDGE = 16 }; /* a chain's counts stay in 16 kB of shared memory */

/* The grid for chains of n particles whose smallest box is min_box, or none when the 27 cells
 * would hold more than 0.3 n members: beyond that the cell kernel is no faster than all pairs. */
static inline mc_cell_grid mc_cell_grid_choose(int n, double min_box, double cutoff)
{
    mc_cell_grid all_pairs = {0, (double)n};
    if (!isfinite(cutoff) || cutoff <= 0) return all_pairs;
    /* a hair wider than the cutoff: a coordinate's cell is found in the kernel's precision, and a
     * cell exactly rc wide could lose a pair within rc to a rounding at its edge */
    int m = (int)floor(min_box / (cutoff * (1.0 + 1e-6))), most = (int)cbrt(8.0 * n); /* wider cells are as exact */
    if (m > most) m = most;
    if (m > MC_CELL_GRID_MAX_EDGE) m = MC_CELL_GRID_MAX_EDGE;
    if (m < 3) return all_pairs; /* the 27 cells must be distinct */
    double members = 27.0 * n / ((double)m * m * m);
    return members <= 0.3 * n ? (mc_cell_grid){m, members} : all_pairs;
}

#endif
