/* disk_room: room on the file system claimed before a parallel HDF5 file is written. A write that
 * fails half-way through HDF5's MPI-IO driver leaves the ranks' HDF5 states apart: closing the file
 * can hang in a collective or, failing, crash the library's shutdown (issue 44). So a full file
 * system must be met before the write, not inside it: rank 0 reserves the blocks the write needs
 * beyond the file's end (fallocate, FALLOC_FL_KEEP_SIZE: they are the file's and no one else can
 * take them, and its size does not change), and where there is no room it waits for some, saying
 * so, for a bounded time. Where the file system cannot reserve (fallocate unsupported) it checks
 * the free space instead. Collective; every rank returns the same status. */
#ifndef DISK_ROOM_H
#define DISK_ROOM_H

#include <mpi.h>

#include "mc_err.h"

/* Reserve bytes beyond the end of path (created if missing; emptied first if fresh), waiting up to
 * wait_s seconds for room, checked every 5 s; rank 0 prints a warning when it starts waiting and
 * a note when room appeared. what names the write in messages ("the checkpoint"). On failure err
 * says how much was needed and free, and how long it waited. */
int disk_room_claim(MPI_Comm comm, const char *path, int fresh, double bytes, double wait_s, const char *what,
                    mc_err *err);

/* Rank 0: give back the reserved blocks beyond the end of a written file (best effort). */
void disk_room_trim(const char *path);

#endif
