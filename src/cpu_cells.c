/* cpu_cells: cell-list bookkeeping for the CPU backend. */
#include "cpu_cells.h"
#include "mc_species.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cpu_cells_init(cpu_cells *g, int n, double box_len, double min_len, mc_err *err)
{
    memset(g, 0, sizeof *g);
    double fit = floor(box_len / min_len);
    /* cells wider than min_len are as correct; beyond about 8 per particle they only hold empty
     * lists (a density of 1e-12 asked for 1e9 of them). Capped as a double: box / cutoff can
     * exceed an int (density 1e-300), and that cast would be undefined. */
    int most = (int)cbrt(8.0 * n);
    int ncell = fit > most ? most : (int)fit;
    if (ncell < 4) return MC_OK;
    size_t ncells = (size_t)ncell * ncell * ncell;
    g->ncell = ncell;
    g->inv_cell_len = ncell / box_len;
    g->head = malloc(ncells * sizeof *g->head);
    g->next = malloc((size_t)n * sizeof *g->next);
    g->prev = malloc((size_t)n * sizeof *g->prev);
    g->cell_of = malloc((size_t)n * sizeof *g->cell_of);
    g->gx = malloc((size_t)n * sizeof *g->gx);
    g->gy = malloc((size_t)n * sizeof *g->gy);
    g->gz = malloc((size_t)n * sizeof *g->gz);
    if (!g->head || !g->next || !g->prev || !g->cell_of || !g->gx || !g->gy || !g->gz) {
        cpu_cells_fini(g);
        MC_FAIL(err, MC_ENOMEM, "out of memory for a cell list of %zu cells", ncells);
    }
    return MC_OK;
}

void cpu_cells_fini(cpu_cells *g)
{
    free(g->head);
    free(g->next);
    free(g->prev);
    free(g->cell_of);
    free(g->gx);
    free(g->gy);
    free(g->gz);
    memset(g, 0, sizeof *g);
}

static int axis_cell(const cpu_cells *g, double x)
{
    int k = (int)(x * g->inv_cell_len);
    return k < g->ncell ? k : g->ncell - 1; /* x * inv may round up to ncell at x ~ box */
}

int cpu_cells_index(const cpu_cells *g, double x, double y, double z)
{
    return (axis_cell(g, x) * g->ncell + axis_cell(g, y)) * g->ncell + axis_cell(g, z);
}

static void link_into(cpu_cells *g, int i, int c)
{
    g->cell_of[i] = c;
    g->prev[i] = -1;
    g->next[i] = g->head[c];
    if (g->head[c] >= 0) g->prev[g->head[c]] = i;
    g->head[c] = i;
}

void cpu_cells_build(cpu_cells *g, int n, const double *x, const double *y, const double *z)
{
    int ncells = g->ncell * g->ncell * g->ncell;
    for (int c = 0; c < ncells; c++) g->head[c] = -1;
    for (int i = n - 1; i >= 0; i--) link_into(g, i, cpu_cells_index(g, x[i], y[i], z[i]));
}

void cpu_cells_move(cpu_cells *g, int i, int new_cell)
{
    int old = g->cell_of[i];
    if (old == new_cell) return;
    if (g->prev[i] >= 0) g->next[g->prev[i]] = g->next[i];
    else g->head[old] = g->next[i];
    if (g->next[i] >= 0) g->prev[g->next[i]] = g->prev[i];
    link_into(g, i, new_cell);
}

void cpu_cells_neighbours(const cpu_cells *g, int c, int out[27])
{
    int m = g->ncell, cz = c % m, cy = (c / m) % m, cx = c / (m * m), k = 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++)
                out[k++] = (((cx + dx + m) % m) * m + (cy + dy + m) % m) * m + (cz + dz + m) % m;
}

void cpu_cells_gather(const cpu_cells *g, int c, int skip, const double *x, const double *y, const double *z,
                      const int *first, int nblocks, int *end)
{
    int around[27];
    cpu_cells_neighbours(g, c, around);
    for (int b = 0; b < nblocks; b++) end[b] = first[b];
    for (int k = 0; k < 27; k++)
        for (int j = g->head[around[k]]; j >= 0; j = g->next[j]) {
            if (j == skip) continue;
            int at = end[nblocks == 1 ? 0 : mc_species_block(first, nblocks, j)]++;
            g->gx[at] = x[j], g->gy[at] = y[j], g->gz[at] = z[j];
        }
}
