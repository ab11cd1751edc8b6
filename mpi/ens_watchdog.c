/* ens_watchdog: a deadline for the phases whose waits cannot poll. Between rounds ens_drive waits
 * for the other ranks with a deadline (ens_wait_within), but a checkpoint, the final reductions,
 * the output write and MPI_Finalize wait inside HDF5's and MPI's blocking collectives: a rank
 * stopped (SIGSTOP), hung in a device call or on a stalled file system there left the others
 * waiting for ever (issue 44: the stall deadline ended the job only during the rounds). Armed
 * around such a phase, a real-time timer ends this rank when the deadline passes: the handler
 * writes the message prepared at arming and calls _exit (the only things it may do), and mpirun,
 * seeing a rank gone, ends the others. The armed message is process-wide state because a signal
 * handler has nowhere else to find it. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "ens.h"

static char message[768];
static volatile sig_atomic_t message_len;

static void on_deadline(int sig)
{
    (void)sig;
    ssize_t ignored = write(STDERR_FILENO, message, (size_t)message_len);
    (void)ignored;
    _exit(1); /* EXIT_ERROR: no atexit handlers, no HDF5 or MPI shutdown that could wait again */
}

static int arm(int rank, const char *host, double seconds, const char *what, mc_err *err)
{
    ens_watchdog_disarm();
    int len = snprintf(message, sizeof message,
                       "mcens: error: rank %d on %s: %s did not finish within %.0f s: another rank is stopped, "
                       "hung or dead, or the file system stalls; ending the job (the last checkpoint is kept; "
                       "raise [run] stall_timeout if this really takes that long)\n",
                       rank, host, what, seconds);
    message_len = len < 0 ? 0 : len >= (int)sizeof message ? (int)sizeof message - 1 : len;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_deadline;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGALRM, &sa, NULL) != 0) MC_FAIL(err, MC_EIO, "cannot install the deadline's signal handler");
    long whole = (long)seconds;
    struct itimerval t = {{0, 0}, {whole, (long)((seconds - (double)whole) * 1e6)}};
    if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1;
    if (setitimer(ITIMER_REAL, &t, NULL) != 0) MC_FAIL(err, MC_EIO, "cannot set the deadline's timer");
    return MC_OK;
}

int ens_watchdog_arm(const ens_layout *l, double seconds, const char *what, mc_err *err)
{
    return arm(l->rank, l->host, seconds, what, err);
}

int ens_watchdog_arm_early(double seconds, const char *what, mc_err *err)
{
    int rank = -1;
    char host[256] = "?";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* (MPI_ERRORS_RETURN: -1 stays if it fails) */
    if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "?");
    return arm(rank, host, seconds, what, err);
}

void ens_watchdog_extend(double seconds)
{
    struct itimerval t;
    if (getitimer(ITIMER_REAL, &t) != 0 || (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0)) return; /* not armed */
    double left = (double)t.it_value.tv_sec + 1e-6 * (double)t.it_value.tv_usec + seconds;
    long whole = (long)left;
    t.it_value.tv_sec = whole;
    t.it_value.tv_usec = (long)((left - (double)whole) * 1e6);
    setitimer(ITIMER_REAL, &t, NULL);
}

void ens_watchdog_disarm(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
}
