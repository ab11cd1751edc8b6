/* mc_hd: MC_HD marks a function written once for the host and the GPU (HOOMD's HOSTDEVICE idea). */
#ifndef MC_HD_H
#define MC_HD_H
#ifdef __CUDACC__
#define MC_HD static inline __host__ __device__
#else
#define MC_HD static inline
#endif
#endif
