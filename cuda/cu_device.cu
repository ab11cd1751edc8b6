/* cu_device: find the GPUs of this node and bind this rank to one. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "cu_device.h"

int cu_device_bind(int local_rank, cu_device_info *info, mc_err *err)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0) {
        cudaGetLastError(); /* clear the sticky error so later CUDA calls start clean */
        /* a node without NVIDIA's driver, or without a GPU, is the CPU backend's normal case: say
         * so plainly ("CUDA driver version is insufficient" read like a fault); other errors as
         * CUDA words them */
        const int absent = count == 0 || rc == cudaErrorNoDevice || rc == cudaErrorInsufficientDriver;
        MC_FAIL(err, MC_ENODEV, "%s", absent ? "none on this node, or no NVIDIA driver" : cudaGetErrorString(rc));
    }
    int dev = local_rank % count;
    cudaDeviceProp prop;
    if ((rc = cudaSetDevice(dev)) != cudaSuccess ||
        (rc = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess)
        MC_FAIL(err, MC_ECUDA, "GPU %d: %s", dev, cudaGetErrorString(rc));
    info->index = dev;
    info->count = count;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    snprintf(info->pci_bus, sizeof info->pci_bus, "%04x:%02x:%02x", prop.pciDomainID,
             prop.pciBusID, prop.pciDeviceID);
    info->memory_gib = prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
    info->sm_count = prop.multiProcessorCount;
    info->smem_per_block = (int)prop.sharedMemPerBlockOptin;
    return MC_OK;
}

int cu_shape_gpu(const mc_plan *plan, int *sm_count, int *smem_per_block, mc_err *err)
{
    int dev, smem = plan->gpu_smem_per_block;
    *sm_count = plan->gpu_sm_count;
    cudaError_t rc = cudaSuccess;
    if (*sm_count <= 0 || smem <= 0) { /* no agreed values: this GPU's */
        rc = cudaGetDevice(&dev);
        if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(sm_count, cudaDevAttrMultiProcessorCount, dev);
        if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    }
    if (rc != cudaSuccess)
        MC_FAIL(err, MC_ECUDA, "cannot read the GPU's SM count and shared memory: %s", cudaGetErrorString(rc));
    if (smem_per_block) *smem_per_block = smem;
    return MC_OK;
}
