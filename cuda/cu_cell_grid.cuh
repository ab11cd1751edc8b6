/* cu_cell_grid: the cell grid that both cell-list paths share (cu_cells.cu, large chains one at a time;
 * cu_chain_cells.cu, many chains): m^3 cells per chain box, at least one cutoff wide, so that every
 * partner within the cutoff of a point lies in the 27 cells around the point's own. A particle's
 * cell is always computed from its stored coordinates by cell_index, on the host and the device
 * alike, so that a list built from positions and one kept up to date by moves agree. */
#ifndef CU_CELL_GRID_CUH
#define CU_CELL_GRID_CUH

#include "cu_backend.h"

template <typename real> __host__ __device__ static inline int cell_axis(real x, real inv_w, int m)
{
    int k = (int)(x * inv_w);
    return k < m ? k : m - 1; /* x * inv_w may round up to m just below the box edge */
}

/* The cell of a point of [0, box)^3, inv_w = m / box. */
template <typename real>
__host__ __device__ static inline int cell_index(real x, real y, real z, real inv_w, int m)
{
    return (cell_axis(x, inv_w, m) * m + cell_axis(y, inv_w, m)) * m + cell_axis(z, inv_w, m);
}

/* A cell by its three axis indices. */
typedef struct cell3 {
    int x, y, z;
} cell3;

template <typename real> __device__ static inline cell3 cell3_of(real x, real y, real z, real inv_w, int m)
{
    return cell3{cell_axis(x, inv_w, m), cell_axis(y, inv_w, m), cell_axis(z, inv_w, m)};
}

__device__ static inline int cell3_index(cell3 c, int m) { return (c.x * m + c.y) * m + c.z; }

/* Neighbour k (0 to 26; 13 is c itself) of cell c, periodic. */
__device__ static inline int neighbour_cell(int c, int k, int m)
{
    int cz = c % m, cy = (c / m) % m, cx = c / (m * m);
    int dx = k / 9 - 1, dy = (k / 3) % 3 - 1, dz = k % 3 - 1;
    return (((cx + dx + m) % m) * m + (cy + dy + m) % m) * m + (cz + dz + m) % m;
}

#endif
