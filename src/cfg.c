/* cfg: INI text to validated data. One schema table below drives parsing, defaults, range checks,
 * the --dry-run printout and the README reference, so they cannot disagree; the checks that span
 * keys follow the parse (cfg_check.c). */
#include "cfg.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum cfg_kind { K_INT, K_REAL, K_BOOL, K_STRING, K_CHOICE, K_LIST, K_SEED, K_CUTOFF };

typedef struct cfg_key {
    const char *section, *name;
    enum cfg_kind kind;
    size_t offset;
    const char *default_text; /* NULL: required */
    double min, max;          /* inclusive bounds; min_open makes the lower one strict */
    int min_open;
    const char *choices; /* K_CHOICE: "a|b|c", index stored as int */
    const char *help;
    int dim; /* enum cfg_dim: in real units the value may carry a unit of its dimension */
} cfg_key;

/* The dimension of a key's value: in real units it may carry a unit (below), converted to the
 * unit mcens reads it in. A unit in reduced units is refused (cfg_check.c). */
enum cfg_dim {
    DIM_NONE = 0,
    DIM_LENGTH,          /* nm */
    DIM_INVERSE_LENGTH,  /* 1/nm */
    DIM_TEMPERATURE,     /* K */
    DIM_ENERGY,          /* kJ/mol */
    DIM_PRESSURE,        /* bar */
    DIM_NUMBER_DENSITY,  /* nm^-3 */
    DIM_MASS,            /* g/mol */
    DIM_MASS_DENSITY     /* kg/m^3 */
};

/* The units a value may carry, per dimension, and the factor to the unit it is read in. */
static const struct {
    enum cfg_dim dim;
    const char *unit;
    double factor;
} units[] = {
    {DIM_LENGTH, "nm", 1.0}, {DIM_LENGTH, "A", 0.1}, {DIM_LENGTH, "Angstrom", 0.1},
    {DIM_INVERSE_LENGTH, "1/nm", 1.0}, {DIM_INVERSE_LENGTH, "1/A", 10.0},
    {DIM_TEMPERATURE, "K", 1.0},
    {DIM_ENERGY, "kJ/mol", 1.0}, {DIM_ENERGY, "kcal/mol", 4.184},
    {DIM_ENERGY, "K", 0.008314462618}, /* epsilon given as epsilon / k_B: times R */
    {DIM_PRESSURE, "bar", 1.0}, {DIM_PRESSURE, "kPa", 0.01}, {DIM_PRESSURE, "MPa", 10.0},
    {DIM_PRESSURE, "atm", 1.01325},
    {DIM_NUMBER_DENSITY, "nm^-3", 1.0}, {DIM_NUMBER_DENSITY, "1/nm^3", 1.0}, {DIM_NUMBER_DENSITY, "A^-3", 1000.0},
    {DIM_MASS, "g/mol", 1.0},
    {DIM_MASS_DENSITY, "kg/m^3", 1.0}, {DIM_MASS_DENSITY, "g/cm^3", 1000.0}, {DIM_MASS_DENSITY, "g/mL", 1000.0},
};

/* "nm, A or Angstrom": the units of a dimension, for messages. */
static const char *units_of(enum cfg_dim dim, char *buf, size_t len)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) n += units[i].dim == dim;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (units[i].dim != dim) continue;
        const char *separator = k == 0 ? "" : k + 1 == n ? " or " : ", ";
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", separator, units[i].unit);
        k++;
    }
    return buf;
}

