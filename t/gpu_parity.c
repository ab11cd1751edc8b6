/* CPU/GPU parity: the same plan and seeds on mc_backend_cpu and mc_backend_cuda must make the same
 * accept/reject decisions (equal accepted counts at every check) and give the same running energy
 * to 1e-10 relative, on the all-pairs and cell-list (CPU side) shapes at N = 500 over 10^4 sweeps,
 * on the many-chain kernel's cell lists (a pure fluid, replica exchange), on the
 * batched large-chain kernel, also with batches so long that particles repeat within
 * them, and on the cell-list path for large chains with a cutoff; those three paths, which correct
 * a batch's trials, again from overlapping pairs whose terms are too large to carry through a
 * batch (CU_CANCEL_LIMIT); NPT volume moves through the run driver. The NIST configuration 4 and
 * RDF counts through the GPU measurement. Molecules (hard
 * cores, an open cluster in a wall, Widom test molecules, npt, Morse), on the resident and the
 * batched kernels (150 hexagons in one chain at 32 trials a batch, a diatomic mixture at 64, a
 * cluster at 256; 130 molecules of 12 sites at 32). Replica exchange on atoms,
 * along a pressure ladder and in a cluster. The device's minimum image against the host's. Skips
 * without a GPU. */
#define _POSIX_C_SOURCE 200809L /* setenv: a test hook for one case */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_device.h"
#include "cu_fold_check.h"
#include "cu_lj_range_check.h"
#include "mc_backend.h"
#include "mc_chain.h"
#include "mc_gcmc.h"
#include "mc_gibbs.h"
#include "tmmc.h"
#include "mc_run.h"
#include "pair.h"

/* the float pair functions, as the GPU's single precision compiles them (pair.h gives C only the
 * double ones), for the host's side of image_fold_on_device */
#define PAIR_REAL float
#define PAIR_FN(name) name##_f
#include "pair_fn.inc"
#undef PAIR_REAL
#undef PAIR_FN

typedef struct pair_of_runs {
    mc_plan *plan;
    mc_chain *cpu, *gpu;
    mc_backend *bc, *bg;
    int remeasure; /* run_in_step compares energies recomputed after each block (overlap cases) */
} pair_of_runs;

/* The overlap cases' start: particle 2q + 1 (q < pairs) OVERLAP_GAP sigma from particle 2q along
 * x, an LJ term of 1e33 kT at T = 1 (4 gap^-12), so that batches meet pair terms beyond the GPU's
 * CU_CANCEL_LIMIT (1e6 kT, cuda/cu_kernels.cuh). */
#define OVERLAP_GAP 0.002
static void overlap_pairs(mc_chain *c, int pairs)
{
    for (int q = 0; q < pairs; q++) {
        const int a = 2 * q, b = 2 * q + 1;
        c->x[b] = mc_wrap(c->x[a] + OVERLAP_GAP, c->box_len), c->y[b] = c->y[a], c->z[b] = c->z[a];
    }
}

/* trials: the batch size K for the large-chain paths ([run] gpu_batch_trials; 0 for the default).
 * with trials, ini must end in its [run] section, which the key joins. overlaps: pairs placed by
 * overlap_pairs before the backends take the chains. */
static void pair_create_with(pair_of_runs *r, const char *ini, int chain, int trials, int overlaps)
{
    mc_err err = {0, ""};
    char text[1024];
    if (trials) snprintf(text, sizeof text, "%sgpu_batch_trials = %d\n", ini, trials);
    else snprintf(text, sizeof text, "%s", ini);
    r->plan = tu_plan(text);
    r->cpu = mc_chain_create(r->plan, chain, &err);
    r->gpu = mc_chain_create(r->plan, chain, &err);
    if (!r->cpu || !r->gpu) fail_msg("chain: %s", err.msg);
    overlap_pairs(r->cpu, overlaps), overlap_pairs(r->gpu, overlaps);
    r->remeasure = overlaps > 0;
    r->bc = mc_backend_cpu.create(r->plan, &r->cpu, 1, &err);
    r->bg = mc_backend_cuda.create(r->plan, &r->gpu, 1, &err);
    if (!r->bc || !r->bg) fail_msg("backend: %s", err.msg);
}

static void pair_create_k(pair_of_runs *r, const char *ini, int chain, int trials)
{
    pair_create_with(r, ini, chain, trials, 0);
}

static void pair_create(pair_of_runs *r, const char *ini, int chain) { pair_create_k(r, ini, chain, 0); }

/* The two atom paths a run of fewer chains than the GPU has SMs can take for chains of 256 to 1023
 * (cuda/cu_backend.cu's use_batched): by default the batched trials of a few chains side by side;
 * with gpu_batch_trials = 1024 (more than N / 4) the many-chain kernel, a block a chain. */
static const struct atom_path {
    int trials;
    const char *name;
} atom_paths[] = {{0, "few-chains"}, {1024, "many-chains"}};

/* ... their names under npt (the many-chain kernel's npt shape makes the volume moves itself) */
static const char *const atom_npt_paths[] = {"few-chains", "many-chains-npt"};

/* pair_create on atom_paths[w] (ini ends in its [run] section), the path checked. */
static void pair_create_on(pair_of_runs *r, const char *ini, int chain, int w)
{
    pair_create_k(r, ini, chain, atom_paths[w].trials);
    assert_string_equal(mc_backend_cuda.path(r->bg), atom_paths[w].name);
    printf("# on %s\n", atom_paths[w].name);
}

static void pair_destroy(pair_of_runs *r)
{
    mc_backend_cpu.destroy(r->bc);
    mc_backend_cuda.destroy(r->bg);
    mc_chain_destroy(r->cpu);
    mc_chain_destroy(r->gpu);
    mc_plan_destroy(r->plan);
}

/* Run both for `total` sweeps in blocks, comparing after each; max_displacement is set alike.
 * With r->remeasure the energies compared are recomputations, which also restart both running
 * sums: an accepted move out of an overlap (dE ~ -1e33) leaves its rounding (~1e17) in each
 * backend's running sum, summed in another order on each. */
static void run_in_step(pair_of_runs *r, long total, long block, double step)
{
    mc_err err = {0, ""};
    r->cpu->max_displacement = r->gpu->max_displacement = step;
    for (long done = 0; done < total; done += block) {
        assert_int_equal(mc_backend_cpu.sweep(r->bc, block, &err), MC_OK);
        if (mc_backend_cuda.sweep(r->bg, block, &err) != MC_OK) fail_msg("gpu sweep: %s", err.msg);
        if (r->cpu->step != r->gpu->step || r->cpu->accepted != r->gpu->accepted)
            fail_msg("after %ld sweeps: cpu %llu/%llu accepted, gpu %llu/%llu", done + block,
                     (unsigned long long)r->cpu->accepted, (unsigned long long)r->cpu->step,
                     (unsigned long long)r->gpu->accepted, (unsigned long long)r->gpu->step);
        double ec = r->cpu->energy_pair, eg = r->gpu->energy_pair;
        if (r->remeasure) {
            mc_measurement mc, mg;
            assert_int_equal(mc_backend_cpu.measure(r->bc, 0, &mc, &err), MC_OK);
            assert_int_equal(mc_backend_cuda.measure(r->bg, 0, &mg, &err), MC_OK);
            ec = mc.energy_pair, eg = mg.energy_pair;
        }
        double rel = fabs(ec - eg) / fabs(ec);
        if (!(rel < 1e-10))
            fail_msg("after %ld sweeps: energy cpu %.15g gpu %.15g (rel %.3g)", done + block, ec, eg, rel);
    }
    mc_measurement mc, mg;
    assert_int_equal(mc_backend_cpu.measure(r->bc, 0, &mc, &err), MC_OK);
    assert_int_equal(mc_backend_cuda.measure(r->bg, 0, &mg, &err), MC_OK);
    assert_true(fabs(mc.energy_pair - mg.energy_pair) < 1e-10 * fabs(mc.energy_pair));
    assert_true(fabs(mc.virial_pair - mg.virial_pair) < 1e-10 * fabs(mc.virial_pair));
    double wc, wg; /* Widom: the same test positions, the same Boltzmann-factor sums */
    for (int a = 0; a < r->plan->species.n; a++) { /* a test particle of every species */
        assert_int_equal(mc_backend_cpu.widom(r->bc, a, 64, 3, &wc, &err), MC_OK);
        assert_int_equal(mc_backend_cuda.widom(r->bg, a, 64, 3, &wg, &err), MC_OK);
        if (!(fabs(wc - wg) <= 1e-10 * fabs(wc)))
            fail_msg("Widom sums, species %d: cpu %.15g gpu %.15g", a, wc, wg);
    }
    assert_int_equal(mc_backend_cuda.fetch(r->bg, &err), MC_OK);
    double worst = 0.0;
    for (int i = 0; i < r->plan->n; i++) worst = fmax(worst, fabs(r->cpu->x[i] - r->gpu->x[i]));
    if (!(worst < 1e-9)) fail_msg("positions differ by up to %g", worst);
    printf("# %ld sweeps: %llu of %llu moves accepted on both, energy %.12f, max |dx| %.2g\n", total,
           (unsigned long long)r->gpu->accepted, (unsigned long long)r->gpu->step,
           r->gpu->energy_pair, worst);
}

/* Chain 0 of ini (ending in its [run] section) in step with the CPU on each atom path in turn. */
static void on_both_atom_paths(const char *ini, long sweeps, long block)
{
    for (int w = 0; w < 2; w++) {
        pair_of_runs r;
        pair_create_on(&r, ini, 0, w);
        run_in_step(&r, sweeps, block, 0.12);
        pair_destroy(&r);
    }
}

/* one chain of 500 with a cutoff, on both atom paths */
static void all_pairs_n500(void **state)
{
    (void)state;
    on_both_atom_paths("[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntemperature = 1\n"
                       "density = 0.8\n[run]\nseed = 21\n", 10000, 1000);
}

