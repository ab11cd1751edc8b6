/* run_lock: the lock on an output name and the checks of its directory before a run. */
#include "run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "ens.h"

struct run_lock {
    MPI_Comm comm;
    int rank, fd;  /* fd: rank 0's open lock file, -1 elsewhere */
    char *output, *path;
};

/* Rank 0: create or open OUTPUT.lock and lock it; write who holds it, for the next one's message. */
static int lock_file(run_lock *l, mc_err *err)
{
    l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (l->fd < 0)
        MC_FAIL(err, MC_EIO, "%s: cannot create the lock file: %s (does the output directory exist and "
                "is it writable?)", l->path, strerror(errno));
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(l->fd, F_SETLK, &fl) != 0) {
        int e = errno;
        char holder[200] = "";
        ssize_t got = pread(l->fd, holder, sizeof holder - 1, 0);
        holder[got > 0 ? got : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        close(l->fd);
        l->fd = -1;
        if (e == EACCES || e == EAGAIN)
            MC_FAIL(err, MC_EIO, "%s is being written by another run (%s holds %s); wait for it, or choose "
                    "another output with -o", l->output, holder[0] ? holder : "unknown", l->path);
        MC_FAIL(err, MC_EIO, "%s: cannot lock it: %s (a file system without locks? choose another output "
                "directory)", l->path, strerror(e));
    }
    char host[128] = "?", line[256];
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    int len = snprintf(line, sizeof line, "pid %ld on %s since %s\n", (long)getpid(), host, when);
    if (ftruncate(l->fd, 0) != 0 || pwrite(l->fd, line, (size_t)len, 0) != len)
        MC_FAIL(err, MC_EIO, "%s: cannot write it: %s", l->path, strerror(errno));
    return MC_OK;
}

run_lock *run_lock_take(MPI_Comm comm, const char *output, mc_err *err)
{
    run_lock *l = calloc(1, sizeof *l);
    if (!l) return mc_err_set(err, MC_ENOMEM, "out of memory"), NULL;
    l->comm = comm;
    l->fd = -1;
    l->output = strdup(output);
    l->path = malloc(strlen(output) + sizeof ".lock");
    int rc = MPI_Comm_rank(comm, &l->rank) == MPI_SUCCESS ? MC_OK : mc_err_set(err, MC_EMPI, "MPI_Comm_rank failed");
    if (rc == MC_OK && (!l->output || !l->path)) rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (rc == MC_OK) sprintf(l->path, "%s.lock", output);
    if (rc == MC_OK && l->rank == 0) rc = lock_file(l, err);
    if (ens_agree(comm, rc, err) != MC_OK) {
        if (l->fd >= 0) close(l->fd), unlink(l->path); /* ours, but the run ends here */
        free(l->output), free(l->path), free(l);
        return NULL;
    }
    return l;
}

static int preflight(const run_lock *l, int may_replace, int fresh, double bytes, mc_err *err)
{
    char *copy = strdup(l->output);
    if (!copy) MC_FAIL(err, MC_ENOMEM, "out of memory");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", dirname(copy));
    free(copy);
    if (access(dir, W_OK | X_OK) != 0)
        MC_FAIL(err, MC_EIO, "%s: the output directory is not writable: %s", dir, strerror(errno));
    if (!may_replace && access(l->output, F_OK) == 0)
        MC_FAIL(err, MC_EIO, "%s exists; refusing to overwrite it (set [run] overwrite = yes or choose "
                "another file with -o)", l->output);
    /* a stopped run's state and trajectory would be replaced by the new run's (a finished run has
     * renamed its OUTPUT.part; the checkpoint it leaves for --extend may go with its output) */
    char ckpt[4096], part[4096];
    snprintf(ckpt, sizeof ckpt, "%s.ckpt", l->output);
    snprintf(part, sizeof part, "%s.part", l->output);
    if (fresh && !may_replace && access(ckpt, F_OK) == 0 && access(part, F_OK) == 0)
        MC_FAIL(err, MC_EIO, "%s exists: the state of an earlier run of %s; continue that run with --restart (or "
                "--extend), or delete %s and %s.part, or set [run] overwrite = yes", ckpt, l->output, ckpt, l->output);
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0) MC_FAIL(err, MC_EIO, "%s: cannot read its free space: %s", dir, strerror(errno));
    double free_bytes = (double)vfs.f_bavail * (double)vfs.f_frsize;
    if (free_bytes < bytes)
        MC_FAIL(err, MC_EIO, "%s: %.3g MB free, but the output and three checkpoints need about %.3g MB; free "
                "some space, write elsewhere with -o, or (fewer chains or samples) shrink the run", dir,
                free_bytes / 1e6, bytes / 1e6);
    return MC_OK;
}

int run_lock_preflight(const run_lock *l, int may_replace, int fresh, double bytes, mc_err *err)
{
    int rc = l->rank == 0 ? preflight(l, may_replace, fresh, bytes, err) : MC_OK;
    return ens_agree(l->comm, rc, err);
}

void run_lock_release(run_lock *l)
{
    if (!l) return;
    if (l->fd >= 0) {
        unlink(l->path); /* while still held: no other run can have it yet */
        close(l->fd);
    }
    free(l->output);
    free(l->path);
    free(l);
}
