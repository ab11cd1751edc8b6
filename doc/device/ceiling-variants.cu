/* ceiling-variants.cu (GPU machine, standalone): the all-pairs LJ rate kernel of cuda/cu_bench.cu
 * at other sizes, block sizes, unroll depths, reciprocals and minimum images (by rint, or folded as
 * min(|d|, box - |d|): the engine's mc_image_fold), to find the best-written ceiling.
 * nvcc -O3 -arch=sm_90 -o /tmp/cv doc/device/ceiling-variants.cu && /tmp/cv */
#include <cstdio>
#include <cstdlib>
#include <cmath>
struct __align__(32) vec4d { double x, y, z, w; };
template <typename real> struct vec4_of;
template <> struct vec4_of<float> { typedef float4 type; };
template <> struct vec4_of<double> { typedef vec4d type; };
__device__ inline float inv(float r2, bool fast) { return fast ? __fdividef(1.0f, r2) : 1.0f / r2; }
__device__ inline double inv(double r2, bool fast) { return 1.0 / r2; }
/* one axis's minimum image, up to its sign (only its square is used) */
__device__ inline float fold(float d, float box) { float a = fabsf(d); return fminf(a, box - a); }
__device__ inline double fold(double d, double box) { double a = fabs(d), b = box - a; return a < b ? d : b; }
template <typename real, int T, int U, bool FAST, bool FOLD = false>
__global__ void __launch_bounds__(T) rate(const typename vec4_of<real>::type *p, int n, real box, real rc2, double *out)
{
    typedef typename vec4_of<real>::type vec4;
    __shared__ vec4 tile[T];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const vec4 pi = p[i < n ? i : 0];
    const real inv_box = (real)1 / box;
    double sum = 0.0;
    for (int t0 = 0; t0 < n; t0 += T) {
        tile[threadIdx.x] = p[t0 + threadIdx.x];
        __syncthreads();
        real part = 0;
#pragma unroll U
        for (int k = 0; k < T; k++) {
            const vec4 q = tile[k];
            real dx = pi.x - q.x, dy = pi.y - q.y, dz = pi.z - q.z;
            if (FOLD) dx = fold(dx, box), dy = fold(dy, box), dz = fold(dz, box);
            else dx -= box * rint(dx * inv_box), dy -= box * rint(dy * inv_box), dz -= box * rint(dz * inv_box);
            const real r2 = dx * dx + dy * dy + dz * dz, ir2 = inv(r2, FAST), ir6 = ir2 * ir2 * ir2;
            const real u = (real)4 * ir6 * (ir6 - (real)1);
            part += r2 < rc2 && r2 > (real)0 ? u : (real)0;
        }
        sum += (double)part;
        __syncthreads();
    }
    if (i < n) out[i] = sum;
}
template <typename real, int T, int U, bool FAST, bool FOLD = false> void run(int n, const char *name)
{
    typedef typename vec4_of<real>::type vec4;
    vec4 *h = (vec4 *)malloc((size_t)n * sizeof(vec4)), *d;
    double *out, box = cbrt(n / 0.8);
    srand(7);
    for (int i = 0; i < n; i++) h[i].x = box * rand() / RAND_MAX, h[i].y = box * rand() / RAND_MAX, h[i].z = box * rand() / RAND_MAX, h[i].w = 0;
    cudaMalloc(&d, (size_t)n * sizeof(vec4)); cudaMalloc(&out, n * sizeof(double));
    cudaMemcpy(d, h, (size_t)n * sizeof(vec4), cudaMemcpyHostToDevice);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    float best = 1e30f;
    for (int rep = 0; rep < 4; rep++) {
        cudaEventRecord(a);
        rate<real, T, U, FAST, FOLD><<<n / T, T>>>(d, n, (real)box, (real)6.25, out);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b);
        if (rep && ms < best) best = ms;
    }
    cudaError_t e = cudaGetLastError();
    printf("%-8s n=%-8d threads=%-4d unroll=%-3d %-5s %-4s %.3e pairs/s %s\n", sizeof(real) == 4 ? "single" : "double", n, T,
           U, FAST ? "fast" : "ieee", FOLD ? "fold" : "rint", (double)n * n / (best * 1e-3), e == cudaSuccess ? "" : cudaGetErrorString(e));
    cudaFree(d); cudaFree(out); free(h);
}
template <typename real> void sweep()
{
    run<real, 256, 8, false>(1 << 16, "");
    run<real, 256, 8, false>(1 << 18, "");
    run<real, 256, 8, false>(1 << 20, "");
    run<real, 256, 4, false>(1 << 18, "");
    run<real, 256, 16, false>(1 << 18, "");
    run<real, 128, 8, false>(1 << 18, "");
    run<real, 512, 8, false>(1 << 18, "");
    run<real, 256, 8, true>(1 << 16, "");
    run<real, 256, 8, true>(1 << 18, "");
    run<real, 512, 8, false>(1 << 20, "");
    run<real, 512, 8, false, true>(1 << 20, "");
    run<real, 512, 16, false, true>(1 << 20, "");
    run<real, 256, 8, false, true>(1 << 20, "");
}
int main()
{
    int dev; cudaDeviceProp pr; cudaGetDevice(&dev); cudaGetDeviceProperties(&pr, dev);
    printf("%s, %d SMs\n", pr.name, pr.multiProcessorCount);
    sweep<float>();
    sweep<double>();
    return 0;
}