/* cutoff 2.1 in the 8.55 box: 4 cells per edge, so the CPU side takes its cell-list path */
static void cell_list_n500(void **state)
{
    (void)state;
    pair_of_runs r;
    pair_create(&r, "[system]\nn = 500\n[potential]\ncutoff = 2.1\n[ensemble]\ntemperature = 1\n"
                    "density = 0.8\nreplicas = 4\n[run]\nseed = 22\n", 3);
    run_in_step(&r, 10000, 1000, 0.12);
    pair_destroy(&r);
}

/* Cell lists inside the many-chain kernel: N = 2000 at rho 0.8 with rc 2.5 (5 cells per edge on
 * both sides), and gpu_cell_lists = no on the same chain (the all-pairs kernel): both make the
 * CPU's decisions. gpu_batch_trials = 1024 keeps the one chain off the batched large-chain path
 * (taken from 4 K particles). */
static void chain_cells_n2000(void **state)
{
    (void)state;
    static const char *ini = "[system]\nn = 2000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\n"
                             "density = 0.8\nreplicas = 2\n[run]\nseed = 23\ngpu_batch_trials = 1024\n%s";
    char text[512];
    for (int all_pairs = 0; all_pairs < 2; all_pairs++) {
        pair_of_runs r;
        snprintf(text, sizeof text, ini, all_pairs ? "gpu_cell_lists = no\n" : "");
        pair_create(&r, text, 1);
        run_in_step(&r, 400, 100, 0.12);
        pair_destroy(&r);
    }
}

/* ... and the kernel's other two blocks (cuda/cu_chain_cells.cu's chain_block; the parity runs are
 * double), on a GPU with 228 kB of shared memory an SM (H100, H200): N = 3000 stages its 72 kB of
 * positions at two chains of 512 threads an SM (batches of 16 trials); N = 5000 (120 kB) reads them
 * from global memory (N = 2000 above stages them at four chains of 256). A run of fewer chains than
 * the GPU has SMs takes the batched path from N = 4 gpu_batch_trials: N = 3000 keeps off it with
 * K = 1024, N = 5000 by a plan of 256 chains (this test runs one of them). */
static void chain_cells_blocks(void **state)
{
    (void)state;
    static const struct { int n, replicas; } cases[] = {{3000, 2}, {5000, 256}};
    for (int c = 0; c < 2; c++) {
        char text[512];
        snprintf(text, sizeof text,
                 "[system]\nn = %d\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\n"
                 "replicas = %d\n[run]\nseed = %d\ngpu_batch_trials = 1024\n", cases[c].n, cases[c].replicas, 60 + c);
        pair_of_runs r;
        pair_create(&r, text, 1);
        run_in_step(&r, 200, 50, 0.12);
        pair_destroy(&r);
    }
}

/* The linear-force-shifted potential (square root in the pair function) on both atom paths. */
static void force_shifted_n500(void **state)
{
    (void)state;
    on_both_atom_paths("[system]\nn = 500\n[potential]\ncutoff = 2.5\ncutoff_scheme = force_shifted\n"
                       "[ensemble]\ntemperature = 1\ndensity = 0.8\n[run]\nseed = 26\n", 2000, 500);
}

/* Morse (exp and square root in the pair function), force-shifted, on both atom paths. */
static void morse_n500(void **state)
{
    (void)state;
    on_both_atom_paths("[system]\nn = 500\n[potential]\ntype = morse\nmorse_alpha = 6\nmorse_r0 = 1.1\n"
                       "cutoff = 2.5\ncutoff_scheme = force_shifted\n[ensemble]\ntemperature = 1\n"
                       "density = 0.8\n[run]\nseed = 29\n", 2000, 500);
}

/* Mixtures: pair constants per species block on both atom paths (with every species' Widom test
 * particles and the per-pair RDF counts) and on the batched kernels of a large chain. */
#define MIX3 "[mixture]\nspecies = A, B, C\nsigma = 1, 1.2, 0.9\nepsilon = 1, 0.7, 1.3\n" \
             "pair_epsilon = A-C:0.5\n"
static void mixture_n500(void **state)
{
    (void)state;
    for (int w = 0; w < 2; w++) {
        pair_of_runs r;
        pair_create_on(&r, MIX3 "counts = 250, 150, 100\n[potential]\ncutoff = 2.5\n[ensemble]\n"
                           "temperature = 1.5\ndensity = 0.7\n[rdf]\nbins = 60\n[run]\nseed = 30\n", 0, w);
        run_in_step(&r, 2000, 500, 0.12);
        mc_err err = {0, ""};
        mc_measurement mc, mg;
        assert_int_equal(mc_backend_cpu.measure(r.bc, 1, &mc, &err), MC_OK);
        assert_int_equal(mc_backend_cuda.measure(r.bg, 1, &mg, &err), MC_OK);
        assert_memory_equal(r.cpu->rdf_counts, r.gpu->rdf_counts, 6 * 60 * sizeof *r.cpu->rdf_counts);
        assert_memory_equal(r.cpu->rdf_norm, r.gpu->rdf_norm, sizeof r.cpu->rdf_norm);
        pair_destroy(&r);
    }
}

/* ... and on the chain kernel's cell lists, where each partner's species is looked up: N = 2000
 * (rc 2.5 in the 14.2 box: 5 cells per edge) at four staged chains of 256 an SM, N = 3000 (6 cells
 * per edge, 72 kB of positions) at two of 512 (chain_cells_blocks); gpu_batch_trials = 1024 keeps
 * both off the batched path */
static void mixture_chain_cells(void **state)
{
    (void)state;
    static const char *counts[] = {"1000, 600, 400", "1500, 900, 600"};
    for (int c = 0; c < 2; c++) {
        char text[1024];
        snprintf(text, sizeof text,
                 MIX3 "counts = %s\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.5\ndensity = 0.7\n"
                      "replicas = 2\n[run]\nseed = %d\ngpu_batch_trials = 1024\n", counts[c], 32 + 30 * c);
        pair_of_runs r;
        pair_create(&r, text, 1);
        run_in_step(&r, c ? 200 : 400, c ? 50 : 100, 0.12);
        pair_destroy(&r);
    }
}

static void mixture_batched_n4096(void **state)
{
    (void)state;
    pair_of_runs r;
    pair_create(&r, MIX3 "counts = 2048, 1024, 1024\n[potential]\ncutoff = none\n[ensemble]\n"
                    "temperature = 1.5\ndensity = 0.7\nreplicas = 2\n[run]\nseed = 31\n", 1);
    run_in_step(&r, 20, 5, 0.12);
    pair_destroy(&r);
}

/* A chain of n without cutoff on the batched path, K = trials, run in step with the CPU. */
static void batched(int n, int trials, int seed, long sweeps, long every)
{
    char ini[256];
    snprintf(ini, sizeof ini,
             "[system]\nn = %d\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 1\n"
             "density = 0.8\nreplicas = 2\n[run]\nseed = %d\n", n, seed);
    pair_of_runs r;
    pair_create_k(&r, ini, 1, trials);
    run_in_step(&r, sweeps, every, 0.12);
    pair_destroy(&r);
}

static void batched_k256(void **state) { (void)state; batched(4096, 256, 23, 40, 10); }
/* one warp's batch (K = 32: kernel B stages each corner of corrections itself) among 128
 * particles: about 4 repeated particles per batch */
static void batched_k32_n128(void **state) { (void)state; batched(128, 32, 24, 400, 100); }
/* 1024 trials among 4096 particles: about 128 repeated particles per batch, more than the 32 that
 * kernel A sums ahead (alt rows): the rest are recomputed in full by kernel B */
static void batched_k1024_repeats(void **state) { (void)state; batched(4096, 1024, 23, 40, 10); }
/* 900 particles at K = 64: 29 pair blocks (fewer than kernel S's 32 warps) and a block of 10
 * sweeps, 9000 moves, ending in a batch of 40 trials (short of K, and not whole warps) */
static void batched_k64_n900(void **state) { (void)state; batched(900, 64, 25, 200, 10); }

/* The cell path: one chain of 20,000 with cutoff 2.5 (11 cells per edge on both sides), K = 1024:
 * about 26 repeated particles (some three times) and 4 interacting trials each per batch. */
static void cells_n20000(void **state)
{
    (void)state;
    pair_of_runs r;
    pair_create(&r, "[system]\nn = 20000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\n"
                    "density = 0.8\n[run]\nseed = 24\n", 0);
    run_in_step(&r, 12, 4, 0.12);
    pair_destroy(&r);
}

/* The cell path at a small K: one chain of 4,000 at rho 0.5 with cutoff 2.0 (10 cells per edge),
 * the shape of t/restart.sh's "big" (single, K = 256), in batches of 128. At this K kernel B's
 * shared arrays in double lie within the 16 kB repeat table of the draws that overlays them (in
 * single from K = 384 down): the table must be written only once they are all used. */
static void cells_k128_n4000(void **state)
{
    (void)state;
    pair_of_runs r;
    pair_create_k(&r, "[system]\nn = 4000\n[potential]\ncutoff = 2.0\n[ensemble]\ntemperature = 2\n"
                      "density = 0.5\n[run]\nseed = 26\n", 0, 128);
    run_in_step(&r, 40, 10, 0.2);
    pair_destroy(&r);
}

/* Dense trials: 512 of them among 2,048 particles in 5 cells per edge: about 64 repeats and 20
 * interacting trials each per batch, beyond the 32 a conflict list holds. */
static void cells_dense_overflow(void **state)
{
    (void)state;
    pair_of_runs r;
    pair_create_k(&r, "[system]\nn = 2048\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\n"
                      "density = 0.8\n[run]\nseed = 25\n", 0, 512);
    run_in_step(&r, 40, 10, 0.12);
    pair_destroy(&r);
}

/* The guard against pair terms too large to carry through a batch (CU_CANCEL_LIMIT), on the three
 * atom paths that correct a batch's trials by the earlier accepted ones: pairs start OVERLAP_GAP
 * apart (overlap_pairs). When one of a pair moves away (accepted: dE ~ -1e33 kT) and the other's
 * trial comes later in the same batch, that trial's start sum holds the 1e33 kT term and a
 * correction takes it out again, leaving its rounding, ~1e17 kT, to decide. The counts below are
 * from a host emulation of each path's batches along the CPU's chain (the same draws, and the CPU
 * backend's accepted counts and positions): the trials that take the guard, and of them those that
 * start sum plus corrections (the path without the guard, summed in the emulation's order) decide
 * otherwise than the CPU; any one of those parts the accepted counts. Built with
 * CPPFLAGS=-DCU_TRACE_CANCEL, the GPU prints a line per trial that takes the guard. */

