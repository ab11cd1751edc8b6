/* mcens-bench: throughput of the Monte Carlo engine on this machine, as a table (stdout) and as
 * tab-separated values (--out FILE). Attempted moves per second, pair evaluations per second
 * (2 (N - 1) per move: the moved particle's old and new energy; on cell lists, the members of the
 * 27 cells searched), pairs within the cutoff per second (what a move needs), the fraction of the
 * GPU's all-pairs rate (cu_bench.cu's ceiling kernel), and the speedup over the serial CPU backend
 * measured in the same run.
 *   case 1: N = 500, rho = 0.8, T = 1, cutoff 3, many chains (one block each)
 *   case 2: N = 50,000, rho = 0.8, T = 1, no cutoff, one chain (batched trials), and the classic
 *           launch-per-move scheme as the baseline
 *   case 3: N = 1,000,000, rho = 0.8, T = 1, cutoff 2.5, one chain (cell lists); pair
 *           evaluations counted as those in the 27 cells searched, old and new position
 *   case 4: case 1's chains on a temperature ladder (8 temperatures from 0.9 to 1.6) through the
 *           run driver, with replica exchange every 1, 10 and 100 sweeps against none: what
 *           exchange costs (energies gathered, decisions, configurations traded on the device)
 *   case 5: the Gibbs ensemble: 4 chains per SM of N = 500 at T = 0.9 (two boxes each, after 2000
 *           sweeps of separation) against as many NVT chains of N = 500 in double, the same run; and
 *           the same for 200 two-centre LJ molecules at T = 2.4 (moves/s count molecule moves)
 *   case 6: 32 chains per SM of N = 500 at rho 0.8, T = 1, rc 3 in single precision through the run
 *           driver: NPT at P = 1 (a volume move after every sweep) against NVT, the same run
 *   case 7: issue 14's shape A: 4 chains per SM of N = 4000 at rho 0.8, T = 1, rc 2.5 (the chains of
 *           examples/phase_diagram.ini) through the run driver, over all pairs and through the
 *           chain kernel's cell lists ([run] gpu_cell_lists), single and double
 *   case 8: the argon-cluster melting sweep of examples/argon_cluster.ini (864 atoms in a wall, 11
 *           temperatures) with 4 chains per SM through the run driver, double: the rigid-body
 *           engine's shape; pairs inside the cutoff counted in its starting crystal
 *   case 9: issue 14's shapes C and D: rigid benzene (150 molecules of 6 sites, no cutoff) with 4
 *           chains per SM and alone, single and double, through the run driver; molecule moves/s
 *   case 10: the sizes of seed 000's thesis (its Tables 5.3 and 5.4: N_a = 1000 to 50,000 sites,
 *           100 cycles, single and double): one chain of case 9's benzene at 1002, 4998, 10,002 and
 *           49,998 sites, 100 sweeps through the run driver, against the serial CPU backend at each
 *           size in the same run (rows T1 to T4, one sweep each), the thesis's own speedups printed
 *           beside (its molecule is not in this repository's data, so the rows take case 9's)
 *   case 11: grand-canonical TMMC (issue 43) at examples/tmmc.ini's T = 1.2 (LJ, V = 512, rc 3 with
 *           tails, N = 0..420 in 8 windows), 4 chains per SM, through the run driver with its bias
 *           updates, in double; moves/s are trial moves (a sweep is n_max of them)
 *   case 12: charged molecules (issue 47): SPC/E water, 256 molecules at 298 K and 33.4 /nm^3,
 *           cutoff 0.9 nm, Ewald at the default precision (1e-5), 4 chains per SM, single and double,
 *           through the run driver with samples every 20 sweeps; molecule moves/s, pair evaluations
 *           counted as the real-space site pairs (2 x 3 x (n - 3) a move; the Fourier part's wave
 *           vectors are printed beside), against one chain on the serial CPU backend (row W1)
 *   case 13: case 12's water with the damped shifted force (coulomb = dsf, its default damping)
 *           instead of the Ewald sum: the same pair terms with no Fourier part (rows W2 and 13)
 *   case 14: a sweep of a few chains (issue 45): the shapes of examples/argon.ini (12 chains of 500
 *           argon, real units, rc 3 sigma, Widom), mixture.ini (4 chains of a binary mixture of 500),
 *           npt_isotherm.ini (10 chains of 500 under npt), morse.ini (8 chains of 500) and one chain of
 *           4000 at rho 0.8, rc 2.5, each through the run driver with its samples, single and double,
 *           on the path the run chooses (the few-chains path for fewer chains than SMs) and, where
 *           gpu_batch_trials = 1024 changes it, on the many-chain kernel (a block a chain) that took
 *           them before; pair evaluations 2 (N - 1) a move
 *   case cpu: the serial CPU backend alone at the shapes RASPA3 and FEASST were measured on (N =
 *           500, rho 0.776, T 0.85, rc 3, all pairs; N = 4000, rc 2.5, cell lists), at the x86-64
 *           level its loops were dispatched to (cpu_isa.h), a Gibbs-ensemble chain of 500 at the state
 *           of t/gibbs.sh's NIST comparison, and one of 200 two-centre LJ molecules at
 *           t/gibbs_molecules.sh's, case 11's densest window (G3), case 9's benzene (D1) and case
 *           8's cluster (K1); needs no GPU,
 *           and ends every full run
 * Not a test: nothing here passes or fails. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfg.h"
#include "cpu_isa.h"
#include "cu_bench.h"
#include "cu_device.h"
#include "mc_backend.h"
#include "mc_cell_grid.h"
#include "mc_chain.h"
#include "mc_plan.h"
#include "mc_run.h"

enum { MAX_ROWS = 96 }; /* every case's rows in one full run (about 70) */

typedef struct row {
    const char *name;
    double moves_per_s, pairs_per_move, ref_rate, cpu_moves_per_s;
    double inside_per_move; /* pairs within the cutoff a move evaluates (0: all of them; NaN: not counted) */
} row;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static mc_plan *plan_of(const char *ini, mc_err *err)
{
    cfg c;
    if (cfg_parse(&c, ini, "bench", err) != MC_OK) return NULL;
    mc_plan *p = mc_plan_create(&c, err);
    cfg_fini(&c);
    return p;
}

/* Moves per second of `nchains` chains of the plan on a backend: one warm-up sweep, then
 * `sweeps` timed ones (each sweep call returns only when the work is done). */
