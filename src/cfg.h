/* cfg: the INI config as validated plain data. cfg_parse() applies the documented defaults, checks
 * every value against the schema in cfg.c and remembers each key's line, so later checks (cutoff
 * against the box, say) can still name file:line. The caller owns a cfg and frees it with cfg_fini(). */
#ifndef CFG_H
#define CFG_H

#include <stdint.h>
#include <stdio.h>

#include "mc_err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The molar gas constant R = N_A k_B in kJ/mol/K (CODATA 2018, exact): k_B for energies per mole. */
#define MC_BOLTZMANN_KJ_MOL_K 0.008314462618
/* Avogadro's number (SI 2019, exact): g/mol per nm^3 to kg/m^3 is 1e-3 / (N_A 1e-27). */
#define MC_AVOGADRO 6.02214076e23
#define MC_KGM3_PER_GMOL_NM3 (1e-3 / (MC_AVOGADRO * 1e-27))

enum cfg_lattice { CFG_LATTICE_FCC = 0, CFG_LATTICE_SC = 1 };
enum cfg_units { CFG_UNITS_REDUCED = 0, CFG_UNITS_REAL = 1 };
enum cfg_preset { CFG_PRESET_NONE = 0, CFG_PRESET_ARGON = 1 };
enum cfg_backend { CFG_BACKEND_AUTO = 0, CFG_BACKEND_CPU = 1, CFG_BACKEND_GPU = 2 };
enum cfg_precision { CFG_PRECISION_DOUBLE = 0, CFG_PRECISION_SINGLE = 1 };
enum cfg_gpu_cell_lists { CFG_GPU_CELL_LISTS_AUTO = 0, CFG_GPU_CELL_LISTS_NO = 1 };
enum cfg_potential { CFG_POTENTIAL_LJ = 0, CFG_POTENTIAL_MORSE = 1 };
enum cfg_coulomb { CFG_COULOMB_NONE = 0, CFG_COULOMB_EWALD = 1, CFG_COULOMB_DSF = 2 };
/* as enum pair_cutoff_scheme */
enum cfg_cutoff_scheme { CFG_CUTOFF_TRUNCATED = 0, CFG_CUTOFF_SHIFTED = 1, CFG_CUTOFF_FORCE_SHIFTED = 2 };
enum cfg_boundary { CFG_BOUNDARY_PERIODIC = 0, CFG_BOUNDARY_NONE = 1 };
enum cfg_start { CFG_START_LATTICE = 0, CFG_START_MELT = 1, CFG_START_FILE = 2, CFG_START_H5 = 3, CFG_START_XYZ = 4 };
enum cfg_ensemble { CFG_ENSEMBLE_NVT = 0, CFG_ENSEMBLE_NPT = 1, CFG_ENSEMBLE_GIBBS = 2, CFG_ENSEMBLE_GCMC = 3 };
enum cfg_exchange_axis { CFG_EXCHANGE_TEMPERATURE = 0, CFG_EXCHANGE_PRESSURE = 1, CFG_EXCHANGE_LNZ = 2 };

/* A state-point axis: one value, a comma list, or start:stop:count. */
typedef struct cfg_list {
    int n;
    double *v;
} cfg_list;

enum { CFG_MAX_KEYS = 96 }; /* room for the schema's keys (cfg.c checks) */

