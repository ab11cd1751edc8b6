/* cu_check: CUDA return codes become mc_err (MC_ECUDA) with the call, file and line. */
#ifndef CU_CHECK_H
#define CU_CHECK_H

#include <cuda_runtime.h>

#include "mc_err.h"

#define CU_TRY(call, err)                                                                          \
    do {                                                                                           \
        cudaError_t cu_try_rc_ = (call);                                                           \
        if (cu_try_rc_ != cudaSuccess)                                                             \
            return mc_err_set((err), MC_ECUDA, "%s failed: %s (%s:%d)", #call,                     \
                              cudaGetErrorString(cu_try_rc_), __FILE__, __LINE__);                 \
    } while (0)

/* After every launch: a bad configuration shows here, a fault at the next synchronising call. */
#define CU_LAUNCHED(err) CU_TRY(cudaGetLastError(), err)

#endif
