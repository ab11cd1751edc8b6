/* disk_room: reserve the blocks a write needs before HDF5 writes them (see disk_room.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fallocate, FALLOC_FL_* */
#endif
#include "disk_room.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "ens.h"

enum room { ROOM_CLAIMED, ROOM_NONE, ROOM_ERROR };

static double free_bytes_at(const char *path)
{
    char *copy = strdup(path);
    struct statvfs vfs;
    int ok = copy && statvfs(dirname(copy), &vfs) == 0;
    free(copy);
    return ok ? (double)vfs.f_bavail * (double)vfs.f_frsize : -1.0;
}

/* One attempt: the blocks reserved, or no room (ENOSPC, EDQUOT), or an error in err. */
static enum room try_claim(const char *path, int fresh, double bytes, mc_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | (fresh ? O_TRUNC : 0), 0644);
    if (fd < 0) {
        mc_err_set(err, MC_EIO, "%s: cannot open it to reserve room: %s", path, strerror(errno));
        return ROOM_ERROR;
    }
    struct stat st;
    enum room got = ROOM_CLAIMED;
    if (fstat(fd, &st) != 0) {
        mc_err_set(err, MC_EIO, "%s: %s", path, strerror(errno));
        got = ROOM_ERROR;
    } else if (fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, (off_t)bytes) != 0) {
        int e = errno;
        if (e == ENOSPC || e == EDQUOT) got = ROOM_NONE;
        else if (e == EOPNOTSUPP || e == ENOSYS) got = free_bytes_at(path) >= bytes ? ROOM_CLAIMED : ROOM_NONE;
        else {
            mc_err_set(err, MC_EIO, "%s: cannot reserve %.3g MB for it: %s", path, bytes / 1e6, strerror(e));
            got = ROOM_ERROR;
        }
    }
    if (close(fd) != 0 && got != ROOM_ERROR) {
        mc_err_set(err, MC_EIO, "%s: %s", path, strerror(errno));
        got = ROOM_ERROR;
    }
    return got;
}

/* Rank 0's wait for room after a first attempt found none: up to wait_s, trying every 5 s. */
static int wait_for_room(const char *path, int fresh, double bytes, double wait_s, const char *what, mc_err *err)
{
    const double poll_s = 5.0;
    double waited = 0.0;
    fprintf(stderr, "mcens: warning: %s: the file system is full: %s needs about %.3g MB, %.3g MB are free; waiting "
            "up to %.0f s for room ([run] disk_full_wait), checking every %.0f s: free some space and the run goes on\n",
            path, what, bytes / 1e6, free_bytes_at(path) / 1e6, wait_s, poll_s);
    fflush(stderr); /* a progress message, not an error: the run goes on if space is freed in time */
    while (waited < wait_s) {
        double nap = wait_s - waited < poll_s ? wait_s - waited : poll_s;
        nanosleep(&(struct timespec){(time_t)nap, (long)((nap - (double)(time_t)nap) * 1e9)}, NULL);
        waited += nap;
        enum room got = try_claim(path, fresh, bytes, err);
        if (got == ROOM_ERROR) return err->code;
        if (got == ROOM_CLAIMED) {
            fprintf(stderr, "mcens: note: %s: room for %s after %.0f s; going on\n", path, what, waited);
            fflush(stderr);
            return MC_OK;
        }
    }
    if (fresh) unlink(path); /* the empty file made to hold the room */
    MC_FAIL(err, MC_EIO, "%s: no room for %s (about %.3g MB; %.3g MB free) after waiting %.0f s ([run] disk_full_wait)",
            path, what, bytes / 1e6, free_bytes_at(path) / 1e6, waited);
}

/* Rank 0's verdict to every rank; they wait for it asleep, not spinning in a blocking collective
 * for as long as rank 0 may wait for room. */
static int share_verdict(MPI_Comm comm, int *verdict, mc_err *err)
{
    MPI_Request req;
    int done = 0;
    if (MPI_Ibcast(verdict, 1, MPI_INT, 0, comm, &req) != MPI_SUCCESS) MC_FAIL(err, MC_EMPI, "MPI_Ibcast failed");
    while (!done) {
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) MC_FAIL(err, MC_EMPI, "MPI_Test failed");
        if (!done) nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    return MC_OK;
}

int disk_room_claim(MPI_Comm comm, const char *path, int fresh, double bytes, double wait_s, const char *what,
                    mc_err *err)
{
    int rank = 0;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) MC_FAIL(err, MC_EMPI, "MPI_Comm_rank failed");
    int first = rank == 0 ? (int)try_claim(path, fresh, bytes, err) : ROOM_CLAIMED;
    MC_TRY(share_verdict(comm, &first, err));
    int rc = first == ROOM_ERROR && rank == 0 ? err->code : MC_OK;
    if (first == ROOM_NONE) {
        /* every rank now knows of the wait: the phase's deadline (ens_watchdog) allows for it */
        ens_watchdog_extend(wait_s);
        if (rank == 0) rc = wait_for_room(path, fresh, bytes, wait_s, what, err);
        int failed = rc != MC_OK;
        MC_TRY(share_verdict(comm, &failed, err));
    }
    return ens_agree(comm, rc, err);
}

void disk_room_trim(const char *path)
{
    int fd = open(path, O_WRONLY);
    struct stat st;
    if (fd < 0) return;
    /* a truncation to its own size gives back the blocks past the end (ext4, xfs, tmpfs); a hole
     * punched there would not on ext4, which ignores holes past the end */
    if (fstat(fd, &st) == 0) (void)ftruncate(fd, st.st_size);
    close(fd);
}
