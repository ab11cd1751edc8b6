/* mc_err: message formatting for the single error type. */
#include "mc_err.h"

#include <stdarg.h>
#include <stdio.h>

const char *mc_strerror(int code)
{
    switch (code) {
    case MC_OK: return "success";
    case MC_EINVAL: return "invalid input";
    case MC_ENOMEM: return "out of memory";
    case MC_EIO: return "file error";
    case MC_ECUDA: return "CUDA error";
    case MC_EMPI: return "MPI error";
    case MC_EHDF5: return "HDF5 error";
    case MC_ECHECK: return "consistency check failed";
    case MC_ENODEV: return "no GPU";
    case MC_EHALT: return "a parallel file left open after a failed write";
    default: return "unknown error";
    }
}

int mc_err_set(mc_err *err, int code, const char *fmt, ...)
{
    if (err == NULL || err->code != MC_OK) return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}
