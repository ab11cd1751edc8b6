/* cu_cell_grid: the cell grid that both cell-list paths share (cu_cells.cu, large chains one at a time;
 * cu_chain_cells.cu, many chains): m^3 cells per chain box, at least one cutoff wide, so that every
 * partner within the cutoff of a point lies in the 27 cells around the point's own. A particle's
 * cell is always computed from its stored coordinates by cell_index, on the host and the device
 * alike, so that a list built from positions and one kept up to date by moves agree. cells_energy
 * sums a position's pair terms over the 27 cells (cu_cells.cu's trials, cu_cells_grid.cu's Widom
 * insertions). */
#ifndef CU_CELL_GRID_CUH
#define CU_CELL_GRID_CUH

#include "cu_backend.h"
#include "cu_kernels.cuh"

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

/* Energy of particle p placed at q with the members of neighbour cells k0, k0 + stride, ... < 27
 * of q's cell (batch-start positions), pair terms rounded in real and added in double: of each
 * cell the groups of four members part, part + parts, ... (parts: 1, all of them). */
template <typename real>
__device__ double cells_energy(const cu_cells_dev &g, const real *pos, int n, int p, real qx,
                               real qy, real qz, real box, int k0, int stride,
                               const typename prec<real>::params &lj, int part = 0, int parts = 1)
{
    const real *x = pos, *y = pos + n, *z = pos + 2 * n;
    real inv_w = (real)g.m / box;
    int home = cell_index(qx, qy, qz, inv_w, g.m);
    return cu_specialised(lj, [&](const typename prec<real>::params &pp) {
        double e = 0.0;
        for (int k = k0; k < 27; k += stride) {
            int c = neighbour_cell(home, k, g.m);
            const int *members = g.slot + (size_t)c * g.cap;
            const int count = g.count[c];
            /* four members per round: independent loads in flight instead of one chain of them */
            for (int s = 4 * part; s < count; s += 4 * parts) {
                int j[4];
                real u[4];
                for (int q = 0; q < 4; q++) j[q] = s + q < count ? members[s + q] : -1;
                for (int q = 0; q < 4; q++) {
                    int jj = j[q] >= 0 ? j[q] : max(p, 0); /* padding: any particle (Widom's p is -1) */
                    u[q] = prec<real>::energy(cu_dist2(qx, qy, qz, x[jj], y[jj], z[jj], box), pp);
                }
                for (int q = 0; q < 4; q++)
                    if (j[q] >= 0 && j[q] != p) e += (double)u[q];
            }
        }
        return e;
    });
}

#endif