static int time_backend_after(const mc_backend_ops *ops, const mc_plan *p, int nchains, long warmup, long sweeps,
                              double *moves_per_s, mc_err *err)
{
    mc_chain **ch = calloc((size_t)nchains, sizeof *ch);
    int rc = ch ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory");
    for (int k = 0; rc == MC_OK && k < nchains; k++)
        if (!(ch[k] = mc_chain_create(p, k, err))) rc = err->code;
    mc_backend *b = rc == MC_OK ? ops->create(p, ch, nchains, err) : NULL;
    if (rc == MC_OK && !b) rc = err->code;
    for (int k = 0; rc == MC_OK && k < nchains; k++) ch[k]->max_displacement = 0.12;
    if (rc == MC_OK) rc = ops->sweep(b, warmup, err);
    double t0 = now_s();
    if (rc == MC_OK) rc = ops->sweep(b, sweeps, err);
    *moves_per_s = (double)nchains * sweeps * p->nmol / (now_s() - t0); /* a sweep: a move per molecule (atom) */
    if (b) ops->destroy(b);
    for (int k = 0; ch && k < nchains; k++) mc_chain_destroy(ch[k]);
    free(ch);
    return rc;
}

static int time_backend(const mc_backend_ops *ops, const mc_plan *p, int nchains, long sweeps, double *moves_per_s,
                        mc_err *err)
{
    return time_backend_after(ops, p, nchains, 1, sweeps, moves_per_s, err);
}

/* Moves per second of a plan's chains through the run driver (rounds, measurements, exchange),
 * all of them on this process's GPU. */
static int time_run(const mc_plan *p, double *moves_per_s, mc_err *err)
{
    mc_run *r = mc_run_create(p, &mc_backend_cuda, 0, p->nchains, err);
    if (!r) return err->code;
    int rc = mc_run_round(r, err); /* warm-up: the first round's launches set the GPU up */
    long sweeps0 = mc_run_sweeps_done(r);
    double t0 = now_s();
    while (rc == MC_OK && !mc_run_finished(r)) rc = mc_run_round(r, err);
    *moves_per_s = (double)p->nchains * (mc_run_sweeps_done(r) - sweeps0) * p->nmol / (now_s() - t0); /* molecule moves */
    mc_run_destroy(r);
    return rc;
}

/* Serial CPU moves per second, timed over a fixed number of moves (less than a sweep for big N). */
/* warmup: untimed sweeps first (a Gibbs chain separating into its two phases) */
static int time_cpu(const mc_plan *p, long warmup, long moves, double *moves_per_s, mc_err *err)
{
    mc_chain *c = mc_chain_create(p, 0, err);
    mc_backend *b = c ? mc_backend_cpu.create(p, &c, 1, err) : NULL;
    if (!b) return mc_chain_destroy(c), err->code;
    if (!p->rigid) c->max_displacement = 0.12; /* atoms: a liquid's step; molecules keep the plan's, as the GPU rows do */
    int rc = warmup ? mc_backend_cpu.sweep(b, warmup, err) : MC_OK;
    /* the CPU sweeps whole sweeps: time one sweep, or scale a fraction for large N */
    long sweeps = moves / p->nmol > 0 ? moves / p->nmol : 1;
    double t0 = now_s();
    if (rc == MC_OK) rc = mc_backend_cpu.sweep(b, sweeps, err);
    *moves_per_s = (double)sweeps * p->nmol / (now_s() - t0);
    mc_backend_cpu.destroy(b);
    mc_chain_destroy(c);
    return rc;
}

static int baseline(const mc_plan *p, int single, double *moves_per_s, mc_err *err)
{
    mc_chain *c = mc_chain_create(p, 0, err);
    if (!c) return err->code;
    long accepted = 0, moves = 4000;
    double seconds = 0;
    int rc = cu_baseline_moves(c->x, c->y, c->z, c->n, c->box_len, c->beta, 0.12, p->pair, p->seed,
                               0, moves, single, &accepted, &seconds, err);
    *moves_per_s = moves / seconds;
    mc_chain_destroy(c);
    return rc;
}

static void print_row(FILE *f, const row *r, int tsv);
static void add_row(row *rows, int *nrows, row r);

/* Pair evaluations a cell-list move makes: the 27 cells around the old and the new position. */
static double cell_pairs_per_move(const mc_plan *p)
{
    double w = p->statepoint[0].box_len / floor(p->statepoint[0].box_len / p->cutoff);
    return 2.0 * 27 * p->statepoint[0].density * w * w * w;
}

/* Pairs within the cutoff a move of an atom evaluates, at its old and its new position: the
 * density times the cutoff sphere's volume (the count in an ideal gas; in a liquid g(r) makes it a
 * few percent more or less), at most all N - 1 of them. Without a cutoff every pair counts. */
static double inside_pairs_per_move(const mc_plan *p)
{
    if (!p) return NAN;
    double all = 2.0 * (p->n - 1);
    if (!isfinite(p->cutoff)) return all;
    double inside = 2.0 * p->statepoint[0].density * 4.0 / 3.0 * M_PI * p->cutoff * p->cutoff * p->cutoff;
    return inside < all ? inside : all;
}

/* Two-centre Lennard-Jones molecules (sites 0.5 sigma apart), rc 2.5 with tails: 200 of them. */
#define MOLECULES_2CLJ                                                                                            \
    "[mixture]\nspecies = A\nsigma = 1\nepsilon = 1\n[molecules]\ntypes = AA\ncounts = 200\n"                  \
    "geometry = A 0 0 0; A 0 0 0.5\n[potential]\ncutoff = 2.5\n"

/* examples/tmmc.ini's T = 1.2 ([ensemble] type = gcmc; the caller adds n_min, replicas and windows).
 * A gcmc move evaluates its particle against every slot of the n_max, the absent masked: a
 * displacement twice (old and new place), an insertion or deletion once, half of each by default. */
#define GCMC_LJ                                                                                                   \
    "[system]\nbox_length = 8\n[potential]\ncutoff = 3\n[ensemble]\ntype = gcmc\ntemperature = 1.2\n"             \
    "lnz = -3.03\nn_max = 420\n"
#define GCMC_SLOT_PAIRS_PER_MOVE 1.5

/* examples/argon_cluster.ini's melting sweep (864 argon atoms, a one-site molecule each, in a
 * spherical wall, open boundary, 11 temperatures from 20 to 120 K: the rigid-body engine's shape),
 * %d replicas per temperature, 200 sweeps with samples every 50. */
#define ARGON_CLUSTER                                                                                             \
    "[run]\nequilibration = 0\nproduction = 200\nsample_every = 50\n[system]\nunits = real\nboundary = none\n"      \
    "start = lattice\nlattice_constant = 0.52\nmass = 39.95\n[molecules]\ntypes = argon\ncounts = 864\n"            \
    "geometry = Ar 0 0 0\n[potential]\nrmin = 0.369\nepsilon = 1.19\ncutoff = 1.3\ntail_correction = no\n"         \
    "[wall]\nradius = 20\nstrength = 1\n[ensemble]\ntemperature = 20:120:11\nreplicas = %d\n[rdf]\nrmax = 1.3\n"   \
    "bins = 130\n"

/* Issue 14's shapes C and D: rigid benzene as examples/benzene.ini (150 molecules of 6 united-atom
 * CH sites, no cutoff, 298 K, real units), the geometry inline; %d sweeps, %s precision, %d
 * molecules (150 for the example's), %d replicas. A molecule move evaluates 2 x 6 x (n - 6) site
 * pairs. */
