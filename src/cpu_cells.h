/* cpu_cells: a cell list over a cubic periodic box for the CPU backend. Cells are at least min_len
 * wide, so all partners within min_len of a particle lie in its 27 surrounding cells; doubly linked
 * members make moving one particle O(1). Used only when there are at least 4 cells per edge
 * (with 3 the 27 cells are the whole box and the list only adds overhead). */
#ifndef CPU_CELLS_H
#define CPU_CELLS_H

#include "mc_err.h"

typedef struct cpu_cells {
    int ncell;           /* per edge; 0 means the list is not used */
    double inv_cell_len; /* ncell / box */
    int *head;           /* [ncell^3] first member or -1 */
    int *next, *prev;    /* [n] neighbours in the member list, -1 at the ends */
    int *cell_of;        /* [n] */
    double *gx, *gy, *gz; /* [n] scratch: members gathered by cpu_cells_gather */
} cpu_cells;

/* Size the grid for n particles; allocates only when the list pays (ncell >= 4). */
int cpu_cells_init(cpu_cells *g, int n, double box_len, double min_len, mc_err *err);
void cpu_cells_fini(cpu_cells *g);

int cpu_cells_index(const cpu_cells *g, double x, double y, double z);
void cpu_cells_build(cpu_cells *g, int n, const double *x, const double *y, const double *z);
void cpu_cells_move(cpu_cells *g, int i, int new_cell);

/* The 27 cells around cell c (c itself included), periodic. */
void cpu_cells_neighbours(const cpu_cells *g, int c, int out[27]);

/* The coordinates of the members of the 27 cells around cell c, particle skip left out, copied in
 * list order into g->gx, gy, gz (scratch, hence a const list): a pair loop over them vectorises,
 * where one that follows the lists cannot. Particles come in nblocks index blocks (species: block
 * b is [first[b], first[b + 1])); block b's members go to [first[b], end[b]) of the scratch. */
void cpu_cells_gather(const cpu_cells *g, int c, int skip, const double *x, const double *y, const double *z,
                      const int *first, int nblocks, int *end);

#endif