#define OFF(field) offsetof(cfg, field)
static const cfg_key schema[] = {
    {"run", "output", K_STRING, OFF(run.output), "mcens.h5", 0, 0, 0, NULL,
     "HDF5 file written at the end (via OUTPUT.part, renamed on success)", DIM_NONE},
    {"run", "seed", K_SEED, OFF(run.seed), "1", 0, 0, 0, NULL,
     "Philox key; with the chain index it fixes every random number of a chain", DIM_NONE},
    {"run", "equilibration", K_INT, OFF(run.equilibration_sweeps), "2000", 0, 1e12, 0, NULL,
     "sweeps (N attempted moves each) before sampling; the step size adapts here", DIM_NONE},
    {"run", "production", K_INT, OFF(run.production_sweeps), "10000", 1, 1e12, 0, NULL,
     "sweeps of sampling, step size frozen", DIM_NONE},
    {"run", "sample_every", K_INT, OFF(run.sample_every_sweeps), "10", 1, 1e12, 0, NULL,
     "sweeps between samples; must divide production", DIM_NONE},
    {"run", "overwrite", K_BOOL, OFF(run.overwrite), "no", 0, 0, 0, NULL,
     "replace an existing output file", DIM_NONE},
    {"run", "backend", K_CHOICE, OFF(run.backend), "auto", 0, 0, 0, "auto|cpu|gpu",
     "where chains run: auto takes the GPU when the rank has one, else the CPU", DIM_NONE},
    {"run", "precision", K_CHOICE, OFF(run.precision), "double", 0, 0, 0, "double|single",
     "GPU pair arithmetic (sums are always double); the CPU backend always uses double", DIM_NONE},
    {"run", "gpu_batch_trials", K_INT, OFF(run.gpu_batch_trials), "0", 0, 1024, 0, NULL,
     "GPU, fewer chains than SMs: trial moves of a chain evaluated together per batch, a multiple of 32; 0 chooses by size "
     "(64 from n = 256, 256 from n = 1024, 512 from n = 16384, 1024 on the cell-list path from n = 4096; a batched chain needs "
     "n >= 4 of them, so 1024 keeps chains below 4096 on the many-chain kernel; molecules 32, from 128 molecules a chain, at most 256). "
     "Tuning only: every value makes the same decisions (the running energy may differ in its last bits). Not with charges",
     DIM_NONE},
    {"run", "gpu_cell_lists", K_CHOICE, OFF(run.gpu_cell_lists), "auto", 0, 0, 0, "auto|no",
     "GPU, many NVT chains with a cutoff: auto sums each move over the 27 cells around the particle where "
     "the smallest state point's box holds at least 5 cutoff-wide cells per edge; no: always over all pairs. Tuning only: both make the "
     "CPU's decisions (their energy sums differ in the last bits)", DIM_NONE},
    {"run", "checkpoint_every", K_REAL, OFF(run.checkpoint_every_min), "30", 0, 1e6, 0, NULL,
     "minutes of wall time between checkpoints (OUTPUT.ckpt), also written at the end of equilibration and "
     "of the run; 0: none during the run but the one a stop signal asks for (the end's is still written "
     "before the output, so that a failed output write loses nothing, and removed once the output is)", DIM_NONE},
    {"run", "stall_timeout", K_REAL, OFF(run.stall_timeout_s), "300", 1, 1e7, 0, NULL,
     "seconds a rank waits for the others at the end of a round (plus ten times its own longest round) "
     "or after building its chains (plus ten times its own building time) before it ends the job as hung; "
     "the setup, the writes and MPI's end have the same deadline beside the time their bytes take at 1 MB/s "
     "(and 10 s, the setup)", DIM_NONE},
    {"run", "disk_full_wait", K_REAL, OFF(run.disk_full_wait_s), "600", 0, 1e7, 0, NULL,
     "seconds a checkpoint or the output waits for room on a full file system (rank 0 says so and checks "
     "every 5 s) before the job ends with the last checkpoint kept", DIM_NONE},
    {"system", "n", K_INT, OFF(system.n), "500", 2, 1e8, 0, NULL, "number of particles", DIM_NONE},
    {"system", "lattice", K_CHOICE, OFF(system.lattice), "fcc", 0, 0, 0, "fcc|sc",
     "starting lattice (filled in order; n need not fill it)", DIM_NONE},
    {"system", "units", K_CHOICE, OFF(system.units), "reduced", 0, 0, 0, "reduced|real",
     "reduced (eps = sigma = k_B = 1), or real: lengths in nm, energies in kJ/mol, temperature in K, pressure out in bar", DIM_NONE},
    {"system", "boundary", K_CHOICE, OFF(system.boundary), "periodic", 0, 0, 0, "periodic|none",
     "periodic: cubic box under the minimum image; none: an open cluster about the origin (no density; a [wall] may confine it)", DIM_NONE},
    {"system", "start", K_CHOICE, OFF(system.start), "lattice", 0, 0, 0, "lattice|melt|file|h5|xyz",
     "lattice: atoms or centres on [system] lattice, molecules randomly oriented (suits solids, and liquids "
     "near freezing); melt: atoms or centres at random, no two closer than 0.7 (atoms) or 0.8 (centres) lattice "
     "spacings (suits fluids and disordered states, which a lattice start must melt first); file: read from start_file (molecules and open clusters); h5: the last "
     "frame of an earlier mcens output, start_file (atoms too): same particles, species, molecules and boundary; "
     "a periodic box of another size is scaled affinely to the state point's (atoms' positions, molecules' "
     "centres; orientations kept); xyz: the last frame of an extended XYZ file, start_file (atoms too), as "
     "mcens-analyze export --xyz writes it; its Lattice gives the box, and density may be left out", DIM_NONE},
    {"system", "start_file", K_STRING, OFF(system.start_file), "", 0, 0, 0, NULL,
     "start = file: one line per molecule, in [molecules] order: type x y z qw qx qy qz (centre in the length unit, "
     "unit quaternion); '#' comments. start = h5: an mcens output file (/particles), read again by --restart. "
     "start = xyz: every site, molecules in [molecules] order, each with its type's sites in their order "
     "(SPECIES x y z; A by default in real units, or the comment line's unit=nm; Lattice=\"L 0 0 0 L 0 0 0 L\" a "
     "cubic box): each molecule within 1e-4 length units of its type's geometry",
     DIM_NONE},
    {"system", "start_chain", K_INT, OFF(system.start_chain), "-1", -1, 1e6, 0, NULL,
     "start = h5: -1 starts chain c from chain c of start_file (which must hold as many chains); K >= 0 starts "
     "every chain from chain K's last frame", DIM_NONE},
    {"system", "box_length", K_REAL, OFF(system.box_length), "0", 0, 1e6, 0, NULL,
     "gcmc, required there: edge of the cubic periodic box (the density is an outcome); at least twice the cutoff",
     DIM_LENGTH},
    {"system", "lattice_constant", K_REAL, OFF(system.lattice_constant), "0", 0, 1e6, 0, NULL,
     "boundary = none: cubic cell edge of the starting cluster (the n lattice sites nearest the origin); required there", DIM_LENGTH},
    {"system", "mass", K_REAL, OFF(system.mass), "1", 0, 1e9, 1, NULL,
     "particle mass (g/mol in real units): converts mass_density, reports the density in kg/m^3, and is each [mixture] species' default mass", DIM_MASS},
    {"potential", "type", K_CHOICE, OFF(potential.type), "lj", 0, 0, 0, "lj|morse",
     "pair potential: Lennard-Jones 4 eps [(sig/r)^12 - (sig/r)^6], or Morse eps [(1 - exp(-alpha (r - r0)))^2 - 1]", DIM_NONE},
    {"potential", "morse_alpha", K_REAL, OFF(potential.morse_alpha), "0", 0, 1e6, 0, NULL,
     "Morse width alpha in 1/length (type = morse, required there)", DIM_INVERSE_LENGTH},
    {"potential", "morse_r0", K_REAL, OFF(potential.morse_r0), "0", 0, 1e6, 0, NULL,
     "Morse minimum r0 in length units (type = morse, required there); epsilon is the well depth", DIM_LENGTH},
    {"potential", "preset", K_CHOICE, OFF(potential.preset), "none", 0, 0, 0, "none|argon",
     "argon (real units): sigma 0.3405 nm, epsilon/k_B 119.8 K, mass 39.948 g/mol", DIM_NONE},
    {"potential", "sigma", K_REAL, OFF(potential.sigma), "1", 0, 1e6, 1, NULL,
     "LJ sigma; every length is in its unit; 1 in reduced units", DIM_LENGTH},
    {"potential", "epsilon", K_REAL, OFF(potential.epsilon), "1", 0, 1e6, 0, NULL,
     "LJ epsilon; 1 in reduced units, 0 gives the ideal gas", DIM_ENERGY},
    {"potential", "epsilon_k", K_REAL, OFF(potential.epsilon_k), "0", 0, 1e9, 0, NULL,
     "real units: epsilon / k_B in K, instead of epsilon; 0: use epsilon", DIM_TEMPERATURE},
    {"potential", "cutoff", K_CUTOFF, OFF(potential.cutoff), "3.0", 0, 1e6, 1, NULL,
     "truncation radius, at most half the smallest box edge; none: every pair under the minimum image", DIM_LENGTH},
    {"potential", "rmin", K_REAL, OFF(potential.rmin), "0", 0, 1e6, 0, NULL,
     "position of the LJ minimum, eps [(rmin/r)^12 - 2 (rmin/r)^6]: sets sigma = rmin / 2^(1/6); 0: use sigma", DIM_LENGTH},
    {"potential", "cutoff_scheme", K_CHOICE, OFF(potential.cutoff_scheme), "truncated", 0, 0, 0,
     "truncated|shifted|force_shifted",
     "u(r); u(r) - u(rc); or u(r) - u(rc) - (r - rc) u'(rc), the linear-force-shifted potential", DIM_NONE},
    {"potential", "tail_correction", K_BOOL, OFF(potential.tail_correction), "yes", 0, 0, 0,
     NULL, "long-range corrections to energy and pressure (truncated scheme only; off for the others)", DIM_NONE},
    {"potential", "charge", K_REAL, OFF(potential.charge), "0", -100, 100, 0, NULL,
     "the species' charge: e in real units, reduced (e / sqrt(4 pi eps0 sigma eps)) in reduced units; needs "
     "coulomb = ewald or dsf", DIM_NONE},
    {"potential", "coulomb", K_CHOICE, OFF(potential.coulomb), "none", 0, 0, 0, "none|ewald|dsf",
     "electrostatics between charged sites: none; the Ewald sum (real-space erfc term within "
     "coulomb_cutoff, Fourier part, self and intramolecular terms; conducting boundary); or dsf, the damped "
     "shifted force (Fennell and Gezelter 2006: a pair term within coulomb_cutoff, no Fourier part)", DIM_NONE},
    {"potential", "coulomb_cutoff", K_REAL, OFF(potential.coulomb_cutoff), "0", 0, 1e6, 0, NULL,
     "coulomb = ewald or dsf: cutoff of the real-space (ewald) or whole (dsf) pair term, at most half the smallest "
     "box edge; 0: cutoff", DIM_LENGTH},
    {"potential", "ewald_precision", K_REAL, OFF(potential.ewald_precision), "1e-5", 1e-12, 0.1, 0, NULL,
     "coulomb = ewald: relative size of the terms left out, erfc(alpha rc) and exp(-k^2 / (4 alpha^2)) at the "
     "k-space cutoff; chooses ewald_alpha and ewald_kmax where they are not given", DIM_NONE},
    {"potential", "ewald_alpha", K_REAL, OFF(potential.ewald_alpha), "0", 0, 1e6, 0, NULL,
     "coulomb = ewald: splitting parameter in 1/length; 0: sqrt(-ln ewald_precision) / coulomb_cutoff",
     DIM_INVERSE_LENGTH},
    {"potential", "ewald_kmax", K_INT, OFF(potential.ewald_kmax), "0", 0, 64, 0, NULL,
     "coulomb = ewald: wave vectors k = 2 pi n / L with every n_i in -kmax..kmax; 0: from ewald_precision "
     "and the largest starting box", DIM_NONE},
    {"potential", "ewald_ksq_max", K_INT, OFF(potential.ewald_ksq_max), "0", 0, 12288, 0, NULL,
     "coulomb = ewald: and n^2 <= ksq_max (the NIST SPC/E set: kmax 5, ksq_max 26); 0: kmax^2", DIM_NONE},
    {"potential", "dsf_alpha", K_REAL, OFF(potential.dsf_alpha), "0", 0, 1e6, 0, NULL,
     "coulomb = dsf: damping parameter in 1/length; 0: 2.6 / coulomb_cutoff, which puts NIST's SPC/E "
     "configurations' Coulomb energy within 0.4% of the Ewald sum's", DIM_INVERSE_LENGTH},
    {"ensemble", "type", K_CHOICE, OFF(ensemble.type), "nvt", 0, 0, 0, "nvt|npt|gibbs|gcmc",
     "statistical ensemble: nvt (density is an axis), npt (pressure is an axis; volume moves in ln V), gibbs "
     "(two boxes that exchange volume and particles: vapour-liquid coexistence; temperature is the axis) or gcmc "
     "(grand canonical at fixed V: insertions and deletions, ln z is the axis, with transition-matrix sampling of "
     "ln Pi(N), [tmmc])", DIM_NONE},
    {"ensemble", "temperature", K_LIST, OFF(ensemble.temperature), NULL, 0, 1e6, 1, NULL,
     "kT in the energy unit of epsilon: a value, a comma list, start:stop:count (equal steps) or "
     "start:stop:count:log (equal ratios)", DIM_TEMPERATURE},
    {"ensemble", "density", K_LIST, OFF(ensemble.density), "", 0, 1e6, 1, NULL,
     "number density N/V in the length unit of sigma: a value, a comma list, start:stop:count or start:stop:count:log; "
     "required for nvt; for npt one starting density (default 0.5 sigma^-3); for gibbs, required, one total density "
     "N/(V1 + V2), inside the two-phase region", DIM_NUMBER_DENSITY},
    {"ensemble", "mass_density", K_LIST, OFF(ensemble.mass_density), "", 0, 1e9, 1, NULL,
     "instead of density: kg/m^3 in real units (mass sigma^-3 in reduced), converted with [system] mass, or with "
     "molecules with the molecules' mass (their sites' [mixture] mass, which must be given)", DIM_MASS_DENSITY},
    {"ensemble", "start_densities", K_LIST, OFF(ensemble.start_densities), "", 0, 1e6, 1, NULL,
     "gibbs: the number densities box 0 and box 1 start at (a liquid's and a vapour's guess), the total density "
     "between them; the particles split so that the boxes fill the total volume; default: both at the total density",
     DIM_NONE},
    {"ensemble", "pressure", K_LIST, OFF(ensemble.pressure), "", -1e9, 1e9, 0, NULL,
     "npt only, required there: pressure in epsilon sigma^-3 (bar in real units): a value, a comma "
     "list, start:stop:count or start:stop:count:log", DIM_PRESSURE},
    {"ensemble", "lnz", K_LIST, OFF(ensemble.lnz), "", -1e3, 1e3, 0, NULL,
     "gcmc, required there: ln z, z = exp(mu / kT) / Lambda^3 the activity in the length unit^-3 (NIST's convention; "
     "an ideal gas at activity z has density z): a value, a comma list or start:stop:count", DIM_NONE},
    {"ensemble", "n_min", K_INT, OFF(ensemble.n_min), "0", 0, 1e7, 0, NULL,
     "gcmc: the fewest particles a chain may hold (deletions below are rejected, but their acceptance is collected)",
     DIM_NONE},
    {"ensemble", "n_max", K_INT, OFF(ensemble.n_max), "0", 0, 1e7, 0, NULL,
     "gcmc, required there: the most particles a chain may hold; ln Pi(N) covers n_min..n_max", DIM_NONE},
    {"ensemble", "replicas", K_INT, OFF(ensemble.replicas), "1", 1, 1e6, 0, NULL,
     "independent chains per state point", DIM_NONE},
    {"ensemble", "widom", K_INT, OFF(ensemble.widom), "0", 0, 1e7, 0, NULL,
     "Widom test-particle insertions per sample for the excess chemical potential; 0: none", DIM_NONE},
    {"ensemble", "exchange_every", K_INT, OFF(ensemble.exchange_every), "0", 0, 1e12, 0, NULL,
     "replica exchange (parallel tempering): sweeps between swap attempts of neighbouring rungs of every ladder "
     "(the chains of one replica index along exchange_axis, the other axis fixed), even and odd pairs in turn; "
     "0: chains independent", DIM_NONE},
    {"ensemble", "exchange_axis", K_CHOICE, OFF(ensemble.exchange_axis), "temperature", 0, 0, 0,
     "temperature|pressure|lnz",
     "the axis a ladder runs along: temperature (at each density, or each pressure in npt), pressure (npt, at each "
     "temperature) or lnz (gcmc, the only axis there, at each temperature); its values must be strictly increasing "
     "or decreasing", DIM_NONE},
    {"moves", "target_acceptance", K_REAL, OFF(moves.target_acceptance), "0.4", 0, 1, 1, NULL,
     "acceptance the displacement adapts toward during equilibration", DIM_NONE},
    {"moves", "max_displacement", K_REAL, OFF(moves.max_displacement), "0.1", 0, 1e6, 1,
     NULL, "starting maximum displacement per axis", DIM_LENGTH},
    {"moves", "max_rotation", K_REAL, OFF(moves.max_rotation), "0.3", 0, 3.14159265358979, 1, NULL,
     "molecules: starting maximum rotation angle in radians about a random axis; adapted in equilibration, at most pi", DIM_NONE},
    {"moves", "max_volume_step", K_REAL, OFF(moves.max_volume_step), "0.01", 0, 10, 1, NULL,
     "npt: starting maximum change of ln V per volume move (one per sweep); gibbs: of ln(V1/V2); adapted in "
     "equilibration", DIM_NONE},
    {"moves", "adapt_every", K_INT, OFF(moves.adapt_every_sweeps), "50", 1, 1e12, 0, NULL,
     "sweeps between step-size updates during equilibration", DIM_NONE},
    {"moves", "displacement_fraction", K_REAL, OFF(moves.move_fraction[0]), "0.85", 0, 1, 0, NULL,
     "gibbs: share of trial moves that displace a particle (translate or rotate a molecule) within its box (a sweep "
     "is N trial moves of all kinds, N counting molecules); the three fractions add up to 1", DIM_NONE},
    {"moves", "transfer_fraction", K_REAL, OFF(moves.move_fraction[1]), "0.148", 0, 1, 0, NULL,
     "gibbs: share of trial moves that transfer a particle (of a species drawn uniformly; molecules: of a type, "
     "inserted in a random orientation) from a box drawn uniformly to the other; > 0. gcmc: share of insertions "
     "and deletions (half each; default there 0.5, displacement_fraction the rest; a sweep is n_max trial moves)",
     DIM_NONE},
    {"moves", "volume_fraction", K_REAL, OFF(moves.move_fraction[2]), "0.002", 0, 1, 0, NULL,
     "gibbs: share of trial moves that exchange volume, a random walk in ln(V1/V2) at fixed V1 + V2 "
     "(max_volume_step its starting step); > 0", DIM_NONE},
    {"mixture", "species", K_STRING, OFF(mixture.species), "", 0, 0, 0, NULL,
     "names of 2 to 4 species (1 to 4 with [molecules], whose sites they name), comma separated; each list below has one value per species; [system] n "
     "becomes their total", DIM_NONE},
    {"mixture", "counts", K_LIST, OFF(mixture.counts), "", 1, 1e8, 0, NULL,
     "particles of each species", DIM_NONE},
    {"mixture", "sigma", K_LIST, OFF(mixture.sigma), "", 0, 1e6, 0, NULL,
     "LJ sigma of each species (replaces [potential] sigma); 0 with epsilon 0: a site without LJ (a charge alone)", DIM_LENGTH},
    {"mixture", "epsilon", K_LIST, OFF(mixture.epsilon), "", 0, 1e6, 0, NULL,
     "LJ epsilon (Morse: well depth) of each species (replaces [potential] epsilon)", DIM_ENERGY},
    {"mixture", "epsilon_k", K_LIST, OFF(mixture.epsilon_k), "", 0, 1e9, 0, NULL,
     "real units: epsilon / k_B of each species in K, as force fields tabulate it, instead of epsilon", DIM_TEMPERATURE},
    {"mixture", "morse_alpha", K_LIST, OFF(mixture.morse_alpha), "", 0, 1e6, 1, NULL,
     "type = morse: Morse width alpha of each species in 1/length (required there)", DIM_INVERSE_LENGTH},
    {"mixture", "morse_r0", K_LIST, OFF(mixture.morse_r0), "", 0, 1e6, 1, NULL,
     "type = morse: Morse minimum r0 of each species in length units (required there)", DIM_LENGTH},
    {"mixture", "mass", K_LIST, OFF(mixture.mass), "", 0, 1e9, 1, NULL,
     "mass of each species (g/mol in real units); default [system] mass", DIM_MASS},
    {"mixture", "pair_sigma", K_STRING, OFF(mixture.pair_sigma), "", 0, 0, 0, NULL,
     "overrides of the Lorentz rule (s_a + s_b)/2, as A-B:value, comma separated", DIM_NONE},
    {"mixture", "pair_epsilon", K_STRING, OFF(mixture.pair_epsilon), "", 0, 0, 0, NULL,
     "overrides of the Berthelot rule sqrt(e_a e_b), as A-B:value, comma separated", DIM_NONE},
    {"mixture", "pair_morse_alpha", K_STRING, OFF(mixture.pair_morse_alpha), "", 0, 0, 0, NULL,
     "type = morse: overrides of the arithmetic mean (alpha_a + alpha_b)/2, as A-B:value", DIM_NONE},
    {"mixture", "pair_morse_r0", K_STRING, OFF(mixture.pair_morse_r0), "", 0, 0, 0, NULL,
     "type = morse: overrides of the arithmetic mean (r0_a + r0_b)/2, as A-B:value", DIM_NONE},
    {"mixture", "charge", K_LIST, OFF(mixture.charge), "", -100, 100, 0, NULL,
     "charge of each species (as [potential] charge); needs [potential] coulomb = ewald or dsf", DIM_NONE},
    {"mixture", "lnz", K_LIST, OFF(mixture.lnz), "", -1e3, 1e3, 0, NULL,
     "gcmc, required there with a mixture: each species' ln z (as [ensemble] lnz), to which every value of [ensemble] "
     "lnz (default 0 with a mixture) is added: the activities' ratios stay fixed along that axis", DIM_NONE},
    {"mixture", "hard_core", K_LIST, OFF(mixture.hard_core), "", 0, 1e6, 0, NULL,
     "molecules or boundary = none: hard-core radius of each species (length unit); a move bringing two sites "
     "closer than the sum of theirs is rejected", DIM_NONE},
    {"molecules", "types", K_STRING, OFF(molecules.types), "", 0, 0, 0, NULL,
     "names of 1 to 4 rigid molecule types, comma separated; sites are the [mixture] species (or the one "
     "[potential] species); [system] n becomes the site total", DIM_NONE},
    {"molecules", "lnz", K_LIST, OFF(molecules.lnz), "", -1e3, 1e3, 0, NULL,
     "gcmc with several molecule types, required there: each type's ln z (as [mixture] lnz for atoms), to which "
     "[ensemble] lnz (default 0 then) is added", DIM_NONE},
    {"molecules", "counts", K_LIST, OFF(molecules.counts), "", 1, 1e8, 0, NULL,
     "molecules of each type", DIM_NONE},
    {"molecules", "geometry", K_STRING, OFF(molecules.geometry), "", 0, 0, 0, NULL,
     "per type, separated by a vertical bar: a FILE.xyz (relative to the config) or inline sites 'SPECIES x y z; ...' in the "
     "length unit; an XYZ file is in A in real units (the format's convention; a comment line with unit=nm says "
     "nm) and in sigma in reduced units; recentred on the centre of mass; at most 64 sites a molecule (the GPU "
     "kernels keep a moved molecule's sites in fixed shared arrays)", DIM_NONE},
    {"wall", "radius", K_REAL, OFF(wall.radius), "0", 0, 1e6, 0, NULL,
     "boundary = none: a spherical wall about the origin; a molecular centre at r > radius adds k (r - radius)^2 / 2; 0: no wall", DIM_LENGTH},
    {"wall", "strength", K_REAL, OFF(wall.strength), "0", 0, 1e9, 0, NULL,
     "the wall's k in energy / length^2 (kJ/mol/nm^2 in real units)", DIM_NONE},
    {"output", "snapshot_every", K_INT, OFF(output.snapshot_every), "0", 0, 1e12, 0, NULL,
     "production samples between trajectory frames (H5MD, /particles); 0: only the final configuration. "
     "The last frame is always the end of the run", DIM_NONE},
    {"output", "snapshot_budget", K_REAL, OFF(output.snapshot_budget_gb), "10", 0, 1e9, 1, NULL,
     "GB: a trajectory (all chains, all frames) larger than this is refused at parse time unless force = yes",
     DIM_NONE},
    {"output", "force", K_BOOL, OFF(output.force), "no", 0, 0, 0, NULL,
     "write a trajectory larger than snapshot_budget", DIM_NONE},
    {"tmmc", "windows", K_INT, OFF(tmmc.windows), "1", 1, 1e5, 0, NULL,
     "gcmc: chains per replica, each confined to one of this many windows of N that split [n_min, n_max] into equal "
     "ranges sharing their edge macrostates; their collection matrices add up to one ln Pi(N)", DIM_NONE},
    {"tmmc", "bias", K_BOOL, OFF(tmmc.bias), "yes", 0, 0, 0, NULL,
     "gcmc: accept insertions and deletions with the bias ln Pi(N) - ln Pi(N') of the chain's own estimate, updated "
     "every round, so that N is sampled flat; no: the plain grand-canonical chain (the collection is unbiased either way)",
     DIM_NONE},
    {"rdf", "bins", K_INT, OFF(rdf.bins), "200", 1, 1e7, 0, NULL, "RDF histogram bins", DIM_NONE},
    {"rdf", "rmax", K_REAL, OFF(rdf.rmax), "0", 0, 1e6, 0, NULL,
     "RDF range; 0 means half the smallest box edge (npt: 0.4 of the smallest starting box; gibbs: the cutoff; boundary = none: the cutoff, and without one rmax is required)", DIM_LENGTH},
};
#undef OFF
enum { N_KEYS = sizeof schema / sizeof schema[0] };
_Static_assert((int)N_KEYS <= (int)CFG_MAX_KEYS, "cfg.line[] too small for the schema");

