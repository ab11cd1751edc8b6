/* mc_test_hooks: the table of test hooks and the one place that reads them. */
#include "mc_test_hooks.h"

#include <stdlib.h>

const mc_test_hook_row mc_test_hook_rows[MC_NTEST_HOOKS] = {
    [MC_TEST_HOST_MEMORY] = {"MCENS_TEST_HOST_MEMORY", "BYTES",
                             "mcens takes the machine to have BYTES of memory (the memory refusals; t/bad_input.sh)"},
    [MC_TEST_FAIL_RANK] = {"MCENS_TEST_FAIL_RANK", "R", "rank R fails its first round (t/cli.sh)"},
    [MC_TEST_SIGNAL_AT] = {"MCENS_TEST_SIGNAL_AT", "R:S",
                           "rank R sends itself SIGUSR1, a stop request, once S sweeps are done (t/restart.sh, t/faults.sh, "
                           "t/start_h5.sh, t/trajectory.sh)"},
    [MC_TEST_KILL_AT] = {"MCENS_TEST_KILL_AT", "R:S",
                         "rank R sends itself SIGKILL, a crash, once S sweeps are done (t/restart.sh)"},
    [MC_TEST_FAIL_EXCHANGE] = {"MCENS_TEST_FAIL_EXCHANGE", "R:S",
                               "rank R fails the first replica-exchange step from sweep S on, between its decisions "
                               "and its trades (t/exchange.sh)"},
    [MC_TEST_FAIL_WRITE] = {"MCENS_TEST_FAIL_WRITE", "R:SUFFIX",
                            "rank R's dataset and trajectory-frame writes to files ending in SUFFIX fail, as a full "
                            "disk under one rank would (t/faults.sh, t/trajectory.sh)"},
    [MC_TEST_STOP_IN_WRITE] = {"MCENS_TEST_STOP_IN_WRITE", "R",
                               "rank R stops itself (SIGSTOP) as the output's write begins, as a rank hung in a "
                               "collective write would (t/faults.sh)"},
    [MC_TEST_STOP_IN_SETUP] = {"MCENS_TEST_STOP_IN_SETUP", "R:WHERE",
                               "rank R stops itself (SIGSTOP) in the run's setup, once its plan is made (plan) or its "
                               "chains are built (chains; with --dry-run timed, with --energy evaluated), as a rank "
                               "stopped or hung before the rounds would (t/faults.sh)"},
    [MC_TEST_NO_ESTIMATE] = {"MCENS_TEST_NO_ESTIMATE", "1",
                             "--dry-run runs no sweeps to estimate the wall time, so that thousands of fuzzed configs "
                             "each take a moment (t/fuzz.sh)"},
    [MC_TEST_PHASE_ROWS] = {"MCENS_TEST_PHASE_ROWS", "1",
                            "the GPU keeps a charged move's phase tables in device memory, as it must where they do "
                            "not fit in shared memory (large molecules at a large ewald_kmax; t/gpu_parity)"},
};

const char *mc_test_hook(enum mc_test_hook_id id)
{
    const char *v = getenv(mc_test_hook_rows[id].var);
    return v && *v ? v : NULL;
}

int mc_test_hook_rank_sweep(enum mc_test_hook_id id, int rank, long *at)
{
    const char *v = mc_test_hook(id);
    int r;
    return v && sscanf(v, "%d:%ld", &r, at) == 2 && r == rank;
}

void mc_test_hooks_print(FILE *f)
{
    for (int h = 0; h < MC_NTEST_HOOKS; h++)
        fprintf(f, "%s=%s\t%s\n", mc_test_hook_rows[h].var, mc_test_hook_rows[h].form, mc_test_hook_rows[h].what);
}