#define BENZENE                                                                                                   \
    "[run]\nequilibration = 0\nproduction = %d\nsample_every = 20\nprecision = %s\n[system]\nunits = real\n"     \
    "[mixture]\nspecies = CH\nsigma = 0.375\nepsilon = 0.46\nmass = 13.019\n[molecules]\ntypes = benzene\n"       \
    "counts = %d\ngeometry = CH 0.139 0 0; CH 0.0695 0.120378 0; CH -0.0695 0.120378 0; CH -0.139 0 0; "          \
    "CH -0.0695 -0.120378 0; CH 0.0695 -0.120378 0\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 298\n" \
    "density = 6.73707\nreplicas = %d\n"

/* Pairs within the cutoff a move evaluates in the cluster's starting crystal, counted (open
 * boundary, no images): twice (old and new position) the mean number of neighbours within rc. The
 * melted chains have fewer, so this is an upper bound. */
static double cluster_inside_per_move(const mc_plan *p, mc_err *err)
{
    mc_chain *c = mc_chain_create(p, 0, err);
    if (!c) return NAN;
    double rc2 = p->cutoff * p->cutoff;
    long pairs = 0;
    for (int i = 0; i < c->n; i++)
        for (int j = i + 1; j < c->n; j++) {
            double dx = c->x[i] - c->x[j], dy = c->y[i] - c->y[j], dz = c->z[i] - c->z[j];
            pairs += dx * dx + dy * dy + dz * dz < rc2;
        }
    mc_chain_destroy(c);
    return 2.0 * 2.0 * (double)pairs / p->n;
}

/* The CPU shapes: one chain each, serial, its speed its own reference. */
static int cpu_shapes(row *rows, int *nrows, mc_err *err)
{
    static const struct { const char *name, *ini; int cells; long warmup; } shape[] = {
        {"C1 N=500 rho=0.776 T=0.85 rc=3, serial CPU",
         "[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntemperature = 0.85\ndensity = 0.776\n", 0, 0},
        {"C2 N=4000 rho=0.776 T=0.85 rc=2.5 cells, serial CPU",
         "[system]\nn = 4000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 0.85\ndensity = 0.776\n", 1, 0},
        /* the Gibbs ensemble's chain at the NIST test's state, after 2000 sweeps of separation:
         * a displacement or transfer evaluates its particle against all N (the other box masked) */
        {"G1 gibbs N=500 rho=0.2 T=0.9 rc=3, serial CPU",
         "[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntype = gibbs\ntemperature = 0.9\ndensity = 0.2\n", 0,
         2000},
        /* two-centre LJ molecules at t/gibbs_molecules.sh's state: a molecule's 2 sites against all 400 */
        {"G2 gibbs 200 2CLJ T=2.4 rc=2.5, serial CPU",
         MOLECULES_2CLJ "[ensemble]\ntype = gibbs\ntemperature = 2.4\ndensity = 0.12\n", 0, 2000},
        /* case 11's last window, the liquid's N = 367..420 in V = 512: a move against all 420 slots */
        {"G3 gcmc N=367..420 V=512 T=1.2 rc=3, serial CPU", GCMC_LJ "n_min = 367\nreplicas = 1\n", 0, 200}};
    for (int k = 0; k < 5; k++) {
        mc_plan *p = plan_of(shape[k].ini, err);
        if (!p) return err->code;
        double sites = (double)p->n / p->nmol; /* per molecule (1 for atoms) */
        double pairs = shape[k].cells               ? cell_pairs_per_move(p)
                       : p->ensemble->open       ? GCMC_SLOT_PAIRS_PER_MOVE * p->n
                       : p->ensemble->boxes > 1 ? 2.0 * sites * p->n
                                                : 2.0 * (p->n - 1);
        row r = {shape[k].name, 0, pairs, 0, 0, mc_plan_labelled(p) ? NAN : inside_pairs_per_move(p)};
        int rc = time_cpu(p, shape[k].warmup, 1000000, &r.moves_per_s, err);
        mc_plan_destroy(p);
        MC_TRY(rc);
        r.cpu_moves_per_s = r.moves_per_s;
        add_row(rows, nrows, r);
    }
    /* the molecular rows of GPU cases 9 and 8, one chain each: D1, case 9's benzene; K1, case 8's
     * argon cluster (at 20 K, the crystal) */
    char text[2][900];
    snprintf(text[0], sizeof text[0], BENZENE, 20, "double", 150, 1);
    snprintf(text[1], sizeof text[1], ARGON_CLUSTER, 1);
    static const struct { const char *name; long moves; } molecular[] = {
        {"D1 benzene 150 x 6 sites, serial CPU", 20000}, {"K1 argon cluster N=864 at 20 K, serial CPU", 100000}};
    for (int k = 0; k < 2; k++) {
        mc_plan *p = plan_of(text[k], err);
        if (!p) return err->code;
        int sites = p->n / p->nmol;
        row r = {molecular[k].name, 0, 2.0 * sites * (p->n - sites), 0, 0, 0};
        if (k == 1) r.inside_per_move = cluster_inside_per_move(p, err);
        int rc = isfinite(r.inside_per_move) ? time_cpu(p, 0, molecular[k].moves, &r.moves_per_s, err) : err->code;
        mc_plan_destroy(p);
        MC_TRY(rc);
        r.cpu_moves_per_s = r.moves_per_s;
        add_row(rows, nrows, r);
    }
    return MC_OK;
}

/* Case 10: seed 000's thesis sizes (the file's head says which). For each size the serial CPU
 * row first (one sweep: a fifth of a minute at 50,000 sites on a 1e8 pairs/s core), then the GPU
 * in single and double with their speedups over it. rate: the all-pairs rates [double, single]. */
static int thesis_sizes(row *rows, int *nrows, const double rate[2], mc_err *err)
{
    static const int molecules[] = {167, 833, 1667, 8333}; /* 6 sites each */
    static char names[12][80];                                /* the rows keep pointers to them */
    for (int s = 0; s < 4; s++) {
        double cpu = 0.0;
        for (int g = 0; g < 3; g++) { /* the CPU, then the GPU in single and double */
            static const char *const precision[] = {"double", "single", "double"};
            char text[900];
            snprintf(text, sizeof text, BENZENE, 100, precision[g], molecules[s], 1);
            mc_plan *p = plan_of(text, err);
            if (!p) return err->code;
            char *name = names[3 * s + g];
            if (g == 0) snprintf(name, sizeof names[0], "T%d N_a=%d benzene, serial CPU", s + 1, p->n);
            else snprintf(name, sizeof names[0], "10 N_a=%d benzene, one chain, GPU %s", p->n, precision[g]);
            row r = {name, 0, 2.0 * 6 * (p->n - 6), g ? rate[g == 1] : 0, cpu, 0};
            int rc = g ? time_run(p, &r.moves_per_s, err) : time_cpu(p, 0, 1, &r.moves_per_s, err);
            mc_plan_destroy(p);
            MC_TRY(rc);
            if (g == 0) cpu = r.cpu_moves_per_s = r.moves_per_s;
            add_row(rows, nrows, r);
        }
    }
    printf("case 10: seed 000's thesis (a GTX 1080 Ti against its serial CPU code, its own molecule) gave 640x "
           "(single) and 172x (double) at N_a = 50,000\n");
    return MC_OK;
}

