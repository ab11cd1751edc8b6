/* mc_plan: everything fixed before the first move, derived once from a validated cfg (FFTW's plan):
 * state points, pair constants, tail corrections, run lengths, RDF grid. Every check that can fail
 * on the physics (cutoff against the box, packing) happens here, before any output exists.
 * Read-only after mc_plan_create(); chains and backends borrow it. */
#ifndef MC_PLAN_H
#define MC_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "pair.h"
#include "mc_ensemble.h"
#include "mc_err.h"
#include "mc_molecule.h"
#include "ewald.h"
#include "mc_species.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How results are reported: internal values are in the units of sigma and epsilon (nm and kJ/mol
 * in real units, where kT = R T); these factors and names turn them into the output's. */
typedef struct mc_units {
    int real;
    double kT_per_temperature; /* R in kJ/mol/K (real), 1 (reduced) */
    double pressure_factor;    /* bar per kJ/mol/nm^3 (real), 1 */
    double mass_density_factor; /* mass density per number density: kg/m^3 per nm^-3 (real), mass */
    const char *energy, *length, *temperature, *pressure, *density, *mass_density, *volume, *system;
} mc_units;

/* Corrections for what the cutoff leaves out, at one density (all 0 without a cutoff). */
typedef struct mc_corrections {
    double u_tail;      /* tail correction to U per particle (0 when off) */
    double p_tail;      /* tail correction to P (0 when off) */
    double p_impulsive; /* impulsive correction to P of the truncated potential (0 with tails) */
} mc_corrections;

typedef struct mc_statepoint {
    double temperature; /* kT, in the energy unit (the Boltzmann factor is exp(-u / kT)) */
    double temperature_given; /* as in the config: K in real units, kT/eps in reduced */
    double density;     /* N / V (npt: at the start) */
    double box_len;     /* cubic box edge (npt: at the start) */
    double pressure;    /* npt: the imposed pressure in energy / length^3; 0 for nvt */
    double pressure_given; /* npt: as in the config (bar in real units) */
    double lnz;            /* gcmc: ln of the activity, z in the length unit^-3 (mc_gcmc.h) */
    mc_corrections corr;   /* at the (starting) density */
} mc_statepoint;

/* start = h5: the last frames the chains of this rank start from, as read from the earlier output
 * (io/h5start.c, after the layout): one per chain of the rank's block, or with start_chain one that
 * every chain shares. Points are atoms' positions or molecules' centres, in the frame's box. */
typedef struct mc_start_frames {
    int first_chain;  /* chain id of frame 0 (chain by chain); -1: one shared frame */
    int nframes;      /* 0 until loaded */
    int npoints;      /* per frame: n (atoms) or nmol (the rigid engine) */
    double *points;   /* [nframes][npoints][3] */
    double *quats;    /* rigid engine: [nframes][nmol][4] unit quaternions (w, x, y, z); else NULL */
    double *box;      /* [nframes] the frame's cubic box edge; 0 for an open cluster */
} mc_start_frames;