/* Chain `chain` of a plan of `replicas` chains of n at rho 0.8, T = 1, cutoff rc ("none" or a
 * length), K = trials (0: the default), `pairs` overlapping pairs, on the GPU path `path` (checked,
 * so that a change of the path rules cannot leave the guard untested): 20 sweeps in step with the CPU. */
static void overlapping(int n, const char *rc, int trials, int pairs, int seed, int replicas, int chain,
                        const char *path)
{
    char ini[256];
    snprintf(ini, sizeof ini, "[system]\nn = %d\n[potential]\ncutoff = %s\n[ensemble]\ntemperature = 1\n"
             "density = 0.8\nreplicas = %d\n[run]\nseed = %d\n", n, rc, replicas, seed);
    pair_of_runs r;
    pair_create_with(&r, ini, chain, trials, pairs);
    assert_string_equal(mc_backend_cuda.path(r.bg), path);
    run_in_step(&r, 20, 5, 0.12);
    pair_destroy(&r);
}

/* The batched path (one chain of 1024, no cutoff, K = 256): 165 trials are evaluated afresh by
 * kernel B; without the guard 13 of them would be decided otherwise. */
static void overlap_batched(void **state) { (void)state; overlapping(1024, "none", 256, 256, 51, 1, 0, "large-chain"); }

/* The large-chain cell path (one chain of 4096, rc 2.5: 6 cells per edge, K = 1024): 153 trials
 * end their batch, the next starting with them (the host runs further rounds of batches for the
 * moves left); without the guard 4 of them would be decided otherwise. */
static void overlap_cells(void **state) { (void)state; overlapping(4096, "2.5", 1024, 1024, 52, 1, 0, "large-chain-cells"); }

/* The chain kernel's cell lists (chains of 500, rc 1.6: 5 cells per edge, batches of 8 trials;
 * gpu_batch_trials = 1024 keeps them off the few-chains path), the 32 chains of the plan each on a
 * backend pair of its own: 337 trials end their batch; without the guard 13 of them, in 11 of the
 * chains, would be decided otherwise. */
static void overlap_chain_cells(void **state)
{
    (void)state;
    for (int chain = 0; chain < 32; chain++) overlapping(500, "1.6", 1024, 250, 53, 32, chain, "many-chains-cells");
}

/* A few medium chains batched side by side (chains of 500, rc 3, K = 64 by default), two of the
 * plan's four each on a backend pair of its own. */
static void overlap_few_chains(void **state)
{
    (void)state;
    for (int chain = 0; chain < 2; chain++) overlapping(500, "3", 0, 250, 54, 4, chain, "few-chains");
}

/* One plan on a CPU and a GPU backend through the run driver, round by round. After every round
 * each chain's running energy must agree to 1e-10 relative, and same_decisions (the move counts
 * of the engine) must hold: the same draws must give the same decisions. Returns the rounds run. */
typedef void same_decisions_fn(int round, int k, const mc_chain *cpu, const mc_chain *gpu);

static int rounds_in_step(mc_run *rc, mc_run *rg, int chains, same_decisions_fn *same_decisions)
{
    mc_err err = {0, ""};
    int rounds = 0;
    while (!mc_run_finished(rc)) {
        if (mc_run_round(rc, &err) != MC_OK) fail_msg("cpu round: %s", err.msg);
        if (mc_run_round(rg, &err) != MC_OK) fail_msg("gpu round: %s", err.msg);
        rounds++;
        for (int k = 0; k < chains; k++) {
            const mc_chain *a = mc_run_chain(rc, k), *b = mc_run_chain(rg, k);
            same_decisions(rounds, k, a, b);
            if (!(fabs(a->energy_pair - b->energy_pair) <= 1e-10 * fabs(a->energy_pair)))
                fail_msg("round %d chain %d: energy cpu %.15g gpu %.15g", rounds, k, a->energy_pair,
                         b->energy_pair);
        }
    }
    return rounds;
}

static void create_runs(const mc_plan *p, const mc_backend_ops *cpu, const mc_backend_ops *gpu, int chains,
                        mc_run **rc, mc_run **rg)
{
    mc_err err = {0, ""};
    *rc = mc_run_create(p, cpu, 0, chains, &err);
    *rg = *rc ? mc_run_create(p, gpu, 0, chains, &err) : NULL;
    if (!*rc || !*rg) fail_msg("run: %s", err.msg);
}

static void npt_same_decisions(int round, int k, const mc_chain *a, const mc_chain *b)
{
    if (a->accepted != b->accepted || a->volume_accepted != b->volume_accepted || a->box_len != b->box_len)
        fail_msg("round %d chain %d: cpu %llu moves, %llu volume, box %.17g; gpu %llu, %llu, %.17g", round, k,
                 (unsigned long long)a->accepted, (unsigned long long)a->volume_accepted, a->box_len,
                 (unsigned long long)b->accepted, (unsigned long long)b->volume_accepted, b->box_len);
}

/* A Morse mixture (per-species alpha and r0, arithmetic means, one override): Morse pair
 * constants per species block on both atom paths, with every species' Widom test particles. */
static void morse_mixture_n500(void **state)
{
    (void)state;
    on_both_atom_paths("[mixture]\nspecies = A, B, C\ncounts = 250, 150, 100\nepsilon = 1, 0.7, 1.3\n"
                       "morse_alpha = 6, 5, 7\nmorse_r0 = 1.1, 1.2, 1.0\npair_morse_r0 = A-C:1.08\n[potential]\n"
                       "type = morse\ncutoff = 2.5\n[ensemble]\ntemperature = 1.5\ndensity = 0.7\n[run]\nseed = 37\n",
                       2000, 500);
}

/* NPT through the whole run driver on both backends: translation sweeps, one volume move per
 * sweep (scaled-volume energies on the device, positions rescaled there), step adaptation: equal
 * accepted counts of both move kinds and box edges after every round. */
static void npt_in_step_on(const char *ini, int chains, const char *path)
{
    mc_plan *p = tu_plan(ini);
    mc_run *rc, *rg;
    create_runs(p, &mc_backend_cpu, &mc_backend_cuda, chains, &rc, &rg);
    if (path) assert_string_equal(mc_run_path(rg), path);
    int rounds = rounds_in_step(rc, rg, chains, npt_same_decisions);
    const mc_chain *a = mc_run_chain(rc, 0);
    printf("# npt, %d rounds: %llu of %llu volume moves accepted on both, box %.6f (from %.6f)\n",
           rounds, (unsigned long long)a->volume_accepted, (unsigned long long)a->volume_moves,
           a->box_len, p->statepoint[0].box_len);
    assert_true(a->volume_accepted > 10 && a->box_len != p->statepoint[0].box_len);
    mc_run_destroy(rc);
    mc_run_destroy(rg);
    mc_plan_destroy(p);
}

static void npt_in_step(const char *ini, int chains) { npt_in_step_on(ini, chains, NULL); }

/* three chains with a cutoff and tails: a few chains batched side by side (their volume moves
 * through the run driver), and the many-chain npt kernel (its volume moves inside) */
static void npt_chains_n500(void **state)
{
    (void)state;
    for (int w = 0; w < 2; w++) {
        char ini[512];
        snprintf(ini, sizeof ini,
                 "[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntype = npt\n"
                 "temperature = 2\npressure = 1.0\ndensity = 0.45\nreplicas = 3\n[run]\nseed = 27\n"
                 "equilibration = 100\nproduction = 100\nsample_every = 10\ngpu_batch_trials = %d\n"
                 "[moves]\nadapt_every = 20\n", atom_paths[w].trials);
        npt_in_step_on(ini, 3, atom_npt_paths[w]);
    }
}

/* odd n, shifted and truncated LJ, on the many-chain npt kernel (n = 343 kept there by its
 * gpu_batch_trials): the trial volume's last row taken alone (scaled_energy_rows2), in double like
 * every case here; the single-precision copy without the range check is held to
 * the division by lj_energy_in_range */
static void npt_chains_odd(void **state)
{
    (void)state;
    npt_in_step("[system]\nn = 125\n[potential]\ncutoff = 2.5\ncutoff_scheme = shifted\n[ensemble]\ntype = npt\n"
                "temperature = 1.5\npressure = 0.5\ndensity = 0.5\nreplicas = 2\n[run]\nseed = 29\n"
                "equilibration = 100\nproduction = 100\nsample_every = 10\n[moves]\nadapt_every = 20\n",
                2);
    npt_in_step_on("[system]\nn = 343\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\n"
                   "temperature = 2\npressure = 1.0\ndensity = 0.45\nreplicas = 2\n[run]\nseed = 30\n"
                   "equilibration = 100\nproduction = 100\nsample_every = 10\ngpu_batch_trials = 1024\n"
                   "[moves]\nadapt_every = 20\n",
                   2, "many-chains-npt");
}

/* one large chain: the batched kernels (no cell lists under npt) */
static void npt_batched_n4096(void **state)
{
    (void)state;
    npt_in_step("[system]\nn = 4096\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\n"
                "temperature = 2\npressure = 1.0\ndensity = 0.45\n[run]\nseed = 28\n"
                "equilibration = 20\nproduction = 20\nsample_every = 5\n[moves]\nadapt_every = 5\n",
                1);
}