/* What a key's value must be, its range included (a value out of range gets this message too) */
static const char *kind_expectation(const cfg_key *k, char *buf, size_t len)
{
    const char *low = k->min_open ? ">" : ">=";
    switch (k->kind) {
    case K_INT: snprintf(buf, len, "an integer %s %.0f and <= %.0f", low, k->min, k->max); break;
    case K_REAL:
    case K_LIST: {
        char unit_list[96], with_units[128] = "";
        if (k->dim != DIM_NONE)
            snprintf(with_units, sizeof with_units, " (real units: optionally with %s)",
                     units_of(k->dim, unit_list, sizeof unit_list));
        snprintf(buf, len, "a number %s %.15g and <= %.15g%s%s", low, k->min, k->max,
                 k->kind == K_LIST ? ", a comma list, start:stop:count or start:stop:count:log" : "", with_units);
        break;
    }
    case K_BOOL: snprintf(buf, len, "yes or no"); break;
    case K_STRING: snprintf(buf, len, "a non-empty value"); break;
    case K_CHOICE: snprintf(buf, len, "one of %s", k->choices); break;
    case K_SEED: snprintf(buf, len, "an integer from 0 to 2^64-1"); break;
    case K_CUTOFF:
        snprintf(buf, len, "a number %s %.15g and <= %.15g (real units: optionally with nm or A) or none", low, k->min,
                 k->max);
        break;
    }
    return buf;
}

