# cells-timeline.py: prints a copy of cuda/cu_cells.cu that times each batch of the large-chain cell
# path (shape F) on the GPU's global timer (%globaltimer, ns, one clock for every SM). The energy kernel: the
# first block's release from its wait for the decide kernel of the batch before; the last block's thread 0
# past the block's staged table and its trial's loads; the last warp's sums; the last conflict
# list; the mean warp's time from its release to its sums. The decide kernel: its release from its wait for
# the energy kernel, and its end. The decide kernel of each batch adds the intervals to device sums, over the
# batches that follow a decide kernel (not the draw kernel); at the end of each launch_cells the host prints
# their means a batch on stderr ("timeline"). The energy kernel's stamps alternate between two slots by
# batch (next_step / K), so the energy kernel of the next batch, launched while the decide kernel runs, writes the
# other. For cells-timeline.sh (which builds the copy, runs case 3 and puts the file back). Written
# for version 24's cu_cells.cu; a patch that no longer applies stops it with the text it looked for.
import sys
s = open('cuda/cu_cells.cu').read()


def sub(old, new, count=1):
    global s
    assert s.count(old) == count, old
    s = s.replace(old, new)


intervals = ['B(n-1) end -> first A(n) release', 'A release -> last block past its table', 'table -> last sums',
             'sums -> last list', 'last list -> B(n) release', 'B(n) release -> end', 'period (B end to B end)',
             'A warp: release -> sums (mean)', 'B(n) start -> last A(n) list (negative: B started after)']
NI = len(intervals)
sub('#include "mc_move.h"\n', '#include "mc_move.h"\n#include <stdio.h>\n'
    '__device__ __forceinline__ unsigned long long gtime(void) { unsigned long long t; asm volatile("mov.u64 %%0, %%%%globaltimer;" : "=l"(t)); return t; }\n'
    '__device__ unsigned long long tl_a_wait[2] = {~0ull, ~0ull}, tl_a_staged[2], tl_a_sums[2], tl_a_end[2];\n'
    '__device__ unsigned long long tl_warp_dur[2], tl_warps[2], tl_b_end_prev, tl_sum[%d], tl_batches;\n' % NI)
# the energy kernel
sub("""    cu_wait_previous(); /* chained launches: nothing a kernel writes is read before the last one ends */
    cu_launch_next();""", """    const int par_ = (int)((next_step / (unsigned long long)max(trials, 1)) & 1);
    cu_wait_previous(); /* chained launches: nothing a kernel writes is read before the last one ends */
    const unsigned long long w_wait_ = gtime();
    if (threadIdx.x == 0) atomicMin(&tl_a_wait[par_], w_wait_);
    cu_launch_next();""")
sub("""    const double step = 1.7320508075688772 * cd->max_displacement; /* longest single move */""",
    """    const double step = 1.7320508075688772 * cd->max_displacement; /* longest single move */
    if (threadIdx.x == 0) atomicMax(&tl_a_staged[par_], gtime());""")
sub("""    if (!active || role != 0) return;""", """    if (lane == 0) {
        const unsigned long long now_ = gtime();
        atomicMax(&tl_a_sums[par_], now_), atomicAdd(&tl_warp_dur[par_], now_ - w_wait_), atomicAdd(&tl_warps[par_], 1ull);
    }
    if (!active || role != 0) return;""")
sub("""    if (mult == 2) t.base2[k] = change(1);
}""", """    if (mult == 2) t.base2[k] = change(1);
    atomicMax(&tl_a_end[par_], gtime());
}""")
# the decide kernel
sub("""    cu_launch_next();
    extern __shared__ __align__(16) unsigned char smem[];
    const int K = blockDim.x, k = threadIdx.x;""", """    cu_launch_next();
    const unsigned long long tb0_ = gtime(); /* the block is resident: its work before the wait begins */
    extern __shared__ __align__(16) unsigned char smem[];
    const int K = blockDim.x, k = threadIdx.x;""")
sub("""    cu_wait_previous();
    if (*g.overflow) return; /* as in the energy kernel */""", """    cu_wait_previous();
    const unsigned long long tb1_ = gtime();
    if (*g.overflow) return; /* as in the energy kernel */""")
sub("""        cd->energy = s_energy + cu_warps_total(red);
    }
}""", """        cd->energy = s_energy + cu_warps_total(red);
        const unsigned long long tb2_ = gtime();
        const int par_ = (int)((next_step / (unsigned long long)max(trials, 1)) & 1);
        if (tl_b_end_prev) {
            const unsigned long long v_[%d] = {tl_a_wait[par_] - tl_b_end_prev, tl_a_staged[par_] - tl_a_wait[par_],
                tl_a_sums[par_] - tl_a_staged[par_], tl_a_end[par_] - tl_a_sums[par_], tb1_ - tl_a_end[par_], tb2_ - tb1_,
                tb2_ - tl_b_end_prev, tl_warp_dur[par_] / max(tl_warps[par_], 1ull), tl_a_end[par_] - tb0_};
            for (int i_ = 0; i_ < %d; i_++) tl_sum[i_] += v_[i_];
            tl_batches++;
        }
        tl_a_wait[par_] = ~0ull, tl_a_staged[par_] = tl_a_sums[par_] = tl_a_end[par_] = 0;
        tl_warp_dur[par_] = tl_warps[par_] = 0;
        tl_b_end_prev = tb2_;
    }
}""" % (NI, NI))
# the draw kernel: the batch after it has no decide kernel before it
sub("""    cu_after_previous(); /* chained launches: nothing read before the last kernel ends */
    extern __shared__ int sp[]; /* [K] particle of each trial */""", """    cu_after_previous(); /* chained launches: nothing read before the last kernel ends */
    if (threadIdx.x == 0) tl_b_end_prev = 0;
    extern __shared__ int sp[]; /* [K] particle of each trial */""")
names = ', '.join('"%s"' % x for x in intervals)
sub("""        CU_TRY(cudaMemcpy(&left, both[0].undecided, sizeof left, cudaMemcpyDeviceToHost), err);
    }
    return MC_OK;""", """        CU_TRY(cudaMemcpy(&left, both[0].undecided, sizeof left, cudaMemcpyDeviceToHost), err);
    }
    static const char *names_[] = {%s};
    unsigned long long sum_[%d], batches_ = 0, zero_[%d] = {0};
    CU_TRY(cudaMemcpyFromSymbol(sum_, tl_sum, sizeof sum_), err);
    CU_TRY(cudaMemcpyFromSymbol(&batches_, tl_batches, sizeof batches_), err);
    CU_TRY(cudaMemcpyToSymbol(tl_sum, zero_, sizeof zero_), err);
    CU_TRY(cudaMemcpyToSymbol(tl_batches, zero_, sizeof batches_), err);
    if (batches_) {
        fprintf(stderr, "timeline (%%s, K %%d, ns a batch over %%llu batches):", sizeof(real) == 4 ? "single" : "double", K, batches_);
        for (int i = 0; i < %d; i++) fprintf(stderr, " %%s %%.0f;", names_[i], (double)(long long)sum_[i] / batches_);
        fprintf(stderr, "\\n");
    }
    return MC_OK;""" % (names, NI, NI, NI))
sys.stdout.write(s)
