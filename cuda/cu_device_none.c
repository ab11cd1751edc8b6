/* cu_device_none: the device interface in a build without CUDA: there is never a GPU. */
#include "cu_device.h"

int cu_device_bind(int local_rank, cu_device_info *info, mc_err *err)
{
    (void)local_rank, (void)info;
    MC_FAIL(err, MC_ENODEV, "built without CUDA");
}