static int only_space(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return *s == '\0';
}

static int parse_real(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return end != s && errno == 0 && isfinite(*out) && only_space(end);
}

static int in_range(const cfg_key *k, double v)
{
    return (k->min_open ? v > k->min : v >= k->min) && v <= k->max;
}

/* "v", "a, b, c", "start:stop:count" (count >= 1 points, both ends included, equally spaced) or
 * "start:stop:count:log" (equal ratios between neighbours: the temperature ladder replica
 * exchange wants, whose neighbours' energy distributions overlap alike at every rung). */
enum { CFG_VALUE_MAX_LIST = 4096 }; /* a list's text: characters at most */
static int split_unit(const char *s, enum cfg_dim dim, char *buf, size_t len, double *factor);

/* A list: one value, a comma list (each value with its own unit, if any) or a range (one unit
 * after it). *unit_given is set where a unit was. */
static int parse_list(const cfg_key *k, const char *text, cfg_list *out, int *unit_given)
{
    enum { MAX_POINTS = 100000 };
    double a, b, cnt, factor = 1.0;
    char tmp[256], whole[CFG_VALUE_MAX_LIST];
    if (strlen(text) >= sizeof whole) return 0;
    const char *s = text;
    if (strchr(text, ':')) { /* a range: the unit after the count */
        int got = split_unit(text, k->dim, whole, sizeof whole, &factor);
        if (!got) return 0;
        if (got == 2) *unit_given = 1, s = whole;
    }
    const char *c1 = strchr(s, ':');
    if (c1) {
        const char *c2 = strchr(c1 + 1, ':'), *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
        if (!c2 || (c3 && strchr(c3 + 1, ':'))) return 0;
        int geometric = c3 != NULL;
        if (geometric && strcmp(c3 + 1, "log") != 0) return 0;
        snprintf(tmp, sizeof tmp, "%.*s", (int)(c1 - s), s);
        if (!parse_real(tmp, &a)) return 0;
        snprintf(tmp, sizeof tmp, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
        if (!parse_real(tmp, &b)) return 0;
        snprintf(tmp, sizeof tmp, "%.*s", c3 ? (int)(c3 - c2 - 1) : (int)strlen(c2 + 1), c2 + 1);
        if (!parse_real(tmp, &cnt) || cnt < 1 || cnt > MAX_POINTS || cnt != floor(cnt))
            return 0;
        if ((cnt == 1 && a != b) || (geometric && !(a > 0 && b > 0))) return 0;
        out->n = (int)cnt;
        out->v = malloc(sizeof(double) * (size_t)out->n);
        if (!out->v) return 0;
        for (int i = 0; i < out->n; i++) {
            double f = out->n == 1 ? 0.0 : (double)i / (out->n - 1);
            out->v[i] = geometric ? a * pow(b / a, f) : a + (b - a) * f;
        }
        if (geometric) out->v[out->n - 1] = b; /* the last point exactly as given, not b/a's power */
        for (int i = 0; i < out->n; i++) out->v[i] *= factor;
    } else {
        int n = 1;
        for (const char *p = s; *p; p++) n += *p == ',';
        out->v = malloc(sizeof(double) * (size_t)n);
        if (!out->v) return 0;
        out->n = 0;
        for (const char *p = s;; ) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            char number[256];
            if (len >= sizeof tmp) return 0;
            snprintf(tmp, sizeof tmp, "%.*s", (int)len, p);
            int got = split_unit(tmp, k->dim, number, sizeof number, &factor);
            if (!got) return 0;
            if (got == 2) *unit_given = 1;
            if (!parse_real(number, &out->v[out->n])) return 0;
            out->v[out->n++] *= factor;
            if (!comma) break;
            p = comma + 1;
        }
    }
    for (int i = 0; i < out->n; i++)
        if (!in_range(k, out->v[i])) return 0;
    return 1;
}

