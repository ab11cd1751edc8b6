/* cu_device: GPU discovery and binding of a rank to one device (local rank modulo device count).
 * Built from cu_device.cu with CUDA, from cu_device_none.c without; both report through mc_err. */
#ifndef CU_DEVICE_H
#define CU_DEVICE_H

#include "mc_err.h"

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
} cu_device_info;

/* Bind to device local_rank % count. MC_ENODEV with a reason when no GPU can be used (no CUDA in
 * this build, no driver, no device); the caller then runs on the CPU backend. */
int cu_device_bind(int local_rank, cu_device_info *info, mc_err *err);

#ifdef __cplusplus
}
#endif
#endif