static void nist4_and_rdf(void **state)
{
    (void)state;
    double x[30], y[30], z[30];
    tu_load_nist4(x, y, z);
    mc_plan *p = tu_plan("[system]\nn = 30\nlattice = sc\n[potential]\ncutoff = 3\n[ensemble]\n"
                         "temperature = 1\ndensity = 0.05859375\n[rdf]\nbins = 40\n");
    mc_err err = {0, ""};
    mc_chain *cc = mc_chain_create(p, 0, &err), *cg = mc_chain_create(p, 0, &err);
    for (int i = 0; i < 30; i++) cc->x[i] = cg->x[i] = x[i], cc->y[i] = cg->y[i] = y[i], cc->z[i] = cg->z[i] = z[i];
    mc_backend *bc = mc_backend_cpu.create(p, &cc, 1, &err), *bg = mc_backend_cuda.create(p, &cg, 1, &err);
    assert_non_null(bg);
    mc_measurement mc, mg;
    assert_int_equal(mc_backend_cpu.measure(bc, 1, &mc, &err), MC_OK);
    assert_int_equal(mc_backend_cuda.measure(bg, 1, &mg, &err), MC_OK);
    assert_true(fabs(mg.energy_pair + 16.790321304625856) < 1e-8 * 16.790321304625856);
    assert_true(fabs(mg.virial_pair - mc.virial_pair) < 1e-12 * fabs(mc.virial_pair));
    assert_memory_equal(cc->rdf_counts, cg->rdf_counts, 40 * sizeof *cc->rdf_counts);
    assert_true(cc->rdf_norm[0] == cg->rdf_norm[0]);
    mc_backend_cpu.destroy(bc);
    mc_backend_cuda.destroy(bg);
    mc_chain_destroy(cc);
    mc_chain_destroy(cg);
    mc_plan_destroy(p);
}

static void rigid_same_decisions(int round, int k, const mc_chain *a, const mc_chain *b)
{
    if (a->accepted != b->accepted || a->rotations_accepted != b->rotations_accepted || a->rotations != b->rotations)
        fail_msg("round %d chain %d: cpu %llu accepted, %llu of %llu rotations; gpu %llu, %llu of %llu", round, k,
                 (unsigned long long)a->accepted, (unsigned long long)a->rotations_accepted,
                 (unsigned long long)a->rotations, (unsigned long long)b->accepted,
                 (unsigned long long)b->rotations_accepted, (unsigned long long)b->rotations);
}

/* Molecules under npt: the rigid-body counts and the volume moves and boxes alike. */
static void rigid_npt_same_decisions(int round, int k, const mc_chain *a, const mc_chain *b)
{
    rigid_same_decisions(round, k, a, b);
    npt_same_decisions(round, k, a, b);
}

/* Every sample's Widom Boltzmann factors (test molecules of every type) alike to 1e-10. */
static void same_widom(const mc_plan *p, const mc_chain *a, const mc_chain *b)
{
    if (!p->widom_insertions) return;
    for (long i = 0; i < p->widom_kinds * p->nsamples; i++)
        if (!(fabs(a->widom[i] - b->widom[i]) <= 1e-10 * fabs(a->widom[i])))
            fail_msg("Widom sample %ld: cpu %.15g gpu %.15g", i, a->widom[i], b->widom[i]);
}

/* Molecules on both backends through the run driver: the same molecule, move kind, displacement
 * or rotation and decision at every step (equal accepted translations and rotations after every
 * round; under npt equal volume decisions and boxes), the same running energy to 1e-10 relative,
 * the same Widom sums, and at the end the same sites, centres and orientations to 1e-12. */
static void rigid_in_step_on(const char *ini, int chains, const char *path)
{
    mc_err err = {0, ""};
    mc_plan *p = tu_plan(ini);
    mc_run *rc, *rg;
    create_runs(p, &mc_backend_cpu, &mc_backend_cuda, chains, &rc, &rg);
    if (path && strcmp(mc_run_path(rg), path) != 0) fail_msg("the GPU took path %s, not %s", mc_run_path(rg), path);
    int rounds = rounds_in_step(rc, rg, chains, p->ensemble->imposed_pressure ? rigid_npt_same_decisions : rigid_same_decisions);
    assert_int_equal(mc_run_fetch(rg, &err), MC_OK);
    double worst = 0.0;
    for (int k = 0; k < chains; k++) {
        const mc_chain *a = mc_run_chain(rc, k), *b = mc_run_chain(rg, k);
        same_widom(p, a, b);
        for (int i = 0; i < a->n; i++)
            worst = fmax(worst, fmax(fabs(a->x[i] - b->x[i]), fmax(fabs(a->y[i] - b->y[i]), fabs(a->z[i] - b->z[i]))));
        for (int m = 0; m < a->nmol; m++) {
            worst = fmax(worst, fmax(fabs(a->cx[m] - b->cx[m]), fmax(fabs(a->cy[m] - b->cy[m]), fabs(a->cz[m] - b->cz[m]))));
            for (int d = 0; d < 4; d++) worst = fmax(worst, fabs(a->q[4 * m + d] - b->q[4 * m + d]));
        }
        /* samples taken on the device: the same RDF counts and (open clusters) Lindemann sums */
        assert_memory_equal(a->rdf_counts, b->rdf_counts,
                            (size_t)(p->species.npairs + 1) * p->rdf_bins * sizeof *a->rdf_counts);
        assert_memory_equal(a->rdf_norm, b->rdf_norm, sizeof a->rdf_norm);
        size_t centre_pairs = (size_t)a->nmol * (a->nmol - 1) / 2;
        if (a->lindemann_r) {
            assert_non_null(b->lindemann_r);
            for (size_t q = 0; q < centre_pairs; q++)
                if (fabs(a->lindemann_r[q] - b->lindemann_r[q]) > 1e-12 * a->lindemann_r[q] ||
                    fabs(a->lindemann_r2[q] - b->lindemann_r2[q]) > 1e-12 * a->lindemann_r2[q])
                    fail_msg("chain %d Lindemann pair %zu: cpu %.17g %.17g gpu %.17g %.17g", k, q, a->lindemann_r[q],
                             a->lindemann_r2[q], b->lindemann_r[q], b->lindemann_r2[q]);
        }
    }
    {
        const mc_chain *a = mc_run_chain(rc, 0);
        uint64_t counted = 0;
        for (size_t q = 0; q < (size_t)(p->species.npairs + 1) * p->rdf_bins; q++) counted += a->rdf_counts[q];
        printf("# rigid samples: %llu RDF pair counts equal on both%s\n", (unsigned long long)counted,
               a->lindemann_r ? ", Lindemann sums within 1e-12" : "");
        assert_true(counted > 0);
    }
    const mc_chain *a = mc_run_chain(rc, 0);
    printf("# rigid, %d rounds, %d sites: %llu of %llu moves accepted on both (%llu of %llu rotations), "
           "largest coordinate difference %.3g\n", rounds, a->n, (unsigned long long)a->accepted,
           (unsigned long long)a->step, (unsigned long long)a->rotations_accepted,
           (unsigned long long)a->rotations, worst);
    if (p->ensemble->imposed_pressure)
        printf("# npt: %llu of %llu volume moves accepted on both, box %.6f (from %.6f)\n",
               (unsigned long long)a->volume_accepted, (unsigned long long)a->volume_moves, a->box_len,
               p->statepoint[0].box_len);
    if (p->widom_insertions) printf("# Widom: first sample's Boltzmann factor %.12g on both\n", a->widom[0]);
    assert_true(worst < 1e-12);
    assert_true(a->accepted > a->step / 10);
    assert_true(!p->ensemble->imposed_pressure || (a->volume_accepted > 10 && a->box_len != p->statepoint[0].box_len));
    mc_run_destroy(rc);
    mc_run_destroy(rg);
    mc_plan_destroy(p);
}

/* rigid_in_step_on, whatever path the GPU takes */
static void rigid_in_step(const char *ini, int chains) { rigid_in_step_on(ini, chains, NULL); }

/* planar hexagons (benzene-like, reduced units) in a periodic box, no cutoff, two replicas */
static void rigid_hexagons(void **state)
{
    (void)state;
    rigid_in_step("[molecules]\ntypes = hex\ncounts = 40\ngeometry = C 0.37 0 0; C 0.185 0.3204 0; "
                  "C -0.185 0.3204 0; C -0.37 0 0; C -0.185 -0.3204 0; C 0.185 -0.3204 0\n"
                  "[mixture]\nspecies = C\nsigma = 1\nepsilon = 1\n[potential]\ncutoff = none\n"
                  "[ensemble]\ntemperature = 2.5\ndensity = 0.15\nreplicas = 2\n[run]\nseed = 31\n"
                  "equilibration = 40\nproduction = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n", 2);
}

/* a heteronuclear diatomic and a single-site molecule, mixing rules, hard cores, cutoff with tails */
static void rigid_diatomic_mixture(void **state)
{
    (void)state;
    rigid_in_step("[molecules]\ntypes = AB, C\ncounts = 60, 30\ngeometry = A 0 0 0; B 0 0 0.6 | C 0 0 0\n"
                  "[mixture]\nspecies = A, B, C\nsigma = 1, 1.1, 0.9\nepsilon = 1, 0.8, 1.2\n"
                  "hard_core = 0.3, 0.3, 0.3\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.5\n"
                  "density = 0.3\n[run]\nseed = 32\nequilibration = 40\nproduction = 40\n"
                  "sample_every = 10\n[moves]\nadapt_every = 10\n", 1);
}

/* an open cluster in a spherical wall, two temperatures */
static void rigid_cluster_wall(void **state)
{
    (void)state;
    rigid_in_step("[system]\nboundary = none\nlattice_constant = 1.55\n[molecules]\ntypes = ar\ncounts = 108\n"
                  "geometry = Ar 0 0 0\n[potential]\ncutoff = 3\ntail_correction = no\n[wall]\nradius = 3\n"
                  "strength = 5\n[ensemble]\ntemperature = 0.3, 1.2\n[run]\nseed = 33\nequilibration = 40\n"
                  "production = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n", 2);
}

/* an open cluster of Morse atoms in a wall, two temperatures */
static void rigid_cluster_morse(void **state)
{
    (void)state;
    rigid_in_step("[system]\nboundary = none\nlattice_constant = 1.55\n[molecules]\ntypes = ar\ncounts = 108\n"
                  "geometry = Ar 0 0 0\n[potential]\ntype = morse\nmorse_alpha = 6\nmorse_r0 = 1.1\ncutoff = 3\n"
                  "tail_correction = no\n[wall]\nradius = 3\nstrength = 5\n[ensemble]\ntemperature = 0.3, 1.2\n"
                  "[run]\nseed = 38\nequilibration = 40\nproduction = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n", 2);
}