static int parse_choice(const char *choices, const char *s, int *out)
{
    size_t len = strlen(s);
    int idx = 0;
    for (const char *p = choices;; idx++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && strncmp(p, s, n) == 0) {
            *out = idx;
            return 1;
        }
        if (!bar) return 0;
        p = bar + 1;
    }
}

static int parse_bool(const char *s, int *out)
{
    static const char *yes[] = {"yes", "true", "on", "1"}, *no[] = {"no", "false", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(s, yes[i]) == 0) return *out = 1, 1;
        if (strcmp(s, no[i]) == 0) return *out = 0, 1;
    }
    return 0;
}

/* A length "0.34 nm" or "3.4 A" (Angstrom; also "Angstrom"), or an inverse length "1.5 1/A":
 * the number into buf and the factor to nm (or 1/nm). No suffix: factor 1, buf = s. */
/* A value with an optional unit of dim after a space ("3.4 A", "85 K"): the number's text into
 * buf and the unit's factor (1 without one). Returns 2 with a unit, 1 without, 0 where the last
 * word is a unit of no use here. */
static int split_unit(const char *s, enum cfg_dim dim, char *buf, size_t len, double *factor)
{
    while (isspace((unsigned char)*s)) s++;
    snprintf(buf, len, "%s", s);
    char *end = buf + strlen(buf);
    while (end > buf && isspace((unsigned char)end[-1])) *--end = '\0';
    char *space = strrchr(buf, ' ');
    *factor = 1.0;
    if (!space || dim == DIM_NONE) return 1; /* a bare number (or garbage parse_real rejects) */
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (units[i].dim == dim && strcmp(space + 1, units[i].unit) == 0) {
            *space = '\0';
            *factor = units[i].factor;
            return 2;
        }
    return 0;
}

