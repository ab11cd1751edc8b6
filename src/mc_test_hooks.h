/* mc_test_hooks: the one way the tests reach inside a run. Each hook is an environment variable,
 * declared once in the table below with the form of its value and what it does; production code
 * asks mc_test_hook() and never reads the environment for a test itself. Unset (the default), a
 * hook does nothing and a run is exactly what a user's is. `mcens --test-hooks` prints the table. */
#ifndef MC_TEST_HOOKS_H
#define MC_TEST_HOOKS_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum mc_test_hook_id {
    MC_TEST_HOST_MEMORY,   /* BYTES: the machine's memory, so the memory refusals are testable anywhere */
    MC_TEST_FAIL_RANK,     /* R: rank R fails its first round */
    MC_TEST_SIGNAL_AT,     /* R:S: rank R sends itself SIGUSR1 once S sweeps are done */
    MC_TEST_KILL_AT,       /* R:S: the same with SIGKILL */
    MC_TEST_FAIL_EXCHANGE, /* R:S: rank R fails the first exchange step from sweep S on */
    MC_TEST_FAIL_WRITE,    /* R:SUFFIX: rank R's writes to files ending in SUFFIX fail */
    MC_TEST_STOP_IN_WRITE, /* R: rank R stops itself (SIGSTOP) as the output's write begins */
    MC_TEST_STOP_IN_SETUP, /* R:WHERE: rank R stops itself in the run's setup: "plan" or "chains" */
    MC_TEST_NO_ESTIMATE,   /* 1: --dry-run estimates no wall time (runs no sweeps) */
    MC_TEST_PHASE_ROWS,    /* 1: the GPU keeps a charged move's phase tables in device memory */
    MC_NTEST_HOOKS
};

typedef struct mc_test_hook_row {
    const char *var;   /* the environment variable */
    const char *form;  /* its value */
    const char *what;  /* what it does, and the test that uses it */
} mc_test_hook_row;

extern const mc_test_hook_row mc_test_hook_rows[MC_NTEST_HOOKS];

/* The hook's value; NULL where it is unset or empty. */
const char *mc_test_hook(enum mc_test_hook_id id);

/* A hook of the form R:S (rank:sweep): whether it is set for `rank` and *at holds S. */
int mc_test_hook_rank_sweep(enum mc_test_hook_id id, int rank, long *at);

/* The table, one hook a line (mcens --test-hooks). */
void mc_test_hooks_print(FILE *f);

#ifdef __cplusplus
}
#endif
#endif