/* hexagons with Widom test molecules of the one type (uniform orientations) */
static void rigid_hexagons_widom(void **state)
{
    (void)state;
    rigid_in_step("[molecules]\ntypes = hex\ncounts = 40\ngeometry = C 0.37 0 0; C 0.185 0.3204 0; "
                  "C -0.185 0.3204 0; C -0.37 0 0; C -0.185 -0.3204 0; C 0.185 -0.3204 0\n"
                  "[mixture]\nspecies = C\nsigma = 1\nepsilon = 1\n[potential]\ncutoff = 3\n"
                  "[ensemble]\ntemperature = 5\ndensity = 0.1\nreplicas = 2\nwidom = 50\n[run]\nseed = 34\n"
                  "equilibration = 20\nproduction = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n", 2);
}

/* a diatomic mixture with hard cores under npt: cutoff with tails, the tail term's change with V */
static void rigid_diatomic_npt(void **state)
{
    (void)state;
    rigid_in_step("[molecules]\ntypes = AB, C\ncounts = 60, 30\ngeometry = A 0 0 0; B 0 0 0.6 | C 0 0 0\n"
                  "[mixture]\nspecies = A, B, C\nsigma = 1, 1.1, 0.9\nepsilon = 1, 0.8, 1.2\n"
                  "hard_core = 0.3, 0.3, 0.3\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\n"
                  "temperature = 2\npressure = 1.0\ndensity = 0.3\nreplicas = 2\n[run]\nseed = 35\n"
                  "equilibration = 40\nproduction = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n", 2);
}

/* Morse heteronuclear diatomics (exp and square root in the site pair function; per-species
 * alpha and r0), force-shifted, with Widom */
static void rigid_morse_widom(void **state)
{
    (void)state;
    rigid_in_step("[molecules]\ntypes = AB\ncounts = 80\ngeometry = A 0 0 -0.25; B 0 0 0.25\n"
                  "[mixture]\nspecies = A, B\nepsilon = 1, 0.8\nmorse_alpha = 6, 5\nmorse_r0 = 1.1, 1.2\n"
                  "[potential]\ntype = morse\ncutoff = 2.5\n"
                  "cutoff_scheme = force_shifted\n[ensemble]\ntemperature = 3\ndensity = 0.2\nwidom = 50\n"
                  "[run]\nseed = 36\nequilibration = 20\nproduction = 40\nsample_every = 10\n"
                  "[moves]\nadapt_every = 10\n", 1);
}

/* Molecules of more sites than the batched kernels take (cu_rigid.cuh's RIGID_BATCH_MAX_SITES):
 * one chain of 80 rings of 24 sites (two layers of 12), enough molecules for the batched path,
 * which such a run must leave for the resident kernel. */
static void rigid_24_sites(void **state)
{
    (void)state;
    char ini[4096] = "[molecules]\ntypes = ring\ncounts = 80\ngeometry = ";
    for (int k = 0; k < 24; k++)
        snprintf(ini + strlen(ini), sizeof ini - strlen(ini), "%sC %.6f %.6f %.1f", k ? ";\n  " : "",
                 0.75 * cos(2 * M_PI * (k % 12) / 12 + (k / 12) * M_PI / 12), 0.75 * sin(2 * M_PI * (k % 12) / 12 + (k / 12) * M_PI / 12),
                 0.5 * (k / 12));
    strcat(ini, "\n[mixture]\nspecies = C\nsigma = 1\nepsilon = 1\n[potential]\ncutoff = 3\n[ensemble]\ntemperature = 4\n"
                "density = 0.08\n[run]\nseed = 39\nequilibration = 20\nproduction = 40\nsample_every = 10\n"
                "[moves]\nadapt_every = 10\n");
    rigid_in_step_on(ini, 1, "molecules-resident");
}

/* SPC/E water (t/tap.sh's spce_model): charges on O and H, LJ on O only, with the Ewald sum on
 * the device (cuda/cu_ewald.cuh) */
#define SPCE_SITES                                                                                           \
    "[system]\nunits = real\n[mixture]\nspecies = O, H\nsigma = 0.316555789, 0\n"                         \
    "epsilon = 0.6501696177877252, 0\nmass = 15.9994, 1.008\ncharge = -0.8476, 0.4238\n[molecules]\n"       \
    "types = water\ngeometry = O 0 0 0; H 0.1 0 0; H -0.033331324756823731 0.09428161427317179 0\ncounts = 64\n" \
    "[potential]\ncutoff = 0.6\n"
#define SPCE_MODEL SPCE_SITES "coulomb = ewald\n"

/* liquid SPC/E, two temperatures, with Widom test molecules (309 wave vectors: 2 a thread, in
 * registers): every move's Fourier change on the
 * device against the host's, each sample's recomputed structure factors, Fourier energy and self
 * and intramolecular terms, and the test molecules' Fourier part from the device's S(k) */
static void rigid_spce_widom(void **state)
{
    (void)state;
    rigid_in_step(SPCE_MODEL "ewald_alpha = 5.6\newald_kmax = 5\newald_ksq_max = 27\n[ensemble]\n"
                  "temperature = 298, 400\ndensity = 33.4\nwidom = 20\n[run]\nseed = 61\nequilibration = 20\n"
                  "production = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n", 2);
}

/* the same with a move's phase tables in device memory (e.phase), as a molecule of many sites at a
 * large ewald_kmax has them, where they do not fit in shared memory (MCENS_TEST_PHASE_ROWS) */
static void rigid_spce_phase_rows(void **state)
{
    (void)state;
    setenv("MCENS_TEST_PHASE_ROWS", "1", 1);
    /* two chains, so that each chain's rows of e.phase are its own; the resident kernel, which
     * alone reads them */
    rigid_in_step_on(SPCE_MODEL "ewald_alpha = 5.6\newald_kmax = 5\newald_ksq_max = 27\n[ensemble]\n"
                     "temperature = 298, 400\ndensity = 33.4\nwidom = 20\n[run]\nseed = 65\nequilibration = 20\n"
                     "production = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n",
                     2, "molecules-resident");
}
/* the hook off again, also after a failed assertion (cmocka leaves the test by a long jump) */
static int phase_rows_off(void **state)
{
    (void)state;
    unsetenv("MCENS_TEST_PHASE_ROWS");
    return 0;
}

/* SPC/E under npt: a trial volume's structure factors (its own coefficients), and the accepted
 * volume's recomputed on the device; 7812 wave vectors, more than the registers of a block hold
 * (S(k) in device memory) */
static void rigid_spce_npt(void **state)
{
    (void)state;
    rigid_in_step(SPCE_MODEL "ewald_alpha = 5.6\newald_kmax = 12\newald_ksq_max = 432\n[ensemble]\ntype = npt\ntemperature = 330\npressure = 1\ndensity = 33.4\n"
                  "replicas = 2\n[run]\nseed = 62\nequilibration = 20\nproduction = 40\n"
                  "sample_every = 5\n[moves]\nadapt_every = 5\n", 2);
}

/* SPC/E with the damped shifted force (src/dsf.h): the Coulomb pair terms in the molecule kernels
 * with no Fourier part, and the molecules' constant terms in each sample and test molecule; in
 * NVT with Widom test molecules, and in NPT */
static void rigid_spce_dsf_widom(void **state)
{
    (void)state;
    rigid_in_step(SPCE_SITES "coulomb = dsf\n[ensemble]\ntemperature = 298, 400\ndensity = 33.4\nwidom = 20\n"
                  "[run]\nseed = 63\nequilibration = 20\nproduction = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n", 2);
}
static void rigid_spce_dsf_npt(void **state)
{
    (void)state;
    rigid_in_step(SPCE_SITES "coulomb = dsf\n[ensemble]\ntype = npt\ntemperature = 330\npressure = 1\ndensity = 33.4\n"
                  "replicas = 2\n[run]\nseed = 64\nequilibration = 20\nproduction = 40\n"
                  "sample_every = 5\n[moves]\nadapt_every = 5\n", 2);
}

/* The batched path for molecules (cu_rigid_batch.cu: fewer chains than the GPU has SMs, and at
 * least 4 K molecules or [run] gpu_batch_trials set). 150 hexagons in one chain, no cutoff: issue
 * 14's shape D, 32 trials a batch (the default). */
static void rigid_hexagons_batched(void **state)
{
    (void)state;
    rigid_in_step("[molecules]\ntypes = hex\ncounts = 150\ngeometry = C 0.37 0 0; C 0.185 0.3204 0; "
                  "C -0.185 0.3204 0; C -0.37 0 0; C -0.185 -0.3204 0; C 0.185 -0.3204 0\n"
                  "[mixture]\nspecies = C\nsigma = 1\nepsilon = 1\n[potential]\ncutoff = none\n"
                  "[ensemble]\ntemperature = 2.5\ndensity = 0.15\n[run]\nseed = 41\n"
                  "equilibration = 20\nproduction = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n", 1);
}

/* batched: 130 planar molecules of 12 sites (two rings of two species, as an all-atom benzene),
 * more coordinates (36) than a warp has lanes, with a cutoff, 32 trials a batch */
static void rigid_twelve_sites_batched(void **state)
{
    (void)state;
    rigid_in_step("[molecules]\ntypes = ring\ncounts = 130\ngeometry = C .37 0 0;C .185 .32 0;C -.185 .32 0;"
                  "C -.37 0 0;C -.185 -.32 0;C .185 -.32 0;H .66 0 0;H .33 .57 0;H -.33 .57 0;H -.66 0 0;"
                  "H -.33 -.57 0;H .33 -.57 0\n"
                  "[mixture]\nspecies = C, H\nsigma = 1, 0.7\nepsilon = 1, 0.3\n[potential]\ncutoff = 3\n"
                  "[ensemble]\ntemperature = 3\ndensity = 0.08\n[run]\nseed = 44\n"
                  "equilibration = 20\nproduction = 20\nsample_every = 10\n[moves]\nadapt_every = 10\n", 1);
}

/* batched: a diatomic mixture with hard cores and a cutoff under npt, two replicas, 64 trials a
 * batch (a molecule moved twice in a batch is evaluated afresh; so is a trial whose start sum meets a
 * hard core once others have moved) */