/* Store value text into the field of key k; 1 on success. Frees what the field held before. */
static int parse_value(const cfg_key *k, const char *s, cfg *c)
{
    void *field = (char *)c + k->offset;
    double v;
    switch (k->kind) {
    case K_INT:
        if (!parse_real(s, &v) || v != floor(v) || !in_range(k, v) || strpbrk(s, ".eE")) return 0;
        *(long *)field = (long)v;
        return 1;
    case K_SEED: {
        char *end;
        errno = 0;
        if (*s == '-') return 0;
        unsigned long long u = strtoull(s, &end, 10);
        if (end == s || errno != 0 || !only_space(end)) return 0;
        *(uint64_t *)field = (uint64_t)u;
        return 1;
    }
    case K_CUTOFF:
        if (strcmp(s, "none") == 0) {
            *(double *)field = INFINITY;
            return 1;
        }
        /* fall through */ /* otherwise a number */
    case K_REAL: {
        double factor = 1.0;
        char number[128];
        const char *text = s;
        if (k->dim != DIM_NONE) {
            int got = split_unit(s, k->dim, number, sizeof number, &factor);
            if (!got) return 0;
            text = number;
            if (got == 2) c->unit_suffix = 1;
        }
        if (!parse_real(text, &v)) return 0;
        v *= factor;
        if (!in_range(k, v)) return 0;
        *(double *)field = v;
        return 1;
    }
    case K_BOOL: return parse_bool(s, (int *)field);
    case K_CHOICE: return parse_choice(k->choices, s, (int *)field);
    case K_STRING: {
        if (*s == '\0') return 0;
        char *dup = strdup(s);
        if (!dup) return 0;
        free(*(char **)field);
        *(char **)field = dup;
        return 1;
    }
    case K_LIST: {
        cfg_list *list = field, fresh = {0, NULL};
        if (!parse_list(k, s, &fresh, &c->unit_suffix)) return free(fresh.v), 0;
        free(list->v);
        *list = fresh;
        return 1;
    }
    }
    return 0;
}

static const cfg_key *find_key(const char *section, const char *name, int *in_known_section)
{
    *in_known_section = 0;
    for (int i = 0; i < N_KEYS; i++) {
        if (strcmp(schema[i].section, section) != 0) continue;
        *in_known_section = 1;
        if (strcmp(schema[i].name, name) == 0) return &schema[i];
    }
    return NULL;
}

/* libinih reads through this, so that we know the current line number and can check section
 * headers as they come (libinih tells the handler only about keys, so an empty unknown section
 * would otherwise pass unnoticed). A value may go on over indented lines (libinih's multi-line
 * entries, as Python's configparser reads them): libinih hands each line to the handler as a key
 * of its own, so the handler holds each key's value (pending) until a line that does not
 * continue it, and parses it whole. */
typedef struct parse_ctx {
    cfg *c;
    const char *pos;
    int line, at_line_start;
    int indented; /* the line the reader gave last began with blank space */
    mc_err *err;
    char section[64], name[64]; /* the pending key, "" where none */
    char *value;                /* its value so far (malloc'd) */
    int value_line;             /* the line it began on */
} parse_ctx;

enum { CFG_VALUE_MAX = 65536 }; /* a value over continuation lines: characters at most */

static int section_known(const char *name, size_t len)
{
    for (int i = 0; i < N_KEYS; i++)
        if (strlen(schema[i].section) == len && strncmp(schema[i].section, name, len) == 0) return 1;
    return 0;
}

/* "run, system, ... or rdf": the schema's sections in order, for messages. */
static void section_list(char *buf, size_t len)
{
    buf[0] = '\0';
    const char *last = NULL;
    for (int i = 0; i < N_KEYS; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = strcmp(schema[j].section, schema[i].section) == 0;
        if (seen) continue;
        if (last) snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", last);
        last = schema[i].section;
    }
    snprintf(buf + strlen(buf), len - strlen(buf), " or %s", last);
}

static int check_section_header(parse_ctx *ctx, const char *text)
{
    while (isspace((unsigned char)*text)) text++;
    if (*text != '[') return 1;
    const char *end = strchr(text, ']');
    if (!end) return 1; /* libinih reports the malformed line */
    if (section_known(text + 1, (size_t)(end - text - 1))) return 1;
    char sections[256];
    section_list(sections, sizeof sections);
    mc_err_set(ctx->err, MC_EINVAL, "%s:%d: unknown section [%.*s] (expected %s)", ctx->c->filename, ctx->line,
               (int)(end - text - 1), text + 1, sections);
    return 0;
}

static char *reader_next(char *buf, int size, void *stream)
{
    parse_ctx *ctx = stream;
    if (*ctx->pos == '\0' || size < 2 || ctx->err->code != MC_OK) return NULL;
    int i = 0, starts_line = ctx->at_line_start;
    if (starts_line) ctx->line++;
    while (i < size - 1 && ctx->pos[0] != '\0') {
        char ch = *ctx->pos++;
        buf[i++] = ch;
        if (ch == '\n') break;
    }
    buf[i] = '\0';
    ctx->at_line_start = i > 0 && buf[i - 1] == '\n';
    if (!ctx->at_line_start && ctx->pos[0] != '\0') {
        mc_err_set(ctx->err, MC_EINVAL, "%s:%d: line longer than %d characters (the INI reader's limit); "
                   "go on with the value on indented lines below it, or put a long molecule geometry in an XYZ "
                   "file", ctx->c->filename, ctx->line, size - 2);
        return NULL;
    }
    if (starts_line) ctx->indented = buf[0] == ' ' || buf[0] == '\t';
    if (starts_line && !check_section_header(ctx, buf)) return NULL;
    return buf;
}

/* One key = value, whole (continuation lines joined), from the given line. */
static int take_key(parse_ctx *ctx, const char *section, const char *name, const char *value, int line)
{
    const char *file = ctx->c->filename;
    int in_known_section;
    const cfg_key *k = find_key(section, name, &in_known_section);
    if (!k && !in_known_section) { /* unknown sections stop in the reader: only "" is left */
        mc_err_set(ctx->err, MC_EINVAL, "%s:%d: key '%s' before any [section]", file, line, name);
        return 0;
    }
    if (!k) {
        mc_err_set(ctx->err, MC_EINVAL, "%s:%d: unknown key '%s' in [%s]", file, line, name,
                   section);
        return 0;
    }
    int idx = (int)(k - schema);
    if (ctx->c->line[idx] != 0) {
        mc_err_set(ctx->err, MC_EINVAL, "%s:%d: [%s] %s given twice (first on line %d)", file, line,
                   section, name, ctx->c->line[idx]);
        return 0;
    }
    int had_suffix = ctx->c->unit_suffix;
    if (!parse_value(k, value, ctx->c)) {
        char want[256];
        mc_err_set(ctx->err, MC_EINVAL, "%s:%d: [%s] %s = '%s': expected %s", file, line, section,
                   name, value, kind_expectation(k, want, sizeof want));
        return 0;
    }
    ctx->c->line[idx] = line;
    if (ctx->c->unit_suffix && !had_suffix) ctx->c->unit_suffix = line;
    return 1;
}

