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
        MC_FAIL(err, MC_ENODEV, "no usable GPU (%s)",
                rc != cudaSuccess ? cudaGetErrorString(rc) : "no CUDA device found");
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
    return MC_OK;
}
