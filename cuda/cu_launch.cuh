/* cu_launch: the kernels of a batched path as a chain of programmatic dependent launches. The
 * batched paths (cu_batched.cu's large chains, cu_cells.cu's large chains with a cutoff,
 * cu_rigid_batch.cu's molecules) run two to four kernels per batch of trials, each needing the
 * one before it complete, several of them one block of a few microseconds. On compute capability
 * 9.0 a kernel may be launched while the one before it still runs and wait for it on the device
 * (cu_after_previous), so the launch latency between them is hidden. Nothing is computed
 * differently. A chained kernel reads what its predecessor writes only after cu_wait_previous;
 * before it, at most what a kernel further back wrote, where the predecessor lets it launch only
 * after its own wait (cu_cells.cu's decide kernel), and then through L2. */
#ifndef CU_LAUNCH_CUH
#define CU_LAUNCH_CUH

#include <cuda_runtime.h>

#include "cu_check.h"

/* First thing in every kernel launched by cu_launch: let the stream's next kernel be launched now
 * (it waits in its own cu_after_previous, and is launched only once every block of this grid has
 * begun, so its blocks never keep this grid's from running), then wait until the kernel before
 * this one has completed and its writes are visible. In a kernel launched without the attribute,
 * or before compute capability 9.0, there is nothing to wait for. */
__device__ __forceinline__ void cu_after_previous(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
    cudaGridDependencySynchronize();
#endif
}

/* cu_after_previous in two halves, for a kernel with work to do while the kernel before runs: work
 * that reads nothing the kernel before writes goes between them. */
__device__ __forceinline__ void cu_launch_next(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

__device__ __forceinline__ void cu_wait_previous(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}

/* Whether `kernel` may be launched chained: the device takes programmatic dependent launches
 * (compute capability 9.0 on) and the kernel was compiled with its wait (for 9.0 on: a build for
 * an older CUDA_ARCH runs on a newer GPU from PTX in which cu_after_previous is empty). */
template <typename... Params>
static inline int cu_chained_launches(void (*kernel)(Params...), int *chained, mc_err *err)
{
    int dev, major = 0;
    cudaFuncAttributes attr;
    CU_TRY(cudaGetDevice(&dev), err);
    CU_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), err);
    CU_TRY(cudaFuncGetAttributes(&attr, kernel), err);
    *chained = major >= 9 && attr.ptxVersion >= 90;
    return MC_OK;
}

/* kernel<<<grid, block, smem>>>(args...) on the default stream; with `chained` it may begin before
 * the kernel launched before it ends, so the kernel must start with cu_after_previous. */
template <typename... Params, typename... Args>
static inline cudaError_t cu_launch(int chained, void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                                    Args... args)
{
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid, config.blockDim = block, config.dynamicSmemBytes = smem, config.stream = 0;
    config.attrs = &attr, config.numAttrs = chained ? 1 : 0;
    return cudaLaunchKernelEx(&config, kernel, (Params)args...);
}

#endif