typedef struct mc_plan {
    int n;               /* particles per chain */
    int lattice;         /* enum cfg_lattice */
    int nstatepoints;
    mc_statepoint *statepoint;
    int replicas;        /* chains per state point: [ensemble] replicas, times [tmmc] windows in gcmc */
    int nchains;         /* nstatepoints * replicas; chain c is state point c / replicas */
    /* gcmc (mc_gcmc.h): ln Pi(N) over N = tmmc_n_min .. tmmc_n_max (n is tmmc_n_max), split into
     * tmmc_windows windows of as many chains each as [ensemble] replicas; tmmc_bias: moves biased
     * by the chain's estimate */
    int tmmc_n_min, tmmc_n_max, tmmc_windows, tmmc_bias;
    double kind_lnz[MC_MAX_SPECIES]; /* gcmc: each kind's ln z less the state point's ([mixture] lnz; 0 pure) */
    int ntemperatures, naxis; /* state point s is temperature s / naxis at density (npt: pressure;
                                 gcmc: ln z) s % naxis */
    long exchange_every; /* replica exchange: sweeps between attempts (mc_exchange.h); 0: none */
    int exchange_axis;   /* enum cfg_exchange_axis */
    /* The ensemble's row (mc_ensemble.h): npt makes one ln V move per chain after every sweep; the
     * Gibbs ensemble (mc_gibbs.h) has two boxes per chain, each state point's box_len a box's
     * starting edge, half the total volume each */
    const mc_ensemble *ensemble;
    double move_fraction[3];  /* two boxes: the share of each enum mc_gibbs_move among the trial moves */
    double total_volume;      /* two boxes: V0 + V1, n over the total density */
    double box_start_density[2]; /* two boxes: box 0's and box 1's at the start; 0: the total density */
    /* What a transfer between boxes moves is a kind, a species of atoms or a type of molecules
     * (set where the ensemble has two boxes): kind k holds the consecutive molecules (atoms)
     * kind_first[k] .. kind_first[k + 1] - 1, each with kind_sites[k][a] sites of species a, and a
     * chain's box counts count kinds */
    int nkinds;
    int kind_first[MC_MAX_SPECIES + 1];
    int kind_sites[MC_MAX_SPECIES][MC_MAX_SPECIES];
    double kind_tail[MC_MAX_SPECIES][MC_MAX_SPECIES]; /* a box's tail energy per N_k N_l / V (kinds k, l):
                                                         the sum over their sites' species pairs of
                                                         2 pi int_rc r^2 u_ab (0 without tails) */
    uint64_t seed;
    int precision;        /* enum cfg_precision */
    int gpu_batch_trials; /* GPU batched paths: trials per batch; 0 = chosen by size */
    int gpu_cell_lists;   /* enum cfg_gpu_cell_lists: the many-chain kernel may use cell lists */
    /* The GPU that kernel shapes are chosen for, agreed by all ranks (main.c): the smallest SM
     * count and shared memory a block (bytes) of the run's GPUs, or the checkpointed run's. The
     * shapes group a chain's sums, so a chain takes the same path to the same last bits on any mix
     * of GPU models and after a restart on other GPUs. 0: this rank's GPU (mcens-bench). */
    int gpu_sm_count, gpu_smem_per_block;
    mc_units units;
    mc_species species;          /* one for a pure fluid; the pair constants of every pair */
    pair_params pair;            /* a pure fluid's pair constants: species.pair[0][0] */
    double sigma, epsilon; /* length and energy scales of the potential (largest species') */
    double cutoff;
    int tail_correction, cutoff_scheme; /* as in the config (tails only with truncated) */
    long equilibration_sweeps, production_sweeps, sample_every_sweeps, adapt_every_sweeps;
    long nsamples;       /* production / sample_every */
    long snapshot_every; /* [output] snapshot_every: samples between trajectory frames (mc_snapshot.h) */
    double target_acceptance, max_displacement0;
    double max_volume_step0; /* npt: starting max |ln V' - ln V| */
    double npt_tail;         /* npt: a box's tail energy times V, sum over species pairs of N_a N_b
                                2 pi int_rc r^2 u_ab (sites for molecules); 0 without tails */
    double min_box_len;      /* npt: volume moves below this box edge are rejected, so that the
                                cutoff and the RDF range stay within half the box */
    int widom_insertions;  /* per sample; 0: no Widom insertion */
    int widom_kinds;       /* kinds of test particle: the species (atoms) or the molecule types */
    int rdf_bins;
    double rdf_rmax, rdf_dr;
    /* The rigid-body engine (molecules or an open cluster): moves of whole molecules, n counts
     * sites and nmol molecules; else nmol = n and mol is empty. */
    int rigid;
    int nmol;
    mc_molecules mol;
    int periodic;           /* 0: boundary = none, positions about the origin, no images */
    int start;              /* enum cfg_start */
    const char *start_file; /* borrowed from the cfg; start = file: its text is loaded by mc_start_load;
                               start = h5: its last frames by h5start_load */
    int start_chain;        /* start = h5: -1 chain by chain, else the file's chain all start from */
    mc_start_frames frames; /* start = h5: this rank's starting frames */
    double *start_centres, *start_orientations; /* start = file: [3 nmol], [4 nmol] unit quaternions */
    double lattice_constant; /* boundary = none: the starting fcc cluster's cell edge */
    double wall_radius, wall_strength; /* 0: no wall */
    double rdf_volume;      /* boundary = none: the volume the RDF is normalised to (the wall's
                               sphere, or the starting cluster's); 0 for periodic boxes */
    double max_rotation0;   /* molecules: starting max rotation angle (rad) */
    /* [potential] coulomb = ewald (ewald.h) or dsf (dsf.h). charged: any Coulomb term, and then
     * each site's charge and the constant self and intramolecular terms: coulomb_constant, a
     * constant of every chain (rigid molecules, fixed composition) and part of its energy as NIST
     * counts it, and coulomb_type_constant, one molecule's (what a Widom test molecule adds, a
     * transfer carries). ewald: the Ewald sum's Fourier part too, with its wave vectors in
     * kspace. charged = 0: no charged sites, and none of this is set. */
    int charged, ewald;
    ewald_kspace kspace;
    double *site_charge;    /* [n] */
    double coulomb_constant;
    double coulomb_type_constant[MC_MAX_MOLTYPES];
} mc_plan;

