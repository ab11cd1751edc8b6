/* cu_device: GPU discovery and binding of a rank to one device (local rank modulo device count).
 * Built from cu_device.cu with CUDA, from cu_device_none.c without; both report through mc_err. */
#ifndef CU_DEVICE_H
#define CU_DEVICE_H

#include "mc_err.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cu_device_info {
    int index;    /* CUDA device ordinal bound to this rank */
    int count;    /* devices visible to this rank */
    char name[256];
    char pci_bus[32]; /* domain:bus:device, tells GPUs of one node apart in the log */
    double memory_gib;
    int sm_count; /* streaming multiprocessors */
    int smem_per_block; /* bytes of shared memory a block may opt in to */
} cu_device_info;

/* Bind to device local_rank % count. MC_ENODEV with a reason when no GPU can be used (no CUDA in
 * this build, no driver, no device); the caller then runs on the CPU backend. */
int cu_device_bind(int local_rank, cu_device_info *info, mc_err *err);

/* The SM count and the shared memory a block may opt in to (bytes) that kernel shapes are chosen
 * for: the plan's (mc_plan.gpu_sm_count, agreed by the run's ranks), else the bound GPU's.
 * smem_per_block may be NULL. */
int cu_shape_gpu(const mc_plan *plan, int *sm_count, int *smem_per_block, mc_err *err);

#ifdef __cplusplus
}
#endif
#endif