/* Rows of GPU case `gpu_case` take their speedup from the CPU row named `cpu_row`: the same
 * chains, one on one core. */
static void speedup_from(row *rows, int nrows, char gpu_case, const char *cpu_row)
{
    for (int m = 0; m < nrows; m++)
        if (!strncmp(rows[m].name, cpu_row, strlen(cpu_row)))
            for (int k = 0; k < nrows; k++)
                if (rows[k].name[0] == gpu_case) rows[k].cpu_moves_per_s = rows[m].moves_per_s;
}

/* Each row as soon as it is measured, so a long or failing run still shows what it has. */
static void add_row(row *rows, int *nrows, row r)
{
    if (*nrows == MAX_ROWS) { /* a case added without raising MAX_ROWS: say so rather than overrun */
        fprintf(stderr, "mcens-bench: more than %d rows; %s not kept\n", MAX_ROWS, r.name);
        return;
    }
    rows[(*nrows)++] = r;
    fprintf(stderr, "measured: ");
    print_row(stderr, &r, 0);
}

static void print_header(FILE *f, int tsv)
{
    if (tsv)
        fprintf(f, "case\tmoves_per_s\tpair_evals_per_s\tpairs_inside_cutoff_per_s\tfraction_of_all_pairs_rate\t"
                   "speedup_vs_serial_cpu\n");
    else
        fprintf(f, "%-52s %11s %13s %13s %8s %9s\n", "case", "moves/s", "pair evals/s", "inside rc/s", "of rate",
                "vs CPU");
}

static void print_row(FILE *f, const row *r, int tsv)
{
    double pairs = r->moves_per_s * r->pairs_per_move;
    /* inside_per_move: 0 when every pair evaluated is inside, NaN when not counted */
    double inside = r->moves_per_s * (r->inside_per_move != 0 ? r->inside_per_move : r->pairs_per_move);
    double of_rate = r->ref_rate > 0 ? pairs / r->ref_rate : NAN;
    double vs_cpu = r->cpu_moves_per_s > 0 ? r->moves_per_s / r->cpu_moves_per_s : NAN;
    if (tsv) fprintf(f, "%s\t%.4g\t%.4g\t%.4g\t%.4f\t%.4g\n", r->name, r->moves_per_s, pairs, inside, of_rate, vs_cpu);
    else fprintf(f, "%-52s %11.4g %13.4g %13.4g %8.3f %9.1f\n", r->name, r->moves_per_s, pairs, inside, of_rate, vs_cpu);
}

static const char usage_text[] =
    "usage: mcens-bench [--out FILE] [--case N] [--chains C] [--batch-trials K]\n"
    "  --out FILE          also write the table as tab-separated values\n"
    "  --case N            measure case N (1 to 14) alone, without its serial CPU row (case 10 has its\n"
    "                      own, cases 12 and 13 their W1 and W2); cpu: the serial CPU backend's rows alone (no GPU needed)\n"
    "  --chains C          chains of case 1 (default 32 per SM)\n"
    "  --batch-trials K    [run] gpu_batch_trials of cases 2 and 3 (default 0: chosen by size)\n";

/* What every case sees and adds to: the device, the measured all-pairs rates, case 1's chain count,
 * the command line's choices, and the table. */
typedef struct bench {
    cu_device_info dev;
    double rate[2]; /* [single] all-pairs pair evaluations per second */
    int chains1;    /* case 1's chains: --chains, or 32 per SM (up to 32 resident blocks per SM) */
    int batch_trials;
    int alone;      /* --case N: that case alone, without its serial CPU row */
    row rows[MAX_ROWS];
    int nrows;
} bench;

/* Case 1: N = 500, rc 3, many chains, single and double, with its serial CPU row. */
static int case_many_chains(bench *b, mc_err *err)
{
    char ini[512];
    snprintf(ini, sizeof ini, "[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\n"
                              "temperature = 1\ndensity = 0.8\nreplicas = %d\n[run]\nprecision = %%s\n",
             b->chains1);
    double cpu1 = 0;
    int first = b->nrows;
    for (int s = 1; s >= 0; s--) {
        char text[600];
        snprintf(text, sizeof text, ini, s ? "single" : "double");
        mc_plan *p = plan_of(text, err);
        if (!p) return err->code;
        if (s == 0 && time_cpu(p, 0, 20000, &cpu1, err) != MC_OK) return mc_plan_destroy(p), err->code;
        if (s == 0) fprintf(stderr, "measured: serial CPU, case 1: %.4g moves/s\n", cpu1);
        row r = {s ? "1 N=500 rc=3, many chains, GPU single" : "1 N=500 rc=3, many chains, GPU double",
                 0, 2.0 * (p->n - 1), b->rate[s], 0, inside_pairs_per_move(p)};
        int rc = time_backend(&mc_backend_cuda, p, p->nchains, 40, &r.moves_per_s, err);
        mc_plan_destroy(p);
        MC_TRY(rc);
        add_row(b->rows, &b->nrows, r);
    }
    if (cpu1 > 0) {
        b->rows[first].cpu_moves_per_s = b->rows[first + 1].cpu_moves_per_s = cpu1;
        add_row(b->rows, &b->nrows,
                (row){"1 N=500 rc=3, one chain, serial CPU", cpu1, 2.0 * 499, 0, cpu1, b->rows[first].inside_per_move});
    }
    return MC_OK;
}

/* The rows of case `c` take cpu as their serial CPU rate. */
static void cpu_rate_of_case(bench *b, char c, double cpu)
{
    for (int k = 0; k < b->nrows; k++)
        if (b->rows[k].name[0] == c) b->rows[k].cpu_moves_per_s = cpu;
}

