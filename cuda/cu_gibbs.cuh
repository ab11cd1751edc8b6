/* cu_gibbs.cuh: what cu_gibbs.cu (atoms, and the path's host side) and cu_gibbs_rigid.cu (molecules)
 * share: the block shape, the chain and constants as the kernels see them, the path's state, the
 * block-wide helpers, and the molecule drivers that cu_gibbs.cu calls. */
#ifndef CU_GIBBS_CUH
#define CU_GIBBS_CUH

#include "cu_check.h"
#include "cu_gibbs.h"
#include "mc_gibbs.h"
#include "mc_move.h"
#include "mc_rigid.h"
#include "pair.h"

/* Threads per chain's block (a multiple of 32, at most 1024); -DCU_GIBBS_THREADS=K overrides it
 * for a measurement (doc/device/threads-gibbs.sh). */
#ifndef CU_GIBBS_THREADS
#define CU_GIBBS_THREADS 128
#endif
enum { GIBBS_THREADS = CU_GIBBS_THREADS, GIBBS_WARPS = GIBBS_THREADS / 32 };

/* One chain as the kernels see it; mirrored from and back into the host chain around a sweep. */
typedef struct gibbs_chain_dev {
    double box_len[2], energy[2];
    double beta, max_displacement, max_volume_step, max_rotation;
    unsigned long long step, accepted, transfers, transfers_accepted, volume_moves, volume_accepted, floor_hits;
    unsigned long long rotations, rotations_accepted; /* molecules */
    int64_t count[2][MC_MAX_SPECIES];
    unsigned int id, production; /* production: floor hits count (mc_chain_in_production) */
    double lnz;                  /* gcmc: the chain's ln z */
    int window_lo, window_hi;    /* gcmc: the N its window allows */
} gibbs_chain_dev;

/* The plan's constants for the kernels, by value. */
typedef struct gibbs_consts {
    pair_params pair[MC_MAX_SPECIES][MC_MAX_SPECIES];
    double tail[MC_MAX_SPECIES][MC_MAX_SPECIES];
    double fraction[3], volume, min_box_len, rdf_rmax, rdf_dr;
    int nspecies, first[MC_MAX_SPECIES + 1], rdf_bins, rdf_rows; /* rows: species pairs (molecules: and centres) */
    int nkinds;  /* what a transfer moves (mc_plan.nkinds): species, or molecule types */
    int kind_first[MC_MAX_SPECIES + 1]; /* molecules: each type's block of molecules */
    int nmol;
    double hard_core2[MC_MAX_SPECIES][MC_MAX_SPECIES];
    unsigned long long seed;
    /* gcmc (mc_gcmc.h): box 1 holds the absent slots and interacts with nothing; ln Pi over
     * N = n_lo .. n_lo + nmacro - 1; bias: moves biased by the chain's estimate */
    int open, n_lo, nmacro, bias;
    double kind_lnz[MC_MAX_SPECIES]; /* each kind's ln z less the state point's (mc_gcmc_lnz) */
} gibbs_consts;

/* gcmc: each chain's transition-matrix record on the device, [chain][nmacro] (rows: [chain][nmacro][3]),
 * mirrored from and back into the host chain around a sweep like the scalars. */
typedef struct tmmc_dev {
    double *rows, *bias, *energy;
    unsigned long long *visits;
} tmmc_dev;

struct cu_gibbs {
    const mc_plan *plan;
    mc_chain **chains;
    int nchains, n;
    gibbs_consts k;
    gibbs_chain_dev *d_chains, *h_chains;
    double *d_pos, *h_pos;           /* [chain][3][n] */
    unsigned char *d_box, *h_box;    /* [chain][n] */
    double *d_sums, *h_sums;         /* [chain][4]: energy and virial of box 0 and 1; insertions [chain] */
    int *d_liquid, *h_liquid;        /* [chain] the box whose RDF a sample counts */
    unsigned long long *d_rdf, *h_rdf; /* [chain][species pairs][bins] one sample's counts */
    size_t smem;                     /* dynamic shared bytes; 0: read from global memory */
    /* molecules: the tables, each chain's centres and orientations, the sites and centres of a
     * trial volume exchange, and the molecule types for test molecules */
    int *d_first, *d_site_mol;       /* [nmol + 1], [n] */
    unsigned char *d_species;        /* [n] */
    double *d_body;                  /* [3 n] */
    double *d_centre, *h_centre;     /* [chain][3][nmol] */
    double *d_quat, *h_quat;         /* [chain][nmol][4] */
    double *d_trial;                 /* [chain][3 n + 3 nmol] */
    double *d_type_body;             /* [type][MC_MAX_SITES][3] test molecules' sites */
    int *d_type_species;             /* [type][MC_MAX_SITES] */
    tmmc_dev d_tmmc, h_tmmc;         /* gcmc only */
};


/* Block-wide sums of a and b, every thread getting the same two numbers (the warps' partials added
 * in a fixed order). Ends with the block synchronised: the scratch may be used again. */
static __device__ void block_sum2(double *a, double *b, double *warp_a, double *warp_b)
{
    for (int off = 16; off > 0; off >>= 1) {
        *a += __shfl_down_sync(0xffffffffu, *a, off);
        *b += __shfl_down_sync(0xffffffffu, *b, off);
    }
    if ((threadIdx.x & 31) == 0) warp_a[threadIdx.x >> 5] = *a, warp_b[threadIdx.x >> 5] = *b;
    __syncthreads();
    *a = 0.0, *b = 0.0;
    for (int w = 0; w < GIBBS_WARPS; w++) *a += warp_a[w], *b += warp_b[w];
    __syncthreads();
}

