/* mc_lattice: starting configurations. A lattice of M^3 cells is chosen just large enough for n
 * particles and filled site by site in order; positions land in [0, box). */
#ifndef MC_LATTICE_H
#define MC_LATTICE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Nearest-neighbour distance of the lattice mc_lattice_fill() would build. */
double mc_lattice_spacing(int lattice, int n, double box_len);

/* Write n positions (structure of arrays) for the given enum cfg_lattice. */
void mc_lattice_fill(int lattice, int n, double box_len, double *x, double *y, double *z);

#ifdef __cplusplus
}
#endif
#endif
