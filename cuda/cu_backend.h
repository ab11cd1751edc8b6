/* cu_backend: internals shared by the CUDA backend's files (cu_backend.cu owns the memory,
 * cu_sweep.cu, cu_batched.cu and cu_measure.cu hold the kernels). Only host drivers are declared
 * here; each takes the backend's device view and returns an mc status. */
#ifndef CU_BACKEND_H
#define CU_BACKEND_H

#include <stdint.h>

#include "mc_species.h"
#include "pair.h"
#include "mc_err.h"

/* One chain as the kernels see it; mirrored on the host and copied around launches. */
typedef struct cu_chain_dev {
    double box, half_box, beta, max_displacement;
    unsigned long long step;     /* moves made: the random-number counter */
    unsigned long long accepted;
    double energy;               /* running pair energy */
    unsigned int id;             /* global chain index (keys the random stream) */
    unsigned int production;     /* npt: floor hits count (the run is in production) */
    /* npt, volume moves inside the chain kernel (cu_view.npt): the state point and the counters */
    double pressure, kT;
    double max_step;             /* npt: the chain's step before the cap at half the box */
    unsigned long long volume_moves, volume_accepted, floor_hits;
} cu_chain_dev;

/* npt inside the many-chain kernel: after every sweep of n moves, the volume move the run driver
 * would make (mc_run.c), with its draws made on the host for the launch's sweeps (so that exp and
 * log are glibc's: the boxes are the CPU's to the bit) and the decision by mc_npt_volume_cost. */
typedef struct cu_npt {
    int on;                      /* 0: no volume moves in the kernel */
    int sweeps;                  /* sweeps of this launch: draws per chain */
    double tail_nn, min_box_len, n_scaled; /* mc_plan.npt_tail and min_box_len; atoms per chain */
    const double *draws;         /* device [nchains][sweeps][4]: ln(V'/V), threshold, edge scale
                                    exp(ln(V'/V) / 3), volume ratio exp(ln(V'/V)) */
} cu_npt;

/* Cell lists on the device for chains with a cutoff: one large chain at a time (cu_cells.cu; one
 * grid per chain, m from its own box), or many chains in the many-chain kernel (cu_chain_cells.cu;
 * [nchains] grids of the same m). m^3 cells per chain, at least one cutoff wide, each holding up to
 * cap particle indices. */
typedef struct cu_cells_dev {
    int m, cap;                  /* cells per edge (0: no cell path), slots per cell */
    double cutoff;               /* the pair cutoff the cells are at least as wide as */
    int *count;                  /* [nchains][m^3] (a large chain's grid: nchains = 1) */
    int *slot;                   /* [nchains][m^3][cap] */
    int *cell_of, *slot_of;      /* [nchains][n] (cell_of: the one-chain path only) */
    void *trials;                /* per-batch trial table (cu_cells.cu) */
    int *overflow;               /* set when a cell would exceed cap */
} cu_cells_dev;

enum { CU_MAX_BATCH_TRIALS = 1024 }; /* one block of the decide kernel holds a batch */
/* Chains below this many particles that take the batched path are medium: all pairs, every chain at
 * once (no cell grids, which take large chains one after another), in fatter pair blocks. */
enum { CU_MEDIUM_CHAIN_MAX = 1024 };

typedef struct cu_view {
    int nchains, n, single;      /* single: float pair arithmetic, else double */
    uint64_t seed;
    pair_params pair;              /* a pure fluid's; the kernels derive the float copy themselves */
    int nspecies;                  /* > 1: a mixture, with pair constants in pair_table */
    int species_first[MC_MAX_SPECIES + 1];
    void *pair_table;              /* device [nspecies][nspecies] params in the kernel precision */
    int rdf_pairs;                 /* species pairs of the RDF histograms ([chain][pair][bin]) */
    cu_chain_dev *chains;        /* device [nchains] */
    void *pos;                   /* device [nchains][3][n] of float or double */
    double *partial;             /* device scratch for per-block partial sums */
    double *partial_host;        /* pinned host copy of the measurement partials */
    size_t partial_len;          /* doubles in partial (and partial_host) */
    int sm_count;                /* the GPU the run's kernels are shaped for (mc_plan.gpu_sm_count) */
    int smem_per_block;          /* ... its opt-in shared memory a block, bytes (mc_plan.gpu_smem_per_block) */
    int batch_trials;            /* K: trial moves evaluated together on the batched path */
    /* The large-chain cell path: cells_of is a host array [nchains] of each chain's grid (m == 0:
     * that chain runs the batched all-pairs path), NULL when no chain has one; the path takes the
     * chains one at a time, each through the view cu_chain_view gives, whose `cells` is the
     * chain's grid and whose batch_trials is cells_trials. */
    cu_cells_dev *cells_of;
    cu_cells_dev cells;
    int cells_trials;
    cu_cells_dev chain_cells;    /* cell lists of the many-chain kernel (m == 0: all pairs) */
    int chain_cells_block;       /* their kernel's block (cu_chain_cells.cu's chain_block), chosen at setup */
} cu_view;

