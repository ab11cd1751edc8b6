/* mcens: Monte Carlo ensemble runner. main() is the one place that reports errors and ends the job:
 * config -> plan -> layout and device binding -> output file -> rounds -> pooling -> write -> rename. */
#include <getopt.h>
#include <pwd.h>
#include <unistd.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfg.h"
#include "ckpt.h"
#include "cpu_isa.h"
#include "cu_device.h"
#include "disk_room.h"
#include "ens.h"
#include "git_revision.h"
#include "h5out.h"
#include "h5start.h"
#include "mc_backend.h"
#include "mc_backend_table.h"
#include "mc_chain_state.h"
#include "mc_energy.h"
#include "h5out_energy.h"
#include "mc_equilibration.h"
#include "mc_exchange.h"
#include "mc_plan.h"
#include "mc_report.h"
#include "mc_results.h"
#include "mc_size.h"
#include "mc_snapshot.h"
#include "mc_run.h"
#include "mc_start.h"
#include "mc_start_xyz.h"
#include "mc_test_hooks.h"
#include "run_lock.h"
#include "traj.h"

/* Exit statuses (the README lists them): 0 done, 1 error, 2 bad command line, 3 stopped by a
 * signal or --stop-after after writing a checkpoint (continue with --restart). */
enum { EXIT_DONE = 0, EXIT_ERROR = 1, EXIT_USAGE = 2, EXIT_STOPPED = 3, EXIT_NOT_FINITE = 4 };

typedef struct options {
    const char *config_path, *output;
    int dry_run, quiet;
    int energy;        /* evaluate the start configurations' energy terms and write them, no moves */
    int restart;       /* continue from OUTPUT.ckpt */
    long extend;       /* > 0: add this many production sweeps to a finished run */
    double stop_after_s; /* > 0: stop with a checkpoint at the first round's end this long after the start */
} options;

static void usage(FILE *f)
{
    fprintf(f, "usage: mcens [options] CONFIG\n"
               "Run the Metropolis chains described by the INI file CONFIG and write one HDF5 file.\n"
               "Under MPI (mpirun -np N mcens CONFIG) the chains are spread over the ranks.\n\n"
               "  -h, --help       show this help and exit\n"
               "  -V, --version    show the version and exit\n"
               "  -n, --dry-run    parse and check CONFIG, print the plan, its wall time on this machine and every\n                   setting, exit\n"
               "  -o, --output F   write F instead of [run] output\n"
               "      --energy     evaluate every chain's starting configuration term by term (no moves): print\n"
               "                   the table and write it to the output as /energy\n"
               "  -q, --quiet      no progress lines or summary table\n"
               "      --restart    continue the run from its checkpoint (OUTPUT.ckpt), bit for bit\n"
               "      --extend N   add N production sweeps to a finished run, from its last checkpoint\n"
               "      --stop-after S  stop as a stop signal would (a checkpoint, status 3) at the first round's\n"
               "                   end S seconds after the start: a batch job's time limit without a signal\n"
               "      --config-reference  print every config key with its default (Markdown)\n"
               "      --output-reference  print the output rows of the per-sample observables (Markdown)\n"
               "      --test-hooks the environment variables through which the tests inject failures\n");
}

/* 0: run; 1: exit 0 now (help, version); 2: usage error. Same answer on every rank. */
static int parse_options(int argc, char **argv, options *o, int rank)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},   {"version", no_argument, NULL, 'V'},
        {"dry-run", no_argument, NULL, 'n'}, {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},  {"config-reference", no_argument, NULL, 'R'},
        {"output-reference", no_argument, NULL, 'O'}, {"restart", no_argument, NULL, 'r'},
        {"extend", required_argument, NULL, 'e'}, {"test-hooks", no_argument, NULL, 'T'},
        {"energy", no_argument, NULL, 'E'}, {"stop-after", required_argument, NULL, 'S'},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    opterr = rank == 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "hVno:q", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': if (rank == 0) usage(stdout); return 1;
        case 'V': if (rank == 0) printf("mcens %s (%s)\n", PACKAGE_VERSION, MCENS_GIT_REVISION); return 1;
        case 'n': o->dry_run = 1; break;
        case 'o': o->output = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'R': if (rank == 0) cfg_print_reference(stdout); return 1;
        case 'O': if (rank == 0) mc_observables_print_reference(stdout); return 1;
        case 'T': if (rank == 0) mc_test_hooks_print(stdout); return 1;
        case 'r': o->restart = 1; break;
        case 'E': o->energy = 1; break;
        case 'e': {
            char *end;
            o->extend = strtol(optarg, &end, 10);
            if (*end || o->extend <= 0 || o->extend > 1000000000000L) {
                if (rank == 0) fprintf(stderr, "mcens: --extend %s: expected a number of sweeps from 1 to 1e12\n", optarg);
                return 2;
            }
            break;
        }
        case 'S': {
            char *end;
            o->stop_after_s = strtod(optarg, &end);
            if (*end || end == optarg || !(o->stop_after_s > 0) || o->stop_after_s > 1e9) {
                if (rank == 0) fprintf(stderr, "mcens: --stop-after %s: expected seconds, above 0 and at most 1e9\n", optarg);
                return 2;
            }
            break;
        }
        default: if (rank == 0) usage(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        if (rank == 0) {
            fprintf(stderr, "mcens: expected exactly one CONFIG file\n");
            usage(stderr);
        }
        return 2;
    }
    o->config_path = argv[optind];
    if (o->restart && o->extend) {
        if (rank == 0) fprintf(stderr, "mcens: --restart and --extend: give one (--extend also continues)\n");
        return 2;
    }
    if (o->energy && (o->restart || o->extend || o->dry_run)) {
        if (rank == 0) fprintf(stderr, "mcens: --energy evaluates the starting configurations: not with --restart, "
                                       "--extend or --dry-run\n");
        return 2;
    }
    return 0;
}