/* The pending key, parsed; none is left pending. */
static int flush_key(parse_ctx *ctx)
{
    if (!ctx->name[0]) return 1;
    int ok = take_key(ctx, ctx->section, ctx->name, ctx->value ? ctx->value : "", ctx->value_line);
    ctx->name[0] = '\0';
    free(ctx->value);
    ctx->value = NULL;
    return ok;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *ctx = user;
    const char *file = ctx->c->filename;
    if (ctx->indented && ctx->name[0] && strcmp(ctx->name, name) == 0 && strcmp(ctx->section, section) == 0) {
        if (strchr(value, '=')) { /* "  density = 0.5": a key indented by mistake, not more of the one above */
            mc_err_set(ctx->err, MC_EINVAL, "%s:%d: an indented line goes on with the value of [%s] %s (line %d), "
                       "but this one looks like a key of its own: remove its leading blank space", file,
                       ctx->line, section, name, ctx->value_line);
            return 0;
        }
        size_t have = strlen(ctx->value), more = strlen(value);
        char *joined = have + 1 + more < CFG_VALUE_MAX ? realloc(ctx->value, have + more + 2) : NULL;
        if (!joined) {
            mc_err_set(ctx->err, MC_EINVAL, "%s:%d: [%s] %s: the value over continuation lines is longer than %d "
                       "characters", file, ctx->line, section, name, CFG_VALUE_MAX - 1);
            return 0;
        }
        snprintf(joined + have, more + 2, " %s", value);
        ctx->value = joined;
        return 1;
    }
    if (!flush_key(ctx)) return 0;
    if (strlen(section) >= sizeof ctx->section || strlen(name) >= sizeof ctx->name)
        return take_key(ctx, section, name, value, ctx->line); /* unknown: take_key names it */
    snprintf(ctx->section, sizeof ctx->section, "%s", section);
    snprintf(ctx->name, sizeof ctx->name, "%s", name);
    ctx->value_line = ctx->line;
    if (!(ctx->value = strdup(value))) {
        mc_err_set(ctx->err, MC_ENOMEM, "out of memory reading %s", file);
        return 0;
    }
    return 1;
}

void cfg_fini(cfg *c)
{
    if (!c) return;
    for (int i = 0; i < N_KEYS; i++) {
        void *field = (char *)c + schema[i].offset;
        if (schema[i].kind == K_STRING) free(*(char **)field);
        if (schema[i].kind == K_LIST) free(((cfg_list *)field)->v);
    }
    free(c->filename);
    memset(c, 0, sizeof *c);
}

/* Every key without a default was given. */
static int check_required(cfg *c, mc_err *err)
{
    for (int i = 0; i < N_KEYS; i++)
        if (!schema[i].default_text && c->line[i] == 0)
            MC_FAIL(err, MC_EINVAL, "%s: missing required key '%s' in [%s]", c->filename,
                    schema[i].name, schema[i].section);
    return MC_OK;
}

int cfg_read(cfg *c, const char *text, const char *filename, mc_err *err)
{
    memset(c, 0, sizeof *c);
    c->filename = strdup(filename);
    if (!c->filename) MC_FAIL(err, MC_ENOMEM, "out of memory reading %s", filename);
    for (int i = 0; i < N_KEYS; i++)
        if (schema[i].default_text && schema[i].default_text[0] &&
            !parse_value(&schema[i], schema[i].default_text, c)) {
            cfg_fini(c);
            MC_FAIL(err, MC_EINVAL, "internal: bad default for [%s] %s", schema[i].section,
                    schema[i].name);
        }
    parse_ctx ctx = {c, text, 0, 1, 0, err, "", "", NULL, 0};
    int rc = ini_parse_stream(reader_next, &ctx, on_key, &ctx);
    if (rc == 0 && err->code == MC_OK && !flush_key(&ctx)) rc = err->code;
    free(ctx.value);
    if (rc != 0 && err->code == MC_OK)
        mc_err_set(err, MC_EINVAL, "%s:%d: cannot parse this line (expected [section] or key = value)",
                   filename, rc > 0 ? rc : ctx.line);
    if (err->code != MC_OK) rc = err->code;
    if (rc == 0) rc = check_required(c, err);
    if (rc != 0) {
        cfg_fini(c);
        return err->code;
    }
    return MC_OK;
}

int cfg_line(const cfg *c, const char *section, const char *key)
{
    for (int i = 0; i < N_KEYS; i++)
        if (strcmp(schema[i].section, section) == 0 && strcmp(schema[i].name, key) == 0)
            return c->line[i];
    return 0;
}

/* The shortest decimal that reads back as the same double: 0.4, not 0.40000000000000002. */
/* The shortest text that reads back as v; whole numbers below 1e15 as plain integers (30, not
 * 3e+01: the shortest %g of a round number takes an exponent). */