typedef struct cfg {
    char *filename; /* for messages */
    struct {
        char *output;
        uint64_t seed;
        long equilibration_sweeps, production_sweeps, sample_every_sweeps;
        int overwrite;
        int backend;   /* enum cfg_backend */
        int precision; /* enum cfg_precision */
        long gpu_batch_trials; /* 0: chosen by size */
        int gpu_cell_lists;    /* enum cfg_gpu_cell_lists */
        double checkpoint_every_min; /* 0: no periodic checkpoints */
        double stall_timeout_s;
        double disk_full_wait_s;
    } run;
    struct {
        long n;
        int lattice; /* enum cfg_lattice */
        int units;   /* enum cfg_units */
        double mass; /* per particle: g/mol in real units */
        int boundary; /* enum cfg_boundary */
        int start;    /* enum cfg_start */
        char *start_file; /* start = file: the text start; start = h5: an earlier output */
        long start_chain; /* start = h5: -1 chain by chain, else the file's chain every chain starts from */
        double lattice_constant; /* boundary = none: fcc cell edge of the starting cluster */
        double box_length; /* gcmc: the cubic box's edge (density is an output there) */
    } system;
    struct {
        int type; /* enum cfg_potential */
        double sigma, epsilon, cutoff;
        double rmin;       /* position of the minimum, 2^(1/6) sigma; 0: sigma is given instead */
        double morse_alpha, morse_r0; /* Morse width (1/length) and minimum; epsilon its depth */
        double epsilon_k;  /* real units: epsilon / k_B in K; 0: epsilon is given instead */
        int preset;        /* enum cfg_preset */
        int cutoff_scheme; /* enum cfg_cutoff_scheme */
        int tail_correction;
        double charge;          /* a pure fluid's charge (e in real units) */
        int coulomb;            /* enum cfg_coulomb */
        double coulomb_cutoff;  /* 0: cutoff */
        double ewald_precision, ewald_alpha; /* alpha 0: from the precision and the Coulomb cutoff */
        long ewald_kmax, ewald_ksq_max;      /* 0: from the precision (kmax), kmax^2 (ksq_max) */
        double dsf_alpha;                    /* 1/length; 0: 2.6 / the Coulomb cutoff */
    } potential;
    struct {
        int type; /* enum cfg_ensemble */
        cfg_list temperature, density; /* as given: kT/eps or K (real units); N/V */
        cfg_list pressure;             /* npt: eps/sigma^3 or bar (real units); empty for nvt */
        cfg_list mass_density;         /* instead of density: kg/m^3 (real) or mass/sigma^3 */
        int density_is_mass;           /* molecules: density holds mass_density as given, converted by
                                          mc_plan once the molecules' mass is known */
        cfg_list start_densities;      /* gibbs: box 0's and box 1's at the start; empty: both the total */
        long replicas;
        long widom; /* test-particle insertions per sample; 0: none */
        long exchange_every; /* sweeps between replica-exchange attempts; 0: none */
        int exchange_axis;   /* enum cfg_exchange_axis */
        cfg_list lnz;        /* gcmc: ln of the activity z = exp(beta mu) / Lambda^3 (length unit^-3), an axis */
        long n_min, n_max;   /* gcmc: the particles a chain may hold (n_max: [system] n is set to it) */
    } ensemble;
    struct {
        long windows;        /* gcmc: chains per replica that split [n_min, n_max] between them */
        int bias;            /* gcmc: moves biased by the current ln Pi estimate (flat in N) */
    } tmmc;
    struct {
        double target_acceptance;
        double max_displacement; /* starting value; adapted in equilibration */
        double max_rotation;     /* molecules: starting max rotation angle (rad) */
        double max_volume_step;  /* npt: starting max |ln V' - ln V|; adapted in equilibration */
        long adapt_every_sweeps;
        /* gibbs: the share of each kind of trial move, enum mc_gibbs_move order: displacement,
         * transfer, volume (they add up to 1) */
        double move_fraction[3];
    } moves;
    struct {               /* empty (species NULL) for a pure fluid */
        char *species;     /* "A, B": names as given */
        cfg_list counts, sigma, epsilon, mass;
        cfg_list epsilon_k;   /* real units: epsilon / k_B in K; moved into epsilon (kJ/mol) by cfg_check */
        cfg_list morse_alpha, morse_r0;  /* type = morse: per species, instead of sigma */
        char *pair_sigma, *pair_epsilon; /* "A-B:value, ..." overrides of the mixing rules */
        char *pair_morse_alpha, *pair_morse_r0;
        cfg_list hard_core; /* per species radius; empty: none */
        cfg_list charge;    /* per species (e in real units); empty: none */
        cfg_list lnz;       /* gcmc: each species' ln z, to which the [ensemble] lnz axis is added */
    } mixture;
    struct {              /* empty (types NULL) without rigid molecules */
        char *types;      /* "benzene, argon" */
        cfg_list counts;
        char *geometry;   /* per type, '|' separated: FILE.xyz or "SPECIES x y z; ..." */
        cfg_list lnz;     /* gcmc with several types: each type's ln z, to which [ensemble] lnz is added */
    } molecules;
    struct {
        double radius, strength; /* boundary = none: E = k (r - R)^2 / 2 beyond R; radius 0: none */
    } wall;
    struct {
        long bins;
        double rmax; /* 0: half the smallest box edge */
    } rdf;
    struct {
        long snapshot_every;       /* production samples between trajectory frames; 0: the final one only */
        double snapshot_budget_gb; /* a trajectory larger than this is refused unless force */
        int force;
    } output;
    int line[CFG_MAX_KEYS]; /* line of each schema key in the file, 0 where the default applies */
    int unit_suffix; /* line of the first length given with a unit (nm, A), 0 if none */
} cfg;

/* Whether the run takes the rigid-body engine: molecules, or an open cluster. */
static inline int cfg_rigid(const cfg *c)
{
    return c->molecules.types != NULL || c->system.boundary == CFG_BOUNDARY_NONE;
}

/* Parse INI text (already read from filename) and check it: cfg_read, then the checks across keys
 * (cfg_check.c); on error c holds nothing to free. */
int cfg_parse(cfg *c, const char *text, const char *filename, mc_err *err);

/* cfg_parse's first half (cfg.c): every key read, range-checked and defaulted, and every required
 * key found; the checks across keys not yet made. On error c holds nothing to free. */
int cfg_read(cfg *c, const char *text, const char *filename, mc_err *err);
void cfg_fini(cfg *c);

/* Line of [section] key in the file, or 0 when it took its default. */
int cfg_line(const cfg *c, const char *section, const char *key);

/* Every key with its effective value, marking defaults, as INI text (for --dry-run). */
void cfg_print(const cfg *c, FILE *f);

/* Every key with type, default and meaning, for the README's config reference. */
void cfg_print_reference(FILE *f);

#ifdef __cplusplus
}
#endif
#endif
