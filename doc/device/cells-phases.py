# cells-phases.py: prints a copy of cuda/cu_cells.cu whose launch_cells records a CUDA event before
# the first kernel of every batch and after each of its three kernels, and at the end prints the
# time between them summed over the launch's batches (stderr, "cells phases"): the draw kernel,
# the trial kernel and the accept kernel, each with the gap before it. With --clocks, also
# clock64() phase counters: thread 0 of the accept kernel, and of warp 0 of the trial kernel's block
# 100, print their phases' cycles every 200th batch ("phases B", "phases A"). For cells-scan.sh.
import sys
clocks = '--clocks' in sys.argv
s = open('cuda/cu_cells.cu').read()
def sub(old, new):
    global s
    assert old in s, old
    s = s.replace(old, new, 1)
sub("""    real *pos = (real *)v->pos;
    for (long long done = 0; done < moves; done += K) {""", """    real *pos = (real *)v->pos;
    const long long nb = (moves + K - 1) / K;
    cudaEvent_t *ev = (cudaEvent_t *)malloc(4 * nb * sizeof *ev);
    for (long long e = 0; e < 4 * nb; e++) cudaEventCreate(&ev[e]);
    for (long long done = 0; done < moves; done += K) {
        cudaEvent_t *eb = ev + 4 * (done / K);
        cudaEventRecord(eb[0]);""")
sub("""        cells_draw_kernel<real><<<1, K, K * sizeof(int)>>>(v->chains, pos, v->n, trials, t, v->seed);
        CU_LAUNCHED(err);""", """        cells_draw_kernel<real><<<1, K, K * sizeof(int)>>>(v->chains, pos, v->n, trials, t, v->seed);
        CU_LAUNCHED(err);
        cudaEventRecord(eb[1]);""")
sub("""            v->chains, pos, v->n, trials, t, v->cells, lj, cutoff);
        CU_LAUNCHED(err);""", """            v->chains, pos, v->n, trials, t, v->cells, lj, cutoff);
        CU_LAUNCHED(err);
        cudaEventRecord(eb[2]);""")
sub("""                                                    v->seed);
        CU_LAUNCHED(err);
    }""", """                                                    v->seed);
        CU_LAUNCHED(err);
        cudaEventRecord(eb[3]);
    }
    cudaDeviceSynchronize();
    double sum[4] = {0, 0, 0, 0};
    for (long long b = 0; b < nb; b++)
        for (int k = 0; k < 4; k++) {
            float ms = 0;
            if (k < 3) cudaEventElapsedTime(&ms, ev[4 * b + k], ev[4 * b + k + 1]);
            else if (b + 1 < nb) cudaEventElapsedTime(&ms, ev[4 * b + 3], ev[4 * b + 4]);
            sum[k] += ms;
        }
    fprintf(stderr, "cells phases, %lld batches of %d: us per batch: draw %.2f trials %.2f accept %.2f between %.2f\\n",
            nb, K, 1e3 * sum[0] / nb, 1e3 * sum[1] / nb, 1e3 * sum[2] / nb, 1e3 * sum[3] / nb);
    for (long long e = 0; e < 4 * nb; e++) cudaEventDestroy(ev[e]);
    free(ev);""")
sub('#include <string.h>\n', '#include <string.h>\n#include <stdio.h>\n')
if clocks:
    # kernel B: thread 0 after each block-wide step
    sub("""    const bool active = k < trials;
    int p = -1, prev = -1, mult = 1, nconf = 0;""", """    const bool active = k < trials;
    const bool show = k == 0 && (cd->step / K) % 200 == 7;
    long long ck[8]; int nck = 0, iters = 0; ck[nck++] = clock64();
#define CK() do { if (show) ck[nck++] = clock64(); } while (0)
    int p = -1, prev = -1, mult = 1, nconf = 0;""")
    sub("""    if (k == 0) s_max_level = 0;
    __syncthreads();""", """    if (k == 0) s_max_level = 0;
    __syncthreads();
    CK();""")
    sub("""        if (!__syncthreads_or(changed)) break;
    }""", """        iters++;
        if (!__syncthreads_or(changed)) break;
    }
    CK();""")
    sub("""        __syncthreads();
    }
    double total = cu_block_sum(gain[k], red);
    int accepted = __syncthreads_count(acc[k]);""", """        __syncthreads();
    }
    CK();
    double total = cu_block_sum(gain[k], red);
    int accepted = __syncthreads_count(acc[k]);
    CK();""")
    sub("""    __syncthreads();
    /* cell moves touching cells no other move touches commute""", """    __syncthreads();
    CK();
    /* cell moves touching cells no other move touches commute""")
    sub("""    if (changes && listed) s_chg[s_warp_chg[k >> 5] + __popc(mask & ((1u << (k & 31)) - 1u))] = k;
    __syncthreads();""", """    if (changes && listed) s_chg[s_warp_chg[k >> 5] + __popc(mask & ((1u << (k & 31)) - 1u))] = k;
    __syncthreads();
    CK();""")
    sub("""    if (k == 0) {
        cd->step += trials;
        cd->accepted += accepted;""", """    __syncthreads();
    CK();
    if (show)
        printf("phases B: load %lld levels %lld decide %lld sum %lld positions %lld list %lld moves %lld; iterations %d max level %d changes %d\\n",
               ck[1] - ck[0], ck[2] - ck[1], ck[3] - ck[2], ck[4] - ck[3], ck[5] - ck[4], ck[6] - ck[5], ck[7] - ck[6], iters,
               s_max_level, nchg);
    if (k == 0) {
        cd->step += trials;
        cd->accepted += accepted;""")
    # kernel A: warp 0 of block 100 (the new position's half)
    sub("""    const int staged = min(trials, (int)(blockIdx.x + 1) * PER_BLOCK);""", """    const int staged = min(trials, (int)(blockIdx.x + 1) * PER_BLOCK);
    const bool show = blockIdx.x == 100 && threadIdx.x == 0 && (cd->step / trials) % 200 == 7;
    long long c0 = clock64(), c1 = 0, c2 = 0, c3 = 0;""")
    sub("""    __syncthreads();
    const int lane = threadIdx.x & 31, warp""", """    __syncthreads();
    c1 = clock64();
    const int lane = threadIdx.x & 31, warp""")
    sub("""    /* as drawn: the particle's earlier trial""", """    c2 = clock64();
    /* as drawn: the particle's earlier trial""")
    sub("""    __syncthreads();
    if (!active || old_half) return;""", """    c3 = clock64();
    __syncthreads();
    if (show) printf("phases A: stage %lld scan %lld energy %lld barrier %lld\\n", c1 - c0, c2 - c1, c3 - c2, clock64() - c3);
    if (!active || old_half) return;""")
sys.stdout.write(s)
