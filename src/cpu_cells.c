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
    g->count = calloc(ncells, sizeof *g->count);
    g->cell_of = malloc((size_t)n * sizeof *g->cell_of);
    g->slot_of = malloc((size_t)n * sizeof *g->slot_of);
    g->gx = malloc((size_t)n * sizeof *g->gx);
    g->gy = malloc((size_t)n * sizeof *g->gy);
    g->gz = malloc((size_t)n * sizeof *g->gz);
    if (!g->count || !g->cell_of || !g->slot_of || !g->gx || !g->gy || !g->gz) {
        cpu_cells_fini(g);
        MC_FAIL(err, MC_ENOMEM, "out of memory for a cell list of %zu cells", ncells);
    }
    return MC_OK; /* the slots come with the first build, sized to its fullest cell */
}

void cpu_cells_fini(cpu_cells *g)
{
    free(g->count);
    free(g->slot);
    free(g->cell_of);
    free(g->slot_of);
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

static size_t cell_count(const cpu_cells *g) { return (size_t)g->ncell * g->ncell * g->ncell; }

/* cap slots per cell, each cell's members kept in their slots (keep: copy the present ones). */
static int resize_slots(cpu_cells *g, int cap, int keep, mc_err *err)
{
    size_t ncells = cell_count(g);
    int *slot = malloc(ncells * (size_t)cap * sizeof *slot);
    if (!slot)
        MC_FAIL(err, MC_ENOMEM, "out of memory for a cell list of %zu cells of %d slots", ncells, cap);
    if (keep)
        for (size_t c = 0; c < ncells; c++)
            memcpy(slot + c * cap, g->slot + c * g->cap, (size_t)g->count[c] * sizeof *slot);
    free(g->slot);
    g->slot = slot, g->cap = cap;
    return MC_OK;
}

int cpu_cells_build(cpu_cells *g, int n, const double *x, const double *y, const double *z, mc_err *err)
{
    size_t ncells = cell_count(g);
    int fullest = 0;
    memset(g->count, 0, ncells * sizeof *g->count);
    for (int i = 0; i < n; i++) {
        int c = g->cell_of[i] = cpu_cells_index(g, x[i], y[i], z[i]);
        if (++g->count[c] > fullest) fullest = g->count[c];
    }
    /* room for the density to fluctuate; a cell that fills later doubles the slots (cpu_cells_move) */
    if (fullest > g->cap) MC_TRY(resize_slots(g, fullest + fullest / 2 + 4, 0, err));
    memset(g->count, 0, ncells * sizeof *g->count);
    for (int i = 0; i < n; i++) { /* ascending index in every cell */
        int c = g->cell_of[i];
        g->slot[(size_t)c * g->cap + g->count[c]] = i;
        g->slot_of[i] = g->count[c]++;
    }
    return MC_OK;
}

int cpu_cells_move(cpu_cells *g, int i, int new_cell, mc_err *err)
{
    int old = g->cell_of[i];
    if (old == new_cell) return MC_OK;
    if (g->count[new_cell] == g->cap) MC_TRY(resize_slots(g, 2 * g->cap, 1, err));
    int *from = g->slot + (size_t)old * g->cap, *to = g->slot + (size_t)new_cell * g->cap;
    int last = from[--g->count[old]]; /* takes i's slot */
    from[g->slot_of[i]] = last, g->slot_of[last] = g->slot_of[i];
    to[g->count[new_cell]] = i, g->slot_of[i] = g->count[new_cell]++;
    g->cell_of[i] = new_cell;
    return MC_OK;
}

void cpu_cells_neighbours(const cpu_cells *g, int c, int out[27])
{
    int m = g->ncell, cz = c % m, cy = (c / m) % m, cx = c / (m * m), k = 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++)
                out[k++] = (((cx + dx + m) % m) * m + (cy + dy + m) % m) * m + (cz + dz + m) % m;
}

/* cpu_cells_gather's copy into fill[block]++; inlined twice so that a pure fluid's (nblocks the
 * constant 1) looks up no species. Through restrict pointers and a local fill: stored through g
 * and end, each member's copy could alias them, and the loop reloaded both after every member
 * (perf annotate). */
static inline __attribute__((always_inline)) void gather_blocks(const cpu_cells *g, const int around[27], int skip,
                                                                const double *x, const double *y, const double *z,
                                                                const int *first, int nblocks, int *fill)
{
    double *restrict gx = g->gx, *restrict gy = g->gy, *restrict gz = g->gz;
    for (int k = 0; k < 27; k++) {
        int count;
        const int *member = cpu_cells_members(g, around[k], &count);
        for (int s = 0; s < count; s++) {
            const int j = member[s];
            if (j == skip) continue;
            const int at = fill[nblocks == 1 ? 0 : mc_species_block(first, nblocks, j)]++;
            gx[at] = x[j], gy[at] = y[j], gz[at] = z[j];
        }
    }
}

void cpu_cells_gather(const cpu_cells *g, int c, int skip, const double *x, const double *y, const double *z,
                      const int *first, int nblocks, int *end)
{
    int around[27], fill[MC_MAX_SPECIES];
    cpu_cells_neighbours(g, c, around);
    for (int b = 0; b < nblocks; b++) fill[b] = first[b];
    if (nblocks == 1) gather_blocks(g, around, skip, x, y, z, first, 1, fill);
    else gather_blocks(g, around, skip, x, y, z, first, nblocks, fill);
    for (int b = 0; b < nblocks; b++) end[b] = fill[b];
}