static void rigid_diatomic_npt_batched_k64(void **state)
{
    (void)state;
    rigid_in_step("[molecules]\ntypes = AB, C\ncounts = 120, 60\ngeometry = A 0 0 0; B 0 0 0.6 | C 0 0 0\n"
                  "[mixture]\nspecies = A, B, C\nsigma = 1, 1.1, 0.9\nepsilon = 1, 0.8, 1.2\n"
                  "hard_core = 0.3, 0.3, 0.3\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\n"
                  "temperature = 2\npressure = 1.0\ndensity = 0.3\nreplicas = 2\n[run]\nseed = 42\n"
                  "gpu_batch_trials = 64\nequilibration = 40\nproduction = 40\nsample_every = 10\n"
                  "[moves]\nadapt_every = 10\n", 2);
}

/* batched: an open cluster of 108 atoms in a wall at two temperatures, 256 trials a batch, so
 * that most trials move a molecule moved earlier in the batch (evaluated afresh) */
static void rigid_cluster_batched_k256(void **state)
{
    (void)state;
    rigid_in_step("[system]\nboundary = none\nlattice_constant = 1.55\n[molecules]\ntypes = ar\ncounts = 108\n"
                  "geometry = Ar 0 0 0\n[potential]\ncutoff = 3\ntail_correction = no\n[wall]\nradius = 3\n"
                  "strength = 5\n[ensemble]\ntemperature = 0.3, 1.2\n[run]\nseed = 43\ngpu_batch_trials = 256\n"
                  "equilibration = 40\nproduction = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n", 2);
}

/* Replica exchange through the run driver, every chain in one process: the same swaps on both
 * backends (walkers and swap counts after every round), so the GPU's trades within a rank
 * (cu_swap) are exact; trades between ranks are t/gpu_run.sh's. */
static void exchange_same_decisions(int round, int k, const mc_chain *a, const mc_chain *b)
{
    if (a->accepted != b->accepted || a->volume_accepted != b->volume_accepted || a->walker != b->walker ||
        a->exchange_accepted != b->exchange_accepted || a->box_len != b->box_len)
        fail_msg("round %d chain %d: cpu %llu moves, walker %lld, %llu swaps; gpu %llu, %lld, %llu", round, k,
                 (unsigned long long)a->accepted, (long long)a->walker, (unsigned long long)a->exchange_accepted,
                 (unsigned long long)b->accepted, (long long)b->walker, (unsigned long long)b->exchange_accepted);
}

/* Every chain of a plan through the run driver on both backends, round by round; with exchange,
 * the chains must have traded (more than 10 swaps, walkers moved). path: the GPU's, checked (NULL:
 * not). */
static void chains_in_step_on(const char *ini, const char *path)
{
    mc_plan *p = tu_plan(ini);
    mc_run *rc, *rg;
    create_runs(p, &mc_backend_cpu, &mc_backend_cuda, p->nchains, &rc, &rg);
    if (path) assert_string_equal(mc_run_path(rg), path);
    int rounds = rounds_in_step(rc, rg, p->nchains, exchange_same_decisions);
    unsigned long long swaps = 0, moved = 0;
    for (int k = 0; k < p->nchains; k++)
        swaps += mc_run_chain(rc, k)->exchange_accepted, moved += mc_run_chain(rc, k)->walker != k;
    printf("# %s, %d chains, %d rounds: %llu swaps on both, %llu chains hold another's walker\n",
           p->exchange_every ? "exchange" : "no exchange", p->nchains, rounds, swaps, moved);
    if (p->exchange_every) assert_true(swaps > 10 && moved > 0);
    mc_run_destroy(rc);
    mc_run_destroy(rg);
    mc_plan_destroy(p);
}

static void chains_in_step(const char *ini) { chains_in_step_on(ini, NULL); }

/* atoms: a temperature ladder of 4 rungs x 2 replicas, on both atom paths (a few chains batched
 * side by side; many chains, one block each) */
static void exchange_chains_n256(void **state)
{
    (void)state;
    for (int w = 0; w < 2; w++) {
        char ini[512];
        snprintf(ini, sizeof ini,
                 "[system]\nn = 256\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.2:1.5:4\n"
                 "density = 0.7\nreplicas = 2\nexchange_every = 2\n[run]\nseed = 41\nequilibration = 40\n"
                 "production = 60\nsample_every = 10\ngpu_batch_trials = %d\n[moves]\nadapt_every = 10\n",
                 atom_paths[w].trials);
        chains_in_step_on(ini, atom_paths[w].name);
    }
}

/* a binary mixture of 500, four chains on one backend, side by side on the few-chains path (the
 * mixture kernels in every row of the grid) */
static void few_chains_mixture(void **state)
{
    (void)state;
    chains_in_step_on("[mixture]\nspecies = A, B\nsigma = 1, 0.9\nepsilon = 1, 0.8\ncounts = 300, 200\n"
                      "[potential]\ncutoff = 3\n[ensemble]\ntemperature = 1.2, 1.4\ndensity = 0.7\nreplicas = 2\n"
                      "[run]\nseed = 48\nequilibration = 30\nproduction = 30\nsample_every = 10\n"
                      "[moves]\nadapt_every = 10\n",
                      "few-chains");
}

/* ... with cell lists in the chain kernel (N = 1000, rc 2.1: 5 cells per edge; its
 * gpu_batch_trials keeps the 4 chains off the few-chains path): rebuilt after every trade */
static void exchange_chain_cells_n1000(void **state)
{
    (void)state;
    chains_in_step_on("[system]\nn = 1000\n[potential]\ncutoff = 2.1\n[ensemble]\ntemperature = 1.2:1.26:4\n"
                      "density = 0.8\nexchange_every = 2\n[run]\nseed = 44\nequilibration = 20\n"
                      "production = 30\nsample_every = 10\ngpu_batch_trials = 1024\n[moves]\nadapt_every = 10\n",
                      "many-chains-cells");
}

/* ... on the large-chain cell path: 4 chains of 4096 on one rank (rc 2.1: 8 cells per edge), each
 * chain through its own grid in turn, the grids traded with the configurations */
static void exchange_cells_n4096(void **state)
{
    (void)state;
    chains_in_step("[system]\nn = 4096\n[potential]\ncutoff = 2.1\n[ensemble]\ntemperature = 1.2:1.23:4\n"
                   "density = 0.8\nexchange_every = 2\n[run]\nseed = 45\nequilibration = 40\n"
                   "production = 60\nsample_every = 10\n[moves]\nadapt_every = 10\n");
}

/* Two large chains on one rank whose boxes choose differently: rc 5 gives the rho 0.4 box (21.7)
 * 4 cells per edge and the rho 0.8 box (17.2) 3, so one chain runs on its grid and the other over
 * all pairs, each as it would alone on a rank of its own. */
static void cells_and_all_pairs_n4096(void **state)
{
    (void)state;
    chains_in_step("[system]\nn = 4096\n[potential]\ncutoff = 5\n[ensemble]\ntemperature = 1.5\n"
                   "density = 0.4, 0.8\n[run]\nseed = 46\nequilibration = 10\nproduction = 20\n"
                   "sample_every = 10\n[rdf]\nrmax = 4\n");
}

/* npt, a pressure ladder: the boxes travel with the configurations; a few chains batched side by
 * side, and the many-chain npt kernel */
static void exchange_npt_pressure(void **state)
{
    (void)state;
    for (int w = 0; w < 2; w++) {
        char ini[512];
        snprintf(ini, sizeof ini,
                 "[system]\nn = 256\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\ntemperature = 2\n"
                 "pressure = 1.0, 1.2, 1.4\ndensity = 0.5\nexchange_every = 1\nexchange_axis = pressure\n"
                 "[run]\nseed = 42\nequilibration = 40\nproduction = 60\nsample_every = 10\ngpu_batch_trials = %d\n"
                 "[moves]\nadapt_every = 10\n", atom_paths[w].trials);
        chains_in_step_on(ini, atom_npt_paths[w]);
    }
}

/* SPC/E, a temperature ladder: exchanged configurations take their structure factors along
 * (recomputed where they land, on both backends); the default precision's alpha, kmax 7 (709
 * wave vectors, 4 a thread) */
static void exchange_spce(void **state)
{
    (void)state;
    chains_in_step(SPCE_MODEL "ewald_kmax = 7\newald_ksq_max = 49\n[ensemble]\ntemperature = 298, 310, 325\ndensity = 33.4\nexchange_every = 2\n"
                   "[run]\nseed = 63\nequilibration = 20\nproduction = 40\nsample_every = 10\n[moves]\nadapt_every = 10\n");
}

/* an open cluster on the rigid-body kernels */
static void exchange_cluster(void **state)
{
    (void)state;
    chains_in_step("[system]\nboundary = none\nlattice_constant = 1.55\n[molecules]\ntypes = ar\ncounts = 108\n"
                   "geometry = Ar 0 0 0\n[potential]\ncutoff = 3\ntail_correction = no\n[wall]\nradius = 3\n"
                   "strength = 5\n[ensemble]\ntemperature = 0.5, 0.55, 0.6\nexchange_every = 2\n[run]\nseed = 43\n"
                   "equilibration = 40\nproduction = 60\nsample_every = 10\n[moves]\nadapt_every = 10\n");
}

static void gibbs_same_decisions(int round, int k, const mc_chain *a, const mc_chain *b)
{
    if (a->accepted != b->accepted || a->transfers_accepted != b->transfers_accepted ||
        a->rotations != b->rotations || a->rotations_accepted != b->rotations_accepted ||
        a->volume_accepted != b->volume_accepted || a->volume_moves != b->volume_moves ||
        !(fabs(a->gibbs_box_len[0] - b->gibbs_box_len[0]) <= 1e-12 * a->gibbs_box_len[0]) ||
        memcmp(a->gibbs_count, b->gibbs_count, sizeof a->gibbs_count))
        fail_msg("round %d chain %d: cpu %llu accepted (%llu transfers, %llu of %llu volume), box %.17g, %lld in box 0; "
                 "gpu %llu (%llu, %llu of %llu), %.17g, %lld", round, k, (unsigned long long)a->accepted,
                 (unsigned long long)a->transfers_accepted, (unsigned long long)a->volume_accepted,
                 (unsigned long long)a->volume_moves, a->gibbs_box_len[0], (long long)a->gibbs_count[0][0],
                 (unsigned long long)b->accepted, (unsigned long long)b->transfers_accepted,
                 (unsigned long long)b->volume_accepted, (unsigned long long)b->volume_moves, b->gibbs_box_len[0],
                 (long long)b->gibbs_count[0][0]);
    for (int box = 0; box < 2; box++)
        if (!(fabs(a->gibbs_energy[box] - b->gibbs_energy[box]) <= 1e-10 * fmax(1.0, fabs(a->gibbs_energy[box]))))
            fail_msg("round %d chain %d box %d: energy cpu %.15g gpu %.15g", round, k, box, a->gibbs_energy[box],
                     b->gibbs_energy[box]);
}