static void print_real(double v, FILE *f)
{
    char buf[32];
    if (v == floor(v) && fabs(v) < 1e15) {
        fprintf(f, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

static void print_value(const cfg_key *k, const cfg *c, FILE *f)
{
    const void *field = (const char *)c + k->offset;
    switch (k->kind) {
    case K_INT: fprintf(f, "%ld", *(const long *)field); break;
    case K_SEED: fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)field); break;
    case K_CUTOFF:
        if (isinf(*(const double *)field)) {
            fputs("none", f);
            break;
        }
        /* fall through */
    case K_REAL: print_real(*(const double *)field, f); break;
    case K_BOOL: fprintf(f, "%s", *(const int *)field ? "yes" : "no"); break;
    case K_STRING: fprintf(f, "%s", *(char *const *)field ? *(char *const *)field : ""); break;
    case K_CHOICE: {
        const char *p = k->choices;
        for (int i = *(const int *)field; i > 0; i--) p = strchr(p, '|') + 1;
        const char *bar = strchr(p, '|');
        fprintf(f, "%.*s", bar ? (int)(bar - p) : (int)strlen(p), p);
        break;
    }
    case K_LIST: {
        const cfg_list *l = field;
        for (int i = 0; i < l->n; i++) {
            if (i) fputs(", ", f);
            print_real(l->v[i], f);
        }
        break;
    }
    }
}

/* Keys that cfg_check sets from another one the config gave: the printout says so, where it
 * would say "default". */
static const struct derived_key {
    const char *section, *key, *from;
} derived_keys[] = {
    {"ensemble", "density", "mass_density"}, /* number densities from mass densities and the mass */
    {"potential", "epsilon", "epsilon_k"},   /* R epsilon_k */
    {"mixture", "epsilon", "epsilon_k"},
    {"potential", "sigma", "rmin"},          /* rmin / 2^(1/6) */
    {"potential", "sigma", "preset"},        /* the argon preset's */
    {"potential", "epsilon_k", "preset"},
    {"potential", "epsilon", "preset"},
};

/* When a key applies to a run (--dry-run prints the others only where the config gives them):
 * keys of a section that the run does not have, and keys of another potential, ensemble, start or
 * backend. A key not listed always applies. */
static int has_mixture(const cfg *c) { return c->mixture.species && c->mixture.species[0]; }
static int has_molecules(const cfg *c) { return c->molecules.types != NULL; }
static int is_cluster(const cfg *c) { return c->system.boundary == CFG_BOUNDARY_NONE; }
static int is_morse(const cfg *c) { return c->potential.type == CFG_POTENTIAL_MORSE; }
static int is_morse_mixture(const cfg *c) { return is_morse(c) && has_mixture(c); }
static int is_ewald(const cfg *c) { return c->potential.coulomb == CFG_COULOMB_EWALD; }
static int is_dsf(const cfg *c) { return c->potential.coulomb == CFG_COULOMB_DSF; }
static int is_coulomb(const cfg *c) { return c->potential.coulomb != CFG_COULOMB_NONE; }
static int is_npt(const cfg *c) { return c->ensemble.type == CFG_ENSEMBLE_NPT; }
static int is_gibbs(const cfg *c) { return c->ensemble.type == CFG_ENSEMBLE_GIBBS; }
static int is_gcmc(const cfg *c) { return c->ensemble.type == CFG_ENSEMBLE_GCMC; }
static int transfers(const cfg *c) { return is_gibbs(c) || is_gcmc(c); }
static int has_density(const cfg *c) { return !is_gcmc(c); }
static int has_volume_moves(const cfg *c) { return is_npt(c) || is_gibbs(c); }
static int counts_n(const cfg *c) { return !has_mixture(c) && !has_molecules(c) && !is_gcmc(c); }
static int counts_species(const cfg *c) { return has_mixture(c) && !is_gcmc(c); }
static int counts_molecules(const cfg *c) { return has_molecules(c) && !is_gcmc(c); }
static int one_species(const cfg *c) { return !has_mixture(c); }
static int one_lj_species(const cfg *c) { return !has_mixture(c) && !is_morse(c); }
static int default_mass(const cfg *c) { return !has_mixture(c) || !c->mixture.mass.n; }
static int from_file(const cfg *c) { return c->system.start == CFG_START_FILE || c->system.start == CFG_START_XYZ; }
static int from_h5(const cfg *c) { return c->system.start == CFG_START_H5; }
static int truncated(const cfg *c) { return c->potential.cutoff_scheme == CFG_CUTOFF_TRUNCATED; }
static int exchanges(const cfg *c) { return c->ensemble.exchange_every > 0; }
static int has_trajectory(const cfg *c) { return c->output.snapshot_every > 0; }
static int may_use_gpu(const cfg *c) { return c->run.backend != CFG_BACKEND_CPU; }
static const struct {
    const char *section, *key;
    int (*applies)(const cfg *c);
} key_applies[] = {
    {"run", "precision", may_use_gpu}, {"run", "gpu_batch_trials", may_use_gpu}, {"run", "gpu_cell_lists", may_use_gpu},
    {"system", "n", counts_n}, {"system", "start_file", from_file}, {"system", "start_chain", from_h5},
    {"system", "lattice_constant", is_cluster}, {"system", "mass", default_mass},
    {"potential", "preset", one_species}, {"potential", "sigma", one_lj_species}, {"potential", "rmin", one_lj_species},
    {"potential", "epsilon", one_species}, {"potential", "epsilon_k", one_species},
    {"potential", "morse_alpha", is_morse}, {"potential", "morse_r0", is_morse}, {"potential", "charge", one_species},
    {"potential", "tail_correction", truncated},
    {"potential", "coulomb_cutoff", is_coulomb}, {"potential", "dsf_alpha", is_dsf}, {"potential", "ewald_precision", is_ewald},
    {"potential", "ewald_alpha", is_ewald}, {"potential", "ewald_kmax", is_ewald}, {"potential", "ewald_ksq_max", is_ewald},
    {"ensemble", "pressure", is_npt}, {"ensemble", "start_densities", is_gibbs},
    {"ensemble", "density", has_density}, {"ensemble", "mass_density", has_density}, {"ensemble", "lnz", is_gcmc},
    {"ensemble", "n_min", is_gcmc}, {"ensemble", "n_max", is_gcmc}, {"system", "box_length", is_gcmc},
    {"tmmc", "windows", is_gcmc}, {"tmmc", "bias", is_gcmc}, {"ensemble", "exchange_axis", exchanges},
    {"moves", "max_rotation", has_molecules}, {"moves", "max_volume_step", has_volume_moves},
    {"moves", "displacement_fraction", transfers}, {"moves", "transfer_fraction", transfers},
    {"moves", "volume_fraction", is_gibbs},
    {"mixture", "species", has_mixture}, {"mixture", "counts", counts_species}, {"mixture", "sigma", has_mixture},
    {"mixture", "epsilon", has_mixture}, {"mixture", "epsilon_k", has_mixture}, {"mixture", "mass", has_mixture},
    {"mixture", "pair_sigma", has_mixture}, {"mixture", "pair_epsilon", has_mixture},
    {"mixture", "charge", has_mixture}, {"mixture", "hard_core", has_mixture}, {"mixture", "lnz", is_gcmc},
    {"mixture", "morse_alpha", is_morse_mixture}, {"mixture", "morse_r0", is_morse_mixture},
    {"mixture", "pair_morse_alpha", is_morse_mixture}, {"mixture", "pair_morse_r0", is_morse_mixture},
    {"molecules", "types", has_molecules}, {"molecules", "counts", counts_molecules}, {"molecules", "lnz", is_gcmc},
    {"molecules", "geometry", has_molecules},
    {"wall", "radius", is_cluster}, {"wall", "strength", is_cluster},
    {"output", "snapshot_budget", has_trajectory}, {"output", "force", has_trajectory},
};

/* Whether schema row i applies to the run c is (given keys always do). */
static int key_applies_to(const cfg *c, int i)
{
    if (c->line[i]) return 1;
    for (size_t a = 0; a < sizeof key_applies / sizeof key_applies[0]; a++)
        if (strcmp(key_applies[a].section, schema[i].section) == 0 && strcmp(key_applies[a].key, schema[i].name) == 0)
            return key_applies[a].applies(c);
    return 1;
}

void cfg_print(const cfg *c, FILE *f)
{
    const char *section = "";
    int hidden = 0;
    for (int i = 0; i < N_KEYS; i++) {
        if (!key_applies_to(c, i)) {
            hidden++;
            continue;
        }
        if (strcmp(section, schema[i].section) != 0) {
            fprintf(f, "%s[%s]\n", section[0] ? "\n" : "", schema[i].section);
            section = schema[i].section;
        }
        fprintf(f, "%s = ", schema[i].name);
        print_value(&schema[i], c, f);
        const char *from = NULL;
        for (size_t d = 0; !c->line[i] && d < sizeof derived_keys / sizeof derived_keys[0]; d++)
            if (strcmp(derived_keys[d].section, section) == 0 && strcmp(derived_keys[d].key, schema[i].name) == 0 &&
                cfg_line(c, section, derived_keys[d].from))
                from = derived_keys[d].from;
        if (c->line[i]) fprintf(f, "    ; line %d\n", c->line[i]);
        else if (from) fprintf(f, "    ; from %s (line %d)\n", from, cfg_line(c, section, from));
        else fprintf(f, "    ; default\n");
    }
    if (hidden)
        fprintf(f, "\n(%d keys that do not apply to this run are not shown: another potential, ensemble, start or "
                "section; mcens --config-reference lists every key)\n", hidden);
}

void cfg_print_reference(FILE *f)
{
    fprintf(f, "| section | key | default | meaning |\n|---|---|---|---|\n");
    for (int i = 0; i < N_KEYS; i++)
        fprintf(f, "| `[%s]` | `%s` | %s | %s |\n", schema[i].section, schema[i].name,
                !schema[i].default_text     ? "(required)"
                : schema[i].default_text[0] ? schema[i].default_text
                                            : "(none)",
                schema[i].help);
}