/* Advance every chain by `moves` moves. Many small chains: one resident block per chain; with
 * npt.on, moves = npt.sweeps * n and each sweep ends with its volume move. */
int cu_sweep_chains(const cu_view *v, long long moves, const cu_npt *npt, mc_err *err);
/* The same through cell lists (v->chain_cells) where they pay (mc_cell_grid.h); NVT only (a volume
 * move changes the grid). */
int cu_sweep_cells_chains(const cu_view *v, long long moves, mc_err *err);
/* Fewer chains than SMs: batches of K trials of every chain of the view evaluated in parallel, side by side,
 * each accepted in order (exact). */
int cu_sweep_batched(const cu_view *v, long long moves, mc_err *err);
/* Scratch doubles cu_sweep_batched needs. */
size_t cu_batched_scratch(const cu_view *v);
/* Whether the decide kernel's shared memory for the view's K and precision fits this GPU; else an error
 * naming [run] gpu_batch_trials. */
int cu_batched_fits(const cu_view *v, mc_err *err);

/* Large-chain cell path: choose and build each chain's grid for its box (box_len[nchains]) and the
 * host positions (host_pos: [nchains][3][n] in the kernel precision); v->cells_of stays NULL when
 * no chain's grid pays. A chain's choice depends on its own box alone, never on the other chains
 * of its rank. */
int cu_cells_setup(cu_view *v, const void *host_pos, const double *box_len, double cutoff, mc_err *err);
void cu_cells_free(cu_view *v);
/* Bytes of a grid's trial tables (cu_cells_dev.trials) for batches of up to CU_MAX_BATCH_TRIALS
 * trials in positions of real_size bytes (cu_cells.cu lays them out). */
size_t cu_cells_trials_bytes(size_t real_size);
/* Chain c's grid chosen and built again for its box and host positions, after its configuration
 * was replaced (replica exchange). */
int cu_cells_rebuild(cu_view *v, int c, const void *host_pos, double box_len, double cutoff, mc_err *err);
/* Chain c alone: one chain, its positions, its grid and the cell path's K. */
cu_view cu_chain_view(const cu_view *v, int c);
/* The functions below take a one-chain view (cu_chain_view) whose grid has m > 0. step: the
 * chain's step as the launch starts (a prediction the kernels check: a wrong one costs time only). */
int cu_sweep_cells(const cu_view *v, long long moves, double cutoff, unsigned long long step, mc_err *err);
/* Whether a move overflowed the view's grid (sets an error naming its capacity). */
int cu_cells_overflowed(const cu_view *v, mc_err *err);
/* Cell lists (either path's, nchains grids) in canonical order (each cell's members ascending), as
 * a fresh set-up has them. */
int cu_cells_sort_lists(const cu_cells_dev *g, int nchains, int n, mc_err *err);
/* Energy and virial through the cells (and the RDF when rdf_rmax fits in a cell; else rdf must be
 * NULL and the caller counts pairs with cu_measure). */
int cu_measure_cells(const cu_view *v, double *energy, double *virial, unsigned long long *rdf,
                     int bins, double rdf_rmax, double rdf_dr, mc_err *err);
size_t cu_cells_scratch(const cu_view *v);

/* The many-chain kernel's cell lists: choose the grid from the smallest box (mc_cell_grid_choose)
 * and allocate and build the lists (m stays 0 when they do not pay or would crowd the device);
 * build them again after positions changed on the device or were uploaded (replica exchange);
 * free them. Each reports a cell beyond its capacity. */
int cu_chain_cells_setup(cu_view *v, double min_box, double cutoff, mc_err *err);
int cu_chain_cells_rebuild(const cu_view *v, mc_err *err);
int cu_chain_cells_overflowed(const cu_view *v, mc_err *err);
void cu_chain_cells_free(cu_view *v);

/* Widom insertion: per chain the sum of exp(-beta dU) over the draw's test positions (test
 * particles of `species`), into host sums[nchains]; the cell version serves a one-chain view of the
 * cell path (pure fluids only). */
int cu_widom_chains(const cu_view *v, int species, int insertions, long draw, double *sums,
                    mc_err *err);
int cu_widom_cells(const cu_view *v, int insertions, long sample, double *sums, mc_err *err);

/* Full energy and virial of every chain into host arrays [nchains]; with rdf (device
 * [nchains][bins], added to) also the pair histogram out to rmax. */
int cu_measure(const cu_view *v, double *energy, double *virial, unsigned long long *rdf, int bins,
               double rdf_rmax, double rdf_dr, mc_err *err);
size_t cu_measure_scratch(const cu_view *v);

/* npt (all-pairs paths only): the pair energy of every chain whose scale (device [nchains]) is not
 * 1, at its box and positions scaled by it, into host energy[nchains] (0 for the others); and
 * the scaling made permanent in the positions (the caller updates the boxes afterwards). */
int cu_volume_energy(const cu_view *v, const double *scale, double *energy, mc_err *err);
int cu_volume_scale(const cu_view *v, const double *scale, mc_err *err);

#endif