/* Case 2: N = 50,000, no cutoff, one chain (batched trials), against the launch-per-move baseline. */
static int case_batched(bench *b, mc_err *err)
{
    double cpu2 = 0;
    for (int s = 1; s >= 0; s--) {
        char text[300];
        snprintf(text, sizeof text, "[system]\nn = 50000\n[potential]\ncutoff = none\n[ensemble]\n"
                 "temperature = 1\ndensity = 0.8\n[run]\nprecision = %s\ngpu_batch_trials = %d\n",
                 s ? "single" : "double", b->batch_trials);
        mc_plan *p = plan_of(text, err);
        if (!p) return err->code;
        if (s == 0 && !b->alone && time_cpu(p, 0, 50000, &cpu2, err) != MC_OK) return mc_plan_destroy(p), err->code;
        if (s == 0) fprintf(stderr, "measured: serial CPU, case 2: %.4g moves/s\n", cpu2);
        row r = {s ? "2 N=50000 no cutoff, one chain, GPU single" : "2 N=50000 no cutoff, one chain, GPU double",
                 0, 2.0 * (p->n - 1), b->rate[s], 0, 0};
        row base = {s ? "2 ... launch-per-move baseline, single" : "2 ... launch-per-move baseline, double",
                    0, 2.0 * (p->n - 1), b->rate[s], 0, 0};
        int rc = time_backend(&mc_backend_cuda, p, 1, 4, &r.moves_per_s, err);
        if (rc == MC_OK) rc = baseline(p, s, &base.moves_per_s, err);
        mc_plan_destroy(p);
        MC_TRY(rc);
        add_row(b->rows, &b->nrows, r);
        add_row(b->rows, &b->nrows, base);
        printf("case 2 %s: GPU / launch-per-move = %.1f\n", s ? "single" : "double", r.moves_per_s / base.moves_per_s);
    }
    cpu_rate_of_case(b, '2', cpu2);
    if (cpu2 > 0) add_row(b->rows, &b->nrows, (row){"2 N=50000 no cutoff, one chain, serial CPU", cpu2, 2.0 * 49999, 0, cpu2, 0});
    return MC_OK;
}

/* Case 3: N = 1e6, rc 2.5, one chain on cell lists. */
static int case_cells(bench *b, mc_err *err)
{
    double cpu3 = 0;
    for (int s = 1; s >= 0; s--) {
        char text[300];
        snprintf(text, sizeof text, "[system]\nn = 1000000\n[potential]\ncutoff = 2.5\n[ensemble]\n"
                 "temperature = 1\ndensity = 0.8\n[run]\nprecision = %s\ngpu_batch_trials = %d\n"
                 "[rdf]\nrmax = 2.5\n", s ? "single" : "double", b->batch_trials);
        mc_plan *p = plan_of(text, err);
        if (!p) return err->code;
        if (s == 0 && !b->alone && time_cpu(p, 0, 1000000, &cpu3, err) != MC_OK) return mc_plan_destroy(p), err->code;
        if (s == 0 && cpu3 > 0) fprintf(stderr, "measured: serial CPU, case 3: %.4g moves/s\n", cpu3);
        /* about 680 pair evaluations a move: 27 cells of 12.6 particles, old and new position */
        row r = {s ? "3 N=1e6 rc=2.5 cells, one chain, GPU single" : "3 N=1e6 rc=2.5 cells, one chain, GPU double",
                 0, cell_pairs_per_move(p), b->rate[s], 0, inside_pairs_per_move(p)};
        int rc = time_backend(&mc_backend_cuda, p, 1, 3, &r.moves_per_s, err);
        mc_plan_destroy(p);
        MC_TRY(rc);
        add_row(b->rows, &b->nrows, r);
    }
    cpu_rate_of_case(b, '3', cpu3);
    if (cpu3 > 0)
        add_row(b->rows, &b->nrows, (row){"3 N=1e6 rc=2.5 cells, one chain, serial CPU", cpu3, 680, 0, cpu3,
                                          2.0 * 0.8 * 4.0 / 3.0 * M_PI * 2.5 * 2.5 * 2.5});
    return MC_OK;
}

/* Case 4: exchange on case 1's chains, 8 rungs; the row of no exchange is the reference. */
static int case_exchange(bench *b, mc_err *err)
{
    double none = 0;
    static const long every[] = {0, 100, 10, 1};
    static const char *names[] = {"4 ladder, no exchange, GPU single", "4 ladder, exchange every 100, GPU single",
                                  "4 ladder, exchange every 10, GPU single", "4 ladder, exchange every 1, GPU single"};
    for (int e = 0; e < 4; e++) {
        char text[400];
        snprintf(text, sizeof text, "[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntemperature = 0.9:1.6:8\n"
                 "density = 0.8\nreplicas = %d\nexchange_every = %ld\n[run]\nprecision = single\nequilibration = 0\n"
                 "production = 300\nsample_every = 100\n", b->chains1 / 8 > 0 ? b->chains1 / 8 : 1, every[e]);
        mc_plan *p = plan_of(text, err);
        if (!p) return err->code;
        row r = {names[e], 0, 2.0 * 499, b->rate[1], 0, inside_pairs_per_move(p)};
        int rc = time_run(p, &r.moves_per_s, err);
        mc_plan_destroy(p);
        MC_TRY(rc);
        if (e == 0) none = r.moves_per_s;
        add_row(b->rows, &b->nrows, r);
        printf("case 4, exchange every %ld: %.3f of the run without exchange\n", every[e], r.moves_per_s / none);
    }
    return MC_OK;
}

/* Case 5: Gibbs chains against NVT chains of the same size in double, after 2000 sweeps of
 * separation, atoms and two-centre molecules; the serial CPU rows are G1 and G2. */
static int case_gibbs(bench *b, mc_err *err)
{
    static const struct { const char *name, *ini; double pairs_per_move; long warmup; } case5[] = {
        {"5 nvt N=500 rho=0.75 T=0.9, many chains, GPU double",
         "[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntemperature = 0.9\ndensity = 0.75\nreplicas = %d\n",
         2.0 * 499, 1},
        {"5 gibbs N=500 T=0.9, same chains, GPU double",
         "[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntype = gibbs\ntemperature = 0.9\ndensity = 0.2\n"
         "replicas = %d\n", 2.0 * 500, 2000},
        {"5 nvt 200 2CLJ rho=0.38 T=2.4, same chains, GPU double", MOLECULES_2CLJ "[ensemble]\ntemperature = 2.4\n"
         "density = 0.38\nreplicas = %d\n", 2.0 * 2 * 398, 1},
        {"5 gibbs 200 2CLJ T=2.4, same chains, GPU double", MOLECULES_2CLJ "[ensemble]\ntype = gibbs\n"
         "temperature = 2.4\ndensity = 0.12\nreplicas = %d\n", 2.0 * 2 * 400, 2000}};
    for (int g = 0; g < 4; g++) {
        char text[600];
        int chains5 = 4 * b->dev.sm_count; /* a coexistence sweep's shape: examples/coexistence.ini */
        snprintf(text, sizeof text, case5[g].ini, chains5);
        mc_plan *p = plan_of(text, err);
        if (!p) return err->code;
        /* molecules and two boxes: the pairs within the cutoff are not counted here */
        row r = {case5[g].name, 0, case5[g].pairs_per_move, b->rate[0], 0, g == 0 ? inside_pairs_per_move(p) : NAN};
        int rc = time_backend_after(&mc_backend_cuda, p, p->nchains, case5[g].warmup, 200, &r.moves_per_s, err);
        mc_plan_destroy(p);
        MC_TRY(rc);
        add_row(b->rows, &b->nrows, r);
        if (g % 2)
            printf("case 5: Gibbs chains of %s run at %.3f of NVT chains' moves/s\n", g < 2 ? "atoms" : "molecules",
                   r.moves_per_s / b->rows[b->nrows - 2].moves_per_s);
    }
    return MC_OK;
}

