/* ens_signal: the stop signals of a batch system. A handler may only set a flag (nothing else is
 * async-signal-safe here); the drive loop reads it after each round, and the ranks agree on it
 * before the next, so a signal to any one rank, or to mpirun (which passes it on), stops them all
 * at the same round. This flag is the one piece of process-wide mutable state: a signal handler
 * has nowhere else to put it. */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "ens.h"

static volatile sig_atomic_t received;

static void on_stop_signal(int sig)
{
    if (received == sig) { /* the second time: the user means it */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    received = sig;
}

int ens_signals_install(mc_err *err)
{
    /* SIGHUP: a closed terminal or session, and what some launchers send one rank; SIGXCPU: the
     * CPU-time limit, which some batch systems send before killing a job */
    static const int stop_signals[] = {SIGTERM, SIGINT, SIGUSR1, SIGHUP, SIGXCPU};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* a read or write in progress goes on */
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
        if (sigaction(stop_signals[i], &sa, NULL) != 0)
            MC_FAIL(err, MC_EIO, "cannot install the handler of signal %d: %s", stop_signals[i], strerror(errno));
    return MC_OK;
}

int ens_signal_received(void) { return received; }