/* Gibbs-ensemble chains on both backends through the run driver: the same kind of move, particle,
 * insertion point and decision at every step (equal accepted displacements, transfers and volume
 * exchanges and equal counts after every round), each box's energy to 1e-10, the same test
 * insertions and series, and at the end the same labels, and positions to the bound below. The box
 * edges agree to 1e-12 relative, not to the bit: a volume exchange's new edge comes through exp,
 * log and cbrt, whose last bits differ between CUDA's and glibc's libm (seen: 6e-14 after a round,
 * 1.8e-12 in a coordinate after 1837 accepted exchanges). */
static void gibbs_in_step(const char *ini, int chains)
{
    mc_err err = {0, ""};
    mc_plan *p = tu_plan(ini);
    mc_run *rc, *rg;
    create_runs(p, &mc_backend_cpu, &mc_backend_cuda, chains, &rc, &rg);
    int rounds = rounds_in_step(rc, rg, chains, gibbs_same_decisions);
    assert_int_equal(mc_run_fetch(rg, &err), MC_OK);
    double worst = 0.0, worst_series = 0.0;
    for (int k = 0; k < chains; k++) {
        const mc_chain *a = mc_run_chain(rc, k), *b = mc_run_chain(rg, k);
        /* insertions into the liquid reach beta dU ~ 140, so a pair sum's rounding (1e-16 of its
         * largest terms, added in another order) moves ln w by up to ~1e-10 of ln w: compared in logs */
        for (long i = 0; i < p->widom_kinds * p->nsamples; i++) {
            double la = log(a->widom[i]), lb = log(b->widom[i]);
            if (a->widom[i] != b->widom[i] && !(fabs(la - lb) <= 1e-10 * fmax(1.0, fabs(la)))) /* 0: every one overlapped */
                fail_msg("chain %d insertion sample %ld: cpu %.15g gpu %.15g", k, i, a->widom[i], b->widom[i]);
        }
        for (int i = 0; i < a->n; i++) {
            if (a->in_box[i] != b->in_box[i]) fail_msg("chain %d particle %d: box cpu %lld gpu %lld", k, i,
                                                       (long long)a->in_box[i], (long long)b->in_box[i]);
            worst = fmax(worst, fmax(fabs(a->x[i] - b->x[i]), fmax(fabs(a->y[i] - b->y[i]), fabs(a->z[i] - b->z[i]))));
        }
        for (int o = 0; o < MC_NOBS; o++)
            for (long t = 0; a->series[o] && t < a->nsamples; t++)
                worst_series = fmax(worst_series, fabs(a->series[o][t] - b->series[o][t]) / fmax(1.0, fabs(a->series[o][t])));
        for (size_t q = 0; q < (size_t)mc_chain_rdf_rows(p) * p->rdf_bins; q++)
            if (a->rdf_counts[q] != b->rdf_counts[q]) fail_msg("chain %d RDF bin %zu: cpu %llu gpu %llu", k, q,
                                                               (unsigned long long)a->rdf_counts[q],
                                                               (unsigned long long)b->rdf_counts[q]);
    }
    const mc_chain *a = mc_run_chain(rc, 0);
    printf("# gibbs, %d rounds, %d particles: %llu of %llu moves accepted on both (%llu of %llu transfers, %llu of %llu "
           "volume), boxes %.4f and %.4f holding %lld and %lld; largest coordinate difference %.3g, series %.3g\n",
           rounds, a->n, (unsigned long long)a->accepted, (unsigned long long)a->step,
           (unsigned long long)a->transfers_accepted, (unsigned long long)a->transfers,
           (unsigned long long)a->volume_accepted, (unsigned long long)a->volume_moves, a->gibbs_box_len[0],
           a->gibbs_box_len[1], (long long)mc_gibbs_particles(p, a, 0), (long long)mc_gibbs_particles(p, a, 1), worst,
           worst_series);
    /* each accepted volume exchange scales by edges whose last bits differ (exp, log, cbrt: a few
     * ulp, 1e-15 relative): coordinates may part by up to that per exchange, times the box edge */
    double bound = 1e-15 * (double)a->volume_accepted * fmax(a->gibbs_box_len[0], a->gibbs_box_len[1]);
    printf("# coordinate bound from %llu volume exchanges: %.3g\n", (unsigned long long)a->volume_accepted, bound);
    assert_true(worst < fmax(1e-12, bound));
    assert_true(worst_series < 1e-10);
    assert_true(a->transfers_accepted > 10 && a->volume_accepted > 10);
    mc_run_destroy(rc);
    mc_run_destroy(rg);
    mc_plan_destroy(p);
}

/* Grand-canonical chains (mc_gcmc.h) on both backends: the same decisions round by round (the
 * counts of present particles, accepted moves and insertions or deletions), then the same
 * transition-matrix records: visits by N equal, the collection rows and energy sums to 1e-10 (each
 * acceptance probability comes through exp, whose last bits differ between CUDA's libm and glibc's,
 * and the energies are sums in another order), and so the biases the host computed from them. */
static void gcmc_in_step(const char *ini, int chains)
{
    mc_err err = {0, ""};
    mc_plan *p = tu_plan(ini);
    mc_run *rc, *rg;
    create_runs(p, &mc_backend_cpu, &mc_backend_cuda, chains, &rc, &rg);
    int rounds = rounds_in_step(rc, rg, chains, gibbs_same_decisions);
    assert_int_equal(mc_run_fetch(rg, &err), MC_OK);
    const int M = mc_gcmc_macrostates(p);
    double worst_rows = 0.0, worst_energy = 0.0, worst_bias = 0.0;
    for (int k = 0; k < chains; k++) {
        const mc_chain *a = mc_run_chain(rc, k), *b = mc_run_chain(rg, k);
        for (int i = 0; i < M; i++) {
            if (a->tmmc_visits[i] != b->tmmc_visits[i])
                fail_msg("chain %d N = %d: visits cpu %llu gpu %llu", k, p->tmmc_n_min + i,
                         (unsigned long long)a->tmmc_visits[i], (unsigned long long)b->tmmc_visits[i]);
            for (int d = 0; d < TMMC_ROW; d++)
                worst_rows = fmax(worst_rows, fabs(a->tmmc_c[3 * i + d] - b->tmmc_c[3 * i + d]) /
                                                  fmax(1.0, fabs(a->tmmc_c[3 * i + d])));
            worst_energy = fmax(worst_energy, fabs(a->tmmc_energy[i] - b->tmmc_energy[i]) / fmax(1.0, fabs(a->tmmc_energy[i])));
            worst_bias = fmax(worst_bias, fabs(a->tmmc_bias[i] - b->tmmc_bias[i]));
        }
        for (int i = 0; i < a->n; i++)
            if (a->in_box[i] != b->in_box[i]) fail_msg("chain %d slot %d: present cpu %d gpu %d", k, i, !a->in_box[i],
                                                       !b->in_box[i]);
    }
    const mc_chain *a = mc_run_chain(rc, 0);
    printf("# gcmc, %d rounds, %d slots: %llu of %llu insertions and deletions accepted on both, %lld present at the end; "
           "largest difference of a collection row %.3g, an energy sum %.3g, a bias %.3g\n", rounds, a->n,
           (unsigned long long)a->transfers_accepted, (unsigned long long)a->transfers,
           (long long)mc_gibbs_particles(p, a, 0), worst_rows, worst_energy, worst_bias);
    assert_true(worst_rows < 1e-10 && worst_energy < 1e-10 && worst_bias < 1e-9);
    assert_true(a->transfers_accepted > 10);
    mc_run_destroy(rc);
    mc_run_destroy(rg);
    mc_plan_destroy(p);
}

/* a binary LJ mixture, each species at its own activity (per-kind ln z and tails, insertions of
 * either species), N = 0..50 in 2 windows, unbiased */
static void gcmc_mixture(void **state)
{
    (void)state;
    gcmc_in_step("[system]\nbox_length = 6\n[potential]\ncutoff = 2.5\n[mixture]\nspecies = A, B\nsigma = 1, 0.9\n"
                 "epsilon = 1, 0.7\nlnz = 0, -0.7\n[ensemble]\ntype = gcmc\ntemperature = 1.3\nlnz = -3\nn_max = 50\n"
                 "replicas = 2\n[tmmc]\nwindows = 2\nbias = no\n[run]\nseed = 48\nequilibration = 40\nproduction = 60\n"
                 "sample_every = 10\n[moves]\nadapt_every = 10\n", 4);
}

/* LJ at T = 1.2 (rc 2.5 with tails), N = 0..80 in 3 windows, biased, 2 replicas; shared memory */
static void gcmc_lj(void **state)
{
    (void)state;
    gcmc_in_step("[system]\nbox_length = 6\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = gcmc\ntemperature = 1.2\n"
                 "lnz = -3\nn_max = 80\nreplicas = 2\n[tmmc]\nwindows = 3\n[run]\nseed = 47\nequilibration = 40\n"
                 "production = 60\nsample_every = 10\n[moves]\nadapt_every = 10\n", 6);
}

/* LJ, 300 particles at T = 0.9 with tails, 4 chains (two temperatures), Widom insertions into both
 * phases; the positions staged in shared memory */