/* One line per rank: where it runs, its chains, its backend and device (and the GPU its kernels
 * are shaped for, where that is another: agree_gpu_shape). */
/* Whether an NVIDIA MPS control daemon is up for this process: its control pipe, where CUDA's
 * clients look for it (CUDA_MPS_PIPE_DIRECTORY, else /tmp/nvidia-mps). */
static int mps_daemon_found(void)
{
    const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
    char control[PATH_MAX];
    snprintf(control, sizeof control, "%s/control", dir && *dir ? dir : "/tmp/nvidia-mps");
    return access(control, F_OK) == 0;
}

/* ", shared by K ranks ..." when other ranks of this node bind the same GPU (local rank mod the
 * GPU count): without MPS they time-slice it, each running at about 1/K of its speed. */
static void describe_sharing(const ens_layout *l, const cu_device_info *dev, char *out, size_t size)
{
    int ranks = 0;
    for (int r = 0; r < l->local_size; r++) ranks += r % dev->count == dev->index;
    out[0] = '\0';
    if (ranks < 2) return;
    if (mps_daemon_found())
        snprintf(out, size, ", shared by %d ranks of this node: NVIDIA MPS serves them side by side", ranks);
    else
        snprintf(out, size, ", shared by %d ranks of this node without NVIDIA MPS: they time-slice it (start the MPS "
                 "daemon first, as jobscripts/ do, or run one rank a GPU)", ranks);
}

static int log_binding(const ens_layout *l, const char *backend, int have_gpu, int uses_gpu, const cu_device_info *dev,
                       const mc_plan *plan, const char *no_gpu_reason, mc_err *err)
{
    char line[1000], device[620], shaped[100] = "", shared[200] = "";
    const int shaped_elsewhere = have_gpu && plan->gpu_sm_count > 0 &&
                                 (plan->gpu_sm_count != dev->sm_count || plan->gpu_smem_per_block != dev->smem_per_block);
    if (shaped_elsewhere)
        snprintf(shaped, sizeof shaped, ", kernels shaped for %d SMs and %d bytes of shared memory a block",
                 plan->gpu_sm_count, plan->gpu_smem_per_block);
    if (uses_gpu) describe_sharing(l, dev, shared, sizeof shared);
    if (have_gpu)
        snprintf(device, sizeof device, "GPU %d of %d: %s [%s] %.1f GiB%s%s", dev->index, dev->count,
                 dev->name, dev->pci_bus, dev->memory_gib, shaped, shared);
    else
        snprintf(device, sizeof device, "no GPU (%s)", no_gpu_reason);
    snprintf(line, sizeof line, "rank %d/%d on %s (local rank %d): chains %d-%d, backend %s, %s",
             l->rank, l->size, l->host, l->local_rank, l->first_chain,
             l->first_chain + l->nchains - 1, backend, device);
    return ens_print_ordered(l, line, stdout, err);
}

/* One word per rank (its host, its CPU level), space separated in rank order, on every rank (an
 * attribute every rank must write alike). */
