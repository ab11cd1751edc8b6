/* cu_ewald.cuh: the Fourier part of the Ewald sum on the device, for the molecule kernels
 * (src/ewald.h is the host's, and the reference). Each chain keeps its structure factors S(k) and
 * its box's coefficients in device memory. A move's change of S(k) is computed one thread per wave
 * vector from phase tables of the moved sites (each site's exp(i 2 pi m u / L) along each axis,
 * built by powers as ewald.c's phases_of builds them), with ewald.c's arithmetic term for term
 * (row_phase, the sum over the moved sites in their order, energy_change): a vector's S(k) and its
 * change are the host's to the last bit but for the device's cos and sin (and, in the box's
 * coefficients, exp), within an ulp of the host's; the sum of the energy change over the vectors
 * is in another (the block's) order. An upload of positions recomputes the S(k) of the chains
 * that changed (a volume step, a trade), as the CPU backend does, so that no chain's bits depend on
 * its rank-mates' trades.
 * A thread owns the vectors k = tid, tid + blockDim.x, ...: it writes their change, and takes it
 * into S(k) when the move is accepted, with no barrier between (cu_rigid.cu's sweep kernel).
 * Files that include it are built with -fmad=false (cu_rigid.cu says why). */
#ifndef CU_EWALD_CUH
#define CU_EWALD_CUH

#include "mc_err.h"
#include "mc_plan.h"

/* The Ewald sum of a run's chains on the device; plain data, by value into the kernels. */
typedef struct cu_ewald {
    int nk;            /* wave vectors in the half set (ewald_kspace.nk) */
    int kmax;          /* |n_x|, |n_y|, |n_z| <= kmax: a phase table holds m = -kmax .. kmax */
    double alpha, k_e; /* splitting parameter (1/length); Coulomb's constant */
    const int *n;      /* [nk][3] the integer vectors, in ewald_kspace's order */
    const double *q;   /* [sites] each site's charge */
    double *coeff;     /* [chain][nk] (4 pi k_e / V) exp(-k^2 / (4 alpha^2)) / k^2 of its box */
    double *s;         /* [chain][2][nk] S(k): re, then im */
    double *ds;        /* [chain][2][nk] a trial move's change of S(k), each entry its own thread's */
    int max_sites;     /* sites of the largest molecule */
    double *phase;     /* [chain][2 max_sites][3][2][2 kmax + 1] a move's sites' tables, old then moved,
                        * where they do not fit in shared memory (cu_ewald_phase_rows); else NULL */
} cu_ewald;

/* Doubles in one site's phase table: [axis][re, im][m + kmax]. */
__host__ __device__ inline int ewald_table_len(int kmax) { return 3 * 2 * (2 * kmax + 1); }

/* One axis of a site's phase table at coordinate u: re[m] + i im[m] = exp(i 2 pi m u / box) for
 * m = -kmax .. kmax (re and im point at m = 0), ewald.c's phases_of. */
__device__ inline void ewald_axis_phases(double u, double box, int kmax, double *re, double *im)
{
    const double t = 2.0 * M_PI * u / box, c = cos(t), s = sin(t);
    re[0] = 1.0, im[0] = 0.0;
    for (int m = 1; m <= kmax; m++) {
        re[m] = re[m - 1] * c - im[m - 1] * s;
        im[m] = re[m - 1] * s + im[m - 1] * c;
        re[-m] = re[m], im[-m] = -im[m];
    }
}

/* The site's table at its three coordinates r (stride 1) into tab (ewald_table_len doubles). */
__device__ inline double *ewald_axis_of(double *tab, int kmax, int axis, int im)
{
    return tab + (2 * axis + im) * (2 * kmax + 1) + kmax;
}

/* exp(i k . r) of wave vector n from a site's table: ewald.c's row_phase (x and y) and its run
 * along z, in that order. */
__device__ inline void ewald_site_phase(const double *tab, int kmax, const int *n, double *re, double *im)
{
    const int W = 2 * kmax + 1;
    const double ar = tab[0 * W + kmax + n[0]], ai = tab[1 * W + kmax + n[0]];
    const double br = tab[2 * W + kmax + n[1]], bi = tab[3 * W + kmax + n[1]];
    const double zr = tab[4 * W + kmax + n[2]], zi = tab[5 * W + kmax + n[2]];
    const double xr = ar * br - ai * bi, xi = ar * bi + ai * br;
    *re = xr * zr - xi * zi;
    *im = xr * zi + xi * zr;
}

/* The energy change of vector k's S(k) (sr, si) changing by (dr, di): ewald.c's energy_change. */
__device__ inline double ewald_vector_change(double coeff, double sr, double si, double dr, double di)
{
    return coeff * (2.0 * (sr * dr + si * di) + dr * dr + di * di);
}

/* ---- host side (cu_ewald.cu) ---------------------------------------------------------------- */

typedef struct rigid_chain_dev rigid_chain_dev; /* cu_rigid.cuh */

/* The plan's wave vectors and charges on the device, and the structure factors, coefficients,
 * and changes of nchains chains (not yet computed: cu_ewald_recompute). */
int cu_ewald_create(cu_ewald *e, const mc_plan *p, int nchains, mc_err *err);
/* e->phase for nchains chains: only where a move's phase tables do not fit in shared memory (up to
 * 0.8 MB a chain at kmax 64, so not allocated when unused). */
int cu_ewald_phase_rows(cu_ewald *e, int nchains, mc_err *err);
void cu_ewald_free(cu_ewald *e); /* safe on a zeroed or partly created e */

/* S(k) and the coefficients of the chains at (chains' boxes, pos [chain][3][n], centres
 * [chain][3][nmol]) into s_out [chain][2][nk] and coeff_out [chain][nk], and their Fourier energies
 * and molecular virials into energy[chain] and virial[chain] (device memory), launched on the
 * default stream; with `only` (device memory, [nchains]) those of the chains with only[c] alone,
 * the others' left as they are. */
int cu_ewald_recompute(const cu_ewald *e, const rigid_chain_dev *chains, const double *pos, const double *centres,
                       const int *site_mol, int n, int nmol, int nchains, double *s_out, double *coeff_out,
                       double *energy, double *virial, const unsigned char *only, mc_err *err);

#endif
