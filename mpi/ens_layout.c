/* ens_layout: reading the config once, chains to ranks, agreeing on failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ens.h"

int ens_mpi_check(int mpi_rc, const char *what, mc_err *err)
{
    if (mpi_rc == MPI_SUCCESS) return MC_OK;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(mpi_rc, msg, &len);
    MC_FAIL(err, MC_EMPI, "%s failed: %.*s", what, len, msg);
}

static int read_file(const char *path, char **text, mc_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) MC_FAIL(err, MC_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (len < cap - 1) break;
        char *bigger = realloc(buf, cap *= 2);
        if (!bigger) free(buf);
        buf = bigger;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf) MC_FAIL(err, MC_ENOMEM, "%s: out of memory reading it", path);
    if (failed) {
        free(buf);
        MC_FAIL(err, MC_EIO, "%s: read error", path);
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        MC_FAIL(err, MC_EINVAL, "%s: contains a NUL byte; expected a text file", path);
    }
    *text = buf;
    return MC_OK;
}

int ens_read_text(MPI_Comm comm, const char *path, char **text, mc_err *err)
{
    int rank, rc = MC_OK;
    MC_TRY(ens_mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank", err));
    long len = 0;
    *text = NULL;
    if (rank == 0) {
        rc = read_file(path, text, err);
        len = rc == MC_OK ? (long)strlen(*text) : -1;
    }
    MC_TRY(ens_mpi_check(MPI_Bcast(&len, 1, MPI_LONG, 0, comm), "MPI_Bcast", err));
    if (len < 0) return ens_agree(comm, rc, err); /* everyone learns rank 0's message */
    if (rank != 0 && !(*text = malloc((size_t)len + 1))) rc = MC_ENOMEM;
    MC_TRY(ens_agree(comm, rc == MC_OK ? MC_OK : mc_err_set(err, rc, "out of memory"), err));
    MC_TRY(ens_mpi_check(MPI_Bcast(*text, (int)len + 1, MPI_CHAR, 0, comm), "MPI_Bcast", err));
    return MC_OK;
}

int ens_agree(MPI_Comm comm, int status, mc_err *err)
{
    /* a caller with nowhere to report (a close on an error path: h5out_close(f, 0, NULL)) still
     * agrees, or the other ranks would wait in the collective for it */
    mc_err unreported = {MC_OK, ""};
    if (!err) err = &unreported;
    int rank, size;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return mc_err_set(err, MC_EMPI, "MPI_Comm_rank or MPI_Comm_size failed while agreeing on status");
    int mine = status != MC_OK ? rank : size, first = size;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
        /* a broken collective leaves nothing to agree with: main() aborts the job */
        return mc_err_set(err, MC_EMPI, "rank %d: MPI_Allreduce failed while agreeing on status",
                          rank);
    }
    if (first == size) return MC_OK;
    struct {
        int code;
        char msg[MC_ERR_MSG_LEN];
    } wire = {0, ""};
    if (rank == first) {
        wire.code = err->code ? err->code : status;
        snprintf(wire.msg, sizeof wire.msg, "%s", err->msg);
    }
    if (MPI_Bcast(&wire, (int)sizeof wire, MPI_BYTE, first, comm) != MPI_SUCCESS)
        return mc_err_set(err, MC_EMPI, "rank %d: MPI_Bcast of rank %d's error failed", rank, first);
    err->code = wire.code;
    int already = 0; /* a message agreed on before carries its rank already */
    if (sscanf(wire.msg, "rank %*d:%n", &already) == 0 && already > 0)
        snprintf(err->msg, sizeof err->msg, "%s", wire.msg);
    else if (size > 1) snprintf(err->msg, sizeof err->msg, "rank %d: %.480s", first, wire.msg);
    else snprintf(err->msg, sizeof err->msg, "%s", wire.msg);
    return wire.code;
}

int ens_layout_init(ens_layout *l, MPI_Comm comm, int nchains, mc_err *err)
{
    memset(l, 0, sizeof *l);
    l->comm = comm;
    MC_TRY(ens_mpi_check(MPI_Comm_rank(comm, &l->rank), "MPI_Comm_rank", err));
    MC_TRY(ens_mpi_check(MPI_Comm_size(comm, &l->size), "MPI_Comm_size", err));
    if (gethostname(l->host, sizeof l->host - 1) != 0) snprintf(l->host, sizeof l->host, "?");
    if (l->size > nchains)
        MC_FAIL(err, MC_EINVAL,
                "%d ranks but only %d chains (state points x replicas): use at most %d ranks "
                "or add replicas", l->size, nchains, nchains);
    MPI_Comm local;
    MC_TRY(ens_mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, l->rank, MPI_INFO_NULL,
                                             &local), "MPI_Comm_split_type", err));
    int rc = ens_mpi_check(MPI_Comm_rank(local, &l->local_rank), "MPI_Comm_rank", err);
    if (rc == MC_OK) rc = ens_mpi_check(MPI_Comm_size(local, &l->local_size), "MPI_Comm_size", err);
    int freed = ens_mpi_check(MPI_Comm_free(&local), "MPI_Comm_free", err);
    MC_TRY(rc != MC_OK ? rc : freed);
    l->chains_of = malloc((size_t)l->size * sizeof *l->chains_of);
    l->first_of = malloc((size_t)l->size * sizeof *l->first_of);
    if (!l->chains_of || !l->first_of) {
        ens_layout_fini(l);
        MC_FAIL(err, MC_ENOMEM, "out of memory");
    }
    /* the first nchains % size ranks take one chain more */
    for (int r = 0, first = 0; r < l->size; r++) {
        l->chains_of[r] = nchains / l->size + (r < nchains % l->size);
        l->first_of[r] = first;
        first += l->chains_of[r];
    }
    l->first_chain = l->first_of[l->rank];
    l->nchains = l->chains_of[l->rank];
    return MC_OK;
}

void ens_layout_fini(ens_layout *l)
{
    free(l->chains_of);
    free(l->first_of);
    l->chains_of = l->first_of = NULL;
}

int ens_print_ordered(const ens_layout *l, const char *line, FILE *stream, mc_err *err)
{
    enum { LINE = 512 };
    char mine[LINE], *all = NULL;
    snprintf(mine, sizeof mine, "%s", line);
    if (l->rank == 0 && !(all = malloc((size_t)l->size * LINE))) MC_FAIL(err, MC_ENOMEM, "out of memory");
    int rc = ens_mpi_check(MPI_Gather(mine, LINE, MPI_CHAR, all, LINE, MPI_CHAR, 0, l->comm),
                           "MPI_Gather", err);
    if (rc == MC_OK && l->rank == 0)
        for (int r = 0; r < l->size; r++) fprintf(stream, "%s\n", all + (size_t)r * LINE);
    free(all);
    return rc;
}