/* Case 6: NPT chains against NVT chains of the same shape through the run driver (the volume move
 * made inside the chain kernel after every sweep). */
static int case_npt(bench *b, mc_err *err)
{
    for (int g = 0; g < 2; g++) {
        char text[400];
        snprintf(text, sizeof text,
                 "[run]\nequilibration = 0\nproduction = 400\nsample_every = 100\nprecision = single\n[system]\n"
                 "n = 500\n[potential]\ncutoff = 3\n[ensemble]\n%s\ntemperature = 1\ndensity = 0.8\nreplicas = %d\n",
                 g ? "type = npt\npressure = 1" : "type = nvt", b->chains1);
        mc_plan *p = plan_of(text, err);
        if (!p) return err->code;
        row r = {g ? "6 npt N=500 P=1 T=1, many chains, GPU single" : "6 nvt N=500 rho=0.8 T=1, same chains, GPU single",
                 0, 2.0 * 499, b->rate[1], 0, inside_pairs_per_move(p)};
        int rc = time_run(p, &r.moves_per_s, err);
        mc_plan_destroy(p);
        MC_TRY(rc);
        add_row(b->rows, &b->nrows, r);
        if (g)
            printf("case 6: NPT chains run at %.3f of NVT chains' moves/s\n",
                   r.moves_per_s / b->rows[b->nrows - 2].moves_per_s);
    }
    return MC_OK;
}

/* Case 7: the chains of examples/phase_diagram.ini (4 per SM of N = 4000 at rho 0.8, T = 1, rc 2.5:
 * six cells per edge) through the run driver with its samples (energy, virial and RDF every 50
 * sweeps), over all pairs and through the chain kernel's cell lists. */
static int case_large_chains(bench *b, mc_err *err)
{
    static const struct { const char *name, *precision, *lists; } case7[] = {
        {"7 A N=4000 rc=2.5, all pairs, GPU single", "single", "no"},
        {"7 A N=4000 rc=2.5, cell lists, GPU single", "single", "auto"},
        {"7 A N=4000 rc=2.5, all pairs, GPU double", "double", "no"},
        {"7 A N=4000 rc=2.5, cell lists, GPU double", "double", "auto"}};
    double cpu7 = 0, cpu7_pairs = 0; /* the CPU's cells are a cutoff wide */
    for (int g = 0; g < 4; g++) {
        char text[500];
        int single = !strcmp(case7[g].precision, "single"), cells = !strcmp(case7[g].lists, "auto");
        snprintf(text, sizeof text,
                 "[run]\nequilibration = 0\nproduction = 200\nsample_every = 50\nprecision = %s\ngpu_cell_lists = %s\n"
                 "[system]\nn = 4000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\n"
                 "replicas = %d\n[rdf]\nbins = 125\nrmax = 2.5\n",
                 case7[g].precision, case7[g].lists, 4 * b->dev.sm_count);
        mc_plan *p = plan_of(text, err);
        if (!p) return err->code;
        if (g == 0 && !b->alone && time_cpu(p, 0, 200000, &cpu7, err) != MC_OK) return mc_plan_destroy(p), err->code;
        if (g == 0) cpu7_pairs = cell_pairs_per_move(p);
        /* the members of the 27 cells around the old and the new position, on the kernel's grid */
        mc_cell_grid grid = mc_cell_grid_choose(p->n, p->statepoint[0].box_len, p->cutoff);
        row r = {case7[g].name, 0, cells && grid.m ? 2.0 * grid.members : 2.0 * 3999, b->rate[single], cpu7,
                 inside_pairs_per_move(p)};
        int rc = time_run(p, &r.moves_per_s, err);
        mc_plan_destroy(p);
        MC_TRY(rc);
        add_row(b->rows, &b->nrows, r);
        if (cells)
            printf("case 7 %s: cell lists run at %.2f times all pairs\n", case7[g].precision,
                   r.moves_per_s / b->rows[b->nrows - 2].moves_per_s);
    }
    if (cpu7 > 0)
        add_row(b->rows, &b->nrows, (row){"7 A N=4000 rc=2.5 cells, one chain, serial CPU", cpu7, cpu7_pairs, 0, cpu7,
                                          b->rows[b->nrows - 1].inside_per_move});
    return MC_OK;
}

/* Case 8: the argon-cluster melting sweep with 4 chains per SM (replicas per temperature rounded
 * up), double, through the run driver; pairs evaluated 2 (N - 1) per move (the rigid-body kernel
 * sums over all sites), pairs inside the cutoff counted in the crystal. Its serial CPU row is K1
 * (cpu_shapes), measured once for both. */
static int case_cluster(bench *b, mc_err *err)
{
    char text[900];
    snprintf(text, sizeof text, ARGON_CLUSTER, (4 * b->dev.sm_count + 10) / 11);
    mc_plan *p = plan_of(text, err);
    if (!p) return err->code;
    double inside = cluster_inside_per_move(p, err);
    row r = {"8 argon cluster N=864, 11 T, 4 chains/SM, GPU double", 0, 2.0 * (p->n - 1), b->rate[0], 0, inside};
    int rc = isfinite(inside) ? time_run(p, &r.moves_per_s, err)
             : err->code ? err->code : mc_err_set(err, MC_ECHECK, "case 8: the cluster's pairs inside the cutoff are not finite");
    mc_plan_destroy(p);
    MC_TRY(rc);
    add_row(b->rows, &b->nrows, r);
    printf("case 8: %.3f of the double all-pairs rate in pairs evaluated, %.3f in pairs inside the cutoff\n",
           r.moves_per_s * r.pairs_per_move / b->rate[0], r.moves_per_s * inside / b->rate[0]);
    return MC_OK;
}

/* Case 9: rigid benzene with 4 chains per SM (shape C) and alone (shape D), single and double,
 * through the run driver with its samples every 20 sweeps (on the device). */
static int case_benzene(bench *b, mc_err *err)
{
    static const struct { const char *name, *precision; int per_sm, sweeps; } case9[] = {
        {"9 C benzene 150 mol, 4 chains/SM, GPU single", "single", 4, 100},
        {"9 C benzene 150 mol, 4 chains/SM, GPU double", "double", 4, 100},
        {"9 D benzene 150 mol, one chain, GPU single", "single", 0, 1000},
        {"9 D benzene 150 mol, one chain, GPU double", "double", 0, 1000}};
    for (int g = 0; g < 4; g++) {
        char text[900];
        snprintf(text, sizeof text, BENZENE, case9[g].sweeps, case9[g].precision, 150,
                 case9[g].per_sm ? case9[g].per_sm * b->dev.sm_count : 1);
        mc_plan *p = plan_of(text, err);
        if (!p) return err->code;
        row r = {case9[g].name, 0, 2.0 * 6 * (p->n - 6), b->rate[!strcmp(case9[g].precision, "single")], 0, 0};
        int rc = time_run(p, &r.moves_per_s, err);
        mc_plan_destroy(p);
        MC_TRY(rc);
        add_row(b->rows, &b->nrows, r);
    }
    return MC_OK;
}