/* Charges (p->charged): the constant Coulomb terms of the plan's method (Ewald's, ewald.h, or the
 * damped shifted force's, dsf.h): the self term of n charges q, and the intramolecular term of one
 * molecule of `type` whose sites carry the charges q. */
double mc_plan_coulomb_self_energy(const mc_plan *p, int n, const double *q);
double mc_plan_coulomb_intra_energy(const mc_plan *p, const mc_moltype *type, const double *q);

/* The smallest box edge over the state points (npt: of the starting boxes). */
double mc_plan_smallest_box(const mc_plan *p);

/* Estimated host bytes of one chain's state: positions (and molecular centres, quaternions and
 * Lindemann sums), the CPU backend's cell lists, the per-sample series and Widom record, the RDF
 * histogram. SIZE_MAX where the product does not fit a size_t. */
size_t mc_plan_host_bytes_per_chain(const mc_plan *p);

/* Refuse (MC_EINVAL, naming the config key behind the largest part of a chain's state) when
 * chains_on_rank chains need more than host_bytes (mc_host_memory_bytes() of mc_size.h). The plan
 * checks one chain; with the layout, the rank holding the most chains can check them all. */
int mc_plan_check_host_memory(const mc_plan *p, const cfg *c, int chains_on_rank, size_t host_bytes,
                              mc_err *err);

/* NULL on failure, with err naming the config line at fault. */
mc_plan *mc_plan_create(const cfg *c, mc_err *err);
void mc_plan_destroy(mc_plan *p);

static inline int mc_plan_statepoint_of(const mc_plan *p, int chain) { return chain / p->replicas; }
/* Whether a chain's particles carry a box label: the Gibbs ensemble's box, gcmc's present (0) or
 * absent (1); such chains take the Gibbs backends' paths. */
static inline int mc_plan_labelled(const mc_plan *p) { return p->ensemble->boxes > 1 || p->ensemble->open; }

/* Whether chains keep an open cluster's Lindemann sums. Not with replica exchange: a chain's samples
 * then come from several walkers, whose particle labels are unrelated, so the spread of a labelled
 * pair's distance would measure the swaps, not the melting. */
static inline int mc_plan_lindemann(const mc_plan *p) { return !p->periodic && !p->exchange_every; }

/* Check that the running (incrementally updated) pair energy matches a full recomputation:
 * |running - full| <= MC_DRIFT_TOLERANCE max(|full|, n eps). The n eps floor keeps the test meaningful where
 * the energy itself is near zero (dilute gas). The tolerance holds in both precisions: with
 * single, each pair term is rounded once in float but every sum is taken in double, so a move's
 * dE and the full recomputation add the same float pair energies and the running sum telescopes. */
#define MC_DRIFT_TOLERANCE 1e-9

int mc_check_drift(double running, double full, int n, double epsilon, int chain, long sweep,
                   mc_err *err);

#ifdef __cplusplus
}
#endif
#endif
