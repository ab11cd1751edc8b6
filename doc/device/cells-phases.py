# cells-phases.py: prints a copy of cuda/cu_cells.cu in which thread 0 of the decide kernel (cells_decide_kernel)
# reads clock64() after each of its block-wide steps and adds the cycles since the last reading to a
# device array; at the end of each launch_cells the host prints them per batch on stderr ("decide phases"),
# with the batches' mean number of waves of decisions, cell changes, early stops and
# batches two of whose cell changes share a cell (so thread 0 makes those changes in order).
# Thread 0 leaves each barrier with the block, so the steps' cycles add up to the decide kernel's time after its
# wait for the energy kernel (what it does before that wait, while the energy kernel runs, is not counted). For
# cells-scan.sh (which builds the copy and puts the file back). Written for version 23's cu_cells.cu (anchors updated for versions 31, 33 and 34);
# a patch that no longer applies stops it with the text it looked for.
import sys
s = open('cuda/cu_cells.cu').read()


def sub(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new, 1)


# the draws' three steps: finish_draws's (new positions, barrier, corrections) where the decide kernel drew
# ahead, draw_batch's (clear, trials, prev) after an early stop
steps = ['load', 'decide', 'sums', 'positions', 'cell uses', 'cell moves', 'draw barrier', 'draw new pos/clear',
         'draw barrier/trials', 'draw corrections/prev', 'thread 0 last']
counts = ['waves', 'cell changes', 'stopped early', 'shared cells', 'batches']
n = len(steps) + len(counts)
sub('#include "mc_move.h"\n', '#include "mc_move.h"\n#include <stdio.h>\n'
    '__device__ unsigned long long cells_clock[%d];\n' % n +
    '#define CK(i) do { if (k == 0) { long long now_ = clock64(); atomicAdd(&cells_clock[i], (unsigned long long)(now_ - ck_)); ck_ = now_; } } while (0)\n'
    '#define COUNT(i, v) do { if (k == 0) atomicAdd(&cells_clock[%d + (i)], (unsigned long long)(v)); } while (0)\n' % len(steps))
sub("""    cu_wait_previous();
    if (*g.overflow) return; /* as in the energy kernel */""", """    cu_wait_previous();
    long long ck_ = clock64(); /* from the wait for the energy kernel on: the work before it overlaps it */
    if (*g.overflow) return; /* as in the energy kernel */""")
sub("""    const bool all_earlier = nconf > MAXC;""", """    CK(0);
    int waves = 0;
    const bool all_earlier = nconf > MAXC;""")
sub("""        if (!__syncthreads_or(active && level[k] < 0)) break;
    }""", """        waves++;
        if (!__syncthreads_or(active && level[k] < 0)) break;
    }
    CK(1);
    COUNT(0, waves);""")
sub("""    const int stop = s_stop;""", """    const int stop = s_stop;
    COUNT(2, stop < trials);
    COUNT(4, 1);""")
sub("""    int accepted = __syncthreads_count(acc[k]);""", """    int accepted = __syncthreads_count(acc[k]);
    CK(2);""")
sub("""    __syncthreads();
    /* cell moves touching cells no other move touches commute""", """    __syncthreads();
    CK(3);
    /* cell moves touching cells no other move touches commute""")
sub("""    if (changes) cell_use(touched, chg_old[k]), cell_use(touched, chg_new[k]);
    __syncthreads();""", """    if (changes) cell_use(touched, chg_old[k]), cell_use(touched, chg_new[k]);
    if (changes) atomicAdd(&cells_clock[%d + 1], 1ull);
    __syncthreads();
    CK(4);""" % len(steps))
sub("""        const bool rest = changes && !alone;""", """        const bool rest = changes && !alone;
        COUNT(3, 1);""")
sub("""    if (next_trials > 0) {
        /* this batch's tables""", """    CK(5);
    if (next_trials > 0) {
        /* this batch's tables""")
sub("""                       *(repeat_table *)smem);""", """                       *(repeat_table *)smem);
        ck_ = clock64(); /* the draws counted their own steps */""")
sub("""    const int k = threadIdx.x;
    if (k < trials)
        for (int c = 0; c < 3; c++)""", """    const int k = threadIdx.x;
    long long ck_ = clock64();
    if (k < trials)
        for (int c = 0; c < 3; c++)""")
sub("""    __syncthreads(); /* the block's stores before the corrections' */""", """    CK(7);
    __syncthreads(); /* the block's stores before the corrections' */
    CK(8);""")
sub("""            place_trial(t, m, moved_to, d, box);
        }
}""", """            place_trial(t, m, moved_to, d, box);
        }
    CK(9);
}""")
sub("""        cd->energy = s_energy + cu_warps_total(red);
    }
}""", """        cd->energy = s_energy + cu_warps_total(red);
    }
    CK(10);
}""")
sub("""         * K = 384 down in single and from K = 224 down in double) */
        __syncthreads();""", """         * K = 384 down in single and from K = 224 down in double) */
        __syncthreads();
        CK(6);""")
# the draws (the decide kernel's, and the draw kernel's once a round): after the barriers, and thread 0's own end
sub("""    repeat_clear(repeats);
    __syncthreads();
    int p = -1, home = 0;""", """    long long ck_ = clock64();
    repeat_clear(repeats);
    __syncthreads();
    CK(7);
    int p = -1, home = 0;""")
sub("""    __syncthreads();
    if (k < trials) t.prev[k] = repeat_prev(repeats, sp, k, p, home, &t.mult[k]);""", """    __syncthreads();
    CK(8);
    if (k < trials) t.prev[k] = repeat_prev(repeats, sp, k, p, home, &t.mult[k]);
    CK(9);""")
sub("""        CU_TRY(cudaMemcpy(&left, both[0].undecided, sizeof left, cudaMemcpyDeviceToHost), err);
    }
    return MC_OK;""", """        CU_TRY(cudaMemcpy(&left, both[0].undecided, sizeof left, cudaMemcpyDeviceToHost), err);
    }
    unsigned long long ck[%d] = {0};
    CU_TRY(cudaMemcpyFromSymbol(ck, cells_clock, sizeof ck), err);
    CU_TRY(cudaMemset(cells_clock_address(), 0, sizeof ck), err);
    const double batches = ck[%d] ? (double)ck[%d] : 1.0;
    fprintf(stderr, "decide phases (%%s, cycles a batch over %%.0f batches):", sizeof(real) == 4 ? "single" : "double", batches);
    unsigned long long total = 0;
    for (int i = 0; i < %d; i++) fprintf(stderr, " %%s %%.0f,", names[i], ck[i] / batches), total += ck[i];
    fprintf(stderr, " total %%.0f;", total / batches);
    for (int i = %d; i < %d; i++) fprintf(stderr, " %%s %%.3g", names[i], ck[i] / batches);
    fprintf(stderr, "\\n");
    return MC_OK;""" % (n, n - 1, n - 1, len(steps), len(steps), n - 1))
names = ', '.join('"%s"' % x for x in steps + counts)
sub("""template <typename real>
static int launch_cells(""", """static const char *names[] = {%s};
static void *cells_clock_address(void)
{
    void *a = NULL;
    cudaGetSymbolAddress(&a, cells_clock);
    return a;
}

template <typename real>
static int launch_cells(""" % names)
sys.stdout.write(s)
