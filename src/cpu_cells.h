/* cpu_cells: a cell list over a cubic periodic box for the CPU backend. Cells are at least min_len
 * wide, so all partners within min_len of a particle lie in its 27 surrounding cells. Each cell's
 * members sit in an array of `cap` slots, so that a gather reads index arrays instead of chasing
 * a linked list (whose chase would be much of a move's time);
 * moving a particle is O(1): the last member of its old cell takes its slot. Used only when there
 * are at least 4 cells per edge (with 3 the 27 cells are the whole box and the list only adds
 * overhead). */
#ifndef CPU_CELLS_H
#define CPU_CELLS_H

#include <stddef.h>

#include "mc_err.h"

typedef struct cpu_cells {
    int ncell;              /* per edge; 0 means the list is not used */
    double inv_cell_len;    /* ncell / box */
    int cap;                /* slots per cell: grows (doubling) where a cell would overflow */
    int *count;             /* [ncell^3] members of each cell */
    int *slot;              /* [ncell^3][cap]: ascending after a build, then in the order moves leave them */
    int *cell_of, *slot_of; /* [n] */
    double *gx, *gy, *gz;   /* [n] scratch: members gathered by cpu_cells_gather */
} cpu_cells;

/* Size the grid for n particles; allocates only when the list pays (ncell >= 4). */
int cpu_cells_init(cpu_cells *g, int n, double box_len, double min_len, mc_err *err);
void cpu_cells_fini(cpu_cells *g);

int cpu_cells_index(const cpu_cells *g, double x, double y, double z);
/* Every cell's members in ascending index (the order a restart builds); MC_ENOMEM if the slots
 * cannot grow to the fullest cell. */
int cpu_cells_build(cpu_cells *g, int n, const double *x, const double *y, const double *z, mc_err *err);
/* Particle i into new_cell; MC_ENOMEM if that cell is full and the slots cannot grow. */
int cpu_cells_move(cpu_cells *g, int i, int new_cell, mc_err *err);

/* The 27 cells around cell c (c itself included), periodic. */
void cpu_cells_neighbours(const cpu_cells *g, int c, int out[27]);

/* The members of cell c: count and slots (in the order the grid holds them). */
static inline const int *cpu_cells_members(const cpu_cells *g, int c, int *count)
{
    *count = g->count[c];
    return g->slot + (size_t)c * g->cap;
}

/* The coordinates of the members of the 27 cells around cell c, particle skip left out, copied in
 * slot order into g->gx, gy, gz (scratch, hence a const list): a pair loop over them vectorises.
 * Particles come in nblocks index blocks (species: block b is [first[b], first[b + 1])); block
 * b's members go to [first[b], end[b]) of the scratch. */
void cpu_cells_gather(const cpu_cells *g, int c, int skip, const double *x, const double *y, const double *z,
                      const int *first, int nblocks, int *end);

#endif
