#!/usr/bin/env python3
"""Prints cuda/cu_rigid_batch.cu with clock64() phase counters in kernel B (thread 0 of chain 0, summed in registers and added to a
device array at the kernel's end):
the prologue, the wait at the top barrier, its own share of a trial's sums (trials evaluated with
kernel A's sum, and afresh), the block sum, and the decision; cycles per batch and per trial are
printed after every sweep call (stderr, 'rigid phases'). For doc/device/rigid-profile.sh; never
committed into the kernel."""
import sys

src = open("cuda/cu_rigid_batch.cu").read()

def sub(old, new):
    global src
    assert src.count(old) == 1, old
    src = src.replace(old, new)

sub('#include "cu_rigid.cuh"\n', '#include "cu_rigid.cuh"\n#include <stdio.h>\n'
    '__device__ unsigned long long rigid_phases[12];\n'
    '#define PH(i) do { if (threadIdx.x == 0 && blockIdx.x == 0) { unsigned long long t_ = clock64(); '
    'ph_acc[i] += t_ - ph_t; ph_t = t_; } } while (0)\n')
sub("    const unsigned long long step0 = cd->step;\n    for (int u = threadIdx.x; u < trials; u += blockDim.x) {\n        trial_sh *q",
    "    unsigned long long ph_t = clock64(), ph_acc[12] = {0};\n    const unsigned long long step0 = cd->step;\n"
    "    for (int u = threadIdx.x; u < trials; u += blockDim.x) {\n        trial_sh *q")
sub("    for (int u = 0; u < trials; u++) {\n        __syncthreads(); /* the tables, and the last trial's decision */\n",
    "    PH(0);\n    for (int u = 0; u < trials; u++) {\n        __syncthreads(); /* the tables, and the last trial's decision */\n        PH(1);\n")
sub("            __syncthreads();\n        }\n        const trial_sh &tu = ts[u];\n",
    "            __syncthreads();\n        }\n        PH(10);\n        const trial_sh &tu = ts[u];\n")
sub("        sum = block_sum_for_thread0(sum, warp_sum);\n",
    "        if (afresh) PH(3); else PH(2);\n        sum = block_sum_for_thread0(sum, warp_sum);\n        PH(4);\n"
    "        if (threadIdx.x == 0 && blockIdx.x == 0) ph_acc[6] += afresh, ph_acc[7]++, ph_acc[8] += nmoved;\n")
sub("        if (!mc_metropolis_test(dE, beta, tu.threshold)) continue;\n",
    "        if (!mc_metropolis_test(dE, beta, tu.threshold)) { PH(5); continue; }\n")
sub("        rotations_accepted += tu.draw.rotate;\n    }\n", "        rotations_accepted += tu.draw.rotate;\n        PH(5);\n    }\n    if (threadIdx.x == 0 && blockIdx.x == 0) { ph_acc[9]++; for (int i_ = 0; i_ < 12; i_++) rigid_phases[i_] += ph_acc[i_]; }\n")
sub("""    return single ? batch_sweep<float>""", """    unsigned long long ph[12];
    int rc = single ? batch_sweep<float>(rb, chains, pos, centres, quats, t, k, n, nmol, nchains, moves, err)
                    : batch_sweep<double>(rb, chains, pos, centres, quats, t, k, n, nmol, nchains, moves, err);
    cudaMemcpyFromSymbol(ph, rigid_phases, sizeof ph);
    double b = ph[9] ? (double)ph[9] : 1.0, tr = ph[7] ? (double)ph[7] : 1.0;
    fprintf(stderr, "rigid phases per batch: prologue %.0f, top barrier %.0f, apply %.0f, sums %.0f + afresh %.0f, block sum %.0f, "
            "decision %.0f cycles; per trial %.0f; afresh %.3f of trials, moved %.1f a trial, %.0f batches\\n",
            ph[0] / b, ph[1] / b, ph[10] / b, ph[2] / b, ph[3] / b, ph[4] / b, ph[5] / b,
            (ph[1] + ph[10] + ph[2] + ph[3] + ph[4] + ph[5]) / tr, ph[6] / tr, ph[8] / tr, b);
    if (rc) return rc;
    return single ? batch_sweep<float>""")
sub("""    return single ? batch_sweep<float>(rb, chains, pos, centres, quats, t, k, n, nmol, nchains, moves, err)
                  : batch_sweep<double>(rb, chains, pos, centres, quats, t, k, n, nmol, nchains, moves, err);""",
    """    return MC_OK;""")
sys.stdout.write(src)