static int gather_words(const ens_layout *l, const char *mine, char **words, mc_err *err)
{
    enum { WORD = 256 };
    char own[WORD], *all = malloc((size_t)l->size * WORD);
    *words = malloc((size_t)l->size * WORD);
    /* agreed before the collective: a rank that cannot allocate must not leave the others in it */
    int rc = ens_agree(l->comm, all && *words ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory"), err);
    if (rc != MC_OK) return free(all), rc;
    snprintf(own, sizeof own, "%s", mine);
    rc = ens_mpi_check(MPI_Allgather(own, WORD, MPI_CHAR, all, WORD, MPI_CHAR, l->comm), "MPI_Allgather", err);
    (*words)[0] = '\0';
    for (int r = 0; rc == MC_OK && r < l->size; r++) {
        if (r) strcat(*words, " ");
        strcat(*words, all + (size_t)r * WORD);
    }
    free(all);
    return rc;
}

typedef struct job {
    options opt;
    const mc_backend_ops *backend;
    char *text, *hosts, *cpu_isas; /* hosts and CPU levels (cpu_isa.h) of all ranks */
    char *start_text;              /* start = file or xyz: start_file's text, until the plan holds it */
    char *paths;                   /* the kernels or loops of all ranks (mc_backend_ops.path) */
    cfg config;
    int have_config;
    mc_plan *plan;
    ens_layout layout;
    ens_exchange exchange; /* replica exchange between the ranks' chains */
    int have_layout;
    h5out *out;          /* OUTPUT.part, from the first round on */
    traj *trajectory;    /* its frames */
    char author[256];    /* who runs mcens (rank 0's user), for /h5md/author */
    mc_run *run;
    mc_results *results;
    const char *output;  /* the output file: -o or [run] output */
    char *ckpt_file;     /* OUTPUT.ckpt */
    run_lock *lock;
    ckpt *resume_from;   /* --restart, --extend: the checkpoint, open until the chains are restored */
    int stopped_by;      /* the signal that stopped the run (ENS_STOPPED_BY_TIME: --stop-after), or 0 */
    double started_s;    /* MPI_Wtime() at the start: --stop-after counts from it */
    long not_finite;     /* /results values that are not finite (mc_report_warn_not_finite): exit status 4 */
    /* the run's segments (its start, restarts and extensions): the earlier ones from the checkpoint,
     * this one from its first sweep and wall-clock start; kept in checkpoints and /parameters@segments */
    char *segments_before, *segments;
    long segment_first_sweep;
    double segment_wtime;
    char segment_started[32];
} job;

/* What a checkpoint of this run records, and what one it continues must match. */
static ckpt_info checkpoint_info(const job *j)
{
    ckpt_info info = {j->text, PACKAGE_VERSION, MCENS_GIT_REVISION, j->backend->name,
                      j->backend != &mc_backend_cpu && j->plan->precision == CFG_PRECISION_SINGLE ? "single" : "double",
                      j->plan->production_sweeps, j->plan->gpu_sm_count, j->plan->gpu_smem_per_block,
                      j->segments ? j->segments : "", j->config.run.disk_full_wait_s};
    return info;
}

/* The segments so far, this one as far as it has got, into j->segments: a line each, "KIND: sweeps
 * FROM to TO of TOTAL, N ranks, mcens VERSION (REVISION), from UTC-TIME, S s of wall time". */
static int update_segments(job *j, mc_err *err)
{
    char kind[64];
    if (j->opt.extend) snprintf(kind, sizeof kind, "extend by %ld sweeps", j->opt.extend);
    else snprintf(kind, sizeof kind, "%s", j->opt.restart ? "restart" : "start");
    char line[512];
    snprintf(line, sizeof line, "%s: sweeps %ld to %ld of %ld, %d ranks, mcens %s (%s), from %s, %.1f s of wall time\n",
             kind, j->segment_first_sweep, mc_run_sweeps_done(j->run), mc_run_sweeps_total(j->run), j->layout.size,
             PACKAGE_VERSION, MCENS_GIT_REVISION, j->segment_started, MPI_Wtime() - j->segment_wtime);
    const char *before = j->segments_before ? j->segments_before : "";
    char *text = malloc(strlen(before) + strlen(line) + 1);
    if (!text) MC_FAIL(err, MC_ENOMEM, "out of memory");
    sprintf(text, "%s%s", before, line);
    free(j->segments);
    j->segments = text;
    return MC_OK;
}

/* --restart, --extend: open the checkpoint and take the run's production from it (plus the
 * extension) before the plan is made. */
static int open_checkpoint(job *j, mc_err *err)
{
    if (!(j->resume_from = ckpt_open(MPI_COMM_WORLD, j->ckpt_file, err))) return err->code;
    long equilibration = j->config.run.equilibration_sweeps, every = j->config.run.sample_every_sweeps;
    if (j->opt.extend && !ckpt_finished(j->resume_from, equilibration))
        MC_FAIL(err, MC_EINVAL, "%s: the run stopped at sweep %ld of %ld: continue it with --restart before "
                "extending it", j->ckpt_file, ckpt_sweeps_done(j->resume_from),
                equilibration + ckpt_production_sweeps(j->resume_from));
    if (j->opt.extend % every != 0)
        MC_FAIL(err, MC_EINVAL, "--extend %ld: must be a multiple of [run] sample_every = %ld (%s:%d)",
                j->opt.extend, every, j->config.filename, cfg_line(&j->config, "run", "sample_every"));
    j->config.run.production_sweeps = ckpt_production_sweeps(j->resume_from) + j->opt.extend;
    return MC_OK;
}

/* [run] backend, through the backend table (mc_backend_table.h); rank 0 says why auto passed over
 * its GPU. */
static int choose_backend(job *j, int have_gpu, const char *no_gpu_reason, mc_err *err)
{
    char note[256];
    MC_TRY(mc_backend_choose(j->plan, &j->config, have_gpu, no_gpu_reason, j->layout.rank, j->layout.host, &j->backend,
                             note, sizeof note, err));
    if (*note && j->layout.rank == 0 && !j->opt.quiet) fprintf(stderr, "mcens: note: %s\n", note);
    return MC_OK;
}

/* The GPU that every rank chooses its kernel shapes for (mc_plan.gpu_sm_count): the smallest SM
 * count and shared memory a block of the run's GPUs; a restart keeps the checkpointed run's
 * (a larger SM count only launches more blocks than fit at once), and its shared memory where
 * this run's GPUs have as much. Collective, after the ranks agreed on their binding. */
static int agree_gpu_shape(job *j, const cu_device_info *dev, mc_err *err)
{
    int mine[2] = {dev ? dev->sm_count : INT_MAX, dev ? dev->smem_per_block : INT_MAX}, least[2];
    MC_TRY(ens_mpi_check(MPI_Allreduce(mine, least, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce", err));
    if (least[0] == INT_MAX) return MC_OK; /* no rank has a GPU */
    mc_plan *p = j->plan;
    p->gpu_sm_count = least[0], p->gpu_smem_per_block = least[1];
    long sm_then = 0, smem_then = 0;
    if (j->resume_from) ckpt_gpu_shape(j->resume_from, &sm_then, &smem_then);
    if (sm_then < 0 || sm_then > INT_MAX || smem_then < 0 || smem_then > INT_MAX) /* the same on every rank */
        MC_FAIL(err, MC_EINVAL, "%s: its GPU of %ld SMs and %ld bytes of shared memory a block is out of range "
                "(corrupt checkpoint?)", j->ckpt_file, sm_then, smem_then);
    if (sm_then > 0) p->gpu_sm_count = (int)sm_then;
    if (smem_then > 0 && smem_then <= least[1]) p->gpu_smem_per_block = (int)smem_then;
    else if (smem_then > least[1] && j->layout.rank == 0)
        fprintf(stderr, "mcens: warning: the checkpointed run chose its GPU kernels for %ld bytes of shared memory "
                "a block, this run's GPUs allow %d: molecules and the chain kernel's cell lists may take another "
                "path, and their last bits differ from those of the run uninterrupted\n", smem_then, least[1]);
    return MC_OK;
}

/* What a write between or after the rounds may take beyond the stall deadline: its bytes at a slow
 * file system's rate (a wait for room on a full one extends the deadline as it starts). */
static const double slow_file_system_bytes_per_s = 1e6;

/* The setup's deadline (ens_watchdog): the setup waits in blocking collectives (the config's and
 * start's broadcasts, the layout, HDF5's opens), where a rank stopped or hung before the rounds
 * (SIGSTOP on a loaded machine lands there: issue 44) would leave the others waiting for ever. It
 * allows the stall deadline, 10 s of local work, and the bytes the setup reads (a checkpoint, a
 * start file, the chains' state) at a slow file system's rate. The chains' construction is outside
 * it: the ranks meet after it in a polled agreement (ens_agree_within) that allows each rank the
 * stall deadline and ten times its own construction time, as the rounds do. Before the config is
 * read the deadline is that of [run] stall_timeout's default. */
#define SETUP_DEADLINE_BEFORE_CONFIG_S (300.0 + 10.0)
static double file_bytes(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 ? (double)st.st_size : 0.0;
}
static int arm_setup_deadline(const job *j, const char *what, mc_err *err)
{
    double bytes = j->plan ? (double)mc_state_bytes_per_chain(j->plan) * j->plan->nchains : 0.0;
    if (j->opt.restart || j->opt.extend) bytes += 2.0 * file_bytes(j->ckpt_file);
    if (j->config.system.start != CFG_START_LATTICE && j->config.system.start != CFG_START_MELT)
        bytes += 2.0 * file_bytes(j->config.system.start_file);
    return ens_watchdog_arm_early(j->config.run.stall_timeout_s + 10.0 + bytes / slow_file_system_bytes_per_s, what, err);
}

/* MC_TEST_STOP_IN_SETUP "R:WHERE": rank R stops itself at `where` (plan, chains). */
static void stop_in_setup(const char *where)
{
    const char *hook = mc_test_hook(MC_TEST_STOP_IN_SETUP);
    int rank, r;
    char at[16];
    if (hook && sscanf(hook, "%d:%15s", &r, at) == 2 && MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS &&
        r == rank && strcmp(at, where) == 0)
        raise(SIGSTOP);
}

/* The ranks meet after work of their own that ran unarmed (building the chains, timing them for
 * --dry-run, evaluating them for --energy), in a polled agreement that allows the stall deadline
 * plus ten times this rank's own time (so that an imbalance between ranks is no stall); then the
 * setup's deadline guards the blocking collectives of `next`. */
static int agree_after_own_work(const job *j, int status, double started_s, const char *where, const char *next,
                                mc_err *err)
{
    MC_TRY(ens_agree_within(&j->layout, status, j->config.run.stall_timeout_s + 10.0 * (MPI_Wtime() - started_s),
                            where, err));
    return arm_setup_deadline(j, next, err);
}

/* start = file or xyz: the start file, read once on rank 0 (ens_read_text) and checked alike on
 * every rank: before the plan (planned = 0, xyz) its frame's box taken for the density; after it
 * the starting configuration into the plan, and the text let go. */
static int read_start(job *j, int planned, mc_err *err)
{
    if (!j->start_text) MC_TRY(ens_read_text(MPI_COMM_WORLD, j->config.system.start_file, &j->start_text, err));
    if (!planned) return mc_start_xyz_density(&j->config, j->start_text, err);
    int rc = j->plan->start == CFG_START_XYZ ? mc_start_xyz_load(j->plan, &j->config, j->start_text, err)
                                             : mc_start_load(j->plan, j->start_text, err);
    free(j->start_text);
    j->start_text = NULL;
    return rc;
}

static int setup(job *j, mc_err *err)
{
    MC_TRY(ens_watchdog_arm_early(SETUP_DEADLINE_BEFORE_CONFIG_S, "the run's setup (reading the config)", err));
    MC_TRY(ens_read_text(MPI_COMM_WORLD, j->opt.config_path, &j->text, err));
    /* every rank parses the same text, so every rank fails alike and needs no agreement */
    MC_TRY(cfg_parse(&j->config, j->text, j->opt.config_path, err));
    j->have_config = 1;
    MC_TRY(arm_setup_deadline(j, "the run's setup", err)); /* its reads: the checkpoint's, the start file's */
    j->output = j->opt.output ? j->opt.output : j->config.run.output;
    if (!(j->ckpt_file = ckpt_path(j->output))) MC_FAIL(err, MC_ENOMEM, "out of memory");
    /* before anything reads or writes the run's files, so that a second run on them waits its turn */
    if (!j->opt.dry_run && !(j->lock = run_lock_take(MPI_COMM_WORLD, j->output, err))) return err->code;
    if (j->opt.restart || j->opt.extend) MC_TRY(open_checkpoint(j, err)); /* its checks read the whole checkpoint */
    if (j->config.system.start == CFG_START_XYZ) /* its box may give the density the plan is made at */
        MC_TRY(read_start(j, 0, err));
    if (!(j->plan = mc_plan_create(&j->config, err))) return err->code;
    /* from here the reads scale with the chains' state too (an earlier output's frames) */
    MC_TRY(arm_setup_deadline(j, "the run's setup", err));
    stop_in_setup("plan");
    if (j->plan->start == CFG_START_FILE || j->plan->start == CFG_START_XYZ) MC_TRY(read_start(j, 1, err));
    MC_TRY(ens_layout_init(&j->layout, MPI_COMM_WORLD, j->plan->nchains, err));
    j->have_layout = 1;
    if (j->plan->start == CFG_START_XYZ && j->layout.rank == 0 && !j->opt.quiet)
        printf("start = xyz: every chain starts from the last frame of %s (box %.6g %s%s)\n", j->plan->start_file,
               j->plan->frames.box[0], j->plan->units.length,
               j->plan->periodic ? "; a state point's other box scales it affinely" : "");
    /* start = h5: each rank reads its chains' last frames (a restart too: the chains are built
     * from them before the checkpoint replaces their state) */
    MC_TRY(h5start_load(j->plan, &j->layout, j->opt.quiet ? NULL : stdout, err));
    /* rank 0 holds the most chains (the block layout); the same verdict on every rank */
    MC_TRY(mc_plan_check_host_memory(j->plan, &j->config, j->layout.chains_of[0], mc_host_memory_bytes(), err));
    cu_device_info dev;
    mc_err dev_err = {0, ""};
    int have_gpu = cu_device_bind(j->layout.local_rank, &dev, &dev_err) == MC_OK;
    /* no GPU means the CPU backend; a GPU that is there but fails is an error on that rank */
    int bind_rc = have_gpu || dev_err.code == MC_ENODEV ? MC_OK : mc_err_set(err, dev_err.code, "%s", dev_err.msg);
    if (bind_rc == MC_OK) bind_rc = choose_backend(j, have_gpu, dev_err.msg, err);
    MC_TRY(ens_agree(MPI_COMM_WORLD, bind_rc, err));
    /* a rank that runs the CPU backend beside a GPU shapes no kernels */
    const int uses_gpu = have_gpu && j->backend == &mc_backend_cuda;
    MC_TRY(agree_gpu_shape(j, uses_gpu ? &dev : NULL, err));
    char backend[64];
    if (j->backend == &mc_backend_cpu)
        snprintf(backend, sizeof backend, "cpu (double, %s loops)", mc_cpu_isa());
    else
        snprintf(backend, sizeof backend, "%s (%s)", j->backend->name,
                 j->plan->precision == CFG_PRECISION_SINGLE ? "single" : "double");
    if (!j->opt.quiet || j->opt.dry_run)
        MC_TRY(log_binding(&j->layout, backend, have_gpu, uses_gpu, &dev, j->plan, dev_err.msg, err));
    if (j->plan->ewald && j->layout.rank == 0 && (!j->opt.quiet || j->opt.dry_run)) {
        const ewald_kspace *k = &j->plan->kspace;
        printf("Ewald sum: alpha %.6g per %s, real-space cutoff %.6g, kmax %d, ksq_max %d (%d wave vectors, half set)\n",
               k->alpha, j->plan->units.length, j->plan->species.coulomb_cutoff, k->kmax, k->ksq_max, k->nk);
    } else if (j->plan->charged && j->layout.rank == 0 && (!j->opt.quiet || j->opt.dry_run)) {
        printf("Damped shifted force: alpha %.6g per %s, cutoff %.6g\n", j->plan->species.coulomb_alpha,
               j->plan->units.length, j->plan->species.coulomb_cutoff);
    }
    if (j->resume_from) {
        ckpt_info now = checkpoint_info(j);
        MC_TRY(ckpt_check(j->resume_from, &now, j->opt.config_path, err));
    }
    /* every rank writes the same /h5md/author: rank 0's user */
    const char *user = getenv("USER") ? getenv("USER") : getenv("LOGNAME");
    const struct passwd *pw = user && *user ? NULL : getpwuid(getuid()); /* root's shell may set neither */
    if (pw) user = pw->pw_name;
    snprintf(j->author, sizeof j->author, "%s", user && *user ? user : "unknown");
    MC_TRY(ens_mpi_check(MPI_Bcast(j->author, sizeof j->author, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast", err));
    MC_TRY(gather_words(&j->layout, mc_cpu_isa(), &j->cpu_isas, err));
    return gather_words(&j->layout, j->layout.host, &j->hosts, err);
}

/* npt and gibbs: a word on the production volume moves that the minimum-image floor rejected (mc_run.c
 * stops a chain pinned there; a few leave the averages those of the boxes above the floor). */
static int warn_volume_floor(const job *j, mc_err *err)
{
    if (!j->plan->ensemble->volume_moves) return MC_OK;
    double hits = 0.0, worst = 0.0; /* summed over chains; the largest fraction of one chain's moves */
    for (int k = 0; k < mc_run_nchains(j->run); k++) {
        const mc_chain *c = mc_run_chain(j->run, k);
        double moves = (double)(c->volume_moves - c->production_volume_moves0);
        hits += (double)c->production_volume_floor_hits;
        if (moves > 0) worst = fmax(worst, c->production_volume_floor_hits / moves);
    }
    MC_TRY(ens_mpi_check(MPI_Allreduce(MPI_IN_PLACE, &hits, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce", err));
    MC_TRY(ens_mpi_check(MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce", err));
    if (hits > 0 && j->layout.rank == 0)
        fprintf(stderr, "mcens: warning: %.0f production volume moves were rejected because the box would have "
                "gone below %g, twice the cutoff or the RDF range (up to %.3g%% of one chain's): the %s averages "
                "are those of the boxes above it\n", hits, j->plan->min_box_len, 100.0 * worst,
                j->plan->ensemble->title);
    return MC_OK;
}

/* ens_drive's checkpoint: the state of every chain to OUTPUT.ckpt, and its cost in the log. */
static int write_checkpoint(void *ctx, mc_err *err)
{
    job *j = ctx;
    MC_TRY(update_segments(j, err));
    ckpt_info info = checkpoint_info(j);
    double bytes, seconds;
    /* the frames this checkpoint counts are on disk first, and from now on a failed run keeps them;
     * the flush writes HDF5's cached metadata, whose room is claimed as a write's is (disk_room.h) */
    MC_TRY(disk_room_claim(MPI_COMM_WORLD, h5out_ds(j->out)->part, 0, traj_flush_bytes(j->trajectory),
                           j->config.run.disk_full_wait_s, "the trajectory's flush", err));
    MC_TRY(traj_flush(j->trajectory, err));
    h5out_keep(j->out);
    MC_TRY(ckpt_write(MPI_COMM_WORLD, j->ckpt_file, &info, j->run, j->layout.first_chain, &bytes, &seconds, err));
    if (!j->opt.quiet && j->layout.rank == 0) {
        printf("checkpoint after sweep %ld: %s, %.4g MB in %.3f s\n", mc_run_sweeps_done(j->run), j->ckpt_file,
               bytes / 1e6, seconds);
        fflush(stdout);
    }
    return MC_OK;
}

/* ens_drive's after_round: the trajectory frame that falls due. */
static int write_frame(void *ctx, mc_err *err)
{
    job *j = ctx;
    return traj_after_round(j->trajectory, j->run, err);
}

/* The output file from the first round on: a new one, or the one a resumed run left (its
 * trajectory so far). */
static int open_output(job *j, int resumed, mc_err *err)
{
    int replace = j->config.run.overwrite || j->opt.extend;
    if (!resumed) {
        if (!(j->out = h5out_create(MPI_COMM_WORLD, j->output, replace, err))) return err->code;
        j->trajectory = traj_create(j->out, j->plan, j->run, j->layout.first_chain, j->author, PACKAGE_VERSION, err);
    } else {
        if (!(j->out = h5out_reopen(MPI_COMM_WORLD, j->output, replace, err))) return err->code;
        j->trajectory = traj_reopen(j->out, j->plan, j->run, j->layout.first_chain, mc_run_chain(j->run, 0)->nsamples, err);
    }
    return j->trajectory ? MC_OK : err->code;
}


/* checkpoint_every = 0: the end's checkpoint was there only until the output was written. */
static void remove_final_checkpoint(const job *j)
{
    char prev[4096];
    snprintf(prev, sizeof prev, "%s.prev", j->ckpt_file);
    unlink(j->ckpt_file);
    unlink(prev);
}

/* mcens --dry-run: the wall time of the run on this machine, from a calibration of every rank's
 * own chains on its own backend (mc_run_calibrate, about a third of a second of sweeps), the
 * slowest rank's; NaN where the test hook turns it off. */
static int estimate_wall_time(job *j, mc_run_cost *cost, double *seconds, mc_err *err)
{
    *seconds = NAN;
    memset(cost, 0, sizeof *cost);
    if (mc_test_hook(MC_TEST_NO_ESTIMATE)) return MC_OK;
    const double started = MPI_Wtime();
    mc_run *run = mc_run_create(j->plan, j->backend, j->layout.first_chain, j->layout.nchains, err);
    int rc = run ? mc_run_calibrate(run, 0.3, cost, err) : err->code;
    mc_run_destroy(run);
    stop_in_setup("chains");
    MC_TRY(agree_after_own_work(j, rc, started, "after timing its chains", "the wall-time estimate's end", err));
    double mine = mc_run_cost_seconds(j->plan, cost);
    return ens_mpi_check(MPI_Allreduce(&mine, seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce", err);
}

/* mcens --energy: every chain's starting configuration term by term (mc_energy), on the rank that
 * holds it; rank 0 prints the table, and the output gets /energy. */
static int evaluate_energy(job *j, mc_err *err)
{
    const mc_plan *p = j->plan;
    double (*terms)[MC_NENERGY_TERMS] = calloc((size_t)p->nchains, sizeof *terms);
    int rc = terms ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory for the energy terms");
    const double started = MPI_Wtime();
    for (int k = 0; rc == MC_OK && k < j->layout.nchains; k++) {
        int id = j->layout.first_chain + k;
        mc_chain *c = mc_chain_create(p, id, err);
        rc = c ? mc_energy_terms(p, c, terms[id], err) : err->code;
        mc_chain_destroy(c);
    }
    stop_in_setup("chains");
    rc = agree_after_own_work(j, rc, started, "after evaluating its chains",
                              "the energy table's pooling and write", err);
    /* each rank filled its own rows, the others are 0: a sum gathers them */
    if (rc == MC_OK)
        rc = ens_mpi_check(MPI_Allreduce(MPI_IN_PLACE, terms, p->nchains * MC_NENERGY_TERMS, MPI_DOUBLE, MPI_SUM,
                                         MPI_COMM_WORLD), "MPI_Allreduce", err);
    if (rc == MC_OK && j->layout.rank == 0) mc_report_energy(p, (const double(*)[MC_NENERGY_TERMS])terms);
    h5out *out = NULL;
    if (rc == MC_OK) rc = (out = h5out_create(MPI_COMM_WORLD, j->output, j->config.run.overwrite, err)) ? MC_OK : err->code;
    if (rc == MC_OK)
        rc = h5out_energy_write(h5out_ds(out), p, (const double(*)[MC_NENERGY_TERMS])terms, j->text, err);
    if (out) {
        mc_err close_err = {MC_OK, ""};
        int closed = h5out_close(out, rc == MC_OK ? H5OUT_COMMIT : H5OUT_DISCARD, &close_err);
        if (rc == MC_OK && closed != MC_OK) rc = closed, *err = close_err;
    }
    free(terms);
    return rc;
}

static int run_and_write(job *j, mc_err *err)
{
    /* the output holds about what the last checkpoint does (series and positions): room for it
     * and three checkpoints (the one being written beside the last good one and the one before it,
     * OUTPUT.ckpt.prev) */
    double checkpoint_bytes = (double)mc_state_bytes_per_chain(j->plan) * j->plan->nchains;
    double trajectory_bytes = mc_snapshot_frames(j->plan) * mc_snapshot_frame_bytes(j->plan);
    MC_TRY(run_lock_preflight(j->lock, j->config.run.overwrite || j->opt.extend, !j->resume_from,
                              4.0 * checkpoint_bytes + trajectory_bytes, err));
    /* the chains and the backend first: a start that cannot be built, or a device that cannot hold
     * the chains, fails before any compute */
    ens_watchdog_disarm(); /* the chains' construction may take long: the polled agreement below guards it */
    const double build_started = MPI_Wtime();
    if (j->resume_from) {
        ckpt_bind(j->resume_from, j->plan, j->layout.first_chain);
        j->run = mc_run_resume(j->plan, j->backend, j->layout.first_chain, j->layout.nchains, ckpt_restore,
                               j->resume_from, err);
    } else {
        j->run = mc_run_create(j->plan, j->backend, j->layout.first_chain, j->layout.nchains, err);
    }
    stop_in_setup("chains");
    MC_TRY(agree_after_own_work(j, j->run ? MC_OK : err->code, build_started, "after building its chains",
                                "the run's start (the output's creation)", err));
    MC_TRY(gather_words(&j->layout, mc_run_path(j->run), &j->paths, err));
    if (!j->opt.quiet && j->layout.rank == 0) printf("paths by rank: %s\n", j->paths);
    MC_TRY(ens_agree(MPI_COMM_WORLD, ens_exchange_attach(&j->exchange, &j->layout, j->run,
                                                         j->config.run.stall_timeout_s, err), err));
    int resumed = j->resume_from != NULL;
    if (resumed && !(j->segments_before = strdup(ckpt_segments(j->resume_from)))) MC_FAIL(err, MC_ENOMEM, "out of memory");
    j->segment_first_sweep = mc_run_sweeps_done(j->run);
    j->segment_wtime = MPI_Wtime();
    if (j->layout.rank == 0) { /* rank 0's clock, as every rank records it */
        time_t now = time(NULL);
        strftime(j->segment_started, sizeof j->segment_started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    }
    MC_TRY(ens_mpi_check(MPI_Bcast(j->segment_started, sizeof j->segment_started, MPI_CHAR, 0, MPI_COMM_WORLD),
                         "MPI_Bcast", err));
    ckpt_close(j->resume_from); /* read: the next checkpoint replaces it */
    j->resume_from = NULL;
    MC_TRY(open_output(j, resumed, err));
    ckpt_info about = checkpoint_info(j);
    double write_bytes = 2.0 * ckpt_bytes(j->plan, &about); /* a checkpoint, or the output's results */
    ens_schedule schedule = {j->opt.quiet, 60.0 * j->config.run.checkpoint_every_min,
                             j->config.run.stall_timeout_s, write_frame, write_checkpoint,
                             write_bytes / slow_file_system_bytes_per_s, j,
                             j->opt.stop_after_s > 0 ? j->started_s + j->opt.stop_after_s : 0.0};
    ens_outcome done;
    ens_watchdog_disarm(); /* the rounds have their own deadline */
    MC_TRY(ens_drive(&j->layout, j->run, &schedule, &done, err));
    /* from here to MPI_Finalize every wait is a blocking collective (the pooling reductions, HDF5's,
     * MPI's end): a rank that stops now must not leave the others waiting */
    double deadline = j->config.run.stall_timeout_s + 10.0 * (done.longest_round_s + done.longest_checkpoint_s) +
                      write_bytes / slow_file_system_bytes_per_s;
    MC_TRY(ens_watchdog_arm(&j->layout, deadline, "the end of the run (pooling, the output write, MPI's end)", err));
    if (done.stopped_by) {
        j->stopped_by = done.stopped_by;
        char why[96];
        if (done.stopped_by == ENS_STOPPED_BY_TIME) snprintf(why, sizeof why, "at --stop-after %g s", j->opt.stop_after_s);
        else snprintf(why, sizeof why, "by signal %d (%s)", done.stopped_by, strsignal(done.stopped_by));
        if (j->layout.rank == 0)
            fprintf(stderr, "mcens: stopped %s after sweep %ld of %ld; the run's state is in %s: "
                    "continue it with mcens --restart%s%s %s\n", why,
                    mc_run_sweeps_done(j->run), mc_run_sweeps_total(j->run), j->ckpt_file,
                    j->opt.output ? " -o " : "", j->opt.output ? j->opt.output : "", j->opt.config_path);
        return MC_OK;
    }
    MC_TRY(traj_write_final(j->trajectory, j->run, err));
    double moves = (double)j->plan->nchains * done.sweeps_run * j->plan->nmol;
    double moves_per_second = done.seconds > 0 ? moves / done.seconds : 0.0;
    j->results = mc_results_create(j->plan, err);
    MC_TRY(ens_agree(MPI_COMM_WORLD, j->results ? MC_OK : err->code, err));
    MC_TRY(ens_pool(&j->layout, j->plan, j->run, j->results, err));
    MC_TRY(mc_results_check_finite(j->plan, j->results, err));
    MC_TRY(warn_volume_floor(j, err));
    if (j->layout.rank == 0) mc_report_warn_not_stationary(j->plan, j->results);
    if (j->layout.rank == 0) mc_report_warn_no_exchange(j->plan, j->results);
    j->not_finite = mc_report_warn_not_finite(j->plan, j->results, j->layout.rank == 0);
    if (!j->opt.quiet && j->layout.rank == 0) { /* before the write: a failed write leaves the numbers in the log */
        mc_report_summary(j->plan, j->results);
        /* a sweep is one move per molecule (per particle for atoms) */
        printf("\n%d chains x %ld sweeps x %d %s in %.2f s: %.4g moves/s on %d ranks\n",
               j->plan->nchains, done.sweeps_run, j->plan->nmol, j->plan->rigid ? "molecules" : "particles",
               done.seconds, moves_per_second, j->layout.size);
        if (done.checkpoint_seconds > 0) printf("checkpoints took %.3f s besides\n", done.checkpoint_seconds);
        if (done.after_round_seconds > 0) printf("trajectory frames took %.3f s besides\n", done.after_round_seconds);
        fflush(stdout);
    }
    MC_TRY(update_segments(j, err));
    h5out_info info = {j->text, j->opt.config_path, PACKAGE_VERSION, MCENS_GIT_REVISION,
                       j->hosts, j->backend->name, j->plan->units.system, j->cpu_isas, j->paths, j->layout.size,
                       j->plan->gpu_sm_count, j->plan->gpu_smem_per_block, done.seconds, moves_per_second,
                       j->segments};
    /* the write is collective, so rank 0's clock spans every rank's share of it */
    double write_start = MPI_Wtime();
    const char *stop_rank = mc_test_hook(MC_TEST_STOP_IN_WRITE);
    if (stop_rank && atoi(stop_rank) == j->layout.rank) raise(SIGSTOP); /* the watchdog's test */
    MC_TRY(disk_room_claim(MPI_COMM_WORLD, h5out_ds(j->out)->part, 0, write_bytes, j->config.run.disk_full_wait_s,
                           "the output", err));
    /* a write that fails now leaves HDF5 unable to close the file: it is abandoned (main) */
    MC_TRY(h5out_write(j->out, &info, j->plan, j->run, j->layout.first_chain, j->results, err));
    MC_TRY(traj_write_observables(j->trajectory, j->run, err));
    traj_close(j->trajectory);
    j->trajectory = NULL;
    h5out *out = j->out;
    j->out = NULL;
    MC_TRY(h5out_close(out, H5OUT_COMMIT, err));
    if (j->layout.rank == 0) {
        disk_room_trim(j->output);
        if (j->config.run.checkpoint_every_min == 0) remove_final_checkpoint(j);
    }
    if (!j->opt.quiet && j->layout.rank == 0) printf("wrote %s in %.3f s\n", j->output, MPI_Wtime() - write_start);
    return MC_OK;
}

/* halt: the job ends without closing HDF5 (MC_EHALT, h5out.h), so the open output is abandoned
 * and its trajectory's HDF5 objects are left as they are. */
static void job_fini(job *j, int halt)
{
    if (!halt) traj_close(j->trajectory);
    /* an unfinished file is never renamed; it is removed unless a checkpoint counts its frames */
    h5out_close(j->out, halt ? H5OUT_ABANDON : H5OUT_DISCARD, NULL);
    ckpt_close(j->resume_from);
    run_lock_release(j->lock);
    free(j->ckpt_file);
    mc_results_destroy(j->results);
    mc_run_destroy(j->run);
    ens_exchange_detach(&j->exchange);
    if (j->have_layout) ens_layout_fini(&j->layout);
    mc_plan_destroy(j->plan);
    if (j->have_config) cfg_fini(&j->config);
    free(j->text);
    free(j->start_text); /* (set only when the setup failed before the plan took it) */
    free(j->hosts);
    free(j->segments_before);
    free(j->segments);
    free(j->cpu_isas);
    free(j->paths);
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "mcens: error: MPI_Init failed\n");
        return 1;
    }
    int rank;
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) {
        fprintf(stderr, "mcens: error: cannot set up MPI_COMM_WORLD\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    job j;
    memset(&j, 0, sizeof j);
    j.started_s = MPI_Wtime();
    int how = parse_options(argc, argv, &j.opt, rank);
    if (how != 0) {
        MPI_Finalize();
        return how == 1 ? EXIT_DONE : EXIT_USAGE;
    }
    mc_err err = {0, ""};
    int rc = j.opt.dry_run ? MC_OK : ens_signals_install(&err);
    if (rc == MC_OK) rc = setup(&j, &err);
    /* their own work, of any length, runs unarmed until the ranks agree after it (agree_after_own_work) */
    if (rc == MC_OK && (j.opt.dry_run || j.opt.energy)) ens_watchdog_disarm();
    if (rc == MC_OK && j.opt.dry_run) {
        /* the plan is printed even when the chains cannot be built and timed (and the run would
         * fail the same way): its memory and files say why */
        mc_run_cost cost;
        double wall_s;
        rc = estimate_wall_time(&j, &cost, &wall_s, &err);
        if (rank == 0) {
            mc_report_time time = {.cost = cost, .seconds = rc == MC_OK ? wall_s : NAN, .ranks = j.layout.size,
                                   .restart = j.resume_from != NULL, .why_not = rc == MC_OK ? NULL : err.msg};
            mc_report_plan(&j.config, j.plan, j.output, j.layout.chains_of[0], &time);
        }
    } else if (rc == MC_OK && j.opt.energy) {
        rc = evaluate_energy(&j, &err);
    } else if (rc == MC_OK) {
        rc = run_and_write(&j, &err);
    }
    if (rc != MC_OK && rank == 0) fprintf(stderr, "mcens: error: %s\n", err.msg);
    if (rc == MC_EMPI) {
        /* a rank whose MPI calls fail cannot be counted on to reach the next collective */
        fprintf(stderr, "mcens: rank %d: aborting the job after an MPI failure: %s\n", rank, err.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* a failed write (a full disk, a quota) leaves HDF5 unable to close the file; so does any file
     * error while the output is open, since its close would write to the same full disk */
    int halt = rc == MC_EHALT || (j.out && (rc == MC_EIO || rc == MC_EHDF5));
    job_fini(&j, halt);
    if (halt) {
        if (rank == 0)
            fprintf(stderr, "mcens: ending the job with MPI_Abort: after a failed write, or on a full disk, HDF5 "
                    "cannot close the output safely (the last checkpoint is kept; once there is room, --restart goes "
                    "on from it)\n");
        fflush(stderr);
        MPI_Barrier(MPI_COMM_WORLD); /* rank 0's message out before any rank's abort ends it */
        MPI_Abort(MPI_COMM_WORLD, EXIT_ERROR);
    }
    h5out_library_close(); /* while MPI still runs: HDF5 closing itself inside MPI_Finalize can crash */
    MPI_Finalize();
    ens_watchdog_disarm(); /* armed at the end of the rounds (run_and_write), or after --dry-run's or --energy's work */
    return rc != MC_OK ? EXIT_ERROR : j.stopped_by ? EXIT_STOPPED : j.not_finite ? EXIT_NOT_FINITE : EXIT_DONE;
}