static void gibbs_lj(void **state)
{
    (void)state;
    gibbs_in_step("[system]\nn = 300\n[potential]\ncutoff = 3\n[ensemble]\ntype = gibbs\ntemperature = 0.9, 1.0\n"
                  "density = 0.2\nreplicas = 2\nwidom = 10\n[run]\nseed = 41\nequilibration = 300\nproduction = 300\n"
                  "sample_every = 30\n[moves]\nadapt_every = 50\ndisplacement_fraction = 0.7\ntransfer_fraction = 0.28\n"
                  "volume_fraction = 0.02\n", 4);
}

/* a two-species mixture (transfers per species, mixing rules), cutoff 2.5 with tails, a dilute start */
static void gibbs_mixture(void **state)
{
    (void)state;
    gibbs_in_step("[mixture]\nspecies = A, B\ncounts = 120, 80\nsigma = 1, 0.9\nepsilon = 1, 0.7\n[potential]\n"
                  "cutoff = 2.5\n[ensemble]\ntype = gibbs\ntemperature = 0.85\ndensity = 0.15\nreplicas = 2\n"
                  "widom = 5\n[run]\nseed = 43\nequilibration = 200\nproduction = 200\nsample_every = 20\n"
                  "[moves]\nadapt_every = 50\ndisplacement_fraction = 0.6\ntransfer_fraction = 0.35\n"
                  "volume_fraction = 0.05\n", 2);
}

/* molecules of two types (a heteronuclear diatomic, an equilateral triangle) with tails: molecule
 * translations and rotations, transfers in random orientations per type, volume exchanges that
 * scale the centres; the measurements and test molecules are the host's on both */
static void gibbs_molecules(void **state)
{
    (void)state;
    gibbs_in_step("[mixture]\nspecies = A, B\nsigma = 1, 0.9\nepsilon = 1, 0.8\n[molecules]\ntypes = AB, T\n"
                  "counts = 60, 40\ngeometry = A 0 0 0; B 0 0 0.6 | A 0 0 0; A 0.5 0 0; A 0.25 0.433 0\n[potential]\n"
                  "cutoff = 2.5\n[ensemble]\ntype = gibbs\ntemperature = 1.9\ndensity = 0.08\nreplicas = 2\n"
                  "widom = 5\n[run]\nseed = 47\nequilibration = 200\nproduction = 200\nsample_every = 20\n"
                  "[moves]\nadapt_every = 50\ndisplacement_fraction = 0.6\ntransfer_fraction = 0.35\n"
                  "volume_fraction = 0.05\n", 2);
}

/* The kernels' minimum image against the host's (pair_fn.inc's device branches and cu_dist2's
 * fused sum, which no CPU test reaches): t/lj.c's separations (tu_fold_separations), folded on
 * the GPU in double and in float. Each fold's square must be the old fold's (mc_min_image's) square to the bit and
 * its magnitude the host's mc_image_fold's (the device's double fold keeps the sign of d); each
 * cu_dist2 must be the host's folds summed as fma(z, z, fma(y, y, x * x)). A device fold by rint
 * fails it (doc/performance.md version 29). */
static void image_fold_on_device(void **state)
{
    (void)state;
    enum { PER_BOX = 40009, N = TU_FOLD_BOXES * PER_BOX };
    double *d = malloc(N * sizeof *d), *box = malloc(N * sizeof *box), *fold = malloc(N * sizeof *fold),
           *dist2 = malloc(N * sizeof *dist2);
    float *fold_f = malloc(N * sizeof *fold_f), *dist2_f = malloc(N * sizeof *dist2_f);
    assert_non_null(d), assert_non_null(box), assert_non_null(fold), assert_non_null(dist2);
    assert_non_null(fold_f), assert_non_null(dist2_f);
    tu_fold_separations(d, box, PER_BOX);
    mc_err err = {0, ""};
    if (cu_fold_check(d, box, N, fold, fold_f, dist2, dist2_f, &err) != MC_OK) fail_msg("%s", err.msg);
    for (int k = 0; k < N; k++) {
        const double bx = box[k], x = d[k], y = d[(k + 1) % N], z = d[(k + 2) % N];
        const float bf = (float)bx, xf = (float)x, yf = (float)y, zf = (float)z;
        const double old = mc_min_image(x, bx, 0.5 * bx);
        const float old_f = mc_min_image_f(xf, bf, 0.5f * bf);
        const double fx = mc_image_fold(x, bx), fy = mc_image_fold(y, bx), fz = mc_image_fold(z, bx);
        const float gx = mc_image_fold_f(xf, bf), gy = mc_image_fold_f(yf, bf), gz = mc_image_fold_f(zf, bf);
        if (fold[k] * fold[k] != old * old || fabs(fold[k]) != fabs(fx))
            fail_msg("double: box %.17g, d %.17g: the GPU's fold %.17g, the host's %.17g", bx, x, fold[k], fx);
        if (fold_f[k] * fold_f[k] != old_f * old_f || fabsf(fold_f[k]) != fabsf(gx))
            fail_msg("float: box %.9g, d %.9g: the GPU's fold %.9g, the host's %.9g", bf, xf, fold_f[k], gx);
        if (dist2[k] != fma(fz, fz, fma(fy, fy, fx * fx)))
            fail_msg("double: box %.17g, (%.17g, %.17g, %.17g): the GPU's r^2 %.17g", bx, x, y, z, dist2[k]);
        if (dist2_f[k] != fmaf(gz, gz, fmaf(gy, gy, gx * gx)))
            fail_msg("float: box %.9g, (%.9g, %.9g, %.9g): the GPU's r^2 %.9g", bf, xf, yf, zf, dist2_f[k]);
    }
    free(d), free(box), free(fold), free(dist2), free(fold_f), free(dist2_f);
}

/* cu_lj_energy_in_range, the trial-volume loop's LJ term (its reciprocal without the division's
 * range check, r^6 below 2^-126 taken as 2^-126), against the kernels' pair_energy_f: every float r2
 * from 0 up to 2^42, bit for bit, for truncated and shifted constants, other sigma and epsilon, and
 * no cutoff (doc/performance.md version 30). Without the clamp, r2 = 0 gives NaN where the division gives +inf. */
static void lj_energy_in_range(void **state)
{
    (void)state;
    const pair_params cases[] = {
        pair_lj_make(1.0, 1.0, 3.0, PAIR_TRUNCATED),      pair_lj_make(1.0, 1.0, 2.5, PAIR_SHIFTED),
        pair_lj_make(3.405, 0.238, 12.0, PAIR_TRUNCATED), pair_lj_make(0.8, 1.7, 2.0, PAIR_SHIFTED),
        pair_lj_make(1.0, 1.0, INFINITY, PAIR_TRUNCATED),
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unsigned long long bad = 0;
        float first = 0.0f;
        mc_err err = {0, ""};
        if (cu_lj_range_check(&cases[c], &bad, &first, &err) != MC_OK) fail_msg("%s", err.msg);
        printf("# constants %zu: %llu of 0x54800000 r2 differ\n", c, bad);
        if (bad) fail_msg("constants %zu: %llu r2 differ, the first %.9g", c, bad, (double)first);
    }
}

int main(void)
{
    cu_device_info dev;
    mc_err err = {0, ""};
    if (cu_device_bind(0, &dev, &err) != MC_OK) {
        printf("1..0 # SKIP no GPU (%s)\n", err.msg);
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(image_fold_on_device), cmocka_unit_test(lj_energy_in_range), cmocka_unit_test(nist4_and_rdf), cmocka_unit_test(all_pairs_n500),
        cmocka_unit_test(cell_list_n500), cmocka_unit_test(chain_cells_n2000), cmocka_unit_test(chain_cells_blocks),
        cmocka_unit_test(force_shifted_n500),
        cmocka_unit_test(morse_n500), cmocka_unit_test(mixture_n500), cmocka_unit_test(morse_mixture_n500),
        cmocka_unit_test(mixture_batched_n4096), cmocka_unit_test(mixture_chain_cells),
        cmocka_unit_test(batched_k256), cmocka_unit_test(batched_k32_n128), cmocka_unit_test(batched_k64_n900),
        cmocka_unit_test(batched_k1024_repeats), cmocka_unit_test(cells_n20000),
        cmocka_unit_test(cells_k128_n4000), cmocka_unit_test(cells_dense_overflow),
        cmocka_unit_test(overlap_batched),
        cmocka_unit_test(overlap_cells), cmocka_unit_test(overlap_chain_cells), cmocka_unit_test(overlap_few_chains), cmocka_unit_test(npt_chains_n500), cmocka_unit_test(npt_chains_odd),
        cmocka_unit_test(npt_batched_n4096), cmocka_unit_test(rigid_hexagons),
        cmocka_unit_test(rigid_diatomic_mixture), cmocka_unit_test(rigid_cluster_wall),
        cmocka_unit_test(rigid_hexagons_widom), cmocka_unit_test(rigid_diatomic_npt),
        cmocka_unit_test(rigid_morse_widom), cmocka_unit_test(rigid_cluster_morse),
        cmocka_unit_test(rigid_hexagons_batched), cmocka_unit_test(rigid_diatomic_npt_batched_k64),
        cmocka_unit_test(rigid_cluster_batched_k256), cmocka_unit_test(rigid_twelve_sites_batched),
        cmocka_unit_test(exchange_chains_n256), cmocka_unit_test(few_chains_mixture), cmocka_unit_test(exchange_chain_cells_n1000),
        cmocka_unit_test(exchange_cells_n4096), cmocka_unit_test(cells_and_all_pairs_n4096),
        cmocka_unit_test(exchange_npt_pressure),
        cmocka_unit_test(rigid_24_sites), cmocka_unit_test(rigid_spce_widom), cmocka_unit_test(rigid_spce_npt), cmocka_unit_test(exchange_spce),
        cmocka_unit_test(rigid_spce_dsf_widom), cmocka_unit_test(rigid_spce_dsf_npt), cmocka_unit_test_teardown(rigid_spce_phase_rows, phase_rows_off),
        cmocka_unit_test(exchange_cluster), cmocka_unit_test(gibbs_lj), cmocka_unit_test(gibbs_mixture),
        cmocka_unit_test(gibbs_molecules), cmocka_unit_test(gcmc_lj), cmocka_unit_test(gcmc_mixture),
    };
    const char *only = getenv("GPU_PARITY_ONLY"); /* e.g. "*chain_cells*": a part, on the GPU machine */
    if (only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