static int case_thesis(bench *b, mc_err *err) { return thesis_sizes(b->rows, &b->nrows, b->rate, err); }

/* Case 11: examples/tmmc.ini's T = 1.2 with 4 chains per SM (8 windows, their replicas), through
 * the run driver (rounds, measurements, the host's bias updates between sweeps), from each
 * window's lowest N. */
static int case_gcmc(bench *b, mc_err *err)
{
    char text[500];
    snprintf(text, sizeof text, "[run]\nequilibration = 0\nproduction = 200\nsample_every = 50\n" GCMC_LJ
             "replicas = %d\n[tmmc]\nwindows = 8\n", 4 * b->dev.sm_count / 8);
    mc_plan *p = plan_of(text, err);
    if (!p) return err->code;
    row r = {"11 gcmc N=0..420 V=512 T=1.2, 8 windows, GPU double", 0, GCMC_SLOT_PAIRS_PER_MOVE * p->n, b->rate[0], 0, NAN};
    int rc = time_run(p, &r.moves_per_s, err);
    mc_plan_destroy(p);
    MC_TRY(rc);
    add_row(b->rows, &b->nrows, r);
    return MC_OK;
}

/* Cases 12 and 13: SPC/E water with the Ewald sum or the damped shifted force (the file's head says
 * which), the serial CPU row first. */
#define SPCE_256                                                                                                 \
    "[run]\nequilibration = 0\nproduction = %d\nsample_every = 20\nprecision = %s\n[system]\nunits = real\n"  \
    "[mixture]\nspecies = O, H\nsigma = 0.316555789, 0\nepsilon = 0.6501696177877252, 0\nmass = 15.9994, 1.008\n" \
    "charge = -0.8476, 0.4238\n[molecules]\ntypes = water\ncounts = 256\n"                                      \
    "geometry = O 0 0 0; H 0.1 0 0; H -0.033331324756823731 0.09428161427317179 0\n[potential]\ncutoff = 0.9\n" \
    "coulomb = %s\n[ensemble]\ntemperature = 298\ndensity = 33.4\nreplicas = %d\n"

static int spce_rows(bench *b, const char *coulomb, const char *const names[3], mc_err *err)
{
    static const struct { const char *precision; int per_sm, sweeps; } rows[] = {
        {"double", 0, 20}, /* the serial CPU row: timed over 2 sweeps */
        {"single", 4, 100},
        {"double", 4, 100}};
    double cpu = 0.0;
    for (int g = 0; g < 3; g++) {
        char text[900];
        snprintf(text, sizeof text, SPCE_256, rows[g].sweeps, rows[g].precision, coulomb,
                 rows[g].per_sm ? rows[g].per_sm * b->dev.sm_count : 1);
        mc_plan *p = plan_of(text, err);
        if (!p) return err->code;
        if (g == 0 && p->ewald)
            printf("case 12: alpha %.4g /nm, kmax %d, ksq_max %d: %d wave vectors (half set), %d sites\n", p->kspace.alpha,
                   p->kspace.kmax, p->kspace.ksq_max, p->kspace.nk, p->n);
        else if (g == 0)
            printf("case 13: damped shifted force, alpha %.4g /nm, cutoff %.4g nm, %d sites\n", p->species.coulomb_alpha,
                   p->species.coulomb_cutoff, p->n);
        row r = {names[g], 0, 2.0 * 3 * (p->n - 3), g ? b->rate[g == 1] : 0, cpu, 0};
        int rc = g ? time_run(p, &r.moves_per_s, err) : time_cpu(p, 0, 2 * p->nmol, &r.moves_per_s, err);
        mc_plan_destroy(p);
        MC_TRY(rc);
        if (g == 0) cpu = r.cpu_moves_per_s = r.moves_per_s;
        add_row(b->rows, &b->nrows, r);
    }
    return MC_OK;
}
static int case_spce(bench *b, mc_err *err)
{
    static const char *const names[3] = {"W1 SPC/E 256, Ewald, serial CPU", "12 SPC/E 256, Ewald, 4 chains/SM, GPU single",
                                         "12 SPC/E 256, Ewald, 4 chains/SM, GPU double"};
    return spce_rows(b, "ewald", names, err);
}
static int case_spce_dsf(bench *b, mc_err *err)
{
    static const char *const names[3] = {"W2 SPC/E 256, DSF, serial CPU", "13 SPC/E 256, DSF, 4 chains/SM, GPU single",
                                         "13 SPC/E 256, DSF, 4 chains/SM, GPU double"};
    return spce_rows(b, "dsf", names, err);
}

/* Case 14: the sweeps of a few chains that issue 45 names, as the examples give them (equilibration
 * 0, a short production), on the run's own path and on the many-chain kernel (gpu_batch_trials =
 * 1024 keeps chains under 4096 off the batched paths). */
