/* mc_err: the one error type of mcens. A function that can fail returns MC_OK (0) or an MC_E*
 * code and fills the caller's mc_err with one message; nothing below main() prints or exits. */
#ifndef MC_ERR_H
#define MC_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

enum mc_status {
    MC_OK = 0,
    MC_EINVAL, /* bad input: config value, file contents, command line */
    MC_ENOMEM, /* host or device allocation failed */
    MC_EIO,    /* a file could not be read, written or renamed */
    MC_ECUDA,  /* a CUDA runtime call failed */
    MC_EMPI,   /* an MPI call failed */
    MC_EHDF5,  /* an HDF5 call failed */
    MC_ECHECK, /* an internal consistency check failed (energy drift, overlap) */
    MC_ENODEV, /* no usable GPU where one was required */
    MC_EHALT   /* a parallel file's write or close failed (its message is the error): HDF5 cannot close
                  it safely, so the job ends without closing HDF5 or MPI (main: MPI_Abort) */
};

#define MC_ERR_MSG_LEN 512

typedef struct mc_err {
    int code;
    char msg[MC_ERR_MSG_LEN];
} mc_err;

/* One line saying what a code means, e.g. "invalid input". */
const char *mc_strerror(int code);

/* Record the first error only: later calls keep the original cause. Returns code. */
int mc_err_set(mc_err *err, int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Set err and return its code from the calling function. */
#define MC_FAIL(err, code, ...) return mc_err_set((err), (code), __VA_ARGS__)

/* Run a call returning an mc status; on failure pass its code up. */
#define MC_TRY(call)                                                                               \
    do {                                                                                           \
        int mc_try_rc_ = (call);                                                                   \
        if (mc_try_rc_ != MC_OK) return mc_try_rc_;                                                \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