static __device__ __forceinline__ double distance2(const double *p, double x, double y, double z, double len)
{
    return mc_image_dist2(p[0] - x, p[1] - y, p[2] - z, len);
}

/* The particles and labels of the block's chain (shared or global). */
typedef struct chain_view {
    double *x, *y, *z;
    unsigned char *box;
} chain_view;

/* The block's chain: its particles staged into shared memory (or read in place). */
static __device__ chain_view view_of(double *pos, unsigned char *boxes, int n, int staged, unsigned char *smem)
{
    double *g = pos + (size_t)blockIdx.x * 3 * n;
    unsigned char *gb = boxes + (size_t)blockIdx.x * n;
    chain_view v;
    v.x = staged ? (double *)smem : g;
    v.box = staged ? smem + 3 * (size_t)n * sizeof(double) : gb;
    if (staged) {
        for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) v.x[j] = g[j];
        for (int j = threadIdx.x; j < n; j += blockDim.x) v.box[j] = gb[j];
    }
    v.y = v.x + n, v.z = v.y + n;
    __syncthreads();
    return v;
}

/* view_of's inverse at the end of a sweep: a staged chain's particles and labels back to global
 * memory. */
static __device__ void write_back(const chain_view &v, double *pos, unsigned char *boxes, int n)
{
    double *g = pos + (size_t)blockIdx.x * 3 * n;
    unsigned char *gb = boxes + (size_t)blockIdx.x * n;
    for (int j = threadIdx.x; j < 3 * n; j += blockDim.x) g[j] = v.x[j];
    for (int j = threadIdx.x; j < n; j += blockDim.x) gb[j] = v.box[j];
}

/* A volume exchange of atoms or molecules, after the two boxes' trial energies e_new that each
 * computes its own way: volume_accepted is the Metropolis test of the energy change (plus the tail
 * terms' change), volume_commit takes the new boxes and energies. */
static __device__ int volume_accepted(const gibbs_consts &k, const gibbs_chain_dev &c, const double vol[2],
                                      const double vol_new[2], const double e_new[2], unsigned long long step)
{
    double tail = 0.0, dU = 0.0;
    for (int b = 0; b < 2; b++) {
        tail += mc_gibbs_tail(k.tail, k.nkinds, c.count[b], vol_new[b]) - mc_gibbs_tail(k.tail, k.nkinds, c.count[b], vol[b]);
        dU += e_new[b] - c.energy[b];
    }
    double n0 = 0.0, n1 = 0.0;
    for (int a = 0; a < k.nkinds; a++) n0 += (double)c.count[0][a], n1 += (double)c.count[1][a];
    double cost = mc_gibbs_volume_cost(dU + tail, 1.0 / c.beta, n0, n1, vol[0], vol[1], vol_new[0], vol_new[1]);
    return mc_metropolis_accept(cost, c.beta, k.seed, c.id, step);
}

static __device__ void volume_commit(gibbs_chain_dev &c, const double len_new[2], const double e_new[2])
{
    for (int b = 0; b < 2; b++) c.box_len[b] = len_new[b], c.energy[b] = e_new[b];
    c.accepted++;
    c.volume_accepted++;
}

/* The molecule tables and each chain's molecular state on the device. */
typedef struct rigid_view {
    const int *first, *site_mol;
    const unsigned char *species;
    const double *body;
    double *centre, *quat, *trial; /* this block's chain: [3][nmol], [nmol][4], [3 n + 3 nmol] */
} rigid_view;

/* Allocation with its error named; every buffer of the path goes through here. On failure: cleanup,
 * then return NULL (GIBBS_ALLOC: cu_gibbs_create's, which destroys the half-made g). */
#define GIBBS_ALLOC_OR(call, what, cleanup)                                                                    \
    do {                                                                                                       \
        cudaError_t rc_ = (call);                                                                              \
        if (rc_ != cudaSuccess) {                                                                              \
            mc_err_set(err, MC_ECUDA, "cannot allocate %s for %d Gibbs chains: %s", what, nchains,             \
                       cudaGetErrorString(rc_));                                                               \
            cleanup;                                                                                           \
            return NULL;                                                                                       \
        }                                                                                                      \
    } while (0)
#define GIBBS_ALLOC(call, what) GIBBS_ALLOC_OR(call, what, cu_gibbs_destroy(g))


/* Molecules (cu_gibbs_rigid.cu): the device tables from the plan (NULL on failure; the caller destroys g),
 * and the launches of the molecule kernels, which cu_gibbs.cu's drivers make for a rigid plan. */
cu_gibbs *cu_gibbs_upload_molecules(cu_gibbs *g, mc_err *err);
const void *cu_gibbs_rigid_sweep_kernel(void);
int cu_gibbs_rigid_sweep(cu_gibbs *g, long nsweeps, mc_err *err);
int cu_gibbs_rigid_measure(cu_gibbs *g, int add_rdf, mc_err *err);
int cu_gibbs_rigid_insertion(cu_gibbs *g, int type, int insertions, long draw, mc_err *err);

#endif