static int case_few_chains(bench *b, mc_err *err)
{
    static const struct { const char *name, *ini; } shape[] = {
        {"argon 12x500", "[run]\nseed = 5\nproduction = 400\n[system]\nn = 500\nunits = real\n[potential]\n"
                         "preset = argon\ncutoff = 1.0215\ntail_correction = yes\n[ensemble]\ntemperature = 90, 150, 240\n"
                         "density = 18, 21\nreplicas = 2\nwidom = 100\n"},
        {"mixture 4x500", "[run]\nseed = 11\nproduction = 400\nsample_every = 10\n[potential]\ncutoff = 3.0\n"
                          "tail_correction = yes\n[mixture]\nspecies = A, B\ncounts = 400, 100\nsigma = 1.0, 1.2\n"
                          "epsilon = 1.0, 1.5\npair_epsilon = A-B:1.1\n[ensemble]\ntemperature = 2.0, 2.5\ndensity = 0.6\n"
                          "replicas = 2\nwidom = 200\n[rdf]\nbins = 150\n"},
        {"npt 10x500", "[run]\nseed = 2026\nproduction = 400\nsample_every = 5\n[system]\nn = 500\n[potential]\n"
                       "cutoff = 3.0\ntail_correction = yes\n[ensemble]\ntype = npt\ntemperature = 2.0\n"
                       "pressure = 0.5:2.5:5\ndensity = 0.5\nreplicas = 2\n[moves]\nmax_volume_step = 0.02\n"},
        {"morse 8x500", "[run]\nseed = 7\nproduction = 400\nsample_every = 10\n[system]\nn = 500\n[potential]\n"
                        "type = morse\nmorse_alpha = 6\nmorse_r0 = 1.1\nepsilon = 1\ncutoff = 2.5\ntail_correction = yes\n"
                        "[ensemble]\ntemperature = 1.5, 2.0\ndensity = 0.3, 0.6\nreplicas = 2\n"},
        {"1x4000 rc=2.5", "[run]\nseed = 3\nproduction = 40\nsample_every = 10\n[system]\nn = 4000\n[potential]\n"
                          "cutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\n"},
    };
    static char names[5][2][2][96]; /* [shape][single][many-chain kernel] */
    for (int k = 0; k < 5; k++)
        for (int s = 1; s >= 0; s--)
            for (int old = 0; old < 2; old++) {
                char text[1024];
                snprintf(text, sizeof text, "%s[run]\nequilibration = 0\nprecision = %s\ngpu_batch_trials = %d\n",
                         shape[k].ini, s ? "single" : "double", old ? 1024 : b->batch_trials);
                mc_plan *p = plan_of(text, err);
                if (!p) return err->code;
                mc_backend *probe = NULL; /* the path the run takes, for the row's name */
                const char *path = "?";
                mc_chain *c = mc_chain_create(p, 0, err);
                if (c && (probe = mc_backend_cuda.create(p, &c, 1, err))) path = mc_backend_cuda.path(probe);
                snprintf(names[k][s][old], sizeof names[k][s][old], "14 %s, %s, GPU %s", shape[k].name, path,
                         s ? "single" : "double");
                int same = old && k == 4; /* one chain of 4000 took the large-chain cell path before too */
                if (probe) mc_backend_cuda.destroy(probe);
                mc_chain_destroy(c);
                if (!probe) return mc_plan_destroy(p), err->code;
                row r = {names[k][s][old], 0, 2.0 * (p->n - 1), b->rate[s], 0, inside_pairs_per_move(p)};
                int rc = same ? MC_OK : time_run(p, &r.moves_per_s, err);
                mc_plan_destroy(p);
                MC_TRY(rc);
                if (!same) add_row(b->rows, &b->nrows, r);
            }
    return MC_OK;
}

/* The GPU cases in the table's order; a full run ends with the serial CPU rows (cpu_shapes). */
static const struct bench_case {
    const char *id;
    int (*run)(bench *b, mc_err *err);
} bench_cases[] = {{"1", case_many_chains}, {"2", case_batched},       {"3", case_cells},   {"4", case_exchange},
                   {"5", case_gibbs},       {"6", case_npt},           {"7", case_large_chains},
                   {"8", case_cluster},     {"9", case_benzene},       {"10", case_thesis},
                   {"11", case_gcmc},       {"12", case_spce},         {"13", case_spce_dsf},
                   {"14", case_few_chains}};
enum { NCASES = sizeof bench_cases / sizeof bench_cases[0] };

/* The table on f: a header line, then the rows (tsv: tab-separated, for --out). */
static int print_table(FILE *f, const char *title, const bench *b, int tsv)
{
    fprintf(f, tsv ? "# %s\n" : "\n%s\n", title);
    print_header(f, tsv);
    for (int k = 0; k < b->nrows; k++) print_row(f, &b->rows[k], tsv);
    return MC_OK;
}

/* The table on stdout and, with --out, into that file. */
static int write_tables(const char *title, const char *tsv_title, const bench *b, const char *out)
{
    print_table(stdout, title, b, 0);
    if (!out) return 0;
    FILE *f = fopen(out, "w");
    if (!f) return fprintf(stderr, "mcens-bench: cannot write %s\n", out), 1;
    print_table(f, tsv_title, b, 1);
    return fclose(f) == 0 ? 0 : (fprintf(stderr, "mcens-bench: cannot write %s\n", out), 1);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"out", required_argument, NULL, 'o'},
                                             {"case", required_argument, NULL, 'c'},
                                             {"chains", required_argument, NULL, 'n'},
                                             {"batch-trials", required_argument, NULL, 'k'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *out = NULL, *only = NULL;
    int chains_given = 0, ch;
    bench b = {0};
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o': out = optarg; break;
        case 'c': only = optarg; break;
        case 'n': chains_given = atoi(optarg); break;
        case 'k': b.batch_trials = atoi(optarg); break;
        case 'h': fputs(usage_text, stdout); return 0;
        default: fputs(usage_text, stderr); return 2;
        }
    }
    int known = !only || !strcmp(only, "cpu");
    for (int c = 0; only && c < NCASES; c++) known |= !strcmp(only, bench_cases[c].id);
    if (optind != argc || !known || chains_given < 0 || b.batch_trials < 0) return fputs(usage_text, stderr), 2;
    mc_err err = {0, ""};
    char title[512], tsv_title[512];
    if (only && !strcmp(only, "cpu")) { /* no GPU needed */
        if (cpu_shapes(b.rows, &b.nrows, &err) != MC_OK) return fprintf(stderr, "mcens-bench: %s\n", err.msg), 1;
        snprintf(title, sizeof title, "serial CPU backend, loops at %s", mc_cpu_isa());
        return write_tables(title, title, &b, out);
    }
    if (cu_device_bind(0, &b.dev, &err) != MC_OK) {
        fprintf(stderr, "mcens-bench: %s (--case cpu measures the CPU backend alone)\n", err.msg);
        return 1;
    }
    b.chains1 = chains_given ? chains_given : 32 * b.dev.sm_count;
    b.alone = only != NULL;
    for (int s = 0; s < 2; s++)
        if (cu_pair_rate(1 << 20, s, &b.rate[s], &err) != MC_OK) goto fail; /* enough blocks to fill every SM */
    fprintf(stderr, "measured: all-pairs rate %.4g (single), %.4g (double) pairs/s\n", b.rate[1], b.rate[0]);
    for (int c = 0; c < NCASES; c++)
        if ((!only || !strcmp(only, bench_cases[c].id)) && bench_cases[c].run(&b, &err) != MC_OK) goto fail;
    if (!only && cpu_shapes(b.rows, &b.nrows, &err) != MC_OK) goto fail;
    speedup_from(b.rows, b.nrows, '8', "K1");
    speedup_from(b.rows, b.nrows, '9', "D1");
    snprintf(title, sizeof title, "GPU: %s, %d SMs; case 1 with %d chains; all-pairs rate %.3g pairs/s (single), %.3g (double)",
             b.dev.name, b.dev.sm_count, b.chains1, b.rate[1], b.rate[0]);
    snprintf(tsv_title, sizeof tsv_title, "GPU %s; all-pairs rate single %.4g double %.4g pairs/s", b.dev.name,
             b.rate[1], b.rate[0]);
    return write_tables(title, tsv_title, &b, out);
fail:
    fprintf(stderr, "mcens-bench: %s\n", err.msg);
    return 1;
}
